/*
 * host.c - the hosts of a site: a host or a container made and named,
 * a container put on its parent, the properties added to a host, and what
 * a host says of itself (its OS, the targets it can run, its info).
 *
 * Ownership: every prop_host lives in its site's arena; the site's host
 * tables (site.c frees them) are grown from the site's allocator.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "internal.h"

static int
host_table_grow(prop_site *s, host_table *t)
{
    size_t cap = t->cap ? t->cap * 2 : 64;
    prop_host **slots;

    if (cap > (size_t)-1 / sizeof(prop_host *))
        return PROP_ENOMEM;
    slots = s->mem.alloc(s->mem.ud, NULL, 0, cap * sizeof(prop_host *));
    if (!slots)
        return PROP_ENOMEM;
    memset(slots, 0, cap * sizeof(prop_host *));
    for (size_t i = 0; i < t->cap; i++) {
        prop_host *h = t->slots[i];
        size_t j;

        if (!h)
            continue;
        j = site_hash(h->name, strlen(h->name)) & (cap - 1);
        while (slots[j])
            j = (j + 1) & (cap - 1);
        slots[j] = h;
    }
    if (t->slots)
        s->mem.alloc(s->mem.ud, t->slots, t->cap * sizeof(prop_host *), 0);
    t->slots = slots;
    t->cap = cap;
    return PROP_OK;
}

/*
 * Host names may repeat (the pre-pass reports P011); the table keeps the
 * first host of each name, which is what prop_site_find_host() promises.
 */
int
prop_host_new(prop_site *s, const char *name, const prop_origin *o, prop_host **out)
{
    prop_host *h;
    const prop_origin *origin;
    host_table *t;
    size_t j;

    if (out)
        *out = NULL;
    if (!s)
        return PROP_EINVAL;
    if (!name || !out)
        return site_fail(s, PROP_EINVAL, "prop_host_new: no name or no out-parameter");
    t = &s->host_names;
    if ((t->n + 1) * 2 > t->cap && host_table_grow(s, t) != PROP_OK)
        goto nomem;
    if (!(origin = site_origin_copy(s, o)))
        goto nomem;
    h = arena_zalloc(&s->mem, sizeof *h);
    if (!h || !(h->name = arena_strdup(&s->mem, name)))
        goto nomem;
    h->origin = origin;
    h->index = (unsigned)s->hosts.n;
    if (ptrvec_push(&s->mem, &s->hosts, h) != PROP_OK)
        goto nomem;
    j = site_hash(name, strlen(name)) & (t->cap - 1);
    while (t->slots[j] && strcmp(prop_host_fullname(t->slots[j]), name) != 0)
        j = (j + 1) & (t->cap - 1);
    if (!t->slots[j]) {
        t->slots[j] = h;
        t->n++;
    }
    *out = h;
    return PROP_OK;
nomem:
    return site_fail(s, PROP_ENOMEM, "out of memory");
}

int
prop_container_new(prop_site *s, prop_container_kind kind, const char *name, const prop_origin *o,
                   prop_host **out)
{
    prop_host *h;
    const prop_origin *origin;

    if (out)
        *out = NULL;
    if (!s)
        return PROP_EINVAL;
    if (!name || !out || kind == PROP_CONTAINER_NONE || kind > PROP_CONTAINER_JAIL)
        return site_fail(s, PROP_EINVAL, "prop_container_new: no name, kind or out-parameter");
    if (!(origin = site_origin_copy(s, o)))
        return site_fail(s, PROP_ENOMEM, "out of memory");
    h = arena_zalloc(&s->mem, sizeof *h);
    if (!h || !(h->name = arena_strdup(&s->mem, name)))
        return site_fail(s, PROP_ENOMEM, "out of memory");
    /* Found by name only once attached, as "PARENT/NAME" (site_attach). */
    h->origin = origin;
    h->kind = kind;
    h->fullname = h->name;
    h->index = (unsigned)s->hosts.n;
    if (ptrvec_push(&s->mem, &s->hosts, h) != PROP_OK)
        return site_fail(s, PROP_ENOMEM, "out of memory");
    s->ncontainers++;
    *out = h;
    return PROP_OK;
}

/* Record h under name in the table of host names (the first wins). */
static int
name_host(prop_site *s, const char *name, prop_host *h)
{
    host_table *t = &s->host_names;
    size_t j;

    if ((t->n + 1) * 2 > t->cap && host_table_grow(s, t) != PROP_OK)
        return site_fail(s, PROP_ENOMEM, "out of memory");
    j = site_hash(name, strlen(name)) & (t->cap - 1);
    while (t->slots[j] && strcmp(prop_host_fullname(t->slots[j]), name) != 0)
        j = (j + 1) & (t->cap - 1);
    if (!t->slots[j]) {
        t->slots[j] = h;
        t->n++;
    }
    return PROP_OK;
}

int
site_attach(prop_site *s, prop_host *parent, prop_host *c, const prop_node *via)
{
    const char *pn = prop_host_fullname(parent);
    char *full;
    size_t len = strlen(pn) + 1 + strlen(c->name) + 1;

    if (!(full = arena_alloc(&s->mem, len)))
        return site_fail(s, PROP_ENOMEM, "out of memory");
    snprintf(full, len, "%s/%s", pn, c->name);
    c->parent = parent;
    c->attached_by = via;
    c->fullname = full;
    if (ptrvec_push(&s->mem, &parent->containers, c) != PROP_OK)
        return site_fail(s, PROP_ENOMEM, "out of memory");
    return name_host(s, full, c);
}

prop_container_kind
prop_host_container_kind(const prop_host *h)
{
    return h ? h->kind : PROP_CONTAINER_NONE;
}

prop_host *
prop_host_parent(const prop_host *h)
{
    return h ? h->parent : NULL;
}

const prop_node *
prop_host_attached_by(const prop_host *h)
{
    return h ? h->attached_by : NULL;
}

size_t
prop_host_ncontainers(const prop_host *h)
{
    return h ? h->containers.n : 0;
}

prop_host *
prop_host_container(const prop_host *h, size_t i)
{
    return h && i < h->containers.n ? h->containers.v[i] : NULL;
}

const char *
prop_host_fullname(const prop_host *h)
{
    return h ? (h->fullname ? h->fullname : h->name) : NULL;
}

int
prop_host_add_in(prop_site *s, prop_host *h, prop_node *p, const void *list)
{
    if (!s)
        return PROP_EINVAL;
    if (!h || !p)
        return site_fail(s, PROP_EINVAL, "prop_host_add: no host or no property");
    /* lists.v[i] is the list of props.v[i]: both grow together or not at all. */
    if (ptrvec_push(&s->mem, &h->lists, (void *)(uintptr_t)list) != PROP_OK)
        return site_fail(s, PROP_ENOMEM, "out of memory");
    if (ptrvec_push(&s->mem, &h->props, p) != PROP_OK) {
        h->lists.n--;
        return site_fail(s, PROP_ENOMEM, "out of memory");
    }
    return PROP_OK;
}

int
prop_host_add(prop_site *s, prop_host *h, prop_node *p)
{
    return prop_host_add_in(s, h, p, NULL);
}

const char *
prop_host_name(const prop_host *h)
{
    return h ? h->name : NULL;
}

const prop_origin *
prop_host_origin(const prop_host *h)
{
    return h ? h->origin : NULL;
}

size_t
prop_host_nprops(const prop_host *h)
{
    return h ? h->props.n : 0;
}

prop_node *
prop_host_prop(const prop_host *h, size_t i)
{
    return h && i < h->props.n ? h->props.v[i] : NULL;
}

static int
find_os(void *ud, const prop_node *leaf)
{
    prop_os_set *os = ud;

    if (leaf->leaf->os_family == PROP_OS_NONE)
        return 0;
    *os = leaf->leaf->os_family;
    return 1;
}

/*
 * The host is const for the caller but caches what it found (see struct
 * prop_host); hosts are made writable by prop_host_new, so the cast is
 * sound.
 */
prop_os_set
prop_host_os(const prop_host *h)
{
    prop_host *wh = (prop_host *)h;

    if (!h)
        return PROP_OS_NONE;
    while (wh->os == PROP_OS_NONE && wh->os_scanned < h->props.n) {
        prop_os_set os = PROP_OS_NONE;

        if (prop_node_each_leaf(h->props.v[wh->os_scanned], PROP_OS_NONE, find_os, &os) == 1) {
            wh->os = os;
            break;
        }
        wh->os_scanned++;
    }
    return wh->os;
}

prop_os_set
prop_host_targets(const prop_host *h)
{
    prop_os_set t = PROP_OS_UNIXLIKE;

    if (!h)
        return PROP_OS_NONE;
    for (size_t i = 0; i < h->props.n; i++) {
        const prop_node *n = h->props.v[i];

        /* A node whose own parts disagree (P005) or that was made from a
         * bad argument (P012) is reported on its own. */
        if (n->kind != PROP_INVALID && n->targets != PROP_OS_NONE)
            t &= n->targets;
    }
    return t;
}

typedef struct info_search {
    const char *key;
    size_t skip; /* matches still to pass over */
    const char *found;
} info_search;

static int
find_info(void *ud, const prop_node *leaf)
{
    info_search *q = ud;

    for (unsigned i = 0; i < leaf->leaf->ninfo; i++) {
        if (strcmp(leaf->leaf->info[i].key, q->key) != 0)
            continue;
        if (q->skip-- == 0) {
            q->found = leaf->leaf->info[i].value;
            return 1;
        }
    }
    return 0;
}

/*
 * Info inside a pick_os alternative counts only when that alternative is
 * the one chosen for the host's OS (all of them when no OS is declared).
 */
/* Search h's own info, then (for what propagates) its containers'. */
static void
search_info(const prop_host *h, info_search *q, int depth)
{
    prop_os_set os = prop_host_os(h);

    for (size_t k = 0; k < h->props.n; k++)
        if (prop_node_each_leaf(h->props.v[k], os, find_info, q) == 1)
            return;
    /* A container's names are its parent's too (Propellor's rule: DNS
     * names reach the parent, addresses do not). */
    if (strcmp(q->key, "alias") != 0 || depth > 16)
        return;
    for (size_t k = 0; k < h->containers.n && q->found == NULL; k++)
        search_info(h->containers.v[k], q, depth + 1);
}

const char *
prop_host_info(const prop_host *h, const char *key, size_t i)
{
    info_search q;

    if (!h || !key)
        return NULL;
    q.key = key;
    q.skip = i;
    q.found = NULL;
    search_info(h, &q, 0);
    return q.found;
}

size_t
prop_site_nhosts(const prop_site *s)
{
    return s ? s->hosts.n : 0;
}

prop_host *
prop_site_host(const prop_site *s, size_t i)
{
    return s && i < s->hosts.n ? s->hosts.v[i] : NULL;
}

prop_host *
prop_site_find_host(const prop_site *s, const char *name)
{
    const host_table *t;
    size_t j;

    if (!s || !name || s->host_names.cap == 0)
        return NULL;
    t = &s->host_names;
    j = site_hash(name, strlen(name)) & (t->cap - 1);
    while (t->slots[j]) {
        if (strcmp(prop_host_fullname(t->slots[j]), name) == 0)
            return t->slots[j];
        j = (j + 1) & (t->cap - 1);
    }
    return NULL;
}
