/*
 * node_access.c - reading property nodes (see node.c for how they are
 * made): the accessors, the description of a node's type, and the walk
 * over leaves.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "internal.h"

#define WALK_STACK 64 /* pending nodes of a walk kept on the C stack */

/* ---- accessors ---- */

static const char *const kind_names[] = {
    "property",   "info",   "requires", "before",   "on_change", "fallback", "pick_os",
    "revertable", "revert", "props",    "describe", "invalid",   "only_if",
};

const char *
prop_kind_name(prop_kind k)
{
    if ((unsigned)k >= sizeof kind_names / sizeof kind_names[0])
        return NULL;
    return kind_names[k];
}

prop_kind
prop_node_kind(const prop_node *n)
{
    return n ? (prop_kind)n->kind : PROP_INVALID;
}

const char *
prop_node_desc(const prop_node *n)
{
    return n ? n->desc : NULL;
}

prop_os_set
prop_node_targets(const prop_node *n)
{
    return n ? n->targets : PROP_OS_NONE;
}

int
prop_node_revertable(const prop_node *n)
{
    return n ? n->revertable : 0;
}

int
prop_node_paired(const prop_node *n)
{
    return n ? n->paired : 0;
}

int
prop_node_info_only(const prop_node *n)
{
    return n ? n->info_only : 0;
}

prop_os_set
prop_node_os(const prop_node *n)
{
    return n ? n->leaf->os_family : PROP_OS_NONE;
}

prop_host *
prop_node_container(const prop_node *n)
{
    return n ? n->leaf->container : NULL;
}

long
prop_node_behaviour(const prop_node *n)
{
    return n ? n->leaf->behaviour : -1;
}

const char *
prop_node_norevert(const prop_node *n)
{
    return n ? n->leaf->norevert : NULL;
}

const prop_origin *
prop_node_origin(const prop_node *n)
{
    return n ? n->origin : NULL;
}

size_t
prop_node_nchildren(const prop_node *n)
{
    return n ? n->nchildren : 0;
}

prop_node *
prop_node_child(const prop_node *n, size_t i)
{
    return n && i < n->nchildren ? node_children(n)[i] : NULL;
}

prop_node *
prop_node_reverted(const prop_node *n)
{
    if (!n || (n->kind != PROP_REVERT && n->kind != PROP_REVERTABLE))
        return NULL;
    return n->rev;
}

size_t
prop_node_nports(const prop_node *n)
{
    return n ? n->nports : 0;
}

int
prop_node_port(const prop_node *n, size_t i)
{
    return n && i < n->nports ? n->ports[i] : 0;
}

size_t
prop_node_nclaims(const prop_node *n)
{
    return n ? n->leaf->nclaims : 0;
}

const prop_claim *
prop_node_claim(const prop_node *n, size_t i)
{
    return n && i < n->leaf->nclaims ? &n->leaf->claims[i] : NULL;
}

size_t
prop_node_ninfo(const prop_node *n)
{
    return n ? n->leaf->ninfo : 0;
}

const prop_info *
prop_node_info(const prop_node *n, size_t i)
{
    return n && i < n->leaf->ninfo ? &n->leaf->info[i] : NULL;
}

size_t
prop_node_weight(const prop_node *n)
{
    return n ? n->weight : 0;
}

/* Append to buf (size bytes, *used already written), truncating quietly. */
PROP_PRINTF(4, 5)
static void
append(char *buf, size_t size, size_t *used, const char *fmt, ...)
{
    va_list ap;
    int k;

    if (*used + 1 >= size)
        return;
    va_start(ap, fmt);
    k = vsnprintf(buf + *used, size - *used, fmt, ap);
    va_end(ap);
    if (k > 0)
        *used = *used + (size_t)k < size ? *used + (size_t)k : size - 1;
}

const char *
prop_node_type(const prop_node *n, char *buf, size_t size)
{
    char tmp[64];
    size_t used = 0;

    if (!buf || size == 0)
        return buf;
    buf[0] = '\0';
    if (!n)
        return buf;
    append(buf, size, &used, "%s", prop_os_set_name(n->targets, tmp, sizeof tmp));
    if (n->revertable)
        append(buf, size, &used, ", revertable");
    if (n->info_only)
        append(buf, size, &used, ", info");
    if (n->nports) {
        append(buf, size, &used, ", ports");
        for (unsigned i = 0; i < n->nports; i++)
            append(buf, size, &used, " %d", n->ports[i]);
    }
    if (n->leaf->nuses_services || n->leaf->nuses_ports) {
        append(buf, size, &used, ", uses");
        for (unsigned i = 0; i < n->leaf->nuses_services; i++)
            append(buf, size, &used, " service %s", n->leaf->uses_services[i]);
        for (unsigned i = 0; i < n->leaf->nuses_ports; i++)
            append(buf, size, &used, " port %d", n->leaf->uses_ports[i]);
    }
    return buf;
}

/* ---- the walk ---- */

/*
 * Pending nodes sit on an explicit stack (children pushed in reverse of
 * their order of execution), so a deep chain cannot exhaust the C stack.
 * The stack starts on the C stack and moves to malloc'd memory when a walk
 * needs more; PROP_ENOMEM if that fails.
 */
int
prop_node_each_leaf(const prop_node *n, prop_os_set os, prop_leaf_visit visit, void *ud)
{
    const prop_node *local[WALK_STACK];
    const prop_node **stack = local;
    size_t sp = 0, cap = WALK_STACK;
    int rc = 0;

    if (!n || !visit)
        return PROP_EINVAL;
    stack[sp++] = n;
    while (sp > 0) {
        const prop_node *c = stack[--sp];

        if (sp + c->nchildren > cap) {
            size_t cap2 = cap;
            const prop_node **s2;

            while (cap2 < sp + c->nchildren)
                cap2 *= 2;
            s2 = stack == local ? prop_malloc(cap2 * sizeof *s2)
                                : prop_realloc((void *)stack, cap2 * sizeof *s2);
            if (!s2) {
                rc = PROP_ENOMEM;
                goto done;
            }
            if (stack == local)
                memcpy(s2, local, sp * sizeof *s2);
            stack = s2;
            cap = cap2;
        }
        switch (c->kind) {
        case PROP_LEAF:
        case PROP_INFO:
        case PROP_INVALID:
            if ((rc = visit(ud, c)) != 0)
                goto done;
            break;
        case PROP_REQUIRES: /* b, then a */
            stack[sp++] = node_children(c)[0];
            stack[sp++] = node_children(c)[1];
            break;
        case PROP_BEFORE:
        case PROP_ON_CHANGE:
        case PROP_FALLBACK:
            stack[sp++] = node_children(c)[1];
            stack[sp++] = node_children(c)[0];
            break;
        case PROP_PROPS:
            for (size_t i = c->nchildren; i-- > 0;)
                stack[sp++] = node_children(c)[i];
            break;
        case PROP_PICK_OS:
            if (os == PROP_OS_NONE) {
                for (size_t i = c->nchildren; i-- > 0;)
                    stack[sp++] = node_children(c)[i];
                break;
            }
            for (size_t i = 0; i < c->nchildren; i++) {
                if (node_children(c)[i]->targets & os) {
                    stack[sp++] = node_children(c)[i];
                    break;
                }
            }
            break;
        case PROP_DESCRIBE:
        case PROP_REVERTABLE:
        case PROP_ONLY_IF:
            stack[sp++] = node_children(c)[0];
            break;
        case PROP_REVERT:
            if (c->rev)
                stack[sp++] = c->rev;
            break;
        }
    }
done:
    if (stack != local)
        free((void *)stack);
    return rc;
}
