/*
 * transport_ssh.c - a target reached over SSH, through libssh.
 *
 * One SSH session per transport, opened by prop_transport_ssh() and used
 * for every operation.  On it, one sh(1) is started at the first
 * operation and kept: every operation is a line sent to that shell and an
 * answer read back, one round trip, without a new session on the target
 * (see transport_ssh_shell.c).  The run lock holds a second channel,
 * opened and started together with the shell's, and data too large to
 * pass through the shell (SH_MAX_INLINE) a channel of its own.
 * prop_transport_prefetch() fetches the stats and small contents of many
 * files in one round trip.  Nothing is needed on the target
 * beyond sshd, a POSIX shell, and the usual POSIX utilities (cat, stat,
 * mktemp, chmod, chown, mv, ln, rm, rmdir, mkdir, uname, readlink, wc,
 * sync; flock(1) or lockf(1) for the run lock).
 *
 * Quoting.  Every word of argv is quoted with POSIX single quotes ('\''
 * for a quote): no string from the caller ever reaches the remote shell
 * unquoted.  File operations are small fixed sh(1) scripts, defined as
 * functions in the remote shell; paths, modes and owners are passed as
 * positional parameters ("$1"), never spliced into a script.  With
 * opts->sudo the remote shell (and the lock's) runs under "sudo -n --"
 * (no password prompt: sudo must allow the user without one).
 *
 * The login shell's startup files are the target's business: what they
 * print comes before the remote shell's first answer and is dropped.
 *
 * Host keys are checked against one known_hosts file only (opts->known_hosts
 * or ~/.ssh/known_hosts of the running user, a leading "~/" expanded; the
 * global file is set to /dev/null and ~/.ssh/config is not read).  An
 * unknown key is refused unless opts->accept_new, which appends it (new
 * directories 0700, a new file 0600); a changed key, or a key of another
 * type than the one recorded, is always refused, naming the file and line
 * of the old key (plain, [host]:port and hashed "|1|" entries are
 * searched).  No key is recorded while any line names the host, even one
 * libssh cannot read (see find_host_lines).  Every refusal happens before
 * authentication.
 *
 * Authentication is by public key only: opts->identity when set (never a
 * passphrase prompt: an encrypted key must go through ssh-agent), else the
 * agent (when SSH_AUTH_SOCK is set), then the default keys of ~/.ssh.
 * The connection, host key and authentication failures return
 * PROP_EUNREACHABLE.
 *
 * Remote operations (functions of the remote shell):
 *   read    [ -e path ] && cat -- path             (exit 3: missing)
 *   stat    shell tests for the type, then GNU "stat -c" on Linux or BSD
 *           "stat -f" elsewhere for mode, ids, names and size, and
 *           readlink for a link's target; printed one field a line after
 *           a "prop-stat" marker
 *   write   umask 077; mktemp in the same directory; cat stdin (the
 *           data, see transport_ssh_shell.c) into it;
 *           check its size (a dropped connection must not install half a
 *           file); chown/chgrp and chmod (the attributes asked for, else
 *           those of the file being replaced, else 0644 and the user's
 *           ids); sync the file; mv -f over the path; sync the directory;
 *           remove the stale temporary files of the path (SH_STALE).
 *           The temporary file is removed on any failure.
 *   remove  rmdir for a directory, rm -f otherwise (exit 3: missing)
 *   mkdir   mkdir (umask 077, then chown and chmod: never wider than
 *           asked, even for a moment; a directory it made is removed
 *           again when they fail); an existing directory only gets the
 *           attributes
 *   symlink ln -s to a temporary name, then "mv -fT" over the link (GNU),
 *           stale temporary links of the path removed first;
 *           "ln -sfh" elsewhere
 *   chattr  chown/chgrp, then chmod
 *   run     the caller's command, through the run wrapper (see
 *           "Interruption")
 *
 * The run lock is the one the local transport takes, on the target, held
 * by a remote shell on a channel of the session (see transport_ssh_lock.c).
 *
 * Timeouts: connect_timeout bounds the TCP connection and the key
 * exchange, op_timeout one operation.  When an operation times out or the
 * connection drops, the session is closed and every later operation fails
 * at once with "connection lost".
 */
#define _DEFAULT_SOURCE /* getentropy */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "transport_ssh.h"

#define EXIT_MISSING PROP_SH_MISSING

long long
prop_ssh_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

const char *
prop_ssh_user_home(void)
{
    const struct passwd *pw = getpwuid(getuid());
    const char *h;

    if (pw && pw->pw_dir && *pw->pw_dir)
        return pw->pw_dir;
    h = getenv("HOME");
    return h && *h ? h : NULL;
}

/* path with a leading "~/" replaced by the running user's home (malloc'd). */
char *
prop_ssh_expand_home(const char *path)
{
    const char *home;
    prop_buf b = PROP_BUF_INIT;

    if (strncmp(path, "~/", 2) != 0 || !(home = prop_ssh_user_home()))
        return prop_strdup(path);
    if (prop_buf_adds(&b, home) < 0 || prop_buf_adds(&b, path + 1) < 0) {
        prop_buf_free(&b);
        return NULL;
    }
    return b.p;
}

int
prop_ssh_session_lost(ssh_tr *s)
{
    return !s->connected || !ssh_is_connected(s->session) ||
           (ssh_get_status(s->session) & (SSH_CLOSED | SSH_CLOSED_ERROR)) != 0;
}

/* The connection is unusable from now on; close it so nothing waits on it. */
void
prop_ssh_mark_dead(ssh_tr *s, const char *why)
{
    if (!s->dead) {
        s->dead = 1;
        snprintf(s->dead_why, sizeof s->dead_why, "%s", why && *why ? why : "closed");
    }
    if (s->connected) {
        ssh_disconnect(s->session);
        s->connected = 0;
    }
}

int
prop_ssh_fail_lost(ssh_tr *s, const char *what)
{
    return prop_transport_fail(&s->base, "%s: connection lost to %s@%s (%s)", what, s->user,
                               s->hostport, s->dead_why);
}

/* After a failed libssh call: a lost connection, or only this call failed. */
int
prop_ssh_fail_call(ssh_tr *s, const char *what, const char *call)
{
    if (s->dead || prop_ssh_session_lost(s)) {
        prop_ssh_mark_dead(s, ssh_get_error(s->session));
        return prop_ssh_fail_lost(s, what);
    }
    return prop_transport_fail(&s->base, "%s: %s: %s", what, call, ssh_get_error(s->session));
}

/* ---------------------------------------------------------------------
 * File operations: fixed scripts, functions of the remote shell, their
 * arguments positional parameters.  Each starts with what it needs of
 * prop_os (uname -s), which the remote shell sets once.
 */

/* Run the script `name` (body `body`) with args; stdin from in. */
int
prop_ssh_run_script(ssh_tr *s, const char *name, const char *body, const char *const *args,
                    const char *in, size_t inlen, prop_cmd_result *r, const char *what)
{
    char *line;
    size_t len;
    int rc;

    memset(r, 0, sizeof *r);
    r->code = -1;
    if (in && inlen > SH_MAX_INLINE) {
        const char *argv[12];
        size_t n = 0, i;

        argv[n++] = "sh";
        argv[n++] = "-c";
        argv[n++] = body;
        argv[n++] = "sh";
        for (i = 0; args[i] && n < sizeof argv / sizeof argv[0] - 1; i++)
            argv[n++] = args[i];
        argv[n] = NULL;
        return prop_ssh_exec_argv(s, argv, in, inlen, r, what, 0);
    }
    line = prop_ssh_sh_line(name, args, NULL, 0, in, inlen, &len);
    if (!line)
        return prop_transport_fail(&s->base, "%s: out of memory", what);
    rc = prop_ssh_sh_call(s, line, len, r, what, 0);
    free(line);
    return rc;
}

/*
 * With deferred answers on (prop_transport_defer), a file operation that
 * changes the target is sent without waiting for its answer: the line of
 * the script `name` with args (and fmt, the data, as its last argument).
 */
static int
defer_script(ssh_tr *s, const char *name, const char *const *args, const char *fmt, size_t fmtlen,
             const char *what)
{
    size_t n;
    char *line = prop_ssh_sh_line(name, args, fmt, fmtlen, NULL, 0, &n);
    int rc;

    if (!line)
        return prop_transport_fail(&s->base, "%s: out of memory", what);
    rc = prop_ssh_sh_defer(s, line, n, what);
    free(line);
    return rc;
}

static int
sshtr_read(prop_transport *t, const char *path, char **data, size_t *len)
{
    ssh_tr *s = (ssh_tr *)t;
    const char *args[] = {path, NULL};
    prop_cmd_result r;
    char what[300];
    int rc;

    snprintf(what, sizeof what, "read %s", path);
    if ((rc = prop_pf_read(&s->pf, s->base.changes, t, path, what, data, len)) != 1)
        return rc;
    rc = prop_ssh_run_script(s, "prop_read", prop_sh_read, args, NULL, 0, &r, what);
    if (rc)
        return rc;
    if (r.code == EXIT_MISSING) {
        prop_cmd_result_clear(&r);
        prop_transport_fail(t, "%s: no such file or directory", what);
        return PROP_ENOTFOUND;
    }
    if (r.code != 0) {
        rc = prop_sh_fail(&s->base, &r, what);
        prop_cmd_result_clear(&r);
        return rc;
    }
    *data = r.out;
    *len = r.out_len;
    r.out = NULL;
    prop_cmd_result_clear(&r);
    return 0;
}

static int
sshtr_stat(prop_transport *t, const char *path, prop_file_stat *st)
{
    ssh_tr *s = (ssh_tr *)t;
    const char *args[] = {path, NULL};
    prop_cmd_result r;
    char what[300];
    int rc;

    memset(st, 0, sizeof *st);
    snprintf(what, sizeof what, "stat %s", path);
    if ((rc = prop_pf_stat(&s->pf, s->base.changes, t, path, what, st)) != 1)
        return rc;
    rc = prop_ssh_run_script(s, "prop_stat", prop_sh_stat, args, NULL, 0, &r, what);
    if (rc)
        return rc;
    if (r.code == EXIT_MISSING) {
        rc = PROP_ENOTFOUND;
        prop_transport_fail(t, "%s: no such file or directory", what);
    } else if (r.code != 0) {
        rc = prop_sh_fail(&s->base, &r, what);
    } else if (prop_sh_parse_stat(r.out, st) < 0) {
        memset(st, 0, sizeof *st);
        rc = prop_transport_fail(t, "%s: unexpected output from stat on the target", what);
    }
    prop_cmd_result_clear(&r);
    return rc;
}

static int
sshtr_write(prop_transport *t, const char *path, const char *data, size_t len,
            const prop_file_attrs *attrs)
{
    ssh_tr *s = (ssh_tr *)t;
    char mode[16], size[32], what[300];
    const char *owner, *group;
    prop_cmd_result r;
    size_t n;
    int rc;

    memset(&r, 0, sizeof r);
    prop_ssh_pf_forget(s, path, 0);
    prop_sh_attr_args(attrs, mode, &owner, &group);
    snprintf(size, sizeof size, "%zu", len);
    {
        const char *args[] = {path, mode, owner, group, size, NULL};

        snprintf(what, sizeof what, "write %s", path);
        if (s->defer && len <= SH_MAX_INLINE) {
            /* The temporary file's name, the mode at creation and the
             * directory's sync from here: fewer processes on the target
             * (transport_sh.h); staged when the directory is synced
             * later, moved into place with the others by a commit. */
            char sfx[7], mu[16] = "", prefix[96];
            int later = prop_ssh_sh_dir_changed(s, path) == 0;

            if (attrs && attrs->mode >= 0 && (attrs->mode & ~0666) == 0 && !*owner && !*group)
                snprintf(mu, sizeof mu, "%03o", (unsigned)(~attrs->mode & 0777));
            prop_ssh_sh_next_sfx(s, sfx);
            if (later)
                return prop_ssh_sh_stage_write(s, path, args, data, len, sfx, mu, what);
            snprintf(prefix, sizeof prefix, "prop_sfx=%s%s%s prop_write", sfx,
                     *mu ? " prop_mu=" : "", mu);
            return defer_script(s, prefix, args, data, len, what);
        }
        if (len > SH_MAX_INLINE) {
            rc = prop_ssh_run_script(s, "prop_write", prop_sh_write, args, data, len, &r, what);
        } else {
            /* The data as the sixth argument, a printf format: the shell's
             * builtin printf writes it, no pipe, no cat, no count. */
            char *line = prop_ssh_sh_line("prop_write", args, data, len, NULL, 0, &n);

            rc = line ? prop_ssh_sh_call(s, line, n, &r, what, 0)
                      : prop_transport_fail(t, "%s: out of memory", what);
            free(line);
        }
    }
    if (rc)
        return rc;
    if (r.code != 0)
        rc = prop_sh_fail(&s->base, &r, what);
    prop_cmd_result_clear(&r);
    return rc;
}

static int
sshtr_remove(prop_transport *t, const char *path)
{
    ssh_tr *s = (ssh_tr *)t;
    const char *args[] = {path, NULL};
    prop_cmd_result r;
    char what[300];
    int rc;

    prop_ssh_pf_forget(s, path, 0);
    snprintf(what, sizeof what, "remove %s", path);
    rc = prop_ssh_run_script(s, "prop_remove", prop_sh_remove, args, NULL, 0, &r, what);
    if (rc)
        return rc;
    if (r.code == EXIT_MISSING) {
        rc = PROP_ENOTFOUND;
        prop_transport_fail(t, "%s: no such file or directory", what);
    } else if (r.code != 0) {
        rc = prop_sh_fail(&s->base, &r, what);
    }
    prop_cmd_result_clear(&r);
    return rc;
}

static int
attrs_op(ssh_tr *s, const char *name, const char *script, const char *op, const char *path,
         const prop_file_attrs *attrs)
{
    char mode[16], what[300];
    const char *owner, *group;
    prop_cmd_result r;
    int rc;

    prop_ssh_pf_forget(s, path, 1);
    prop_sh_attr_args(attrs, mode, &owner, &group);
    snprintf(what, sizeof what, "%s %s", op, path);
    {
        const char *args[] = {path, mode, owner, group, NULL};

        if (s->defer)
            return defer_script(s, name, args, NULL, 0, what);
        rc = prop_ssh_run_script(s, name, script, args, NULL, 0, &r, what);
    }
    if (rc)
        return rc;
    if (r.code != 0)
        rc = prop_sh_fail(&s->base, &r, what);
    prop_cmd_result_clear(&r);
    return rc;
}

static int
sshtr_mkdir(prop_transport *t, const char *path, const prop_file_attrs *attrs)
{
    return attrs_op((ssh_tr *)t, "prop_mkdir", prop_sh_mkdir, "mkdir", path, attrs);
}

static int
sshtr_chattr(prop_transport *t, const char *path, const prop_file_attrs *attrs)
{
    return attrs_op((ssh_tr *)t, "prop_chattr", prop_sh_chattr, "chattr", path, attrs);
}

static int
sshtr_symlink(prop_transport *t, const char *target, const char *link)
{
    ssh_tr *s = (ssh_tr *)t;
    const char *args[] = {target, link, NULL};
    prop_cmd_result r;
    char what[300];
    int rc;

    prop_ssh_pf_forget(s, link, 0);
    snprintf(what, sizeof what, "symlink %s", link);
    if (s->defer)
        return defer_script(s, "prop_symlink", args, NULL, 0, what);
    rc = prop_ssh_run_script(s, "prop_symlink", prop_sh_symlink, args, NULL, 0, &r, what);
    if (rc)
        return rc;
    if (r.code != 0)
        rc = prop_sh_fail(&s->base, &r, what);
    prop_cmd_result_clear(&r);
    return rc;
}

/* ---------------------------------------------------------------------
 * Connection and close.
 */
static void
sshtr_close_tr(prop_transport *t)
{
    ssh_tr *s = (ssh_tr *)t;

    prop_ssh_pf_clear(s);
    if ((s->npend || s->ndirs || s->nstg) && !s->dead)
        (void)prop_ssh_sshtr_settle(t); /* what was sent is done before the lock goes */
    prop_ssh_unlock(s);
    prop_ssh_sh_defer_free(s);
    prop_ssh_sh_down(s);
    if (s->event) {
        if (s->session)
            ssh_event_remove_session(s->event, s->session);
        ssh_event_free(s->event);
    }
    if (s->session) {
        if (s->connected)
            ssh_disconnect(s->session);
        ssh_free(s->session);
    }
    free(s->address);
    free(s->user);
    free(s->known_hosts);
    free(s);
}

static int
sshtr_tcp(prop_transport *t, const prop_tcp_req *req, char **out, size_t *out_len)
{
    return prop_ssh_chan_tcp((ssh_tr *)t, req, out, out_len);
}

static const prop_transport_ops ssh_ops = {
    .run = prop_ssh_sshtr_run,
    .read = sshtr_read,
    .write = sshtr_write,
    .stat = sshtr_stat,
    .remove = sshtr_remove,
    .mkdir = sshtr_mkdir,
    .symlink = sshtr_symlink,
    .chattr = sshtr_chattr,
    .lock = prop_ssh_sshtr_lock,
    .close = sshtr_close_tr,
    .prefetch = prop_ssh_sshtr_prefetch,
    .sync = prop_ssh_sshtr_settle,
    .defer = prop_ssh_sshtr_defer,
    .batch = prop_ssh_sshtr_batch,
    .settle = prop_ssh_sshtr_settle,
    .outstanding = prop_ssh_sshtr_outstanding,
    .batch_failure = prop_ssh_sshtr_batch_failure,
    .run_deferred = prop_ssh_sshtr_run_deferred,
    .tcp = sshtr_tcp,
};

static int
set_opt(ssh_tr *s, enum ssh_options_e opt, const void *value, const char *name)
{
    if (ssh_options_set(s->session, opt, value) == SSH_OK)
        return 0;
    return prop_transport_fail(&s->base, "ssh option %s: %s", name, ssh_get_error(s->session));
}

/* libssh expands %d, %u, ... in this path: pass '%' as "%%". */
static int
set_known_hosts(ssh_tr *s)
{
    prop_buf b = PROP_BUF_INIT;
    const char *p;
    int rc;

    for (p = s->known_hosts; *p; p++) {
        rc = *p == '%' ? prop_buf_adds(&b, "%%") : prop_buf_add(&b, p, 1);
        if (rc < 0) {
            prop_buf_free(&b);
            return prop_transport_fail(&s->base, "ssh: out of memory");
        }
    }
    rc = set_opt(s, SSH_OPTIONS_KNOWNHOSTS, b.p ? b.p : "", "known_hosts");
    prop_buf_free(&b);
    return rc;
}

int
prop_transport_ssh(prop_transport **out, const prop_ssh_opts *opts)
{
    ssh_tr *s;
    const char *home;
    long timeout;
    int one = 1, rc;
    bool no = false;

    if (!out)
        return PROP_EINVAL;
    *out = NULL;
    s = prop_calloc(1, sizeof *s);
    if (!s)
        return PROP_ENOMEM;
    s->base.ops = &ssh_ops;
    *out = &s->base;
    snprintf(s->base.name, sizeof s->base.name, "ssh");
    if (!opts || !opts->address || !*opts->address) {
        prop_transport_fail(&s->base, "ssh: no address to connect to");
        return PROP_EINVAL;
    }
    if (opts->port < 0 || opts->port > 65535) {
        prop_transport_fail(&s->base, "ssh: bad port %d", opts->port);
        return PROP_EINVAL;
    }
    s->port = opts->port ? opts->port : SSH_DEFAULT_PORT;
    s->sudo = opts->sudo != 0;
    s->op_timeout = opts->op_timeout > 0 ? opts->op_timeout : SSH_DEFAULT_OP_TIMEOUT;
    timeout = opts->connect_timeout > 0 ? opts->connect_timeout : SSH_DEFAULT_CONNECT_TIMEOUT;
    s->address = prop_strdup(opts->address);
    s->user = prop_strdup(opts->user && *opts->user ? opts->user : "root");
    if (opts->known_hosts && *opts->known_hosts) {
        s->known_hosts = prop_ssh_expand_home(opts->known_hosts);
    } else if ((home = prop_ssh_user_home()) != NULL) {
        prop_buf b = PROP_BUF_INIT;

        if (prop_buf_adds(&b, home) < 0 || prop_buf_adds(&b, "/.ssh/known_hosts") < 0) {
            prop_buf_free(&b);
        }
        s->known_hosts = b.p;
    } else {
        prop_transport_fail(&s->base, "ssh: no home directory for ~/.ssh/known_hosts; set "
                                      "known_hosts");
        return PROP_ERROR;
    }
    if (!s->address || !s->user || !s->known_hosts) {
        prop_transport_fail(&s->base, "ssh: out of memory");
        return PROP_ENOMEM;
    }
    if (strchr(s->address, ':'))
        snprintf(s->hostport, sizeof s->hostport, "[%s]:%d", s->address, s->port);
    else
        snprintf(s->hostport, sizeof s->hostport, "%s:%d", s->address, s->port);
    snprintf(s->base.name, sizeof s->base.name, "ssh:%s@%s", s->user, s->hostport);

    s->session = ssh_new();
    if (!s->session) {
        prop_transport_fail(&s->base, "ssh: cannot make a session");
        return PROP_ENOMEM;
    }
    /* No passphrase prompt on the terminal, ever (libssh would let OpenSSL
     * ask for the passphrase of a PEM default key). */
    ssh_callbacks_init(&s->scb);
    s->scb.userdata = &s->passphrase_asked;
    s->scb.auth_function = prop_ssh_refuse_passphrase;
    if (ssh_set_callbacks(s->session, &s->scb) != SSH_OK) {
        prop_transport_fail(&s->base, "ssh: cannot set callbacks");
        return PROP_ERROR;
    }
    if (set_opt(s, SSH_OPTIONS_HOST, s->address, "host") ||
        set_opt(s, SSH_OPTIONS_PORT, &s->port, "port") ||
        set_opt(s, SSH_OPTIONS_USER, s->user, "user") ||
        set_opt(s, SSH_OPTIONS_TIMEOUT, &timeout, "timeout") || set_known_hosts(s) ||
        set_opt(s, SSH_OPTIONS_GLOBAL_KNOWNHOSTS, "/dev/null", "global known_hosts") ||
        set_opt(s, SSH_OPTIONS_PROCESS_CONFIG, &no, "process config") ||
        set_opt(s, SSH_OPTIONS_NODELAY, &one, "nodelay"))
        return PROP_ERROR;

    if (ssh_connect(s->session) != SSH_OK) {
        prop_transport_fail(&s->base, "cannot connect to %s: %s", s->hostport,
                            ssh_get_error(s->session));
        return PROP_EUNREACHABLE;
    }
    s->connected = 1;
    rc = prop_ssh_check_host_key(s, opts->accept_new);
    if (rc != 0)
        return PROP_EUNREACHABLE;
    if (prop_ssh_authenticate(s, opts) != 0)
        return PROP_EUNREACHABLE;

    /* The run wrapper's mark for commands on channels of their own (the
     * remote shell makes a new one each time it starts). */
    {
        unsigned char rnd[16];
        size_t i;

        if (getentropy(rnd, sizeof rnd) != 0) {
            prop_transport_fail(&s->base, "ssh: no random bytes: %s", strerror(errno));
            return PROP_ERROR;
        }
        memcpy(s->mark, "prop-", 5);
        for (i = 0; i < sizeof rnd; i++)
            snprintf(s->mark + 5 + 2 * i, 3, "%02x", rnd[i]);
        snprintf(s->pidmark, sizeof s->pidmark, "%s-pid", s->mark);
    }
    /* From now on libssh's own waits are bounded by the operation timeout. */
    timeout = s->op_timeout;
    if (set_opt(s, SSH_OPTIONS_TIMEOUT, &timeout, "timeout"))
        return PROP_ERROR;
    s->event = ssh_event_new();
    if (!s->event || ssh_event_add_session(s->event, s->session) != SSH_OK) {
        if (s->event)
            ssh_event_free(s->event);
        s->event = NULL;
        prop_transport_fail(&s->base, "ssh: cannot watch the session");
        return PROP_ERROR;
    }
    return 0;
}
