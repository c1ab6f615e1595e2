/*
 * cmd_run.c - prop run SITE [HOST...]: make every named host (every host
 * when none is named) the way the site says.
 *
 * The site is evaluated and checked first; nothing runs when the pre-pass
 * reports an error.  Each host is reached through the transport its
 * connect.* info names (this machine for "localhost" or connect.local, a
 * directory tree for connect.dir, SSH otherwise), its run lock is taken,
 * and the executor (engine/src/exec.c) ensures its properties in order;
 * each leaf's check/apply/ensure runs here, in Lua, with a `sys` handle.
 *
 * Several hosts run in parallel (-j N) in forked children: each child has
 * the evaluated site already (copy-on-write), runs one host, and sends its
 * output lines through a pipe; the parent writes whole lines only, so the
 * output of parallel hosts never interleaves mid-line.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>

#include "cli.h"
#include "lsys.h"
#include "prop/exec.h"

#define DEFAULT_JOBS 8
#define EXIT_INTERRUPTED 130
#define SUMMARY_MARK '\001' /* a child's last line: its outcome, for the parent */

typedef struct run_opts {
    cli_site_opts site;
    int dry, diff, json, jobs;
    int accept_new;
    int connect_timeout, op_timeout;
} run_opts;

/* What became of one host. */
typedef struct outcome {
    unsigned ok, changed, failed, skipped;
    int unreachable; /* could not be reached (or its key was refused) */
    int stopped;     /* interrupted */
    double ms;
} outcome;

/* Everything the executor's callbacks need for one host. */
typedef struct host_run {
    lprop_ctx *ctx;
    const run_opts *o;
    const prop_host *h;
    const char *name;
    lsys sys;
    int sys_idx;          /* stack index of the `sys` userdata */
    int progress;         /* a terminal: show the running property */
    int color;            /* colour on stdout */
    const prop_node *top; /* the top-level property running now */
} host_run;

static volatile sig_atomic_t stop_requested;

static void
on_signal(int sig)
{
    (void)sig;
    stop_requested++;
}

static int
want_stop(void *ud)
{
    (void)ud;
    return stop_requested > 0;
}

static double
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static const char *
origin_of(const prop_node *n, char *buf, size_t size)
{
    const prop_origin *o = prop_node_origin(n);

    if (o == NULL || o->nframes == 0) {
        snprintf(buf, size, "?");
        return buf;
    }
    snprintf(buf, size, "%s:%d", o->frames[0].file, o->frames[0].line);
    return buf;
}

static void
json_str(const char *s)
{
    prop_json_write_string(stdout, s ? s : "", s ? strlen(s) : 0);
}

static const char *
result_color(prop_result r)
{
    switch (r) {
    case PROP_RESULT_OK:
        return "\033[32m";
    case PROP_RESULT_CHANGED:
        return "\033[33m";
    case PROP_RESULT_FAILED:
        return "\033[1;31m";
    }
    return "";
}

/* ---- the executor's callbacks ------------------------------------------ */

/* Message handler: the error's text, bounded (errors may be any value). */
static int
leaf_msgh(lua_State *L)
{
    return lprop_msgh(L);
}

/*
 * Call impl[field](sys, args) protected, with a fresh instruction budget.
 * 0 with the result's type and truth ("ok" is false, "changed" true), or
 * -1 with *msg set to the error (malloc'd).
 */
static int
call_impl(host_run *hr, const char *field, int impl_idx, int args_idx, int *ret_type, int *ret_true,
          char **msg)
{
    lua_State *L = hr->ctx->L;
    int base;

    lua_pushcfunction(L, leaf_msgh);
    base = lua_gettop(L);
    lua_getfield(L, impl_idx, field);
    lua_pushvalue(L, hr->sys_idx);
    lua_pushvalue(L, args_idx);
    lprop_budget_reset(hr->ctx);
    if (lua_pcall(L, 2, 1, base) != LUA_OK) {
        const char *e = lua_tostring(L, -1);
        *msg = strdup(e ? e : "error");
        lua_settop(L, base - 1);
        return -1;
    }
    *ret_type = lua_type(L, -1);
    *ret_true = lua_toboolean(L, -1);
    if (*ret_type == LUA_TSTRING && strcmp(lua_tostring(L, -1), "ok") == 0)
        *ret_true = 0, *ret_type = LUA_TBOOLEAN;
    else if (*ret_type == LUA_TSTRING && strcmp(lua_tostring(L, -1), "changed") == 0)
        *ret_true = 1, *ret_type = LUA_TBOOLEAN;
    lua_settop(L, base - 1);
    return 0;
}

static int
has_field(lua_State *L, int idx, const char *field)
{
    int t = lua_getfield(L, idx, field);
    lua_pop(L, 1);
    return t == LUA_TFUNCTION;
}

static prop_result
ensure_leaf(void *ud, const prop_node *leaf, char **msg)
{
    host_run *hr = ud;
    lua_State *L = hr->ctx->L;
    long id = prop_node_behaviour(leaf);
    int top = lua_gettop(L), impl, args, rt = 0, rv = 0;
    prop_result r = PROP_RESULT_FAILED;

    if (id < 0)
        return PROP_RESULT_OK;
    lua_getfield(L, LUA_REGISTRYINDEX, LPROP_BEHAVIOURS);
    lua_rawgeti(L, -1, id);
    impl = lua_gettop(L);
    lua_getfield(L, LUA_REGISTRYINDEX, LPROP_BEHAVIOUR_ARGS);
    lua_rawgeti(L, -1, id);
    args = lua_gettop(L);
    if (!lua_istable(L, impl)) {
        r = PROP_RESULT_OK; /* carries facts only */
        goto done;
    }
    lsys_begin(&hr->sys);
    if (has_field(L, impl, "ensure")) {
        if (call_impl(hr, "ensure", impl, args, &rt, &rv, msg) != 0)
            goto done;
        r = (rv && rt == LUA_TBOOLEAN) || hr->sys.changes ? PROP_RESULT_CHANGED : PROP_RESULT_OK;
        goto done;
    }
    if (has_field(L, impl, "check")) {
        hr->sys.in_check = 1;
        if (call_impl(hr, "check", impl, args, &rt, &rv, msg) != 0) {
            hr->sys.in_check = 0;
            goto done;
        }
        hr->sys.in_check = 0;
        if (rv) {
            r = PROP_RESULT_OK;
            goto done;
        }
    }
    if (!has_field(L, impl, "apply")) {
        r = PROP_RESULT_OK;
        goto done;
    }
    if (call_impl(hr, "apply", impl, args, &rt, &rv, msg) != 0)
        goto done;
    /* apply says "ok" or false when it found nothing to do. */
    if (rt == LUA_TBOOLEAN && !rv && hr->sys.changes == 0)
        r = PROP_RESULT_OK;
    else
        r = PROP_RESULT_CHANGED;
done:
    lua_settop(L, top);
    return r;
}

static void
on_start(void *ud, const prop_node *n, unsigned depth)
{
    host_run *hr = ud;

    if (depth == 0) {
        hr->top = n;
        if (hr->progress) {
            printf("%s  %s ...", hr->name, prop_node_desc(n));
            fflush(stdout);
        }
    }
}

static void
print_notes(host_run *hr, const char *parent, char *notes)
{
    char *line, *save = NULL;

    if (notes == NULL)
        return;
    if (hr->o->json) {
        for (line = strtok_r(notes, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
            fputs("{\"event\":\"note\",\"host\":", stdout);
            json_str(hr->name);
            fputs(",\"parent\":", stdout);
            json_str(parent);
            fputs(",\"text\":", stdout);
            json_str(line);
            fputs("}\n", stdout);
        }
        return;
    }
    for (line = strtok_r(notes, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        printf("%s    %s\n", hr->name, line);
}

static void
on_done(void *ud, const prop_node *n, unsigned depth, prop_result r, double ms, const char *msg)
{
    host_run *hr = ud;
    char where[1200];

    if (r == PROP_RESULT_FAILED && msg && *msg) {
        /* Every failure's reason, innermost first, shown under its property. */
        char line[2400];
        int len;
        if (depth > 0)
            len = snprintf(line, sizeof line, "failed: %s: %s", prop_node_desc(n), msg);
        else
            len = snprintf(line, sizeof line, "failed: %s", msg);
        if (len > 0)
            lsys_note(&hr->sys, line, (size_t)len < sizeof line ? (size_t)len : sizeof line - 1);
    }
    if (depth > 0) {
        if (hr->o->json && prop_node_kind(n) == PROP_LEAF) {
            fputs("{\"event\":\"property\",\"host\":", stdout);
            json_str(hr->name);
            fputs(",\"parent\":", stdout);
            json_str(prop_node_desc(hr->top));
            fputs(",\"desc\":", stdout);
            json_str(prop_node_desc(n));
            fputs(",\"origin\":", stdout);
            json_str(origin_of(n, where, sizeof where));
            printf(",\"result\":\"%s\",\"ms\":%.1f}\n", prop_result_name(r), ms);
        }
        return;
    }
    if (hr->o->json) {
        fputs("{\"event\":\"property\",\"host\":", stdout);
        json_str(hr->name);
        fputs(",\"desc\":", stdout);
        json_str(prop_node_desc(n));
        fputs(",\"origin\":", stdout);
        json_str(origin_of(n, where, sizeof where));
        printf(",\"result\":\"%s\",\"ms\":%.1f%s}\n", prop_result_name(r), ms,
               hr->o->dry ? ",\"dry_run\":true" : "");
    } else {
        if (hr->progress)
            fputs("\r\033[K", stdout);
        printf("%s  %s ... %s%s%s", hr->name, prop_node_desc(n), hr->color ? result_color(r) : "",
               prop_result_name(r), hr->color ? "\033[0m" : "");
        if (ms >= 1000)
            printf(" (%.1f s)", ms / 1000);
        putchar('\n');
    }
    {
        char *notes = lsys_take_notes(&hr->sys);
        print_notes(hr, prop_node_desc(n), notes);
        free(notes);
    }
    fflush(stdout);
}

/* ---- reaching a host ------------------------------------------------- */

/* "~/x" under $HOME; other paths as they are.  Returns buf or path. */
static const char *
expand_home(const char *path, char *buf, size_t size)
{
    const char *home = getenv("HOME");

    if (path == NULL || strncmp(path, "~/", 2) != 0 || home == NULL)
        return path;
    snprintf(buf, size, "%s/%s", home, path + 2);
    return buf;
}

/*
 * Open the transport for h.  0, or PROP_EUNREACHABLE/PROP_ERROR with a
 * reason in why.  *t may be set even on failure (the caller closes it).
 */
static int
open_transport(const run_opts *o, const prop_host *h, prop_transport **t, char *why, size_t wsize)
{
    const char *how = prop_host_info(h, "connect", 0);
    const char *name = prop_host_name(h);
    int rc;

    *t = NULL;
    if ((how == NULL && strcmp(name, "localhost") == 0) || (how && strcmp(how, "local") == 0)) {
        rc = prop_transport_local(t);
    } else if (how && strcmp(how, "dir") == 0) {
        const char *root = prop_host_info(h, "dir.path", 0);
        struct stat st;
        if (root == NULL) {
            snprintf(why, wsize, "connect.dir without a path");
            return PROP_EUNREACHABLE;
        }
        if (stat(root, &st) != 0) {
            if (errno != ENOENT || o->dry) {
                snprintf(why, wsize, "%s: %s%s", root, strerror(errno),
                         o->dry ? " (a real run creates it)" : "");
                return PROP_EUNREACHABLE;
            }
            if (mkdir(root, 0755) != 0) {
                snprintf(why, wsize, "cannot make the tree %s: %s", root, strerror(errno));
                return PROP_EUNREACHABLE;
            }
        }
        rc = prop_transport_dir(t, root);
    } else {
        prop_ssh_opts so;
        char kh[4096], id[4096];
        const char *port = prop_host_info(h, "ssh.port", 0);
        const char *sudo = prop_host_info(h, "ssh.sudo", 0);
        memset(&so, 0, sizeof so);
        so.address = prop_host_info(h, "ssh.address", 0);
        if (so.address == NULL)
            so.address = name;
        so.port = port ? atoi(port) : 22;
        so.user = prop_host_info(h, "ssh.user", 0);
        so.identity = expand_home(prop_host_info(h, "ssh.identity", 0), id, sizeof id);
        so.known_hosts = expand_home(prop_host_info(h, "ssh.known_hosts", 0), kh, sizeof kh);
        so.sudo = sudo && strcmp(sudo, "true") == 0;
        so.accept_new = o->accept_new;
        so.connect_timeout = o->connect_timeout;
        so.op_timeout = o->op_timeout;
        rc = prop_transport_ssh(t, &so);
        if (rc != PROP_OK) {
            snprintf(why, wsize, "%s",
                     *t ? prop_transport_error(*t) : "this prop was built without SSH support");
            return PROP_EUNREACHABLE;
        }
        return PROP_OK;
    }
    if (rc != PROP_OK)
        snprintf(why, wsize, "%s", *t ? prop_transport_error(*t) : "out of memory");
    return rc == PROP_OK ? PROP_OK : PROP_EUNREACHABLE;
}

/* The OS family of the target when the site does not declare it: /etc/os-release, uname. */
static prop_os_set
detect_os(prop_transport *t)
{
    char *data = NULL;
    size_t len = 0;
    prop_os_set os = PROP_OS_NONE;
    prop_cmd_result r = {-1, NULL, 0, NULL, 0};
    const char *const uname[] = {"uname", "-s", NULL};

    if (prop_transport_read(t, "/etc/os-release", &data, &len) == PROP_OK) {
        if (strstr(data, "\nID=debian") || strncmp(data, "ID=debian", 9) == 0)
            os = PROP_OS_DEBIAN;
        else if (strstr(data, "ID=ubuntu") || strstr(data, "ID_LIKE=ubuntu") ||
                 strstr(data, "ID_LIKE=\"ubuntu"))
            os = PROP_OS_BUNTISH;
        else if (strstr(data, "ID_LIKE=debian") || strstr(data, "ID_LIKE=\"debian"))
            os = PROP_OS_DEBIAN;
        else if (strstr(data, "ID=freebsd") || strstr(data, "ID=\"freebsd"))
            os = PROP_OS_FREEBSD;
    }
    free(data);
    if (os == PROP_OS_NONE && prop_transport_query(t, uname, NULL, 0, &r) == PROP_OK &&
        r.code == 0 && r.out && strncmp(r.out, "FreeBSD", 7) == 0)
        os = PROP_OS_FREEBSD;
    prop_cmd_result_clear(&r);
    return os;
}

/* The "os" info is "family suite arch": split into sys.suite and sys.arch. */
static void
split_os_info(const prop_host *h, char suite[64], char arch[64])
{
    const char *info = prop_host_info(h, "os", 0);

    suite[0] = arch[0] = '\0';
    if (info && sscanf(info, "%*s %63s %63s", suite, arch) < 1)
        suite[0] = '\0';
}

static void
print_host_line(const run_opts *o, const char *name, const outcome *oc, const char *why, int color)
{
    if (o->json) {
        fputs("{\"event\":\"host\",\"host\":", stdout);
        json_str(name);
        printf(",\"ok\":%u,\"changed\":%u,\"failed\":%u,\"ms\":%.1f", oc->ok, oc->changed,
               oc->failed, oc->ms);
        if (oc->unreachable) {
            fputs(",\"unreachable\":true,\"error\":", stdout);
            json_str(why);
        }
        if (oc->stopped)
            printf(",\"interrupted\":true,\"skipped\":%u", oc->skipped);
        if (o->dry)
            fputs(",\"dry_run\":true", stdout);
        fputs("}\n", stdout);
        return;
    }
    if (oc->unreachable) {
        printf("%s  %sunreachable%s: %s\n", name, color ? "\033[1;31m" : "", color ? "\033[0m" : "",
               why);
        return;
    }
    printf("%s: %u ok, %u changed, %u failed", name, oc->ok, oc->changed, oc->failed);
    if (oc->stopped)
        printf(", %u not run (interrupted)", oc->skipped);
    printf(" in %.1f ms%s\n", oc->ms, o->dry ? " (dry run: nothing was changed)" : "");
}

typedef struct path_list {
    const char **v;
    size_t n, cap;
    int oom;
} path_list;

/* The paths n and the nodes below it claim (file.* claims). */
static void
claimed_paths(const prop_node *n, path_list *l)
{
    size_t i, nc = prop_node_nclaims(n);

    for (i = 0; i < nc && !l->oom; i++) {
        const prop_claim *c = prop_node_claim(n, i);

        /* The file.* kinds come first in prop_claim_kind. */
        if (c->kind > PROP_CLAIM_FILE_NO_LINE || !c->key || c->key[0] != '/')
            continue;
        if (l->n == l->cap) {
            size_t cap = l->cap ? 2 * l->cap : 64;
            const char **v = realloc(l->v, cap * sizeof *v);

            if (!v) {
                l->oom = 1;
                return;
            }
            l->v = v;
            l->cap = cap;
        }
        l->v[l->n++] = c->key;
    }
    for (i = 0; i < prop_node_nchildren(n); i++)
        claimed_paths(prop_node_child(n, i), l);
}

/*
 * Tell the transport which files the host's properties are about to look
 * at (and /etc/os-release when the OS is to be found out): over SSH their
 * stats and small contents then come in two round trips instead of two
 * per property.  A hint: nothing depends on it.
 */
static void
prefetch(prop_transport *t, const prop_host *h, int os_unknown)
{
    static const char os_release[] = "/etc/os-release";
    path_list l = {0};
    size_t i;

    if (os_unknown) {
        if (!(l.v = malloc(64 * sizeof *l.v)))
            return;
        l.cap = 64;
        l.v[l.n++] = os_release;
    }
    for (i = 0; i < prop_host_nprops(h); i++)
        claimed_paths(prop_host_prop(h, i), &l);
    if (!l.oom && l.n)
        (void)prop_transport_prefetch(t, l.v, l.n);
    free(l.v);
}

/* Run one host; prints its lines and its summary line. */
static void
run_host(lprop_ctx *ctx, const run_opts *o, const prop_host *h, int progress, int color,
         outcome *oc)
{
    lua_State *L = ctx->L;
    host_run hr;
    prop_exec_ops ops = {ensure_leaf, on_start, on_done, want_stop};
    prop_transport *t = NULL;
    char why[1200] = "", suite[64], arch[64];
    prop_os_set os;
    size_t i, n = prop_host_nprops(h);
    double t0 = now_ms();
    int top = lua_gettop(L);

    memset(oc, 0, sizeof *oc);
    memset(&hr, 0, sizeof hr);
    hr.ctx = ctx;
    hr.o = o;
    hr.h = h;
    hr.name = prop_host_name(h);
    hr.progress = progress && !o->json;
    hr.color = color && !o->json;
    if (open_transport(o, h, &t, why, sizeof why) != PROP_OK) {
        oc->unreachable = 1;
        goto out;
    }
    if (prop_transport_lock(t) != PROP_OK) {
        snprintf(why, sizeof why, "%s", prop_transport_error(t));
        oc->unreachable = 1;
        goto out;
    }
    os = prop_host_os(h);
    prefetch(t, h, os == PROP_OS_NONE);
    if (os == PROP_OS_NONE)
        os = detect_os(t);
    split_os_info(h, suite, arch);
    hr.sys.t = t;
    hr.sys.host = hr.name;
    hr.sys.os = prop_os_family_name(os);
    hr.sys.suite = suite[0] ? suite : NULL;
    hr.sys.arch = arch[0] ? arch : NULL;
    hr.sys.dry = o->dry;
    hr.sys.diff = o->diff;
    if (lsys_push(L, &hr.sys) != 0) {
        printf("%s    failed: %s\n", hr.name, lua_tostring(L, -1));
        oc->failed = 1;
        goto out;
    }
    hr.sys_idx = lua_gettop(L);
    for (i = 0; i < n; i++) {
        prop_result r;
        const prop_node *p = prop_host_prop(h, i);
        if (want_stop(NULL)) {
            oc->stopped = 1;
            oc->skipped = (unsigned)(n - i);
            break;
        }
        /* os.*, connect.*, ipv4...: facts for the run, nothing to ensure. */
        if (prop_node_kind(p) == PROP_INFO)
            continue;
        r = prop_exec_node(p, os, 0, &ops, &hr);
        if (r == PROP_RESULT_OK)
            oc->ok++;
        else if (r == PROP_RESULT_CHANGED)
            oc->changed++;
        else
            oc->failed++;
    }
    lsys_retire(L, hr.sys_idx);
out:
    lua_settop(L, top);
    lsys_clear(&hr.sys);
    prop_transport_close(t);
    oc->ms = now_ms() - t0;
    print_host_line(o, hr.name, oc, why, hr.color);
    fflush(stdout);
}

int
cli_dry_run_host(lprop_ctx *ctx, const prop_host *h, int color)
{
    run_opts o;
    outcome oc;

    memset(&o, 0, sizeof o);
    cli_site_opts_init(&o.site);
    o.dry = 1;
    o.jobs = 1;
    run_host(ctx, &o, h, color && isatty(STDOUT_FILENO), color, &oc);
    return oc.unreachable ? EXIT_UNREACHABLE : oc.failed ? EXIT_FAILED : EXIT_WELL;
}

/* ---- many hosts at once ------------------------------------------------ */

typedef struct child {
    pid_t pid;
    int fd;
    char *buf; /* a partial line */
    size_t len, cap;
    outcome oc;
    int have_oc;
    const prop_host *h;
} child;

/* Pass whole lines through; keep the summary line. */
static void
child_lines(child *c, int final)
{
    size_t start = 0, i;

    for (i = 0; i < c->len; i++) {
        if (c->buf[i] != '\n')
            continue;
        if (c->buf[start] == SUMMARY_MARK) {
            c->have_oc = sscanf(c->buf + start + 1, "%u %u %u %u %d %d %lf", &c->oc.ok,
                                &c->oc.changed, &c->oc.failed, &c->oc.skipped, &c->oc.unreachable,
                                &c->oc.stopped, &c->oc.ms) == 7;
        } else {
            fwrite(c->buf + start, 1, i + 1 - start, stdout);
        }
        start = i + 1;
    }
    if (final && start < c->len) {
        fwrite(c->buf + start, 1, c->len - start, stdout);
        fputc('\n', stdout);
        start = c->len;
    }
    memmove(c->buf, c->buf + start, c->len - start);
    c->len -= start;
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
        close(p[0]);
        if (dup2(p[1], STDOUT_FILENO) < 0)
            _exit(EXIT_FAILED);
        close(p[1]);
        run_host(ctx, o, h, 0, color, &oc);
        printf("%c%u %u %u %u %d %d %.3f\n", SUMMARY_MARK, oc.ok, oc.changed, oc.failed, oc.skipped,
               oc.unreachable, oc.stopped, oc.ms);
        fflush(stdout);
        _exit(0);
    }
    close(p[1]);
    c->fd = p[0];
    return 0;
}

/* Run hosts[0..n) with at most jobs at once; outcomes in ocs. */
static void
run_parallel(lprop_ctx *ctx, const run_opts *o, const prop_host **hosts, size_t n, int color,
             outcome *ocs)
{
    child *kids = calloc((size_t)o->jobs, sizeof *kids);
    size_t *which = calloc((size_t)o->jobs, sizeof *which);
    struct pollfd *pf = calloc((size_t)o->jobs, sizeof *pf);
    size_t next = 0, running = 0;
    int k;

    if (!kids || !which || !pf) {
        size_t i;
        for (i = 0; i < n; i++)
            run_host(ctx, o, hosts[i], 0, color, &ocs[i]);
        goto out;
    }
    for (;;) {
        while (running < (size_t)o->jobs && next < n && !want_stop(NULL)) {
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
        for (k = 0; k < o->jobs; k++) {
            pf[k].fd = kids[k].pid > 0 ? kids[k].fd : -1;
            pf[k].events = POLLIN;
            pf[k].revents = 0;
        }
        if (poll(pf, (nfds_t)o->jobs, -1) < 0) {
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
            if (c->cap - c->len < 4096) {
                size_t cap = c->cap ? c->cap * 2 : 8192;
                char *b = realloc(c->buf, cap);
                if (b == NULL)
                    continue;
                c->buf = b;
                c->cap = cap;
            }
            got = read(c->fd, c->buf + c->len, c->cap - c->len);
            if (got > 0) {
                c->len += (size_t)got;
                child_lines(c, 0);
                continue;
            }
            if (got < 0 && errno == EINTR)
                continue;
            child_lines(c, 1);
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
            free(c->buf);
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

/* ---- the command ----------------------------------------------------- */

static int
int_arg(const char *opt, const char *v, int lo, int hi, int *out)
{
    char *end;
    long n;

    errno = 0;
    n = v ? strtol(v, &end, 10) : 0;
    if (v == NULL || errno || *v == '\0' || *end != '\0' || n < lo || n > hi)
        return cli_usage_error(&cmd_run, "%s wants a number in %d..%d", opt, lo, hi);
    *out = (int)n;
    return 0;
}

/* --opt=V or --opt V: the value, or NULL when argv[*i] is not opt. */
static int
opt_value(const char *opt, int argc, char **argv, int *i, const char **v)
{
    size_t l = strlen(opt);

    if (strncmp(argv[*i], opt, l) != 0)
        return 0;
    if (argv[*i][l] == '=') {
        *v = argv[*i] + l + 1;
        return 1;
    }
    if (argv[*i][l] != '\0')
        return 0;
    *v = *i + 1 < argc ? argv[++*i] : NULL;
    return 1;
}

static int
run_run(int argc, char **argv)
{
    run_opts o;
    const char *site = NULL, *v;
    const prop_host **hosts = NULL;
    outcome *ocs = NULL;
    size_t nhosts = 0, k, nsite;
    int i, r, evaluated, rc = EXIT_WELL, unreachable = 0, failed = 0, stopped = 0;
    lprop_ctx *ctx = NULL;
    struct sigaction sa;
    const char **names;
    int nnames = 0;

    memset(&o, 0, sizeof o);
    cli_site_opts_init(&o.site);
    o.jobs = DEFAULT_JOBS;
    names = calloc((size_t)argc, sizeof *names);
    if (names == NULL)
        return EXIT_FAILED;
    for (i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            free(names);
            return cli_print_help(&cmd_run);
        }
        r = cli_site_opt(&o.site, argc, argv, &i);
        if (r < 0)
            goto usage;
        if (r > 0)
            continue;
        if (strcmp(argv[i], "--dry-run") == 0 || strcmp(argv[i], "-n") == 0)
            o.dry = 1;
        else if (strcmp(argv[i], "--diff") == 0)
            o.diff = 1;
        else if (strcmp(argv[i], "--json") == 0)
            o.json = 1;
        else if (strcmp(argv[i], "--accept-new-host-keys") == 0)
            o.accept_new = 1;
        else if (strncmp(argv[i], "-j", 2) == 0 && argv[i][2] != '\0' && argv[i][2] != '=') {
            if (int_arg("-j", argv[i] + 2, 1, 256, &o.jobs))
                goto usage;
        } else if (opt_value("-j", argc, argv, &i, &v) || opt_value("--jobs", argc, argv, &i, &v)) {
            if (int_arg("-j", v, 1, 256, &o.jobs))
                goto usage;
        } else if (opt_value("--connect-timeout", argc, argv, &i, &v)) {
            if (int_arg("--connect-timeout", v, 1, 3600, &o.connect_timeout))
                goto usage;
        } else if (opt_value("--timeout", argc, argv, &i, &v)) {
            if (int_arg("--timeout", v, 1, 86400, &o.op_timeout))
                goto usage;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            cli_usage_error(&cmd_run, "unknown option \"%s\"", argv[i]);
            goto usage;
        } else if (site == NULL) {
            site = argv[i];
        } else {
            names[nnames++] = argv[i];
        }
    }
    if (site == NULL) {
        free(names);
        return cli_usage_error(&cmd_run, "which site file?");
    }
    ctx = cli_load_site(site, &o.site, &evaluated);
    if (ctx == NULL) {
        free(names);
        fprintf(stderr, "prop: out of memory\n");
        return EXIT_REJECTED;
    }
    if (!evaluated || prop_site_nerrors(ctx->site, 0) > 0) {
        prop_diags_print_text(ctx->site, stderr, o.site.color_err, 0);
        cli_print_summary(ctx, site, stderr, 0);
        fprintf(stderr, "prop run: nothing was run\n");
        rc = EXIT_REJECTED;
        goto done;
    }
    /* Warnings do not stop a run, but they are shown. */
    prop_diags_print_text(ctx->site, stderr, o.site.color_err, 0);
    cli_print_summary(ctx, site, stderr, 0);
    nsite = prop_site_nhosts(ctx->site);
    hosts = calloc(nsite + (size_t)nnames + 1, sizeof *hosts);
    ocs = calloc(nsite + (size_t)nnames + 1, sizeof *ocs);
    if (!hosts || !ocs) {
        fprintf(stderr, "prop: out of memory\n");
        rc = EXIT_FAILED;
        goto done;
    }
    for (i = 0; i < nnames; i++) {
        const prop_host *h = prop_site_find_host(ctx->site, names[i]);
        if (h == NULL) {
            fprintf(stderr, "prop run: %s declares no host \"%s\"\n", site, names[i]);
            rc = EXIT_USAGE;
            goto done;
        }
        hosts[nhosts++] = h;
    }
    if (nnames == 0)
        for (k = 0; k < nsite; k++)
            hosts[nhosts++] = prop_site_host(ctx->site, k);

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    if (nhosts > 1 && o.jobs > 1) {
        run_parallel(ctx, &o, hosts, nhosts, o.site.color_out, ocs);
    } else {
        for (k = 0; k < nhosts; k++) {
            if (want_stop(NULL)) {
                ocs[k].stopped = 1;
                ocs[k].skipped = (unsigned)prop_host_nprops(hosts[k]);
                continue;
            }
            run_host(ctx, &o, hosts[k], o.site.color_out && isatty(STDOUT_FILENO), o.site.color_out,
                     &ocs[k]);
        }
    }
    for (k = 0; k < nhosts; k++) {
        unreachable += ocs[k].unreachable;
        failed += ocs[k].failed > 0;
        stopped += ocs[k].stopped;
    }
    if (nhosts > 1 && !o.json) {
        printf("\n%zu host%s:", nhosts, nhosts == 1 ? "" : "s");
        for (k = 0; k < nhosts; k++)
            printf(" %s %s%s", prop_host_name(hosts[k]),
                   ocs[k].unreachable ? "unreachable"
                   : ocs[k].failed    ? "failed"
                   : ocs[k].stopped   ? "interrupted"
                   : ocs[k].changed   ? "changed"
                                      : "ok",
                   k + 1 < nhosts ? "," : "\n");
    }
    if (stopped)
        fprintf(stderr, "prop run: interrupted; the properties not run are counted above\n");
    rc = stopped       ? EXIT_INTERRUPTED
         : unreachable ? EXIT_UNREACHABLE
         : failed      ? EXIT_FAILED
                       : EXIT_WELL;
done:
    lprop_close(ctx);
    free(hosts);
    free(ocs);
    free(names);
    if (fflush(stdout) != 0 && rc == EXIT_WELL)
        rc = EXIT_FAILED;
    return rc;
usage:
    free(names);
    return EXIT_USAGE;
}

const cli_command cmd_run = {
    "run", run_run, "make hosts the way the site says (every host when none is named)",
    "prop run SITE [HOST...] [--dry-run] [--diff] [--json] [-j N] [--accept-new-host-keys]\n"
    "                [--connect-timeout S] [--timeout S] [--max-instructions N] [--max-memory "
    "MIB]\n"
    "                [--max-cpu S]"};
