/*
 * cmd_lint.c - prop lint SITE: evaluate the site in the sandbox, run the
 * pre-pass, print every finding at once.
 */
#include <string.h>

#include "cli.h"

/* --stats: what the site made and what checking it cost, on stderr. */
static void
print_stats(lprop_ctx *ctx, const char *site, const cli_load_times *t)
{
    size_t nh = prop_site_nhosts(ctx->site);

    fprintf(stderr, "%s: %zu host%s, %zu nodes (properties and combinators)\n", site, nh,
            nh == 1 ? "" : "s", prop_site_mark(ctx->site));
    if (ctx->memo)
        fprintf(stderr,
                "%s: %zu recipe calls with plain-data arguments, %zu of them made again "
                "from an earlier equal call\n",
                site, ctx->recipe_calls, ctx->recipe_remade);
    else
        fprintf(stderr, "%s: %zu recipe calls with plain-data arguments, each one run\n", site,
                ctx->recipe_calls);
    fprintf(stderr, "%s: evaluated in %.3f s, pre-pass %.3f s, peak memory %.1f MB\n", site,
            t->eval, t->check, (double)ctx->peak / 1e6);
}

static int
run_lint(int argc, char **argv)
{
    cli_site_opts o;
    const char *site = NULL;
    int json = 0, werror = 0, stats = 0, evaluated, i, r, rc;
    cli_load_times t;
    lprop_ctx *ctx;

    cli_site_opts_init(&o);
    for (i = 1; i < argc; i++) {
        if (cli_is_help(argv[i]))
            return cli_print_help(&cmd_lint);
        r = cli_site_opt(&o, argc, argv, &i);
        if (r < 0)
            return EXIT_USAGE;
        if (r > 0)
            continue;
        if (strcmp(argv[i], "--format=json") == 0 || strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (strcmp(argv[i], "--format=text") == 0) {
            json = 0;
        } else if (strcmp(argv[i], "--format") == 0 && i + 1 < argc) {
            i++;
            if (strcmp(argv[i], "json") == 0)
                json = 1;
            else if (strcmp(argv[i], "text") == 0)
                json = 0;
            else
                return cli_usage_error(&cmd_lint, "unknown format \"%s\" (text or json)", argv[i]);
        } else if (strncmp(argv[i], "--format=", 9) == 0) {
            return cli_usage_error(&cmd_lint, "unknown format \"%s\" (text or json)", argv[i] + 9);
        } else if (strcmp(argv[i], "--werror") == 0) {
            werror = 1;
        } else if (strcmp(argv[i], "--stats") == 0) {
            stats = 1;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return cli_usage_error(&cmd_lint, "unknown option \"%s\"", argv[i]);
        } else if (site == NULL) {
            site = argv[i];
        } else {
            return cli_usage_error(&cmd_lint, "one site file at a time");
        }
    }
    if (site == NULL)
        return cli_usage_error(&cmd_lint, "which site file?");
    o.limits.check_only = 1;
    ctx = cli_load_site_timed(site, &o, &evaluated, &t);
    if (ctx == NULL) {
        fprintf(stderr, "prop: out of memory\n");
        return EXIT_REJECTED;
    }
    if (json) {
        prop_diags_print_json(ctx->site, stdout, werror);
    } else {
        prop_diags_print_text(ctx->site, stdout, o.color_out, werror);
        cli_print_summary(ctx, site, stderr, werror);
    }
    if (stats)
        print_stats(ctx, site, &t);
    rc = (!evaluated || prop_site_nerrors(ctx->site, werror) > 0) ? EXIT_REJECTED : EXIT_WELL;
    lprop_close(ctx);
    if (fflush(stdout) != 0)
        return EXIT_FAILED;
    return rc;
}

const cli_command cmd_lint = {
    "lint", run_lint, "check a site: evaluate it and run the pre-pass, report every finding",
    "prop lint SITE [--format=text|json] [--werror] [--stats] [--max-instructions N]\n"
    "                [--max-memory MIB] [--max-cpu S]"};
