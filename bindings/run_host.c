/*
 * run_host.c - prop run's one host: reach it through the transport its
 * connect.* info names (a container through its parents), take its run
 * lock, find out its OS when it declares none, then ensure its
 * properties in order with the executor (engine/src/exec.c), and its
 * containers after them (run_containers.c).  How a host is reached and
 * its OS detected is the engine's (engine/src/host_connect.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "array.h"
#include "lprop_require.h"
#include "run.h"

static double
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- reaching a host ------------------------------------------------- */

static int
open_transport(const run_opts *o, const prop_host *h, prop_transport **t, char *why, size_t wsize)
{
    prop_connect_opts co;

    memset(&co, 0, sizeof co);
    /* prop pull runs on the host itself: only a tree is reached elsewhere. */
    co.this_machine = o->local;
    co.dry = o->dry;
    co.accept_new = o->accept_new;
    co.connect_timeout = o->connect_timeout;
    co.op_timeout = o->op_timeout;
    return prop_host_connect(h, &co, t, why, wsize);
}

int
cli_open_transport(const prop_host *h, int accept_new, int connect_timeout, prop_transport **t,
                   char *why, size_t wsize)
{
    run_opts o;

    memset(&o, 0, sizeof o);
    o.dry = 1; /* a tree that is not there is not made */
    o.accept_new = accept_new;
    o.connect_timeout = connect_timeout;
    o.op_timeout = connect_timeout;
    return open_transport(&o, h, t, why, wsize);
}

/* Transports, innermost last: a container is reached through its parents. */
#define MAX_NESTING 8
typedef struct tstack {
    prop_transport *v[MAX_NESTING];
    size_t n;
} tstack;

static int
open_chain(const run_opts *o, const prop_host *h, tstack *ts, char *why, size_t wsize)
{
    const prop_host *parent = prop_host_parent(h);
    int rc;

    if (ts->n == MAX_NESTING) {
        snprintf(why, wsize, "containers nested more than %d deep", MAX_NESTING);
        return PROP_EUNREACHABLE;
    }
    if (parent == NULL)
        rc = open_transport(o, h, &ts->v[ts->n], why, wsize);
    else if ((rc = open_chain(o, parent, ts, why, wsize)) == PROP_OK)
        rc = prop_container_connect(h, ts->v[ts->n - 1], &ts->v[ts->n], why, wsize);
    if (ts->v[ts->n])
        ts->n++;
    return rc;
}

static void
close_chain(tstack *ts)
{
    while (ts->n)
        prop_transport_close(ts->v[--ts->n]);
}

/* Protected: prop.facts.site_json(sys), the JSON of the site's facts the
 * host's run used (a string), or nil. */
static int
site_facts_json(lua_State *L)
{
    lprop_require(L, "prop.facts");
    lua_getfield(L, -1, "site_json");
    lua_pushvalue(L, 1);
    lua_call(L, 1, 1);
    return 1;
}

/* --json: a "facts" event with the site's facts the host's run used, when
 * it used any (an error, out of memory say, leaves it out). */
static void
print_site_facts(lua_State *L, const run_opts *o, const prop_host *h, int sys_idx)
{
    const char *json;

    if (!o->json || !lua_checkstack(L, 4))
        return;
    lua_pushcfunction(L, site_facts_json);
    lua_pushvalue(L, sys_idx);
    if (lua_pcall(L, 1, 1, 0) == LUA_OK && (json = lua_tostring(L, -1)) != NULL) {
        run_json_event(stdout, "facts");
        run_json_host(h);
        printf(",\"facts\":%s%s}\n", json, o->dry ? ",\"dry_run\":true" : "");
    }
    lua_pop(L, 1);
}

/* The "os" info is "family suite arch": split into sys.suite and sys.arch. */
static void
split_os_info(const prop_host *h, char suite[64], char arch[64])
{
    const char *info = prop_host_info(h, PROP_INFO_OS, 0);

    suite[0] = arch[0] = '\0';
    if (info && sscanf(info, "%*s %63s %63s", suite, arch) < 1)
        suite[0] = '\0';
}

/*
 * The host's top-level properties as they are shown and counted: a props
 * {...} that was not described is its parts (its own line would say only
 * "props").  Up to MAX_ITEMS; past that (a graph that shares lists
 * exponentially) the rest stay whole.
 */
#define MAX_ITEMS 100000
typedef struct items {
    const prop_node **v;
    size_t n, cap;
} items;

static int
add_item(items *it, const prop_node *p, int depth)
{
    size_t i;

    if (prop_node_kind(p) == PROP_PROPS && depth < 64 && it->n < MAX_ITEMS) {
        for (i = 0; i < prop_node_nchildren(p); i++)
            if (add_item(it, prop_node_child(p, i), depth + 1) != 0)
                return -1;
        return 0;
    }
    if (prop_array_reserve(it->v, it->cap, it->n, 1, 64) != 0)
        return -1;
    it->v[it->n++] = p;
    return 0;
}

int
cli_info_only_host(const prop_host *h)
{
    size_t i, n = prop_host_nprops(h);

    for (i = 0; i < n; i++)
        if (!prop_node_info_only(prop_host_prop(h, i)))
            return 0;
    return n > 0;
}

/*
 * A host that declares no OS is typed by its properties: refuse a target
 * whose OS is not one of those they run on, before anything runs.
 * Returns 1 (refused, why set) or 0.
 */
static int
refuse_os(const prop_host *h, prop_os_set os, char *why, size_t wsize)
{
    prop_os_set want = prop_host_targets(h);
    char wn[64];

    if (prop_host_os(h) != PROP_OS_NONE || want == PROP_OS_UNIXLIKE)
        return 0;
    if (os == PROP_OS_NONE) {
        snprintf(why, wsize,
                 "cannot tell which operating system the target runs (no /etc/os-release it "
                 "knows), and the properties of host %s run only on %s: declare its OS with "
                 "os.debian(...), os.rhel(...), os.freebsd(...) or another os.*; nothing was "
                 "changed",
                 prop_host_name(h), prop_os_set_name(want, wn, sizeof wn));
        return 1;
    }
    if (want & os)
        return 0;
    snprintf(why, wsize,
             "the target runs %s, but the properties of host %s run only on %s; nothing was "
             "changed",
             prop_os_family_name(os), prop_host_name(h), prop_os_set_name(want, wn, sizeof wn));
    return 1;
}

/*
 * Run one host; prints its lines and its summary line, then runs its
 * containers.  pt: the parent's transport when h is a container run
 * after its parent; NULL: h is reached on its own (a container so named
 * is reached through its parents, which are not run).
 */
void
run_host_in(lprop_ctx *ctx, const run_opts *o, const prop_host *h, prop_transport *pt, int progress,
            int color, outcome *oc)
{
    lua_State *L = ctx->L;
    host_run hr;
    prop_exec_ops ops = {.ensure = run_ensure_leaf,
                         .start = run_on_start,
                         .done = run_on_done,
                         .stop = run_want_stop,
                         .test = run_test_only_if,
                         .triggered = run_on_triggered,
                         .select = o->ntags || o->nskip ? run_select_node : NULL,
                         .owe = run_on_owe};
    prop_owed *owed = NULL;
    size_t nowed = 0;
    prop_triggers *trig = NULL;
    prop_transport *t = NULL, *dry = NULL;
    tstack ts = {{NULL}, 0};
    char why[1200] = "", suite[64], arch[64];
    prop_os_set os;
    items it = {NULL, 0, 0};
    prop_result r;
    size_t i, n = prop_host_nprops(h);
    double t0 = now_ms();
    int top = lua_gettop(L);

    memset(oc, 0, sizeof *oc);
    memset(&hr, 0, sizeof hr);
    hr.ctx = ctx;
    hr.o = o;
    hr.h = h;
    hr.oc = oc;
    hr.name = prop_host_fullname(h);
    hr.progress = progress && !o->json;
    hr.color = color && !o->json;
    if ((o->ntags || o->nskip) && run_select_for_host(L, o, h) != 0) {
        /* Nothing ran: refused (a failure), not unreachable. */
        snprintf(why, sizeof why, "out of memory choosing the properties --tags asks for");
        oc->refused = 1;
        goto out;
    }
    if (cli_info_only_host(h)) {
        /* Propellor's "monsters": hosts declared for what others know of
         * them (addresses, keys), not to be reached. */
        oc->info_only = 1;
        goto out;
    }
    for (i = 0; i < n; i++)
        if (add_item(&it, prop_host_prop(h, i), 0) != 0) {
            snprintf(why, sizeof why, "out of memory");
            oc->unreachable = 1;
            goto out;
        }
    if (prop_host_ncontainers(h) &&
        !(hr.attach = malloc(prop_host_ncontainers(h) * sizeof *hr.attach))) {
        snprintf(why, sizeof why, "out of memory");
        oc->unreachable = 1;
        goto out;
    }
    for (i = 0; i < prop_host_ncontainers(h); i++)
        hr.attach[i] = -1;
    if (pt ? prop_container_connect(h, pt, &t, why, sizeof why) != PROP_OK
           : open_chain(o, h, &ts, why, sizeof why) != PROP_OK) {
        oc->unreachable = 1;
        goto out;
    }
    if (!pt)
        t = ts.v[ts.n - 1];
    /* A signal stops the command running, and what the target sends and
     * how long it takes are bounded (transport.h), on every transport a
     * command goes through: a container's run through its parents'. */
    for (i = 0; i < ts.n; i++) {
        prop_transport_set_interrupt(ts.v[i], ctx->budget.interrupt, &o->run->stop_signal);
        prop_transport_set_limits(ts.v[i], o->max_output, o->op_timeout);
    }
    prop_transport_set_interrupt(t, ctx->budget.interrupt, &o->run->stop_signal);
    prop_transport_set_limits(t, o->max_output, o->op_timeout);
    if (prop_transport_lock(t) != PROP_OK) {
        snprintf(why, sizeof why, "%s", prop_transport_error(t));
        oc->unreachable = 1;
        goto out;
    }
    os = prop_host_os(h);
    run_prefetch(t, h, os == PROP_OS_NONE);
    if (os == PROP_OS_NONE)
        os = prop_transport_detect_os(t);
    if (refuse_os(h, os, why, sizeof why)) {
        oc->refused = 1;
        goto out;
    }
    /* Shared on_change targets run once (exec.h); those owed from the
     * last run are run in this one. */
    hr.t = t;
    if (run_pending_load(&hr, &owed, &nowed) != 0 ||
        prop_triggers_new_owed(it.v, it.n, os, owed, nowed, &trig) != PROP_OK) {
        snprintf(why, sizeof why, "out of memory");
        oc->failed = 1;
        goto out;
    }
    run_pending_report(&hr, owed, nowed);
    free(owed);
    owed = NULL;
    split_os_info(h, suite, arch);
    /* The properties' file changes are noted (--diff), and not made
     * (--dry-run), by a transport over the host's. */
    if ((o->dry || o->diff) &&
        prop_transport_dry(&dry, t, (o->dry ? PROP_DRY_RUN : 0) | (o->diff ? PROP_DRY_DIFF : 0),
                           lsys_dry_note, &hr.sys) != PROP_OK) {
        snprintf(why, sizeof why, "out of memory");
        oc->failed = 1;
        goto out;
    }
    hr.sys.t = dry ? dry : t;
    hr.sys.host = hr.name;
    hr.sys.os = prop_os_family_name(os);
    hr.sys.suite = suite[0] ? suite : NULL;
    hr.sys.arch = arch[0] ? arch : NULL;
    {
        static const char *const kinds[] = {NULL, "chroot", "nspawn", "docker", "jail"};
        prop_container_kind kind = prop_host_container_kind(h);

        hr.sys.container = (size_t)kind < sizeof kinds / sizeof kinds[0] ? kinds[kind] : NULL;
    }
    hr.sys.declared = h;
    hr.sys.site = ctx->site;
    hr.sys.dry = o->dry;
    hr.sys.keep_diffs = o->diff && run_report_fd >= 0;
    hr.sys.reveal = run_reveal_secret;
    hr.sys.reveal_ud = &hr;
    if (lsys_push(L, &hr.sys) != 0) {
        snprintf(why, sizeof why, "%s", lua_tostring(L, -1));
        oc->failed = 1;
        goto out;
    }
    hr.sys_idx = lua_gettop(L);
    /* Over SSH, writes go without waiting for their answers (exec.h,
     * transport.h): one round trip for many.  A dry run writes nothing. */
    if (!o->dry && !o->no_pipeline && prop_transport_defer(t, 1) == 1) {
        hr.deferring = 1;
        ops.batch = run_defer_batch;
        ops.pending = run_defer_pending;
        ops.settle = run_defer_settle;
        ops.failure = run_defer_failure;
    }
    for (i = 0; i < it.n; i++) {
        const prop_node *p = it.v[i];
        if (run_want_stop(&hr)) {
            oc->stopped = 1;
            oc->skipped = (unsigned)(it.n - i);
            break;
        }
        /* os.*, connect.*, ipv4...: facts for the run, nothing to ensure. */
        if (prop_node_info_only(p))
            continue;
        r = prop_exec_top(trig, i, &ops, &hr);
        if (r == PROP_RESULT_INTERRUPTED) { /* counted with those not run */
            oc->stopped = 1;
            oc->skipped = (unsigned)(it.n - i);
            break;
        }
    }
    if (hr.deferring) {
        /* Every answer in and every result reported, before the host's. */
        prop_exec_settle(trig, &ops, &hr);
        (void)prop_transport_defer(t, 0);
        hr.deferring = 0;
        run_defer_free(&hr);
    }
    print_site_facts(L, o, h, hr.sys_idx);
    lsys_retire(L, hr.sys_idx);
    prop_secrets_free(hr.store); /* every value it decrypted is wiped */
    hr.store = NULL;
    /* What the properties changed lasts a crash before the host is reported. */
    if (prop_transport_sync(t) != PROP_OK) {
        snprintf(why, sizeof why, "%s", prop_transport_error(t));
        /* The host's own failure, shown as its error; the counts are
         * of properties (each counted once), and one failed is enough
         * for the exit status. */
        if (oc->failed == 0)
            oc->failed = 1;
    }
    oc->ms = now_ms() - t0;
    run_print_host(o, h, oc, why, hr.color);
    fflush(stdout);
    if (!oc->stopped)
        run_containers(ctx, o, &hr, t, progress, color, oc);
    goto done;
out:
    oc->ms = now_ms() - t0;
    run_print_host(o, h, oc, why, hr.color);
    fflush(stdout);
done:
    prop_triggers_free(trig);
    free(owed);
    prop_pending_free(hr.pending);
    prop_secrets_free(hr.store);
    free(it.v);
    free(hr.attach);
    lua_settop(L, top);
    lsys_clear(&hr.sys);
    prop_transport_close(dry);
    if (pt)
        prop_transport_close(t);
    else
        close_chain(&ts);
}

void
run_host(lprop_ctx *ctx, const run_opts *o, const prop_host *h, int progress, int color,
         outcome *oc)
{
    run_host_in(ctx, o, h, NULL, progress, color, oc);
}

int
cli_dry_run_host(lprop_ctx *ctx, const prop_host *h, int color)
{
    run_opts o;
    outcome oc;
    run *r;

    memset(&o, 0, sizeof o);
    cli_site_opts_init(&o.site);
    o.dry = 1;
    o.jobs = 1;
    o.op_timeout = RUN_DEFAULT_TIMEOUT;
    if ((r = run_new(ctx, &o, NULL)) == NULL) {
        fprintf(stderr, "prop: out of memory\n");
        return EXIT_FAILED;
    }
    run_host(ctx, &r->o, h, color && isatty(STDOUT_FILENO), color, &oc);
    run_free(r);
    return oc.unreachable ? EXIT_UNREACHABLE : oc.failed || oc.refused ? EXIT_FAILED : EXIT_WELL;
}
