/*
 * lprop_regex.c - prop.core's regex_compile: a POSIX extended regular
 * expression compiled by libc's regcomp(REG_EXTENDED|REG_NOSUB), as a
 * userdata that owns the compiled form (freed by its __gc) and answers
 * :match(s).
 */
#include <regex.h>
#include <string.h>

#include <lauxlib.h>

#include "lprop_regex.h"

#define LPROP_REGEX "prop.regex"

typedef struct regex_ud {
    regex_t re;
    int compiled; /* re holds what regcomp made: __gc frees it */
} regex_ud;

static int
l_regex_gc(lua_State *L)
{
    regex_ud *u = luaL_checkudata(L, 1, LPROP_REGEX);

    if (u->compiled) {
        regfree(&u->re);
        u->compiled = 0;
    }
    return 0;
}

static int
l_regex_match(lua_State *L)
{
    regex_ud *u = luaL_checkudata(L, 1, LPROP_REGEX);
    const char *s = luaL_checkstring(L, 2);
    int rc;

    if (!u->compiled)
        return luaL_error(L, "regex: the expression was freed");
    rc = regexec(&u->re, s, 0, NULL, 0);
    if (rc != 0 && rc != REG_NOMATCH)
        return luaL_error(L, "regex: regexec failed (%d)", rc);
    lua_pushboolean(L, rc == 0);
    return 1;
}

static int
l_regex_compile(lua_State *L)
{
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    regex_ud *u;
    char why[256];
    int rc;

    if (memchr(s, '\0', len) != NULL) {
        lua_pushnil(L);
        lua_pushliteral(L, "it contains a NUL byte");
        return 2;
    }
    /* The userdata first: if it cannot be made, nothing is compiled yet. */
    u = lua_newuserdatauv(L, sizeof *u, 0);
    u->compiled = 0;
    luaL_setmetatable(L, LPROP_REGEX);
    rc = regcomp(&u->re, s, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        (void)regerror(rc, &u->re, why, sizeof why);
        lua_pushnil(L);
        lua_pushstring(L, why);
        return 2;
    }
    u->compiled = 1;
    return 1;
}

static const luaL_Reg regex_methods[] = {{"match", l_regex_match}, {NULL, NULL}};

static const luaL_Reg regex_funcs[] = {{"regex_compile", l_regex_compile}, {NULL, NULL}};

void
lprop_regex_register(lua_State *L)
{
    if (luaL_newmetatable(L, LPROP_REGEX)) {
        luaL_newlib(L, regex_methods);
        lua_setfield(L, -2, "__index");
        lua_pushcfunction(L, l_regex_gc);
        lua_setfield(L, -2, "__gc");
        lua_pushliteral(L, "a regular expression is immutable");
        lua_setfield(L, -2, "__metatable");
    }
    lua_pop(L, 1);
    luaL_setfuncs(L, regex_funcs, 0);
}
