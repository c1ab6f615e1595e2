/*
 * cmd_run.c - prop run SITE [HOST...]: make every named host (every host
 * when none is named) the way the site says.
 *
 * The site is evaluated and checked first; nothing runs when the pre-pass
 * reports an error.  Each host is reached through the transport its
 * connect.* info names (this machine for "localhost" or connect.local, a
 * directory tree for connect.dir, SSH otherwise), its run lock is taken,
 * and the executor (engine/src/exec.c) ensures its properties in order
 * (run_host.c); each leaf's check/apply/ensure runs in Lua, with a `sys`
 * handle (run_exec.c).
 *
 * Several hosts run in parallel (-j N) in forked children (run_jobs.c);
 * SIGINT and SIGTERM, the batches of --serial and --max-fail, and the two
 * runs of --twice are run_object.c's.  Here: the command line, loading
 * the site, and --report.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "run.h"

#define DEFAULT_JOBS 8

static int
int_arg(const char *opt, const char *v, int lo, int hi, int *out)
{
    char *end;
    long n;

    errno = 0;
    n = v ? strtol(v, &end, 10) : 0;
    if (v == NULL || errno || *v == '\0' || *end != '\0' || n < lo || n > hi)
        return cli_usage_error(&cmd_run, "%s wants a number in %d..%d", opt, lo, hi);
    *out = (int)n;
    return 0;
}

/* Split "a,b" (a word of argv, cut in place) into list. */
static int
run_tag_list(const char *opt, char *v, const char **list, size_t *n)
{
    char *save = NULL, *tok;

    if (v == NULL || *v == '\0')
        return cli_usage_error(&cmd_run, "%s wants a tag or a comma-separated list of tags", opt);
    for (tok = strtok_r(v, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (*n == MAX_TAGS)
            return cli_usage_error(&cmd_run, "%s: at most %d tags", opt, MAX_TAGS);
        list[(*n)++] = tok;
    }
    if (*n == 0)
        return cli_usage_error(&cmd_run, "%s wants a tag or a comma-separated list of tags", opt);
    return 0;
}

/* --serial N or N%: hosts per batch (a percentage is stored negative). */
static int
serial_arg(const char *v, int *out)
{
    char buf[32];
    size_t l = v ? strlen(v) : 0;
    int n;

    if (l > 1 && l < sizeof buf && v[l - 1] == '%') {
        memcpy(buf, v, l - 1);
        buf[l - 1] = '\0';
        if (int_arg("--serial", buf, 1, 100, &n))
            return -1;
        *out = -n;
        return 0;
    }
    if (int_arg("--serial", v, 1, 1000000, &n))
        return -1;
    *out = n;
    return 0;
}

/*
 * --max-output SIZE: a number of MiB, or a number and a unit, K, M or G
 * (KiB, MiB, GiB; "iB" may follow), from 1 KiB to 16 GiB.
 */
static int
size_arg(const char *v, size_t *out)
{
    char *end;
    unsigned long long n, unit = 1ULL << 20;

    errno = 0;
    n = v && *v >= '0' && *v <= '9' ? strtoull(v, &end, 10) : 0;
    if (v && n && !errno) {
        switch (*end) {
        case 'k':
        case 'K':
            unit = 1ULL << 10;
            break;
        case 'm':
        case 'M':
            break;
        case 'g':
        case 'G':
            unit = 1ULL << 30;
            break;
        default:
            unit = 0; /* no unit: MiB */
            break;
        }
        if (unit) {
            end++;
            if (*end == 'i' && end[1] == 'B')
                end += 2;
            else if (*end == 'B')
                end++;
        } else {
            unit = 1ULL << 20;
        }
        if (*end == '\0' && n <= (16ULL << 30) / unit && n * unit >= 1024 &&
            n * unit <= (size_t)-1) {
            *out = (size_t)(n * unit);
            return 0;
        }
    }
    return cli_usage_error(&cmd_run, "--max-output wants a size: N MiB, or N and a unit K, M or G "
                                     "(1K to 16G)");
}

static int
run_run(int argc, char **argv)
{
    run_opts o;
    const char *site = NULL, *v;
    const prop_host **hosts = NULL;
    outcome *ocs = NULL;
    size_t nhosts = 0;
    int i, r, rc = EXIT_WELL;
    lprop_ctx *ctx = NULL;
    run *rn = NULL;
    const char **names;
    int nnames = 0, max_fail_given = 0;
    time_t t0 = time(NULL);

    memset(&o, 0, sizeof o);
    cli_site_opts_init(&o.site);
    o.jobs = DEFAULT_JOBS;
    o.op_timeout = RUN_DEFAULT_TIMEOUT;
    o.max_output = PROP_DEFAULT_MAX_OUTPUT;
    names = calloc((size_t)argc, sizeof *names);
    if (names == NULL)
        return EXIT_FAILED;
    for (i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            free(names);
            return cli_print_help(&cmd_run);
        }
        r = cli_site_opt(&o.site, argc, argv, &i);
        if (r < 0)
            goto usage;
        if (r > 0)
            continue;
        if (strcmp(argv[i], "--dry-run") == 0 || strcmp(argv[i], "-n") == 0)
            o.dry = 1;
        else if (strcmp(argv[i], "--diff") == 0)
            o.diff = 1;
        else if (strcmp(argv[i], "--json") == 0)
            o.json = 1;
        else if (strcmp(argv[i], "--twice") == 0)
            o.twice = 1;
        else if (strcmp(argv[i], "--accept-new-host-keys") == 0)
            o.accept_new = 1;
        else if (strcmp(argv[i], "--no-pipeline") == 0)
            o.no_pipeline = 1;
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
        } else if (cli_opt_value("--max-output", argc, argv, &i, &v)) {
            if (size_arg(v, &o.max_output))
                goto usage;
        } else if (cli_opt_value("--serial", argc, argv, &i, &v)) {
            if (serial_arg(v, &o.serial))
                goto usage;
        } else if (cli_opt_value("--tags", argc, argv, &i, &v)) {
            if (run_tag_list("--tags", (char *)v, o.tags, &o.ntags))
                goto usage;
        } else if (cli_opt_value("--skip-tags", argc, argv, &i, &v)) {
            if (run_tag_list("--skip-tags", (char *)v, o.skip_tags, &o.nskip))
                goto usage;
        } else if (cli_opt_value("--report", argc, argv, &i, &v)) {
            if (v == NULL || *v == '\0') {
                cli_usage_error(&cmd_run, "--report wants a file name");
                goto usage;
            }
            o.report = v;
        } else if (cli_opt_value("--max-fail", argc, argv, &i, &v)) {
            if (int_arg("--max-fail", v, 0, 1000000, &o.max_fail))
                goto usage;
            max_fail_given = 1;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            cli_usage_error(&cmd_run, "unknown option \"%s\"", argv[i]);
            goto usage;
        } else if (site == NULL) {
            site = argv[i];
        } else {
            names[nnames++] = argv[i];
        }
    }
    if (site == NULL) {
        free(names);
        return cli_usage_error(&cmd_run, "which site file?");
    }
    if (o.twice && o.dry) {
        free(names);
        return cli_usage_error(&cmd_run, "--twice with --dry-run: a dry run changes nothing, so "
                                         "its second run cannot tell anything");
    }
    if (max_fail_given && o.serial == 0) {
        cli_usage_error(&cmd_run,
                        "--max-fail counts failed hosts between batches: it needs --serial");
        goto usage;
    }
    o.site_path = site;
    rc = run_open_site(&o, names, nnames, &ctx, &hosts, &nhosts, &ocs);
    if (rc >= 0)
        goto done;
    rc = EXIT_WELL;
    if (o.report) {
        char tpl[4096];
        const char *tmpdir = getenv("TMPDIR");

        if (run_report_open(o.report) != 0) {
            rc = EXIT_USAGE;
            goto done;
        }
        snprintf(tpl, sizeof tpl, "%s/prop-report.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
        if ((run_report_fd = mkstemp(tpl)) < 0 || unlink(tpl) != 0 ||
            fcntl(run_report_fd, F_SETFL, O_APPEND) != 0 ||
            fcntl(run_report_fd, F_SETFD, FD_CLOEXEC) != 0) {
            fprintf(stderr, "prop run: --report: cannot make a temporary file in %s: %s\n",
                    tmpdir && *tmpdir ? tmpdir : "/tmp", strerror(errno));
            rc = EXIT_FAILED;
            goto done;
        }
    }
    if ((rn = run_new(ctx, &o, NULL)) == NULL) {
        fprintf(stderr, "prop: out of memory\n");
        rc = EXIT_FAILED;
        goto done;
    }
    run_catch_signals(rn);
    rc = run_hosts(rn, hosts, nhosts, ocs);
    if (o.report) {
        fflush(stdout);
        rc = run_report_write(&rn->o, hosts, nhosts, ocs, rc, t0);
    }
done:
    if (run_report_fd >= 0)
        close(run_report_fd);
    run_report_fd = -1;
    run_free(rn);
    lprop_close(ctx);
    free(hosts);
    free(ocs);
    free(names);
    if (fflush(stdout) != 0 && rc == EXIT_WELL)
        rc = EXIT_FAILED;
    return rc;
usage:
    free(names);
    return EXIT_USAGE;
}

const cli_command cmd_run = {
    "run", run_run, "make hosts the way the site says (every host when none is named)",
    "prop run SITE [HOST...] [--dry-run] [--twice] [--diff] [--json] [-j N]\n"
    "                [--accept-new-host-keys] [--no-pipeline] [--connect-timeout S] [--timeout S]\n"
    "                [--max-output SIZE]\n"
    "                [--serial N|N%] [--max-fail K] [--tags T,...] [--skip-tags T,...]\n"
    "                [--report FILE.json]\n"
    "                [--max-instructions N] [--max-memory MIB] [--max-cpu S]"};
