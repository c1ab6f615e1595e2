/*
 * transport_container.c - a container reached through its parent's
 * transport: a chroot, a systemd-nspawn machine, a Docker container.
 *
 * Every operation is one command run through the parent (this machine, an
 * SSH host, another container): the container's "enter" words (chroot
 * DIR, docker exec -i NAME, ...) then /bin/sh -c SCRIPT sh ARGS..., the
 * scripts being those of transport_sh.c.  So a container needs nothing
 * but a POSIX shell and the usual utilities: no prop, no Lua, no copy of
 * anything.  Writes are atomic inside the container as they are over
 * SSH (a temporary file beside the path, then a rename), and operands are
 * positional parameters, never parsed by a shell.
 *
 * The first thing each script prints is a mark line.  Output without it
 * means the shell never started inside the container (the container is
 * not there, docker is not running, chroot failed): the operation then
 * fails with what the parent's command said, and a command of the
 * caller's is never taken for having run.
 *
 * A chroot on this machine is the exception: its files are read and
 * written directly, through a tree transport rooted at it
 * (prop_transport_dir, which resolves links as inside the chroot and
 * takes names from the tree's own account databases), and only commands
 * go through unshare and chroot.  A converged container then costs a
 * process only for the commands its properties run.
 *
 * The container's run lock is its parent's: prop reaches a container
 * only through its parent, so holding the parent's lock is holding it.
 *
 * Through a parent where every command is a round trip (an SSH host), a
 * prefetch (transport_sh_prefetch.c) fetches the stats and small contents
 * of the files the container's properties name in one command, and reads
 * and stats are answered from it as over SSH itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "transport_sh.h"

#define MARK "prop-in\n"
#define MARK_LEN (sizeof MARK - 1)

/* Every script starts so: the mark, a standard PATH, the C locale. */
#define PRELUDE                                                                                    \
    "printf 'prop-in\\n'\n"                                                                        \
    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n"                          \
    "LC_ALL=C\n"                                                                                   \
    "export PATH LC_ALL\n"

/* A command of the caller's: looked up in PATH first, so that a missing
 * program is told from one that ran and failed. */
static const char run_script[] =
    "command -v -- \"$1\" >/dev/null 2>&1 || { printf '%s: command not found\\n' \"$1\" >&2; "
    "exit 127; }\n"
    "cd / || exit 1\n"
    "exec \"$@\"\n";

typedef struct ctr_tr {
    prop_transport base;
    prop_transport *parent; /* not owned: it outlives this one */
    char **enter;           /* owned, NULL-terminated */
    size_t nenter;
    prop_transport *files; /* owned: the tree, for a chroot on this machine; or NULL */
    prop_pf pf;            /* what a prefetch fetched */
    int defer;             /* file operations deferred through the parent */
    char *docker;          /* owned: the Docker container's name, or NULL (the parent's network) */
} ctr_tr;

/* What the tree transport answered, its reason taken as this one's. */
static int
files_rc(ctr_tr *c, int rc)
{
    if (rc != PROP_OK)
        snprintf(c->base.err, sizeof c->base.err, "%s", prop_transport_error(c->files));
    return rc;
}

/* The parent's command that runs script (after PRELUDE) with args inside
 * the container: *argv and *text malloc'd (argv points into text), or
 * the failure. */
static int
ctr_argv(ctr_tr *c, const char *script, const char *const *args, const char ***argv, char **text,
         const char *what)
{
    size_t nargs = 0, n = 0, i, plen = strlen(PRELUDE), slen = strlen(script);

    while (args[nargs])
        nargs++;
    *argv = prop_calloc(c->nenter + nargs + 5, sizeof **argv);
    *text = prop_malloc(plen + slen + 1);
    if (!*argv || !*text) {
        free(*argv);
        free(*text);
        return prop_transport_fail(&c->base, "%s: out of memory", what);
    }
    memcpy(*text, PRELUDE, plen);
    memcpy(*text + plen, script, slen + 1);
    for (i = 0; i < c->nenter; i++)
        (*argv)[n++] = c->enter[i];
    (*argv)[n++] = "/bin/sh";
    (*argv)[n++] = "-c";
    (*argv)[n++] = *text;
    (*argv)[n++] = "sh";
    for (i = 0; i < nargs; i++)
        (*argv)[n++] = args[i];
    (*argv)[n] = NULL;
    return PROP_OK;
}

/* Run script (after PRELUDE) with args inside the container. */
static int
ctr_exec(ctr_tr *c, const char *script, const char *const *args, const char *in, size_t inlen,
         int query, prop_cmd_result *r, const char *what)
{
    const char **argv;
    char *text;
    int rc;

    memset(r, 0, sizeof *r);
    r->code = -1;
    if ((rc = ctr_argv(c, script, args, &argv, &text, what)) != PROP_OK)
        return rc;
    rc = query ? prop_transport_query(c->parent, argv, in, inlen, r)
               : prop_transport_run(c->parent, argv, in, inlen, r);
    if (rc != PROP_OK) {
        /* The parent's "run unshare: " (or docker, sh) said of the command
         * that enters is this operation's: output over the limit, timed
         * out, interrupted. */
        const char *pe = prop_transport_error(c->parent);
        size_t n = strlen(argv[0]);

        if (strncmp(pe, "run ", 4) == 0 && strncmp(pe + 4, argv[0], n) == 0 &&
            strncmp(pe + 4 + n, ": ", 2) == 0)
            pe += 6 + n;
        rc = prop_transport_fail(&c->base, "%s: %s", what, pe);
        prop_cmd_result_clear(r);
    }
    free(argv);
    free(text);
    if (rc != PROP_OK)
        return rc;
    if (r->out_len < MARK_LEN || memcmp(r->out, MARK, MARK_LEN) != 0) {
        /* The shell did not start inside: what the parent's command said. */
        char said[sizeof c->base.err];

        prop_sh_fail(&c->base, r, "");
        memcpy(said, c->base.err, sizeof said);
        rc = prop_transport_fail(&c->base, "%s: could not enter %s%s", what, c->base.name, said);
        prop_cmd_result_clear(r);
        return rc;
    }
    memmove(r->out, r->out + MARK_LEN, r->out_len - MARK_LEN + 1);
    r->out_len -= MARK_LEN;
    return PROP_OK;
}

static int
ctr_command(prop_transport *t, const char *const *argv, const char *in, size_t inlen,
            prop_cmd_result *r, int query)
{
    ctr_tr *c = (ctr_tr *)t;
    char what[300], want[300];
    int rc;

    snprintf(what, sizeof what, "run %s", argv[0]);
    rc = ctr_exec(c, run_script, argv, in, inlen, query, r, what);
    if (rc != PROP_OK)
        return rc;
    snprintf(want, sizeof want, "%s: command not found\n", argv[0]);
    if (r->code == 127 && strcmp(r->err, want) == 0) {
        prop_transport_fail(t, "%s: command not found", argv[0]);
        r->code = -1;
        return PROP_ERROR;
    }
    return PROP_OK;
}

static int
ctr_run(prop_transport *t, const char *const *argv, const char *in, size_t inlen,
        prop_cmd_result *r)
{
    ctr_tr *c = (ctr_tr *)t;

    /* What was written in the tree lasts before a command can depend on it. */
    if (c->files && files_rc(c, prop_transport_sync(c->files)) != PROP_OK)
        return PROP_ERROR;
    return ctr_command(t, argv, in, inlen, r, 0);
}

/* A script that only looks (read, stat) is a query for the parent. */
static int
ctr_script(ctr_tr *c, const char *script, const char *const *args, const char *in, size_t inlen,
           prop_cmd_result *r, const char *what)
{
    int looks = script == prop_sh_read || script == prop_sh_stat;

    return ctr_exec(c, script, args, in, inlen, looks, r, what);
}

/* The prefetch script inside the container (prop_pf_run): a hint, so any
 * failure is "not to be had". */
static int
ctr_pf_run(void *ud, const char *const *args, prop_cmd_result *r)
{
    ctr_tr *c = ud;

    if (ctr_exec(c, prop_sh_prefetch, args, NULL, 0, 1, r, "prefetch") != PROP_OK)
        return 0;
    if (r->code != 0) {
        prop_cmd_result_clear(r);
        return 0;
    }
    return 1;
}

static int
ctr_prefetch(prop_transport *t, const char *const *paths, size_t npaths)
{
    ctr_tr *c = (ctr_tr *)t;

    if (c->files) /* read directly: nothing to gain */
        return PROP_OK;
    (void)prop_pf_fetch(&c->pf, paths, npaths, c->base.changes, ctr_pf_run, c);
    return PROP_OK;
}

/* A file operation on path (see prop_pf_forget). */
static void
ctr_forget(ctr_tr *c, const char *path, int follows)
{
    prop_pf_forget(&c->pf, path, follows, c->base.changes);
}

static int
ctr_read(prop_transport *t, const char *path, char **data, size_t *len)
{
    ctr_tr *c = (ctr_tr *)t;
    const char *args[] = {path, NULL};
    prop_cmd_result r;
    char what[300];
    int rc;

    if (((ctr_tr *)t)->files)
        return files_rc((ctr_tr *)t, prop_transport_read(((ctr_tr *)t)->files, path, data, len));
    snprintf(what, sizeof what, "read %s", path);
    if ((rc = prop_pf_read(&c->pf, t->changes, t, path, what, data, len)) != 1)
        return rc;
    if ((rc = ctr_script(c, prop_sh_read, args, NULL, 0, &r, what)) != PROP_OK)
        return rc;
    if (r.code == PROP_SH_MISSING) {
        prop_cmd_result_clear(&r);
        prop_transport_fail(t, "%s: no such file or directory", what);
        return PROP_ENOTFOUND;
    }
    if (r.code != 0) {
        rc = prop_sh_fail(t, &r, what);
        prop_cmd_result_clear(&r);
        return rc;
    }
    *data = r.out;
    *len = r.out_len;
    r.out = NULL;
    prop_cmd_result_clear(&r);
    return PROP_OK;
}

static int
ctr_stat(prop_transport *t, const char *path, prop_file_stat *st)
{
    ctr_tr *c = (ctr_tr *)t;
    const char *args[] = {path, NULL};
    prop_cmd_result r;
    char what[300];
    int rc;

    if (((ctr_tr *)t)->files)
        return files_rc((ctr_tr *)t, prop_transport_stat(((ctr_tr *)t)->files, path, st));
    memset(st, 0, sizeof *st);
    snprintf(what, sizeof what, "stat %s", path);
    if ((rc = prop_pf_stat(&c->pf, t->changes, t, path, what, st)) != 1)
        return rc;
    if ((rc = ctr_script(c, prop_sh_stat, args, NULL, 0, &r, what)) != PROP_OK)
        return rc;
    if (r.code == PROP_SH_MISSING) {
        rc = PROP_ENOTFOUND;
        prop_transport_fail(t, "%s: no such file or directory", what);
    } else if (r.code != 0) {
        rc = prop_sh_fail(t, &r, what);
    } else if (prop_sh_parse_stat(r.out, st) < 0) {
        memset(st, 0, sizeof *st);
        rc = prop_transport_fail(t, "%s: unexpected output from stat in the container", what);
    }
    prop_cmd_result_clear(&r);
    return rc;
}

/*
 * Run a script that answers 0 or fails with its stderr.  One that changes
 * the container (not a remove, whose "missing" must be told apart) is sent
 * without waiting when the parent defers it (prop_transport_run_deferred):
 * it then fails its batch, as the parent's own deferred operations do.
 */
static int
ctr_simple(ctr_tr *c, const char *script, const char *const *args, const char *in, size_t inlen,
           const char *what, int missing_ok)
{
    prop_cmd_result r;
    int rc;

    if (c->defer && !missing_ok) {
        const char **argv;
        char *text;

        if ((rc = ctr_argv(c, script, args, &argv, &text, what)) != PROP_OK)
            return rc;
        rc = prop_transport_run_deferred(c->parent, argv, in, inlen, what);
        free(argv);
        free(text);
        if (rc == 0)
            return PROP_OK;
        if (rc != 1)
            return prop_transport_fail(&c->base, "%s", prop_transport_error(c->parent));
    }
    if ((rc = ctr_script(c, script, args, in, inlen, &r, what)) != PROP_OK)
        return rc;
    if (missing_ok && r.code == PROP_SH_MISSING) {
        rc = PROP_ENOTFOUND;
        prop_transport_fail(&c->base, "%s: no such file or directory", what);
    } else if (r.code != 0) {
        rc = prop_sh_fail(&c->base, &r, what);
    }
    prop_cmd_result_clear(&r);
    return rc;
}

static int
ctr_write(prop_transport *t, const char *path, const char *data, size_t len,
          const prop_file_attrs *attrs)
{
    char mode[16], size[32], what[300];
    const char *owner, *group;

    if (((ctr_tr *)t)->files)
        return files_rc((ctr_tr *)t,
                        prop_transport_write(((ctr_tr *)t)->files, path, data, len, attrs));
    ctr_forget((ctr_tr *)t, path, 0);
    prop_sh_attr_args(attrs, mode, &owner, &group);
    snprintf(size, sizeof size, "%zu", len);
    snprintf(what, sizeof what, "write %s", path);
    {
        const char *args[] = {path, mode, owner, group, size, NULL};

        return ctr_simple((ctr_tr *)t, prop_sh_write, args, data, len, what, 0);
    }
}

static int
ctr_remove(prop_transport *t, const char *path)
{
    const char *args[] = {path, NULL};
    char what[300];

    if (((ctr_tr *)t)->files)
        return files_rc((ctr_tr *)t, prop_transport_remove(((ctr_tr *)t)->files, path));
    ctr_forget((ctr_tr *)t, path, 0);
    snprintf(what, sizeof what, "remove %s", path);
    return ctr_simple((ctr_tr *)t, prop_sh_remove, args, NULL, 0, what, 1);
}

static int
ctr_attrs(prop_transport *t, const char *script, const char *op, const char *path,
          const prop_file_attrs *attrs)
{
    char mode[16], what[300];
    const char *owner, *group;

    ctr_forget((ctr_tr *)t, path, 1);
    prop_sh_attr_args(attrs, mode, &owner, &group);
    snprintf(what, sizeof what, "%s %s", op, path);
    {
        const char *args[] = {path, mode, owner, group, NULL};

        return ctr_simple((ctr_tr *)t, script, args, NULL, 0, what, 0);
    }
}

static int
ctr_mkdir(prop_transport *t, const char *path, const prop_file_attrs *attrs)
{
    if (((ctr_tr *)t)->files)
        return files_rc((ctr_tr *)t, prop_transport_mkdir(((ctr_tr *)t)->files, path, attrs));
    return ctr_attrs(t, prop_sh_mkdir, "mkdir", path, attrs);
}

static int
ctr_chattr(prop_transport *t, const char *path, const prop_file_attrs *attrs)
{
    if (((ctr_tr *)t)->files)
        return files_rc((ctr_tr *)t, prop_transport_chattr(((ctr_tr *)t)->files, path, attrs));
    return ctr_attrs(t, prop_sh_chattr, "chattr", path, attrs);
}

static int
ctr_symlink(prop_transport *t, const char *target, const char *link)
{
    const char *args[] = {target, link, NULL};
    char what[300];

    if (((ctr_tr *)t)->files)
        return files_rc((ctr_tr *)t, prop_transport_symlink(((ctr_tr *)t)->files, target, link));
    ctr_forget((ctr_tr *)t, link, 0);
    snprintf(what, sizeof what, "symlink %s", link);
    return ctr_simple((ctr_tr *)t, prop_sh_symlink, args, NULL, 0, what, 0);
}

static int
ctr_lock(prop_transport *t)
{
    ctr_tr *c = (ctr_tr *)t;

    if (prop_transport_lock(c->parent) != PROP_OK)
        return prop_transport_fail(t, "%s", prop_transport_error(c->parent));
    return PROP_OK;
}

/* Scripts sync as they go; the tree of a chroot on this machine, here. */
static int
ctr_sync(prop_transport *t)
{
    ctr_tr *c = (ctr_tr *)t;

    return c->files ? files_rc(c, prop_transport_sync(c->files)) : PROP_OK;
}

/* Deferred answers (prop_transport_defer): the parent's, when it defers
 * the container's commands; a chroot's tree on this machine does not. */
static int
ctr_defer(prop_transport *t, int on)
{
    ctr_tr *c = (ctr_tr *)t;
    int rc;

    if (c->files || !c->parent->ops->run_deferred)
        return c->defer = 0;
    if ((rc = prop_transport_defer(c->parent, on)) < 0)
        return prop_transport_fail(t, "%s", prop_transport_error(c->parent));
    return c->defer = on && rc == 1;
}

static void
ctr_batch(prop_transport *t, unsigned long batch)
{
    if (((ctr_tr *)t)->defer)
        prop_transport_batch(((ctr_tr *)t)->parent, batch);
}

static int
ctr_settle(prop_transport *t)
{
    ctr_tr *c = (ctr_tr *)t;

    if (c->defer && prop_transport_settle(c->parent) != PROP_OK)
        return prop_transport_fail(t, "%s", prop_transport_error(c->parent));
    return PROP_OK;
}

static size_t
ctr_outstanding(const prop_transport *t)
{
    const ctr_tr *c = (const ctr_tr *)t;

    return c->defer ? prop_transport_outstanding(c->parent) : 0;
}

static char *
ctr_batch_failure(prop_transport *t, unsigned long batch)
{
    ctr_tr *c = (ctr_tr *)t;

    return c->defer ? prop_transport_batch_failure(c->parent, batch) : NULL;
}

static void
ctr_close(prop_transport *t)
{
    ctr_tr *c = (ctr_tr *)t;
    size_t i;

    for (i = 0; i < c->nenter; i++)
        free(c->enter[i]);
    free(c->enter);
    prop_pf_clear(&c->pf);
    prop_transport_close(c->files);
    free(c->docker);
    free(c);
}

/*
 * A TCP probe of the container's service.  A chroot and a systemd-nspawn
 * machine share the parent's network (or are routed from it): the
 * parent connects.  A Docker container has a network of its own: on
 * this machine, from its namespace (its loopback is its own); through
 * another parent, a loopback address becomes the container's address
 * on its network, which the parent reaches.
 */
/* What the parent answered, its reason taken as this one's. */
static int
parent_rc(ctr_tr *c, int rc)
{
    if (rc != PROP_OK)
        snprintf(c->base.err, sizeof c->base.err, "%s", prop_transport_error(c->parent));
    return rc;
}

static int
loopback(const char *h)
{
    return strcmp(h, "localhost") == 0 || strcmp(h, "::1") == 0 || strncmp(h, "127.", 4) == 0;
}

static int
ctr_tcp(prop_transport *t, const prop_tcp_req *req, char **out, size_t *out_len)
{
    ctr_tr *c = (ctr_tr *)t;
    const char *argv[] = {"docker",
                          "inspect",
                          "-f",
                          "{{.State.Pid}} {{range .NetworkSettings.Networks}}{{.IPAddress}} "
                          "{{end}}",
                          "--",
                          c->docker,
                          NULL};
    prop_cmd_result r = {0};
    prop_tcp_req rq = *req;
    char ip[64] = "";
    long pid = 0;
    int rc;

    if (!c->docker)
        return parent_rc(c, prop_transport_tcp(c->parent, req, out, out_len));
    if ((rc = prop_transport_query(c->parent, argv, NULL, 0, &r)) != PROP_OK || r.code != 0) {
        if (rc == PROP_OK)
            prop_transport_fail(t, "connect to %s:%d: docker inspect %s: %.300s", req->host,
                                req->port, c->docker, r.err ? r.err : "");
        else
            prop_transport_fail(t, "connect to %s:%d: %s", req->host, req->port,
                                prop_transport_error(c->parent));
        prop_cmd_result_clear(&r);
        return PROP_ERROR;
    }
    if (sscanf(r.out ? r.out : "", "%ld %63s", &pid, ip) < 1 || pid <= 0) {
        prop_cmd_result_clear(&r);
        return prop_transport_fail(t, "connect to %s:%d: docker container %s is not running",
                                   req->host, req->port, c->docker);
    }
    prop_cmd_result_clear(&r);
    if (prop_transport_is_this_machine(c->parent))
        return prop_tcp_exchange(t, req, pid, out, out_len);
    if (loopback(req->host) && ip[0])
        rq.host = ip;
    return parent_rc(c, prop_transport_tcp(c->parent, &rq, out, out_len));
}

static const prop_transport_ops ctr_ops = {
    .run = ctr_run,
    .read = ctr_read,
    .write = ctr_write,
    .stat = ctr_stat,
    .remove = ctr_remove,
    .mkdir = ctr_mkdir,
    .symlink = ctr_symlink,
    .chattr = ctr_chattr,
    .lock = ctr_lock,
    .close = ctr_close,
    .sync = ctr_sync,
    .prefetch = ctr_prefetch,
    .defer = ctr_defer,
    .batch = ctr_batch,
    .settle = ctr_settle,
    .outstanding = ctr_outstanding,
    .batch_failure = ctr_batch_failure,
    .tcp = ctr_tcp,
};

int
prop_transport_container(prop_transport **out, prop_transport *parent, const char *const *enter,
                         const char *name)
{
    ctr_tr *c;
    size_t n = 0, i;

    *out = NULL;
    if (!parent || !enter || !enter[0] || !name)
        return PROP_EINVAL;
    while (enter[n])
        n++;
    if (!(c = prop_calloc(1, sizeof *c)) || !(c->enter = prop_calloc(n + 1, sizeof *c->enter))) {
        free(c);
        return PROP_ENOMEM;
    }
    c->base.ops = &ctr_ops;
    c->parent = parent;
    snprintf(c->base.name, sizeof c->base.name, "%s", name);
    for (i = 0; i < n; i++) {
        if (!(c->enter[i] = prop_strdup(enter[i]))) {
            c->nenter = i;
            ctr_close(&c->base);
            return PROP_ENOMEM;
        }
    }
    c->nenter = n;
    *out = &c->base;
    return PROP_OK;
}

/*
 * A chroot, entered from its parent: a mount and PID namespace of its own
 * (unshare), with /proc mounted for it and the parent's /dev bound in,
 * both gone when the command ends, as is every process it started (the
 * namespace's first process ends them): nothing it starts outlives it.
 *
 * The namespace's first process is the parent's shell, which waits for
 * the command and is not replaced by it: the kernel gives a namespace's
 * first process no signal it has no handler for, so a command in its
 * place would never see the SIGTERM of an interruption (the process group
 * is signalled, see prop_transport_set_interrupt) and would be stopped
 * only by the SIGKILL that follows it after PROP_INTERRUPT_GRACE_MS.
 */
static const char chroot_enter[] = "r=$1; shift\n"
                                   "mount --rbind /dev \"$r/dev\" || exit 125\n"
                                   "chroot \"$r\" \"$@\"\n"
                                   "exit $?\n";

int
prop_transport_chroot(prop_transport **out, prop_transport *parent, const char *dir,
                      const char *name)
{
    char proc[4200], full[1200];
    const char *enter[] = {"unshare",      "--mount", "--pid",   "--fork",
                           "--kill-child", proc,      "/bin/sh", "-c",
                           chroot_enter,   "sh",      dir,       NULL};
    prop_transport *files = NULL;
    int rc;

    if (!dir || dir[0] != '/' || strlen(dir) > 4000)
        return PROP_EINVAL;
    snprintf(proc, sizeof proc, "--mount-proc=%s/proc", dir);
    snprintf(full, sizeof full, "chroot %s (%s)", name ? name : dir, dir);
    if ((rc = prop_transport_container(out, parent, enter, full)) != PROP_OK)
        return rc;
    /* On this machine, the files through the tree (when it can be opened:
     * else, as through any parent, by the shell inside). */
    if (prop_transport_is_this_machine(parent)) {
        rc = prop_transport_dir(&files, dir);
        if (rc == PROP_ENOMEM) {
            prop_transport_close(*out);
            *out = NULL;
            return rc;
        }
        if (rc != PROP_OK) {
            prop_transport_close(files);
            files = NULL;
        }
        ((ctr_tr *)*out)->files = files;
    }
    return PROP_OK;
}

/*
 * A systemd-nspawn machine: into the running machine's namespaces when it
 * runs, else a container of its own for the command (systemd-nspawn
 * --pipe in command mode).  The running machine's leader (its init) is
 * the one machinectl knows; a machine booted without systemd-machined
 * (systemd-nspawn --register=no, on a host whose init is not systemd) is
 * found by its systemd-nspawn's command line (-D DIR), the first child of
 * which is its init once /run/systemd/system exists in it (a shell in
 * command mode never makes it).
 *
 * Whoever runs a process may name it systemd-nspawn and give it -D DIR,
 * and machined may know a machine of that name that is not this tree: a
 * leader is entered only when it is root's (its four user ids 0), the
 * child of a systemd-nspawn that is root's, with the tree itself as its
 * root directory (the same device and inode); it is entered with its
 * namespaces and that root directory (nsenter -a -r).  A systemd-nspawn
 * naming the tree that is not root's, or a leader that fails those tests,
 * is refused, saying which process and why: the properties run neither
 * in it nor in a machine of their own beside it.  The machine's own
 * systemd-nspawn@.service is started by systemd.nspawned, so machined
 * then knows it.
 *
 * Command mode needs no system bus: --register=no and --keep-unit (no
 * scope unit asked of systemd); it ignores the machine's .nspawn file
 * (--settings=no), whose Boot=, private network and binds are for the
 * booted machine: the shell that provisions the tree shares the parent's
 * network.
 */
static const char nspawn_enter[] =
    "n=$1 d=$2; shift 2\n"
    "no() { printf '%s\\n' \"$*\" >&2; exit 125; }\n"
    /* u: the real, effective, saved and file user ids of process $1; pp:
     * its parent (both empty when it is gone). */
    "st() {\n"
    "  u= pp=\n"
    "  while read -r sk sa sb sc sd; do\n"
    "    case $sk in PPid:) pp=$sa ;; Uid:) u=\"$sa $sb $sc $sd\" ;; esac\n"
    "  done 2>/dev/null <\"/proc/$1/status\"\n"
    "}\n"
    "t=$(stat -L -c %d:%i -- \"$d\" 2>/dev/null) || t=\n"
    /* Whether process $1 is the tree's init; w says why not. */
    "ok() {\n"
    "  st \"$1\"; q=$pp\n"
    "  [ \"$u\" = '0 0 0 0' ] || { w=\"its init, process $1, runs as user ids ${u:-(gone)}, "
    "not root's\"; return 1; }\n"
    "  m=; read -r m 2>/dev/null <\"/proc/$q/comm\"; st \"$q\"\n"
    "  [ \"$m\" = systemd-nspawn ] && [ \"$u\" = '0 0 0 0' ] || { w=\"its init, process $1, is not "
    "the child of a systemd-nspawn of root's\"; return 1; }\n"
    "  [ -n \"$t\" ] && [ \"$(stat -L -c %d:%i \"/proc/$1/root\" 2>/dev/null)\" = \"$t\" ] || "
    "{ w=\"the root directory of its init, process $1, is not $d\"; return 1; }\n"
    "}\n"
    "l=$(machinectl show \"$n\" -p Leader --value 2>/dev/null) || l=\n"
    "if [ -n \"$l\" ] && [ \"$l\" != 0 ]; then\n"
    "  ok \"$l\" || no \"systemd-machined knows a machine $n, but $w: it is not entered\"\n"
    "else\n"
    "  l=\n"
    "  for p in /proc/[0-9]*; do\n"
    "    c=; read -r c 2>/dev/null <\"$p/comm\"; [ \"$c\" = systemd-nspawn ] || continue\n"
    "    tr '\\000' '\\n' <\"$p/cmdline\" 2>/dev/null | d=\"$d\" awk '\n"
    "      x { if ($0 == ENVIRON[\"d\"]) f = 1; x = 0 }\n"
    "      $0 == \"-D\" || $0 == \"--directory\" { x = 1 }\n"
    "      $0 == \"-D\" ENVIRON[\"d\"] || $0 == \"--directory=\" ENVIRON[\"d\"] { f = 1 }\n"
    "      END { exit !f }' || continue\n"
    "    p=${p#/proc/}; st \"$p\"; [ -n \"$u\" ] || continue\n"
    "    [ \"$u\" = '0 0 0 0' ] || no \"process $p runs systemd-nspawn -D $d as user ids $u, not "
    "root's: it is not the machine, which is neither entered nor run beside it\"\n"
    "    for c in $(cat /proc/\"$p\"/task/*/children 2>/dev/null); do\n"
    "      [ -d \"/proc/$c/root/run/systemd/system\" ] || break\n"
    "      ok \"$c\" || no \"process $p runs systemd-nspawn -D $d, but $w: it is not entered\"\n"
    "      l=$c\n"
    "      break\n"
    "    done\n"
    "    [ -n \"$l\" ] && break\n"
    "  done\n"
    "fi\n"
    "if [ -n \"$l\" ]; then exec nsenter -t \"$l\" -a -r -- \"$@\"; fi\n"
    "exec systemd-nspawn -q --pipe --register=no --keep-unit --settings=no -D \"$d\" -- "
    "\"$@\"\n";

int
prop_transport_nspawn(prop_transport **out, prop_transport *parent, const char *machine,
                      const char *dir)
{
    char full[1200];
    const char *enter[] = {"/bin/sh", "-c", nspawn_enter, "sh", machine, dir, NULL};

    if (!machine || !dir || dir[0] != '/')
        return PROP_EINVAL;
    snprintf(full, sizeof full, "systemd-nspawn machine %s", machine);
    return prop_transport_container(out, parent, enter, full);
}

int
prop_transport_docker(prop_transport **out, prop_transport *parent, const char *container)
{
    char full[1200];
    const char *enter[] = {"docker", "exec", "-i", container, NULL};
    int rc;

    if (!container || !container[0] || container[0] == '-')
        return PROP_EINVAL;
    snprintf(full, sizeof full, "docker container %s", container);
    if ((rc = prop_transport_container(out, parent, enter, full)) != PROP_OK)
        return rc;
    if (!(((ctr_tr *)*out)->docker = prop_strdup(container))) {
        prop_transport_close(*out);
        *out = NULL;
        return PROP_ENOMEM;
    }
    return PROP_OK;
}
