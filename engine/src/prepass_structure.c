/*
 * prepass_structure.c - the pre-pass's structural rules, which look at
 * each node of the site once, wherever it is used: P001 (a revert of
 * something not revertable), P005 (children whose targets do not
 * intersect), P006 (a port clash inside one combinator), W102 (a hook
 * that never runs) and W108 (secret content readable by group or
 * others).  The driver and the per-host rules are prepass.c's.
 *
 * Ownership: diagnostics live in the site's arena (diag.c).
 */
#include <stdlib.h>
#include <string.h>

#include "prepass.h"

/*
 * P001 at a revert(p) whose p has no revert action.  The note names the
 * leaf that makes p non-revertable.  A p that is invalid (P012) or that
 * is itself an unrevertable revert (reported there) gives nothing more.
 */
static int
check_revert(checker *k, const prop_node *n)
{
    const prop_node *p;
    diag_builder b;
    int rc;

    if (n->kind != PROP_REVERT || n->rev != NULL || n->nchildren == 0)
        return PROP_OK;
    p = node_children(n)[0];
    for (;;) {
        const prop_node *next = NULL;
        unsigned i;

        if (p->kind == PROP_LEAF || p->kind == PROP_INFO)
            break;
        if (p->kind == PROP_INVALID || p->kind == PROP_REVERT)
            return PROP_OK;
        if (p->kind == PROP_ON_CHANGE) {
            next = node_children(p)[0];
        } else {
            for (i = 0; i < p->nchildren && next == NULL; i++)
                if (!node_children(p)[i]->revertable)
                    next = node_children(p)[i];
        }
        if (next == NULL)
            break;
        p = next;
    }
    rc = diag_begin(&b, k->s, "P001", PROP_SEV_ERROR, n->origin,
                    "cannot revert %s: it is not revertable", node_children(n)[0]->desc);
    if (rc == PROP_OK) {
        if (p->leaf->norevert != NULL)
            rc = diag_note(&b, p->origin, "%s", p->leaf->norevert);
        else
            rc = diag_note(&b, p->origin, "%s has no revert action", p->desc);
    }
    return rc == PROP_OK ? diag_end(&b) : rc;
}

/*
 * P005 at a combinator whose children's targets do not intersect.  Two
 * children name each other; in a longer props the first child that empties
 * the intersection is named with those before it.
 */
static int
check_conflict(checker *k, const prop_node *n)
{
    char ta[64], tb[64];
    prop_os_set run = PROP_OS_UNIXLIKE;
    const prop_node *a = NULL, *c = NULL;
    diag_builder b;
    unsigned i, j, last = 0;
    int rc;

    if (!n->conflict || n->synthetic)
        return PROP_OK;
    for (i = 0; i < n->nchildren && c == NULL; i++) {
        const prop_node *x = node_children(n)[i];

        if (x->targets == PROP_OS_NONE)
            continue;
        if ((run & x->targets) == PROP_OS_NONE) {
            c = x;
            last = i;
            for (j = 0; j < i && a == NULL; j++) {
                const prop_node *y = node_children(n)[j];

                if (y->targets != PROP_OS_NONE && (y->targets & x->targets) == PROP_OS_NONE)
                    a = y;
            }
        }
        run &= x->targets;
    }
    if (c == NULL)
        return PROP_OK;
    if (a != NULL) {
        rc = diag_begin(&b, k->s, "P005", PROP_SEV_ERROR, n->origin,
                        "cannot combine \"%s\" (%s) with \"%s\" (%s) in %s: no operating system "
                        "can run both",
                        a->desc, os_name(a->targets, ta, sizeof ta), c->desc,
                        os_name(c->targets, tb, sizeof tb), prop_kind_name(n->kind));
        if (rc == PROP_OK)
            rc = diag_note(&b, a->origin, "\"%s\" runs only on %s", a->desc,
                           os_name(a->targets, ta, sizeof ta));
        if (rc == PROP_OK)
            rc = diag_note(&b, c->origin, "\"%s\" runs only on %s", c->desc,
                           os_name(c->targets, tb, sizeof tb));
        return rc == PROP_OK ? diag_end(&b) : rc;
    }
    run = PROP_OS_UNIXLIKE;
    for (i = 0; i < last; i++)
        if (node_children(n)[i]->targets != PROP_OS_NONE)
            run &= node_children(n)[i]->targets;
    rc = diag_begin(&b, k->s, "P005", PROP_SEV_ERROR, n->origin,
                    "cannot combine \"%s\" (%s) with the properties before it in %s, which "
                    "together run only on %s: no operating system can run them all",
                    c->desc, os_name(c->targets, tb, sizeof tb), prop_kind_name(n->kind),
                    os_name(run, ta, sizeof ta));
    for (i = 0; i <= last && rc == PROP_OK; i++) {
        const prop_node *x = node_children(n)[i];

        if (x->targets != PROP_OS_NONE && x->targets != PROP_OS_UNIXLIKE)
            rc = diag_note(&b, x->origin, "\"%s\" runs only on %s", x->desc,
                           os_name(x->targets, ta, sizeof ta));
    }
    return rc == PROP_OK ? diag_end(&b) : rc;
}

/* W102 at a:on_change(b) when a can never change. */
static int
check_hook(checker *k, const prop_node *n)
{
    const prop_node *a, *h;
    diag_builder b;
    int rc;

    if (n->kind != PROP_ON_CHANGE || n->synthetic || n->nchildren != 2)
        return PROP_OK;
    a = node_children(n)[0];
    h = node_children(n)[1];
    if (!a->info_only || a->kind == PROP_INVALID)
        return PROP_OK;
    rc = diag_begin(&b, k->s, "W102", PROP_SEV_WARNING, n->origin,
                    "\"%s\" can never run: it waits for a change of \"%s\", which only carries "
                    "information and never changes",
                    h->desc, a->desc);
    if (rc == PROP_OK)
        rc = diag_note(&b, a->origin, "\"%s\" is declared here", a->desc);
    return rc == PROP_OK ? diag_end(&b) : rc;
}

/* Whether leaf n has info key = value (value NULL: any). */
static int
has_info(const prop_node *n, const char *key, const char *value)
{
    unsigned i;

    for (i = 0; i < n->leaf->ninfo; i++)
        if (strcmp(n->leaf->info[i].key, key) == 0 &&
            (value == NULL || strcmp(n->leaf->info[i].value, value) == 0))
            return 1;
    return 0;
}

/*
 * W108 at a leaf that writes content from the secret store (a secret
 * content claim, and a secret the leaf uses) with a mode that lets the
 * file's group or others read it, unless the leaf says that is meant
 * (info secret.shared = the path).
 */
static int
check_secret_mode(checker *k, const prop_node *n)
{
    unsigned i, j;

    if (n->kind != PROP_LEAF || !has_info(n, PROP_INFO_SECRET, NULL))
        return PROP_OK;
    for (i = 0; i < n->leaf->nclaims; i++) {
        const prop_claim *c = &n->leaf->claims[i];

        if (c->kind != PROP_CLAIM_FILE_CONTENT || !(c->flags & PROP_CLAIM_SECRET) ||
            has_info(n, PROP_INFO_SECRET_SHARED, c->key))
            continue;
        for (j = 0; j < n->leaf->nclaims; j++) {
            const prop_claim *m = &n->leaf->claims[j];
            unsigned long mode;
            char *end;
            diag_builder b;
            int rc;

            if (m->kind != PROP_CLAIM_FILE_MODE || !m->value || strcmp(m->key, c->key) != 0)
                continue;
            mode = strtoul(m->value, &end, 8);
            if (*end != '\0' || (mode & 044) == 0)
                continue;
            rc = diag_begin(&b, k->s, "W108", PROP_SEV_WARNING, n->origin,
                            "secret content written to %s with mode %s, readable by %s: give "
                            "it mode \"0600\" (or say shared = true if %s must read it)",
                            c->key, m->value,
                            (mode & 044) == 044 ? "its group and by others"
                            : mode & 040        ? "its group"
                                                : "others",
                            (mode & 044) == 040 ? "the group" : "they");
            if (rc == PROP_OK)
                rc = diag_end(&b);
            if (rc != PROP_OK)
                return rc;
        }
    }
    return PROP_OK;
}

static int
has_port(const prop_node *n, int port)
{
    unsigned lo = 0, hi = n->nports;

    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;

        if (n->ports[mid] == port)
            return 1;
        if (n->ports[mid] < port)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

/*
 * The first leaf under n that uses port (n must use it).  Follows the
 * nodes' port unions, so it never explores a branch without the port.
 */
static const prop_node *
port_leaf(const prop_node *n, int port)
{
    while (n != NULL && n->nchildren > 0) {
        const prop_node *next = NULL;
        unsigned i;

        if (n->kind == PROP_REVERT) {
            next = n->rev;
        } else {
            for (i = 0; i < n->nchildren && next == NULL; i++)
                if (has_port(node_children(n)[i], port))
                    next = node_children(n)[i];
        }
        n = next;
    }
    return n;
}

/*
 * P006 inside one combinator that runs its children on one host: two of
 * them use a port that different leaves claim.  Children's port sets are
 * sorted and without duplicates, so a clash exists exactly when their
 * sizes add up to more than the union's.
 */
static int
check_ports(checker *k, const prop_node *n)
{
    size_t total = 0;
    unsigned i, j;

    switch (n->kind) {
    case PROP_REQUIRES:
    case PROP_BEFORE:
    case PROP_ON_CHANGE:
    case PROP_FALLBACK:
    case PROP_PROPS:
        break;
    default:
        return PROP_OK;
    }
    if (n->synthetic || n->nports == 0)
        return PROP_OK;
    for (i = 0; i < n->nchildren; i++)
        total += node_children(n)[i]->nports;
    if (total == n->nports)
        return PROP_OK;
    for (i = 0; i < n->nchildren; i++) {
        for (j = i + 1; j < n->nchildren; j++) {
            const prop_node *x = node_children(n)[i], *y = node_children(n)[j];
            unsigned p = 0, q = 0;

            while (p < x->nports && q < y->nports) {
                const prop_node *la, *lb;
                int port = x->ports[p];
                diag_builder b;
                int rc;

                if (x->ports[p] < y->ports[q]) {
                    p++;
                    continue;
                }
                if (x->ports[p] > y->ports[q]) {
                    q++;
                    continue;
                }
                p++;
                q++;
                la = port_leaf(x, port);
                lb = port_leaf(y, port);
                if (la == NULL || lb == NULL || pp_same_leaf(la, lb) || pp_shares_ports(la, lb) ||
                    (la->targets & lb->targets) == PROP_OS_NONE)
                    continue;
                rc = pp_pair_take(k->s, &k->pairs, la, lb);
                if (rc <= 0) {
                    if (rc < 0)
                        return rc;
                    continue;
                }
                rc = diag_begin(&b, k->s, "P006", PROP_SEV_ERROR, n->origin,
                                "port %d is used by both \"%s\" and \"%s\", which %s puts on one "
                                "host: two services cannot listen on one port",
                                port, lb->desc, la->desc, prop_kind_name(n->kind));
                if (rc == PROP_OK)
                    rc = diag_note(&b, la->origin, "\"%s\" uses port %d here", la->desc, port);
                if (rc == PROP_OK)
                    rc = diag_note(&b, lb->origin, "\"%s\" uses port %d here", lb->desc, port);
                if (rc == PROP_OK)
                    rc = diag_end(&b);
                if (rc != PROP_OK)
                    return rc;
            }
        }
    }
    return PROP_OK;
}

int
pp_check_structure(checker *k)
{
    size_t i;
    int rc;

    for (i = 0; i < k->s->nodes.n; i++) {
        const prop_node *n = k->s->nodes.v[i];

        if (n->synthetic)
            continue;
        if ((rc = check_revert(k, n)) != PROP_OK || (rc = check_conflict(k, n)) != PROP_OK ||
            (rc = check_hook(k, n)) != PROP_OK || (rc = check_ports(k, n)) != PROP_OK ||
            (rc = check_secret_mode(k, n)) != PROP_OK ||
            (rc = pp_check_purge_node(k, n)) != PROP_OK)
            return rc;
    }
    return PROP_OK;
}
