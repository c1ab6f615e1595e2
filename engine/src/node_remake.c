/*
 * node_remake.c - making a call's nodes again: prop_site_mark() and
 * prop_node_made_since() find the nodes one call made, and
 * prop_node_remake() copies them with another origin, sharing everything
 * else.  Making nodes is node.c.
 *
 * Ownership: the copies live in the site's arena, like every node.
 */
#include <string.h>

#include "internal.h"

size_t
prop_site_mark(const prop_site *s)
{
    return s ? s->nodes.n : 0;
}

/* The node of index i of s->nodes (ids are indexes: see node_commit()). */
static prop_node *
node_at(const prop_site *s, size_t i)
{
    return (prop_node *)s->nodes.v[i];
}

/* Whether p is one of the count nodes from mark on: its index, or -1. */
static long
made_in(const prop_node *p, size_t mark, size_t count)
{
    if (p == NULL || p->id < mark || p->id - mark >= count)
        return -1;
    return (long)(p->id - mark);
}

size_t
prop_node_made_since(const prop_site *s, const prop_node *root, size_t mark)
{
    unsigned char seen[PROP_REMAKE_MAX];
    size_t count, i;

    if (!s || !root || mark >= s->nodes.n)
        return 0;
    count = s->nodes.n - mark;
    if (count > PROP_REMAKE_MAX || node_at(s, s->nodes.n - 1) != root)
        return 0;
    /* A node refers only to older ones: walking back from root (the
     * newest) marks every node reachable from it. */
    memset(seen, 0, count);
    seen[count - 1] = 1;
    for (i = count; i-- > 0;) {
        const prop_node *n = node_at(s, mark + i);
        long k;

        if (!seen[i] || n->origin != root->origin)
            return 0;
        for (unsigned c = 0; c < n->nchildren; c++)
            if ((k = made_in(node_children(n)[c], mark, count)) >= 0)
                seen[k] = 1;
        if ((k = made_in(n->rev, mark, count)) >= 0)
            seen[k] = 1;
    }
    return count;
}

int
prop_node_remake(prop_site *s, size_t mark, size_t count, const prop_origin *o, prop_node **out)
{
    prop_node *made[PROP_REMAKE_MAX];
    const prop_origin *origin;
    size_t i;
    long k;

    if (out)
        *out = NULL;
    if (!s)
        return PROP_EINVAL;
    if (!out || count == 0 || count > PROP_REMAKE_MAX || mark > s->nodes.n ||
        count > s->nodes.n - mark)
        return site_fail(s, PROP_EINVAL, "prop_node_remake: no such nodes");
    if (!(origin = site_origin_copy(s, o)))
        return PROP_ENOMEM;
    for (i = 0; i < count; i++) {
        const prop_node *n = node_at(s, mark + i);
        prop_node *m = node_alloc(s, (prop_kind)n->kind, n->nchildren, origin, n->synthetic);

        if (!m)
            return PROP_ENOMEM;
        /* Everything but the id, the origin and the links: descriptions,
         * claims, info and ports are shared, as the arena never changes them. */
        memcpy(m, n, sizeof *m);
        m->origin = origin;
        if (n->nchildren) {
            for (unsigned c = 0; c < n->nchildren; c++)
                node_children(m)[c] = (k = made_in(node_children(n)[c], mark, count)) >= 0
                                          ? made[k]
                                          : node_children(n)[c];
        }
        if ((k = made_in(n->rev, mark, count)) >= 0)
            m->rev = made[k];
        if (!node_commit(s, m))
            return PROP_ENOMEM;
        made[i] = m;
    }
    *out = made[count - 1];
    return PROP_OK;
}
