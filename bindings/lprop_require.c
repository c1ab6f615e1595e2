/*
 * lprop_require.c - `require` confined to the site's directory and prop's
 * embedded modules, the reading of a site's files (the site itself, its
 * modules, site.file) with the refusal of anything but a regular file
 * below the site's directory.
 */
#define _GNU_SOURCE /* strndup */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>

#include "embedded.h"
#include "lprop_require.h"

#define LOADED_KEY "prop.loaded"
/* The registry key of prop.core's opener (its address). */
static const char core_opener_key;
#define LOADING_SENTINEL "prop.loading"
#define EMBEDDED_GUARD_KEY "prop.embedded_guard"

/* What kind of file a mode is, for the refusal of anything but a regular file. */
static const char *
file_kind(mode_t m)
{
    if (S_ISDIR(m))
        return "a directory, not a regular file";
    if (S_ISFIFO(m))
        return "a FIFO, not a regular file";
    if (S_ISCHR(m))
        return "a character device, not a regular file";
    if (S_ISBLK(m))
        return "a block device, not a regular file";
    if (S_ISSOCK(m))
        return "a socket, not a regular file";
    return "not a regular file";
}

/*
 * Read a whole regular file into a block from the state's allocator (so
 * that the memory limit covers it), NUL-terminated: *len bytes of text in
 * a block of *size bytes.  NULL on failure, with *why saying what went
 * wrong (a static string; NULL when the memory limit refused the block).
 *
 * The file is opened without blocking and then looked at through the open
 * descriptor: opening a FIFO would otherwise wait for a writer for ever,
 * and a check by name before the open could be fooled by a swap in
 * between.  Only a regular file is read.
 */
static char *
read_file(lua_State *L, const char *path, size_t *len, size_t *size, const char **why)
{
    void *ud;
    lua_Alloc alloc = lua_getallocf(L, &ud);
    struct stat st;
    char *buf = NULL, *nbuf;
    size_t cap = 0, n = 0;
    ssize_t got;
    int fd;

    *why = NULL;
    do
        fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        *why = strerror(errno);
        return NULL;
    }
    if (fstat(fd, &st) != 0) {
        *why = strerror(errno);
        goto fail;
    }
    if (!S_ISREG(st.st_mode)) {
        *why = file_kind(st.st_mode);
        goto fail;
    }
    /* The size the file has now, and one more byte to see its end. */
    if (st.st_size > 0 && (uintmax_t)st.st_size < SIZE_MAX / 2)
        cap = (size_t)st.st_size + 2;
    for (;;) {
        if (cap - n < 2) {
            size_t ncap = cap ? cap * 2 : 8192;

            if (ncap < cap || !(nbuf = alloc(ud, buf, cap, ncap))) {
                *why = NULL;
                goto fail;
            }
            buf = nbuf;
            cap = ncap;
        } else if (buf == NULL) {
            if (!(buf = alloc(ud, NULL, 0, cap))) {
                *why = NULL;
                goto fail;
            }
        }
        got = read(fd, buf + n, cap - n - 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            *why = strerror(errno);
            goto fail;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    (void)close(fd);
    buf[n] = '\0';
    *len = n;
    *size = cap;
    return buf;
fail:
    if (buf)
        alloc(ud, buf, cap, 0);
    (void)close(fd);
    return NULL;
}

/*
 * Load and run a user source file (the site or a module next to it) in the
 * config environment; pushes its results (1 value).  Raises on error.
 *
 * As lua(1) does for a file: a UTF-8 byte order mark is dropped, and a
 * first line starting with "#" (#!/usr/bin/env prop) is skipped, its
 * newline kept so that line numbers stay those of the file.
 */
void
lprop_run_user_file(lua_State *L, const char *path, const char *shown)
{
    lprop_ctx *ctx = lprop_getctx(L);
    size_t len = 0, size = 0, skip = 0;
    const char *why;
    char *text = read_file(L, path, &len, &size, &why);
    int rc;

    if (text == NULL && why == NULL)
        lprop_error(L, "memory limit of %d MiB exceeded reading %s; raise it with --max-memory",
                    (int)(ctx->limits.max_memory >> 20), shown);
    if (text == NULL)
        lprop_error(L, "cannot read %s: %s", shown, why);
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
        memmove(text, text + 3, len - 3 + 1);
        len -= 3;
    }
    if (text[0] == '#')
        skip = strcspn(text, "\n");
    /* The site keeps the text, to quote its lines in diagnostics. */
    rc = prop_site_adopt_source(ctx->site, shown, text, len, size);
    if (rc != PROP_OK) {
        void *ud;

        lua_getallocf(L, &ud)(ud, text, size, 0);
        lprop_engine_error(L, rc);
    }
    lua_pushfstring(L, "@%s", shown);
    /* Parsing makes little garbage, but a large site makes a large
     * function: collections while it grows only walk it again and again. */
    lua_gc(L, LUA_GCSTOP);
    rc = luaL_loadbufferx(L, text + skip, len - skip, lua_tostring(L, -1), "t");
    lua_gc(L, LUA_GCRESTART);
    lua_remove(L, -2);
    if (rc == LUA_ERRMEM) /* the parser's memory is counted too */
        lprop_error(L, "memory limit of %d MiB exceeded parsing %s; raise it with --max-memory",
                    (int)(ctx->limits.max_memory >> 20), shown);
    if (rc != LUA_OK)
        lua_error(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, ctx->env_ref);
    if (lua_setupvalue(L, -2, 1) == NULL)
        lua_pop(L, 1);
    lua_call(L, 0, 1);
}

/* A module name a site may require: letters, digits, _ and -, dot-separated. */
static int
valid_module_name(const char *name)
{
    const char *p;
    int seg = 0;

    if (*name == '\0')
        return 0;
    for (p = name; *p; p++) {
        if (*p == '.') {
            if (seg == 0)
                return 0;
            seg = 0;
        } else if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                   (*p >= '0' && *p <= '9') || *p == '_' || *p == '-') {
            seg++;
        } else {
            return 0;
        }
    }
    return seg > 0;
}

/* __close of the guard run_embedded keeps below a module's chunk. */
static int
embedded_guard_close(lua_State *L)
{
    lprop_getctx(L)->paths.in_embedded--;
    return 0;
}

int
lprop_site_may_require(const char *name)
{
    const struct lprop_embedded *m;

    for (m = lprop_embedded_modules; m->module; m++)
        if (strcmp(m->module, name) == 0)
            return m->recipe;
    return 0;
}

int
lprop_user_caller(lua_State *L)
{
    lua_Debug ar;
    int level;

    for (level = 1; lua_getstack(L, level, &ar); level++) {
        if (!lua_getinfo(L, "S", &ar))
            return 1;
        if (strcmp(ar.what, "C") != 0)
            return strncmp(ar.source, "=prop/", 6) != 0;
    }
    return 0; /* called from C only: prop itself */
}

/* Find and run an embedded module; 1 if found (module value pushed). */
static int
run_embedded(lua_State *L, const char *name)
{
    lprop_ctx *ctx = lprop_getctx(L);
    const struct lprop_embedded *m;
    int guard;

    if (strcmp(name, "prop.core") == 0) {
        if (lua_rawgetp(L, LUA_REGISTRYINDEX, &core_opener_key) != LUA_TFUNCTION)
            return luaL_error(L, "prop.core is not installed");
        lua_call(L, 0, 1);
        return 1;
    }
    for (m = lprop_embedded_modules; m->module; m++) {
        if (strcmp(m->module, name) != 0)
            continue;
        if (luaL_loadbufferx(L, m->text, m->len, m->chunkname, "b") != LUA_OK)
            lua_error(L);
        /* core.entry takes the count hook off the functions it wraps:
         * it accepts them only from prop's own modules, while they load.
         * The guard counts the load out however it ends. */
        lua_getfield(L, LUA_REGISTRYINDEX, EMBEDDED_GUARD_KEY);
        lua_insert(L, -2);
        guard = lua_gettop(L) - 1;
        lua_toclose(L, guard);
        ctx->paths.in_embedded++;
        lua_pushstring(L, name);
        lua_call(L, 1, 1);
        lua_closeslot(L, guard);
        lua_remove(L, guard);
        return 1;
    }
    return 0;
}

/* Run a module from the site's directory, confined to it. */
static void
run_site_module(lua_State *L, const char *name)
{
    lprop_ctx *ctx = lprop_getctx(L);
    luaL_Buffer rel;
    char *real;
    const char *relpath, *p;
    size_t dlen;

    luaL_buffinit(L, &rel);
    for (p = name; *p; p++)
        luaL_addchar(&rel, *p == '.' ? '/' : *p);
    luaL_addstring(&rel, ".lua");
    luaL_pushresult(&rel);
    relpath = lua_tostring(L, -1);
    if (strcmp(ctx->paths.site_dir, ".") == 0)
        lua_pushstring(L, relpath);
    else
        lua_pushfstring(L, "%s/%s", ctx->paths.site_dir, relpath);
    real = realpath(lua_tostring(L, -1), NULL);
    if (real == NULL)
        lprop_error(L, "module \"%s\" not found: no file %s next to the site", name, relpath);
    dlen = strlen(ctx->paths.site_real);
    if (strncmp(real, ctx->paths.site_real, dlen) != 0 || real[dlen] != '/') {
        free(real);
        lprop_error(L, "module \"%s\" resolves outside the site's directory; refused", name);
    }
    lua_pushstring(L, real);
    free(real);
    lprop_run_user_file(L, lua_tostring(L, -1), lua_tostring(L, -2));
}

/*
 * require(name): prop's embedded modules ("prop.apt") and modules next to
 * the site file ("lib.util" -> lib/util.lua); nothing else.  Results are
 * cached per state; a module that requires itself is an error.
 */
static int
do_require(lua_State *L, int from_prop)
{
    const char *name = luaL_checkstring(L, 1);
    int top;

    if (strncmp(name, "prop.", 5) == 0 && !lprop_site_may_require(name) && !from_prop &&
        lprop_user_caller(L))
        return lprop_error(L,
                           "module \"%s\" is internal to prop: a site uses the recipe modules "
                           "(prop.apt, prop.file, ...) and property {}",
                           name);
    lua_settop(L, 1);
    lua_getfield(L, LUA_REGISTRYINDEX, LOADED_KEY);
    lua_getfield(L, 2, name);
    if (lua_type(L, 3) == LUA_TSTRING && strcmp(lua_tostring(L, 3), LOADING_SENTINEL) == 0)
        return lprop_error(L, "module \"%s\" requires itself (a require loop)", name);
    if (!lua_isnil(L, 3))
        return 1;
    lua_pop(L, 1);
    if (!valid_module_name(name))
        return lprop_error(L,
                           "bad module name \"%s\": require takes names like \"lib.util\" "
                           "for lib/util.lua next to the site file",
                           name);
    lua_pushliteral(L, LOADING_SENTINEL);
    lua_setfield(L, 2, name);
    top = lua_gettop(L);
    if (strncmp(name, "prop.", 5) == 0) {
        if (!run_embedded(L, name)) {
            lua_pushnil(L);
            lua_setfield(L, 2, name);
            return lprop_error(L, "prop has no module \"%s\"", name);
        }
    } else {
        run_site_module(L, name);
    }
    if (lua_gettop(L) > top + 1)
        lua_replace(L, top + 1);
    lua_settop(L, top + 1);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_pushboolean(L, 1);
    }
    lua_pushvalue(L, -1);
    lua_setfield(L, 2, name);
    return 1;
}

/*
 * core.site_file(rel) (site.file in a site): the bytes of a regular file
 * below the site's directory, read while the site is evaluated, so that a
 * site keeps its configuration files and templates beside it.  rel is
 * relative to the site's directory; neither it nor a symbolic link in it
 * may lead outside that directory, and only a regular file is read (never
 * a FIFO or a device).  The memory limit covers what is read.  Refusals
 * are P012 (a bad path) at the caller's line; a file that cannot be read
 * is an evaluation error there.  Returns the bytes, and the file's name
 * as messages show it (the site's directory as given, then rel).
 */
int
lprop_site_file(lua_State *L)
{
    lprop_ctx *ctx = lprop_getctx(L);
    const char *rel, *p, *why;
    size_t rlen, dlen, len = 0, size = 0;
    char *real, *text;
    void *ud;
    lua_Alloc alloc;

    if (lua_type(L, 1) != LUA_TSTRING)
        return lprop_error(L,
                           "[P012] site.file: the path must be a string such as "
                           "\"files/nginx.conf\", got %s",
                           luaL_typename(L, 1));
    rel = lua_tolstring(L, 1, &rlen);
    if (rlen == 0 || rel[0] == '/' || strlen(rel) != rlen)
        return lprop_error(L,
                           "[P012] site.file: \"%s\" must be a path relative to the site's "
                           "directory, such as \"files/nginx.conf\"",
                           rel);
    for (p = rel; *p;) {
        size_t seg = strcspn(p, "/");

        if (seg == 2 && p[0] == '.' && p[1] == '.')
            return lprop_error(L,
                               "[P012] site.file: \"%s\" leads outside the site's directory "
                               "(\"..\"); a site reads only files beside it",
                               rel);
        p += seg;
        while (*p == '/')
            p++;
    }
    if (strcmp(ctx->paths.site_dir, ".") == 0)
        lua_pushstring(L, rel);
    else
        lua_pushfstring(L, "%s/%s", ctx->paths.site_dir, rel);
    real = realpath(lua_tostring(L, -1), NULL);
    if (real == NULL)
        return lprop_error(L, "site.file: cannot read \"%s\" beside the site: %s", rel,
                           strerror(errno));
    dlen = ctx->paths.site_real ? strlen(ctx->paths.site_real) : 0;
    if (dlen == 0 || strncmp(real, ctx->paths.site_real, dlen) != 0 ||
        (real[dlen] != '/' && strcmp(ctx->paths.site_real, "/") != 0)) {
        free(real);
        return lprop_error(L,
                           "[P012] site.file: \"%s\" resolves outside the site's directory "
                           "(a symbolic link leads out of it); refused",
                           rel);
    }
    lua_pushstring(L, real);
    free(real);
    text = read_file(L, lua_tostring(L, -1), &len, &size, &why);
    if (text == NULL && why == NULL)
        return lprop_error(L,
                           "memory limit of %d MiB exceeded reading %s; raise it with "
                           "--max-memory",
                           (int)(ctx->limits.max_memory >> 20), rel);
    if (text == NULL)
        return lprop_error(L, "site.file: cannot read \"%s\": %s", rel, why);
    alloc = lua_getallocf(L, &ud);
    /* The bytes are copied into a Lua string; the block goes back at once
     * (a failed copy raises, so the block is freed first). */
    lua_settop(L, 1);
    if (!lua_checkstack(L, 2)) {
        alloc(ud, text, size, 0);
        return lprop_error(L, "out of stack reading %s", rel);
    }
    {
        lprop_bytes b = {text, len};
        int status = lprop_cpcall(L, lprop_push_bytes, &b);

        alloc(ud, text, size, 0);
        if (status != LUA_OK)
            return lua_error(L);
    }
    /* Second: the file as messages name it (as the site's name is). */
    if (strcmp(ctx->paths.site_dir, ".") == 0)
        lua_pushvalue(L, 1);
    else
        lua_pushfstring(L, "%s/%s", ctx->paths.site_dir, rel);
    return 2;
}

static int
l_require(lua_State *L)
{
    return do_require(L, 0);
}

/* require for prop's own C code, which may load its internal modules
 * whatever Lua code is on the stack below (a site's check asking for
 * sys.facts). */
static int
l_require_prop(lua_State *L)
{
    return do_require(L, 1);
}

int
lprop_require(lua_State *L, const char *name)
{
    lua_pushcfunction(L, l_require_prop);
    lua_pushstring(L, name);
    lua_call(L, 1, 1);
    return 1;
}

void
lprop_require_install(lua_State *L, lua_CFunction open_core)
{
    lua_pushcfunction(L, open_core);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &core_opener_key);
    lua_pushcfunction(L, l_require);
    lua_setglobal(L, "require");
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, LOADED_KEY);
    lua_newtable(L);
    lua_newtable(L);
    lua_pushcfunction(L, embedded_guard_close);
    lua_setfield(L, -2, "__close");
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, EMBEDDED_GUARD_KEY);
}
