/*
 * transport_ssh_chan.c - commands of the SSH transport on a channel of
 * their own (libssh's callbacks filling the buffers, stdin written as the
 * window allows), and the interruption of a running command.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "transport_ssh.h"

/* ---------------------------------------------------------------------
 * Running one command on a channel.
 */
static int
on_data(ssh_session session, ssh_channel channel, void *data, uint32_t len, int is_stderr,
        void *userdata)
{
    chan *c = userdata;

    (void)session;
    (void)channel;
    /* Past the limit, the rest is dropped: the caller gives up. */
    if (c->over || c->out.len + c->err.len + len > c->max) {
        c->over = 1;
        return (int)len;
    }
    if (prop_buf_add(is_stderr ? &c->err : &c->out, data, len) < 0)
        c->oom = 1;
    return (int)len;
}

static void
on_eof(ssh_session session, ssh_channel channel, void *userdata)
{
    (void)session;
    (void)channel;
    ((chan *)userdata)->eof = 1;
}

static void
on_close(ssh_session session, ssh_channel channel, void *userdata)
{
    (void)session;
    (void)channel;
    ((chan *)userdata)->closed = 1;
}

static void
on_exit_status(ssh_session session, ssh_channel channel, int status, void *userdata)
{
    chan *c = userdata;

    (void)session;
    (void)channel;
    c->have_status = 1;
    c->status = status;
}

/* RFC 4254 names whose numbers are the same on Linux and the BSDs. */
static int
signal_number(const char *name)
{
    static const struct {
        const char *name;
        int n;
    } sigs[] = {{"HUP", 1}, {"INT", 2},  {"QUIT", 3},  {"ILL", 4},   {"TRAP", 5},  {"ABRT", 6},
                {"FPE", 8}, {"KILL", 9}, {"SEGV", 11}, {"PIPE", 13}, {"ALRM", 14}, {"TERM", 15}};
    size_t i;

    for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        if (strcmp(name, sigs[i].name) == 0)
            return sigs[i].n;
    return 0;
}

static void
on_exit_signal(ssh_session session, ssh_channel channel, const char *signal, int core,
               const char *errmsg, const char *lang, void *userdata)
{
    chan *c = userdata;
    int n = signal ? signal_number(signal) : 0;

    (void)session;
    (void)channel;
    (void)core;
    (void)errmsg;
    (void)lang;
    c->have_status = 1;
    c->status = n ? 128 + n : 255; /* 255: a signal without a portable number */
}

/*
 * Free a channel.  ssh_disconnect() frees every channel of the session
 * itself, so once the session is disconnected only our buffers are left.
 */
void
prop_ssh_chan_free(ssh_tr *s, chan *c)
{
    if (c->ch && s->connected) {
        if (c->cb_set)
            ssh_remove_channel_callbacks(c->ch, &c->cb);
        ssh_channel_free(c->ch);
    }
    prop_buf_free(&c->out);
    prop_buf_free(&c->err);
    memset(c, 0, sizeof *c);
}

/* Make c's channel and have the callbacks fill c; 0 or the failure. */
static int
chan_make(ssh_tr *s, chan *c, const char *what)
{
    memset(c, 0, sizeof *c);
    c->max = prop_transport_max_output(&s->base);
    if (s->dead)
        return prop_ssh_fail_lost(s, what);
    if (prop_ssh_session_lost(s)) {
        prop_ssh_mark_dead(s, "the connection was closed");
        return prop_ssh_fail_lost(s, what);
    }
    c->ch = ssh_channel_new(s->session);
    if (!c->ch)
        return prop_ssh_fail_call(s, what, "cannot make a channel");
    return 0;
}

static int
chan_watch(ssh_tr *s, chan *c, const char *what)
{
    ssh_callbacks_init(&c->cb);
    c->cb.userdata = c;
    c->cb.channel_data_function = on_data;
    c->cb.channel_eof_function = on_eof;
    c->cb.channel_close_function = on_close;
    c->cb.channel_exit_status_function = on_exit_status;
    c->cb.channel_exit_signal_function = on_exit_signal;
    if (ssh_set_channel_callbacks(c->ch, &c->cb) != SSH_OK)
        return prop_ssh_fail_call(s, what, "cannot watch the channel");
    c->cb_set = 1;
    return 0;
}

/* Open a channel and start cmd on it. */
int
prop_ssh_chan_open(ssh_tr *s, chan *c, const char *cmd, const char *what)
{
    int rc;

    if ((rc = chan_make(s, c, what)) != 0)
        return rc;
    if (ssh_channel_open_session(c->ch) != SSH_OK)
        return prop_ssh_fail_call(s, what, "cannot open a channel");
    if ((rc = chan_watch(s, c, what)) != 0)
        return rc;
    if (ssh_channel_request_exec(c->ch, cmd) != SSH_OK)
        return prop_ssh_fail_call(s, what, "cannot start the command");
    return 0;
}

/*
 * Open channels a and b and start acmd on a, bcmd on b, in the round trips
 * of one: both opens are sent before either answer is waited for, then both
 * commands.  The result is a's, as prop_ssh_chan_open's; *b_up says whether
 * b was started (b is freed when it was not, and no failure of b's is kept:
 * its user starts it again and says why).
 */
int
prop_ssh_chan_open2(ssh_tr *s, chan *a, const char *acmd, const char *awhat, chan *b,
                    const char *bcmd, int *b_up)
{
    int rc, brc;

    *b_up = 0;
    if ((rc = chan_make(s, a, awhat)) != 0)
        return rc;
    if (chan_make(s, b, awhat) != 0) {
        prop_ssh_chan_free(s, b);
        prop_ssh_chan_free(s, a);
        return prop_ssh_chan_open(s, a, acmd, awhat);
    }
    /* Not blocking, a request is sent and left pending (SSH_AGAIN) unless
     * its answer came at once; called again, blocking, it waits for the
     * answer.  (A request already answered must not be made again: a
     * second exec would be a second command.) */
    ssh_set_blocking(s->session, 0);
    rc = ssh_channel_open_session(a->ch);
    brc = ssh_channel_open_session(b->ch);
    ssh_set_blocking(s->session, 1);
    if (rc == SSH_AGAIN)
        rc = ssh_channel_open_session(a->ch);
    if (rc != SSH_OK) {
        prop_ssh_chan_free(s, b);
        return prop_ssh_fail_call(s, awhat, "cannot open a channel");
    }
    if (brc == SSH_AGAIN)
        brc = ssh_channel_open_session(b->ch);
    if ((rc = chan_watch(s, a, awhat)) != 0) {
        prop_ssh_chan_free(s, b);
        return rc;
    }
    if (brc == SSH_OK && chan_watch(s, b, awhat) != 0)
        brc = SSH_ERROR;
    ssh_set_blocking(s->session, 0);
    rc = ssh_channel_request_exec(a->ch, acmd);
    if (brc == SSH_OK)
        brc = ssh_channel_request_exec(b->ch, bcmd);
    ssh_set_blocking(s->session, 1);
    if (rc == SSH_AGAIN)
        rc = ssh_channel_request_exec(a->ch, acmd);
    if (rc != SSH_OK) {
        prop_ssh_chan_free(s, b);
        return prop_ssh_fail_call(s, awhat, "cannot start the command");
    }
    if (brc == SSH_AGAIN)
        brc = ssh_channel_request_exec(b->ch, bcmd);
    if (brc == SSH_OK)
        *b_up = 1;
    else
        prop_ssh_chan_free(s, b);
    return 0;
}

/*
 * Write what the channel's window takes of in[*off..len), 64 KiB at most:
 * 1 when something was written, 0 when the window is closed (wait for the
 * peer), SSH_ERROR when the write failed.
 */
int
prop_ssh_chan_write_some(chan *c, const char *in, size_t len, size_t *off)
{
    uint32_t win = ssh_channel_window_size(c->ch);
    size_t n = len - *off;
    int rc;

    if (win == 0)
        return 0;
    if (n > win)
        n = win;
    if (n > 65536)
        n = 65536;
    rc = ssh_channel_write(c->ch, in + *off, (uint32_t)n);
    if (rc == SSH_ERROR)
        return SSH_ERROR;
    *off += (size_t)rc;
    return 1;
}

/*
 * Let libssh handle what arrives (callbacks fill the buffers) for up to
 * half a second (100 ms when the run may be interrupted); the failure when the deadline of an
 * operation of timeout_ms has passed (the session is then closed) or the connection is lost, else
 * 0.
 */
int
prop_ssh_wait_events(ssh_tr *s, long long deadline, long long timeout_ms, const char *what)
{
    long long left = deadline - prop_ssh_now_ms();
    int slice = s->base.intr ? 100 : 500;

    if (left <= 0) {
        char why[128];

        snprintf(why, sizeof why, "an operation timed out after %lld s", (timeout_ms + 999) / 1000);
        prop_ssh_mark_dead(s, why);
        return prop_transport_fail(&s->base,
                                   "%s: timed out after %lld s; the connection to %s@%s is closed",
                                   what, (timeout_ms + 999) / 1000, s->user, s->hostport);
    }
    /* In slices, so that an interruption is seen within 100 ms. */
    if (ssh_event_dopoll(s->event, left > slice ? slice : (int)left) == SSH_ERROR) {
        prop_ssh_mark_dead(s, prop_ssh_session_lost(s) ? ssh_get_error(s->session)
                                                       : "polling the socket failed");
        return prop_ssh_fail_lost(s, what);
    }
    return 0;
}

/* ---------------------------------------------------------------------
 * Interruption (prop_transport_set_interrupt()).  A command is started by
 * the run wrapper (RUN_WRAPPER, transport_ssh.h): a new sh(1) that prints "PIDMARK PID" as the
 * first line of its stdout and then execs the command, through setsid(1)
 * when the target has it (Linux), so that the command's pid is its process
 * group.  When the run is interrupted, a second channel runs kill(1) on
 * that group (or on the process alone, without setsid), with the signal
 * prop got, then SIGKILL after PROP_INTERRUPT_GRACE_MS or at a second
 * request.  The wrapper holds no single quote: it is also a function body
 * in single quotes.
 */
#define KILL_WAIT_MS 10000   /* for the kill command itself */
#define STOPPED_WAIT_MS 5000 /* for the answer after SIGKILL (2 s at a second request) */

static const char *
signal_name(int sig)
{
    switch (sig) {
    case SIGINT:
        return "INT";
    case SIGHUP:
        return "HUP";
    case SIGQUIT:
        return "QUIT";
    case SIGKILL:
        return "KILL";
    default:
        return "TERM";
    }
}

/* The pid the run wrapper printed in out (a line of its own), or 0. */
static long
wrapper_pid(const ssh_tr *s, const prop_buf *out, size_t *line_start, size_t *line_end)
{
    size_t n = strlen(s->pidmark), i;
    const char *p;
    long pid = 0;

    if (!out->p || !n)
        return 0;
    for (i = 0; i + n < out->len; i++) {
        if ((i && out->p[i - 1] != '\n') || memcmp(out->p + i, s->pidmark, n) != 0 ||
            out->p[i + n] != ' ')
            continue;
        for (p = out->p + i + n + 1; *p >= '0' && *p <= '9' && pid < 100000000; p++)
            pid = pid * 10 + (*p - '0');
        if (*p != '\n')
            return 0; /* not all there yet */
        if (line_start)
            *line_start = i;
        if (line_end)
            *line_end = (size_t)(p + 1 - out->p);
        return pid;
    }
    return 0;
}

/*
 * Send sig to the group of pid on the target; to pid alone when it has
 * none, unless group_only (pid may have ended, and be another's now).
 */
static void
remote_kill(ssh_tr *s, int sig, long pid, int group_only)
{
    char num[32];
    const char *argv[] = {"sh",
                          "-c",
                          group_only
                              ? "kill -s \"$1\" -- \"-$2\" 2>/dev/null"
                              : "kill -s \"$1\" -- \"-$2\" 2>/dev/null || kill -s \"$1\" -- \"$2\"",
                          "sh",
                          signal_name(sig),
                          num,
                          NULL};
    char *cmd;
    chan c;

    snprintf(num, sizeof num, "%ld", pid);
    if (s->dead || !(cmd = prop_ssh_build_command(s, argv)))
        return;
    if (prop_ssh_chan_open(s, &c, cmd, "interrupt") == 0)
        (void)prop_ssh_chan_pump(s, &c, NULL, 0, 1, NULL, KILL_WAIT_MS, "interrupt", NULL);
    prop_ssh_chan_free(s, &c);
    free(cmd);
}

/*
 * Called while an operation waits, out being its stdout so far: 0 to go
 * on waiting, -1 when the wait is to be given up (interrupted, and the
 * command did not end, or the operation is abandoned at a second request).
 */
int
prop_ssh_stop_check(ssh_tr *s, stopper *st, const prop_buf *out)
{
    int stops = prop_transport_stops(&s->base);
    long long now;
    long pid;

    if (!st || !stops)
        return 0;
    if (!st->command)
        return stops >= 2 ? -1 : 0;
    now = prop_ssh_now_ms();
    if (!st->seen_at)
        st->seen_at = now;
    pid = st->pid > 0 ? st->pid : (st->pid = wrapper_pid(s, out, NULL, NULL));
    if (pid > 0 && !st->sent) {
        remote_kill(s, prop_transport_stop_signal(&s->base), pid, 0);
        st->sent = 1;
    }
    if (!st->killed && (stops >= 2 || now - st->seen_at >= PROP_INTERRUPT_GRACE_MS)) {
        if (pid > 0)
            remote_kill(s, SIGKILL, pid, 0);
        st->sent = st->killed = 1;
        st->killed_at = prop_ssh_now_ms();
    }
    if (st->killed && prop_ssh_now_ms() - st->killed_at >= (stops >= 2 ? 2000 : STOPPED_WAIT_MS))
        return -1;
    return 0;
}

long
prop_ssh_cmd_pid(const ssh_tr *s, const prop_buf *out)
{
    return wrapper_pid(s, out, NULL, NULL);
}

const char *
prop_ssh_over_text(const ssh_tr *s, char buf[96])
{
    char size[32];

    snprintf(buf, 96, "output over %s (--max-output)",
             prop_transport_size_text(prop_transport_max_output(&s->base), size));
    return buf;
}

int
prop_ssh_over_cut(ssh_tr *s, long pid, const char *what)
{
    char why[96];

    if (pid > 0 && !s->dead)
        remote_kill(s, SIGKILL, pid, 0);
    return prop_transport_fail(&s->base, "%s: %s", what, prop_ssh_over_text(s, why));
}

/*
 * The command was stopped and has ended: what is left of its process
 * group (a child that ignores the signal) goes too.
 */
void
prop_ssh_stop_rest(ssh_tr *s, const stopper *st)
{
    if (st->sent && !st->killed && st->pid > 0 && !s->dead)
        remote_kill(s, SIGKILL, st->pid, 1);
}

/*
 * Feed in[0..inlen) to the command (then EOF when send_eof), and collect
 * its output until it ends, or until its stdout holds `until`.  Data on
 * stdout and stderr are taken as they come (callbacks), and stdin is only
 * written as far as the remote window allows, so neither side can block
 * the other.  stp, when not NULL, makes the wait interruptible.
 */
int
prop_ssh_chan_pump(ssh_tr *s, chan *c, const char *in, size_t inlen, int send_eof,
                   const char *until, long long timeout_ms, const char *what, stopper *stp)
{
    long long deadline = prop_ssh_now_ms() + timeout_ms;
    size_t off = 0;
    int eof_sent = !send_eof, rc;

    for (;;) {
        char why[96];

        if (c->oom)
            return prop_transport_fail(&s->base, "%s: out of memory", what);
        if (c->over)
            return prop_transport_fail(&s->base, "%s: %s", what, prop_ssh_over_text(s, why));
        if (until && c->out.p) {
            /* From where the last look ended, less what may be a part of it. */
            size_t ulen = strlen(until), from = c->until_scan > ulen ? c->until_scan - ulen : 0;

            if (from < c->out.len && strstr(c->out.p + from, until))
                return 0;
            c->until_scan = c->out.len;
        }
        if (c->closed || (c->eof && c->have_status))
            return 0;
        if (s->dead)
            return prop_ssh_fail_lost(s, what);
        if (prop_ssh_session_lost(s)) {
            prop_ssh_mark_dead(s, ssh_get_error(s->session));
            return prop_ssh_fail_lost(s, what);
        }
        if (prop_ssh_stop_check(s, stp, &c->out) != 0)
            return prop_transport_fail(&s->base, "%s: interrupted: %s", what,
                                       stp->command ? "the command did not end" : "abandoned");
        if (!eof_sent) {
            if (off < inlen) {
                rc = prop_ssh_chan_write_some(c, in, inlen, &off);
                if (rc == SSH_ERROR && !prop_ssh_session_lost(s))
                    eof_sent = 1; /* the command stopped reading */
                if (rc != 0)
                    continue;
            } else {
                if (ssh_channel_send_eof(c->ch) == SSH_ERROR && prop_ssh_session_lost(s))
                    continue;
                eof_sent = 1;
                continue;
            }
        }
        if ((rc = prop_ssh_wait_events(s, deadline, timeout_ms, what)) != 0)
            return rc;
    }
}

/* One word in POSIX single quotes: abc'd -> 'abc'\''d'. */
int
prop_ssh_buf_quote(prop_buf *b, const char *w)
{
    const char *q;

    if (prop_buf_add(b, "'", 1) < 0)
        return -1;
    while ((q = strchr(w, '\'')) != NULL) {
        if (prop_buf_add(b, w, (size_t)(q - w)) < 0 || prop_buf_add(b, "'\\''", 4) < 0)
            return -1;
        w = q + 1;
    }
    return prop_buf_adds(b, w) < 0 || prop_buf_add(b, "'", 1) < 0 ? -1 : 0;
}

/* "sudo -n -- 'a' 'b' ...", or NULL when out of memory. */
char *
prop_ssh_build_command(const ssh_tr *s, const char *const *argv)
{
    prop_buf b = PROP_BUF_INIT;
    size_t i;

    if (s->sudo && prop_buf_adds(&b, "sudo -n --") < 0)
        goto oom;
    for (i = 0; argv[i]; i++)
        if ((b.len && prop_buf_add(&b, " ", 1) < 0) || prop_ssh_buf_quote(&b, argv[i]) < 0)
            goto oom;
    return b.p;
oom:
    prop_buf_free(&b);
    return NULL;
}

/* Take the run wrapper's line out of a command's output. */
void
prop_ssh_drop_pid_line(const ssh_tr *s, prop_cmd_result *r)
{
    prop_buf b;
    size_t start, end;

    b.p = r->out;
    b.len = r->out_len;
    b.cap = r->out_len + 1;
    if (wrapper_pid(s, &b, &start, &end) <= 0)
        return;
    memmove(r->out + start, r->out + end, r->out_len + 1 - end);
    r->out_len -= end - start;
}

/*
 * Run argv on the target on a channel of its own; 0 when it ran (r
 * filled), else the failure.  command: argv is a command of the caller's,
 * started by the run wrapper and stopped when the run is interrupted
 * (else an operation of prop's, abandoned only at a second request).
 */
int
prop_ssh_exec_argv(ssh_tr *s, const char *const *argv, const char *in, size_t inlen,
                   prop_cmd_result *r, const char *what, int command)
{
    stopper st;
    chan c;
    char *cmd;
    int rc;

    memset(r, 0, sizeof *r);
    r->code = -1;
    /* Deferred operations sent on the shell come first. */
    if ((rc = prop_ssh_sh_gate(s, what)) != 0)
        return rc;
    memset(&st, 0, sizeof st);
    st.command = command;
    if (command) {
        const char **w;
        size_t n = 0, i;

        while (argv[n])
            n++;
        if (!(w = prop_calloc(n + 6, sizeof *w)))
            return prop_transport_fail(&s->base, "%s: out of memory", what);
        /* The wrapper in a child of the channel's shell: that shell leads
         * the session's process group, and setsid(1) forks (and does not
         * wait) when called by a group leader. */
        w[0] = "sh";
        w[1] = "-c";
        w[2] = "sh -c \"$0\" sh \"$@\"; exit $?";
        w[3] = RUN_WRAPPER;
        w[4] = s->pidmark;
        for (i = 0; i < n; i++)
            w[5 + i] = argv[i];
        w[5 + n] = NULL;
        cmd = prop_ssh_build_command(s, w);
        free(w);
    } else {
        cmd = prop_ssh_build_command(s, argv);
    }
    if (!cmd)
        return prop_transport_fail(&s->base, "%s: out of memory", what);
    rc = prop_ssh_chan_open(s, &c, cmd, what);
    free(cmd);
    if (rc == 0)
        rc = prop_ssh_chan_pump(s, &c, in, inlen, 1, NULL, (long long)s->op_timeout * 1000, what,
                                &st);
    if (rc != 0 && c.over) {
        /* Its channel closed first: what it still sends is not read. */
        long pid = command ? prop_ssh_cmd_pid(s, &c.out) : 0;

        prop_ssh_chan_free(s, &c);
        return prop_ssh_over_cut(s, pid, what);
    }
    prop_ssh_stop_rest(s, &st);
    if (rc == 0 && st.sent)
        rc = prop_transport_fail(&s->base,
                                 "%s: interrupted: the command was stopped (exit status %d)", what,
                                 c.have_status ? c.status : -1);
    if (rc == 0 && !c.have_status) {
        if (prop_ssh_session_lost(s)) {
            prop_ssh_mark_dead(s, ssh_get_error(s->session));
            rc = prop_ssh_fail_lost(s, what);
        } else {
            rc =
                prop_transport_fail(&s->base, "%s: the command ended without an exit status", what);
        }
    }
    if (rc == 0) {
        r->code = c.status;
        r->out = prop_buf_take(&c.out, &r->out_len);
        r->err = prop_buf_take(&c.err, &r->err_len);
        if (!r->out || !r->err) {
            prop_cmd_result_clear(r);
            rc = prop_transport_fail(&s->base, "%s: out of memory", what);
        } else if (command) {
            prop_ssh_drop_pid_line(s, r);
        }
    }
    prop_ssh_chan_free(s, &c);
    return rc;
}

/* ---------------------------------------------------------------------
 * A TCP exchange through the target (prop_transport_tcp): a direct-tcpip
 * channel, which the target's sshd connects to host:port.  A probe that
 * fails or times out closes its channel only; the session stays.
 */
int
prop_ssh_chan_tcp(ssh_tr *s, const prop_tcp_req *rq, char **out, size_t *out_len)
{
    long long deadline = prop_ssh_now_ms() + rq->timeout_ms;
    char what[320];
    size_t off = 0;
    chan c;
    int rc;

    snprintf(what, sizeof what, "connect to %s:%d", rq->host, rq->port);
    /* What was written before must be there before the service is asked. */
    if (s->nstg && (rc = prop_ssh_sh_commit(s, what)) != 0)
        return rc;
    if (s->npend && (rc = prop_ssh_sh_settle(s, what)) != 0)
        return rc;
    if ((rc = chan_make(s, &c, what)) != 0 || (rc = chan_watch(s, &c, what)) != 0) {
        prop_ssh_chan_free(s, &c);
        return rc;
    }
    c.max = rq->max;
    ssh_set_blocking(s->session, 0);
    while ((rc = ssh_channel_open_forward(c.ch, rq->host, rq->port, "127.0.0.1", 0)) == SSH_AGAIN &&
           prop_ssh_now_ms() < deadline && !prop_transport_stops(&s->base)) {
        if (ssh_event_dopoll(s->event, 100) == SSH_ERROR) {
            rc = SSH_ERROR;
            break;
        }
    }
    ssh_set_blocking(s->session, 1);
    if (rc != SSH_OK) {
        const char *e = ssh_get_error(s->session), *r = strstr(e, "error (");

        /* "Channel opening failure: channel 50 error (2) Connection
         * refused": the reason alone. */
        if (r && (r = strchr(r, ')')) != NULL && r[1] == ' ' && r[2])
            r += 2;

        if (rc == SSH_ERROR && (s->dead || prop_ssh_session_lost(s))) {
            rc = prop_ssh_fail_call(s, what, "cannot open a channel");
        } else if (rc == SSH_AGAIN) {
            rc = prop_transport_fail(&s->base, "%s: %s", what,
                                     prop_transport_stops(&s->base) ? "interrupted"
                                                                    : "timed out (no channel)");
        } else {
            /* RFC 4254 5.1: reason 1 is "administratively prohibited". */
            rc = prop_transport_fail(&s->base, "%s: %s", what,
                                     strstr(e, "error (1)")
                                         ? "the target's sshd does not allow TCP forwarding "
                                           "(AllowTcpForwarding)"
                                     : r ? r
                                         : e);
        }
        prop_ssh_chan_free(s, &c);
        return rc;
    }
    /* Opened: the target's sshd has connected. */
    for (rc = 0; rq->framing != PROP_TCP_CONNECT;) {
        if (c.oom) {
            rc = prop_transport_fail(&s->base, "%s: out of memory", what);
            break;
        }
        if (c.over) {
            rc = prop_transport_fail(&s->base, "%s: the answer is over %zu bytes", what, rq->max);
            break;
        }
        if (c.out.p && prop_tcp_whole(rq->framing, c.out.p, &c.out.len)) {
            rc = 0;
            break;
        }
        if (c.eof || c.closed) {
            rc = rq->framing == PROP_TCP_CLOSE
                     ? 0
                     : prop_transport_fail(&s->base,
                                           "%s: the connection closed before the answer was "
                                           "whole (%zu bytes came)",
                                           what, c.out.len);
            break;
        }
        if (prop_transport_stops(&s->base)) {
            rc = prop_transport_fail(&s->base, "%s: interrupted", what);
            break;
        }
        if (prop_ssh_now_ms() >= deadline) {
            rc = prop_transport_fail(&s->base, "%s: timed out after %d ms", what, rq->timeout_ms);
            break;
        }
        if (off < rq->send_len) {
            rc = prop_ssh_chan_write_some(&c, rq->send, rq->send_len, &off);
            if (rc == SSH_ERROR) {
                if (prop_ssh_session_lost(s)) {
                    rc = prop_ssh_fail_call(s, what, "cannot send");
                    break;
                }
                off = rq->send_len; /* the peer closed: read what it said */
            }
            if (rc == 1)
                continue;
        }
        if (ssh_event_dopoll(s->event, 100) == SSH_ERROR) {
            prop_ssh_mark_dead(s, prop_ssh_session_lost(s) ? ssh_get_error(s->session)
                                                           : "polling the socket failed");
            rc = prop_ssh_fail_lost(s, what);
            break;
        }
    }
    if (rc == 0 && !(*out = prop_buf_take(&c.out, out_len)))
        rc = prop_transport_fail(&s->base, "%s: out of memory", what);
    prop_ssh_chan_free(s, &c);
    return rc;
}
