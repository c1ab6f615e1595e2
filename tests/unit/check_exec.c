/*
 * check_exec.c - the executor without Lua: combinators at run time and
 * shared on_change targets that run once per host (prop_triggers).
 *
 * Each leaf's behaviour is an index into a table of results; ensure()
 * appends the leaf's description to a trail, so that a test sees what
 * ran, in which order, and how often.
 *
 * Deferred results (the "deferred" case) stand in for a transport whose
 * writes are answered later: a leaf marked late "sends" an operation that
 * fails when the answers are read.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prop/exec.h"
#include "prop/prop.h"
#include "unit.h"

static prop_site *S;

static const prop_frame site_frame = {"site.lua", 1};
static const prop_origin site_origin = {&site_frame, 1};

#define MAX_LEAVES 32

typedef struct run {
    prop_result results[MAX_LEAVES]; /* by behaviour */
    char trail[1024];                /* "a,b,T" */
    char triggered[512];             /* "T<-a+b;" per triggered() */
    char done[1024];                 /* "T=changed;" per done() of a triggered node */
    const prop_node *trig;
} run;

static run R;
static long next_behaviour;

static void
setup(void)
{
    ck_assert_int_eq(prop_site_new(&S, NULL, NULL), PROP_OK);
    memset(&R, 0, sizeof R);
    next_behaviour = 0;
}

static void
teardown(void)
{
    prop_site_free(S);
    S = NULL;
}

/* A leaf that gives result r, with an optional claim on service svc. */
static prop_node *
leafc(const char *desc, prop_result r, const char *svc)
{
    prop_leaf_spec spec;
    prop_claim claim = {PROP_CLAIM_SVC_RESTARTED, svc, NULL, 0, -1, 0};
    prop_node *n = NULL;

    ck_assert_int_lt(next_behaviour, MAX_LEAVES);
    memset(&spec, 0, sizeof spec);
    spec.desc = desc;
    spec.claims = svc ? &claim : NULL;
    spec.nclaims = svc ? 1 : 0;
    spec.behaviour = next_behaviour;
    R.results[next_behaviour++] = r;
    ck_assert_int_eq(prop_leaf_new(S, &spec, &site_origin, &n), PROP_OK);
    return n;
}

static prop_node *
leaf(const char *desc, prop_result r)
{
    return leafc(desc, r, NULL);
}

static prop_node *
combine(prop_kind k, prop_node *a, prop_node *b)
{
    prop_node *n = NULL;

    ck_assert_int_eq(prop_combine_new(S, k, a, b, &site_origin, &n), PROP_OK);
    return n;
}

static prop_node *
on_change(prop_node *a, prop_node *b)
{
    return combine(PROP_ON_CHANGE, a, b);
}

static prop_result
ensure(void *ud, const prop_node *n, char **msg)
{
    (void)ud;
    (void)msg;
    append(R.trail, sizeof R.trail, R.trail[0] ? "," : "", prop_node_desc(n));
    return R.results[prop_node_behaviour(n)];
}

static void
triggered(void *ud, const prop_node *n, unsigned depth, const prop_node *const *sources,
          size_t nsources)
{
    size_t i;

    (void)ud;
    (void)depth;
    append(R.triggered, sizeof R.triggered, prop_node_desc(n), "<-");
    for (i = 0; i < nsources; i++)
        append(R.triggered, sizeof R.triggered, i ? "+" : "", prop_node_desc(sources[i]));
    append(R.triggered, sizeof R.triggered, ";", "");
    R.trig = n;
}

static void
done(void *ud, const prop_node *n, unsigned depth, prop_result r, double ms, const char *msg)
{
    (void)ud;
    (void)depth;
    (void)ms;
    (void)msg;
    if (n == R.trig) {
        append(R.done, sizeof R.done, prop_node_desc(n), "=");
        append(R.done, sizeof R.done, prop_result_name(r), ";");
        R.trig = NULL;
    }
}

static const prop_exec_ops OPS = {.ensure = ensure, .done = done, .triggered = triggered};

/* Run items as a host's top-level properties; results into out. */
static void
run_all(prop_node *const *items, size_t n, prop_result *out)
{
    prop_triggers *t = NULL;
    size_t i;

    ck_assert_int_eq(prop_triggers_new((const prop_node *const *)items, n, PROP_OS_DEBIAN, &t),
                     PROP_OK);
    for (i = 0; i < n; i++) {
        prop_result r = prop_exec_top(t, i, &OPS, NULL);
        if (out)
            out[i] = r;
    }
    prop_triggers_free(t);
}

/* Both sources change: the target runs once, after both. */
START_TEST(test_both_change)
{
    prop_node *T = leaf("T", PROP_RESULT_CHANGED);
    prop_node *items[3];
    prop_result res[3];

    items[0] = on_change(leaf("a", PROP_RESULT_CHANGED), T);
    items[1] = on_change(leaf("b", PROP_RESULT_CHANGED), T);
    items[2] = leaf("c", PROP_RESULT_OK);
    run_all(items, 3, res);
    ck_assert_str_eq(R.trail, "a,b,T,c");
    ck_assert_str_eq(R.triggered, "T<-a+b;");
    ck_assert_str_eq(R.done, "T=changed;");
    ck_assert_int_eq(res[0], PROP_RESULT_CHANGED);
    ck_assert_int_eq(res[1], PROP_RESULT_CHANGED);
}
END_TEST

/* Targets made alike by two calls are the same property. */
START_TEST(test_alike_targets)
{
    prop_node *items[2];
    prop_triggers *t = NULL;

    items[0] = on_change(leaf("a", PROP_RESULT_CHANGED),
                         leafc("restart nginx", PROP_RESULT_CHANGED, "nginx"));
    items[1] = on_change(leaf("b", PROP_RESULT_CHANGED),
                         leafc("restart nginx", PROP_RESULT_CHANGED, "nginx"));
    ck_assert(prop_node_same(prop_node_child(items[0], 1), prop_node_child(items[1], 1)));
    ck_assert_int_eq(prop_triggers_new((const prop_node *const *)items, 2, PROP_OS_DEBIAN, &t),
                     PROP_OK);
    ck_assert_uint_eq(prop_triggers_count(t), 1);
    ck_assert_ptr_eq(prop_triggers_target(t, 0), prop_node_child(items[0], 1));
    prop_triggers_free(t);
    run_all(items, 2, NULL);
    ck_assert_str_eq(R.trail, "a,b,restart nginx");
    ck_assert_str_eq(R.triggered, "restart nginx<-a+b;");
}
END_TEST

/* Another description, or another claim, is another property. */
START_TEST(test_different_targets)
{
    prop_node *items[3];

    items[0] =
        on_change(leaf("a", PROP_RESULT_CHANGED), leafc("restart", PROP_RESULT_CHANGED, "x"));
    items[1] =
        on_change(leaf("b", PROP_RESULT_CHANGED), leafc("restart", PROP_RESULT_CHANGED, "y"));
    items[2] = on_change(leaf("c", PROP_RESULT_CHANGED), leaf("restart y", PROP_RESULT_CHANGED));
    ck_assert(!prop_node_same(prop_node_child(items[0], 1), prop_node_child(items[1], 1)));
    run_all(items, 3, NULL);
    ck_assert_str_eq(R.trail, "a,restart,b,restart,c,restart y");
    ck_assert_str_eq(R.triggered, "");
}
END_TEST

/* Only the first changes: the target still waits for the last. */
START_TEST(test_first_changes)
{
    prop_node *T = leaf("T", PROP_RESULT_CHANGED);
    prop_node *items[3];
    prop_result res[3];

    items[0] = on_change(leaf("a", PROP_RESULT_CHANGED), T);
    items[1] = leaf("m", PROP_RESULT_OK);
    items[2] = on_change(leaf("b", PROP_RESULT_OK), T);
    run_all(items, 3, res);
    ck_assert_str_eq(R.trail, "a,m,b,T");
    ck_assert_str_eq(R.triggered, "T<-a;");
    ck_assert_int_eq(res[0], PROP_RESULT_CHANGED);
    /* The on_change that ran the target takes its result. */
    ck_assert_int_eq(res[2], PROP_RESULT_CHANGED);
}
END_TEST

START_TEST(test_none_changes)
{
    prop_node *T = leaf("T", PROP_RESULT_CHANGED);
    prop_node *items[2];
    prop_result res[2];

    items[0] = on_change(leaf("a", PROP_RESULT_OK), T);
    items[1] = on_change(leaf("b", PROP_RESULT_OK), T);
    run_all(items, 2, res);
    ck_assert_str_eq(R.trail, "a,b");
    ck_assert_str_eq(R.triggered, "");
    ck_assert_int_eq(res[1], PROP_RESULT_OK);
}
END_TEST

/* A target failing is one failure, on the property that ran it. */
START_TEST(test_target_fails)
{
    prop_node *T = leaf("T", PROP_RESULT_FAILED);
    prop_node *items[2];
    prop_result res[2];

    items[0] = on_change(leaf("a", PROP_RESULT_CHANGED), T);
    items[1] = on_change(leaf("b", PROP_RESULT_CHANGED), T);
    run_all(items, 2, res);
    ck_assert_str_eq(R.trail, "a,b,T");
    ck_assert_str_eq(R.done, "T=failed;");
    ck_assert_int_eq(res[0], PROP_RESULT_CHANGED);
    ck_assert_int_eq(res[1], PROP_RESULT_FAILED);
}
END_TEST

/* A target used once keeps the plain on_change, right after its source. */
START_TEST(test_single_is_plain)
{
    prop_node *items[2];

    items[0] = on_change(leaf("a", PROP_RESULT_CHANGED), leaf("T", PROP_RESULT_CHANGED));
    items[1] = leaf("c", PROP_RESULT_OK);
    run_all(items, 2, NULL);
    ck_assert_str_eq(R.trail, "a,T,c");
    ck_assert_str_eq(R.triggered, "");
}
END_TEST

/* The last on_change skipped (its requirement failed): the target runs at
 * the end of the top-level property that holds it. */
START_TEST(test_last_skipped)
{
    prop_node *T = leaf("T", PROP_RESULT_CHANGED);
    prop_node *items[3];
    prop_result res[3];

    items[0] = on_change(leaf("a", PROP_RESULT_CHANGED), T);
    items[1] = combine(PROP_REQUIRES, on_change(leaf("b", PROP_RESULT_CHANGED), T),
                       leaf("req", PROP_RESULT_FAILED));
    items[2] = leaf("c", PROP_RESULT_OK);
    run_all(items, 3, res);
    ck_assert_str_eq(R.trail, "a,req,T,c");
    ck_assert_str_eq(R.triggered, "T<-a;");
    ck_assert_int_eq(res[1], PROP_RESULT_FAILED);
}
END_TEST

/* A property that requires the target gets it first, and that run serves
 * the triggers noted so far. */
START_TEST(test_required_serves)
{
    prop_node *T = leaf("T", PROP_RESULT_CHANGED);
    prop_node *items[3];

    items[0] = on_change(leaf("a", PROP_RESULT_CHANGED), T);
    items[1] = combine(PROP_REQUIRES, leaf("x", PROP_RESULT_OK), T);
    items[2] = on_change(leaf("b", PROP_RESULT_OK), T);
    run_all(items, 3, NULL);
    ck_assert_str_eq(R.trail, "a,T,x,b");
    ck_assert_str_eq(R.triggered, "T<-a;");
}
END_TEST

/* ... and a trigger after it notes anew. */
START_TEST(test_required_then_trigger)
{
    prop_node *T = leaf("T", PROP_RESULT_CHANGED);
    prop_node *items[3];

    items[0] = on_change(leaf("a", PROP_RESULT_CHANGED), T);
    items[1] = combine(PROP_REQUIRES, leaf("x", PROP_RESULT_OK), T);
    items[2] = on_change(leaf("b", PROP_RESULT_CHANGED), T);
    run_all(items, 3, NULL);
    ck_assert_str_eq(R.trail, "a,T,x,b,T");
    ck_assert_str_eq(R.triggered, "T<-a;T<-b;");
}
END_TEST

/* Inside one property (a props list), and only within a host's run:
 * prop_exec_node on its own keeps every on_change plain. */
START_TEST(test_within_props)
{
    prop_node *T = leaf("T", PROP_RESULT_CHANGED);
    prop_node *parts[3], *p = NULL;

    parts[0] = on_change(leaf("a", PROP_RESULT_CHANGED), T);
    parts[1] = on_change(leaf("b", PROP_RESULT_CHANGED), T);
    parts[2] = leaf("c", PROP_RESULT_OK);
    ck_assert_int_eq(prop_list_new(S, PROP_PROPS, parts, 3, &site_origin, &p), PROP_OK);
    run_all(&p, 1, NULL);
    ck_assert_str_eq(R.trail, "a,b,T,c");
    R.trail[0] = '\0';
    (void)prop_exec_node(p, PROP_OS_DEBIAN, 0, &OPS, NULL);
    ck_assert_str_eq(R.trail, "a,T,b,T,c");
}
END_TEST

/* A trigger inside a target is not counted: it stays plain. */
START_TEST(test_nested_in_target)
{
    prop_node *U = leaf("U", PROP_RESULT_CHANGED);
    prop_node *T = on_change(leaf("T", PROP_RESULT_CHANGED), U);
    prop_node *items[3];

    items[0] = on_change(leaf("a", PROP_RESULT_CHANGED), T);
    items[1] = on_change(leaf("b", PROP_RESULT_CHANGED), T);
    items[2] = on_change(leaf("c", PROP_RESULT_CHANGED), U);
    run_all(items, 3, NULL);
    /* T (with its U) once after a and b; U counted once: plain after c. */
    ck_assert_str_eq(R.trail, "a,b,T,U,c,U");
    ck_assert_str_eq(R.triggered, "T<-a+b;");
}
END_TEST

/* select: a node left out is neither ensured nor reported; the target of
 * a change that ran runs whatever select says (Ansible's handlers). */
static const prop_node *left_out[4];

static int
select_some(void *ud, const prop_node *n)
{
    size_t i;

    (void)ud;
    for (i = 0; i < sizeof left_out / sizeof left_out[0]; i++)
        if (left_out[i] == n)
            return 0;
    return 1;
}

START_TEST(test_select)
{
    prop_exec_ops ops = OPS;
    prop_node *T = leaf("T", PROP_RESULT_CHANGED), *b = leaf("b", PROP_RESULT_CHANGED);
    prop_node *items[3];
    prop_triggers *t = NULL;
    prop_result r;
    size_t i;

    items[0] = on_change(leaf("a", PROP_RESULT_CHANGED), T);
    items[1] = on_change(b, T);
    items[2] = leaf("c", PROP_RESULT_CHANGED);
    /* b's whole property and c are left out; T is left out too, but a
     * change (a) triggered it. */
    left_out[0] = items[1];
    left_out[1] = items[2];
    left_out[2] = T;
    left_out[3] = NULL;
    ops.select = select_some;
    ck_assert_int_eq(prop_triggers_new((const prop_node *const *)items, 3, PROP_OS_DEBIAN, &t),
                     PROP_OK);
    for (i = 0; i < 3; i++) {
        r = prop_exec_top(t, i, &ops, NULL);
        ck_assert_int_eq(r, i == 2 ? PROP_RESULT_OK : PROP_RESULT_CHANGED);
    }
    prop_triggers_free(t);
    /* T ran once, at the end of the left-out property that held the last
     * on_change; b and c never ran. */
    ck_assert_str_eq(R.trail, "a,T");
    ck_assert_str_eq(R.triggered, "T<-a;");
}
END_TEST

/* ---- deferred results --------------------------------------------------- */

typedef struct defer_state {
    int late[MAX_LEAVES];     /* by behaviour: its operation fails, later */
    unsigned long batch;      /* the current batch */
    unsigned long sent[1024]; /* batches of operations not answered yet */
    int fails[1024];          /* whether each of them fails */
    size_t nsent;
    unsigned long failed[64]; /* batches failed, until handed over */
    size_t nfailed;
    int settles;       /* settle() calls that had something to wait for */
    char events[4096]; /* "a=failed(why);" per done(), in order */
    int last_batch_ok; /* batch() numbers counted up */
} defer_state;

static defer_state D;

static void
d_batch(void *ud, unsigned long b)
{
    (void)ud;
    if (b <= D.batch)
        D.last_batch_ok = 0;
    D.batch = b;
}

static int
d_pending(void *ud)
{
    (void)ud;
    return D.nsent > 0;
}

static void
d_settle(void *ud)
{
    size_t i;

    (void)ud;
    if (D.nsent)
        D.settles++;
    for (i = 0; i < D.nsent; i++)
        if (D.fails[i] && D.nfailed < 64)
            D.failed[D.nfailed++] = D.sent[i];
    D.nsent = 0;
}

static char *
d_failure(void *ud, unsigned long b)
{
    size_t i;
    char buf[64];

    (void)ud;
    for (i = 0; i < D.nfailed; i++)
        if (D.failed[i] == b) {
            D.failed[i] = D.failed[--D.nfailed];
            snprintf(buf, sizeof buf, "write %lu failed", b);
            return strdup(buf);
        }
    return NULL;
}

static prop_result
d_ensure(void *ud, const prop_node *n, char **msg)
{
    prop_result r = ensure(ud, n, msg);

    if (r == PROP_RESULT_CHANGED && D.nsent < 1024) {
        D.sent[D.nsent] = D.batch;
        D.fails[D.nsent] = D.late[prop_node_behaviour(n)];
        D.nsent++;
    }
    return r;
}

static void
d_done(void *ud, const prop_node *n, unsigned depth, prop_result r, double ms, const char *msg)
{
    size_t used = strlen(D.events);

    done(ud, n, depth, r, ms, msg);
    if (prop_node_kind(n) != PROP_LEAF && depth > 0)
        return;
    snprintf(D.events + used, sizeof D.events - used, "%s=%s%s%s%s;", prop_node_desc(n),
             prop_result_name(r), msg ? "(" : "", msg ? msg : "", msg ? ")" : "");
}

static const prop_exec_ops DOPS = {.ensure = d_ensure,
                                   .done = d_done,
                                   .triggered = triggered,
                                   .batch = d_batch,
                                   .pending = d_pending,
                                   .settle = d_settle,
                                   .failure = d_failure};

static void
d_setup(void)
{
    setup();
    memset(&D, 0, sizeof D);
    D.last_batch_ok = 1;
}

/* A leaf whose operation is answered later, failing. */
static prop_node *
late_leaf(const char *desc)
{
    prop_node *n = leaf(desc, PROP_RESULT_CHANGED);

    D.late[prop_node_behaviour(n)] = 1;
    return n;
}

/* Run items with deferred results, settling at the end as prop run does. */
static void
d_run_all(prop_node *const *items, size_t n, prop_result *out)
{
    prop_triggers *t = NULL;
    size_t i;

    ck_assert_int_eq(prop_triggers_new((const prop_node *const *)items, n, PROP_OS_DEBIAN, &t),
                     PROP_OK);
    for (i = 0; i < n; i++) {
        prop_result r = prop_exec_top(t, i, &DOPS, NULL);
        if (out)
            out[i] = r;
    }
    prop_exec_settle(t, &DOPS, NULL);
    prop_triggers_free(t);
}

/* Independent properties: one wait for all, the late failure reported
 * as its leaf's, the others as they were. */
START_TEST(test_defer_plain)
{
    prop_node *items[3];

    items[0] = leaf("a", PROP_RESULT_CHANGED);
    items[1] = late_leaf("b");
    items[2] = leaf("c", PROP_RESULT_OK);
    d_run_all(items, 3, NULL);
    ck_assert_str_eq(R.trail, "a,b,c");
    ck_assert_int_eq(D.settles, 1);
    ck_assert_str_eq(D.events, "a=changed;b=failed(write 2 failed);c=ok;");
    ck_assert_int_eq(D.last_batch_ok, 1);
    ck_assert_int_eq((int)D.nsent, 0);
}
END_TEST

/* requires: the requirement's late failure is known before deciding. */
START_TEST(test_defer_requires)
{
    prop_node *items[1];

    items[0] = combine(PROP_REQUIRES, leaf("x", PROP_RESULT_CHANGED), late_leaf("y"));
    d_run_all(items, 1, NULL);
    ck_assert_str_eq(R.trail, "y");
    ck_assert_int_eq(D.settles, 1);
    /* (a composite takes its first side's description) */
    ck_assert_str_eq(D.events, "y=failed(write 2 failed);x=failed(a requirement failed);");
}
END_TEST

/* fallback: a late failure of the first side runs the second, whose
 * result is the fallback's. */
START_TEST(test_defer_fallback)
{
    prop_node *items[1];

    items[0] = combine(PROP_FALLBACK, late_leaf("p"), leaf("q", PROP_RESULT_CHANGED));
    d_run_all(items, 1, NULL);
    ck_assert_str_eq(R.trail, "p,q");
    ck_assert_str_eq(D.events, "p=failed(write 2 failed);q=changed;p=changed;");
}
END_TEST

/* on_change: a change whose write failed later triggers nothing; one
 * that held does. */
START_TEST(test_defer_on_change)
{
    prop_node *items[2];

    items[0] = on_change(late_leaf("a"), leaf("T", PROP_RESULT_CHANGED));
    items[1] = on_change(leaf("b", PROP_RESULT_CHANGED), leaf("U", PROP_RESULT_CHANGED));
    d_run_all(items, 2, NULL);
    ck_assert_str_eq(R.trail, "a,b,U");
    ck_assert_int_eq(strncmp(D.events, "a=failed(write 2 failed);", 25), 0);
    ck_assert_ptr_nonnull(strstr(D.events, "b=changed;U=changed;"));
}
END_TEST

/* A late failure inside a composite fails the composite as well. */
START_TEST(test_defer_composite)
{
    prop_node *items[2];
    prop_exec_summary sum;
    prop_host *h = NULL;

    prop_node *parts[2];

    parts[0] = leaf("a", PROP_RESULT_CHANGED);
    parts[1] = late_leaf("b");
    ck_assert_int_eq(prop_list_new(S, PROP_PROPS, parts, 2, &site_origin, &items[0]), PROP_OK);
    items[1] = leaf("c", PROP_RESULT_CHANGED);
    d_run_all(items, 2, NULL);
    ck_assert_ptr_nonnull(strstr(D.events, "b=failed(write 3 failed);"));
    ck_assert_ptr_nonnull(strstr(D.events, "c=changed;"));
    /* The top-level composite itself (depth 0) is reported failed. */
    ck_assert_ptr_null(strstr(D.events, "=changed;c="));
    /* prop_exec_host counts final results. */
    memset(&D.events, 0, sizeof D.events);
    ck_assert_int_eq(prop_host_new(S, "h", &site_origin, &h), PROP_OK);
    ck_assert_int_eq(prop_host_add(S, h, items[0]), PROP_OK);
    ck_assert_int_eq(prop_host_add(S, h, items[1]), PROP_OK);
    prop_exec_host(h, &DOPS, NULL, &sum);
    ck_assert_uint_eq(sum.failed, 1);
    ck_assert_uint_eq(sum.changed, 1);
}
END_TEST

/* More than a window of properties: every one reported, in order. */
START_TEST(test_defer_window)
{
    prop_node *items[300];
    prop_node *a = leaf("a", PROP_RESULT_CHANGED);
    size_t i, n = 0;
    const char *p;

    for (i = 0; i < 300; i++)
        items[i] = a;
    d_run_all(items, 300, NULL);
    for (p = D.events; (p = strstr(p, "a=changed;")) != NULL; p++)
        n++;
    ck_assert_uint_eq(n, 300);
    ck_assert_int_ge(D.settles, 1);
    ck_assert_int_le(D.settles, 3);
}
END_TEST

/* The property that fills the window fails on a later answer: it is
 * reported failed (not changed), and counted once. */
START_TEST(test_defer_window_full_fails)
{
    prop_node *items[300];
    prop_node *a = leaf("a", PROP_RESULT_CHANGED);
    prop_exec_summary sum;
    prop_host *h = NULL;
    size_t i;

    for (i = 0; i < 300; i++)
        items[i] = a;
    items[256] = late_leaf("L");
    d_run_all(items, 300, NULL);
    ck_assert_ptr_nonnull(strstr(D.events, "L=failed(write 257 failed);"));
    ck_assert_ptr_null(strstr(D.events, "L=changed"));
    memset(&D.events, 0, sizeof D.events);
    ck_assert_int_eq(prop_host_new(S, "h", &site_origin, &h), PROP_OK);
    for (i = 0; i < 300; i++)
        ck_assert_int_eq(prop_host_add(S, h, items[i]), PROP_OK);
    prop_exec_host(h, &DOPS, NULL, &sum);
    ck_assert_uint_eq(sum.failed, 1);
    ck_assert_uint_eq(sum.changed, 299);
}
END_TEST

static Suite *
exec_suite(void)
{
    Suite *s = suite_create("exec");
    TCase *tc = tcase_create("triggers");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_both_change);
    tcase_add_test(tc, test_alike_targets);
    tcase_add_test(tc, test_different_targets);
    tcase_add_test(tc, test_first_changes);
    tcase_add_test(tc, test_none_changes);
    tcase_add_test(tc, test_target_fails);
    tcase_add_test(tc, test_single_is_plain);
    tcase_add_test(tc, test_last_skipped);
    tcase_add_test(tc, test_required_serves);
    tcase_add_test(tc, test_required_then_trigger);
    tcase_add_test(tc, test_within_props);
    tcase_add_test(tc, test_nested_in_target);
    tcase_add_test(tc, test_select);
    suite_add_tcase(s, tc);
    tc = tcase_create("deferred");
    tcase_add_checked_fixture(tc, d_setup, teardown);
    tcase_add_test(tc, test_defer_plain);
    tcase_add_test(tc, test_defer_requires);
    tcase_add_test(tc, test_defer_fallback);
    tcase_add_test(tc, test_defer_on_change);
    tcase_add_test(tc, test_defer_composite);
    tcase_add_test(tc, test_defer_window);
    tcase_add_test(tc, test_defer_window_full_fails);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    return run_suite(exec_suite());
}
