/*
 * runner.c - prop_lua_test SCRIPT: runs one script of tests/lua/ in the
 * sandbox a site is evaluated in (lprop_open and lprop_eval_file, with
 * the limits of prop run), with one global more than a site has:
 * prop_module(NAME), prop's module "prop.NAME", internal ones included
 * (a site may require only the recipe modules).  The script requires
 * check.lua beside it for its assertions.
 *
 * Exit 0 when the script ends without an error; 1 with the error, as
 * prop prints an evaluation error, on stderr; 2 on bad usage.
 */
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "lprop_eval.h"
#include "lprop_require.h"

/* prop_module(name): require "prop." .. name, from prop's side. */
static int
l_prop_module(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);

    lua_pushfstring(L, "prop.%s", name);
    return lprop_require(L, lua_tostring(L, -1));
}

/* Protected: prop_module in the sites' environment. */
static int
install(lua_State *L)
{
    const lprop_ctx *ctx = lua_touserdata(L, 1);

    lua_rawgeti(L, LUA_REGISTRYINDEX, ctx->env_ref);
    lua_pushcfunction(L, l_prop_module);
    lua_setfield(L, -2, "prop_module");
    return 0;
}

int
main(int argc, char **argv)
{
    lprop_limits limits;
    lprop_ctx *ctx;
    int rc;

    if (argc != 2) {
        fprintf(stderr, "usage: prop_lua_test SCRIPT\n");
        return 2;
    }
    memset(&limits, 0, sizeof limits);
    limits.max_instructions = LPROP_DEFAULT_MAX_INSTRUCTIONS;
    limits.max_memory = (size_t)LPROP_DEFAULT_MAX_MEMORY_MIB << 20;
    limits.max_cpu = LPROP_DEFAULT_MAX_CPU;
    ctx = lprop_open(&limits);
    if (ctx == NULL) {
        fprintf(stderr, "prop_lua_test: out of memory\n");
        return 1;
    }
    lua_pushcfunction(ctx->L, install);
    lua_pushlightuserdata(ctx->L, ctx);
    if (lua_pcall(ctx->L, 1, 0, 0) != LUA_OK) {
        fprintf(stderr, "prop_lua_test: %s\n", lua_tostring(ctx->L, -1));
        lprop_close(ctx);
        return 1;
    }
    rc = lprop_eval_file(ctx, argv[1]);
    if (rc != 0)
        lprop_report_error(ctx, stderr, 0);
    if (fflush(stdout) != 0)
        rc = 1;
    lprop_close(ctx);
    return rc != 0;
}
