/*
 * exec.c - the run-time meaning of the combinators (SPEC 2.3 and 4).
 *
 * The executor walks the immutable graph and asks the caller to ensure
 * each leaf.  Failure of one top-level property never stops the next;
 * inside a property, requires/before chains stop at the first failure, as
 * Propellor's do.  The only memory it takes is a host's trigger table
 * (prop_triggers_new), made before the run: running allocates nothing.
 *
 * Ownership: a prop_triggers owns its groups, its occurrence map and each
 * group's source array, all from malloc, freed by prop_triggers_free.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc.h"
#include "array.h"
#include "internal.h"
#include "prop/exec.h"

prop_result
prop_result_combine(prop_result a, prop_result b)
{
    return a > b ? a : b;
}

const char *
prop_result_name(prop_result r)
{
    switch (r) {
    case PROP_RESULT_OK:
        return "ok";
    case PROP_RESULT_CHANGED:
        return "changed";
    case PROP_RESULT_FAILED:
        return "failed";
    case PROP_RESULT_INTERRUPTED:
        return "interrupted";
    }
    return "?";
}

static double
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The first alternative of a pick_os whose targets hold os, or NULL. */
static const prop_node *
pick(const prop_node *n, prop_os_set os)
{
    unsigned i;

    for (i = 0; i < n->nchildren; i++)
        if (os != PROP_OS_NONE && (node_children(n)[i]->targets & os) == os)
            return node_children(n)[i];
    return NULL;
}

/* ---- the same property ---------------------------------------------- */

static int
str_same(const char *a, const char *b)
{
    if (a == b)
        return 1;
    return a && b && strcmp(a, b) == 0;
}

static int
claim_same(const prop_claim *a, const prop_claim *b)
{
    size_t la, lb;

    if (a->kind != b->kind || a->id != b->id || a->flags != b->flags || !str_same(a->key, b->key))
        return 0;
    if (!a->value || !b->value)
        return a->value == b->value;
    la = a->value_len ? a->value_len : strlen(a->value);
    lb = b->value_len ? b->value_len : strlen(b->value);
    return la == lb && memcmp(a->value, b->value, la) == 0;
}

static int
leaf_same(const leaf_data *a, const leaf_data *b)
{
    unsigned i;

    if (a == b)
        return 1;
    /* A leaf that claims nothing (cmd.run, a property {} with no claims)
     * says nothing of what it does beyond its description: two of them
     * are the same only when they are one. */
    if (!a || !b || a->nclaims == 0)
        return 0;
    if (a->nclaims != b->nclaims || a->ninfo != b->ninfo || a->os_family != b->os_family ||
        a->publishes != b->publishes || a->detaches != b->detaches || a->container != b->container)
        return 0;
    for (i = 0; i < a->nclaims; i++)
        if (!claim_same(&a->claims[i], &b->claims[i]))
            return 0;
    for (i = 0; i < a->ninfo; i++)
        if (!str_same(a->info[i].key, b->info[i].key) ||
            !str_same(a->info[i].value, b->info[i].value))
            return 0;
    return 1;
}

int
prop_node_same(const prop_node *a, const prop_node *b)
{
    unsigned i;

    if (a == b)
        return 1;
    if (!a || !b || a->kind != b->kind || a->nchildren != b->nchildren ||
        a->targets != b->targets || a->revertable != b->revertable || a->paired != b->paired ||
        a->info_only != b->info_only || a->nports != b->nports || !str_same(a->desc, b->desc))
        return 0;
    if (a->nports && memcmp(a->ports, b->ports, a->nports * sizeof *a->ports) != 0)
        return 0;
    if (!leaf_same(a->leaf, b->leaf))
        return 0;
    if (a->kind == PROP_REVERT && !prop_node_same(a->rev, b->rev))
        return 0;
    for (i = 0; i < a->nchildren; i++)
        if (!prop_node_same(node_children(a)[i], node_children(b)[i]))
            return 0;
    return 1;
}

/* ---- the trigger table ------------------------------------------------ */

/* One shared target: the on_change nodes that name it. */
typedef struct trig_group {
    const prop_node *target;   /* the first met */
    size_t total;              /* counted on_change */
    size_t last_top;           /* the top-level property holding the last */
    size_t seen;               /* counted on_change run so far */
    const prop_node **sources; /* noted triggers: total + 1 slots (NULL: owed
                                  from an earlier run) */
    size_t nsources;
    const prop_node *run; /* the target to run: the last trigger's */
    int recorded;         /* ops->owe was told it is owed (or it was owed
                             from an earlier run), not yet that it ran */
} trig_group;

/* A counted on_change and its group (sorted by node for bsearch). */
typedef struct trig_occ {
    const prop_node *oc;
    size_t group;
} trig_occ;

/* ---- deferred results ------------------------------------------------- */

/*
 * With deferred results (ops->batch and the rest), a leaf's file
 * operations may be answered after it returned: its result is provisional
 * (a later answer can fail it) until the caller settles.  Every node
 * started gets a batch number, in run order, so the leaves below a node
 * hold the batches from the node's first to the last given before it is
 * done.  A node's done() waits in the window until every answer of the
 * batches before it is in; a failure found then fails each node (in the
 * window or still running) whose batches hold it.  Before a decision that
 * reads a part's result (requires, before, on_change, fallback, a trigger
 * owed), the executor settles, so that decisions see final results; the
 * part's failure is then the decision's, not the running node's.
 */
#define EXEC_WINDOW 256

typedef struct exec_rec {
    const prop_node *n;
    unsigned depth;
    prop_result r;
    double ms;
    char *own;            /* malloc'd reason, when the node has one */
    const char *why;      /* own, or a fixed text */
    unsigned long b0, b1; /* its batches, b0..b1 */
} exec_rec;

typedef struct exec_frame {
    struct exec_frame *up;
    unsigned long b0; /* its first batch */
    int late;         /* a part failed on an answer that came later */
} exec_frame;

struct prop_triggers {
    const prop_node *const *props;
    size_t nprops;
    prop_os_set os;
    trig_group *g;
    size_t ng;
    trig_occ *occ;
    size_t nocc;
    size_t npending;    /* groups with noted triggers */
    size_t top;         /* the top-level property running */
    unsigned in_target; /* inside an on_change target: not counted */
    /* Deferred results (see above). */
    exec_rec *win; /* EXEC_WINDOW of them */
    size_t nwin;
    unsigned long batch;   /* the last batch given */
    unsigned long settled; /* every batch up to it is settled */
    unsigned long top_b0;  /* the first batch of the top-level property */
    int top_late;          /* it failed on a later answer */
    exec_frame *frames;    /* the innermost node running */
};

/* The walk: every counted on_change with its top-level index. */
typedef struct walk_list {
    trig_occ *v; /* group holds the top-level index while walking */
    size_t n, cap;
    int nomem;
} walk_list;

static void
walk(walk_list *w, const prop_node *n, prop_os_set os, size_t top)
{
    const prop_node *alt;
    unsigned i;

    if (w->nomem)
        return;
    switch (n->kind) {
    case PROP_REQUIRES:
        walk(w, node_children(n)[1], os, top);
        walk(w, node_children(n)[0], os, top);
        break;
    case PROP_BEFORE:
    case PROP_FALLBACK:
        walk(w, node_children(n)[0], os, top);
        walk(w, node_children(n)[1], os, top);
        break;
    case PROP_ON_CHANGE:
        walk(w, node_children(n)[0], os, top);
        if (prop_array_reserve(w->v, w->cap, w->n, 1, 16) != 0) {
            w->nomem = 1;
            return;
        }
        w->v[w->n].oc = n;
        w->v[w->n].group = top;
        w->n++;
        break;
    case PROP_PICK_OS:
        if ((alt = pick(n, os)) != NULL)
            walk(w, alt, os, top);
        break;
    case PROP_REVERT:
        if (n->rev)
            walk(w, n->rev, os, top);
        break;
    case PROP_REVERTABLE:
    case PROP_DESCRIBE:
    case PROP_ONLY_IF:
        walk(w, node_children(n)[0], os, top);
        break;
    case PROP_PROPS:
        for (i = 0; i < n->nchildren; i++)
            walk(w, node_children(n)[i], os, top);
        break;
    default:
        break;
    }
}

static int
occ_cmp(const void *a, const void *b)
{
    const prop_node *x = ((const trig_occ *)a)->oc, *y = ((const trig_occ *)b)->oc;

    return x < y ? -1 : x > y;
}

void
prop_triggers_free(prop_triggers *t)
{
    size_t i;

    if (!t)
        return;
    for (i = 0; i < t->ng; i++)
        free(t->g[i].sources);
    for (i = 0; i < t->nwin; i++)
        free(t->win[i].own);
    free(t->win);
    free(t->g);
    free(t->occ);
    free(t);
}

const char *
prop_node_origin_text(const prop_node *n, char *buf, size_t size)
{
    const prop_origin *o = n ? prop_node_origin(n) : NULL;

    if (!buf || size == 0)
        return "";
    if (o == NULL || o->nframes == 0 || !o->frames[0].file)
        snprintf(buf, size, "?");
    else
        snprintf(buf, size, "%s:%d", o->frames[0].file, o->frames[0].line);
    return buf;
}

/* The occurrence (first of its group) whose target an owed record names,
 * or w->n. */
static size_t
owed_occurrence(const walk_list *w, const size_t *group, const prop_owed *ow)
{
    size_t i, best = w->n;
    char o[1200];

    if (!ow->desc)
        return w->n;
    for (i = 0; i < w->n; i++) {
        const prop_node *b = node_children(w->v[i].oc)[1];

        if (!b->desc || strcmp(b->desc, ow->desc) != 0)
            continue;
        if (best == w->n)
            best = group[i];
        if (ow->origin && strcmp(prop_node_origin_text(b, o, sizeof o), ow->origin) == 0)
            return group[i];
    }
    return best;
}

int
prop_triggers_new(const prop_node *const *props, size_t n, prop_os_set os, prop_triggers **out)
{
    return prop_triggers_new_owed(props, n, os, NULL, 0, out);
}

int
prop_triggers_new_owed(const prop_node *const *props, size_t n, prop_os_set os, prop_owed *owed,
                       size_t nowed, prop_triggers **out)
{
    walk_list w = {NULL, 0, 0, 0};
    prop_triggers *t;
    size_t *group = NULL, i, j, ng = 0, nshared = 0, *map = NULL, *owed_at = NULL;
    unsigned char *owes = NULL;
    int rc = PROP_ENOMEM;

    if (!out)
        return PROP_EINVAL;
    *out = NULL;
    if ((!props && n > 0) || (!owed && nowed > 0))
        return PROP_EINVAL;
    for (i = 0; i < nowed; i++)
        owed[i].target = NULL;
    if (!(t = prop_calloc(1, sizeof *t)))
        return PROP_ENOMEM;
    if (!(t->win = prop_malloc(EXEC_WINDOW * sizeof *t->win))) {
        free(t);
        return PROP_ENOMEM;
    }
    t->props = props;
    t->nprops = n;
    t->os = os;
    for (i = 0; i < n && !w.nomem; i++)
        if (!props[i]->info_only)
            walk(&w, props[i], os, i);
    if (w.nomem || (w.n && !(group = prop_malloc(w.n * sizeof *group))))
        goto fail;
    /* Group the targets: group[i] is the first occurrence with the same
     * target (a small number of distinct targets is the common case). */
    for (i = 0; i < w.n; i++) {
        const prop_node *b = node_children(w.v[i].oc)[1];

        group[i] = i;
        for (j = 0; j < i; j++)
            if (group[j] == j && prop_node_same(node_children(w.v[j].oc)[1], b)) {
                group[i] = j;
                break;
            }
    }
    if (w.n && (!(map = prop_calloc(w.n, sizeof *map)) || !(owes = prop_calloc(w.n, 1))))
        goto fail;
    if (nowed && !(owed_at = prop_malloc(nowed * sizeof *owed_at)))
        goto fail;
    /* An owed target is shared, even when counted once. */
    for (i = 0; i < nowed; i++)
        if ((owed_at[i] = owed_occurrence(&w, group, &owed[i])) < w.n)
            owes[owed_at[i]] = 1;
    /* Count each group; map[first] becomes the group's number + 1 when
     * it is shared. */
    for (i = 0; i < w.n; i++)
        map[group[i]]++;
    for (i = 0; i < w.n; i++)
        if (group[i] == i && (map[i] >= 2 || owes[i]))
            nshared++;
    if (nshared) {
        if (!(t->g = prop_calloc(nshared, sizeof *t->g)))
            goto fail;
        for (i = 0; i < w.n; i++) {
            if (group[i] != i || (map[i] < 2 && !owes[i])) {
                if (group[i] == i)
                    map[i] = 0;
                continue;
            }
            t->g[ng].target = node_children(w.v[i].oc)[1];
            t->g[ng].total = map[i];
            if (!(t->g[ng].sources = prop_calloc(map[i] + 1, sizeof *t->g[ng].sources))) {
                t->ng = ng;
                goto fail;
            }
            if (owes[i]) {
                /* Owed from an earlier run: a trigger noted already. */
                t->g[ng].sources[0] = NULL;
                t->g[ng].nsources = 1;
                t->g[ng].run = t->g[ng].target;
                t->g[ng].recorded = 1;
                t->npending++;
            }
            map[i] = ++ng;
        }
        t->ng = ng;
        if (!(t->occ = prop_malloc(w.n * sizeof *t->occ)))
            goto fail;
        for (i = 0; i < w.n; i++) {
            size_t k = map[group[i]];

            if (k == 0)
                continue;
            t->g[k - 1].last_top = w.v[i].group;
            t->occ[t->nocc].oc = w.v[i].oc;
            t->occ[t->nocc].group = k - 1;
            t->nocc++;
        }
        qsort(t->occ, t->nocc, sizeof *t->occ, occ_cmp);
        for (i = 0; i < nowed; i++)
            if (owed_at[i] < w.n)
                owed[i].target = t->g[map[owed_at[i]] - 1].target;
    }
    rc = PROP_OK;
    *out = t;
    t = NULL;
fail:
    free(w.v);
    free(group);
    free(map);
    free(owes);
    free(owed_at);
    prop_triggers_free(t);
    return rc;
}

size_t
prop_triggers_count(const prop_triggers *t)
{
    return t ? t->ng : 0;
}

const prop_node *
prop_triggers_target(const prop_triggers *t, size_t i)
{
    return t && i < t->ng ? t->g[i].target : NULL;
}

static trig_group *
group_of(prop_triggers *t, const prop_node *oc)
{
    trig_occ key, *hit;

    if (!t || t->in_target || t->nocc == 0)
        return NULL;
    key.oc = oc;
    key.group = 0;
    hit = bsearch(&key, t->occ, t->nocc, sizeof *t->occ, occ_cmp);
    return hit ? &t->g[hit->group] : NULL;
}

/* ---- running ---------------------------------------------------------- */

static int
deferring(const prop_triggers *t, const prop_exec_ops *ops)
{
    return t && ops->batch && ops->pending && ops->settle && ops->failure;
}

/*
 * Every answer being in (settled first when wait), apply the failures of
 * the batches not yet settled to the window and the nodes running, and
 * report the window's nodes.
 */
static void
win_flush(prop_triggers *t, const prop_exec_ops *ops, void *ud, int wait)
{
    unsigned long b;
    exec_frame *f;
    size_t i;

    if (wait)
        ops->settle(ud);
    for (b = t->settled + 1; b <= t->batch; b++) {
        char *msg = ops->failure(ud, b);

        if (!msg)
            continue;
        for (i = 0; i < t->nwin; i++) {
            exec_rec *e = &t->win[i];

            if (b < e->b0 || b > e->b1 || e->r >= PROP_RESULT_FAILED)
                continue;
            e->r = PROP_RESULT_FAILED;
            if (e->n->kind == PROP_LEAF && !e->own && msg) {
                e->own = msg; /* the leaf whose operation failed */
                e->why = msg;
                msg = NULL;
            }
        }
        for (f = t->frames; f; f = f->up)
            if (f->b0 <= b)
                f->late = 1;
        if (b >= t->top_b0)
            t->top_late = 1;
        free(msg);
    }
    t->settled = t->batch;
    for (i = 0; i < t->nwin; i++) {
        exec_rec *e = &t->win[i];

        if (ops->done)
            ops->done(ud, e->n, e->depth, e->r, e->ms, e->why);
        free(e->own);
    }
    t->nwin = 0;
}

/*
 * Before a decision on r, a part's result: make it final.  A part that
 * failed on a later answer fails here (and so no longer counts against
 * the node running, fr, whose decision takes it into account).
 */
static prop_result
final(prop_triggers *t, exec_frame *fr, const prop_exec_ops *ops, void *ud, prop_result r)
{
    if (!deferring(t, ops) || r >= PROP_RESULT_FAILED || (!t->nwin && !ops->pending(ud)))
        return r;
    win_flush(t, ops, ud, 1);
    if (fr->late) {
        fr->late = 0;
        r = PROP_RESULT_FAILED;
    }
    return r;
}

/* n is done: report it now, or once the answers it may wait for are in. */
static void
node_done(prop_triggers *t, exec_frame *fr, const prop_exec_ops *ops, void *ud, const prop_node *n,
          unsigned depth, prop_result r, double ms, char **msg, const char *why)
{
    exec_rec *e;

    if (!deferring(t, ops) || (!t->nwin && !ops->pending(ud))) {
        if (ops->done)
            ops->done(ud, n, depth, r, ms, why);
        return;
    }
    e = &t->win[t->nwin++];
    e->n = n;
    e->depth = depth;
    e->r = r;
    e->ms = ms;
    e->own = NULL;
    e->why = why;
    if (msg && *msg && why == *msg) {
        e->own = *msg; /* the window owns it now */
        *msg = NULL;
    }
    e->b0 = fr->b0;
    e->b1 = t->batch;
    /* A full window waits for the answers with n in it: a failure of
     * n's own batches is then n's, not lost before n is put there. */
    if (t->nwin == EXEC_WINDOW)
        win_flush(t, ops, ud, 1);
}

void
prop_exec_settle(prop_triggers *t, const prop_exec_ops *ops, void *ud)
{
    if (ops && deferring(t, ops) && (t->nwin || ops->pending(ud)))
        win_flush(t, ops, ud, 1);
}

static prop_result exec_node(prop_triggers *t, const prop_node *n, prop_os_set os, unsigned depth,
                             const prop_exec_ops *ops, void *ud, trig_group *served, int all);

/* Run the target of g once for its noted triggers, and clear them. */
static prop_result
flush(prop_triggers *t, trig_group *g, prop_os_set os, unsigned depth, const prop_exec_ops *ops,
      void *ud)
{
    prop_result r;

    if (g->nsources == 0 || (ops->stop && ops->stop(ud)))
        return PROP_RESULT_OK;
    t->in_target++;
    r = exec_node(t, g->run, os, depth, ops, ud, g, 1);
    t->in_target--;
    return r;
}

/* A noted group whose target n is: this run of n serves its triggers. */
static trig_group *
serves(prop_triggers *t, const prop_node *n)
{
    size_t i;

    if (!t || t->npending == 0)
        return NULL;
    for (i = 0; i < t->ng; i++)
        if (t->g[i].nsources && prop_node_same(t->g[i].target, n))
            return &t->g[i];
    return NULL;
}

/*
 * Ensure n.  served: the group whose noted triggers this run of n serves
 * (found here when NULL and triggers are noted).
 */
#define SUB(c) exec_node(t, (c), os, depth + 1, ops, ud, NULL, all)
#define FINAL(r) final(t, &fr, ops, ud, (r))

/*
 * all: n is a trigger's target (or inside one), run whatever ops->select
 * says: a change that was made must have its consequence, as Ansible's
 * handlers run whatever the tags.
 */
static prop_result
exec_node(prop_triggers *t, const prop_node *n, prop_os_set os, unsigned depth,
          const prop_exec_ops *ops, void *ud, trig_group *served, int all)
{
    trig_group *g;
    size_t nserved = 0;
    prop_result r = PROP_RESULT_OK, r2;
    const prop_node *alt;
    char *msg = NULL;
    const char *why = NULL;
    double t0 = now_ms();
    exec_frame fr = {NULL, 0, 0};
    unsigned i;

    if (!all && ops->select && !ops->select(ud, n)) {
        /* Left out; a shared target whose last on_change it held still
         * runs for the triggers noted. */
        if (t && depth == 0)
            for (i = 0; i < t->ng; i++)
                if (t->g[i].last_top == t->top && t->g[i].seen < t->g[i].total) {
                    t->g[i].seen = t->g[i].total;
                    r = prop_result_combine(r, flush(t, &t->g[i], os, depth, ops, ud));
                }
        return r;
    }
    if (deferring(t, ops)) {
        /* Answers all in: what waited is reported before n starts. */
        if (t->nwin && !ops->pending(ud))
            win_flush(t, ops, ud, 0);
        fr.b0 = ++t->batch;
        fr.up = t->frames;
        /* cppcheck-suppress autoVariables ; popped before n returns */
        t->frames = &fr;
        ops->batch(ud, fr.b0);
    }
    if (!served && (g = serves(t, n)) != NULL)
        served = g;
    if (served) {
        nserved = served->nsources;
        if (ops->triggered)
            ops->triggered(ud, n, depth, served->sources, nserved);
    }
    if (ops->start)
        ops->start(ud, n, depth);
    switch (n->kind) {
    case PROP_LEAF:
        r = ops->ensure(ud, n, &msg);
        why = msg;
        break;
    case PROP_INFO:
        break;
    case PROP_INVALID:
        r = PROP_RESULT_FAILED;
        why = "this property was made from a bad argument and cannot run";
        break;
    case PROP_REQUIRES:
        r = FINAL(SUB(node_children(n)[1]));
        if (r < PROP_RESULT_FAILED)
            r = prop_result_combine(r, SUB(node_children(n)[0]));
        else if (r == PROP_RESULT_FAILED)
            why = "a requirement failed";
        break;
    case PROP_BEFORE:
        r = FINAL(SUB(node_children(n)[0]));
        if (r < PROP_RESULT_FAILED)
            r = prop_result_combine(r, SUB(node_children(n)[1]));
        break;
    case PROP_ON_CHANGE:
        r = FINAL(SUB(node_children(n)[0]));
        if ((g = group_of(t, n)) != NULL) {
            /* A shared target: note the trigger; the last runs it. */
            if (r == PROP_RESULT_CHANGED && g->nsources <= g->total) {
                if (g->nsources++ == 0)
                    t->npending++;
                g->sources[g->nsources - 1] = node_children(n)[0];
                g->run = node_children(n)[1];
                if (!g->recorded && ops->owe)
                    ops->owe(ud, g->target, 1);
                g->recorded = 1;
            }
            if (++g->seen >= g->total && r != PROP_RESULT_INTERRUPTED)
                r = prop_result_combine(r, flush(t, g, os, depth + 1, ops, ud));
        } else if (r == PROP_RESULT_CHANGED) {
            const prop_node *b = node_children(n)[1];

            if (ops->owe)
                ops->owe(ud, b, 1);
            if (t)
                t->in_target++;
            r2 = exec_node(t, b, os, depth + 1, ops, ud, NULL, 1);
            if (t)
                t->in_target--;
            if (ops->owe)
                r2 = FINAL(r2);
            if (ops->owe && r2 <= PROP_RESULT_CHANGED)
                ops->owe(ud, b, 0);
            r = prop_result_combine(r, r2);
        }
        break;
    case PROP_FALLBACK:
        r = FINAL(SUB(node_children(n)[0]));
        if (r == PROP_RESULT_FAILED) {
            r2 = SUB(node_children(n)[1]);
            r = r2;
        }
        break;
    case PROP_PICK_OS:
        alt = pick(n, os);
        if (alt)
            r = SUB(alt);
        else {
            r = PROP_RESULT_FAILED;
            why = "no alternative of pick_os runs on this host's operating system";
        }
        break;
    case PROP_REVERTABLE:
        r = SUB(node_children(n)[0]);
        break;
    case PROP_REVERT:
        if (n->rev)
            r = SUB(n->rev);
        else {
            r = PROP_RESULT_FAILED;
            why = "not revertable";
        }
        break;
    case PROP_PROPS:
        for (i = 0; i < n->nchildren && r != PROP_RESULT_INTERRUPTED; i++)
            r = prop_result_combine(r, SUB(node_children(n)[i]));
        break;
    case PROP_DESCRIBE:
        r = SUB(node_children(n)[0]);
        break;
    case PROP_ONLY_IF:
        switch (ops->test ? ops->test(ud, n, &msg) : 0) {
        case 1:
            r = SUB(node_children(n)[0]);
            break;
        case 0:
            why = "its only_if test does not hold: not ensured";
            break;
        default:
            /* A test stopped by a signal is interrupted, not failed. */
            r = ops->stop && ops->stop(ud) ? PROP_RESULT_INTERRUPTED : PROP_RESULT_FAILED;
            why = msg ? msg : "its only_if test failed";
            break;
        }
        break;
    }
    if (t && depth == 0 && r != PROP_RESULT_INTERRUPTED)
        /* The last on_change of a shared target was skipped: run it at
         * the end of the top-level property that holds it. */
        for (i = 0; i < t->ng; i++)
            if (t->g[i].last_top == t->top && t->g[i].seen < t->g[i].total) {
                t->g[i].seen = t->g[i].total;
                r = prop_result_combine(r, flush(t, &t->g[i], os, depth + 1, ops, ud));
            }
    if (fr.late)
        r = prop_result_combine(r, PROP_RESULT_FAILED);
    if (served && nserved > 0 && served->recorded)
        r = FINAL(r); /* whether what was owed is done */
    if (deferring(t, ops))
        t->frames = fr.up;
    node_done(t, &fr, ops, ud, n, depth, r, now_ms() - t0, &msg, why);
    if (served && deferring(t, ops) && t->nwin)
        /* triggered()'s sources are valid until n's done(): report it
         * before they change. */
        win_flush(t, ops, ud, 1);
    if (served) {
        /* Those served are cleared; triggers noted since stay. */
        memmove(served->sources, served->sources + nserved,
                (served->nsources - nserved) * sizeof *served->sources);
        served->nsources -= nserved;
        if (served->nsources == 0 && nserved > 0)
            t->npending--;
        /* Done with what was owed: no longer kept for the next run. */
        if (nserved > 0 && served->recorded && served->nsources == 0 && r <= PROP_RESULT_CHANGED) {
            served->recorded = 0;
            if (ops->owe)
                ops->owe(ud, served->target, 0);
        }
    }
    free(msg);
    return r;
}

#undef SUB
#undef FINAL

prop_result
prop_exec_node(const prop_node *n, prop_os_set os, unsigned depth, const prop_exec_ops *ops,
               void *ud)
{
    return exec_node(NULL, n, os, depth, ops, ud, NULL, 0);
}

prop_result
prop_exec_top(prop_triggers *t, size_t i, const prop_exec_ops *ops, void *ud)
{
    if (!t || i >= t->nprops)
        return PROP_RESULT_FAILED;
    t->top = i;
    t->in_target = 0;
    t->top_b0 = t->batch + 1;
    t->top_late = 0;
    return exec_node(t, t->props[i], t->os, 0, ops, ud, NULL, 0);
}

prop_result
prop_exec_host(const prop_host *h, const prop_exec_ops *ops, void *ud, prop_exec_summary *sum)
{
    prop_os_set os = prop_host_os(h);
    prop_result all = PROP_RESULT_OK, r;
    double t0 = now_ms();
    size_t i, n = prop_host_nprops(h);
    prop_triggers *t = NULL;

    sum->ok = sum->changed = sum->failed = sum->skipped = 0;
    sum->stopped = 0;
    sum->ms = 0;
    if (prop_triggers_new((const prop_node *const *)h->props.v, n, os, &t) != PROP_OK) {
        sum->skipped = (unsigned)n;
        return PROP_RESULT_FAILED;
    }
    for (i = 0; i < n; i++) {
        if (ops->stop && ops->stop(ud)) {
            sum->stopped = 1;
            sum->skipped = (unsigned)(n - i);
            break;
        }
        r = prop_exec_top(t, i, ops, ud);
        if (deferring(t, ops)) {
            /* The count needs the final result: settle each property. */
            prop_exec_settle(t, ops, ud);
            if (t->top_late)
                r = prop_result_combine(r, PROP_RESULT_FAILED);
        }
        if (r == PROP_RESULT_INTERRUPTED) {
            sum->stopped = 1;
            sum->skipped = (unsigned)(n - i);
            all = r;
            break;
        }
        if (r == PROP_RESULT_OK)
            sum->ok++;
        else if (r == PROP_RESULT_CHANGED)
            sum->changed++;
        else
            sum->failed++;
        all = prop_result_combine(all, r);
    }
    prop_triggers_free(t);
    sum->ms = now_ms() - t0;
    return all;
}
