/*
 * lsys_cmd.c - the command methods of the `sys` handle: sys:run (a
 * command that may change the target) and sys:query (one that only
 * looks), through the host's transport; their argv, their standard input
 * (a secret's bytes are made here, used and wiped), the exit codes they
 * may end with, and the table of their result.
 */
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lprop.h"
#include "lsys_methods.h"

/* argv from a list of strings at idx; the strings are anchored in that table. */
static const char **
check_argv(lua_State *L, int idx)
{
    lua_Integer n, i;
    const char **argv;

    luaL_checktype(L, idx, LUA_TTABLE);
    n = (lua_Integer)lua_rawlen(L, idx);
    if (n < 1)
        luaL_argerror(L, idx, "argv must be a non-empty list of strings");
    argv = lua_newuserdatauv(L, sizeof *argv * (size_t)(n + 1), 0);
    for (i = 1; i <= n; i++) {
        int t = lua_rawgeti(L, idx, i);
        if (lprop_is_secret(L, -1))
            lsys_error(L,
                       "argv[%d] is a secret: a secret never goes on a command line (any user "
                       "of the target can read those); give it on standard input (stdin = ...)",
                       (int)i);
        if (t != LUA_TSTRING && t != LUA_TNUMBER)
            lsys_error(L, "argv[%d] must be a string, got a %s", (int)i, luaL_typename(L, -1));
        argv[i - 1] = lua_tostring(L, -1);
        lua_pop(L, 1);
    }
    argv[n] = NULL;
    return argv;
}

/* A readable command line: words with odd characters are quoted. */
static size_t
argv_text(const char *const *argv, char *buf, size_t size)
{
    size_t n = strlen(buf);
    int k;

    for (k = 0; argv[k] && n < size - 8; k++) {
        const char *w = argv[k];
        int plain = *w != '\0' && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789-_./=:,+@%") == strlen(w);

        if (n && n < size - 1)
            buf[n++] = ' ';
        if (plain) {
            for (; *w && n < size - 1; w++)
                buf[n++] = *w;
            continue;
        }
        /* Quoted as a POSIX shell would read it back: ' becomes '\''. */
        if (n < size - 1)
            buf[n++] = '\'';
        for (; *w && n < size - 5; w++) {
            if (*w == '\'') {
                memcpy(buf + n, "'\\''", 4);
                n += 4;
            } else {
                buf[n++] = *w;
            }
        }
        if (n < size - 1)
            buf[n++] = '\'';
    }
    buf[n < size ? n : size - 1] = '\0';
    return n < size ? n : size - 1;
}

static void
note_argv(lsys *s, const char *prefix, const char *const *argv)
{
    char buf[1024];

    snprintf(buf, sizeof buf, "%s", prefix);
    lsys_note(s, buf, argv_text(argv, buf, sizeof buf));
}

/* Protected (lprop_cpcall): the table of the result at ud. */
static int
push_cmd_result(lua_State *L)
{
    prop_cmd_result *r = lua_touserdata(L, 1);

    lua_createtable(L, 0, 3);
    lua_pushinteger(L, r->code);
    lua_setfield(L, -2, "code");
    lua_pushlstring(L, r->out ? r->out : "", r->out_len);
    lua_setfield(L, -2, "stdout");
    lua_pushlstring(L, r->err ? r->err : "", r->err_len);
    lua_setfield(L, -2, "stderr");
    return 1;
}

/*
 * The exit codes a command may end with (option ok at idx+field): nil is
 * {0} for run and any for query; "any"; or a list of integers.  Returns 1
 * when every code is accepted, else fills codes[0..*n).
 */
#define MAX_OK_CODES 32
static int
check_ok(lua_State *L, int opts, int change, int *codes, int *n)
{
    lua_Integer i, len;

    *n = 0;
    if (lua_isnoneornil(L, opts) || lua_getfield(L, opts, "ok") == LUA_TNIL) {
        if (!lua_isnoneornil(L, opts))
            lua_pop(L, 1);
        if (!change)
            return 1;
        codes[(*n)++] = 0;
        return 0;
    }
    if (lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), "any") == 0) {
        lua_pop(L, 1);
        return 1;
    }
    if (!lua_istable(L, -1))
        lsys_error(L, "ok must be \"any\" or a list of exit codes such as { 0, 1 }");
    len = (lua_Integer)lua_rawlen(L, -1);
    if (len < 1 || len > MAX_OK_CODES)
        lsys_error(L, "ok must list 1 to %d exit codes", MAX_OK_CODES);
    for (i = 1; i <= len; i++) {
        lua_rawgeti(L, -1, i);
        if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 0 || lua_tointeger(L, -1) > 255)
            lsys_error(L, "ok[%d] must be an exit code (an integer in 0..255)", (int)i);
        codes[(*n)++] = (int)lua_tointeger(L, -1);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return 0;
}

/* The last non-empty lines of out (at most max bytes), for messages. */
static void
tail_of(const char *out, size_t len, char *buf, size_t size)
{
    size_t start, lines = 0;

    while (len > 0 && (out[len - 1] == '\n' || out[len - 1] == ' '))
        len--;
    start = len;
    while (start > 0 && lines < 6 && len - start < size - 1) {
        start--;
        if (out[start] == '\n')
            lines++;
    }
    if (start > 0 || (len > 0 && out[start] == '\n'))
        start++;
    if (len - start > size - 1)
        start = len - (size - 1);
    memcpy(buf, out + start, len - start);
    buf[len - start] = '\0';
}

static int
do_run(lua_State *L, int change)
{
    lsys *s;
    const char **argv;
    const char *in = NULL;
    size_t inlen = 0;
    prop_cmd_result r;
    int rc, any, codes[MAX_OK_CODES], ncodes, i, accepted, secret_in = 0;
    unsigned char *secret = NULL;
    size_t secret_len = 0;

    lua_settop(L, 3); /* argv's userdata and the stdin string go above */
    s = lsys_check_self(L);
    argv = check_argv(L, 2);
    if (!lua_isnoneornil(L, 3)) {
        luaL_checktype(L, 3, LUA_TTABLE);
        if (lua_getfield(L, 3, "stdin") == LUA_TNIL)
            lua_pop(L, 1);
        else if (lprop_is_secret(L, -1))
            secret_in = lua_gettop(L); /* made into bytes just before the command runs */
        else
            in = luaL_checklstring(L, -1, &inlen); /* stays on the stack */
    }
    any = check_ok(L, 3, change, codes, &ncodes);
    if (change && s->mode == LSYS_TEST)
        return lsys_error(L, "sys:run in an only_if test: a test must only look (sys:query runs "
                             "a command that only looks)");
    if (change && s->mode == LSYS_CHECK && s->dry) {
        /* What a dry run never does, wherever it is asked for: the check
         * stops here, and the property counts as one that would change. */
        note_argv(s, "would run (in check):", argv);
        s->dry_check_ran = 1;
        return lsys_error(L, "a dry run does not run commands that can change the target");
    }
    if (change && s->mode == LSYS_APPLY) {
        s->changes++;
        if (s->dry) {
            note_argv(s, "would run:", argv);
            lua_createtable(L, 0, 3);
            lua_pushinteger(L, 0);
            lua_setfield(L, -2, "code");
            lua_pushliteral(L, "");
            lua_setfield(L, -2, "stdout");
            lua_pushliteral(L, "");
            lua_setfield(L, -2, "stderr");
            return 1;
        }
    }
    if (secret_in) {
        char why[512];

        if (lprop_secret_resolve(L, secret_in, s->reveal, s->reveal_ud, &secret, &secret_len, why,
                                 sizeof why) != 0)
            return lsys_error(L, "%s", why);
        in = (const char *)secret;
        inlen = secret_len;
    }
    rc = change ? prop_transport_run(s->t, argv, in, inlen, &r)
                : prop_transport_query(s->t, argv, in, inlen, &r);
    if (secret) {
        /* No malloc'd pointer lives across a call that can raise. */
        lprop_wipe(secret, secret_len);
        free(secret);
        secret = NULL;
    }
    if (rc != PROP_OK) {
        prop_cmd_result_clear(&r);
        return lsys_error(L, "cannot run %s: %s", argv[0], prop_transport_error(s->t));
    }
    accepted = any;
    for (i = 0; i < ncodes && !accepted; i++)
        accepted = r.code == codes[i];
    if (!accepted) {
        char shown[1024], tail[1024];
        int code = r.code;

        shown[0] = '\0';
        argv_text(argv, shown, sizeof shown);
        if (r.err_len > 0)
            tail_of(r.err, r.err_len, tail, sizeof tail);
        else
            tail_of(r.out ? r.out : "", r.out_len, tail, sizeof tail);
        prop_cmd_result_clear(&r);
        return lsys_error(L, "%s exited with %d%s%s", shown, code, tail[0] ? ":\n" : "", tail);
    }
    rc = lprop_cpcall(L, push_cmd_result, &r);
    prop_cmd_result_clear(&r); /* before an error, if any, goes on */
    return rc == LUA_OK ? 1 : lua_error(L);
}

int
lsys_cmd_run(lua_State *L)
{
    return do_run(L, 1);
}

int
lsys_cmd_query(lua_State *L)
{
    return do_run(L, 0);
}
