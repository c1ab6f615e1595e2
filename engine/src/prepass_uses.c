/*
 * prepass_uses.c - W106 and P016: what a property uses (uses = { services=,
 * ports= }) against what the host's properties provide.
 *
 * A property of the host provides a service when it claims it running
 * (service.running, service.restarted: the claims P009 compares) and a
 * port when it declares it (the ports P006 compares).  Over the host's
 * effective leaves, in the order they run (checker.ents):
 *
 *   W106  nothing on the host provides a service or port a leaf uses;
 *   P016  every leaf that provides it runs after the user, and no
 *         requires/before of the host puts one of them first.
 *
 * Ownership: the marks of the order search (order_search) come from
 * malloc and are freed before it returns.
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "prepass.h"

/* The parts of n that run when n does, as walk() in prepass.c enters them. */
static unsigned
parts(const prop_node *n, const prop_node *const **out)
{
    switch (n->kind) {
    case PROP_REVERT:
        *out = (const prop_node *const *)&n->rev;
        return n->rev != NULL;
    case PROP_DESCRIBE:
    case PROP_REVERTABLE:
    case PROP_ONLY_IF:
        *out = (const prop_node *const *)node_children(n);
        return n->nchildren > 0;
    default:
        *out = (const prop_node *const *)node_children(n);
        return n->nchildren;
    }
}

/* Marks of order_search, by node id. */
enum { IN_PROVIDER = 1, IN_USER = 2, ENTERED = 4, DONE = 8 };

/*
 * Whether a requires or before reachable from the host's properties runs
 * provider first and user after it: 1, 0, or PROP_ENOMEM.  Each node is
 * entered once (a post-order walk that marks what holds provider and what
 * holds user), so the search is linear in the host's graph.
 */
static int
order_search(checker *k, const prop_node *provider, const prop_node *user)
{
    unsigned char *mark = prop_calloc(k->nseen ? k->nseen : 1, 1);
    const prop_node **stack = NULL;
    size_t sp = 0, cap = 0, i;
    int found = 0;

    if (mark == NULL)
        return pp_nomem(k->s);
    for (i = 0; i < k->h->props.n && !found; i++) {
        if (pp_reserve(k->s, (void **)&stack, &cap, sizeof *stack, sp + 1) != PROP_OK)
            goto nomem;
        stack[sp++] = k->h->props.v[i];
        while (sp > 0 && !found) {
            const prop_node *n = stack[sp - 1], *const * c;
            unsigned nc = parts(n, &c), j;
            unsigned char *m;

            if (n->id >= k->nseen) {
                sp--;
                continue;
            }
            m = &mark[n->id];
            if (*m & DONE) {
                sp--;
                continue;
            }
            if (!(*m & ENTERED)) {
                *m |= ENTERED;
                if (pp_reserve(k->s, (void **)&stack, &cap, sizeof *stack, sp + nc) != PROP_OK)
                    goto nomem;
                for (j = 0; j < nc; j++)
                    if (c[j]->id < k->nseen && !(mark[c[j]->id] & (ENTERED | DONE)))
                        stack[sp++] = c[j];
                continue;
            }
            sp--;
            *m |= DONE;
            if (n == provider)
                *m |= IN_PROVIDER;
            if (n == user)
                *m |= IN_USER;
            for (j = 0; j < nc; j++)
                if (c[j]->id < k->nseen)
                    *m |= mark[c[j]->id] & (IN_PROVIDER | IN_USER);
            if (n->kind == PROP_REQUIRES || n->kind == PROP_BEFORE) {
                /* requires runs its second part first; before its first. */
                const prop_node *first = node_children(n)[n->kind == PROP_REQUIRES ? 1 : 0];
                const prop_node *then = node_children(n)[n->kind == PROP_REQUIRES ? 0 : 1];

                found = (mark[first->id] & IN_PROVIDER) && (mark[then->id] & IN_USER);
            }
        }
    }
    free(mark);
    free((void *)stack);
    return found;
nomem:
    free(mark);
    free((void *)stack);
    return PROP_ENOMEM;
}

/* The top-level property that brought leaf e onto the host, when it is
 * another node at another line: a note naming it. */
static int
note_top(checker *k, diag_builder *b, const ent *e)
{
    const prop_node *t = prop_host_prop(k->h, e->top);

    if (t == e->leaf || pp_same_place(t->origin, e->leaf->origin))
        return PROP_OK;
    return diag_note(b, t->origin, "\"%s\" puts it on host \"%s\" here", t->desc,
                     prop_host_fullname(k->h));
}

/*
 * One use by leaf e of what (a "service \"x\"" or "port 80" phrase) against
 * group g (NULL: nothing on the host claims it).  svc: only the members
 * that claim the service running or restarted provide it.
 */
static int
check_use(checker *k, size_t e, const group *g, int svc, const char *what)
{
    const prop_node *user = k->ents[e].leaf;
    const ref *after = NULL;
    char at[512];
    diag_builder b;
    int r, rc;

    for (r = g ? g->first : -1; r >= 0; r = k->host.refs[r].next) {
        const ref *x = &k->host.refs[r];

        if (svc && x->c->kind != PROP_CLAIM_SVC_RUNNING && x->c->kind != PROP_CLAIM_SVC_RESTARTED)
            continue;
        if (x->ent <= e || x->node == user)
            return PROP_OK; /* it runs first (or is the user itself) */
        if (after == NULL)
            after = x;
    }
    if (after == NULL) {
        rc = diag_begin(&b, k->s, "W106", PROP_SEV_WARNING, user->origin,
                        "\"%s\" uses %s, but nothing on host \"%s\" provides it: no property "
                        "of the host %s",
                        user->desc, what, prop_host_fullname(k->h),
                        svc ? "claims it running (service.running, a recipe that starts it)"
                            : "declares it (a server that listens on it)");
        if (rc == PROP_OK)
            rc = note_top(k, &b, &k->ents[e]);
        if (rc == PROP_OK)
            rc = diag_note(&b, NULL,
                           "put the property that provides it on the host before this one, or "
                           "drop the use if the host reaches it elsewhere");
        return rc == PROP_OK ? diag_end(&b) : rc;
    }
    rc = order_search(k, after->node, user);
    if (rc != 0)
        return rc < 0 ? rc : PROP_OK;
    rc = diag_begin(&b, k->s, "P016", PROP_SEV_ERROR, user->origin,
                    "\"%s\" uses %s, but \"%s\", the only property of host \"%s\" that "
                    "provides it, runs after it (at %s), and no requires or before orders them",
                    user->desc, what, after->node->desc, prop_host_fullname(k->h),
                    pp_place(after->node->origin, at, sizeof at));
    if (rc == PROP_OK)
        rc = diag_note(&b, after->node->origin, "\"%s\" provides %s here", after->node->desc, what);
    if (rc == PROP_OK)
        rc = note_top(k, &b, &k->ents[after->ent]);
    if (rc == PROP_OK)
        rc = diag_note(&b, NULL,
                       "list the provider first, or say so: user:requires(provider) or "
                       "provider:before(user)");
    return rc == PROP_OK ? diag_end(&b) : rc;
}

int
pp_check_uses(checker *k)
{
    size_t e;
    unsigned i;
    int rc;

    for (e = 0; e < k->nents; e++) {
        const leaf_data *ld = k->ents[e].leaf->leaf;
        char what[300];

        for (i = 0; i < ld->nuses_services; i++) {
            const char *name = ld->uses_services[i];
            size_t len;
            const char *unit = pp_service_unit(k->os, name, &len);
            const group *g = pp_table_find(&k->host, CLS_SVC, unit, len, 0);

            if (strlen(name) > 256)
                (void)snprintf(what, sizeof what, "service \"%.256s...\"", name);
            else
                (void)snprintf(what, sizeof what, "service \"%s\"", name);
            if ((rc = check_use(k, e, g, 1, what)) != PROP_OK)
                return rc;
        }
        for (i = 0; i < ld->nuses_ports; i++) {
            const group *g = pp_table_find(&k->host, CLS_PORT, NULL, 0, ld->uses_ports[i]);

            (void)snprintf(what, sizeof what, "port %d", ld->uses_ports[i]);
            if ((rc = check_use(k, e, g, 0, what)) != PROP_OK)
                return rc;
        }
    }
    return PROP_OK;
}
