/*
 * lprop_archive.c - prop.core's archive_entries: the engine's archive
 * reader (engine/src/archive.c) for archive.extracted, which compares
 * each entry with the target.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <openssl/evp.h>

#include "archive_reader.h"
#include "lprop_archive.h"
#include "lprop_state.h"
#include "spawn.h"

extern char **environ;

#define READER_MT "prop.archive_reader"

/* The reader lives in a userdata whose __gc closes it, so that an error
 * raised while the entries are pushed (the memory limit) leaks nothing. */
static int
reader_gc(lua_State *L)
{
    prop_archive **a = luaL_checkudata(L, 1, READER_MT);

    prop_archive_close(*a);
    *a = NULL;
    return 0;
}

static const char *
type_name(prop_ar_type t)
{
    switch (t) {
    case PROP_AR_FILE:
        return "file";
    case PROP_AR_DIR:
        return "directory";
    case PROP_AR_SYMLINK:
        return "symlink";
    case PROP_AR_HARDLINK:
        return "hardlink";
    }
    return "?";
}

/* The options table at idx: strip (a count) and exclude (a list of globs,
 * copied into the string array the caller gives, at most max). */
static void
read_opts(lua_State *L, int idx, prop_ar_opts *o, const char **excl, size_t max)
{
    lua_Integer i;

    memset(o, 0, sizeof *o);
    if (lua_isnoneornil(L, idx))
        return;
    luaL_checktype(L, idx, LUA_TTABLE);
    if (lua_getfield(L, idx, "strip") != LUA_TNIL) {
        lua_Integer n = luaL_checkinteger(L, -1);

        luaL_argcheck(L, n >= 0 && n <= 1000, idx, "strip must be 0..1000");
        o->strip = (unsigned)n;
    }
    lua_pop(L, 1);
    if (lua_getfield(L, idx, "exclude") != LUA_TNIL) {
        luaL_checktype(L, -1, LUA_TTABLE);
        for (i = 1; lua_rawgeti(L, -1, i) != LUA_TNIL; i++) {
            luaL_argcheck(L, (size_t)i <= max, idx, "too many exclude globs");
            if (lua_type(L, -1) != LUA_TSTRING)
                luaL_argerror(L, idx, "exclude must be a list of strings");
            excl[i - 1] = lua_tostring(L, -1);
            /* The string stays referenced by the table, itself an
             * argument on the stack. */
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
        o->exclude = excl;
        o->nexclude = (size_t)(i - 1);
    }
    lua_pop(L, 1);
}

static int
l_archive_entries(lua_State *L)
{
    size_t len;
    const char *bytes = luaL_checklstring(L, 1, &len);
    const char *name = luaL_checkstring(L, 2);
    const char *excl[256];
    prop_ar_opts o;
    prop_ar_entry e;
    prop_archive **ud;
    char err[1024];
    lua_Integer k = 0;
    int r;

    read_opts(L, 3, &o, excl, sizeof excl / sizeof excl[0]);
    lua_settop(L, 3);
    ud = lua_newuserdatauv(L, sizeof *ud, 0);
    *ud = NULL;
    if (luaL_newmetatable(L, READER_MT)) {
        lua_pushcfunction(L, reader_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    if (prop_archive_open_memory(ud, name, bytes, len, &o, err, sizeof err) != 0) {
        lua_pushnil(L);
        lua_pushstring(L, err);
        return 2;
    }
    lua_newtable(L);
    while ((r = prop_archive_next(*ud, &e)) == 1) {
        lua_createtable(L, 0, 10);
        lua_pushstring(L, e.path);
        lua_setfield(L, -2, "path");
        lua_pushstring(L, type_name(e.type));
        lua_setfield(L, -2, "type");
        lua_pushinteger(L, (lua_Integer)e.mode);
        lua_setfield(L, -2, "mode");
        lua_pushinteger(L, (lua_Integer)e.uid);
        lua_setfield(L, -2, "uid");
        lua_pushinteger(L, (lua_Integer)e.gid);
        lua_setfield(L, -2, "gid");
        lua_pushstring(L, e.uname);
        lua_setfield(L, -2, "uname");
        lua_pushstring(L, e.gname);
        lua_setfield(L, -2, "gname");
        lua_pushinteger(L, (lua_Integer)e.size);
        lua_setfield(L, -2, "size");
        if (e.link) {
            lua_pushstring(L, e.link);
            lua_setfield(L, -2, "target");
        }
        if (e.type == PROP_AR_FILE) {
            lua_pushlstring(L, (const char *)e.data, e.len);
            lua_setfield(L, -2, "content");
        }
        lua_rawseti(L, -2, ++k);
    }
    if (r < 0) {
        lua_pushnil(L);
        lua_pushstring(L, prop_archive_error(*ud));
        prop_archive_close(*ud);
        *ud = NULL;
        return 2;
    }
    prop_archive_close(*ud);
    *ud = NULL;
    return 1;
}

/* What curl may send before it is cut off, and how long it may take. */
#define FETCH_MAX (1024u * 1024u * 1024u)
#define FETCH_TIMEOUT_MS (600LL * 1000)

/*
 * core.fetch_url(url): the bytes at url, fetched on this machine with
 * curl (http, https and ftp only; redirects followed; an HTTP error is a
 * failure), or nil and why.  For file.downloaded when the target cannot
 * fetch it itself.
 */
static int
l_fetch_url(lua_State *L)
{
    const char *url = luaL_checkstring(L, 1);
    char *argv[] = {"curl",
                    "-fsSL",
                    "--proto",
                    "=http,https,ftp",
                    "--proto-redir",
                    "=http,https,ftp",
                    "--url",
                    (char *)(uintptr_t)url,
                    NULL};
    prop_spawn_opts o;
    prop_spawn_result r;
    int rc;

    memset(&o, 0, sizeof o);
    o.argv = argv;
    o.envp = environ;
    o.path = prop_spawn_path();
    o.stdin_null = 1;
    o.out = PROP_SPAWN_CAPTURE;
    o.err = PROP_SPAWN_CAPTURE;
    o.max_output = FETCH_MAX;
    o.timeout_ms = FETCH_TIMEOUT_MS;
    o.group = PROP_SPAWN_PGRP;
    rc = prop_spawn(&o, &r);
    if (rc != PROP_SPAWN_OK || r.code != 0) {
        char why[512];

        if (rc == PROP_SPAWN_NOT_RUN)
            (void)snprintf(why, sizeof why, "curl could not be run on this machine: %s",
                           strerror(r.errnum));
        else if (rc == PROP_SPAWN_TIMEOUT)
            (void)snprintf(why, sizeof why, "curl took more than %lld s", FETCH_TIMEOUT_MS / 1000);
        else if (rc == PROP_SPAWN_TOO_MUCH)
            (void)snprintf(why, sizeof why, "more than %u bytes", FETCH_MAX);
        else if (rc != PROP_SPAWN_OK)
            (void)snprintf(why, sizeof why, "curl failed on this machine");
        else
            (void)snprintf(why, sizeof why, "curl on this machine exited %d: %.300s", r.code,
                           r.err.p ? r.err.p : "");
        prop_buf_free(&r.out);
        prop_buf_free(&r.err);
        lua_pushnil(L);
        lua_pushstring(L, why);
        return 2;
    }
    prop_buf_free(&r.err);
    if (r.out.p == NULL) {
        lua_pushliteral(L, "");
        return 1;
    }
    /* The buffer is freed whether the copy into Lua fails or not. */
    return lprop_push_and_free(L, r.out.p, r.out.len);
}

/* core.sha256(bytes): their SHA-256, 64 lowercase hex digits. */
static int
l_sha256(lua_State *L)
{
    size_t len, i;
    const char *s = luaL_checklstring(L, 1, &len);
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    char hex[2 * EVP_MAX_MD_SIZE + 1];

    if (EVP_Digest(s, len, md, &mdlen, EVP_sha256(), NULL) != 1 || mdlen != 32)
        return luaL_error(L, "sha256: the digest failed");
    for (i = 0; i < mdlen; i++)
        (void)snprintf(hex + 2 * i, 3, "%02x", md[i]);
    lua_pushlstring(L, hex, 2 * (size_t)mdlen);
    return 1;
}

static const luaL_Reg archive_funcs[] = {{"sha256", l_sha256},
                                         {"archive_entries", l_archive_entries},
                                         {"fetch_url", l_fetch_url},
                                         {NULL, NULL}};

void
lprop_archive_register(lua_State *L)
{
    luaL_setfuncs(L, archive_funcs, 0);
}
