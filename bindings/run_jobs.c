/*
 * run_jobs.c - prop run -j N: several hosts at once, in forked children.
 * Each child has the evaluated site already (copy-on-write), runs one
 * host, and sends its output lines through a pipe; the parent writes
 * whole lines only, so the output of parallel hosts never interleaves
 * mid-line.  A child's last line is its outcome (SUMMARY_MARK); lines the
 * second run of --twice changed come marked AGAIN_MARK.  SIGINT and
 * SIGTERM are passed on to the children.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "run.h"

typedef struct child {
    pid_t pid;
    int fd;
    prop_buf out; /* a partial line */
    outcome oc;
    int have_oc;
    const prop_host *h;
} child;

/* Pass whole lines through; keep the summary line. */
static void
child_lines(run *r, child *c, int final)
{
    size_t start = 0, i;

    for (i = 0; i < c->out.len; i++) {
        if (c->out.p[i] != '\n')
            continue;
        if (c->out.p[start] == AGAIN_MARK) {
            run_again_add(r, c->out.p + start + 1, i - start);
        } else if (c->out.p[start] == SUMMARY_MARK) {
            c->have_oc =
                sscanf(c->out.p + start + 1, "%u %u %u %u %d %d %d %d %lf %u %u %u", &c->oc.ok,
                       &c->oc.changed, &c->oc.failed, &c->oc.skipped, &c->oc.unreachable,
                       &c->oc.stopped, &c->oc.refused, &c->oc.info_only, &c->oc.ms,
                       &c->oc.ctr_failed, &c->oc.ctr_unreachable, &c->oc.ctr_stopped) == 12;
        } else {
            fwrite(c->out.p + start, 1, i + 1 - start, stdout);
        }
        start = i + 1;
    }
    if (final && start < c->out.len) {
        fwrite(c->out.p + start, 1, c->out.len - start, stdout);
        fputc('\n', stdout);
        start = c->out.len;
    }
    memmove(c->out.p, c->out.p + start, c->out.len - start);
    c->out.len -= start;
    if (c->out.p)
        c->out.p[c->out.len] = '\0';
    fflush(stdout);
}

static int
start_child(lprop_ctx *ctx, const run_opts *o, const prop_host *h, int color, child *c)
{
    int p[2];

    memset(c, 0, sizeof *c);
    c->h = h;
    if (pipe(p) != 0)
        return -1;
    fflush(stdout);
    fflush(stderr);
    c->pid = fork();
    if (c->pid < 0) {
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (c->pid == 0) {
        outcome oc;
        o->run->in_job = 1;
        o->run->piped_job = 1;
        close(p[0]);
        if (dup2(p[1], STDOUT_FILENO) < 0)
            _exit(EXIT_FAILED);
        close(p[1]);
        run_host(ctx, o, h, 0, color, &oc);
        printf("%c%u %u %u %u %d %d %d %d %.3f %u %u %u\n", SUMMARY_MARK, oc.ok, oc.changed,
               oc.failed, oc.skipped, oc.unreachable, oc.stopped, oc.refused, oc.info_only, oc.ms,
               oc.ctr_failed, oc.ctr_unreachable, oc.ctr_stopped);
        fflush(stdout);
        _exit(0);
    }
    close(p[1]);
    c->fd = p[0];
    return 0;
}

/* Run hosts[0..n) with at most jobs at once; outcomes in ocs. */
void
run_parallel(lprop_ctx *ctx, const run_opts *o, const prop_host **hosts, size_t n, int color,
             outcome *ocs)
{
    child *kids = calloc((size_t)o->jobs, sizeof *kids);
    size_t *which = calloc((size_t)o->jobs, sizeof *which);
    struct pollfd *pf = calloc((size_t)o->jobs, sizeof *pf);
    size_t next = 0, running = 0;
    int k, forwarded = 0;

    if (!kids || !which || !pf) {
        size_t i;
        for (i = 0; i < n; i++)
            run_host(ctx, o, hosts[i], 0, color, &ocs[i]);
        goto out;
    }
    for (;;) {
        while (running < (size_t)o->jobs && next < n && !run_stopping(o->run)) {
            for (k = 0; k < o->jobs && kids[k].pid > 0; k++)
                ;
            if (start_child(ctx, o, hosts[next], color, &kids[k]) != 0) {
                fprintf(stderr, "prop run: cannot start a job for %s: %s; running it here\n",
                        prop_host_name(hosts[next]), strerror(errno));
                run_host(ctx, o, hosts[next], 0, color, &ocs[next]);
                next++;
                continue;
            }
            which[k] = next++;
            running++;
        }
        if (running == 0)
            break;
        /* Pass SIGINT and SIGTERM on to the jobs (see on_signal). */
        for (; forwarded < o->run->stop_requested; forwarded++)
            for (k = 0; k < o->jobs; k++)
                if (kids[k].pid > 0)
                    (void)kill(kids[k].pid, o->run->stop_signal);
        for (k = 0; k < o->jobs; k++) {
            pf[k].fd = kids[k].pid > 0 ? kids[k].fd : -1;
            pf[k].events = POLLIN;
            pf[k].revents = 0;
        }
        /* A signal between the check above and poll: seen 250 ms later. */
        if (poll(pf, (nfds_t)o->jobs, o->run->stop_requested > forwarded ? 0 : 250) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (k = 0; k < o->jobs; k++) {
            child *c = &kids[k];
            ssize_t got;
            int status;
            if (c->pid <= 0 || !(pf[k].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            if (prop_buf_reserve(&c->out, 4096) != 0)
                continue;
            got = read(c->fd, c->out.p + c->out.len, c->out.cap - c->out.len - 1);
            if (got > 0) {
                c->out.len += (size_t)got;
                c->out.p[c->out.len] = '\0';
                child_lines(o->run, c, 0);
                continue;
            }
            if (got < 0 && errno == EINTR)
                continue;
            child_lines(o->run, c, 1);
            close(c->fd);
            while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
                ;
            if (c->have_oc) {
                ocs[which[k]] = c->oc;
            } else {
                memset(&ocs[which[k]], 0, sizeof ocs[which[k]]);
                ocs[which[k]].failed = 1;
                printf("%s  failed: its job ended without a summary (status %d)\n",
                       prop_host_name(c->h), status);
            }
            prop_buf_free(&c->out);
            memset(c, 0, sizeof *c);
            running--;
        }
    }
    /* Hosts never started because of an interruption. */
    for (; next < n; next++) {
        memset(&ocs[next], 0, sizeof ocs[next]);
        ocs[next].stopped = 1;
        ocs[next].skipped = (unsigned)prop_host_nprops(hosts[next]);
    }
out:
    free(kids);
    free(which);
    free(pf);
}
