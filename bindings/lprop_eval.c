/*
 * lprop_eval.c - the Lua state a site is evaluated in: made and closed,
 * the libraries a site may use, the evaluation of the site file, and the
 * message handler and error report; with the helpers that let C code make
 * Lua values safely (lprop_cpcall, lprop_push_and_free, lprop_each_leaf).
 *
 * The state never opens io, os, debug or package: what is not loaded
 * cannot leak into the sandbox.
 */
#define _GNU_SOURCE /* strndup */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "embedded.h"
#include "lprop_alloc.h"
#include "lprop_budget.h"
#include "lprop_eval.h"
#include "lprop_memo.h"
#include "lprop_property.h"
#include "lprop_require.h"
#include "lprop_secret.h"

/* print(...) for sites: to stderr, so that JSON on stdout stays clean. */
static int
l_print(lua_State *L)
{
    return lprop_print(L, stderr);
}

/* load(chunk [, name [, mode [, env]]]) for sites: text only, sandboxed env. */
static int
l_load(lua_State *L)
{
    lprop_ctx *ctx = lprop_getctx(L);
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    const char *name = luaL_optstring(L, 2, "=(load)");
    int has_env = !lua_isnone(L, 4);

    if (len > 0 && s[0] == LUA_SIGNATURE[0])
        return lprop_error(L, "load: binary chunks are not allowed in a site");
    if (name[0] == '=' || name[0] == '@') {
        /* Keep user chunk names from passing for prop's own modules. */
        lua_pushfstring(L, "=(load:%s)", name + 1);
        name = lua_tostring(L, -1);
    }
    if (luaL_loadbufferx(L, s, len, name, "t") != LUA_OK) {
        lua_pushnil(L);
        lua_insert(L, -2);
        return 2;
    }
    if (has_env)
        lua_pushvalue(L, 4);
    else
        lua_rawgeti(L, LUA_REGISTRYINDEX, ctx->env_ref);
    if (lua_setupvalue(L, -2, 1) == NULL)
        lua_pop(L, 1);
    return 1;
}

/* Open the libraries the sandbox draws from, and prop's own functions. */
static int
setup_state(lua_State *L)
{
    lprop_ctx *ctx = lprop_getctx(L);
    static const luaL_Reg libs[] = {
        {LUA_GNAME, luaopen_base},       {LUA_STRLIBNAME, luaopen_string},
        {LUA_TABLIBNAME, luaopen_table}, {LUA_MATHLIBNAME, luaopen_math},
        {LUA_UTF8LIBNAME, luaopen_utf8}, {NULL, NULL}};
    const luaL_Reg *lib;

    for (lib = libs; lib->func; lib++) {
        luaL_requiref(L, lib->name, lib->func, 1);
        lua_pop(L, 1);
    }
    /* No bytecode ever: string.dump is the only way to make it. */
    lua_getglobal(L, LUA_STRLIBNAME);
    lua_pushnil(L);
    lua_setfield(L, -2, "dump");
    lua_pop(L, 1);
    /* Base functions that reach outside, or that would let a site undo
     * the limits, are removed from the state altogether. */
    lua_pushnil(L);
    lua_setglobal(L, "dofile");
    lua_pushnil(L);
    lua_setglobal(L, "loadfile");
    lua_pushnil(L);
    lua_setglobal(L, "collectgarbage");
    lua_pushcfunction(L, l_load);
    lua_setglobal(L, "load");
    lprop_budget_install(L);
    lua_pushcfunction(L, l_print);
    lua_setglobal(L, "print");
    lprop_require_install(L, luaopen_prop_core);

    /* The prelude builds the config environment from this state. */
    lprop_require(L, "prop.prelude");
    if (!lua_istable(L, -1))
        return luaL_error(L, "prop.prelude did not return the environment");
    ctx->env_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
}

lprop_ctx *
lprop_open(const lprop_limits *limits)
{
    lprop_ctx *ctx = calloc(1, sizeof *ctx);
    lua_State *L;

    if (ctx == NULL)
        return NULL;
    ctx->limits = *limits;
    ctx->env_ref = LUA_NOREF;
    if (getenv("PROP_FAIL_ALLOC") != NULL)
        ctx->heap.faults.at = strtoull(getenv("PROP_FAIL_ALLOC"), NULL, 10);
    if (prop_site_new(&ctx->site, lprop_counting_alloc, ctx) != PROP_OK)
        goto fail;
    L = lua_newstate(lprop_lua_heap_alloc, ctx);
    if (L == NULL)
        goto fail;
    ctx->L = L;
    *(lprop_ctx **)lua_getextraspace(L) = ctx;
    lprop_budget_arm_hook(ctx);
    lua_gc(L, LUA_GCGEN, 0, 0);
    /* Without its memo a check is only slower: no memory for it is no error. */
    if (limits->check_only && limits->recipe_memo)
        ctx->memo.table = lprop_memo_new(lprop_counting_alloc, ctx);
    lua_pushcfunction(L, setup_state);
    if (lua_pcall(L, 0, 0, 0) != LUA_OK) {
        fprintf(stderr, "prop: cannot set up Lua: %s\n", lua_tostring(L, -1));
        goto fail;
    }
    return ctx;
fail:
    lprop_close(ctx);
    return NULL;
}

void
lprop_close(lprop_ctx *ctx)
{
    if (ctx == NULL)
        return;
    lprop_budget_stop(ctx);
    /* Finalizers of prop's own userdata run now and must not fail. */
    ctx->limits.max_memory = SIZE_MAX;
    if (ctx->heap.faults.at > ctx->heap.faults.count)
        fprintf(stderr, "prop: PROP_FAIL_ALLOC=%llu: this state made %llu requests\n",
                ctx->heap.faults.at, ctx->heap.faults.count);
    if (ctx->L)
        lua_close(ctx->L);
    lprop_memo_free(ctx->memo.table);
    prop_site_free(ctx->site);
    lprop_pool_release(&ctx->heap.pool);
    free(ctx->paths.site_dir);
    free(ctx->paths.site_real);
    free(ctx);
}

/*
 * The length of "CHUNK:LINE: " at the start of msg when CHUNK is one of
 * prop's own modules (an error raised inside one: a stack overflow in the
 * prelude's setmetatable, say), else 0.
 */
static size_t
internal_place(const char *msg)
{
    const struct lprop_embedded *m;
    const char *q;
    size_t n;

    if (strncmp(msg, "prop/", 5) != 0)
        return 0;
    for (m = lprop_embedded_modules; m->module; m++) {
        n = strlen(m->chunkname + 1);
        if (strncmp(msg, m->chunkname + 1, n) != 0 || msg[n] != ':')
            continue;
        for (q = msg + n + 1; *q >= '0' && *q <= '9'; q++)
            ;
        if (q > msg + n + 1 && q[0] == ':' && q[1] == ' ')
            return (size_t)(q + 2 - msg);
    }
    return 0;
}

int
lprop_msgh(lua_State *L)
{
    prop_frame fr[1];
    prop_origin o;
    luaL_Buffer b;
    const char *text;
    size_t len, skip = 0, cut;
    int is_string = lua_type(L, 1) == LUA_TSTRING;

    if (is_string) {
        text = lua_tolstring(L, 1, &len);
        skip = internal_place(text);
    } else if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) {
        text = lua_tolstring(L, -1, &len);
    } else {
        lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
        text = lua_tolstring(L, -1, &len);
    }
    lprop_origin(L, &o, fr, 1);
    if (skip && o.nframes == 0)
        skip = 0; /* no line of the site to name instead */
    cut = len - skip;
    if (cut > LPROP_MAX_MESSAGE) {
        cut = LPROP_MAX_MESSAGE;
        while (cut > 0 && ((unsigned char)text[skip + cut] & 0xC0) == 0x80)
            cut--; /* not inside a UTF-8 character */
    }
    luaL_buffinit(L, &b);
    if ((!is_string || skip) && o.nframes > 0) {
        lua_pushfstring(L, "%s:%d: ", fr[0].file, fr[0].line);
        luaL_addvalue(&b);
    }
    luaL_addlstring(&b, text + skip, cut);
    if (cut < len - skip) {
        lua_pushfstring(L, " [... %I more bytes]", (lua_Integer)(len - skip - cut));
        luaL_addvalue(&b);
    }
    if (skip) {
        luaL_addstring(&b, " (in ");
        luaL_addlstring(&b, text, skip - 2);
        luaL_addstring(&b, ")");
    }
    luaL_pushresult(&b);
    return 1;
}

/* Message handler: lprop_msgh, and a note for each user-code place the
 * error passed through. */
static int
msgh(lua_State *L)
{
    lua_Debug ar;
    int level, added = 0;
    luaL_Buffer b;

    /* Where the error was raised, in case handling it fails (a stack
     * overflow inside __close handlers, say): Lua then reports only
     * "error in error handling". */
    lprop_note_place_now(lprop_getctx(L));
    lprop_msgh(L);
    luaL_buffinit(L, &b);
    lua_pushvalue(L, -2);
    luaL_addvalue(&b);
    /* Skip the innermost user frame when the message names it already
     * (an error raised elsewhere, in a template say, names its own place). */
    for (level = 1; lua_getstack(L, level, &ar); level++) {
        if (!lua_getinfo(L, "Sl", &ar) || ar.source[0] != '@' || ar.currentline <= 0)
            continue;
        if (added++ == 0) {
            const char *msg = lua_tostring(L, -2);
            size_t flen = strlen(ar.source + 1);
            char num[24];
            int nlen = snprintf(num, sizeof num, ":%d:", ar.currentline);

            if (msg && strncmp(msg, ar.source + 1, flen) == 0 && nlen > 0 &&
                strncmp(msg + flen, num, (size_t)nlen) == 0)
                continue;
        }
        lua_pushfstring(L, "\n%s:%d: note: called from here", ar.source + 1, ar.currentline);
        luaL_addvalue(&b);
        if (added > 8)
            break;
    }
    luaL_pushresult(&b);
    return 1;
}

/* Protected: the site file, whose path is a light userdata (pushing a
 * string before the call could raise outside it), then the functions
 * given to core.at_site_end, in the order they were given. */
static int
eval_main(lua_State *L)
{
    lua_Integer i;

    lua_pushstring(L, lua_touserdata(L, 1));
    lprop_run_user_file(L, lua_tostring(L, -1), lua_tostring(L, -1));
    if (lua_getfield(L, LUA_REGISTRYINDEX, LPROP_SITE_END_KEY) == LUA_TTABLE) {
        for (i = 1; i <= (lua_Integer)lua_rawlen(L, -1); i++) {
            lua_rawgeti(L, -1, i);
            lua_call(L, 0, 0);
        }
    }
    return 0;
}

int
lprop_eval_file(lprop_ctx *ctx, const char *path)
{
    lua_State *L = ctx->L;
    const char *slash = strrchr(path, '/');
    int rc;

    free(ctx->paths.site_dir);
    free(ctx->paths.site_real);
    ctx->paths.site_real = NULL;
    ctx->paths.site_dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
    if (ctx->paths.site_dir && ctx->paths.site_dir[0] == '\0') {
        free(ctx->paths.site_dir);
        ctx->paths.site_dir = strdup("/");
    }
    if (ctx->paths.site_dir == NULL) {
        lua_pushliteral(L, "prop: out of memory");
        return 1;
    }
    ctx->paths.site_real = realpath(ctx->paths.site_dir, NULL);
    if (ctx->paths.site_real == NULL) {
        lua_pushfstring(L, "prop: cannot read %s: %s", path, strerror(errno));
        return 1;
    }
    ctx->budget.where_line = 0;
    lua_pushcfunction(L, msgh);
    lua_pushcfunction(L, eval_main);
    lua_pushlightuserdata(L, (void *)path);
    lprop_budget_reset(ctx);
    ctx->evaluating = 1;
    rc = lua_pcall(L, 1, 0, -3);
    ctx->evaluating = 0;
    lprop_budget_stop(ctx);
    if (rc == LUA_OK) {
        lua_pop(L, 1);
        return 0;
    }
    lua_remove(L, -2);
    {
        /* Evaluation is over: reporting the error must not need room
         * that the site used up (the graph's arena shares the limit). */
        int mib = (int)(ctx->limits.max_memory >> 20);

        ctx->limits.max_memory = SIZE_MAX;
        if (rc == LUA_ERRERR && ctx->budget.where_line > 0 && lua_type(L, -1) == LUA_TSTRING) {
            lua_pushfstring(L, "%s:%d: %s", ctx->budget.where_file, ctx->budget.where_line,
                            lua_tostring(L, -1));
            lua_remove(L, -2);
        }
        if (rc != LUA_ERRMEM)
            return 1;
        /* Lua calls no handler for memory errors: name the last place. */
        lua_pop(L, 1);
        if (ctx->budget.where_line > 0)
            lua_pushfstring(L, "%s:%d: memory limit of %d MiB exceeded; raise it with --max-memory",
                            ctx->budget.where_file, ctx->budget.where_line, mib);
        else
            lua_pushliteral(L, "prop: memory limit exceeded; raise it with --max-memory");
    }
    return 1;
}

/*
 * Print "file:line: error: message" for an evaluation error; a message
 * without a place is printed as "prop: error: ...".
 */
void
lprop_report_error(lprop_ctx *ctx, FILE *f, int color)
{
    const char *msg = lua_tostring(ctx->L, -1);
    const char *p, *first_line_end;
    const char *red = color ? "\033[1;31m" : "", *bold = color ? "\033[1m" : "";
    const char *reset = color ? "\033[0m" : "";

    if (msg == NULL)
        msg = "(error without a message)";
    first_line_end = strchr(msg, '\n');
    if (first_line_end == NULL)
        first_line_end = msg + strlen(msg);
    /* "file:line: text" -> "file:line: error: text" */
    p = strchr(msg, ':');
    if (p && p < first_line_end && p[1] >= '0' && p[1] <= '9') {
        const char *q = p + 1;
        while (*q >= '0' && *q <= '9')
            q++;
        if (*q == ':' && q[1] == ' ') {
            fprintf(f, "%s%.*s:%s %serror:%s %s\n", bold, (int)(q - msg), msg, reset, red, reset,
                    q + 2);
            return;
        }
    }
    if (strncmp(msg, "prop: ", 6) == 0)
        msg += 6;
    fprintf(f, "prop: %serror:%s %s\n", red, reset, msg);
}
