/*
 * cmd_verify.c - prop verify SITE [HOST...]: whether every named host
 * (every host when none is named) is the way the site says, changing
 * nothing: the monitoring view of a site.
 *
 * It is a dry run (run.h: run_opts.dry and .verify) whose results are
 * read as a check: each property's check runs, and its probe (verify=)
 * when the check holds; apply and repair never run.  A property is ok
 * (its check and its probe hold), drift (its check says it would
 * change) or failed (its probe failed, or its check did).  The exit code
 * says which is the worst: 0 all hold, 1 drift, 2 a failure or a host
 * not reached (or a site the pre-pass rejects), 64 usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "run.h"

#define DEFAULT_JOBS 8

/* Exit codes of prop verify. */
enum { VERIFY_OK = 0, VERIFY_DRIFT = 1, VERIFY_FAILED = 2 };

static int
int_arg(const char *opt, const char *v, int lo, int hi, int *out)
{
    char *end;
    long n;

    errno = 0;
    n = v ? strtol(v, &end, 10) : 0;
    if (v == NULL || errno || *v == '\0' || *end != '\0' || n < lo || n > hi)
        return cli_usage_error(&cmd_verify, "%s wants a number in %d..%d", opt, lo, hi);
    *out = (int)n;
    return 0;
}

/* The exit code of a verify of hosts[0..n) that ended with outcomes ocs
 * (rc: what the run said). */
static int
verify_code(int rc, const outcome *ocs, size_t n)
{
    size_t k;
    int drift = 0;

    if (rc == EXIT_INTERRUPTED)
        return rc;
    for (k = 0; k < n; k++) {
        const outcome *oc = &ocs[k];

        if (oc->unreachable || oc->refused || oc->failed || oc->held || oc->ctr_failed ||
            oc->ctr_unreachable)
            return VERIFY_FAILED;
        drift |= oc->changed > 0;
    }
    if (rc != EXIT_WELL && rc != EXIT_FAILED)
        return VERIFY_FAILED; /* the run's own failure (a job that died...) */
    return drift ? VERIFY_DRIFT : VERIFY_OK;
}

static int
verify_run(int argc, char **argv)
{
    run_opts o;
    const char *site = NULL, *v;
    const prop_host **hosts = NULL;
    outcome *ocs = NULL;
    size_t nhosts = 0;
    int i, r, rc;
    lprop_ctx *ctx = NULL;
    run *rn = NULL;
    const char **names;
    const char *prom = NULL;
    int nnames = 0;
    time_t t0 = time(NULL);
    struct timespec ts0, ts1;

    memset(&o, 0, sizeof o);
    cli_site_opts_init(&o.site);
    o.dry = 1;
    o.verify = 1;
    o.jobs = DEFAULT_JOBS;
    o.op_timeout = RUN_DEFAULT_TIMEOUT;
    o.max_output = PROP_DEFAULT_MAX_OUTPUT;
    names = calloc((size_t)argc, sizeof *names);
    if (names == NULL)
        return VERIFY_FAILED;
    for (i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            free(names);
            return cli_print_help(&cmd_verify);
        }
        r = cli_site_opt(&o.site, argc, argv, &i);
        if (r < 0)
            goto usage;
        if (r > 0)
            continue;
        if (strcmp(argv[i], "--json") == 0)
            o.json = 1;
        else if (strcmp(argv[i], "--accept-new-host-keys") == 0)
            o.accept_new = 1;
        else if (strncmp(argv[i], "-j", 2) == 0 && argv[i][2] != '\0' && argv[i][2] != '=') {
            if (int_arg("-j", argv[i] + 2, 1, 256, &o.jobs))
                goto usage;
        } else if (cli_opt_value("-j", argc, argv, &i, &v) ||
                   cli_opt_value("--jobs", argc, argv, &i, &v)) {
            if (int_arg("-j", v, 1, 256, &o.jobs))
                goto usage;
        } else if (cli_opt_value("--connect-timeout", argc, argv, &i, &v)) {
            if (int_arg("--connect-timeout", v, 1, 3600, &o.connect_timeout))
                goto usage;
        } else if (cli_opt_value("--timeout", argc, argv, &i, &v)) {
            if (int_arg("--timeout", v, 1, 86400, &o.op_timeout))
                goto usage;
        } else if (cli_opt_value("--report", argc, argv, &i, &v)) {
            if (v == NULL || *v == '\0') {
                cli_usage_error(&cmd_verify, "--report wants a file name");
                goto usage;
            }
            o.report = v;
        } else if (cli_opt_value("--prometheus", argc, argv, &i, &v)) {
            if (v == NULL || *v == '\0') {
                cli_usage_error(&cmd_verify, "--prometheus wants a file name");
                goto usage;
            }
            prom = v;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            cli_usage_error(&cmd_verify, "unknown option \"%s\"", argv[i]);
            goto usage;
        } else if (site == NULL) {
            site = argv[i];
        } else {
            names[nnames++] = argv[i];
        }
    }
    if (site == NULL) {
        free(names);
        return cli_usage_error(&cmd_verify, "which site file?");
    }
    o.site_path = site;
    clock_gettime(CLOCK_MONOTONIC, &ts0);
    rc = run_open_site(&o, names, nnames, &ctx, &hosts, &nhosts, &ocs);
    if (rc >= 0) {
        /* A rejected site (or no memory) fails the check; usage stays usage. */
        if (rc != EXIT_USAGE)
            rc = VERIFY_FAILED;
        goto done;
    }
    /* The run's entries: the report and the metrics are made of them. */
    if (o.report && run_report_open(o.report) != 0) {
        rc = EXIT_USAGE;
        goto done;
    }
    if ((o.report || prom) && run_entries_open("verify") != 0) {
        rc = VERIFY_FAILED;
        goto done;
    }
    if ((rn = run_new(ctx, &o, NULL)) == NULL) {
        fprintf(stderr, "prop: out of memory\n");
        rc = VERIFY_FAILED;
        goto done;
    }
    run_catch_signals(rn);
    rc = verify_code(run_hosts(rn, hosts, nhosts, ocs), ocs, nhosts);
    fflush(stdout);
    if (o.report) {
        if (run_report_write(&rn->o, hosts, nhosts, ocs, rc, t0) != rc)
            rc = VERIFY_FAILED;
    }
    clock_gettime(CLOCK_MONOTONIC, &ts1);
    if (prom && run_metrics_write(prom, "verify", time(NULL),
                                  (double)(ts1.tv_sec - ts0.tv_sec) +
                                      (double)(ts1.tv_nsec - ts0.tv_nsec) / 1e9,
                                  rc) != 0)
        rc = VERIFY_FAILED;
done:
    if (run_report_fd >= 0)
        close(run_report_fd);
    run_report_fd = -1;
    run_free(rn);
    lprop_close(ctx);
    free(hosts);
    free(ocs);
    free(names);
    if (fflush(stdout) != 0 && rc == VERIFY_OK)
        rc = VERIFY_FAILED;
    return rc;
usage:
    free(names);
    return EXIT_USAGE;
}

const cli_command cmd_verify = {
    "verify", verify_run,
    "check that hosts are the way the site says, changing nothing (every host when none is named)",
    "prop verify SITE [HOST...] [--json] [-j N] [--accept-new-host-keys]\n"
    "                [--connect-timeout S] [--timeout S] [--report FILE.json]\n"
    "                [--prometheus FILE]\n"
    "                [--max-instructions N] [--max-memory MIB] [--max-cpu S]"};
