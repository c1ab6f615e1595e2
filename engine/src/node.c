/*
 * node.c - property nodes: the constructors that give each one its type
 * (SPEC 2.3) and the reverted forms.  Making a call's nodes again is
 * node_remake.c; reading them (the accessors, the walk over leaves) is
 * node_access.c.
 *
 * Ownership: every node lives in its site's arena and is freed with the
 * site, all at once.  A node never changes once made, so any number of
 * parents may share it, and nodes share strings (interned), port arrays
 * and origins with each other.  Nodes of two sites must not be mixed:
 * that is the caller's duty, as checking it would cost a pointer per node.
 *
 * Every constructor validates all its arguments before allocating, and
 * records a node in the site (id, s->nodes) only once it is complete, so a
 * refused allocation never leaves a half-made node visible.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define MAX_PORT 65535
#define JOIN_BUF 512 /* descriptions joined on the stack up to this size */

static unsigned
sat_add(unsigned a, unsigned b)
{
    return a > UINT_MAX - b ? UINT_MAX : a + b;
}

static int
nomem(prop_site *s)
{
    return site_fail(s, PROP_ENOMEM, "out of memory");
}

/* The leaf data of every node that is not a leaf: nothing. */
static const leaf_data no_leaf = {NULL, NULL, NULL, -1,   0, 0, PROP_OS_NONE, 0,
                                  0,    NULL, NULL, NULL, 0, 0, NULL};

/*
 * A zeroed node with room for nchildren child pointers right after it (one
 * allocation per node).  Not yet recorded in the site: see node_commit().
 */
prop_node *
node_alloc(prop_site *s, prop_kind kind, size_t nchildren, const prop_origin *origin, int synthetic)
{
    size_t size = sizeof(prop_node) + nchildren * sizeof(prop_node *);
    prop_node *n = arena_alloc_align(&s->mem, size, sizeof(void *));

    if (!n) {
        nomem(s);
        return NULL;
    }
    memset(n, 0, sizeof *n);
    n->kind = (unsigned)kind;
    n->origin = origin;
    n->synthetic = synthetic ? 1 : 0;
    n->leaf = &no_leaf;
    n->nchildren = (unsigned)nchildren;
    return n;
}

/*
 * Give n its id and record it in the site.  The array of every node is
 * resized with the allocator rather than the arena: at millions of nodes
 * the copies an arena abandons would cost as much as the array.  NULL when
 * out of memory.
 */
prop_node *
node_commit(prop_site *s, prop_node *n)
{
    ptrvec *pv = &s->nodes;

    if (pv->n == pv->cap) {
        size_t cap = pv->cap ? pv->cap * 2 : 1024;
        void **v;

        if (cap > (size_t)-1 / sizeof(void *) ||
            !(v = s->mem.alloc(s->mem.ud, pv->v, pv->cap * sizeof(void *), cap * sizeof(void *)))) {
            nomem(s);
            return NULL;
        }
        pv->v = v;
        pv->cap = cap;
    }
    pv->v[pv->n++] = n;
    n->id = s->next_id++;
    return n;
}

/*
 * The targets of a node joining children whose targets are ta and tb.  An
 * empty intersection of two non-empty sets is this node's mistake (P005);
 * an empty child already carries its own conflict and is not reported
 * twice.  Reverted forms never conflict where their source did not, so
 * they never set the flag.
 */
static void
join_targets(prop_node *n, prop_os_set ta, prop_os_set tb)
{
    n->targets = ta & tb;
    if (n->targets == PROP_OS_NONE && ta != PROP_OS_NONE && tb != PROP_OS_NONE && !n->synthetic)
        n->conflict = 1;
}

/*
 * The sorted union of two sorted port sets.  An operand that already is
 * the union is shared rather than copied.  PROP_ENOMEM on failure.
 */
static int
ports_union(prop_site *s, prop_node *n, const int *a, unsigned na, const int *b, unsigned nb)
{
    unsigned i = 0, j = 0, k = 0, count = 0;
    int *u;

    while (i < na || j < nb) {
        if (j == nb || (i < na && a[i] < b[j]))
            i++;
        else if (i == na || b[j] < a[i])
            j++;
        else
            i++, j++;
        count++;
    }
    if (count == na) {
        n->ports = (int *)a;
        n->nports = na;
        return PROP_OK;
    }
    if (count == nb) {
        n->ports = (int *)b;
        n->nports = nb;
        return PROP_OK;
    }
    u = arena_alloc_align(&s->mem, count * sizeof *u, sizeof(int));
    if (!u)
        return nomem(s);
    i = j = 0;
    while (i < na || j < nb) {
        if (j == nb || (i < na && a[i] < b[j]))
            u[k++] = a[i++];
        else if (i == na || b[j] < a[i])
            u[k++] = b[j++];
        else
            u[k++] = a[i++], j++;
    }
    n->ports = u;
    n->nports = count;
    return PROP_OK;
}

/*
 * Intern prefix, then the descriptions of items separated by sep (or text
 * when items is NULL).  Short results are built on the stack; longer ones
 * in scratch memory from the site's allocator, returned before leaving.
 */
static const char *
intern_join(prop_site *s, const char *prefix, prop_node *const *items, size_t n, const char *sep,
            const char *text)
{
    char local[JOIN_BUF];
    char *buf = local;
    size_t len = strlen(prefix), used = 0;
    const char *result;

    if (!items && !text)
        text = "";
    if (items)
        for (size_t i = 0; i < n; i++)
            len += strlen(items[i]->desc) + (i ? strlen(sep) : 0);
    else
        len += strlen(text);
    if (len >= sizeof local) {
        buf = s->mem.alloc(s->mem.ud, NULL, 0, len + 1);
        if (!buf) {
            nomem(s);
            return NULL;
        }
    }
#define PUT(str)                                                                                   \
    do {                                                                                           \
        size_t l_ = strlen(str);                                                                   \
        memcpy(buf + used, (str), l_);                                                             \
        used += l_;                                                                                \
    } while (0)
    PUT(prefix);
    if (items) {
        for (size_t i = 0; i < n; i++) {
            if (i)
                PUT(sep);
            PUT(items[i]->desc);
        }
    } else {
        PUT(text);
    }
#undef PUT
    result = site_intern_n(s, buf, used);
    if (buf != local)
        s->mem.alloc(s->mem.ud, buf, len + 1, 0);
    return result;
}

/* ---- the typing rules ---- */

/* requires, before, on_change, fallback; origin already copied. */
static prop_node *
make_pair(prop_site *s, prop_kind kind, prop_node *a, prop_node *b, const prop_origin *origin,
          int synthetic)
{
    prop_node *n = node_alloc(s, kind, 2, origin, synthetic);

    if (!n)
        return NULL;
    node_children(n)[0] = a;
    node_children(n)[1] = b;
    n->desc = a->desc;
    join_targets(n, a->targets, b->targets);
    n->revertable = kind == PROP_ON_CHANGE ? a->revertable : (a->revertable && b->revertable);
    n->info_only = a->info_only && b->info_only;
    n->weight = sat_add(a->weight, b->weight);
    if (ports_union(s, n, a->ports, a->nports, b->ports, b->nports) != PROP_OK)
        return NULL;
    return node_commit(s, n);
}

/* pick_os and props over items[0..count); origin already copied. */
static prop_node *
make_list(prop_site *s, prop_kind kind, prop_node *const *items, size_t count,
          const prop_origin *origin, int synthetic)
{
    prop_node *n = node_alloc(s, kind, count, origin, synthetic);
    prop_os_set all = PROP_OS_UNIXLIKE, nonempty = PROP_OS_UNIXLIKE;
    prop_os_set any = PROP_OS_NONE;
    unsigned nnonempty = 0;

    if (!n)
        return NULL;
    n->revertable = 1;
    n->info_only = 1;
    for (size_t i = 0; i < count; i++) {
        prop_node *c = items[i];

        node_children(n)[i] = c;
        all &= c->targets;
        any |= c->targets;
        if (c->targets != PROP_OS_NONE) {
            nonempty &= c->targets;
            nnonempty++;
        }
        n->revertable = n->revertable && c->revertable;
        n->info_only = n->info_only && c->info_only;
        n->weight = sat_add(n->weight, c->weight);
        if (ports_union(s, n, n->ports, n->nports, c->ports, c->nports) != PROP_OK)
            return NULL;
    }
    if (kind == PROP_PICK_OS) {
        n->targets = any;
        n->desc = count == 1 ? items[0]->desc : intern_join(s, "", items, count, " or ", NULL);
        if (!n->desc)
            return NULL;
    } else {
        n->targets = all;
        if (nnonempty > 1 && nonempty == PROP_OS_NONE && !synthetic)
            n->conflict = 1;
        n->desc = "props";
    }
    return node_commit(s, n);
}

static prop_node *
make_describe(prop_site *s, prop_node *p, const char *desc, const prop_origin *origin,
              int synthetic)
{
    prop_node *n = node_alloc(s, PROP_DESCRIBE, 1, origin, synthetic);

    if (!n)
        return NULL;
    node_children(n)[0] = p;
    n->desc = desc;
    n->targets = p->targets;
    n->revertable = p->revertable;
    n->info_only = p->info_only;
    n->weight = p->weight;
    n->ports = p->ports;
    n->nports = p->nports;
    return node_commit(s, n);
}

/*
 * only_if(test, p): p's type; the test's handle is kept in leaf data of
 * the node's own (test shares the one given, so that a reverted form and
 * a remade copy ask the same test).
 */
static prop_node *
make_only_if(prop_site *s, prop_node *p, const leaf_data *test, const prop_origin *origin,
             int synthetic)
{
    prop_node *n = node_alloc(s, PROP_ONLY_IF, 1, origin, synthetic);

    if (!n)
        return NULL;
    node_children(n)[0] = p;
    n->leaf = test;
    n->desc = p->desc;
    n->targets = p->targets;
    n->revertable = p->revertable;
    n->info_only = p->info_only;
    n->weight = p->weight;
    n->ports = p->ports;
    n->nports = p->nports;
    return node_commit(s, n);
}

/* ---- reverted forms ---- */

/*
 * How many children of a revertable node have their reverted form used in
 * the node's own reverted form (always the first ones).
 */
static size_t
rev_needs(const prop_node *n)
{
    switch (n->kind) {
    case PROP_REQUIRES:
    case PROP_BEFORE:
    case PROP_FALLBACK:
        return 2;
    case PROP_ON_CHANGE:
    case PROP_DESCRIBE:
    case PROP_ONLY_IF:
        return 1;
    case PROP_PICK_OS:
    case PROP_PROPS:
        return n->nchildren;
    default:
        return 0;
    }
}

/* The reverted form of n given those r[] of its first rev_needs(n) children. */
static prop_node *
rev_build(prop_site *s, const prop_node *n, prop_node **r, const prop_origin *o)
{
    const char *desc;

    switch (n->kind) {
    case PROP_REVERTABLE:
        return n->rev;
    case PROP_REVERT:
        return node_children(n)[0];
    case PROP_REQUIRES: /* "revert(a:requires(b)) reverts a then b" */
        return make_pair(s, PROP_BEFORE, r[0], r[1], o, 1);
    case PROP_BEFORE:
        return make_pair(s, PROP_BEFORE, r[1], r[0], o, 1);
    case PROP_FALLBACK:
        return make_pair(s, PROP_FALLBACK, r[0], r[1], o, 1);
    case PROP_ON_CHANGE: /* the hook belongs to the setting up */
        return r[0];
    case PROP_PICK_OS:
        return make_list(s, PROP_PICK_OS, r, n->nchildren, o, 1);
    case PROP_PROPS:
        for (size_t i = 0, j = n->nchildren; i + 1 < j; i++, j--) {
            prop_node *t = r[i];

            r[i] = r[j - 1];
            r[j - 1] = t;
        }
        return make_list(s, PROP_PROPS, r, n->nchildren, o, 1);
    case PROP_DESCRIBE:
        desc = intern_join(s, "revert: ", NULL, 0, NULL, n->desc);
        return desc ? make_describe(s, r[0], desc, o, 1) : NULL;
    case PROP_ONLY_IF: /* the same test guards the undoing */
        return make_only_if(s, r[0], n->leaf, o, 1);
    default: /* leaves are never revertable: rev_form() refuses them */
        return NULL;
    }
}

/* Scratch arrays of the reverted-form builder, from the site's allocator. */
typedef struct rev_frame {
    const prop_node *n;
    size_t next; /* children whose reverted form was asked for */
} rev_frame;

typedef struct rev_memo {
    const prop_node *key;
    prop_node *rev;
} rev_memo;

typedef struct rev_work {
    prop_site *s;
    rev_frame *frames;
    size_t nframes, capframes;
    prop_node **results;
    size_t nresults, capresults;
    rev_memo *memo;
    size_t nmemo, capmemo;
} rev_work;

static int
grow(prop_site *s, void **v, size_t *cap, size_t elem, size_t need)
{
    size_t cap2 = *cap ? *cap : 16;
    void *v2;

    while (cap2 < need) {
        if (cap2 > (size_t)-1 / 2 / elem)
            return nomem(s);
        cap2 *= 2;
    }
    if (cap2 == *cap)
        return PROP_OK;
    v2 = s->mem.alloc(s->mem.ud, *v, *cap * elem, cap2 * elem);
    if (!v2)
        return nomem(s);
    *v = v2;
    *cap = cap2;
    return PROP_OK;
}

static size_t
memo_slot(const rev_work *w, const prop_node *key)
{
    size_t j = ((size_t)key->id * 2654435761u) & (w->capmemo - 1);

    while (w->memo[j].key && w->memo[j].key != key)
        j = (j + 1) & (w->capmemo - 1);
    return j;
}

static prop_node *
memo_get(const rev_work *w, const prop_node *key)
{
    return w->capmemo ? w->memo[memo_slot(w, key)].rev : NULL;
}

static int
memo_put(rev_work *w, const prop_node *key, prop_node *rev)
{
    if ((w->nmemo + 1) * 2 > w->capmemo) {
        rev_memo *old = w->memo;
        size_t oldcap = w->capmemo, cap = oldcap ? oldcap * 2 : 64;
        rev_memo *m = w->s->mem.alloc(w->s->mem.ud, NULL, 0, cap * sizeof *m);

        if (!m)
            return nomem(w->s);
        memset(m, 0, cap * sizeof *m);
        w->memo = m;
        w->capmemo = cap;
        for (size_t i = 0; i < oldcap; i++)
            if (old[i].key)
                w->memo[memo_slot(w, old[i].key)] = old[i];
        if (old)
            w->s->mem.alloc(w->s->mem.ud, old, oldcap * sizeof *old, 0);
    }
    w->memo[memo_slot(w, key)] = (rev_memo){key, rev};
    w->nmemo++;
    return PROP_OK;
}

static int
push_result(rev_work *w, prop_node *r)
{
    if (grow(w->s, (void **)&w->results, &w->capresults, sizeof *w->results, w->nresults + 1))
        return PROP_ENOMEM;
    w->results[w->nresults++] = r;
    return PROP_OK;
}

static int
push_frame(rev_work *w, const prop_node *n)
{
    prop_node *known = memo_get(w, n);

    if (known)
        return push_result(w, known);
    if (grow(w->s, (void **)&w->frames, &w->capframes, sizeof *w->frames, w->nframes + 1))
        return PROP_ENOMEM;
    w->frames[w->nframes++] = (rev_frame){n, 0};
    return PROP_OK;
}

/*
 * The reverted form of the revertable node p, made of new synthetic nodes
 * at origin o (the revert() call).  Depth-first with explicit stacks, so a
 * deep chain cannot exhaust the C stack, and memoized, so a subtree shared
 * many times is reverted once.  PROP_ENOMEM (or PROP_ERROR if the graph
 * breaks the typing rules) with the site's error set; the scratch arrays
 * are returned either way.
 */
static int
rev_form(prop_site *s, const prop_node *p, const prop_origin *o, prop_node **out)
{
    rev_work w = {s, NULL, 0, 0, NULL, 0, 0, NULL, 0, 0};
    int rc = PROP_ENOMEM;

    *out = NULL;
    if (push_frame(&w, p))
        goto done;
    while (w.nframes > 0) {
        rev_frame *f = &w.frames[w.nframes - 1];
        const prop_node *n = f->n;
        size_t need = rev_needs(n);
        prop_node *r;

        if (!n->revertable) {
            rc = site_fail(s, PROP_ERROR, "internal error: reverting a non-revertable %s",
                           prop_kind_name(n->kind));
            goto done;
        }
        if (f->next < need) {
            if (push_frame(&w, node_children(n)[f->next++]))
                goto done;
            continue;
        }
        w.nframes--;
        /* A leaf needs no results, and there may be no array yet. */
        if (!(r = rev_build(s, n, need ? w.results + w.nresults - need : NULL, o)))
            goto done;
        w.nresults -= need;
        if (memo_put(&w, n, r) || push_result(&w, r))
            goto done;
    }
    *out = w.results[0];
    rc = PROP_OK;
done:
    if (w.frames)
        s->mem.alloc(s->mem.ud, w.frames, w.capframes * sizeof *w.frames, 0);
    if (w.results)
        s->mem.alloc(s->mem.ud, w.results, w.capresults * sizeof *w.results, 0);
    if (w.memo)
        s->mem.alloc(s->mem.ud, w.memo, w.capmemo * sizeof *w.memo, 0);
    return rc;
}

/* "1".."65535" in len bytes at p, without a sign or a leading zero. */
static int
port_text(const char *p, size_t len)
{
    long v = 0;

    if (len == 0 || len > 5 || p[0] == '0')
        return 0;
    for (size_t i = 0; i < len; i++) {
        if (p[i] < '0' || p[i] > '9')
            return 0;
        v = v * 10 + (p[i] - '0');
    }
    return v <= MAX_PORT;
}

/* The key of a web claim has its form: "NAME:PORT" (web.name), "PORT"
 * (web.default).  Other kinds' keys are not looked at. */
static int
web_key_ok(const prop_claim *c)
{
    const char *key = c->key, *colon;

    if (c->kind == PROP_CLAIM_WEB_DEFAULT)
        return port_text(key, strlen(key));
    if (c->kind != PROP_CLAIM_WEB_NAME)
        return 1;
    colon = strrchr(key, ':');
    if (!colon || colon == key || !port_text(colon + 1, strlen(colon + 1)))
        return 0;
    for (const char *p = key; p < colon; p++)
        if ((unsigned char)*p <= ' ' || *p == 0x7f)
            return 0;
    return 1;
}

/* ---- constructors ---- */

static int
cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;

    return (x > y) - (x < y);
}

static int
check_spec(prop_site *s, const prop_leaf_spec *spec)
{
    if (!spec->desc)
        return site_fail(s, PROP_EINVAL, "a property needs a description");
    if (spec->targets & ~PROP_OS_UNIXLIKE)
        return site_fail(s, PROP_EINVAL, "unknown OS family bits 0x%x", spec->targets);
    if ((spec->os_family & ~PROP_OS_UNIXLIKE) || (spec->os_family & (spec->os_family - 1)))
        return site_fail(s, PROP_EINVAL, "os_family 0x%x is not one OS family", spec->os_family);
    if ((spec->nports && !spec->ports) || (spec->nclaims && !spec->claims) ||
        (spec->ninfo && !spec->info))
        return site_fail(s, PROP_EINVAL, "a count without its array");
    if (spec->nports > UINT_MAX || spec->nclaims > UINT_MAX || spec->ninfo > UINT_MAX)
        return site_fail(s, PROP_EINVAL, "too many ports, claims or info");
    for (size_t i = 0; i < spec->nports; i++)
        if (spec->ports[i] < 1 || spec->ports[i] > MAX_PORT)
            return site_fail(s, PROP_EINVAL, "port %d is outside 1..65535", spec->ports[i]);
    for (size_t i = 0; i < spec->nclaims; i++) {
        if ((unsigned)spec->claims[i].kind >= PROP_CLAIM__COUNT)
            return site_fail(s, PROP_EINVAL, "unknown claim kind %d", (int)spec->claims[i].kind);
        if (!spec->claims[i].key)
            return site_fail(s, PROP_EINVAL, "a %s claim without a key",
                             prop_claim_kind_name(spec->claims[i].kind));
        if (!web_key_ok(&spec->claims[i]))
            return site_fail(s, PROP_EINVAL,
                             spec->claims[i].kind == PROP_CLAIM_WEB_NAME
                                 ? "a web.name claim's key must be \"NAME:PORT\" (a name without "
                                   "spaces, a port in 1..65535), got \"%s\""
                                 : "a web.default claim's key must be a port in 1..65535, got "
                                   "\"%s\"",
                             spec->claims[i].key);
    }
    if (spec->shares_ports && !spec->shares_ports[0])
        return site_fail(s, PROP_EINVAL, "shares_ports: an empty server name");
    for (size_t i = 0; i < spec->ninfo; i++)
        if (!spec->info[i].key || !spec->info[i].value)
            return site_fail(s, PROP_EINVAL, "info without a key or a value");
    if ((spec->nuses_services && !spec->uses_services) || (spec->nuses_ports && !spec->uses_ports))
        return site_fail(s, PROP_EINVAL, "a count of uses without its array");
    if (spec->nuses_services > UINT_MAX || spec->nuses_ports > UINT_MAX)
        return site_fail(s, PROP_EINVAL, "too many uses");
    for (size_t i = 0; i < spec->nuses_services; i++)
        if (!spec->uses_services[i] || !spec->uses_services[i][0])
            return site_fail(s, PROP_EINVAL, "uses: a service without a name");
    for (size_t i = 0; i < spec->nuses_ports; i++)
        if (spec->uses_ports[i] < 1 || spec->uses_ports[i] > MAX_PORT)
            return site_fail(s, PROP_EINVAL, "uses: port %d is outside 1..65535",
                             spec->uses_ports[i]);
    return PROP_OK;
}

/* The key of claim c interned, lower-cased for web.name (host names are
 * compared without case).  NULL when out of memory. */
static const char *
claim_key(prop_site *s, const prop_claim *c)
{
    size_t len = strlen(c->key);
    const char *out;
    char *low;

    if (c->kind != PROP_CLAIM_WEB_NAME)
        return site_intern_n(s, c->key, len);
    if (!(low = malloc(len + 1))) {
        nomem(s);
        return NULL;
    }
    for (size_t i = 0; i <= len; i++)
        low[i] = (c->key[i] >= 'A' && c->key[i] <= 'Z') ? (char)(c->key[i] - 'A' + 'a') : c->key[i];
    out = site_intern_n(s, low, len);
    free(low);
    return out;
}

/* uses = { services=, ports= } of spec into ld (ports sorted, without
 * duplicates; names interned).  PROP_ENOMEM with the site's error set. */
static int
copy_uses(prop_site *s, leaf_data *ld, const prop_leaf_spec *spec)
{
    if (spec->nuses_services) {
        const char **v =
            arena_alloc_align(&s->mem, spec->nuses_services * sizeof *v, sizeof(void *));

        if (!v)
            return nomem(s);
        for (size_t i = 0; i < spec->nuses_services; i++)
            if (!(v[i] = site_intern_n(s, spec->uses_services[i], strlen(spec->uses_services[i]))))
                return PROP_ENOMEM;
        ld->uses_services = v;
        ld->nuses_services = (unsigned)spec->nuses_services;
    }
    if (spec->nuses_ports) {
        int *p = arena_alloc_align(&s->mem, spec->nuses_ports * sizeof *p, sizeof(int));
        unsigned k = 0;

        if (!p)
            return nomem(s);
        memcpy(p, spec->uses_ports, spec->nuses_ports * sizeof *p);
        qsort(p, spec->nuses_ports, sizeof *p, cmp_int);
        for (size_t i = 0; i < spec->nuses_ports; i++)
            if (k == 0 || p[k - 1] != p[i])
                p[k++] = p[i];
        ld->uses_ports = p;
        ld->nuses_ports = k;
    }
    return PROP_OK;
}

/*
 * Copy ports (sorted, without duplicates), claims and info of spec into n.
 * Strings are interned: a site repeats the same paths and names on many
 * hosts.  PROP_ENOMEM with the site's error set.
 */
static int
copy_spec(prop_site *s, prop_node *n, leaf_data *ld, const prop_leaf_spec *spec)
{
    if (spec->nports) {
        int *p = arena_alloc_align(&s->mem, spec->nports * sizeof *p, sizeof(int));
        unsigned k = 0;

        if (!p)
            return nomem(s);
        memcpy(p, spec->ports, spec->nports * sizeof *p);
        qsort(p, spec->nports, sizeof *p, cmp_int);
        for (size_t i = 0; i < spec->nports; i++)
            if (k == 0 || p[k - 1] != p[i])
                p[k++] = p[i];
        n->ports = p;
        n->nports = k;
    }
    if (spec->nclaims) {
        prop_claim *c = arena_alloc_align(&s->mem, spec->nclaims * sizeof *c, sizeof(void *));

        if (!c)
            return nomem(s);
        for (size_t i = 0; i < spec->nclaims; i++) {
            const prop_claim *from = &spec->claims[i];
            size_t len =
                from->value ? (from->value_len ? from->value_len : strlen(from->value)) : 0;

            c[i].kind = from->kind;
            c[i].id = from->id;
            c[i].flags = from->flags & PROP_CLAIM_SECRET;
            c[i].value = NULL;
            c[i].value_len = len;
            if (!(c[i].key = claim_key(s, from)))
                return PROP_ENOMEM;
            if (from->value && !(c[i].value = site_intern_n(s, from->value, len)))
                return PROP_ENOMEM;
        }
        ld->claims = c;
        ld->nclaims = (unsigned)spec->nclaims;
    }
    if (spec->ninfo) {
        prop_info *in = arena_alloc_align(&s->mem, spec->ninfo * sizeof *in, sizeof(void *));

        if (!in)
            return nomem(s);
        for (size_t i = 0; i < spec->ninfo; i++) {
            const prop_info *from = &spec->info[i];

            if (!(in[i].key = site_intern_n(s, from->key, strlen(from->key))) ||
                !(in[i].value = site_intern_n(s, from->value, strlen(from->value))))
                return PROP_ENOMEM;
        }
        ld->info = in;
        ld->ninfo = (unsigned)spec->ninfo;
    }
    return PROP_OK;
}

int
prop_leaf_new(prop_site *s, const prop_leaf_spec *spec, const prop_origin *o, prop_node **out)
{
    const prop_origin *origin;
    prop_node *n;
    leaf_data *ld;

    if (out)
        *out = NULL;
    if (!s)
        return PROP_EINVAL;
    if (!spec || !out)
        return site_fail(s, PROP_EINVAL, "prop_leaf_new: no spec or no out-parameter");
    if (check_spec(s, spec) != PROP_OK)
        return PROP_EINVAL;
    if (!(origin = site_origin_copy(s, o)))
        return PROP_ENOMEM;
    n = node_alloc(s, spec->info_only ? PROP_INFO : PROP_LEAF, 0, origin, 0);
    if (!n || !(n->desc = site_intern_n(s, spec->desc, strlen(spec->desc))))
        return PROP_ENOMEM;
    if (!(ld = arena_zalloc(&s->mem, sizeof *ld)))
        return nomem(s);
    n->leaf = ld;
    if (spec->norevert &&
        !(ld->norevert = site_intern_n(s, spec->norevert, strlen(spec->norevert))))
        return PROP_ENOMEM;
    if (copy_spec(s, n, ld, spec) != PROP_OK || copy_uses(s, ld, spec) != PROP_OK)
        return PROP_ENOMEM;
    if (spec->shares_ports &&
        !(ld->shares_ports = site_intern_n(s, spec->shares_ports, strlen(spec->shares_ports))))
        return PROP_ENOMEM;
    n->targets = spec->targets ? spec->targets : PROP_OS_UNIXLIKE;
    ld->os_family = spec->os_family;
    ld->publishes = spec->publishes ? 1 : 0;
    ld->detaches = spec->detaches ? 1 : 0;
    ld->container = spec->container;
    n->info_only = spec->info_only ? 1 : 0;
    ld->behaviour = spec->behaviour;
    n->weight = 1;
    if (!node_commit(s, n))
        return PROP_ENOMEM;
    *out = n;
    return PROP_OK;
}

int
prop_combine_new(prop_site *s, prop_kind kind, prop_node *a, prop_node *b, const prop_origin *o,
                 prop_node **out)
{
    const prop_origin *origin;

    if (out)
        *out = NULL;
    if (!s)
        return PROP_EINVAL;
    if (kind != PROP_REQUIRES && kind != PROP_BEFORE && kind != PROP_ON_CHANGE &&
        kind != PROP_FALLBACK)
        return site_fail(s, PROP_EINVAL, "prop_combine_new: %s is not a combinator of two",
                         prop_kind_name(kind) ? prop_kind_name(kind) : "an unknown kind");
    if (!a || !b || !out)
        return site_fail(s, PROP_EINVAL, "%s: a property is missing", prop_kind_name(kind));
    if (!(origin = site_origin_copy(s, o)) || !(*out = make_pair(s, kind, a, b, origin, 0)))
        return PROP_ENOMEM;
    return PROP_OK;
}

int
prop_revertable_new(prop_site *s, prop_node *a, prop_node *b, int paired, const prop_origin *o,
                    prop_node **out)
{
    const prop_origin *origin;
    prop_node *n;

    if (out)
        *out = NULL;
    if (!s)
        return PROP_EINVAL;
    if (!a || !b || !out)
        return site_fail(s, PROP_EINVAL, "revertable: a property is missing");
    if (!(origin = site_origin_copy(s, o)) || !(n = node_alloc(s, PROP_REVERTABLE, 2, origin, 0)))
        return PROP_ENOMEM;
    node_children(n)[0] = a;
    node_children(n)[1] = b;
    n->rev = b;
    n->desc = a->desc;
    n->paired = paired ? 1 : 0;
    join_targets(n, a->targets, b->targets);
    n->revertable = 1;
    n->info_only = a->info_only && b->info_only;
    n->weight = a->weight;
    n->ports = a->ports;
    n->nports = a->nports;
    if (!node_commit(s, n))
        return PROP_ENOMEM;
    *out = n;
    return PROP_OK;
}

int
prop_list_new(prop_site *s, prop_kind kind, prop_node *const *items, size_t n, const prop_origin *o,
              prop_node **out)
{
    const prop_origin *origin;

    if (out)
        *out = NULL;
    if (!s)
        return PROP_EINVAL;
    if (kind != PROP_PICK_OS && kind != PROP_PROPS)
        return site_fail(s, PROP_EINVAL, "prop_list_new: %s is not a list combinator",
                         prop_kind_name(kind) ? prop_kind_name(kind) : "an unknown kind");
    if (!out || (n && !items))
        return site_fail(s, PROP_EINVAL, "%s: no items or no out-parameter", prop_kind_name(kind));
    if (kind == PROP_PICK_OS && n == 0)
        return site_fail(s, PROP_EINVAL, "pick_os needs at least one alternative");
    if (n > UINT_MAX / 2)
        return site_fail(s, PROP_EINVAL, "%s: too many items", prop_kind_name(kind));
    for (size_t i = 0; i < n; i++)
        if (!items[i])
            return site_fail(s, PROP_EINVAL, "%s: item %zu is missing", prop_kind_name(kind),
                             i + 1);
    if (!(origin = site_origin_copy(s, o)) || !(*out = make_list(s, kind, items, n, origin, 0)))
        return PROP_ENOMEM;
    return PROP_OK;
}

/*
 * revert(p).  A non-revertable p still gives a node (rev NULL, never runs)
 * so that the pre-pass can report P001 with everything it needs.
 */
int
prop_revert_new(prop_site *s, prop_node *p, const prop_origin *o, prop_node **out)
{
    const prop_origin *origin;
    prop_node *n, *rev = NULL;
    int rc;

    if (out)
        *out = NULL;
    if (!s)
        return PROP_EINVAL;
    if (!p || !out)
        return site_fail(s, PROP_EINVAL, "revert: the property is missing");
    if (!(origin = site_origin_copy(s, o)))
        return PROP_ENOMEM;
    if (p->revertable && (rc = rev_form(s, p, origin, &rev)) != PROP_OK)
        return rc;
    if (!(n = node_alloc(s, PROP_REVERT, 1, origin, 0)))
        return PROP_ENOMEM;
    node_children(n)[0] = p;
    n->rev = rev;
    n->targets = p->targets;
    if (rev) {
        n->desc = rev->desc;
        n->revertable = 1;
        n->info_only = rev->info_only;
        n->weight = rev->weight;
        n->ports = rev->ports;
        n->nports = rev->nports;
    } else {
        n->info_only = p->info_only;
        if (!(n->desc = intern_join(s, "revert ", NULL, 0, NULL, p->desc)))
            return PROP_ENOMEM;
    }
    if (!node_commit(s, n))
        return PROP_ENOMEM;
    *out = n;
    return PROP_OK;
}

int
prop_describe_new(prop_site *s, prop_node *p, const char *text, const prop_origin *o,
                  prop_node **out)
{
    const prop_origin *origin;
    const char *desc;

    if (out)
        *out = NULL;
    if (!s)
        return PROP_EINVAL;
    if (!p || !text || !out)
        return site_fail(s, PROP_EINVAL, "describe: the property or the text is missing");
    if (!(origin = site_origin_copy(s, o)) || !(desc = site_intern_n(s, text, strlen(text))) ||
        !(*out = make_describe(s, p, desc, origin, 0)))
        return PROP_ENOMEM;
    return PROP_OK;
}

int
prop_only_if_new(prop_site *s, prop_node *p, long test, const prop_origin *o, prop_node **out)
{
    const prop_origin *origin;
    leaf_data *ld;

    if (out)
        *out = NULL;
    if (!s)
        return PROP_EINVAL;
    if (!p || !out)
        return site_fail(s, PROP_EINVAL, "only_if: the property is missing");
    if (!(origin = site_origin_copy(s, o)) || !(ld = arena_zalloc(&s->mem, sizeof *ld)))
        return PROP_ENOMEM;
    ld->behaviour = test;
    if (!(*out = make_only_if(s, p, ld, origin, 0)))
        return PROP_ENOMEM;
    return PROP_OK;
}

/*
 * The P012 diagnostic is recorded before the node is committed; if
 * recording fails the node is dropped and the failure returned.
 */
int
prop_invalid_new(prop_site *s, const char *desc, const char *message, const prop_origin *o,
                 prop_node **out)
{
    const prop_origin *origin;
    prop_node *n;
    int rc;

    if (out)
        *out = NULL;
    if (!s)
        return PROP_EINVAL;
    if (!desc || !message || !out)
        return site_fail(s, PROP_EINVAL, "prop_invalid_new: no description or no message");
    if (!(origin = site_origin_copy(s, o)) || !(n = node_alloc(s, PROP_INVALID, 0, origin, 0)) ||
        !(n->desc = site_intern_n(s, desc, strlen(desc))))
        return PROP_ENOMEM;
    n->targets = PROP_OS_UNIXLIKE;
    n->weight = 1;
    if ((rc = prop_site_report(s, "P012", PROP_SEV_ERROR, origin, message)) != PROP_OK)
        return rc;
    if (!node_commit(s, n))
        return PROP_ENOMEM;
    *out = n;
    return PROP_OK;
}

/* The size the layout of struct prop_node is kept to, on 64-bit machines. */
_Static_assert(sizeof(void *) != 8 || sizeof(prop_node) == 64, "prop_node grew past 64 bytes");
