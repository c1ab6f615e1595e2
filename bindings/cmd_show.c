/*
 * cmd_show.c - prop show SITE [HOST...]: the property tree of a host, each
 * node with its type and where it was made.  The formatting is Lua's
 * (lua/prop/show.lua); this file only loads the site and picks hosts.
 */
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "cli.h"

/* Protected: show.host(h) for the show module and the host below it. */
static int
p_show_host(lua_State *L)
{
    lua_getfield(L, 1, "host");
    lprop_push_host(L, lua_touserdata(L, 2));
    lua_call(L, 1, 1);
    return 1;
}

/* Call show.host(h) in the state and print the result. 0 or -1. */
static int
show_host(lprop_ctx *ctx, prop_host *h)
{
    lua_State *L = ctx->L;

    /* Making the host's userdata may raise: inside the protected call. */
    lua_pushcfunction(L, p_show_host);
    lua_pushvalue(L, -2);
    lua_pushlightuserdata(L, h);
    if (lua_pcall(L, 2, 1, 0) != LUA_OK) {
        fprintf(stderr, "prop show: %s\n", lua_tostring(L, -1));
        lua_pop(L, 1);
        return -1;
    }
    prop_text_puts(stdout, lua_tostring(L, -1), PROP_TEXT_LINES); /* the site's text, escaped */
    lua_pop(L, 1);
    return 0;
}

static int
require_show(lua_State *L)
{
    return lprop_require(L, "prop.show");
}

static int
run_show(int argc, char **argv)
{
    cli_site_hosts sh;
    int rc = cli_site_hosts_open(&cmd_show, argc, argv, &sh);
    size_t k;

    if (rc >= 0)
        return rc;
    rc = EXIT_WELL;
    lua_pushcfunction(sh.ctx->L, require_show);
    if (lua_pcall(sh.ctx->L, 0, 1, 0) != LUA_OK) {
        fprintf(stderr, "prop show: %s\n", lua_tostring(sh.ctx->L, -1));
        cli_site_hosts_free(&sh);
        return EXIT_FAILED;
    }
    for (k = 0; k < sh.nhosts; k++) {
        if (k > 0)
            fputc('\n', stdout);
        if (show_host(sh.ctx, (prop_host *)sh.hosts[k]) != 0)
            rc = EXIT_FAILED;
    }
    cli_site_hosts_free(&sh);
    if (fflush(stdout) != 0 && rc == EXIT_WELL)
        rc = EXIT_FAILED;
    return rc;
}

const cli_command cmd_show = {"show", run_show,
                              "print a host's property tree with each node's type and origin",
                              "prop show SITE [HOST...] [--max-instructions N] [--max-memory MIB]\n"
                              "                [--max-cpu S]"};
