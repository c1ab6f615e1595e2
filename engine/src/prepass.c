/*
 * prepass.c - the static pre-pass: every rule of SPEC 3 over a whole site.
 *
 * Two kinds of rules.  Structural ones look at each node once, wherever
 * it is used (P001 revert of a non-revertable, P005 targets that do not
 * intersect, P006 a port clash inside one combinator, W102 a hook that
 * never runs); they are prepass_structure.c's.  Per-host ones look at what
 * takes effect on each host: its top-level properties (P002, P003, W101)
 * and its effective leaves, whose claims are grouped by resource in a hash
 * table and compared within each group (P004 here; P006, P008-P010 and
 * P013 and P017 in claims.c, P007 in claims_files.c; W106 and P016, what a
 * leaf uses against what provides it, in prepass_uses.c).  Site-wide tables
 * catch two hosts of one name (P011), one address on two hosts (P013), and
 * two web sites of one name in one network shared by a host and its
 * containers (P017, prepass_web.c).
 *
 * Findings accumulate; nothing stops at the first.  A pair of leaves gives
 * at most one diagnostic, whatever the number of claims they disagree on.
 *
 * Ownership: diagnostics live in the site's arena (diag.c).  The scratch
 * tables (prepass.h) come from malloc, are reused from one host to the next
 * (reset by bumping a generation number, never cleared), and are freed
 * before prop_site_check() returns, on every path.
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "prepass.h"

/* Steps allowed to decide that two top-level properties are the same. */
#define SAME_BUDGET 4096

static int
same_tree(const prop_node *a, const prop_node *b, unsigned *budget)
{
    unsigned i;

    if (a == b)
        return 1;
    if (*budget == 0)
        return 0;
    (*budget)--;
    if (a->kind != b->kind || a->nchildren != b->nchildren || a->targets != b->targets ||
        !pp_same_str(a->desc, b->desc))
        return 0;
    if (a->kind == PROP_ONLY_IF && a->leaf != b->leaf)
        return 0; /* two tests: they may not agree */
    if (a->nchildren == 0)
        return pp_same_leaf(a, b);
    for (i = 0; i < a->nchildren; i++)
        if (!same_tree(node_children(a)[i], node_children(b)[i], budget))
            return 0;
    return 1;
}

static const prop_origin *
host_origin(const prop_host *h)
{
    return h->origin;
}

/* ---- per host: collecting the effective leaves ---- */

/* Mark n visited on this host; 1 if it already was. */
static int
visited(checker *k, const prop_node *n)
{
    if (n->id >= k->nseen)
        return 0;
    if (k->seen[n->id] == k->gen)
        return 1;
    k->seen[n->id] = k->gen;
    return 0;
}

static int
is_visited(const checker *k, const prop_node *n)
{
    return n->id < k->nseen && k->seen[n->id] == k->gen;
}

static int
push(checker *k, size_t *sp, const prop_node *n)
{
    if (pp_reserve(k->s, (void **)&k->stack, &k->stackcap, sizeof *k->stack, *sp + 1) != PROP_OK)
        return PROP_ENOMEM;
    k->stack[(*sp)++] = n;
    return PROP_OK;
}

/* Start a new round of visits: every node counts as not visited. */
static void
new_round(checker *k)
{
    if (++k->gen == 0) {
        if (k->seen != NULL)
            memset(k->seen, 0, k->nseen * sizeof *k->seen);
        k->gen = 1;
    }
}

/*
 * Append the leaves of top (index ti) that take effect on the host, in
 * the order prop_node_each_leaf() gives them.  A node already visited in
 * this round is not entered again: its leaves are there already, and a
 * graph sharing subtrees cannot make the walk exponential.  Invalid leaves
 * are left out (P012 reported them).
 *
 * With os_found non-NULL nothing is appended: the walk stops at the first
 * os.* leaf and returns 1 with its family in *os_found (0 if none).
 */
static int
walk(checker *k, const prop_node *top, unsigned ti, prop_os_set *os_found)
{
    size_t sp = 0, i;

    if (push(k, &sp, top) != PROP_OK)
        return PROP_ENOMEM;
    while (sp > 0) {
        const prop_node *c = k->stack[--sp];
        int rc = PROP_OK;

        if (visited(k, c))
            continue;
        switch (c->kind) {
        case PROP_LEAF:
        case PROP_INFO:
            if (os_found != NULL) {
                if (c->leaf->os_family == PROP_OS_NONE)
                    break;
                *os_found = c->leaf->os_family;
                return 1;
            }
            if (pp_reserve(k->s, (void **)&k->ents, &k->entcap, sizeof *k->ents, k->nents + 1))
                return PROP_ENOMEM;
            k->ents[k->nents].leaf = c;
            k->ents[k->nents].top = ti;
            k->nents++;
            break;
        case PROP_INVALID:
            break;
        case PROP_REQUIRES:
            if ((rc = push(k, &sp, node_children(c)[0])) == PROP_OK)
                rc = push(k, &sp, node_children(c)[1]);
            break;
        case PROP_BEFORE:
        case PROP_ON_CHANGE:
        case PROP_FALLBACK:
            if ((rc = push(k, &sp, node_children(c)[1])) == PROP_OK)
                rc = push(k, &sp, node_children(c)[0]);
            break;
        case PROP_PROPS:
            for (i = c->nchildren; i-- > 0 && rc == PROP_OK;)
                rc = push(k, &sp, node_children(c)[i]);
            break;
        case PROP_PICK_OS:
            if (k->os == PROP_OS_NONE) {
                for (i = c->nchildren; i-- > 0 && rc == PROP_OK;)
                    rc = push(k, &sp, node_children(c)[i]);
                break;
            }
            for (i = 0; i < c->nchildren; i++) {
                if (node_children(c)[i]->targets & k->os) {
                    rc = push(k, &sp, node_children(c)[i]);
                    break;
                }
            }
            break;
        case PROP_DESCRIBE:
        case PROP_REVERTABLE:
        case PROP_ONLY_IF:
            rc = push(k, &sp, node_children(c)[0]);
            break;
        case PROP_REVERT:
            if (c->rev != NULL)
                rc = push(k, &sp, c->rev);
            break;
        }
        if (rc != PROP_OK)
            return rc;
    }
    return PROP_OK;
}

/* ---- per host: the rules ---- */

/* P004: the second (and later) os.* declaration among the effective leaves. */
static int
check_os_twice(checker *k)
{
    const prop_node *first = NULL;
    size_t e;

    for (e = 0; e < k->nents; e++) {
        const prop_node *l = k->ents[e].leaf;
        diag_builder b;
        int rc;

        if (l->leaf->os_family == PROP_OS_NONE)
            continue;
        if (first == NULL) {
            first = l;
            continue;
        }
        if (pp_same_leaf(first, l))
            continue;
        rc = pp_pair_take(k->s, &k->pairs, first, l);
        if (rc <= 0) {
            if (rc < 0)
                return rc;
            continue;
        }
        rc = diag_begin(&b, k->s, "P004", PROP_SEV_ERROR, l->origin,
                        "host \"%s\" declares its operating system twice, as %s and as %s: a "
                        "host runs one operating system",
                        prop_host_fullname(k->h), first->desc, l->desc);
        if (rc == PROP_OK)
            rc = diag_note(&b, first->origin, "%s is declared here", first->desc);
        if (rc == PROP_OK)
            rc = diag_end(&b);
        if (rc != PROP_OK)
            return rc;
    }
    return PROP_OK;
}

static const prop_node *
os_leaf(const checker *k)
{
    size_t e;

    for (e = 0; e < k->nents; e++)
        if (k->ents[e].leaf->leaf->os_family != PROP_OS_NONE)
            return k->ents[e].leaf;
    return NULL;
}

/*
 * The innermost part of top that excludes the host's OS: follow a child
 * that excludes it down to a leaf, stopping at pick_os (which counts as
 * a whole), at a recipe's own pair (shown as one property) and where no
 * single child is to blame.
 */
static const prop_node *
excluding_part(const prop_node *top, prop_os_set os)
{
    const prop_node *n = top;

    for (;;) {
        const prop_node *next = NULL;
        unsigned i;

        if (n->kind == PROP_PICK_OS || n->paired || n->nchildren == 0)
            return n;
        if (n->kind == PROP_REVERT && n->rev != NULL) {
            next = n->rev;
        } else {
            for (i = 0; i < n->nchildren && next == NULL; i++)
                if (!(node_children(n)[i]->targets & os))
                    next = node_children(n)[i];
        }
        if (next == NULL)
            return n;
        n = next;
    }
}

/* P002 and P003 for the i-th top-level property. */
static int
check_targets(checker *k, const prop_node *top, const prop_node *osdecl)
{
    char t[64];
    diag_builder b;
    int rc;

    if (top->kind == PROP_INVALID || top->targets == PROP_OS_NONE ||
        top->leaf->os_family != PROP_OS_NONE)
        return PROP_OK;
    if (k->os == PROP_OS_NONE)
        return PROP_OK; /* typed by its properties: check_inferred_os() */
    if (top->targets & k->os) {
        return PROP_OK;
    } else {
        const prop_node *part = excluding_part(top, k->os);
        const char *osn = prop_os_family_name(k->os);

        if (part->leaf->os_family != PROP_OS_NONE)
            return PROP_OK; /* a second OS: P004 */
        rc = diag_begin(&b, k->s, "P002", PROP_SEV_ERROR, top->origin,
                        "\"%s\" runs only on %s, but host \"%s\" is %s", top->desc,
                        os_name(top->targets, t, sizeof t), prop_host_fullname(k->h),
                        osn ? osn : "unknown");
        if (rc == PROP_OK && part != top)
            rc = diag_note(&b, part->origin, "\"%s\" runs only on %s", part->desc,
                           os_name(part->targets, t, sizeof t));
        if (rc == PROP_OK && osdecl != NULL)
            rc = diag_note(&b, osdecl->origin, "host \"%s\" declared %s here",
                           prop_host_fullname(k->h), osn ? osn : "its operating system");
        return rc == PROP_OK ? diag_end(&b) : rc;
    }
}

/*
 * P003: a host that declares no OS is typed by its properties, as in
 * Propellor: it can be any OS that every one of them runs on.  One
 * diagnostic per host, at the first property that leaves no OS, naming
 * an earlier one it cannot share a machine with (or, when no single one
 * is to blame, the last that narrowed the choice).
 */
static int
check_inferred_os(checker *k)
{
    const prop_host *h = k->h;
    prop_os_set run = PROP_OS_UNIXLIKE;
    const prop_node *narrowed = NULL;
    char t1[64], t2[64], t3[64];
    size_t i, j;

    for (i = 0; i < h->props.n; i++) {
        const prop_node *top = h->props.v[i], *other = NULL;
        diag_builder b;
        int rc;

        if (!k->fresh[i] || top->kind == PROP_INVALID || top->targets == PROP_OS_NONE)
            continue;
        if (run & top->targets) {
            if ((run & top->targets) != run)
                narrowed = top;
            run &= top->targets;
            continue;
        }
        for (j = 0; j < i && other == NULL; j++) {
            const prop_node *o = h->props.v[j];

            if (k->fresh[j] && o->kind != PROP_INVALID && o->targets != PROP_OS_NONE &&
                !(o->targets & top->targets))
                other = o;
        }
        if (other != NULL)
            rc = diag_begin(&b, k->s, "P003", PROP_SEV_ERROR, top->origin,
                            "\"%s\" runs only on %s, but \"%s\" on host \"%s\" runs only on "
                            "%s: host \"%s\" declares no operating system, and no system runs "
                            "both",
                            top->desc, os_name(top->targets, t1, sizeof t1), other->desc, h->name,
                            os_name(other->targets, t2, sizeof t2), h->name);
        else
            rc = diag_begin(&b, k->s, "P003", PROP_SEV_ERROR, top->origin,
                            "\"%s\" runs only on %s, but the properties before it on host "
                            "\"%s\" run together only on %s: the host declares no operating "
                            "system, and no system runs them all",
                            top->desc, os_name(top->targets, t1, sizeof t1), h->name,
                            os_name(run, t3, sizeof t3));
        if (other == NULL)
            other = narrowed;
        if (rc == PROP_OK && other != NULL)
            rc = diag_note(&b, other->origin, "\"%s\" runs only on %s", other->desc,
                           os_name(other->targets, t2, sizeof t2));
        if (rc == PROP_OK)
            rc = diag_note(&b, host_origin(h),
                           "host \"%s\" is declared here: give it its OS (os.debian(...), "
                           "os.rhel(...), os.freebsd(...), ...), or remove the property that "
                           "does not belong",
                           h->name);
        return rc == PROP_OK ? diag_end(&b) : rc;
    }
    return PROP_OK;
}

/*
 * Whether top-level properties a and b of h were written in one list of
 * the site (prop_host_add_in); not knowing counts as one list.
 */
static int
same_list(const prop_host *h, size_t a, size_t b)
{
    const void *la, *lb;

    if (a >= h->lists.n || b >= h->lists.n)
        return 1;
    la = h->lists.v[a];
    lb = h->lists.v[b];
    return la == NULL || lb == NULL || la == lb;
}

/* W101 for top-level property i: the same as an earlier one of the host
 * written in the same list. */
static int
check_duplicate(checker *k, const prop_node *top, size_t i)
{
    size_t gi;
    int r;

    if (top->kind == PROP_INVALID)
        return PROP_OK;
    if (pp_table_group(k->s, &k->host, CLS_TOP, top->desc, strlen(top->desc), 0, &gi) != PROP_OK)
        return PROP_ENOMEM;
    for (r = k->host.groups[gi].first; r >= 0; r = k->host.refs[r].next) {
        const prop_node *prev = k->host.refs[r].node;
        unsigned budget = SAME_BUDGET;
        diag_builder b;
        int rc;

        if (!same_tree(prev, top, &budget))
            continue;
        /* Written in two lists (two roles, a role and the host's own
         * list): two needs that agree, not a slip. */
        if (!same_list(k->h, k->host.refs[r].ent, i))
            continue;
        if (prev == top) {
            rc = diag_begin(&b, k->s, "W101", PROP_SEV_WARNING, top->origin,
                            "\"%s\" is listed twice on host \"%s\": the second one has no "
                            "effect",
                            top->desc, prop_host_fullname(k->h));
            if (rc == PROP_OK)
                rc = diag_note(&b, host_origin(k->h), "host \"%s\" is declared here",
                               prop_host_fullname(k->h));
        } else {
            rc = diag_begin(&b, k->s, "W101", PROP_SEV_WARNING, top->origin,
                            "\"%s\" is already on host \"%s\": the second one has no effect",
                            top->desc, prop_host_fullname(k->h));
            if (rc == PROP_OK)
                rc = diag_note(&b, prev->origin, "\"%s\" is first declared here", prev->desc);
        }
        if (rc == PROP_OK)
            rc = diag_end(&b);
        return rc;
    }
    return pp_table_add(k->s, &k->host, gi, NULL, top, k->h, (unsigned)i);
}

/* P011: a host named like an earlier one. */
static int
check_host_name(checker *k)
{
    const prop_host *h = k->h;
    const char *name = prop_host_fullname(h);
    size_t gi;
    const group *g;
    diag_builder b;
    int rc;

    if (pp_table_group(k->s, &k->site, CLS_HOST, name, strlen(name), 0, &gi) != PROP_OK)
        return PROP_ENOMEM;
    g = &k->site.groups[gi];
    if (g->first < 0)
        return pp_table_add(k->s, &k->site, gi, NULL, NULL, h, 0);
    rc = diag_begin(&b, k->s, "P011", PROP_SEV_ERROR, host_origin(h),
                    "host \"%s\" is declared twice: host names must be unique in a site", name);
    if (rc == PROP_OK)
        rc = diag_note(&b, host_origin(k->site.refs[g->first].host),
                       "host \"%s\" was first declared here", name);
    return rc == PROP_OK ? diag_end(&b) : rc;
}

/*
 * Addresses (ipv4/ipv6 info) of host h into the site's table: one member
 * per host and address, its ent 1 when the host marks the address shared
 * (info "address.shared" with the address, from ipv4(a, { shared = true })
 * in the same leaf).  P013 is decided once every host is in
 * (check_shared_addresses).
 */
static int
collect_addresses(checker *k)
{
    size_t e, gi;
    unsigned i, j;

    for (e = 0; e < k->nents; e++) {
        const prop_node *l = k->ents[e].leaf;

        for (i = 0; i < l->leaf->ninfo; i++) {
            const prop_info *in = &l->leaf->info[i];
            unsigned cls, shared = 0;
            group *g;

            if (strcmp(in->key, "ipv4") == 0)
                cls = CLS_IPV4;
            else if (strcmp(in->key, "ipv6") == 0)
                cls = CLS_IPV6;
            else if (strcmp(in->key, "alias") == 0)
                cls = CLS_ALIAS;
            else
                continue;
            for (j = 0; j < l->leaf->ninfo && !shared; j++)
                shared = strcmp(l->leaf->info[j].key, PROP_INFO_ADDRESS_SHARED) == 0 &&
                         strcmp(l->leaf->info[j].value, in->value) == 0;
            if (pp_table_group(k->s, &k->site, cls, in->value, strlen(in->value), 0, &gi) != 0)
                return PROP_ENOMEM;
            g = &k->site.groups[gi];
            if (g->last >= 0 && k->site.refs[g->last].host == k->h) {
                k->site.refs[g->last].ent |= shared;
                continue;
            }
            if (pp_table_add(k->s, &k->site, gi, NULL, l, k->h, shared) != PROP_OK)
                return PROP_ENOMEM;
        }
    }
    return PROP_OK;
}

/*
 * P012: an alias of a host that has nothing for it to point at: no
 * address (ipv4, ipv6) and a name that is no DNS name of its own (a bare
 * "db"): a zone could only make it a CNAME to a top-level name that does
 * not exist.
 */
static int
check_alias_target(checker *k)
{
    const prop_node *alias = NULL;
    size_t e;
    unsigned i;
    diag_builder b;
    int rc;

    if (strchr(k->h->name, '.') != NULL)
        return PROP_OK;
    for (e = 0; e < k->nents; e++) {
        const prop_node *l = k->ents[e].leaf;

        for (i = 0; i < l->leaf->ninfo; i++) {
            const char *key = l->leaf->info[i].key;

            if (strcmp(key, "ipv4") == 0 || strcmp(key, "ipv6") == 0)
                return PROP_OK;
            if (alias == NULL && strcmp(key, "alias") == 0)
                alias = l;
        }
    }
    if (alias == NULL)
        return PROP_OK;
    rc = diag_begin(&b, k->s, "P012", PROP_SEV_ERROR, alias->origin,
                    "%s: host \"%s\" has no address (ipv4, ipv6) and its name is no DNS name of "
                    "its own, so the alias has nothing to point at",
                    alias->desc, k->h->name);
    if (rc == PROP_OK)
        rc = diag_note(&b, host_origin(k->h),
                       "host \"%s\" is declared here: give it its address (ipv4 \"192.0.2.10\"), "
                       "or name it by its full name",
                       k->h->name);
    return rc == PROP_OK ? diag_end(&b) : rc;
}

/* P013: an alias that is the name of another host of the site. */
static int
check_alias_is_host(checker *k, const group *g)
{
    const group *hg = pp_table_find(&k->site, CLS_HOST, g->key, g->len, 0);
    const prop_host *named;
    int r;

    if (hg == NULL || hg->first < 0)
        return PROP_OK;
    named = k->site.refs[hg->first].host;
    for (r = g->first; r >= 0; r = k->site.refs[r].next) {
        const ref *x = &k->site.refs[r];
        diag_builder b;
        int rc;

        if (x->host == named)
            continue;
        rc = diag_begin(&b, k->s, "P013", PROP_SEV_ERROR, x->node->origin,
                        "host \"%s\" is given the name %s here, but that is the name of host "
                        "\"%s\": one name cannot point at two machines",
                        x->host->name, g->key, named->name);
        if (rc == PROP_OK)
            rc = diag_note(&b, named->origin, "host \"%s\" is declared here", named->name);
        if (rc == PROP_OK)
            rc = diag_end(&b);
        if (rc != PROP_OK)
            return rc;
    }
    return PROP_OK;
}

/*
 * P013: an address declared by more than one host, unless every host that
 * holds it marks it shared (a floating or anycast address).  Reported at
 * each host after the first, with a note at the first.
 */
static int
check_shared_addresses(checker *k)
{
    size_t gi;

    for (gi = 0; gi < k->site.ngroups; gi++) {
        const group *g = &k->site.groups[gi];
        const ref *first;
        int r, all_shared = 1, some_shared = 0;

        if (g->cls == CLS_ALIAS && g->first >= 0) {
            int rc = check_alias_is_host(k, g);

            if (rc != PROP_OK)
                return rc;
        }
        if ((g->cls != CLS_IPV4 && g->cls != CLS_IPV6 && g->cls != CLS_ALIAS) || g->first < 0 ||
            k->site.refs[g->first].next < 0)
            continue;
        for (r = g->first; r >= 0; r = k->site.refs[r].next) {
            all_shared = all_shared && k->site.refs[r].ent;
            some_shared = some_shared || k->site.refs[r].ent;
        }
        if (all_shared)
            continue;
        /* None marks it: each holder after the first is in the wrong.
         * Some do: the ones that do not are. */
        first = &k->site.refs[g->first];
        if (some_shared)
            for (r = g->first; r >= 0 && !k->site.refs[r].ent; r = k->site.refs[r].next)
                ;
        if (some_shared)
            first = &k->site.refs[r];
        for (r = g->first; r >= 0; r = k->site.refs[r].next) {
            const ref *x = &k->site.refs[r];
            const char *what = g->cls == CLS_ALIAS ? "name" : "address";
            diag_builder b;
            char at[512];
            int rc;

            if (x == first || (some_shared && x->ent))
                continue;
            if (some_shared)
                rc = diag_begin(&b, k->s, "P013", PROP_SEV_ERROR, x->node->origin,
                                "%s %s is declared by host \"%s\" here, and host \"%s\" "
                                "marks it shared at %s: a shared %s (floating, anycast) "
                                "must be marked { shared = true } on every host that holds it",
                                what, g->key, x->host->name, first->host->name,
                                pp_place(first->node->origin, at, sizeof at), what);
            else if (g->cls == CLS_ALIAS)
                rc = diag_begin(&b, k->s, "P013", PROP_SEV_ERROR, x->node->origin,
                                "name %s is given to host \"%s\" here but also to host \"%s\" "
                                "at %s: one name cannot point at two machines",
                                g->key, x->host->name, first->host->name,
                                pp_place(first->node->origin, at, sizeof at));
            else
                rc = diag_begin(&b, k->s, "P013", PROP_SEV_ERROR, x->node->origin,
                                "address %s is declared by host \"%s\" here but also by host "
                                "\"%s\" at %s: one address cannot belong to two machines",
                                g->key, x->host->name, first->host->name,
                                pp_place(first->node->origin, at, sizeof at));
            if (rc == PROP_OK)
                rc = diag_note(&b, first->node->origin,
                               some_shared ? "host \"%s\" marks it shared here"
                                           : "host \"%s\" declares it here",
                               first->host->name);
            if (rc == PROP_OK && !some_shared)
                rc = diag_note(&b, NULL,
                               "if the hosts share it on purpose (a floating or anycast "
                               "address or name), mark it { shared = true } on each of them");
            if (rc == PROP_OK)
                rc = diag_end(&b);
            if (rc != PROP_OK)
                return rc;
        }
    }
    return PROP_OK;
}

/* ---- containers ---- */

/*
 * Link every container to the host whose effective leaves attach it (a
 * chroot.provisioned, systemd.nspawned, ... among them), before any host
 * is checked: a container is named after its parent ("box/web").  A
 * container attached by two hosts, or two containers of one name on one
 * host, is P011; a container no host attaches is W105.
 */
static int
attach_containers(checker *k)
{
    size_t i, j, e;
    int rc;

    for (i = 0; i < k->s->hosts.n; i++) {
        prop_host *h = k->s->hosts.v[i];

        k->h = h;
        k->nents = 0;
        k->os = prop_host_os(h);
        new_round(k);
        for (j = 0; j < h->props.n; j++)
            if ((rc = walk(k, h->props.v[j], (unsigned)j, NULL)) < 0)
                return rc;
        for (e = 0; e < k->nents; e++) {
            const prop_node *l = k->ents[e].leaf;
            prop_host *c = l->leaf->container;
            diag_builder b;
            char at[512];

            if (c == NULL || c->parent == h)
                continue;
            c->named = 1;
            if (l->leaf->detaches)
                continue;
            if (c == h || c->parent != NULL) {
                rc = diag_begin(
                    &b, k->s, "P011", PROP_SEV_ERROR, l->origin,
                    c == h ? "container \"%s\" cannot be put inside itself"
                           : "container \"%s\" is put on host \"%s\" here but "
                             "also on host \"%s\" at %s: a container lives on one "
                             "host",
                    c->name, prop_host_fullname(h), c->parent ? prop_host_fullname(c->parent) : "",
                    c->attached_by ? pp_place(c->attached_by->origin, at, sizeof at) : "");
                if (rc == PROP_OK && c->attached_by)
                    rc = diag_note(&b, c->attached_by->origin, "\"%s\" puts it on host \"%s\" here",
                                   c->attached_by->desc, prop_host_fullname(c->parent));
                if (rc == PROP_OK)
                    rc = diag_end(&b);
                if (rc != PROP_OK)
                    return rc;
                continue;
            }
            for (j = 0; j < h->containers.n; j++) {
                const prop_host *o = h->containers.v[j];

                if (strcmp(o->name, c->name) != 0)
                    continue;
                rc = diag_begin(&b, k->s, "P011", PROP_SEV_ERROR, l->origin,
                                "host \"%s\" has two containers named \"%s\" (the other is "
                                "put on it at %s): a container is named by its host and its "
                                "name",
                                prop_host_fullname(h), c->name,
                                pp_place(o->attached_by->origin, at, sizeof at));
                if (rc == PROP_OK)
                    rc = diag_note(&b, o->origin, "the other container \"%s\" is declared here",
                                   o->name);
                if (rc == PROP_OK)
                    rc = diag_end(&b);
                if (rc != PROP_OK)
                    return rc;
                break;
            }
            if (j == h->containers.n && (rc = site_attach(k->s, h, c, l)) != PROP_OK)
                return rc;
        }
    }
    for (i = 0; i < k->s->hosts.n; i++) {
        const prop_host *c = k->s->hosts.v[i];
        diag_builder b;

        if (c->kind == PROP_CONTAINER_NONE || c->parent != NULL || c->named)
            continue;
        rc = diag_begin(&b, k->s, "W105", PROP_SEV_WARNING, c->origin,
                        "container \"%s\" is put on no host: nothing makes it or runs it "
                        "(give it to a host with chroot.provisioned, systemd.nspawned, "
                        "docker.running or jail.running)",
                        c->name);
        if ((rc = rc == PROP_OK ? diag_end(&b) : rc) != PROP_OK)
            return rc;
    }
    return PROP_OK;
}

/* W103 and every per-host rule for host h. */
static int
check_host(checker *k, const prop_host *h)
{
    const prop_node *osdecl;
    size_t i, n = h->props.n;
    int rc;

    k->h = h;
    k->nents = 0;
    pp_table_reset(&k->host);
    /* A container no host takes has no name of its own yet (W105). */
    if ((h->kind == PROP_CONTAINER_NONE || h->parent) && (rc = check_host_name(k)) != PROP_OK)
        return rc;
    if (n == 0) {
        diag_builder b;

        rc = diag_begin(&b, k->s, "W103", PROP_SEV_WARNING, host_origin(h),
                        "host \"%s\" has no properties: prop has nothing to do on it", h->name);
        return rc == PROP_OK ? diag_end(&b) : rc;
    }
    /* The host's OS as prop_host_os() finds it (the first os.* leaf,
     * every pick_os alternative counting), without its exponential walk. */
    k->os = PROP_OS_NONE;
    new_round(k);
    for (i = 0; i < n && k->os == PROP_OS_NONE; i++)
        if ((rc = walk(k, h->props.v[i], 0, &k->os)) < 0)
            return rc;
    if (pp_reserve(k->s, (void **)&k->fresh, &k->freshcap, 1, n) != PROP_OK)
        return PROP_ENOMEM;
    /* A top-level property already walked (listed twice, or part of an
     * earlier one) is not checked against the OS again: one mistake, one
     * diagnostic. */
    new_round(k);
    for (i = 0; i < n; i++) {
        const prop_node *top = h->props.v[i];

        k->fresh[i] = !is_visited(k, top);
        if ((rc = check_duplicate(k, top, i)) != PROP_OK ||
            (rc = walk(k, top, (unsigned)i, NULL)) != PROP_OK)
            return rc;
    }
    osdecl = os_leaf(k);
    for (i = 0; i < n; i++)
        if (k->fresh[i] && (rc = check_targets(k, h->props.v[i], osdecl)) != PROP_OK)
            return rc;
    if (k->os == PROP_OS_NONE && (rc = check_inferred_os(k)) != PROP_OK)
        return rc;
    if ((rc = check_os_twice(k)) != PROP_OK || (rc = pp_check_claims(k)) != PROP_OK ||
        (rc = pp_check_purge_host(k)) != PROP_OK || (rc = pp_check_uses(k)) != PROP_OK ||
        (rc = check_alias_target(k)) != PROP_OK || (rc = pp_web_keep(k)) != PROP_OK)
        return rc;
    return collect_addresses(k);
}

/*
 * Run every rule over the site once.  Later calls only sort again and
 * return the count, so findings are never repeated.  Returns the number of
 * errors, or PROP_ENOMEM (the findings so far are kept).
 */
int
prop_site_check(prop_site *s)
{
    checker k;
    size_t i;
    int rc = PROP_OK;

    if (s == NULL)
        return PROP_EINVAL;
    if (s->checked)
        goto sort;
    s->checked = 1;
    memset(&k, 0, sizeof k);
    k.s = s;
    pp_table_init(&k.host);
    pp_table_init(&k.site);
    k.nseen = s->next_id;
    if (k.nseen > 0) {
        k.seen = prop_calloc(k.nseen, sizeof *k.seen);
        if (k.seen == NULL) {
            rc = pp_nomem(s);
            goto done;
        }
    }
    if ((rc = pp_check_structure(&k)) != PROP_OK)
        goto done;
    if (s->ncontainers > 0 && (rc = attach_containers(&k)) != PROP_OK)
        goto done;
    for (i = 0; i < s->hosts.n; i++)
        if ((rc = check_host(&k, s->hosts.v[i])) != PROP_OK)
            goto done;
    if ((rc = check_shared_addresses(&k)) != PROP_OK)
        goto done;
    rc = pp_check_web(&k);
done:
    pp_table_free(&k.host);
    pp_table_free(&k.site);
    free(k.pairs.slots);
    free(k.seen);
    free(k.ents);
    free((void *)k.stack);
    free(k.fresh);
    free(k.web);
    free(k.ownnet);
    if (rc != PROP_OK)
        return rc;
sort:
    if ((rc = diag_sort(s)) != PROP_OK)
        return rc;
    return s->nerrors > (size_t)INT32_MAX ? INT32_MAX : (int)s->nerrors;
}
