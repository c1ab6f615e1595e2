/*
 * cli.c - options, usage and site loading shared by prop's subcommands.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>

#include "cli.h"

static int
want_color(int fd)
{
    const char *nc = getenv("NO_COLOR");
    const char *term = getenv("TERM");

    if (nc && *nc)
        return 0;
    if (term && strcmp(term, "dumb") == 0)
        return 0;
    return isatty(fd);
}

void
cli_site_opts_init(cli_site_opts *o)
{
    o->limits.max_instructions = LPROP_DEFAULT_MAX_INSTRUCTIONS;
    o->limits.max_memory = (size_t)LPROP_DEFAULT_MAX_MEMORY_MIB << 20;
    o->limits.max_cpu = LPROP_DEFAULT_MAX_CPU;
    o->limits.check_only = 0;
    /* PROP_NO_MEMO: run every recipe call (the findings must not change;
     * only the time does). */
    o->limits.recipe_memo = getenv("PROP_NO_MEMO") == NULL || *getenv("PROP_NO_MEMO") == '\0';
    o->color_out = want_color(1);
    o->color_err = want_color(2);
}

/* Parse a positive integer; 0 on success. */
static int
parse_count(const char *s, long long *out)
{
    char *end;
    long long v;

    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno || end == s || *end != '\0' || v <= 0)
        return -1;
    *out = v;
    return 0;
}

int
cli_site_opt(cli_site_opts *o, int argc, char **argv, int *i)
{
    static const char *const names[] = {"--max-instructions", "--max-memory", "--max-cpu"};
    const char *arg = argv[*i], *val = NULL;
    size_t k, len;
    long long v;

    for (k = 0; k < sizeof names / sizeof names[0]; k++) {
        len = strlen(names[k]);
        if (strncmp(arg, names[k], len) != 0)
            continue;
        if (arg[len] == '=') {
            val = arg + len + 1;
        } else if (arg[len] == '\0') {
            if (*i + 1 >= argc) {
                fprintf(stderr, "prop: %s needs a value\n", names[k]);
                return -1;
            }
            val = argv[++*i];
        } else {
            continue;
        }
        if (parse_count(val, &v) != 0) {
            fprintf(stderr, "prop: %s takes a positive whole number, not \"%s\"\n", names[k], val);
            return -1;
        }
        if (k == 0) {
            o->limits.max_instructions = v;
        } else if (k == 2) {
            if (v > 1000000000) {
                fprintf(stderr, "prop: --max-cpu takes at most 1000000000 seconds\n");
                return -1;
            }
            o->limits.max_cpu = (int)v;
        } else {
            if (v > (long long)(SIZE_MAX >> 21)) {
                fprintf(stderr,
                        "prop: --max-memory %lld MiB is more than this machine "
                        "can address\n",
                        v);
                return -1;
            }
            o->limits.max_memory = (size_t)v << 20;
        }
        return 1;
    }
    return 0;
}

int
cli_usage_error(const cli_command *cmd, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "prop %s: ", cmd->name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nusage: %s\n", cmd->usage);
    return EXIT_USAGE;
}

int
cli_is_help(const char *arg)
{
    return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

int
cli_print_help(const cli_command *cmd)
{
    printf("usage: %s\n\n%s\n", cmd->usage, cmd->summary);
    printf("\nSee prop-%s(1).\n", cmd->name);
    return EXIT_WELL;
}

/*
 * Record an evaluation error ("file:line: text" and "file:line: note:
 * called from here" lines, as lprop's message handler makes them) as
 * diagnostic P000, so that text and JSON output treat it like a finding.
 */
static void
record_eval_error(lprop_ctx *ctx)
{
    lua_State *L = ctx->L;
    const char *msg = lua_tostring(L, -1);
    prop_frame frames[9];
    prop_origin o = {frames, 0};
    char *copy, *line, *save = NULL, *text = NULL;
    char code[5] = "P000";
    int first = 1;

    if (msg == NULL)
        msg = "(error without a message)";
    if (strncmp(msg, "prop: ", 6) == 0)
        msg += 6;
    copy = strdup(msg);
    if (copy == NULL) {
        prop_site_report(ctx->site, "P000", PROP_SEV_ERROR, NULL, msg);
        return;
    }
    for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *c = strchr(line, ':');
        char *end = NULL;
        long ln = c ? strtol(c + 1, &end, 10) : 0;
        int placed = c && end && end != c + 1 && *end == ':' && end[1] == ' ' && ln > 0;
        if (first) {
            first = 0;
            if (placed) {
                *c = '\0';
                frames[o.nframes].file = line;
                frames[o.nframes].line = (int)ln;
                o.nframes++;
                text = end + 2;
            } else {
                text = line;
            }
        } else if (placed && o.nframes < 9 && strstr(end, "note: called from here")) {
            *c = '\0';
            frames[o.nframes].file = line;
            frames[o.nframes].line = (int)ln;
            o.nframes++;
        }
    }
    /* "[P012] ..." names the code of a refusal raised while evaluating. */
    if (text && text[0] == '[' && text[1] == 'P' && strspn(text + 2, "0123456789") == 3 &&
        text[5] == ']' && text[6] == ' ') {
        memcpy(code, text + 1, 4);
        text += 7;
    }
    prop_site_report(ctx->site, code, PROP_SEV_ERROR, &o, text ? text : msg);
    free(copy);
}

static double
now(void)
{
    struct timespec ts;

    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0;
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
cli_eval_site(lprop_ctx *ctx, const char *path, cli_load_times *t)
{
    double t0 = now(), t1;
    size_t limit = ctx->limits.max_memory;
    int evaluated = 1;

    t->eval = t->check = 0;
    if (lprop_eval_file(ctx, path) != 0) {
        record_eval_error(ctx);
        lua_pop(ctx->L, 1);
        /* Reported: the limit, lifted for the report, holds again. */
        ctx->limits.max_memory = limit;
        t->eval = now() - t0;
        return 0;
    }
    t1 = now();
    t->eval = t1 - t0;
    if (prop_site_check(ctx->site) < 0 || cli_check_secrets(ctx, path) != PROP_OK) {
        fprintf(stderr, "prop: the pre-pass failed: %s\n", prop_site_error(ctx->site));
        evaluated = 0;
    }
    t->check = now() - t1;
    return evaluated;
}

lprop_ctx *
cli_load_site_timed(const char *path, const cli_site_opts *o, int *evaluated, cli_load_times *t)
{
    lprop_ctx *ctx = lprop_open(&o->limits);

    *evaluated = 0;
    t->eval = t->check = 0;
    if (ctx == NULL)
        return NULL;
    *evaluated = cli_eval_site(ctx, path, t);
    return ctx;
}

lprop_ctx *
cli_load_site(const char *path, const cli_site_opts *o, int *evaluated)
{
    cli_load_times t;

    return cli_load_site_timed(path, o, evaluated, &t);
}

void
cli_print_summary(lprop_ctx *ctx, const char *path, FILE *f, int werror)
{
    size_t ne = prop_site_nerrors(ctx->site, werror);
    size_t nw = werror ? 0 : prop_site_nwarnings(ctx->site);

    if (ne == 0 && nw == 0)
        return;
    fprintf(f, "%s: ", path);
    if (ne)
        fprintf(f, "%zu error%s", ne, ne == 1 ? "" : "s");
    if (ne && nw)
        fprintf(f, ", ");
    if (nw)
        fprintf(f, "%zu warning%s", nw, nw == 1 ? "" : "s");
    fputc('\n', f);
}

void
cli_site_hosts_free(cli_site_hosts *sh)
{
    lprop_close(sh->ctx);
    free(sh->hosts);
    sh->ctx = NULL;
    sh->hosts = NULL;
    sh->nhosts = 0;
}

int
cli_site_hosts_open(const cli_command *cmd, int argc, char **argv, cli_site_hosts *sh)
{
    char **names;
    int nnames = 0, evaluated, i, r;
    size_t k;

    memset(sh, 0, sizeof *sh);
    cli_site_opts_init(&sh->o);
    names = calloc((size_t)argc, sizeof *names);
    if (names == NULL)
        return EXIT_FAILED;
    for (i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            free(names);
            return cli_print_help(cmd);
        }
        r = cli_site_opt(&sh->o, argc, argv, &i);
        if (r < 0) {
            free(names);
            return EXIT_USAGE;
        }
        if (r > 0)
            continue;
        if (argv[i][0] == '-' && argv[i][1] != '\0') {
            free(names);
            return cli_usage_error(cmd, "unknown option \"%s\"", argv[i]);
        }
        if (sh->site == NULL)
            sh->site = argv[i];
        else
            names[nnames++] = argv[i];
    }
    if (sh->site == NULL) {
        free(names);
        return cli_usage_error(cmd, "which site file?");
    }
    sh->o.limits.check_only = 1; /* show and graph never run the site */
    sh->ctx = cli_load_site(sh->site, &sh->o, &evaluated);
    if (sh->ctx == NULL) {
        free(names);
        fprintf(stderr, "prop: out of memory\n");
        return EXIT_REJECTED;
    }
    if (!evaluated || prop_site_nerrors(sh->ctx->site, 0) > 0) {
        prop_diags_print_text(sh->ctx->site, stderr, sh->o.color_err, 0);
        cli_print_summary(sh->ctx, sh->site, stderr, 0);
        free(names);
        cli_site_hosts_free(sh);
        return EXIT_REJECTED;
    }
    k = nnames ? (size_t)nnames : prop_site_nhosts(sh->ctx->site);
    sh->hosts = calloc(k + 1, sizeof *sh->hosts);
    if (sh->hosts == NULL) {
        free(names);
        cli_site_hosts_free(sh);
        fprintf(stderr, "prop: out of memory\n");
        return EXIT_FAILED;
    }
    for (i = 0; i < nnames; i++) {
        sh->hosts[i] = prop_site_find_host(sh->ctx->site, names[i]);
        if (sh->hosts[i] == NULL) {
            fprintf(stderr, "prop %s: %s declares no host \"%s\"\n", cmd->name, sh->site, names[i]);
            free(names);
            cli_site_hosts_free(sh);
            return EXIT_USAGE;
        }
    }
    if (nnames == 0)
        for (k = 0; k < prop_site_nhosts(sh->ctx->site); k++)
            sh->hosts[k] = prop_site_host(sh->ctx->site, k);
    sh->nhosts = nnames ? (size_t)nnames : prop_site_nhosts(sh->ctx->site);
    sh->named = nnames > 0;
    free(names);
    return -1;
}

int
cli_opt_value(const char *opt, int argc, char **argv, int *i, const char **v)
{
    size_t l = strlen(opt);

    if (strncmp(argv[*i], opt, l) != 0)
        return 0;
    if (argv[*i][l] == '=') {
        *v = argv[*i] + l + 1;
        return 1;
    }
    if (argv[*i][l] != '\0')
        return 0;
    *v = *i + 1 < argc ? argv[++*i] : NULL;
    return 1;
}
