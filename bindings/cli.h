/*
 * cli.h - what the prop command's subcommands share: exit codes, the
 * options every site-reading command takes, and loading a site.
 */
#ifndef PROP_CLI_H
#define PROP_CLI_H

#include <stdio.h>

#include "lprop.h"
#include "prop/secrets.h"
#include "prop/transport.h"

/* Exit codes (SPEC: 0 well, 1 failed, 2 rejected, 64 usage, 69 unreachable). */
enum { EXIT_WELL = 0, EXIT_FAILED = 1, EXIT_REJECTED = 2, EXIT_USAGE = 64, EXIT_UNREACHABLE = 69 };

typedef struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv); /* argv[0] is the subcommand's name */
    const char *summary;
    const char *usage;
} cli_command;

extern const cli_command cmd_run, cmd_lint, cmd_show, cmd_graph, cmd_repl, cmd_explain, cmd_claims,
    cmd_secret, cmd_pull, cmd_status, cmd_report, cmd_verify;

/* Options shared by the commands that read a site. */
typedef struct cli_site_opts {
    lprop_limits limits;
    int color_out; /* colour on stdout */
    int color_err; /* colour on stderr */
} cli_site_opts;

void cli_site_opts_init(cli_site_opts *o);
/*
 * If argv[*i] is one of the shared options (--max-instructions N,
 * --max-memory MIB, --max-cpu S, with "=" or a separate word), consume it
 * and return 1;
 * 0 if it is not one; -1 (after printing why) if it is malformed.
 */
int cli_site_opt(cli_site_opts *o, int argc, char **argv, int *i);
/* Print "prop CMD: message" and the usage line; returns EXIT_USAGE. */
int cli_usage_error(const cli_command *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* 1 when the command line asks for help (-h / --help) at argv[i]. */
int cli_is_help(const char *arg);
int cli_print_help(const cli_command *cmd);

/*
 * Evaluate the site and run the pre-pass.  Returns the state (never NULL
 * unless out of memory) and sets *evaluated to 0 when evaluation failed:
 * the evaluation error is then recorded as diagnostic P000 on the site so
 * that every output format reports it like any other finding.
 */
lprop_ctx *cli_load_site(const char *path, const cli_site_opts *o, int *evaluated);
/* Seconds of wall clock that cli_load_site_timed spent on each step. */
typedef struct cli_load_times {
    double eval, check;
} cli_load_times;
/* cli_load_site, timing its two steps into *t. */
lprop_ctx *cli_load_site_timed(const char *path, const cli_site_opts *o, int *evaluated,
                               cli_load_times *t);
/*
 * The same on a state made by lprop_open (which the caller may have
 * changed first): evaluate, record an evaluation error as P000, run the
 * pre-pass.  1 when the site was evaluated and checked, else 0.
 */
int cli_eval_site(lprop_ctx *ctx, const char *path, cli_load_times *t);
/* "2 errors, 1 warning" summary on f, or nothing when there is no finding. */
void cli_print_summary(lprop_ctx *ctx, const char *path, FILE *f, int werror);

/*
 * What the commands of the form "prop CMD SITE [HOST...]" share: the
 * parsed command line, the loaded and checked site, and the hosts named
 * (every host of the site when none is).  Owns ctx and hosts.
 */
typedef struct cli_site_hosts {
    cli_site_opts o;
    const char *site;
    lprop_ctx *ctx;
    const prop_host **hosts;
    size_t nhosts;
    int named; /* 1: hosts are those the command line named; 0: every host */
} cli_site_hosts;

/*
 * Parse argv (the shared options, SITE, HOST...), load the site and check
 * it, and look the hosts up.  Returns -1 when the command should go on
 * (then call cli_site_hosts_free), or the exit code to return at once
 * (help printed, usage error, rejected site, unknown host).
 */
int cli_site_hosts_open(const cli_command *cmd, int argc, char **argv, cli_site_hosts *sh);
void cli_site_hosts_free(cli_site_hosts *sh);

/*
 * Print what claims thing on every host of s (prop claims, :claims), as
 * text lines or a JSON array; *found is the number of matches.  Returns
 * the code of prop_site_find_claims (PROP_EINVAL: not a thing).
 */
int cli_claims_print(const prop_site *s, const char *thing, FILE *f, int json, size_t *found);

/*
 * P015 for the site at path, already evaluated and checked in ctx: every
 * use of a secret the store beside it (path with .secrets) lacks for the
 * host that uses it (secret_uses.c).  Nothing is decrypted.
 */
int cli_check_secrets(lprop_ctx *ctx, const char *path);

/*
 * prop secret list, after the table of the store: where the site uses
 * each secret, and a warning for a value set for a host the site does
 * not have.  That needs the site evaluated; bindings/secret_uses.c
 * holds it.  Prints on out; returns 0, or the exit code of prop secret
 * list (EXIT_REJECTED when the site cannot be evaluated).
 */
int cli_secret_uses(const char *site, prop_secrets *store, FILE *out);

/*
 * "--opt=V" or "--opt V" at argv[*i]: 1 with *v the value (NULL when
 * "--opt" ends argv; *i moves past a separate value), 0 when argv[*i] is
 * not opt.
 */
int cli_opt_value(const char *opt, int argc, char **argv, int *i, const char **v);

#endif
