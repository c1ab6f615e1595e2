/*
 * transport.h - how prop reaches a target: one small interface (run a
 * command from argv, read, write atomically, stat, remove, make
 * directories and links, change attributes, lock), and its
 * implementations: this machine (prop_transport_local), a directory tree
 * taken as a root (prop_transport_dir), a host over SSH through libssh
 * (prop_transport_ssh, a module loaded on first use), a container reached
 * through its parent's transport (chroot, systemd-nspawn, Docker:
 * prop_transport_container), and a dry run over any of them that changes
 * nothing and records diffs (prop_transport_dry).  Properties never know
 * which one they run on.  Probes reach the target's TCP ports through the
 * same transport (prop_transport_tcp): a plain connect here, a
 * direct-tcpip channel over SSH, a Docker container's network namespace.
 *
 * Over a slow link the SSH transport can answer many operations from one
 * prefetch of the files a host's properties will look at
 * (prop_transport_prefetch), and send writes without waiting for each
 * answer: deferred operations, grouped in batches whose results are
 * settled later (prop_transport_defer, _batch, _settle).  A transport that
 * cannot do either answers each call as it comes.
 *
 * Ownership: a transport owns its connection/state and is freed with
 * prop_transport_close().  Buffers it returns (command output, file
 * contents) are malloc'd and owned by the caller, who frees them with
 * free() (prop_cmd_result_clear() for command results).
 *
 * Every call returns 0, PROP_ENOTFOUND (read/stat/remove of a missing
 * path), or PROP_ERROR with the reason in prop_transport_error().
 */
#ifndef PROP_TRANSPORT_H
#define PROP_TRANSPORT_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "prop/prop.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct prop_transport prop_transport;

typedef struct prop_cmd_result {
    int code; /* exit status; 128+N when killed by signal N; -1: could not run */
    char *out;
    size_t out_len;
    char *err;
    size_t err_len;
} prop_cmd_result;

PROP_API void prop_cmd_result_clear(prop_cmd_result *r);

typedef enum prop_file_type {
    PROP_FT_NONE = 0, /* does not exist */
    PROP_FT_FILE,
    PROP_FT_DIR,
    PROP_FT_LINK,
    PROP_FT_OTHER
} prop_file_type;

typedef struct prop_file_stat {
    prop_file_type type;
    unsigned mode; /* permission bits, 07777 */
    uid_t uid;
    gid_t gid;
    long long size;
    char target[4096]; /* for links */
    char owner[64];    /* user name on the target, or the uid in decimal */
    char group[64];    /* group name on the target, or the gid in decimal */
} prop_file_stat;

/* Attributes for writes and directories; -1 / NULL: leave as is (new: 0644/0755, root). */
typedef struct prop_file_attrs {
    int mode;          /* -1 or permission bits */
    const char *owner; /* user name or NULL */
    const char *group; /* group name or NULL */
} prop_file_attrs;

/* This machine. */
PROP_API int prop_transport_local(prop_transport **out);
/*
 * A directory tree used as a root: every path is taken below root.  It
 * is files only: running a command in it fails cleanly (a chroot shares
 * this machine's kernel, network and processes; commands inside a tree
 * run through a container's transport, prop_transport_container()).
 *
 * Paths must be absolute and hold no ".." component.  Symbolic links in
 * the tree are followed as inside a chroot (an absolute target starts at
 * root, ".." stops there), so no operation reaches outside the tree.
 * Every file is reached through the descriptor of its directory, opened
 * inside the root (openat2(2) with RESOLVE_IN_ROOT; where that is missing,
 * or PROP_NO_OPENAT2=1 is in the environment, a walk one component at a
 * time that follows no link it has not resolved itself): a tree changed
 * by someone else meanwhile (a directory swapped for a link) can make an
 * operation fail, never lead it outside.  prop_transport_chattr() refuses
 * a regular file with more than one hard link (its other names may be
 * outside the tree); prop_transport_chattr_hardlinks() changes it.
 * User and group names come from the tree's /etc/passwd and /etc/group.
 * The name is "dir:" and the root's realpath.  When root cannot be used,
 * *out is still set, as for SSH: the return is PROP_ERROR, the reason in
 * prop_transport_error(), every call on it fails, and it must be closed.
 */
PROP_API int prop_transport_dir(prop_transport **out, const char *root);

/* How to reach a host over SSH (connect.ssh); NULL fields take the defaults. */
typedef struct prop_ssh_opts {
    const char *address;     /* host name or address (required) */
    int port;                /* 0: 22 */
    const char *user;        /* NULL: "root" */
    const char *identity;    /* private key file; NULL: the agent, then the default keys */
    const char *known_hosts; /* NULL: ~/.ssh/known_hosts */
    int sudo;                /* run commands and file operations through sudo -n */
    int accept_new;          /* record an unknown host key instead of refusing it */
    int connect_timeout;     /* seconds; 0: 10 */
    int op_timeout;          /* seconds for one operation; 0: 300 */
} prop_ssh_opts;

/*
 * Connect, check the host key, authenticate (public keys only: identity,
 * else the agent and the default keys; never a prompt).  On failure *out
 * is still set (so that the caller can read prop_transport_error()) and
 * must be closed; the return is PROP_EUNREACHABLE when the host could not
 * be reached, its key was refused (unknown without accept_new, or changed)
 * or authentication failed, PROP_EINVAL without an address, else
 * PROP_ERROR.  The name is "ssh:user@address:port".  After an operation
 * times out or the connection drops, every later operation fails at once
 * ("connection lost").
 */
PROP_API int prop_transport_ssh(prop_transport **out, const prop_ssh_opts *opts);

/*
 * A container reached through its parent's transport (which must outlive
 * it): each operation is one command run through parent, the words of
 * enter (what enters the container: "docker", "exec", "-i", "web") and
 * then /bin/sh -c SCRIPT.  Inside, only a POSIX shell and the usual
 * utilities are needed.  Writes are atomic there as over SSH; a command
 * that is not there fails as on this machine ("NAME: command not found",
 * code -1); when the shell cannot start inside (no such container) the
 * operation fails with "could not enter" and what the parent's command
 * said.  Its lock is the parent's.  name names it in messages.
 */
PROP_API int prop_transport_container(prop_transport **out, prop_transport *parent,
                                      const char *const *enter, const char *name);
/*
 * The containers prop knows, as prop_transport_container():
 *   chroot: the tree dir (absolute) on the parent, entered in a mount and
 *     PID namespace of its own (unshare(1)), with /proc mounted and /dev
 *     bound in for the command; every process the command starts ends
 *     with it, so no daemon started inside survives it; the command is
 *     not the namespace's first process, so an interruption's signal
 *     reaches it;
 *   nspawn: the systemd-nspawn machine (tree dir): nsenter(1) into it
 *     when it runs, else systemd-nspawn --pipe for the command alone.  A
 *     running machine is entered only when its init is root's, the child
 *     of a systemd-nspawn of root's, with dir itself as its root
 *     directory; a systemd-nspawn naming dir that is not root's, or an
 *     init that fails those tests, makes every operation fail ("could not
 *     enter", with the process and why), never run beside it;
 *   docker: docker exec -i into the running container.
 */
PROP_API int prop_transport_chroot(prop_transport **out, prop_transport *parent, const char *dir,
                                   const char *name);
PROP_API int prop_transport_nspawn(prop_transport **out, prop_transport *parent,
                                   const char *machine, const char *dir);
PROP_API int prop_transport_docker(prop_transport **out, prop_transport *parent,
                                   const char *container);

/*
 * Dry runs and diffs (prop run --dry-run, --diff): a transport over inner
 * (which must outlive it) that says through note what the operations that
 * change the target do.  Reads, stats and prefetch hints go through to
 * inner, and so do commands (run and query), the lock and sync: a caller
 * that must not run a command in a dry run does not ask for it.  Its name
 * is inner's, and so is the reason of a failure.  flags:
 *   PROP_DRY_RUN: a write, remove, mkdir, symlink or chattr changes
 *     nothing and returns 0; note says "would write PATH (N bytes)" ("(a
 *     secret)" for prop_transport_write_secret() without data), "would
 *     remove PATH", "would make directory PATH", "would link LINK ->
 *     TARGET", "would set PATH mode 0640 owner U group G" (what attrs set);
 *   PROP_DRY_DIFF: before a write, the unified diff of what the file holds
 *     against the new content (PROP_DRY_NOTE_DIFF; nothing when they are
 *     equal), "PATH: secret content, diff not shown" for
 *     prop_transport_write_secret(), or why there is none ("PATH: cannot
 *     read the old content for a diff: REASON").  Without PROP_DRY_RUN
 *     every operation is made, and a chattr is said before it is ("set
 *     PATH mode ..."), a remove or symlink once it is ("removed PATH",
 *     "linked LINK -> TARGET").
 * Each note is called as it comes, in order.
 */
#define PROP_DRY_RUN 1
#define PROP_DRY_DIFF 2
typedef enum prop_dry_note_kind {
    PROP_DRY_NOTE_LINE, /* one line, without its newline */
    PROP_DRY_NOTE_DIFF  /* a unified diff, as prop_diff_unified() makes it */
} prop_dry_note_kind;
typedef void (*prop_dry_note_fn)(void *ud, prop_dry_note_kind kind, const char *text, size_t len);
PROP_API int prop_transport_dry(prop_transport **out, prop_transport *inner, int flags,
                                prop_dry_note_fn note, void *ud);

PROP_API void prop_transport_close(prop_transport *t); /* accepts NULL */

/*
 * Interruption (prop run's SIGINT and SIGTERM).  flag, when not NULL,
 * counts the requests to stop (a signal handler adds one to it); signo,
 * when not NULL, holds the signal to pass on (SIGTERM when it is NULL or
 * 0).  The transport only reads them; they must outlive it.
 *
 * While *flag is 0 nothing changes.  Once it is not:
 *   - no command starts: run and query fail at once;
 *   - a command that is running is sent the signal (the local transport
 *     starts every command in a session, so a process group, of its own,
 *     and signals the group; over SSH the remote command is started the
 *     same way with setsid(1) where the target has it, and a second
 *     channel signals its group, or the process alone without setsid);
 *     if it still runs PROP_INTERRUPT_GRACE_MS later, or as soon as
 *     *flag reaches 2 (a second signal), it is sent SIGKILL;
 *   - the call then fails (PROP_ERROR) with "interrupted" in the error,
 *     whatever the command's exit status: the caller must not take what
 *     it did for done.
 * File operations are short and run to their end, so that a file is never
 * left half changed; once *flag reaches 2 an SSH operation still waiting
 * for its answer is abandoned (the remote shell is dropped).
 */
#define PROP_INTERRUPT_GRACE_MS 5000
PROP_API void prop_transport_set_interrupt(prop_transport *t, const volatile sig_atomic_t *flag,
                                           const volatile sig_atomic_t *signo);
/*
 * Limits on what a target may make prop wait for and keep (prop run's
 * --max-output and --timeout), so that a broken or hostile target (a
 * command, a container's shell, a login shell that never stops talking
 * or never answers) cannot take prop's memory or hold the run forever.
 *
 * max_output: the bytes a command's output (stdout and stderr together)
 * may hold, and an answer of the target to a file operation or a
 * prefetch; 0: PROP_DEFAULT_MAX_OUTPUT.  A command whose output grows past
 * it is killed (its process group, as for an interruption) and the call
 * fails with "output over N MiB" in the error; over SSH, an answer to a
 * file operation that grows past it closes the connection (the shell's
 * answers can no longer be told apart), and every later operation fails.
 *
 * timeout_s: the seconds one command may run on this machine (and so in
 * a container entered from it); 0: no limit.  A command that runs longer
 * is killed (its process group) and the call fails with "timed out after
 * S s".  Over SSH every operation has its limit already
 * (prop_ssh_opts.op_timeout), and a container's commands are its parent's.
 *
 * Both hold for the calls made after it; t keeps no pointer.
 */
#define PROP_DEFAULT_MAX_OUTPUT ((size_t)64 << 20)
PROP_API void prop_transport_set_limits(prop_transport *t, size_t max_output, int timeout_s);
PROP_API const char *prop_transport_error(const prop_transport *t);
/* "local", "dir:/srv/root". */
PROP_API const char *prop_transport_name(const prop_transport *t);

/*
 * Run argv (no shell); stdin_data may be NULL.  Fills r (cleared first).
 * The program is looked up in PATH; its environment is prop's with
 * LC_ALL=C (and a standard PATH if there is none); it starts in "/" with
 * only stdin, stdout and stderr open.  A program that ran gives PROP_OK
 * whatever its exit code.  A program that cannot be run (missing, not
 * executable) gives PROP_ERROR with code -1, and the reason, e.g.
 * "apt-get: command not found", both in prop_transport_error() and in
 * r->err.  out and err are NUL-terminated, "" when empty.
 */
PROP_API int prop_transport_run(prop_transport *t, const char *const *argv, const char *stdin_data,
                                size_t stdin_len, prop_cmd_result *r);
/*
 * As prop_transport_run(), for a command that only looks at the target
 * (dpkg-query, systemctl is-active, ...): it tells the transport that
 * what prop_transport_prefetch() fetched is still true afterwards.
 */
PROP_API int prop_transport_query(prop_transport *t, const char *const *argv,
                                  const char *stdin_data, size_t stdin_len, prop_cmd_result *r);
/*
 * A hint: the caller is about to stat, and perhaps read, these paths.  A
 * transport where every operation is a round trip (SSH, a container
 * entered through its parent's commands) fetches the stat of all of them,
 * and the content of the small regular files among them, in one round
 * trip, and answers prop_transport_stat() and
 * prop_transport_read() of those paths from what it fetched: a write,
 * remove, mkdir, symlink or chattr through it asks the target again for
 * the path it touched (for every path, when it may have touched another
 * file through a symbolic link), and a run for every path (query changes
 * nothing).  Paths are taken as they are spelt: give them without "//",
 * "." or ".." and without a trailing '/' (others are not fetched), and
 * know that two names of one file (through a linked directory) are two
 * entries.  The stat of a symbolic link is always asked for; the content
 * of the regular file a link names is fetched, and made stale by any file
 * operation.  The others ignore the hint.  A prefetch that
 * fails leaves nothing behind, and every call then asks the target, so
 * the return is 0 unless the arguments are bad or the connection is lost.
 */
PROP_API int prop_transport_prefetch(prop_transport *t, const char *const *paths, size_t npaths);
/* Read a whole file: *data is malloc'd and NUL-terminated beyond *len. */
PROP_API int prop_transport_read(prop_transport *t, const char *path, char **data, size_t *len);
/*
 * Write atomically: a temporary file in the same directory, mode and owner
 * set, fsync, rename over path.  A reader sees the old content or the new,
 * never a part, and so does the system after a crash; the rename itself
 * lasts a crash once the directory is synced (prop_transport_sync).  An
 * existing file keeps its mode and owner unless attrs say otherwise; a
 * symbolic link at path is replaced by the file (its target is not
 * written); a directory is an error.
 *
 * The temporary file has no name while it is written where the system
 * allows it (Linux: O_TMPFILE, then linked as .NAME.prop-XXXXXX just
 * before the rename); elsewhere it is made under that name.  A process killed outright can still
 * leave one behind, so every write of path first removes the stale ones beside it: regular files
 * (not links) named exactly ".NAME.prop-" and six letters or digits, NAME being path's last
 * component (its first 200 bytes), owned by the user prop runs as or by the owner the file is
 * given.  A symlink removes stale links of that naming the same way.  (The local transport reads a
 * directory once for all its writes there until a command runs; SSH looks
 * each time.)
 */
PROP_API int prop_transport_write(prop_transport *t, const char *path, const char *data, size_t len,
                                  const prop_file_attrs *attrs);
/*
 * As prop_transport_write(), for content that must not be shown (a
 * secret): a dry-run transport (prop_transport_dry()) shows no diff of it.
 * There alone, under PROP_DRY_RUN, data may be NULL (len 0): a secret
 * whose bytes were not made for a dry run; elsewhere that is PROP_EINVAL.
 */
PROP_API int prop_transport_write_secret(prop_transport *t, const char *path, const char *data,
                                         size_t len, const prop_file_attrs *attrs);
PROP_API int prop_transport_stat(prop_transport *t, const char *path, prop_file_stat *st);
/* Remove a file, a symlink or an empty directory. */
PROP_API int prop_transport_remove(prop_transport *t, const char *path);
PROP_API int prop_transport_mkdir(prop_transport *t, const char *path,
                                  const prop_file_attrs *attrs);
/* Make link point at target, replacing what link was (atomically). */
PROP_API int prop_transport_symlink(prop_transport *t, const char *target, const char *link);
/*
 * Set mode and/or owner (attrs fields -1 / NULL are left as they are).
 * Follows a final symbolic link.  Owner and group names are looked up on
 * the target; a name of digits only is a numeric id.
 */
PROP_API int prop_transport_chattr(prop_transport *t, const char *path,
                                   const prop_file_attrs *attrs);
/*
 * As prop_transport_chattr(), and in a directory tree (prop_transport_dir(),
 * a chroot container's files) a regular file with more than one hard link
 * is changed too: every name it has, inside the tree or not.  Elsewhere the
 * same as prop_transport_chattr().
 */
PROP_API int prop_transport_chattr_hardlinks(prop_transport *t, const char *path,
                                             const prop_file_attrs *attrs);
/*
 * Make what was done through t last a crash.  A write, a symlink, a mkdir
 * or a remove is whole when it returns (the file's data is on disk before
 * it takes its name), but the directories whose entries it changed are
 * synced together: each once, here, however many files changed in it.
 * Call it before saying that the work is done; a command run through t,
 * and prop_transport_close(), sync first too (close cannot report a
 * failure).  0, or PROP_ERROR with the directory that could not be
 * synced.  Transports that sync as they go (SSH, containers) return 0.
 */
PROP_API int prop_transport_sync(prop_transport *t);
/*
 * Deferred answers.  Over a slow link every operation that waits for its
 * answer costs a round trip; prop_transport_defer(t, 1) lets t send
 * writes, mkdirs, symlinks and attribute changes without waiting, and
 * returns 1 when t does so (SSH, and a container whose parent does: its
 * operations are then the parent's deferred commands), 0 when every
 * operation is answered when it returns anyway (local, a tree, a container
 * on this machine).  Then:
 *   - each deferred operation returns 0 once sent, and belongs to the
 *     batch named by the last prop_transport_batch() (the executor starts
 *     one for each property it ensures);
 *   - the target runs operations in the order they were called; an
 *     operation that waits for its answer (read, stat, remove, run,
 *     query, prefetch, a large write) collects every earlier answer
 *     first, in the same round trip;
 *   - once a deferred operation of a batch fails, nothing more of that
 *     batch runs on the target (later deferred operations are skipped, and
 *     the next operation that waits fails with that first failure), just
 *     as if the caller had stopped at the failure;
 *   - prop_transport_settle() waits for every answer: PROP_OK, or
 *     PROP_ERROR when the connection is lost (the batches still waiting
 *     then fail with that reason: each file they wrote is old or new,
 *     never partial);
 *   - prop_transport_batch_failure() hands over (malloc'd) the reason a
 *     batch failed for, once, or NULL when none of its operations failed
 *     (as far as answers have come: settle first);
 *   - prop_transport_outstanding() counts the operations sent whose
 *     answer has not been read.
 * prop_transport_sync() and close settle first.
 */
PROP_API int prop_transport_defer(prop_transport *t, int on);
PROP_API void prop_transport_batch(prop_transport *t, unsigned long batch);
PROP_API int prop_transport_settle(prop_transport *t);
PROP_API size_t prop_transport_outstanding(const prop_transport *t);
PROP_API char *prop_transport_batch_failure(prop_transport *t, unsigned long batch);
/*
 * Take the target's run lock (held until close).  When another run holds
 * it, fails with a message naming the holder (pid and start time).
 * Local, as root: /run/lock/prop.lock; a tree: prop-dir-<hash of its
 * realpath>.lock in the same directory (never inside the tree); not root:
 * ${TMPDIR:-/tmp}/prop-<uid>.lock and prop-dir-<hash>.lock there.
 */
PROP_API int prop_transport_lock(prop_transport *t);

/*
 * A TCP exchange with a service of the target, made by prop itself: the
 * probe of a property (an HTTP request to a web server, an SOA query to
 * a name server) needs nothing on the target beyond the service.  The
 * connection is made where the target is:
 *   this machine: a plain connect();
 *   SSH: a direct-tcpip channel (what ssh -L uses), opened by the target's
 *     sshd, so host is resolved there and "127.0.0.1" is its loopback (an
 *     sshd with AllowTcpForwarding off refuses it, and the call says so);
 *   a Docker container (on this machine): from its network namespace
 *     (setns(2) in a child process), so its loopback is the container's;
 *     through a parent over SSH, the container's address on its bridge;
 *   a chroot or systemd-nspawn machine: its parent's network, which it
 *     shares (a machine booted with a private network is reached on the
 *     address its host routes to);
 *   a directory tree: it has no network; the call fails.
 * It connects to host:port (host NULL: "127.0.0.1"), sends the send_len
 * bytes of send, and reads the answer until framing says it is whole:
 *   PROP_TCP_CLOSE: the peer closes the connection (an HTTP/1.0 request);
 *   PROP_TCP_LINE: the first line ("\n") has come (a banner: SMTP, SSH);
 *   PROP_TCP_LEN16: one message of a 16-bit big-endian length and that
 *     many bytes (DNS over TCP, RFC 1035 4.2.2);
 *   PROP_TCP_CONNECT: none: the connection is made (a TLS port, whose
 *     answer prop cannot read), nothing is sent, the answer is "".
 * Everything, connecting included, takes at most timeout_ms (0: 5 s); the
 * answer at most max bytes (0: 1 MiB; more fails).  0 with *out (malloc'd,
 * NUL-terminated beyond *out_len, the caller's) or PROP_ERROR with the
 * reason ("connect to 127.0.0.1:80: Connection refused", "timed out after
 * 5 s", "the connection closed before the answer was whole").  It does
 * not lock and changes no state of the transport: a probe that fails does
 * not end a connection.
 */
#define PROP_TCP_CLOSE 0
#define PROP_TCP_LINE 1
#define PROP_TCP_LEN16 2
#define PROP_TCP_CONNECT 3
typedef struct prop_tcp_req {
    const char *host; /* NULL: "127.0.0.1" */
    int port;         /* 1..65535 */
    const char *send; /* may be NULL when send_len is 0 */
    size_t send_len;
    int framing;    /* PROP_TCP_CLOSE, _LINE, _LEN16 or _CONNECT */
    int timeout_ms; /* 0: 5000 */
    size_t max;     /* 0: 1 MiB */
} prop_tcp_req;
#define PROP_TCP_DEFAULT_TIMEOUT_MS 5000
#define PROP_TCP_DEFAULT_MAX ((size_t)1 << 20)
PROP_API int prop_transport_tcp(prop_transport *t, const prop_tcp_req *req, char **out,
                                size_t *out_len);

/* ---- reaching a host (host_connect.c) ---- */

typedef struct prop_connect_opts {
    int this_machine;    /* the host is this machine: reached locally unless connect.dir */
    int dry;             /* a dry run: a connect.dir tree that is not there is not made */
    int accept_new;      /* SSH: record an unknown host key */
    int connect_timeout; /* SSH: seconds; 0: 10 */
    int op_timeout;      /* SSH: seconds for one operation; 0: 300 */
} prop_connect_opts;

/*
 * Open the transport host h (not a container) asks for in its info
 * (PROP_INFO_CONNECT and the keys under it): this machine (connect
 * "local", or a host named "localhost" without connect info), a directory
 * tree (connect "dir", made when absent unless o->dry), else SSH to
 * connect.address or the host's name.  "~/" in the identity and
 * known_hosts paths is $HOME.  0, or PROP_EUNREACHABLE with the reason in
 * why; *t may be set even on failure (the caller closes it).
 */
PROP_API int prop_host_connect(const prop_host *h, const prop_connect_opts *o, prop_transport **t,
                               char *why, size_t wsize);
/*
 * The transport of container c, through parent (its parent host's, which
 * must outlive it): its kind says how it is entered, PROP_INFO_CONTAINER_PATH
 * and PROP_INFO_CONTAINER_NAME where.  0, or PROP_EUNREACHABLE with why.
 */
PROP_API int prop_container_connect(const prop_host *c, prop_transport *parent, prop_transport **t,
                                    char *why, size_t wsize);
/*
 * The OS family of the target, for a host that does not declare one: its
 * /etc/os-release, else FreeBSD when uname -s says so; PROP_OS_NONE when
 * neither tells.
 */
PROP_API prop_os_set prop_transport_detect_os(prop_transport *t);

#ifdef __cplusplus
}
#endif
#endif /* PROP_TRANSPORT_H */
