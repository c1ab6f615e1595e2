/*
 * cmd_show.c - prop show SITE [HOST...]: the property tree of a host, each
 * node with its type and where it was made, each container nested under
 * the property that puts it on its parent.  The formatting is Lua's
 * (lua/prop/show.lua); this file only loads the site and picks hosts.
 */
#include <limits.h>
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

/* Protected: show.site(hosts) for the show module and every host of the
 * site below it (containers too: show.site nests them). */
static int
p_show_site(lua_State *L)
{
    const prop_site *s = lua_touserdata(L, 2);
    size_t i, n = prop_site_nhosts(s);

    lua_getfield(L, 1, "site");
    lua_createtable(L, n < INT_MAX ? (int)n : 0, 0);
    for (i = 0; i < n; i++) {
        lprop_push_host(L, prop_site_host(s, i));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_call(L, 1, 1);
    return 1;
}

/* Call show.host(h), or show.site for every host when h is NULL, in the
 * state and print the result. 0 or -1. */
static int
show_host(lprop_ctx *ctx, prop_host *h)
{
    lua_State *L = ctx->L;

    /* Making the host's userdata may raise: inside the protected call. */
    lua_pushcfunction(L, h ? p_show_host : p_show_site);
    lua_pushvalue(L, -2);
    lua_pushlightuserdata(L, h ? (void *)h : (void *)ctx->site);
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
    /* No host named: every host, each container nested in its parent. */
    for (k = 0; k < (sh.named ? sh.nhosts : 1); k++) {
        if (k > 0)
            fputc('\n', stdout);
        if (show_host(sh.ctx, sh.named ? (prop_host *)sh.hosts[k] : NULL) != 0)
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
