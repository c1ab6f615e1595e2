/*
 * transport_ssh_shell.c - the remote shell of the SSH transport: one sh(1)
 * per session, the file operations defined in it as functions, each
 * operation one line sent and one answer read back; and the caller's
 * commands run through it.
 */
#define _DEFAULT_SOURCE /* getentropy */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "transport_ssh.h"

/* ---------------------------------------------------------------------
 * The remote shell.  Starting a command on a channel of its own costs the
 * target a new session: sshd forks, and the user's login shell starts and
 * reads its startup files, for every operation.  So one sh(1) is started
 * per session, on a channel kept open, with the file operations defined in
 * it as functions; each operation is then one line sent to it and one
 * answer read back: a single round trip and no new process beyond the
 * subshell and the utilities the operation runs.
 *
 * Each line runs its command in a subshell, stdin from /dev/null (or from
 * the data, below), and ends with
 *     printf '\n%s %d\n' MARK "$?"; printf '\n%s\n' MARK >&2
 * MARK being "prop-" and 32 random hex digits chosen for the session:
 * stdout up to "\nMARK " is the command's output, the number after it
 * its exit status, and stderr up to "\nMARK\n" its error output.  Data
 * for the command's stdin travels in the line itself, as the format of
 * the shell's printf builtin piped into it: printable ASCII as itself,
 * every other byte as an octal escape, so that the shell only ever parses
 * ASCII and no byte of the data can end the quoting or the line (a shell
 * reading its commands from a pipe may read ahead of the command it runs,
 * so data after the line could be taken for commands).  Data larger than
 * SH_MAX_INLINE (transport_ssh.h) goes the old way: a channel of its own,
 * as stdin.
 *
 * A shell that cannot start (sudo asks for a password, say) fails the
 * operation with its error output; a shell that ends is started again by
 * the next operation.
 */
/* Data as a single-quoted printf(1) format that prints exactly data. */
int
prop_ssh_buf_printf_format(prop_buf *b, const char *data, size_t len)
{
    static const char digits[] = "01234567";
    char esc[4] = {'\\', 0, 0, 0};
    size_t i, run = 0;

    if (prop_buf_add(b, "'", 1) < 0)
        return -1;
    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)data[i];

        if (((c >= 0x20 && c < 0x7f && c != '\\' && c != '%' && c != '\'') || c == '\n') &&
            (i > 0 || c != '-')) { /* a leading '-' would be an option */
            run++;
            continue;
        }
        if (run && prop_buf_add(b, data + i - run, run) < 0)
            return -1;
        run = 0;
        esc[1] = digits[(c >> 6) & 7];
        esc[2] = digits[(c >> 3) & 7];
        esc[3] = digits[c & 7];
        if (prop_buf_add(b, esc, 4) < 0)
            return -1;
    }
    if (run && prop_buf_add(b, data + len - run, run) < 0)
        return -1;
    return prop_buf_add(b, "'", 1);
}

/*
 * The line that runs words[0..] (quoted) in a subshell, its stdin the
 * data or /dev/null.  prefix, when not NULL, goes before the words
 * unquoted (a function name); fmt, when not NULL, after them, as the
 * printf format of fmt[0..fmtlen).
 */
char *
prop_ssh_sh_line(const char *prefix, const char *const *words, const char *fmt, size_t fmtlen,
                 const char *in, size_t inlen, size_t *len)
{
    prop_buf b = PROP_BUF_INIT;
    size_t i;

    if (in && (prop_buf_adds(&b, "printf ") < 0 || prop_ssh_buf_printf_format(&b, in, inlen) < 0 ||
               prop_buf_adds(&b, " | ") < 0))
        goto oom;
    if (prop_buf_adds(&b, "(") < 0 || (prefix && prop_buf_adds(&b, prefix) < 0))
        goto oom;
    for (i = 0; words[i]; i++)
        if (prop_buf_add(&b, " ", 1) < 0 || prop_ssh_buf_quote(&b, words[i]) < 0)
            goto oom;
    if (fmt && (prop_buf_add(&b, " ", 1) < 0 || prop_ssh_buf_printf_format(&b, fmt, fmtlen) < 0))
        goto oom;
    if (prop_buf_adds(&b, in ? " )" : " ) </dev/null") < 0)
        goto oom;
    return prop_buf_take(&b, len);
oom:
    prop_buf_free(&b);
    return NULL;
}

int
prop_ssh_sshtr_run(prop_transport *t, const char *const *argv, const char *stdin_data,
                   size_t stdin_len, prop_cmd_result *r)
{
    ssh_tr *s = (ssh_tr *)t;
    char what[300], *line;
    size_t len;
    int rc;

    snprintf(what, sizeof what, "run %s", argv[0]);
    if (prop_transport_stops(t))
        return prop_transport_fail(t, "%s: interrupted: not started", what);
    /* What was written lasts a crash before a command sees it. */
    if ((rc = prop_ssh_sh_sync_dirs(s, what)) != 0)
        return rc;
    if (stdin_data && stdin_len > SH_MAX_INLINE)
        return prop_ssh_exec_argv(s, argv, stdin_data, stdin_len, r, what, 1);
    line =
        prop_ssh_sh_line("prop_run", argv, NULL, 0, stdin_data, stdin_data ? stdin_len : 0, &len);
    if (!line)
        return prop_transport_fail(t, "%s: out of memory", what);
    rc = prop_ssh_sh_call(s, line, len, r, what, 1);
    free(line);
    if (rc == 0)
        prop_ssh_drop_pid_line(s, r);
    return rc;
}

/* A command of the caller's, through the run wrapper (its own pid for sh -c's $$). */
static const char prop_run_script[] = "exec sh -c '" RUN_WRAPPER "' sh \"$prop_pidmark\" \"$@\"\n";

/* Every script, as the functions of the remote shell. */
static const struct {
    const char *name, *body;
} sh_functions[] = {
    {"prop_read", prop_sh_read},       {"prop_stat", prop_sh_stat},
    {"prop_write", prop_sh_write},     {"prop_remove", prop_sh_remove},
    {"prop_mkdir", prop_sh_mkdir},     {"prop_chattr", prop_sh_chattr},
    {"prop_symlink", prop_sh_symlink}, {"prop_pf", prop_sh_prefetch},
    {"prop_run", prop_run_script},     {"prop_stw", prop_ssh_stw_script},
    {"prop_sst", prop_ssh_sst_script}, {"prop_mvg", prop_ssh_mvg_script},
    {"prop_why", prop_ssh_why_script}, {"prop_stgc", prop_ssh_stgc_script},
};

/* ---------------------------------------------------------------------
 * The remote shell's own workings (see "The remote shell" above).
 */

/*
 * 1 when the next answer is complete: r gets the status, stdout and stderr
 * (r->out or r->err NULL when out of memory); what follows its marks stays
 * for the next answer (prop_sh_answer, transport_sh.c).
 */
static int
sh_answer(ssh_tr *s, prop_cmd_result *r)
{
    return prop_sh_answer(&s->sh.out, &s->out_scan, &s->sh.err, &s->err_scan, s->mark, r);
}

/* The shell is gone or unusable: the next operation starts another. */
void
prop_ssh_sh_down(ssh_tr *s)
{
    if (s->nstg) {
        /* Their shell, which knew them as staged, is gone. */
        sh_stage *st = s->stg;
        size_t n = s->nstg;

        s->stg = NULL;
        s->nstg = s->stg_cap = s->stg_bytes = 0;
        prop_ssh_stg_fail(s, st, n, "not put in place: the remote shell ended");
    }
    prop_ssh_chan_free(s, &s->sh);
    s->sh_up = s->sh_fresh = 0;
    s->out_scan = s->err_scan = 0;
}

/*
 * What came from the shell grew past the limit (prop_transport_set_limits):
 * its answers can no longer be told apart.  While a command of the
 * caller's runs, that command's output did: the shell is dropped (the next
 * operation starts another) and the command killed.  Else the target's
 * answer to an operation of prop's did: the connection is closed.
 */
static int
sh_over(ssh_tr *s, const char *what)
{
    char why[96], dead[160];
    long pid;

    if (s->sh_cmd) {
        pid = prop_ssh_cmd_pid(s, &s->sh.out);
        prop_ssh_sh_down(s);
        return prop_ssh_over_cut(s, pid, what);
    }
    snprintf(dead, sizeof dead, "an answer of the target was %s", prop_ssh_over_text(s, why));
    prop_ssh_sh_down(s);
    prop_ssh_mark_dead(s, dead);
    return prop_transport_fail(&s->base, "%s: %s; the connection to %s@%s is closed", what,
                               prop_ssh_over_text(s, why), s->user, s->hostport);
}

/*
 * Send in[0..len) to the shell and, when answer, wait for the next answer.
 * command: the line runs a command of the caller's through the run wrapper,
 * which is stopped when the run is interrupted (other lines are only
 * abandoned at a second request).
 */
static int
sh_io(ssh_tr *s, const char *in, size_t len, prop_cmd_result *r, const char *what, int command,
      int answer)
{
    chan *c = &s->sh;
    long long timeout = (long long)s->op_timeout * 1000, deadline = prop_ssh_now_ms() + timeout;
    size_t off = 0;
    stopper st;
    int rc;

    memset(r, 0, sizeof *r);
    memset(&st, 0, sizeof st);
    st.command = command;
    r->code = -1;
    c->max = prop_transport_max_output(&s->base);
    for (;;) {
        if (c->oom) {
            prop_ssh_sh_down(s);
            return prop_transport_fail(&s->base, "%s: out of memory", what);
        }
        if (c->over)
            return sh_over(s, what);
        if (off == len && !answer)
            return 0;
        if (off == len && sh_answer(s, r)) {
            if (!r->out || !r->err) {
                prop_cmd_result_clear(r);
                prop_ssh_sh_down(s);
                return prop_transport_fail(&s->base, "%s: out of memory", what);
            }
            if (st.sent) {
                prop_ssh_stop_rest(s, &st);
                rc = r->code;
                prop_cmd_result_clear(r);
                return prop_transport_fail(
                    &s->base, "%s: interrupted: the command was stopped (exit status %d)", what,
                    rc);
            }
            return 0;
        }
        if (prop_ssh_stop_check(s, &st, &c->out) != 0) {
            /* The shell is busy with what did not end: drop it. */
            prop_ssh_sh_down(s);
            return prop_transport_fail(&s->base, "%s: interrupted: %s", what,
                                       command ? "the command did not end" : "abandoned");
        }
        if (s->dead)
            return prop_ssh_fail_lost(s, what);
        if (prop_ssh_session_lost(s)) {
            prop_ssh_mark_dead(s, ssh_get_error(s->session));
            return prop_ssh_fail_lost(s, what);
        }
        if (c->closed || c->eof) {
            prop_cmd_result f;

            memset(&f, 0, sizeof f);
            f.code = c->have_status ? c->status : -1;
            f.err = c->err.p ? c->err.p : (char *)"";
            f.err_len = c->err.len;
            rc = f.err_len
                     ? prop_sh_fail(&s->base, &f, what)
                     : prop_transport_fail(&s->base, "%s: the shell on the target ended", what);
            prop_ssh_sh_down(s);
            return rc;
        }
        if (off < len) {
            rc = prop_ssh_chan_write_some(c, in, len, &off);
            if (rc == SSH_ERROR && !prop_ssh_session_lost(s)) {
                prop_ssh_sh_down(s);
                return prop_ssh_fail_call(s, what, "cannot write to the shell");
            }
            if (rc != 0)
                continue;
        }
        if ((rc = prop_ssh_wait_events(s, deadline, timeout, what)) != 0)
            return rc;
    }
}

/* Send in[0..len) to the shell and wait for the next answer (see sh_io). */
static int
sh_exchange(ssh_tr *s, const char *in, size_t len, prop_cmd_result *r, const char *what,
            int command)
{
    return sh_io(s, in, len, r, what, command, 1);
}

/*
 * cmd and the marks that end its answer, as one line.  With deferred
 * operations on (s->defer), the line runs only when no deferred operation
 * of the current batch has failed (prop_fb names the batch that did; a
 * line skipped answers SH_SKIPPED), and a deferred line that fails sets
 * prop_fb.
 */
#define SH_SKIPPED 125
static int
buf_add_call(prop_buf *b, const ssh_tr *s, const char *cmd, size_t len, int deferred,
             unsigned long staged)
{
    char batch[64], idx[64];

    if (s->defer) {
        snprintf(batch, sizeof batch, "%lu", s->batch);
        snprintf(idx, sizeof idx, "%lu", staged);
        if (prop_buf_adds(b, "if [ \"$prop_fb\" = ") < 0 || prop_buf_adds(b, batch) < 0 ||
            prop_buf_adds(b, " ]; then prop_s=125; else ") < 0 || prop_buf_add(b, cmd, len) < 0 ||
            prop_buf_adds(b, "; prop_s=$?") < 0 ||
            (staged &&
             (prop_buf_adds(b, "; if [ $prop_s = 4 ]; then prop_s=0; prop_sg=\"${prop_sg}") < 0 ||
              prop_buf_adds(b, idx) < 0 || prop_buf_adds(b, " \"; fi") < 0)) ||
            (deferred && (prop_buf_adds(b, "; [ $prop_s = 0 ] || prop_fb=") < 0 ||
                          prop_buf_adds(b, batch) < 0)) ||
            prop_buf_adds(b, "; fi; printf '\\n%s %d\\n' ") < 0 || prop_buf_adds(b, s->mark) < 0 ||
            prop_buf_adds(b, " \"$prop_s\"; printf '\\n%s\\n' ") < 0 ||
            prop_buf_adds(b, s->mark) < 0 || prop_buf_adds(b, " >&2\n") < 0)
            return -1;
        return 0;
    }
    return prop_buf_add(b, cmd, len) < 0 || prop_buf_adds(b, "; printf '\\n%s %d\\n' ") < 0 ||
                   prop_buf_adds(b, s->mark) < 0 ||
                   prop_buf_adds(b, " \"$?\"; printf '\\n%s\\n' ") < 0 ||
                   prop_buf_adds(b, s->mark) < 0 || prop_buf_adds(b, " >&2\n") < 0
               ? -1
               : 0;
}

static int pend_push(ssh_tr *s, unsigned long batch, const char *what);

/* A new mark for the shell, and the command that starts it; -1 when not to be had. */
static int
sh_prepare(ssh_tr *s, char **cmd)
{
    const char *argv[] = {"sh", NULL};
    unsigned char rnd[16];
    size_t i;

    errno = 0;
    if (getentropy(rnd, sizeof rnd) != 0)
        return -1;
    memcpy(s->mark, "prop-", 5);
    for (i = 0; i < sizeof rnd; i++)
        snprintf(s->mark + 5 + 2 * i, 3, "%02x", rnd[i]);
    snprintf(s->pidmark, sizeof s->pidmark, "%s-pid", s->mark);
    return (*cmd = prop_ssh_build_command(s, argv)) ? 0 : -1;
}

/*
 * Open channel c and start cmd on it (prop_ssh_chan_open), and the shell
 * with it when it is not up, in the same round trips: the run lock's
 * channel and the shell's are opened together.  The shell's functions are
 * sent by its first operation (sh_start); a shell that did not start is
 * started again there, and says why.
 */
int
prop_ssh_sh_open_beside(ssh_tr *s, chan *c, const char *cmd, const char *what)
{
    char *shcmd;
    int rc, up;

    if (s->sh_up || sh_prepare(s, &shcmd) != 0)
        return prop_ssh_chan_open(s, c, cmd, what);
    rc = prop_ssh_chan_open2(s, c, cmd, what, &s->sh, shcmd, &up);
    free(shcmd);
    s->sh_up = s->sh_fresh = up;
    return rc;
}

/*
 * Start sh on a channel of its own, unless prop_ssh_sh_open_beside() did,
 * and define the functions.  Its answer is not waited for: it comes before
 * the answer of the first operation, sent right after (one round trip for
 * both); a shell that cannot start fails that operation with its error
 * output.
 */
static int
sh_start(ssh_tr *s, const char *what)
{
    unsigned long batch = s->batch;
    prop_cmd_result r;
    prop_buf b = PROP_BUF_INIT;
    char *cmd;
    size_t i;
    int rc;

    if (!s->sh_fresh) {
        if (sh_prepare(s, &cmd) != 0)
            return prop_transport_fail(&s->base, "%s: cannot make the shell's command: %s", what,
                                       errno ? strerror(errno) : "out of memory");
        rc = prop_ssh_chan_open(s, &s->sh, cmd, what);
        free(cmd);
        if (rc) {
            prop_ssh_sh_down(s);
            return rc;
        }
    }
    s->sh_fresh = 0;
    s->sh_up = 1;
    if (prop_buf_adds(&b, "prop_os=$(uname -s)\nprop_uid=$(id -u)\nprop_um=$(umask)\n") < 0 ||
        prop_buf_adds(&b, "prop_sg=' ' prop_nl='\n'\n") < 0 ||
        prop_buf_adds(&b, "prop_pidmark=") < 0 || prop_buf_adds(&b, s->pidmark) < 0 ||
        prop_buf_adds(&b, "\n") < 0)
        goto oom;
    for (i = 0; i < sizeof sh_functions / sizeof sh_functions[0]; i++)
        if (prop_buf_adds(&b, sh_functions[i].name) < 0 || prop_buf_adds(&b, "() {\n") < 0 ||
            prop_buf_adds(&b, sh_functions[i].body) < 0 || prop_buf_adds(&b, "}\n") < 0)
            goto oom;
    /* The staging directories of a run cut off (transport_ssh_pipeline.c). */
    if (prop_buf_adds(&b, "prop_stgc </dev/null\n") < 0)
        goto oom;
    s->batch = 0; /* of no batch */
    rc = buf_add_call(&b, s, ":", 1, 0, 0);
    s->batch = batch;
    if (rc < 0 || pend_push(s, 0, what) < 0)
        goto oom;
    rc = sh_io(s, b.p, b.len, &r, what, 0, 0);
    prop_buf_free(&b);
    if (rc) {
        s->npend--; /* never sent whole: no answer will come */
        free(s->pend[s->pend_off + s->npend].what);
        if (s->npend == 0)
            s->pend_off = 0;
        return rc;
    }
    /* Whatever the login shell's startup files printed comes before its
     * answer, and goes with it. */
    return 0;
oom:
    prop_buf_free(&b);
    prop_ssh_sh_down(s);
    return prop_transport_fail(&s->base, "%s: out of memory", what);
}

/* ---------------------------------------------------------------------
 * The answers owed.  A line sent without waiting (a deferred operation,
 * see transport_ssh_pipeline.c) has its answer read when the next
 * operation that waits reads its own (answers come in order), or when
 * the shell is settled.
 */

/* The oldest deferred operation has its answer r (NULL: it never will,
 * for the reason in s->base.err). */
static void
pend_done(ssh_tr *s, const prop_cmd_result *r)
{
    sh_pend *p = &s->pend[s->pend_off];

    if (p->stg) {
        prop_ssh_commit_done(s, p->stg, p->nstg, r);
        p->stg = NULL;
        p->nstg = 0;
    } else if (p->batch == 0)
        ; /* starting the shell, syncing directories: no property's */
    else if (!r)
        prop_ssh_fail_batch(s, p->batch, s->base.err);
    else if (r->code != 0 && r->code != SH_SKIPPED) {
        prop_cmd_result f = *r;

        (void)prop_sh_fail(&s->base, &f, p->what);
        prop_ssh_fail_batch(s, p->batch, s->base.err);
    }
    free(p->what);
    p->what = NULL;
    s->pend_off++;
    if (--s->npend == 0)
        s->pend_off = 0;
}

/* Every deferred operation still waiting fails with the reason in
 * s->base.err (the shell or the connection is gone). */
static void
pend_lost(ssh_tr *s)
{
    while (s->npend)
        pend_done(s, NULL);
}

/* Read the answers of the deferred operations that have come. */
static void
pend_poll(ssh_tr *s)
{
    prop_cmd_result r;

    memset(&r, 0, sizeof r);
    while (s->npend && sh_answer(s, &r)) {
        pend_done(s, &r);
        prop_cmd_result_clear(&r);
    }
}

int
prop_ssh_sh_settle(ssh_tr *s, const char *what)
{
    prop_cmd_result r;
    int rc;

    while (s->npend) {
        if ((rc = sh_io(s, NULL, 0, &r, what, 0, 1)) != 0) {
            pend_lost(s);
            return rc;
        }
        pend_done(s, &r);
        prop_cmd_result_clear(&r);
    }
    return 0;
}

/* One more line sent whose answer is owed, of batch: 0, or -1 out of
 * memory. */
static int
pend_push(ssh_tr *s, unsigned long batch, const char *what)
{
    char *w;

    if (s->npend + s->pend_off == s->pend_cap) {
        if (s->pend_off) {
            memmove(s->pend, s->pend + s->pend_off, s->npend * sizeof *s->pend);
            s->pend_off = 0;
        } else {
            size_t cap = s->pend_cap ? 2 * s->pend_cap : 64;
            sh_pend *v = prop_realloc(s->pend, cap * sizeof *v);

            if (!v)
                return -1;
            s->pend = v;
            s->pend_cap = cap;
        }
    }
    if (!(w = prop_strdup(what)))
        return -1;
    s->pend[s->pend_off + s->npend].batch = batch;
    s->pend[s->pend_off + s->npend].what = w;
    s->pend[s->pend_off + s->npend].stg = NULL;
    s->pend[s->pend_off + s->npend].nstg = 0;
    s->npend++;
    return 0;
}

/*
 * Send cmd[0..len) without waiting for its answer: a line of the current
 * batch, a write staged as number staged (0: not one), or, with st, the
 * commit of st[0..nst) (which it then owns, whatever happens).
 */
int
prop_ssh_defer_line(ssh_tr *s, const char *cmd, size_t len, const char *what, unsigned long staged,
                    sh_stage *st, size_t nst)
{
    prop_buf b = PROP_BUF_INIT;
    prop_cmd_result r;
    int rc;

    if (s->dead) {
        rc = prop_ssh_fail_lost(s, what);
        if (st)
            prop_ssh_stg_fail(s, st, nst, s->base.err);
        return rc;
    }
    if ((!s->sh_up || s->sh_fresh) && (rc = sh_start(s, what)) != 0) {
        if (st)
            prop_ssh_stg_fail(s, st, nst, s->base.err);
        return rc;
    }
    if (buf_add_call(&b, s, cmd, len, 1, staged) < 0 || pend_push(s, s->batch, what) < 0) {
        prop_buf_free(&b);
        if (st)
            prop_ssh_stg_fail(s, st, nst, "out of memory");
        return prop_transport_fail(&s->base, "%s: out of memory", what);
    }
    if (st) {
        s->pend[s->pend_off + s->npend - 1].stg = st;
        s->pend[s->pend_off + s->npend - 1].nstg = nst;
    }
    rc = sh_io(s, b.p, b.len, &r, what, 0, 0);
    prop_buf_free(&b);
    if (rc) {
        /* Whether the line reached the shell is not known: it is failed,
         * and so is each one before it still waiting. */
        pend_lost(s);
        return rc;
    }
    pend_poll(s);
    return 0;
}

int
prop_ssh_sh_call(ssh_tr *s, const char *cmd, size_t len, prop_cmd_result *r, const char *what,
                 int command)
{
    prop_buf b = PROP_BUF_INIT;
    const char *f;
    int rc;

    memset(r, 0, sizeof *r);
    r->code = -1;
    if (s->nstg && (rc = prop_ssh_sh_commit(s, what)) != 0)
        return rc;
    if (s->dead)
        return prop_ssh_fail_lost(s, what);
    if ((!s->sh_up || s->sh_fresh) && (rc = sh_start(s, what)) != 0)
        return rc;
    if (buf_add_call(&b, s, cmd, len, 0, 0) < 0) {
        prop_buf_free(&b);
        return prop_transport_fail(&s->base, "%s: out of memory", what);
    }
    s->sh_cmd = command;
    if (s->npend) {
        /* Sent first, then the answers owed before its own: one round
         * trip for all. */
        rc = sh_io(s, b.p, b.len, r, what, command, 0);
        prop_buf_free(&b);
        if (rc == 0)
            rc = prop_ssh_sh_settle(s, what);
        else
            pend_lost(s);
        if (rc == 0)
            rc = sh_exchange(s, NULL, 0, r, what, command);
    } else {
        rc = sh_exchange(s, b.p, b.len, r, what, command);
        prop_buf_free(&b);
    }
    s->sh_cmd = 0;
    if (rc == 0 && s->defer && r->code == SH_SKIPPED &&
        (f = prop_ssh_batch_failed(s, s->batch)) != NULL) {
        prop_cmd_result_clear(r);
        r->code = -1;
        return prop_transport_fail(&s->base, "%s", f);
    }
    return rc;
}
