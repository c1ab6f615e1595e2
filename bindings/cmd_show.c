/*
 * cmd_show.c - prop show SITE [HOST...]: the property tree of a host, each
 * node with its type and where it was made.  The formatting is Lua's
 * (lua/prop/show.lua); this file only loads the site and picks hosts.
 */
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "cli.h"

/* Call show.host(h) in the state and print the result. 0 or -1. */
static int
show_host(lprop_ctx *ctx, prop_host *h)
{
    lua_State *L = ctx->L;

    lua_getfield(L, -1, "host");
    lprop_push_host(L, h);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
        fprintf(stderr, "prop show: %s\n", lua_tostring(L, -1));
        lua_pop(L, 1);
        return -1;
    }
    fputs(lua_tostring(L, -1), stdout);
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
    cli_site_opts o;
    const char *site = NULL;
    const char **names;
    int nnames = 0, evaluated, i, r, rc = EXIT_WELL;
    size_t k;
    lprop_ctx *ctx;

    cli_site_opts_init(&o);
    names = calloc((size_t)argc, sizeof *names);
    if (names == NULL)
        return EXIT_FAILED;
    for (i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            free(names);
            return cli_print_help(&cmd_show);
        }
        r = cli_site_opt(&o, argc, argv, &i);
        if (r < 0) {
            free(names);
            return EXIT_USAGE;
        }
        if (r > 0)
            continue;
        if (argv[i][0] == '-' && argv[i][1] != '\0') {
            free(names);
            return cli_usage_error(&cmd_show, "unknown option \"%s\"", argv[i]);
        }
        if (site == NULL)
            site = argv[i];
        else
            names[nnames++] = argv[i];
    }
    if (site == NULL) {
        free(names);
        return cli_usage_error(&cmd_show, "which site file?");
    }
    ctx = cli_load_site(site, &o, &evaluated);
    if (ctx == NULL) {
        free(names);
        fprintf(stderr, "prop: out of memory\n");
        return EXIT_REJECTED;
    }
    if (!evaluated || prop_site_nerrors(ctx->site, 0) > 0) {
        prop_diags_print_text(ctx->site, stderr, o.color_err, 0);
        cli_print_summary(ctx, site, stderr, 0);
        rc = EXIT_REJECTED;
        goto done;
    }
    for (i = 0; i < nnames; i++) {
        if (prop_site_find_host(ctx->site, names[i]) == NULL) {
            fprintf(stderr, "prop show: %s declares no host \"%s\"\n", site, names[i]);
            rc = EXIT_USAGE;
            goto done;
        }
    }
    lua_pushcfunction(ctx->L, require_show);
    if (lua_pcall(ctx->L, 0, 1, 0) != LUA_OK) {
        fprintf(stderr, "prop show: %s\n", lua_tostring(ctx->L, -1));
        rc = EXIT_FAILED;
        goto done;
    }
    if (nnames == 0) {
        for (k = 0; k < prop_site_nhosts(ctx->site); k++) {
            if (k > 0)
                fputc('\n', stdout);
            if (show_host(ctx, prop_site_host(ctx->site, k)) != 0)
                rc = EXIT_FAILED;
        }
    }
    for (i = 0; i < nnames; i++) {
        if (i > 0)
            fputc('\n', stdout);
        if (show_host(ctx, prop_site_find_host(ctx->site, names[i])) != 0)
            rc = EXIT_FAILED;
    }
done:
    lprop_close(ctx);
    free(names);
    if (fflush(stdout) != 0 && rc == EXIT_WELL)
        rc = EXIT_FAILED;
    return rc;
}

const cli_command cmd_show = {"show", run_show,
                              "print a host's property tree with each node's type and origin",
                              "prop show SITE [HOST...] [--max-instructions N] [--max-memory MIB]"};
