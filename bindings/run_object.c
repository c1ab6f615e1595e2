/*
 * run_object.c - the run object (run.h): a run of hosts of a loaded site,
 * with its options and observer, and its stop flags, which SIGINT and
 * SIGTERM set (run_catch_signals) and every run_*.c file polls; the
 * batches of --serial and --max-fail; one pass over the hosts, or the two
 * runs of --twice and what the second one changed.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run.h"

/*
 * SIGINT and SIGTERM stop the run that catches them (run_catch_signals).
 * Its stop_requested counts them: the Lua hook (ctx->budget.interrupt) and the
 * transports (prop_transport_set_interrupt) read it, and a second one
 * stops a running command at once; its stop_signal is the last, passed on
 * to that command.  A job of a parallel run gets
 * its parent's signals passed on, and may get the same signal straight
 * too (Ctrl-C on a terminal, timeout(1)): that is one request, not two,
 * so a job counts the signals from its parent and from elsewhere apart
 * and takes the larger count.
 */
static volatile sig_atomic_t from_parent, from_others;
static run *volatile signal_run; /* its Lua code is stopped at once */

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
    run *r = signal_run;

    (void)uc;
    if (r == NULL)
        return;
    /* timeout(1) sends its signal to prop, then to its process group,
     * prop included: the same signal from the same sender at once is one
     * request, not a second. */
    ms = clock_gettime(CLOCK_MONOTONIC, &ts) == 0 ? ts.tv_sec * 1000LL + ts.tv_nsec / 1000000 : 0;
    if (sig == last_sig && from == last_pid && ms - last_ms < 100)
        return;
    last_sig = sig;
    last_pid = from;
    last_ms = ms;
    r->stop_signal = sig;
    if (r->in_job && si && si->si_code == SI_USER && si->si_pid == getppid())
        from_parent++;
    else
        from_others++;
    r->stop_requested = from_parent > from_others ? from_parent : from_others;
    lprop_interrupt_now(r->ctx); /* async-signal-safe, as lua.c does */
}

int
run_stopping(const run *r)
{
    return r != NULL && r->stop_requested > 0;
}

int
run_want_stop(void *ud)
{
    const host_run *hr = ud;

    return run_stopping(hr->o->run);
}

/*
 * --twice: what the second run changed (r->again).  Each property is one
 * line, as it is to be printed at the end (text, or a JSON event): a job
 * of a parallel run sends its lines to the parent behind AGAIN_MARK, the
 * parent keeps them.
 */
void
run_again_add(run *r, const char *line, size_t len)
{
    char *b;

    r->again.n++; /* counted even when it cannot be kept: the run fails */
    b = realloc(r->again.buf, r->again.len + len + 1);
    if (b == NULL)
        return;
    memcpy(b + r->again.len, line, len);
    r->again.len += len;
    b[r->again.len] = '\0';
    r->again.buf = b;
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
    if (hr->o->run->piped_job) {
        putchar(AGAIN_MARK);
        fwrite(line ? line : nomem, 1, len, stdout);
    } else {
        run_again_add(hr->o->run, line ? line : nomem, len);
    }
    free(line);
}

/* SIGINT and SIGTERM stop r from now on (on_signal). */
void
run_catch_signals(run *r)
{
    struct sigaction sa;

    signal_run = r;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* Lua code running (check, apply) stops at the next count hook. */
    r->ctx->budget.interrupt = &r->stop_requested;
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
        if (run_stopping(o->run)) {
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
        if (to < n && (failed > (size_t)o->max_fail || run_stopping(o->run)))
            break;
    }
    if (to >= n)
        return 0;
    for (k = to; k < n; k++) {
        if (run_stopping(o->run))
            ocs[k].stopped = 1;
        else
            ocs[k].held = 1;
        ocs[k].skipped = (unsigned)prop_host_nprops(hosts[k]);
    }
    if (!run_stopping(o->run)) {
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
                   : ocs[k].changed     ? (o->verify ? "drift"
                                           : o->dry  ? "would change"
                                                     : "changed")
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

        o->run->in_job = 1;
        rc = run_pass(ctx, o, hosts, nhosts, ocs);
        fflush(stdout);
        fflush(stderr);
        _exit(rc);
    }
    for (;;) {
        for (; forwarded < o->run->stop_requested; forwarded++)
            (void)kill(pid, o->run->stop_signal);
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
    return o->run->stop_requested ? EXIT_INTERRUPTED : EXIT_FAILED;
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
        if (o->run->again.buf)
            fputs(o->run->again.buf, stdout);
        run_json_event(stdout, "twice");
        printf("\"changed_again\":%zu}\n", o->run->again.n);
    } else if (o->run->again.n > 0) {
        printf("\nprop run --twice: the second run changed %zu propert%s; the site does not "
               "converge in one run:\n%s",
               o->run->again.n, o->run->again.n == 1 ? "y" : "ies",
               o->run->again.buf ? o->run->again.buf : "");
    } else if (rc == EXIT_WELL) {
        printf("\nprop run --twice: the second run changed nothing\n");
    }
    free(o->run->again.buf);
    o->run->again.buf = NULL;
    if (o->run->again.n > 0 && rc == EXIT_WELL)
        rc = EXIT_FAILED;
    return rc;
}

/*
 * Load the site at o->site_path for a run of the hosts names[0..nnames)
 * (every host but containers when nnames is 0): evaluated and checked,
 * its findings shown, and nothing run when it has an error.  -1 to go
 * on, with *ctxp, *hostsp (*nhostsp of them) and *ocsp (as many, zeroed)
 * set; else the exit code, after a message.  Either way, what is set of
 * *ctxp, *hostsp and *ocsp is the caller's to free.
 */
int
run_open_site(run_opts *o, const char *const *names, int nnames, lprop_ctx **ctxp,
              const prop_host ***hostsp, size_t *nhostsp, outcome **ocsp)
{
    const char *site = o->site_path;
    const prop_host **hosts;
    outcome *ocs;
    lprop_ctx *ctx;
    size_t k, nsite;
    int i, evaluated;

    *nhostsp = 0;
    if (run_state_dir_from_env() != 0)
        return EXIT_USAGE;
    *ctxp = ctx = cli_load_site(site, &o->site, &evaluated);
    if (ctx == NULL) {
        fprintf(stderr, "prop: out of memory\n");
        return EXIT_REJECTED;
    }
    if (!evaluated || prop_site_nerrors(ctx->site, 0) > 0) {
        prop_diags_print_text(ctx->site, stderr, o->site.color_err, 0);
        cli_print_summary(ctx, site, stderr, 0);
        fprintf(stderr, "prop %s: nothing was run\n", o->verify ? "verify" : "run");
        return EXIT_REJECTED;
    }
    /* Warnings do not stop a run, but they are shown. */
    prop_diags_print_text(ctx->site, stderr, o->site.color_err, 0);
    cli_print_summary(ctx, site, stderr, 0);
    run_warn_unknown_tags(ctx->L, o->tags, o->ntags, "--tags");
    run_warn_unknown_tags(ctx->L, o->skip_tags, o->nskip, "--skip-tags");
    nsite = prop_site_nhosts(ctx->site);
    *hostsp = hosts = calloc(nsite + (size_t)nnames + 1, sizeof *hosts);
    *ocsp = ocs = calloc(nsite + (size_t)nnames + 1, sizeof *ocs);
    if (!hosts || !ocs) {
        fprintf(stderr, "prop: out of memory\n");
        return EXIT_FAILED;
    }
    for (i = 0; i < nnames; i++) {
        const prop_host *h = prop_site_find_host(ctx->site, names[i]);
        if (h == NULL) {
            fprintf(stderr, "prop %s: %s declares no host \"%s\"\n", o->verify ? "verify" : "run",
                    site, names[i]);
            return EXIT_USAGE;
        }
        hosts[(*nhostsp)++] = h;
    }
    /* Every host; containers run after the host they are on. */
    if (nnames == 0)
        for (k = 0; k < nsite; k++)
            if (prop_host_container_kind(prop_site_host(ctx->site, k)) == PROP_CONTAINER_NONE)
                hosts[(*nhostsp)++] = prop_site_host(ctx->site, k);

    run_make_id();
    if (o->json || o->report)
        run_find_site_commit(site);
    return -1;
}

/* ---- the run object -------------------------------------------------- */

void
run_observe_result(host_run *hr, const prop_node *n, prop_result res, const char *msg)
{
    const run *r = hr->o->run;

    if (r == NULL)
        return;
    if (res == PROP_RESULT_OK || res == PROP_RESULT_CHANGED) {
        if (r->obs.prop_result)
            r->obs.prop_result(hr->h, n, res, r->obs.payload);
    } else if (r->obs.failure) {
        r->obs.failure(hr->h, n, msg, r->obs.payload);
    }
}

run *
run_new(lprop_ctx *ctx, const run_opts *o, const run_observer *obs)
{
    run *r;

    if (obs && obs->version != RUN_OBSERVER_VERSION)
        return NULL;
    if ((r = calloc(1, sizeof *r)) == NULL)
        return NULL;
    r->ctx = ctx;
    r->o = *o;
    r->o.run = r;
    if (obs)
        r->obs = *obs;
    return r;
}

int
run_hosts(run *r, const prop_host **hosts, size_t nhosts, outcome *ocs)
{
    if (!r->o.twice)
        return run_pass(r->ctx, &r->o, hosts, nhosts, ocs);
    return run_twice(r->ctx, &r->o, hosts, nhosts, ocs);
}

void
run_stop(run *r, int sig)
{
    r->stop_signal = sig;
    r->stop_requested++;
}

void
run_free(run *r)
{
    if (r == NULL)
        return;
    if (signal_run == r)
        signal_run = NULL;
    if (r->ctx && r->ctx->budget.interrupt == &r->stop_requested)
        r->ctx->budget.interrupt = NULL;
    free(r->again.buf);
    free(r);
}
