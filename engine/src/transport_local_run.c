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
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "spawn.h"
#include "transport_local_impl.h"

extern char **environ;

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

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
    env = prop_calloc(n + 3, sizeof *env);
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

/* The transport's stop requests, for prop_spawn. */
static int
stops_of(void *ud, int *sig)
{
    local_transport *lt = ud;

    *sig = prop_transport_stop_signal(&lt->base);
    return prop_transport_stops(&lt->base);
}

int
prop_local_lt_run(prop_transport *t, const char *const *argv, const char *stdin_data,
                  size_t stdin_len, prop_cmd_result *r)
{
    local_transport *lt = lt_of(t);
    prop_spawn_opts o;
    prop_spawn_result sr;
    char **envp, why[96], size[32];
    const char *path;
    size_t max = prop_transport_max_output(t);
    int rc = PROP_OK;

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
        char err[sizeof t->err];

        memcpy(err, t->err, sizeof err);
        return prop_transport_fail(t, "run %s: not started: %s", argv[0], err);
    }
    if (!(envp = child_env(&path)))
        return prop_transport_fail(t, "run %s: out of memory", argv[0]);
    memset(&o, 0, sizeof o);
    o.argv = (char *const *)argv; /* execve does not change them */
    o.envp = envp;
    o.path = path;
    o.dir = "/";
    o.in = stdin_data;
    o.in_len = stdin_len;
    o.group = PROP_SPAWN_SESSION;
    o.max_output = max;
    o.timeout_ms = (long long)t->timeout_s * 1000;
    if (t->intr) {
        o.stop = stops_of;
        o.stop_ud = lt;
        o.stop_grace_ms = PROP_INTERRUPT_GRACE_MS;
    }
    switch (prop_spawn(&o, &sr)) {
    case PROP_SPAWN_OK:
        break;
    case PROP_SPAWN_SYS:
        if (strcmp(sr.call, "poll") == 0)
            rc = prop_transport_fail(t, "run: poll: %s", strerror(sr.errnum));
        else
            rc = prop_transport_fail(t, "run %s: %s: %s", argv[0], sr.call, strerror(sr.errnum));
        break;
    case PROP_SPAWN_NOT_RUN:
        if (sr.stage == PROP_SPAWN_STAGE_EXEC && sr.errnum == ENOENT)
            prop_transport_fail(t, "%s: command not found", argv[0]);
        else if (sr.stage == PROP_SPAWN_STAGE_EXEC && sr.errnum == EACCES)
            prop_transport_fail(t, "%s: permission denied", argv[0]);
        else if (sr.stage == PROP_SPAWN_STAGE_EXEC)
            prop_transport_fail(t, "%s: cannot run: %s", argv[0], strerror(sr.errnum));
        else if (sr.stage == PROP_SPAWN_STAGE_INTERP)
            prop_transport_fail(t, "%s: cannot run: its interpreter (#!) was not found", argv[0]);
        else
            prop_transport_fail(t, "%s: cannot run: %s: %s", argv[0],
                                sr.stage == PROP_SPAWN_STAGE_CHDIR ? "chdir" : "dup2",
                                strerror(sr.errnum));
        rc = PROP_ERROR;
        r->err = prop_malloc(strlen(t->err) + 2);
        if (r->err) {
            r->err_len = strlen(t->err) + 1;
            memcpy(r->err, t->err, r->err_len - 1);
            memcpy(r->err + r->err_len - 1, "\n", 2);
        }
        goto out;
    case PROP_SPAWN_TIMEOUT:
        rc = prop_transport_fail(t, "run %s: timed out after %d s (--timeout)", argv[0],
                                 t->timeout_s);
        break;
    case PROP_SPAWN_TOO_MUCH:
        snprintf(why, sizeof why, "output over %s (--max-output)",
                 prop_transport_size_text(max, size));
        rc = prop_transport_fail(t, "run %s: %s", argv[0], why);
        break;
    default: /* PROP_SPAWN_NOMEM */
        prop_transport_fail(t, "run: out of memory for the output of the command");
        rc = PROP_ENOMEM;
        break;
    }
    r->code = sr.code;
    if (sr.stopped && rc == PROP_OK)
        rc = prop_transport_fail(t, "run %s: interrupted: the command was stopped (exit status %d)",
                                 argv[0], r->code);
    if (rc != PROP_OK) {
        r->code = -1;
        goto out;
    }
    r->out = prop_buf_take(&sr.out, &r->out_len);
    r->err = prop_buf_take(&sr.err, &r->err_len);
    if (!r->out || !r->err) {
        prop_cmd_result_clear(r);
        prop_transport_fail(t, "run %s: out of memory", argv[0]);
        rc = PROP_ENOMEM;
    }
out:
    prop_buf_free(&sr.out);
    prop_buf_free(&sr.err);
    free(envp);
    return rc;
}
