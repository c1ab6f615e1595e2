/*
 * transport_local_run.c - commands of the local transport (a tree refuses
 * them, see transport_local.c).
 *
 * Commands: fork and execve, never a shell; the program is looked up in
 * PATH by the child.  A program that
 * cannot be run (not found, not executable) gives code -1 and PROP_ERROR
 * with "NAME: command not found" (or the reason) both as the transport's
 * error and in the result's err.
 */
#define _GNU_SOURCE /* syscall */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
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

#include "buf.h"
#include "transport_local_impl.h"

extern char **environ;

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* What the child sends back when it cannot exec. */
enum { STAGE_FDS = 1, STAGE_CHDIR, STAGE_EXEC, STAGE_INTERP };
typedef struct child_report {
    int stage;
    int err;
} child_report;

typedef struct child_args {
    char *const *argv;
    char *const *envp;
    const char *path; /* PATH's value */
    int in, out, err, report;
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

    /* A session, so a process group, of its own: an interruption signals
     * the group (see pump), and no terminal is there to read from. */
    (void)setsid();
#ifdef __linux__
    /* prop killed outright (kill -9, the OOM killer): the command dies with
     * it rather than going on unseen in its own session (a tar still
     * unpacking into a tree the next run removes and makes again).  If
     * prop is already gone, the command does not start. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != c->parent)
        _exit(127);
#endif
    (void)signal(SIGPIPE, SIG_DFL);
    (void)sigemptyset(&none);
    (void)sigprocmask(SIG_SETMASK, &none, NULL);
    if (dup2(c->in, 0) < 0 || dup2(c->out, 1) < 0 || dup2(c->err, 2) < 0) {
        rep.stage = STAGE_FDS;
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
    if (chdir("/") != 0) {
        rep.stage = STAGE_CHDIR;
        goto report;
    }
    rep.stage = STAGE_EXEC;
    if (strchr(prog, '/')) {
        execve(prog, c->argv, c->envp);
        /* There, but its interpreter (#!) is not. */
        if (errno == ENOENT && stat(prog, &st) == 0)
            rep.stage = STAGE_INTERP;
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
        rep.stage = STAGE_INTERP;
    errno = saw_eacces ? EACCES : last;
report:
    rep.err = errno;
    while (write(rfd, &rep, sizeof rep) < 0 && errno == EINTR)
        ;
    _exit(127);
}

/* The child's environment: ours, with LC_ALL=C and a PATH. */
static char **
child_env(const char **path)
{
    static char lc_all[] = "LC_ALL=C";
    static char def_path[] = "PATH=" DEFAULT_PATH;
    size_t n = 0, k = 0, i;
    char **env;

    *path = NULL;
    while (environ && environ[n])
        n++;
    env = calloc(n + 3, sizeof *env);
    if (!env)
        return NULL;
    for (i = 0; i < n; i++) {
        if (strncmp(environ[i], "LC_ALL=", 7) == 0)
            continue;
        if (strncmp(environ[i], "PATH=", 5) == 0) {
            if (!environ[i][5] || *path)
                continue;
            *path = environ[i] + 5;
        }
        env[k++] = environ[i];
    }
    env[k++] = lc_all;
    if (!*path) {
        env[k++] = def_path;
        *path = def_path + 5;
    }
    env[k] = NULL;
    return env;
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
                return e;
            }
            (void)close(p[i]);
            p[i] = fd;
        } else if (fcntl(p[i], F_SETFD, FD_CLOEXEC) != 0) {
            int e = errno;
            (void)close(p[0]);
            (void)close(p[1]);
            return e;
        }
    }
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

/*
 * A tree is files only: a command run in it through chroot would share
 * this machine's kernel, network and processes (a service restarted there
 * is restarted here, a firewall loaded there is this machine's).  Commands
 * inside a tree run through a container (chroot.debootstrapped,
 * systemd.container), whose shell is made for it.
 */
static int
tree_refuses_commands(local_transport *lt, const char *prog)
{
    return prop_transport_fail(&lt->base,
                               "run %s: %s is files only: commands do not run in a directory "
                               "tree (it would share this machine's kernel, network and "
                               "processes); make it a container (chroot.debootstrapped, "
                               "systemd.container) to run commands inside it",
                               prog, lt->base.name);
}

static long long
mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Signal the command's process group (the process alone before its setsid). */
static void
signal_group(pid_t pid, int sig)
{
    if (kill(-pid, sig) != 0)
        (void)kill(pid, sig);
}

/*
 * An interruption while the command runs (see prop_transport_set_interrupt):
 * the signal, then SIGKILL after the grace period or at a second request.
 * 1 once SIGKILL was sent: the caller stops waiting for the pipes (a
 * process outside the group may hold them).
 */
static int
interrupt_child(local_transport *lt, pid_t pid, int *sent, long long *sent_at)
{
    int stops = prop_transport_stops(&lt->base);

    if (!stops)
        return 0;
    if (!*sent) {
        signal_group(pid, prop_transport_stop_signal(&lt->base));
        *sent = 1;
        *sent_at = mono_ms();
    }
    if (stops >= 2 || mono_ms() - *sent_at >= PROP_INTERRUPT_GRACE_MS) {
        signal_group(pid, SIGKILL);
        return 1;
    }
    return 0;
}

/* The command went past a limit (set_limits): its group is killed, its
 * pipes closed, and the run fails with why. */
static int
cut_off(local_transport *lt, pid_t pid, int *in, int *out, int *err, const char *prog,
        const char *why)
{
    signal_group(pid, SIGKILL);
    close_fd(in);
    close_fd(out);
    close_fd(err);
    return prop_transport_fail(&lt->base, "run %s: %s", prog, why);
}

/*
 * Wait for the command once its pipes are closed, still within its time
 * limit (started at start) and honouring an interruption: a command may
 * close its output and go on running.  0 with *status, or an errno;
 * *rc becomes the failure when the time ran out.
 */
static int
wait_child_bounded(local_transport *lt, pid_t pid, int *status, long long start, int *stopped,
                   const char *prog, int *rc)
{
    const struct timespec tick = {0, 20 * 1000 * 1000};
    long long sent_at = 0, limit = (long long)lt->base.timeout_s * 1000;
    int killed = 0;
    pid_t w;

    if (!lt->base.intr && limit <= 0)
        return wait_child(pid, status);
    for (;;) {
        w = waitpid(pid, status, killed ? 0 : WNOHANG);
        if (w == pid)
            return 0;
        if (w < 0 && errno != EINTR)
            return errno;
        if (w < 0 || killed)
            continue;
        if (limit > 0 && !*stopped && mono_ms() - start >= limit) {
            signal_group(pid, SIGKILL);
            killed = 1;
            if (*rc == PROP_OK)
                *rc = prop_transport_fail(&lt->base, "run %s: timed out after %d s (--timeout)",
                                          prog, lt->base.timeout_s);
            continue;
        }
        if (interrupt_child(lt, pid, stopped, &sent_at)) {
            killed = 1;
            continue;
        }
        (void)nanosleep(&tick, NULL);
    }
}

/*
 * Feed stdin and collect stdout and stderr until both are closed.  With
 * an interruption flag or a time limit, polls at least every 100 ms;
 * *stopped tells that the command was signalled.  Output past the limit
 * of set_limits, or a command running past its time, kills the command
 * and fails.
 */
static int
pump(local_transport *lt, pid_t pid, const char *prog, int *in, const char *data, size_t len,
     int *out, int *err, prop_buf *ob, prop_buf *eb, int *epipe, int *stopped)
{
    char buf[65536], why[96], size[32];
    struct pollfd pf[3];
    size_t off = 0, max = prop_transport_max_output(&lt->base);
    long long sent_at = 0, start = mono_ms(), limit = (long long)lt->base.timeout_s * 1000;
    int n, i, rc = PROP_OK, oom = 0;

    *epipe = 0;
    *stopped = 0;
    if (*in >= 0 && (fcntl(*in, F_SETFL, O_NONBLOCK) != 0 || !data || len == 0))
        close_fd(in);
    while (*in >= 0 || *out >= 0 || *err >= 0) {
        int *fds[3] = {in, out, err};

        if (limit > 0 && !*stopped && mono_ms() - start >= limit) {
            snprintf(why, sizeof why, "timed out after %d s (--timeout)", lt->base.timeout_s);
            rc = cut_off(lt, pid, in, out, err, prog, why);
            break;
        }
        if (interrupt_child(lt, pid, stopped, &sent_at)) {
            close_fd(in);
            close_fd(out);
            close_fd(err);
            break;
        }
        if (*stopped) {
            siginfo_t si;

            /* Signalled and ended (still to be reaped, so its pid is
             * still its group's): what is left of the group, which may
             * hold the pipes, goes at once. */
            si.si_pid = 0;
            if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
                si.si_pid == pid) {
                (void)kill(-pid, SIGKILL);
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
        n = poll(pf, 3, lt->base.intr || limit > 0 ? 100 : -1);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            rc = prop_transport_fail(&lt->base, "run: poll: %s", strerror(errno));
            signal_group(pid, SIGKILL);
            close_fd(in);
            close_fd(out);
            close_fd(err);
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
            ssize_t r;

            if (*fd < 0 || !pf[i].revents)
                continue;
            r = read(*fd, buf, sizeof buf);
            if (r > 0 && ob->len + eb->len + (size_t)r > max) {
                snprintf(why, sizeof why, "output over %s (--max-output)",
                         prop_transport_size_text(max, size));
                rc = cut_off(lt, pid, in, out, err, prog, why);
                break;
            }
            if (r > 0) {
                if (!oom && prop_buf_add(i == 1 ? ob : eb, buf, (size_t)r) != 0) {
                    oom = 1;
                    signal_group(pid, SIGKILL);
                }
            } else if (r == 0 || (errno != EINTR && errno != EAGAIN))
                close_fd(fd);
        }
        if (rc != PROP_OK)
            break;
    }
    if (oom && rc == PROP_OK) {
        prop_transport_fail(&lt->base, "run: out of memory for the output of the command");
        rc = PROP_ENOMEM;
    }
    return rc;
}

int
prop_local_lt_run(prop_transport *t, const char *const *argv, const char *stdin_data,
                  size_t stdin_len, prop_cmd_result *r)
{
    local_transport *lt = lt_of(t);
    int inp[2] = {-1, -1}, outp[2] = {-1, -1}, errp[2] = {-1, -1}, rep[2] = {-1, -1};
    prop_buf ob = PROP_BUF_INIT, eb = PROP_BUF_INIT;
    sigset_t pipeset, oldmask, pending;
    child_report cr;
    child_args ca;
    char **envp;
    const char *path;
    ssize_t got;
    pid_t pid;
    int rc = PROP_OK, e, status = 0, was_pending = 0, epipe = 0, stopped = 0;
    long long start = mono_ms();

    prop_local_forget_names(lt);
    r->code = -1;
    if (lt->broken)
        return PROP_ERROR;
    if (prop_transport_stops(t))
        return prop_transport_fail(t, "run %s: interrupted: not started", argv[0]);
    if (lt->root)
        return tree_refuses_commands(lt, argv[0]);
    /* What was written lasts before a command can depend on it. */
    if (lt->ndirty && prop_local_sync_dirty(lt) != PROP_OK) {
        char why[sizeof t->err];

        memcpy(why, t->err, sizeof why);
        return prop_transport_fail(t, "run %s: not started: %s", argv[0], why);
    }
    if (!(envp = child_env(&path)))
        return prop_transport_fail(t, "run %s: out of memory", argv[0]);
    if ((e = make_pipe(inp)) != 0 || (e = make_pipe(outp)) != 0 || (e = make_pipe(errp)) != 0 ||
        (e = make_pipe(rep)) != 0) {
        rc = prop_transport_fail(t, "run %s: pipe: %s", argv[0], strerror(e));
        goto out;
    }
    ca.argv = (char *const *)argv; /* execve does not change them */
    ca.envp = envp;
    ca.path = path;
    ca.in = inp[0];
    ca.out = outp[1];
    ca.err = errp[1];
    ca.report = rep[1];
    ca.maxfd = sysconf(_SC_OPEN_MAX);
    ca.parent = getpid();
    if (ca.maxfd < 0 || ca.maxfd > 65536)
        ca.maxfd = 65536;

    pid = fork();
    if (pid < 0) {
        rc = prop_transport_fail(t, "run %s: fork: %s", argv[0], strerror(errno));
        goto out;
    }
    if (pid == 0)
        child_exec(&ca);
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
        (void)wait_child(pid, &status);
        if (cr.stage == STAGE_EXEC && cr.err == ENOENT)
            prop_transport_fail(t, "%s: command not found", argv[0]);
        else if (cr.stage == STAGE_EXEC && cr.err == EACCES)
            prop_transport_fail(t, "%s: permission denied", argv[0]);
        else if (cr.stage == STAGE_EXEC)
            prop_transport_fail(t, "%s: cannot run: %s", argv[0], strerror(cr.err));
        else if (cr.stage == STAGE_INTERP)
            prop_transport_fail(t, "%s: cannot run: its interpreter (#!) was not found", argv[0]);
        else
            prop_transport_fail(t, "%s: cannot run: %s: %s", argv[0],
                                cr.stage == STAGE_CHDIR ? "chdir" : "dup2", strerror(cr.err));
        rc = PROP_ERROR;
        r->err = malloc(strlen(t->err) + 2);
        if (r->err) {
            r->err_len = strlen(t->err) + 1;
            memcpy(r->err, t->err, r->err_len - 1);
            memcpy(r->err + r->err_len - 1, "\n", 2);
        }
        goto out;
    }

    /* Writing to a child that stopped reading must not kill us with SIGPIPE. */
    (void)sigemptyset(&pipeset);
    (void)sigaddset(&pipeset, SIGPIPE);
    if (pthread_sigmask(SIG_BLOCK, &pipeset, &oldmask) == 0) {
        if (sigpending(&pending) == 0)
            was_pending = sigismember(&pending, SIGPIPE) == 1;
        start = mono_ms();
        rc = pump(lt, pid, argv[0], &inp[1], stdin_data, stdin_len, &outp[0], &errp[0], &ob, &eb,
                  &epipe, &stopped);
        if (epipe && !was_pending) {
            struct timespec zero = {0, 0};
            while (sigtimedwait(&pipeset, NULL, &zero) < 0 && errno == EINTR)
                ;
        }
        (void)pthread_sigmask(SIG_SETMASK, &oldmask, NULL);
    } else {
        rc = prop_transport_fail(t, "run %s: sigmask: %s", argv[0], strerror(errno));
        signal_group(pid, SIGKILL);
    }
    e = wait_child_bounded(lt, pid, &status, start, &stopped, argv[0], &rc);
    /* Interrupted: what is left of its process group goes too (the group
     * alone: pid itself may already be another process's). */
    if (stopped)
        (void)kill(-pid, SIGKILL);
    if (e != 0) {
        if (rc == PROP_OK)
            rc = prop_transport_fail(t, "run %s: waitpid: %s", argv[0], strerror(e));
    } else if (WIFEXITED(status))
        r->code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        r->code = 128 + WTERMSIG(status);
    if (stopped && rc == PROP_OK)
        rc = prop_transport_fail(t, "run %s: interrupted: the command was stopped (exit status %d)",
                                 argv[0], r->code);
    if (rc != PROP_OK) {
        r->code = -1;
        goto out;
    }
    r->out = prop_buf_take(&ob, &r->out_len);
    r->err = prop_buf_take(&eb, &r->err_len);
    if (!r->out || !r->err) {
        prop_cmd_result_clear(r);
        prop_transport_fail(t, "run %s: out of memory", argv[0]);
        rc = PROP_ENOMEM;
    }
out:
    prop_buf_free(&ob);
    prop_buf_free(&eb);
    close_fd(&inp[0]);
    close_fd(&inp[1]);
    close_fd(&outp[0]);
    close_fd(&outp[1]);
    close_fd(&errp[0]);
    close_fd(&errp[1]);
    close_fd(&rep[0]);
    close_fd(&rep[1]);
    free(envp);
    return rc;
}
