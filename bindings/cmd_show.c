/*
 * cmd_show.c - prop show SITE [HOST...]: the property tree of a host, each
 * node with its type and where it was made, each container nested under
 * the property that puts it on its parent.  The formatting is Lua's
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

/* Protected: show.unattached(list) for the show module and the site
 * below it: the containers of the site on no host. */
static int
p_show_unattached(lua_State *L)
{
    const prop_site *s = lua_touserdata(L, 2);
    size_t i, n = prop_site_nhosts(s);
    lua_Integer k = 0;

    lua_getfield(L, 1, "unattached");
    lua_newtable(L);
    for (i = 0; i < n; i++) {
        prop_host *h = prop_site_host(s, i);

        if (prop_host_container_kind(h) != PROP_CONTAINER_NONE && prop_host_parent(h) == NULL) {
            lprop_push_host(L, h);
            lua_rawseti(L, -2, ++k);
        }
    }
    if (k == 0) {
        lua_pushliteral(L, "");
        return 1;
    }
    lua_call(L, 1, 1);
    return 1;
}

/* Call show.host(h), or show.unattached for the site's containers on no
 * host when h is NULL, in the state and print the result (if any).
 * *printed counts what was printed; 0 or -1. */
static int
show_host(lprop_ctx *ctx, prop_host *h, size_t *printed)
{
    lua_State *L = ctx->L;
    const char *text;

    /* Making the host's userdata may raise: inside the protected call. */
    lua_pushcfunction(L, h ? p_show_host : p_show_unattached);
    lua_pushvalue(L, -2);
    lua_pushlightuserdata(L, h ? (void *)h : (void *)ctx->site);
    if (lua_pcall(L, 2, 1, 0) != LUA_OK) {
        fprintf(stderr, "prop show: %s\n", lua_tostring(L, -1));
        lua_pop(L, 1);
        return -1;
    }
    text = lua_tostring(L, -1);
    if (text && *text) {
        if ((*printed)++ > 0)
            fputc('\n', stdout);
        prop_text_puts(stdout, text, PROP_TEXT_LINES); /* the site's text, escaped */
    }
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
    size_t k, printed = 0;

    if (rc >= 0)
        return rc;
    rc = EXIT_WELL;
    lua_pushcfunction(sh.ctx->L, require_show);
    if (lua_pcall(sh.ctx->L, 0, 1, 0) != LUA_OK) {
        fprintf(stderr, "prop show: %s\n", lua_tostring(sh.ctx->L, -1));
        cli_site_hosts_free(&sh);
        return EXIT_FAILED;
    }
    /* No host named: every host, each with its containers nested, then
     * the containers on no host. */
    for (k = 0; k < sh.nhosts; k++) {
        prop_host *h = (prop_host *)sh.hosts[k];

        if (!sh.named && prop_host_container_kind(h) != PROP_CONTAINER_NONE)
            continue;
        if (show_host(sh.ctx, h, &printed) != 0)
            rc = EXIT_FAILED;
    }
    if (!sh.named && show_host(sh.ctx, NULL, &printed) != 0)
        rc = EXIT_FAILED;
    cli_site_hosts_free(&sh);
    if (fflush(stdout) != 0 && rc == EXIT_WELL)
        rc = EXIT_FAILED;
    return rc;
}

const cli_command cmd_show = {"show", run_show,
                              "print a host's property tree with each node's type and origin",
                              "prop show SITE [HOST...] [--max-instructions N] [--max-memory MIB]\n"
                              "                [--max-cpu S]"};
