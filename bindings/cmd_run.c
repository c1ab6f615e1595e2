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
 * Several hosts run in parallel (-j N) in forked children (run_jobs.c).
 * Here: the command line, SIGINT and SIGTERM, the batches of --serial and
 * --max-fail, and the two runs of --twice.
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
#define DEFAULT_TIMEOUT 300 /* seconds, for one operation on a target (--timeout) */
#define EXIT_INTERRUPTED 130

/*
 * SIGINT and SIGTERM stop the run.  run_stop_requested counts them: the Lua
 * hook (ctx->interrupt) and the transports (prop_transport_set_interrupt)
 * read it, and a second one stops a running command at once; run_stop_signal
 * is the last, passed on to that command.  A job of a parallel run gets
 * its parent's signals passed on, and may get the same signal straight
 * too (Ctrl-C on a terminal, timeout(1)): that is one request, not two,
 * so a job counts the signals from its parent and from elsewhere apart
 * and takes the larger count.
 */
volatile sig_atomic_t run_stop_requested, run_stop_signal;
volatile sig_atomic_t run_in_job;
static volatile sig_atomic_t from_parent, from_others;
static lprop_ctx *signal_ctx; /* its Lua code is stopped at once */

static void
on_signal(int sig, siginfo_t *si, void *uc)
{
    /* The last signal counted (SIGINT and SIGTERM are blocked in here). */
    static long long last_ms;
    static pid_t last_pid;
    static int last_sig;
    struct timespec ts;
    long long ms;
    pid_t from = si && si->si_code == SI_USER ? si->si_pid : 0;

    (void)uc;
    /* timeout(1) sends its signal to prop, then to its process group,
     * prop included: the same signal from the same sender at once is one
     * request, not a second. */
    ms = clock_gettime(CLOCK_MONOTONIC, &ts) == 0 ? ts.tv_sec * 1000LL + ts.tv_nsec / 1000000 : 0;
    if (sig == last_sig && from == last_pid && ms - last_ms < 100)
        return;
    last_sig = sig;
    last_pid = from;
    last_ms = ms;
    run_stop_signal = sig;
    if (run_in_job && si && si->si_code == SI_USER && si->si_pid == getppid())
        from_parent++;
    else
        from_others++;
    run_stop_requested = from_parent > from_others ? from_parent : from_others;
    lprop_interrupt_now(signal_ctx); /* async-signal-safe, as lua.c does */
}

int
run_want_stop(void *ud)
{
    (void)ud;
    return run_stop_requested > 0;
}

/*
 * --twice: what the second run changed.  Each property is one line, as
 * it is to be printed at the end (text, or a JSON event): a job of a
 * parallel run sends its lines to the parent behind AGAIN_MARK, the
 * parent keeps them in again.
 */
static struct {
    char *buf;
    size_t len, n;
} again;
int run_piped_job; /* a job of a parallel run: stdout is the pipe to the parent */

void
run_again_add(const char *line, size_t len)
{
    char *b;

    again.n++; /* counted even when it cannot be kept: the run fails */
    b = realloc(again.buf, again.len + len + 1);
    if (b == NULL)
        return;
    memcpy(b + again.len, line, len);
    again.len += len;
    b[again.len] = '\0';
    again.buf = b;
}

void
run_record_again(host_run *hr, const prop_node *n)
{
    static const char nomem[] = "  (a property prop had no memory to name)\n";
    char where[1200], *line = NULL;
    size_t len = 0;
    FILE *m;

    if (!hr->o->record)
        return;
    if ((m = open_memstream(&line, &len)) == NULL)
        goto send;
    run_origin_of(n, where, sizeof where);
    if (hr->o->json) {
        run_json_event(m, "changed_again");
        fputs("\"host\":", m);
        prop_json_write_string(m, hr->name, strlen(hr->name));
        fputs(",\"desc\":", m);
        prop_json_write_string(m, prop_node_desc(n), strlen(prop_node_desc(n)));
        fputs(",\"origin\":", m);
        prop_json_write_string(m, where, strlen(where));
        fputs("}\n", m);
    } else {
        fputs("  ", m);
        prop_text_puts(m, hr->name, 0);
        fputs("  ", m);
        prop_text_puts(m, prop_node_desc(n), 0);
        fputs(" (", m);
        prop_text_puts(m, where, 0);
        fputs(")\n", m);
    }
    if (fclose(m) != 0 || line == NULL || len == 0) {
        free(line);
        line = NULL;
    }
send:
    if (line == NULL)
        len = sizeof nomem - 1;
    if (run_piped_job) {
        putchar(AGAIN_MARK);
        fwrite(line ? line : nomem, 1, len, stdout);
    } else {
        run_again_add(line ? line : nomem, len);
    }
    free(line);
}

/* ---- the command ----------------------------------------------------- */

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

/* A host that counts against --max-fail. */
static int
host_failed(const outcome *oc)
{
    return oc->failed > 0 || oc->refused || oc->unreachable || oc->ctr_failed ||
           oc->ctr_unreachable;
}

/* Run hosts[from..to): in parallel jobs, or one after the other. */
static void
run_some(lprop_ctx *ctx, const run_opts *o, const prop_host **hosts, size_t from, size_t to,
         outcome *ocs)
{
    size_t k;

    if (to - from > 1 && o->jobs > 1) {
        run_parallel(ctx, o, hosts + from, to - from, o->site.color_out, ocs + from);
        return;
    }
    for (k = from; k < to; k++) {
        if (run_want_stop(NULL)) {
            ocs[k].stopped = 1;
            ocs[k].skipped = (unsigned)prop_host_nprops(hosts[k]);
            continue;
        }
        run_host(ctx, o, hosts[k], o->site.color_out && isatty(STDOUT_FILENO), o->site.color_out,
                 &ocs[k]);
    }
}

/*
 * Run the hosts in batches of --serial (all at once without it).  After a
 * batch, when more hosts have failed so far than --max-fail allows, the
 * hosts of the later batches are held back (not run).  Returns how many.
 */
static size_t
run_batches(lprop_ctx *ctx, const run_opts *o, const prop_host **hosts, size_t n, outcome *ocs)
{
    size_t size = n, from, to, k, nb, b = 0, failed = 0;

    if (o->serial > 0)
        size = (size_t)o->serial;
    else if (o->serial < 0)
        size = (n * (size_t)-o->serial + 99) / 100;
    if (size == 0)
        size = 1;
    if (o->serial == 0 || n == 0) {
        run_some(ctx, o, hosts, 0, n, ocs);
        return 0;
    }
    nb = (n + size - 1) / size;
    for (from = 0; from < n; from = to) {
        to = from + size < n ? from + size : n;
        b++;
        if (o->json) {
            run_json_event(stdout, "batch");
            printf("\"batch\":%zu,\"of\":%zu,\"hosts\":[", b, nb);
            for (k = from; k < to; k++) {
                if (k > from)
                    putchar(',');
                run_json_str(prop_host_fullname(hosts[k]));
            }
            fputs("]}\n", stdout);
        } else {
            printf("%sbatch %zu of %zu:", from ? "\n" : "", b, nb);
            for (k = from; k < to; k++)
                printf(" %s%s", prop_host_fullname(hosts[k]), k + 1 < to ? "," : "\n");
        }
        fflush(stdout);
        run_some(ctx, o, hosts, from, to, ocs);
        for (k = from; k < to; k++)
            failed += host_failed(&ocs[k]);
        if (to < n && (failed > (size_t)o->max_fail || run_want_stop(NULL)))
            break;
    }
    if (to >= n)
        return 0;
    for (k = to; k < n; k++) {
        if (run_want_stop(NULL))
            ocs[k].stopped = 1;
        else
            ocs[k].held = 1;
        ocs[k].skipped = (unsigned)prop_host_nprops(hosts[k]);
    }
    if (!run_want_stop(NULL)) {
        if (o->json) {
            run_json_event(stdout, "held");
            printf("\"failed\":%zu,\"max_fail\":%d,\"hosts\":[", failed, o->max_fail);
            for (k = to; k < n; k++) {
                if (k > to)
                    putchar(',');
                run_json_str(prop_host_fullname(hosts[k]));
            }
            fputs("]}\n", stdout);
            fflush(stdout);
        }
        fprintf(stderr,
                "prop run: %zu host%s failed by the end of batch %zu of %zu (--max-fail %d): "
                "the %zu host%s of the later batches %s not run\n",
                failed, failed == 1 ? "" : "s", b, nb, o->max_fail, n - to, n - to == 1 ? "" : "s",
                n - to == 1 ? "was" : "were");
    }
    return n - to;
}

/*
 * Run hosts[0..n) (in parallel with -j), print the summary of the hosts,
 * and return the exit code; the outcomes are left in ocs.
 */
static int
run_pass(lprop_ctx *ctx, const run_opts *o, const prop_host **hosts, size_t nhosts, outcome *ocs)
{
    size_t k, held;
    int rc, unreachable = 0, failed = 0, stopped = 0;

    held = run_batches(ctx, o, hosts, nhosts, ocs);
    for (k = 0; k < nhosts; k++) {
        unreachable += ocs[k].unreachable || ocs[k].ctr_unreachable;
        failed += ocs[k].failed > 0 || ocs[k].refused || ocs[k].ctr_failed;
        stopped += ocs[k].stopped || ocs[k].ctr_stopped;
    }
    if (nhosts > 1 && !o->json) {
        printf("\n%zu host%s:", nhosts, nhosts == 1 ? "" : "s");
        for (k = 0; k < nhosts; k++)
            printf(" %s %s%s%s", prop_host_fullname(hosts[k]),
                   ocs[k].held          ? "not run"
                   : ocs[k].unreachable ? "unreachable"
                   : ocs[k].refused     ? "refused"
                   : ocs[k].failed      ? "failed"
                   : ocs[k].stopped     ? "interrupted"
                   : ocs[k].info_only   ? "info only"
                   : ocs[k].changed     ? (o->dry ? "would change" : "changed")
                                        : "ok",
                   ocs[k].ctr_failed || ocs[k].ctr_unreachable ? " (a container did not converge)"
                                                               : "",
                   k + 1 < nhosts ? "," : "\n");
    }
    if (stopped)
        fprintf(stderr, "prop run: interrupted; the properties not run are counted above\n");
    rc = stopped          ? EXIT_INTERRUPTED
         : unreachable    ? EXIT_UNREACHABLE
         : failed || held ? EXIT_FAILED
                          : EXIT_WELL;
    return rc;
}

/*
 * The first run of --twice, in a child process: the second run then
 * starts from the site as it was evaluated, as a new `prop run` would,
 * whatever the first one's Lua code kept in its variables.  Signals are
 * passed on to it as to a job.  Returns its exit code.
 */
static int
first_pass(lprop_ctx *ctx, const run_opts *o, const prop_host **hosts, size_t nhosts, outcome *ocs)
{
    int status, forwarded = 0;
    pid_t pid, got;

    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0) {
        fprintf(stderr, "prop run: cannot start the first run: %s\n", strerror(errno));
        return EXIT_FAILED;
    }
    if (pid == 0) {
        int rc;

        run_in_job = 1;
        rc = run_pass(ctx, o, hosts, nhosts, ocs);
        fflush(stdout);
        fflush(stderr);
        _exit(rc);
    }
    for (;;) {
        for (; forwarded < run_stop_requested; forwarded++)
            (void)kill(pid, run_stop_signal);
        got = waitpid(pid, &status, 0);
        if (got == pid)
            break;
        if (got < 0 && errno != EINTR) {
            fprintf(stderr, "prop run: waiting for the first run: %s\n", strerror(errno));
            return EXIT_FAILED;
        }
    }
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    fprintf(stderr, "prop run: the first run ended by signal %d\n", WTERMSIG(status));
    return run_stop_requested ? EXIT_INTERRUPTED : EXIT_FAILED;
}

/*
 * --twice: run, then run again at once; the second run must change
 * nothing.  Each property it changed is named, and the exit code is then
 * 1 (the run's own code when it is worse: unreachable, interrupted).
 */
static int
run_twice(lprop_ctx *ctx, run_opts *o, const prop_host **hosts, size_t nhosts, outcome *ocs)
{
    int rc;

    if (o->json) {
        run_json_event(stdout, "pass");
        puts("\"pass\":1}");
    } else
        printf("prop run --twice: first run\n");
    run_report_pass = 1;
    rc = first_pass(ctx, o, hosts, nhosts, ocs);
    if (rc != EXIT_WELL) {
        fprintf(stderr,
                "prop run --twice: the first run did not succeed (exit %d); no second run\n", rc);
        return rc;
    }
    if (o->json) {
        run_json_event(stdout, "pass");
        puts("\"pass\":2}");
    } else
        printf("\nprop run --twice: second run, which must change nothing\n");
    o->record = 1;
    run_report_pass = 2;
    rc = run_pass(ctx, o, hosts, nhosts, ocs);
    if (o->json) {
        if (again.buf)
            fputs(again.buf, stdout);
        run_json_event(stdout, "twice");
        printf("\"changed_again\":%zu}\n", again.n);
    } else if (again.n > 0) {
        printf("\nprop run --twice: the second run changed %zu propert%s; the site does not "
               "converge in one run:\n%s",
               again.n, again.n == 1 ? "y" : "ies", again.buf ? again.buf : "");
    } else if (rc == EXIT_WELL) {
        printf("\nprop run --twice: the second run changed nothing\n");
    }
    free(again.buf);
    again.buf = NULL;
    if (again.n > 0 && rc == EXIT_WELL)
        rc = EXIT_FAILED;
    return rc;
}

static int
run_run(int argc, char **argv)
{
    run_opts o;
    const char *site = NULL, *v;
    const prop_host **hosts = NULL;
    outcome *ocs = NULL;
    size_t nhosts = 0, k, nsite;
    int i, r, evaluated, rc = EXIT_WELL;
    lprop_ctx *ctx = NULL;
    struct sigaction sa;
    const char **names;
    int nnames = 0, max_fail_given = 0, rfd = -1;
    char *rtmp = NULL;
    time_t t0 = time(NULL);

    memset(&o, 0, sizeof o);
    cli_site_opts_init(&o.site);
    o.jobs = DEFAULT_JOBS;
    o.op_timeout = DEFAULT_TIMEOUT;
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
    if (run_state_dir_from_env() != 0)
        goto usage;
    o.site_path = site;
    ctx = cli_load_site(site, &o.site, &evaluated);
    if (ctx == NULL) {
        free(names);
        fprintf(stderr, "prop: out of memory\n");
        return EXIT_REJECTED;
    }
    if (!evaluated || prop_site_nerrors(ctx->site, 0) > 0) {
        prop_diags_print_text(ctx->site, stderr, o.site.color_err, 0);
        cli_print_summary(ctx, site, stderr, 0);
        fprintf(stderr, "prop run: nothing was run\n");
        rc = EXIT_REJECTED;
        goto done;
    }
    /* Warnings do not stop a run, but they are shown. */
    prop_diags_print_text(ctx->site, stderr, o.site.color_err, 0);
    cli_print_summary(ctx, site, stderr, 0);
    run_warn_unknown_tags(ctx->L, o.tags, o.ntags, "--tags");
    run_warn_unknown_tags(ctx->L, o.skip_tags, o.nskip, "--skip-tags");
    nsite = prop_site_nhosts(ctx->site);
    hosts = calloc(nsite + (size_t)nnames + 1, sizeof *hosts);
    ocs = calloc(nsite + (size_t)nnames + 1, sizeof *ocs);
    if (!hosts || !ocs) {
        fprintf(stderr, "prop: out of memory\n");
        rc = EXIT_FAILED;
        goto done;
    }
    for (i = 0; i < nnames; i++) {
        const prop_host *h = prop_site_find_host(ctx->site, names[i]);
        if (h == NULL) {
            fprintf(stderr, "prop run: %s declares no host \"%s\"\n", site, names[i]);
            rc = EXIT_USAGE;
            goto done;
        }
        hosts[nhosts++] = h;
    }
    /* Every host; containers run after the host they are on. */
    if (nnames == 0)
        for (k = 0; k < nsite; k++)
            if (prop_host_container_kind(prop_site_host(ctx->site, k)) == PROP_CONTAINER_NONE)
                hosts[nhosts++] = prop_site_host(ctx->site, k);

    run_make_id();
    if (o.json || o.report)
        run_find_site_commit(site);
    if (o.report) {
        char tpl[4096];
        const char *tmpdir = getenv("TMPDIR");

        if ((rfd = run_report_open(o.report, &rtmp)) < 0) {
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
    signal_ctx = ctx;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* Lua code running (check, apply) stops at the next count hook. */
    ctx->interrupt = &run_stop_requested;
    if (!o.twice)
        rc = run_pass(ctx, &o, hosts, nhosts, ocs);
    else
        rc = run_twice(ctx, &o, hosts, nhosts, ocs);
    if (o.report) {
        fflush(stdout);
        rc = run_report_write(&o, rfd, rtmp, hosts, nhosts, ocs, rc, t0);
        rfd = -1;
        rtmp = NULL;
    }
done:
    if (rtmp) {
        unlink(rtmp);
        free(rtmp);
    }
    if (rfd >= 0)
        close(rfd);
    if (run_report_fd >= 0)
        close(run_report_fd);
    run_report_fd = -1;
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
