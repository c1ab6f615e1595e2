/*
 * transport_ssh.h - what the parts of the SSH transport share: its state
 * (ssh_tr) and the calls from one part to another.
 *
 *   transport_ssh.c           the session, the file operations, the run
 *                             lock
 *   transport_ssh_shell.c     the remote shell and its protocol
 *   transport_ssh_chan.c      commands on a channel of their own,
 *                             interruption
 *   transport_ssh_keys.c      host keys (known_hosts) and authentication
 *   transport_ssh_prefetch.c  prop_transport_prefetch(): many stats and
 *                             contents in two round trips
 *   transport_sh.c            the file operations' shell scripts (shared
 *                             with the container transport)
 */
#ifndef PROP_TRANSPORT_SSH_H
#define PROP_TRANSPORT_SSH_H

#include <stddef.h>

#include <libssh/callbacks.h>
#include <libssh/libssh.h>

#include "buf.h"
#include "transport_sh.h"

#define SSH_DEFAULT_PORT 22
#define SSH_DEFAULT_CONNECT_TIMEOUT 10
#define SSH_DEFAULT_OP_TIMEOUT 300
#define AUTH_NO_KEY -100 /* the identity could not be loaded (reason in t->err) */

/* Internal names, kept out of the way of libssh's and the others'. */
#define user_home prop_ssh_user_home
#define expand_home prop_ssh_expand_home
#define check_host_key prop_ssh_check_host_key
#define authenticate prop_ssh_authenticate
#define refuse_passphrase prop_ssh_refuse_passphrase
#define now_ms prop_ssh_now_ms
#define session_lost prop_ssh_session_lost
#define mark_dead prop_ssh_mark_dead
#define fail_lost prop_ssh_fail_lost
#define fail_call prop_ssh_fail_call
#define chan_free prop_ssh_chan_free
#define chan_open prop_ssh_chan_open
#define chan_open2 prop_ssh_chan_open2
#define chan_write_some prop_ssh_chan_write_some
#define chan_tcp prop_ssh_chan_tcp
#define wait_events prop_ssh_wait_events
#define stop_check prop_ssh_stop_check
#define stop_rest prop_ssh_stop_rest
#define chan_pump prop_ssh_chan_pump
#define buf_quote prop_ssh_buf_quote
#define build_command prop_ssh_build_command
#define drop_pid_line prop_ssh_drop_pid_line
#define over_cut prop_ssh_over_cut
#define cmd_pid prop_ssh_cmd_pid
#define over_text prop_ssh_over_text
#define exec_argv prop_ssh_exec_argv
#define run_script prop_ssh_run_script
#define pf_clear prop_ssh_pf_clear
#define pf_forget prop_ssh_pf_forget
#define sshtr_prefetch prop_ssh_sshtr_prefetch
#define sh_line prop_ssh_sh_line
#define sshtr_run prop_ssh_sshtr_run
#define sshtr_run_deferred prop_ssh_sshtr_run_deferred
#define sh_call prop_ssh_sh_call
#define sh_down prop_ssh_sh_down
#define sh_open_beside prop_ssh_sh_open_beside
#define sh_defer prop_ssh_sh_defer
#define sh_settle prop_ssh_sh_settle
#define sh_gate prop_ssh_sh_gate
#define sh_defer_free prop_ssh_sh_defer_free
#define sh_dir_changed prop_ssh_sh_dir_changed
#define sh_sync_dirs prop_ssh_sh_sync_dirs
#define sh_next_sfx prop_ssh_sh_next_sfx
#define sh_stage_write prop_ssh_sh_stage_write
#define sh_commit prop_ssh_sh_commit
#define stage_free prop_ssh_stage_free
#define stg_fail prop_ssh_stg_fail
#define commit_done prop_ssh_commit_done
#define fail_batch prop_ssh_fail_batch
#define defer_line prop_ssh_defer_line
#define buf_printf_format prop_ssh_buf_printf_format
#define stw_script prop_ssh_stw_script
#define sst_script prop_ssh_sst_script
#define mvg_script prop_ssh_mvg_script
#define why_script prop_ssh_why_script
#define stgc_script prop_ssh_stgc_script
#define sshtr_defer prop_ssh_sshtr_defer
#define sshtr_batch prop_ssh_sshtr_batch
#define sshtr_settle prop_ssh_sshtr_settle
#define sshtr_outstanding prop_ssh_sshtr_outstanding
#define sshtr_batch_failure prop_ssh_sshtr_batch_failure

/* ---------------------------------------------------------------------
 * The transport.
 */
typedef struct chan {
    ssh_channel ch;
    struct ssh_channel_callbacks_struct cb;
    int cb_set;
    prop_buf out, err;
    int eof, closed, have_status, status, oom;
    /* The most out and err may hold together (prop_transport_max_output);
     * over: more came, and was dropped. */
    size_t max;
    int over;
    size_t until_scan; /* how far chan_pump looked for `until` in out */
} chan;

typedef struct ssh_tr {
    prop_transport base;
    ssh_session session;
    ssh_event event;
    struct ssh_callbacks_struct scb; /* refuses passphrase prompts */
    int passphrase_asked;
    char *address, *user, *known_hosts;
    char hostport[300]; /* "127.0.0.1:2222", "[::1]:22": for messages */
    int port, sudo, op_timeout;
    int connected; /* ssh_connect() succeeded and no ssh_disconnect() yet */
    int dead;      /* the connection is gone: operations fail at once */
    char dead_why[512];
    int locked;
    chan lock;
    /* The remote shell (see transport_ssh_shell.c). */
    chan sh;
    int sh_up;
    int sh_cmd;                /* the line the shell runs is a command of the caller's */
    int sh_fresh;              /* up, its functions not sent yet (sh_open_beside) */
    char mark[40];             /* "prop-" and 32 random hex digits */
    char pidmark[48];          /* mark and "-pid": the run wrapper's first line */
    size_t out_scan, err_scan; /* how far the answer's end was looked for */
    /* Deferred operations (prop_transport_defer): those sent whose answer
     * is not read yet, oldest first (pend[pend_off..pend_off+npend)), and
     * the first failure of each batch that had one, until handed over. */
    int defer;
    unsigned long batch;
    struct sh_pend *pend;
    size_t pend_off, npend, pend_cap;
    struct sh_fail *fails;
    size_t nfails, fails_cap;
    /* Pipelined writes: the directories whose entries they changed, to
     * sync together (sh_sync_dirs), and their temporary files' names. */
    char **dirs;
    size_t ndirs, dirs_cap;
    unsigned long sfx_base, sfx_n;
    /* Staged writes (transport_ssh_shell.c): in their temporary files,
     * to be synced and moved into place by the next commit. */
    struct sh_stage *stg;
    size_t nstg, stg_cap, stg_bytes;
    unsigned long stg_idx;
    char stg_tag[7]; /* of the staging directories: .prop-stg-TAG */
    /* What prop_transport_prefetch() fetched (transport_sh.h). */
    prop_pf pf;
} ssh_tr;

/* A write staged: its number in the session, its batch, what it is
 * ("write /etc/x"), its temporary file (DIR/.prop-stg-TAG/NAME) and its
 * path (all malloc'd). */
typedef struct sh_stage {
    unsigned long idx, batch;
    char *what, *tmp, *path;
} sh_stage;

/* A deferred operation sent: its batch and what it was ("write /etc/x");
 * a commit also owns the writes it moves into place, stg[0..nstg). */
typedef struct sh_pend {
    unsigned long batch;
    char *what; /* malloc'd */
    sh_stage *stg;
    size_t nstg;
} sh_pend;

/* The first failure of a batch: its reason (malloc'd). */
typedef struct sh_fail {
    unsigned long batch;
    char *msg;
} sh_fail;

/* The running user's home directory, or NULL. */
const char *user_home(void);
/* path with a leading "~/" replaced by the running user's home (malloc'd). */
char *expand_home(const char *path);

/* The connection's state, and the failures (transport_ssh.c). */
long long now_ms(void);
int session_lost(ssh_tr *s);
/* The connection is unusable from now on; close it so nothing waits on it. */
void mark_dead(ssh_tr *s, const char *why);
int fail_lost(ssh_tr *s, const char *what);
/* After a failed libssh call: a lost connection, or only this call failed. */
int fail_call(ssh_tr *s, const char *what, const char *call);

/* transport_ssh_chan.c */
/*
 * The run wrapper (see "Interruption" in transport_ssh_chan.c): prints
 * "PIDMARK PID" as the first line of its stdout, then execs the command,
 * through setsid(1) when the target has it.  It holds no single quote: it
 * is also a function body in single quotes.
 */
#define RUN_WRAPPER                                                                                \
    "m=$1; shift; printf \"%s %s\\n\" \"$m\" \"$$\"; "                                             \
    "if command -v setsid >/dev/null 2>&1; then case $1 in -*) ;; *) exec setsid \"$@\" ;; esac; " \
    "fi; exec \"$@\""

typedef struct stopper {
    int command;         /* a command that may be stopped; else only abandoned at a 2nd request */
    int sent, killed;    /* the signal, then SIGKILL, was sent */
    long pid;            /* the command's, once known */
    long long seen_at;   /* when the interruption was first seen */
    long long killed_at; /* when SIGKILL was sent (or would have been) */
} stopper;

/* Free a channel (only our buffers once the session is disconnected). */
void chan_free(ssh_tr *s, chan *c);
/* Open a channel and start cmd on it. */
int chan_open(ssh_tr *s, chan *c, const char *cmd, const char *what);
/* Open a and b and start their commands, both in the round trips of one;
 * the result is a's, *b_up whether b was started (else it is freed). */
int chan_open2(ssh_tr *s, chan *a, const char *acmd, const char *awhat, chan *b, const char *bcmd,
               int *b_up);
/* Write what the channel's window takes of in[*off..len), 64 KiB at most:
 * 1 when something was written, 0 when the window is closed, SSH_ERROR. */
int chan_write_some(chan *c, const char *in, size_t len, size_t *off);
/* prop_transport_tcp() over a direct-tcpip channel (the SSH transport's op). */
int chan_tcp(ssh_tr *s, const prop_tcp_req *rq, char **out, size_t *out_len);
/* Let libssh handle what arrives for a while; the failure when the
 * operation's deadline has passed or the connection is lost, else 0. */
int wait_events(ssh_tr *s, long long deadline, long long timeout_ms, const char *what);
/* While an operation waits, out being its stdout so far: 0 to go on
 * waiting, -1 when the wait is to be given up. */
int stop_check(ssh_tr *s, stopper *st, const prop_buf *out);
/* The command was stopped and has ended: what is left of its process
 * group goes too. */
void stop_rest(ssh_tr *s, const stopper *st);
/* Feed in[0..inlen) to the command (then EOF when send_eof), and collect
 * its output until it ends, or until its stdout holds `until`; stp, when
 * not NULL, makes the wait interruptible. */
int chan_pump(ssh_tr *s, chan *c, const char *in, size_t inlen, int send_eof, const char *until,
              long long timeout_ms, const char *what, stopper *stp);
/* One word in POSIX single quotes: abc'd -> 'abc'\''d'. */
int buf_quote(prop_buf *b, const char *w);
/* "sudo -n -- 'a' 'b' ...", or NULL when out of memory. */
char *build_command(const ssh_tr *s, const char *const *argv);
/* Take the run wrapper's line out of a command's output. */
void drop_pid_line(const ssh_tr *s, prop_cmd_result *r);
/* The pid the run wrapper printed in out, or 0. */
long cmd_pid(const ssh_tr *s, const prop_buf *out);
/* A command's output grew past the limit (its channel already closed):
 * its group goes (pid: cmd_pid's, 0 when unknown), and the failure of
 * what is returned. */
int over_cut(ssh_tr *s, long pid, const char *what);
/* "output over 64 MiB (--max-output)" into buf, which is returned. */
const char *over_text(const ssh_tr *s, char buf[96]);
/* Run argv on the target on a channel of its own; 0 when it ran (r
 * filled), else the failure.  command: a command of the caller's, stopped
 * when the run is interrupted. */
int exec_argv(ssh_tr *s, const char *const *argv, const char *in, size_t inlen, prop_cmd_result *r,
              const char *what, int command);

/* Run the script `name` (body `body`) with args; stdin from in
 * (transport_ssh.c). */
int run_script(ssh_tr *s, const char *name, const char *body, const char *const *args,
               const char *in, size_t inlen, prop_cmd_result *r, const char *what);

/* transport_ssh_shell.c */
/* Larger data goes to a command on a channel of its own, as stdin. */
#define SH_MAX_INLINE (4u << 20)
/*
 * The line that runs words[0..] (quoted) in a subshell, its stdin the
 * data or /dev/null.  prefix, when not NULL, goes before the words
 * unquoted (a function name); fmt, when not NULL, after them, as the
 * printf format of fmt[0..fmtlen).
 */
char *sh_line(const char *prefix, const char *const *words, const char *fmt, size_t fmtlen,
              const char *in, size_t inlen, size_t *len);
/* Send cmd[0..len) (a line of sh_line) to the remote shell, started first
 * when it is not up, and wait for the answer: 0 when it ran (r filled),
 * else the failure. */
int sh_call(ssh_tr *s, const char *cmd, size_t len, prop_cmd_result *r, const char *what,
            int command);
/* The shell is gone or unusable: the next operation starts another. */
void sh_down(ssh_tr *s);
/* Open c and start cmd on it (chan_open), and the shell with it when it
 * is not up: the round trips of one channel for both. */
int sh_open_beside(ssh_tr *s, chan *c, const char *cmd, const char *what);
/* Send cmd[0..len) (a line of sh_line) without waiting for its answer, as
 * an operation of the current batch (prop_transport_defer): 0 when sent,
 * else the failure. */
int sh_defer(ssh_tr *s, const char *cmd, size_t len, const char *what);
/* Read every answer still owed (prop_transport_settle): 0, or the
 * failure when the connection or the shell is lost. */
int sh_settle(ssh_tr *s, const char *what);
/* Before an operation that does not go through the remote shell (a
 * channel of its own): settle, then fail when the current batch already
 * failed.  0 to go on. */
int sh_gate(ssh_tr *s, const char *what);
/* The transport's deferral operations (see prop_transport_defer()). */
int sshtr_defer(prop_transport *t, int on);
void sshtr_batch(prop_transport *t, unsigned long batch);
int sshtr_settle(prop_transport *t);
size_t sshtr_outstanding(const prop_transport *t);
char *sshtr_batch_failure(prop_transport *t, unsigned long batch);
/* Forget every deferred operation and failure (the transport closes). */
void sh_defer_free(ssh_tr *s);
/* A pipelined write changed an entry of path's directory: it is synced by
 * the next sh_sync_dirs() (0, or -1 out of memory: then sync it now). */
int sh_dir_changed(ssh_tr *s, const char *path);
/* Send one sync(1) of the directories noted since the last, as an
 * operation of no batch (answered with the next that waits): 0 or the
 * failure to send it. */
int sh_sync_dirs(ssh_tr *s, const char *what);
/* The suffix of the next pipelined write's temporary file: six letters or
 * digits, unique in this session. */
void sh_next_sfx(ssh_tr *s, char out[7]);
/* Data as a single-quoted printf(1) format that prints exactly data. */
int buf_printf_format(prop_buf *b, const char *data, size_t len);
/* Keep msg as the failure of batch, unless the batch already has one. */
void fail_batch(ssh_tr *s, unsigned long batch, const char *msg);
/* Send cmd[0..len) without waiting for its answer: a line of the current
 * batch, a write staged as number staged (0: not one), or, with st, the
 * commit of st[0..nst) (which it then owns, whatever happens). */
int defer_line(ssh_tr *s, const char *cmd, size_t len, const char *what, unsigned long staged,
               sh_stage *st, size_t nst);

/* transport_ssh_stage.c */
/* The remote shell's functions prop_stw, prop_sst, prop_mvg, prop_why. */
extern const char stw_script[], sst_script[], mvg_script[], why_script[], stgc_script[];
/* Free the staged writes st[0..n) and the array. */
void stage_free(sh_stage *st, size_t n);
/* Fail the batch of each write of st[0..n) (not in place: why), and free them. */
void stg_fail(ssh_tr *s, sh_stage *st, size_t n, const char *why);
/* The answer r of the commit of st[0..n) (NULL: lost, for the reason in
 * s->base.err); frees them. */
void commit_done(ssh_tr *s, sh_stage *st, size_t n, const prop_cmd_result *r);
/* Send the write of data[0..len) to path (args: prop_write's, sfx: its
 * temporary suffix, mu: the umask that gives its mode to a new file, or
 * "") to be staged (see "Staged writes"): 0 when sent, else the failure. */
int sh_stage_write(ssh_tr *s, const char *path, const char *const *args, const char *data,
                   size_t len, const char sfx[7], const char *mu, const char *what);
/* Send the commit of the writes staged, if any, without waiting for its
 * answer: 0 when sent (or none), else the failure (the writes fail). */
int sh_commit(ssh_tr *s, const char *what);
/* The transport's run_deferred operation (see prop_transport_run_deferred()). */
int sshtr_run_deferred(prop_transport *t, const char *const *argv, const char *stdin_data,
                       size_t stdin_len, const char *what);
/* The transport's run operation (see prop_transport_run()). */
int sshtr_run(prop_transport *t, const char *const *argv, const char *stdin_data, size_t stdin_len,
              prop_cmd_result *r);

/* transport_ssh_prefetch.c */
/* Forget every prefetched entry. */
void pf_clear(ssh_tr *s);
/* A file operation on path: its entry is stale (follows: the operation
 * follows a final symbolic link). */
void pf_forget(ssh_tr *s, const char *path, int follows);
/* The transport's prefetch operation (see prop_transport_prefetch()). */
int sshtr_prefetch(prop_transport *t, const char *const *paths, size_t npaths);

/* transport_ssh_keys.c */
/* Check the server's host key against the known_hosts file (recording an
 * unknown one when accept_new): 0, or PROP_EUNREACHABLE with the reason. */
int check_host_key(ssh_tr *s, int accept_new);
/* Public-key authentication (see transport_ssh.c): 0 or PROP_ERROR. */
int authenticate(ssh_tr *s, const prop_ssh_opts *opts);
/* libssh's passphrase callback: never prompts. */
int refuse_passphrase(const char *prompt, char *buf, size_t len, int echo, int verify,
                      void *userdata);

#endif /* PROP_TRANSPORT_SSH_H */
