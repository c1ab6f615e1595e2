/*
 * spawn.c - run a program and capture what it says; see spawn.h.
 */
#define _GNU_SOURCE /* syscall */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "spawn.h"

extern char **environ;

/* What the child sends back when it cannot exec. */
typedef struct child_report {
    int stage;
    int err;
} child_report;

typedef struct child_args {
    char *const *argv;
    char *const *envp;
    const char *path; /* PATH's value */
    const char *dir;
    int in, out, err, report, group;
    long maxfd;
    pid_t parent; /* prop, which forked it */
} child_args;

/* In the child after fork: async-signal-safe calls only. */
static void __attribute__((noreturn)) child_exec(const child_args *c)
{
    child_report rep = {0, 0};
    char buf[PATH_MAX];
    const char *p, *e, *prog = c->argv[0];
    size_t plen = strlen(prog), dlen;
    int saw_eacces = 0, saw_file = 0, last = ENOENT, err;
    sigset_t none;
    struct stat st;
    long fd;
    int rfd = c->report;

    if (c->group == PROP_SPAWN_SESSION) {
        /* A session, so a process group, of its own: a stop signals the
         * group, and no terminal is there to read from. */
        (void)setsid();
#ifdef __linux__
        /* prop killed outright (kill -9, the OOM killer): the command dies
         * with it rather than going on unseen in its own session.  If prop
         * is already gone, the command does not start. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != c->parent)
            _exit(127);
#endif
    } else if (c->group == PROP_SPAWN_PGRP && setpgid(0, 0) != 0) {
        _exit(127);
    }
    (void)signal(SIGPIPE, SIG_DFL);
    (void)sigemptyset(&none);
    (void)sigprocmask(SIG_SETMASK, &none, NULL);
    if (dup2(c->in, 0) < 0 || dup2(c->out, 1) < 0 || dup2(c->err, 2) < 0) {
        rep.stage = PROP_SPAWN_STAGE_FDS;
        goto report;
    }
    if ((c->report != 3 && dup2(c->report, 3) < 0) || fcntl(3, F_SETFD, FD_CLOEXEC) != 0)
        _exit(127);
    rfd = 3;
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 4U, ~0U, 0U) != 0)
#endif
        for (fd = 4; fd < c->maxfd; fd++)
            (void)close((int)fd);
    if (c->dir && chdir(c->dir) != 0) {
        rep.stage = PROP_SPAWN_STAGE_CHDIR;
        goto report;
    }
    rep.stage = PROP_SPAWN_STAGE_EXEC;
    if (strchr(prog, '/')) {
        execve(prog, c->argv, c->envp);
        /* There, but its interpreter (#!) is not. */
        if (errno == ENOENT && stat(prog, &st) == 0)
            rep.stage = PROP_SPAWN_STAGE_INTERP;
        goto report;
    }
    for (p = c->path; *p; p = e + 1) {
        e = strchr(p, ':');
        if (!e)
            e = p + strlen(p);
        dlen = (size_t)(e - p);
        if (dlen > 0 && dlen + 1 + plen < sizeof buf) {
            memcpy(buf, p, dlen);
            buf[dlen] = '/';
            memcpy(buf + dlen + 1, prog, plen + 1);
            execve(buf, c->argv, c->envp);
            err = errno;
            /* A directory we may not search is skipped, as shells do. */
            if (err == EACCES)
                saw_eacces |= stat(buf, &st) == 0;
            else if (err == ENOENT)
                saw_file |= stat(buf, &st) == 0;
            else if (err != ENOTDIR && err != ENAMETOOLONG)
                last = err;
        }
        if (!*e)
            break;
    }
    if (saw_file && !saw_eacces && last == ENOENT)
        rep.stage = PROP_SPAWN_STAGE_INTERP;
    errno = saw_eacces ? EACCES : last;
report:
    rep.err = errno;
    while (write(rfd, &rep, sizeof rep) < 0 && errno == EINTR)
        ;
    _exit(127);
}

char **
prop_spawn_env(const char *const *set)
{
    size_t n = 0, ns = 0, k = 0, i, j;
    char **env;

    while (environ && environ[n])
        n++;
    while (set && set[ns])
        ns++;
    if (n > SIZE_MAX / sizeof *env - ns - 1)
        return NULL;
    env = prop_calloc(n + ns + 1, sizeof *env);
    if (!env)
        return NULL;
    for (i = 0; i < n; i++) {
        const char *eq = strchr(environ[i], '=');
        size_t nl = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);

        for (j = 0; j < ns; j++)
            if (strncmp(set[j], environ[i], nl) == 0 && set[j][nl] == '=')
                break;
        if (j == ns)
            env[k++] = environ[i];
    }
    for (j = 0; j < ns; j++)
        env[k++] = (char *)set[j]; /* execve does not change them */
    env[k] = NULL;
    return env;
}

const char *
prop_spawn_path(void)
{
    const char *p = getenv("PATH");

    return p ? p : "/bin:/usr/bin";
}

/* A pipe whose ends are close-on-exec and above 2.  0 or errno. */
static int
make_pipe(int p[2])
{
    int i, fd;

    if (pipe(p) != 0)
        return errno;
    for (i = 0; i < 2; i++) {
        if (p[i] < 3) {
            fd = fcntl(p[i], F_DUPFD_CLOEXEC, 3);
            if (fd < 0) {
                int e = errno;
                (void)close(p[0]);
                (void)close(p[1]);
                p[0] = p[1] = -1;
                return e;
            }
            (void)close(p[i]);
            p[i] = fd;
        } else if (fcntl(p[i], F_SETFD, FD_CLOEXEC) != 0) {
            int e = errno;
            (void)close(p[0]);
            (void)close(p[1]);
            p[0] = p[1] = -1;
            return e;
        }
    }
    return 0;
}

/* /dev/null, close-on-exec and above 2.  0 or errno. */
static int
open_null(int *fd)
{
    int f = open("/dev/null", O_RDWR | O_CLOEXEC), g;

    if (f < 0)
        return errno;
    if (f < 3) {
        g = fcntl(f, F_DUPFD_CLOEXEC, 3);
        if (g < 0) {
            int e = errno;
            (void)close(f);
            return e;
        }
        (void)close(f);
        f = g;
    }
    *fd = f;
    return 0;
}

static void
close_fd(int *fd)
{
    if (*fd >= 0) {
        (void)close(*fd);
        *fd = -1;
    }
}

static int
wait_child(pid_t pid, int *status)
{
    pid_t w;

    do
        w = waitpid(pid, status, 0);
    while (w < 0 && errno == EINTR);
    return w == pid ? 0 : errno;
}

static long long
mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One run: what pump and wait_bounded share. */
typedef struct run {
    const prop_spawn_opts *o;
    prop_spawn_result *r;
    pid_t pid;
    long long start;   /* of the time limit */
    long long sent_at; /* the stop request's signal */
    long long term_at; /* the time limit's SIGTERM (timeout_grace_ms) */
    int termed;        /* that SIGTERM was sent */
} run;

/* Signal the command's process group when it has one (the process alone
 * before its setsid), else the process. */
static void
signal_group(const run *ru, int sig)
{
    if (ru->o->group == PROP_SPAWN_SAME_GROUP || kill(-ru->pid, sig) != 0)
        (void)kill(ru->pid, sig);
}

static void
fail(prop_spawn_result *r, int why)
{
    if (r->why == PROP_SPAWN_OK)
        r->why = why;
}

/*
 * A stop request while the command runs: the signal, then SIGKILL after
 * the grace period or at a second request.  1 once SIGKILL was sent: the
 * caller stops waiting for the pipes (a process outside the group may
 * hold them).
 */
static int
stop_child(run *ru)
{
    int sig = 0, stops = ru->o->stop ? ru->o->stop(ru->o->stop_ud, &sig) : 0;

    if (!stops)
        return 0;
    if (!ru->r->stopped) {
        signal_group(ru, sig ? sig : SIGTERM);
        ru->r->stopped = 1;
        ru->sent_at = mono_ms();
    }
    if (stops >= 2 || mono_ms() - ru->sent_at >= ru->o->stop_grace_ms) {
        signal_group(ru, SIGKILL);
        return 1;
    }
    return 0;
}

/* The time limit: 0 within it; 1 once SIGKILL was sent (at once, or
 * timeout_grace_ms after SIGTERM). */
static int
time_limit(run *ru)
{
    long long now;

    if (ru->o->timeout_ms <= 0 || ru->r->stopped)
        return 0;
    now = mono_ms();
    if (!ru->termed && now - ru->start < ru->o->timeout_ms)
        return 0;
    fail(ru->r, PROP_SPAWN_TIMEOUT);
    if (ru->o->timeout_grace_ms > 0) {
        if (!ru->termed) {
            signal_group(ru, SIGTERM);
            ru->termed = 1;
            ru->term_at = now;
            return 0;
        }
        if (now - ru->term_at < ru->o->timeout_grace_ms)
            return 0;
    }
    signal_group(ru, SIGKILL);
    return 1;
}

/*
 * Wait for the command once its pipes are closed, still within its time
 * limit and honouring a stop request: a command may close its output and
 * go on running.  0 with *status, or an errno.
 */
static int
wait_bounded(run *ru, int *status)
{
    const struct timespec tick = {0, 20 * 1000 * 1000};
    int killed = 0;
    pid_t w;

    if (!ru->o->stop && ru->o->timeout_ms <= 0)
        return wait_child(ru->pid, status);
    for (;;) {
        w = waitpid(ru->pid, status, killed ? 0 : WNOHANG);
        if (w == ru->pid)
            return 0;
        if (w < 0 && errno != EINTR)
            return errno;
        if (w < 0 || killed)
            continue;
        if (time_limit(ru) || stop_child(ru)) {
            killed = 1;
            continue;
        }
        (void)nanosleep(&tick, NULL);
    }
}

/* Past a limit: the command's group is killed and its pipes closed. */
static void
cut_off(const run *ru, int *in, int *out, int *err)
{
    signal_group(ru, SIGKILL);
    close_fd(in);
    close_fd(out);
    close_fd(err);
}

/*
 * Feed stdin and collect stdout and stderr until both are closed.  With
 * a stop callback or a time limit, polls at least every 100 ms.
 */
static void
pump(run *ru, int *in, int *out, int *err, int *epipe)
{
    const prop_spawn_opts *o = ru->o;
    prop_spawn_result *r = ru->r;
    char buf[65536];
    struct pollfd pf[3];
    const char *data = o->in;
    size_t off = 0, len = o->in_len, max = o->max_output ? o->max_output : SIZE_MAX;
    int n, i, oom = 0, done = 0, ticks = o->stop || o->timeout_ms > 0;

    *epipe = 0;
    if (*in >= 0 && (fcntl(*in, F_SETFL, O_NONBLOCK) != 0 || !data || len == 0))
        close_fd(in);
    while (*in >= 0 || *out >= 0 || *err >= 0) {
        int *fds[3] = {in, out, err};

        if (time_limit(ru)) {
            cut_off(ru, in, out, err);
            break;
        }
        if (stop_child(ru)) {
            close_fd(in);
            close_fd(out);
            close_fd(err);
            break;
        }
        if (r->stopped && o->group != PROP_SPAWN_SAME_GROUP) {
            siginfo_t si;

            /* Signalled and ended (still to be reaped, so its pid is
             * still its group's): what is left of the group, which may
             * hold the pipes, goes at once. */
            si.si_pid = 0;
            if (waitid(P_PID, (id_t)ru->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
                si.si_pid == ru->pid) {
                (void)kill(-ru->pid, SIGKILL);
                close_fd(in);
                close_fd(out);
                close_fd(err);
                break;
            }
        }
        for (i = 0; i < 3; i++) {
            pf[i].fd = *fds[i]; /* poll ignores negative fds */
            pf[i].events = i == 0 ? POLLOUT : POLLIN;
            pf[i].revents = 0;
        }
        n = poll(pf, 3, ticks ? 100 : -1);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            r->errnum = errno;
            r->call = "poll";
            fail(r, PROP_SPAWN_SYS);
            cut_off(ru, in, out, err);
            break;
        }
        if (*in >= 0 && pf[0].revents) {
            if (pf[0].revents & POLLOUT) {
                size_t chunk = len - off > sizeof buf ? sizeof buf : len - off;
                ssize_t w = write(*in, data + off, chunk);

                if (w > 0)
                    off += (size_t)w;
                else if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                    /* The child does not read (all of) its input: not an error. */
                    if (errno == EPIPE)
                        *epipe = 1;
                    close_fd(in);
                }
                if (off == len)
                    close_fd(in);
            } else
                close_fd(in); /* POLLERR / POLLHUP: the reader is gone */
        }
        for (i = 1; i < 3; i++) {
            int *fd = fds[i];
            size_t keep, held = r->out.len + r->err.len;
            ssize_t got;

            if (*fd < 0 || !pf[i].revents)
                continue;
            got = read(*fd, buf, sizeof buf);
            if (got <= 0) {
                if (got == 0 || (errno != EINTR && errno != EAGAIN))
                    close_fd(fd);
                continue;
            }
            keep = (size_t)got;
            if (held + keep > max || held + keep < held) {
                if (!o->drain) {
                    fail(r, PROP_SPAWN_TOO_MUCH);
                    cut_off(ru, in, out, err);
                    done = 1;
                    break;
                }
                r->over = 1;
                keep = held < max ? max - held : 0;
            }
            if (keep && !oom && prop_buf_add(i == 1 ? &r->out : &r->err, buf, keep) != 0) {
                oom = 1;
                signal_group(ru, SIGKILL);
            }
        }
        if (done)
            break;
    }
    if (oom)
        fail(r, PROP_SPAWN_NOMEM);
}

/* The child's standard output or error: fd *mine captures it (a pipe's
 * reading end), *theirs is what it gets.  0 or errno. */
static int
output_fd(int how, int null, int pipefds[2], int *theirs)
{
    int e;

    if (how == PROP_SPAWN_NULL) {
        *theirs = null;
    } else if (how == PROP_SPAWN_INHERIT) {
        *theirs = STDERR_FILENO;
    } else {
        if ((e = make_pipe(pipefds)) != 0)
            return e;
        *theirs = pipefds[1];
    }
    return 0;
}

int
prop_spawn(const prop_spawn_opts *o, prop_spawn_result *r)
{
    int inp[2] = {-1, -1}, outp[2] = {-1, -1}, errp[2] = {-1, -1}, rep[2] = {-1, -1};
    int null = -1, e, status = 0, was_pending = 0, epipe = 0;
    sigset_t pipeset, oldmask, pending;
    child_report cr;
    child_args ca;
    ssize_t got;
    run ru;

    memset(r, 0, sizeof *r);
    r->code = -1;
    memset(&ru, 0, sizeof ru);
    ru.o = o;
    ru.r = r;
    memset(&ca, 0, sizeof ca);
    ca.argv = o->argv;
    ca.envp = o->envp;
    ca.path = o->path ? o->path : "";
    ca.dir = o->dir;
    ca.group = o->group;
    e = 0;
    if (o->stdin_null || o->out == PROP_SPAWN_NULL || o->err == PROP_SPAWN_NULL)
        e = open_null(&null);
    if (e == 0 && !o->stdin_null)
        e = make_pipe(inp);
    if (e == 0)
        e = output_fd(o->out, null, outp, &ca.out);
    if (e == 0)
        e = output_fd(o->err, null, errp, &ca.err);
    if (e == 0)
        e = make_pipe(rep);
    if (e != 0) {
        r->errnum = e;
        r->call = "pipe";
        fail(r, PROP_SPAWN_SYS);
        goto out;
    }
    ca.in = o->stdin_null ? null : inp[0];
    ca.report = rep[1];
    ca.maxfd = sysconf(_SC_OPEN_MAX);
    ca.parent = getpid();
    if (ca.maxfd < 0 || ca.maxfd > 65536)
        ca.maxfd = 65536;

    ru.pid = fork();
    if (ru.pid < 0) {
        r->errnum = errno;
        r->call = "fork";
        fail(r, PROP_SPAWN_SYS);
        goto out;
    }
    if (ru.pid == 0)
        child_exec(&ca);
    close_fd(&null);
    close_fd(&inp[0]);
    close_fd(&outp[1]);
    close_fd(&errp[1]);
    close_fd(&rep[1]);

    /* Did the exec work?  The report pipe closes on exec. */
    do
        got = read(rep[0], &cr, sizeof cr);
    while (got < 0 && errno == EINTR);
    close_fd(&rep[0]);
    if (got == (ssize_t)sizeof cr) {
        close_fd(&inp[1]);
        (void)wait_child(ru.pid, &status);
        r->stage = cr.stage;
        r->errnum = cr.err;
        fail(r, PROP_SPAWN_NOT_RUN);
        goto out;
    }

    /* Writing to a child that stopped reading must not kill us with SIGPIPE. */
    ru.start = mono_ms();
    (void)sigemptyset(&pipeset);
    (void)sigaddset(&pipeset, SIGPIPE);
    if ((e = pthread_sigmask(SIG_BLOCK, &pipeset, &oldmask)) == 0) {
        if (sigpending(&pending) == 0)
            was_pending = sigismember(&pending, SIGPIPE) == 1;
        ru.start = mono_ms();
        pump(&ru, &inp[1], &outp[0], &errp[0], &epipe);
        if (epipe && !was_pending) {
            struct timespec zero = {0, 0};
            while (sigtimedwait(&pipeset, NULL, &zero) < 0 && errno == EINTR)
                ;
        }
        (void)pthread_sigmask(SIG_SETMASK, &oldmask, NULL);
    } else {
        r->errnum = e;
        r->call = "sigmask";
        fail(r, PROP_SPAWN_SYS);
        signal_group(&ru, SIGKILL);
    }
    e = wait_bounded(&ru, &status);
    /* Stopped: what is left of its process group goes too (the group
     * alone: pid itself may already be another process's). */
    if (r->stopped && o->group != PROP_SPAWN_SAME_GROUP)
        (void)kill(-ru.pid, SIGKILL);
    if (e != 0) {
        r->errnum = e;
        r->call = "waitpid";
        fail(r, PROP_SPAWN_SYS);
    } else if (WIFEXITED(status)) {
        r->code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        r->termsig = WTERMSIG(status);
        r->code = 128 + r->termsig;
    }
out:
    close_fd(&null);
    close_fd(&inp[0]);
    close_fd(&inp[1]);
    close_fd(&outp[0]);
    close_fd(&outp[1]);
    close_fd(&errp[0]);
    close_fd(&errp[1]);
    close_fd(&rep[0]);
    close_fd(&rep[1]);
    return r->why;
}
