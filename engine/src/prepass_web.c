/*
 * prepass_web.c - P017 between the web sites of hosts that share one
 * network: a host and the containers on it that have no network of their
 * own (a chroot; a systemd-nspawn machine without a private network or
 * published ports; a jail whose ip4 is "inherit"), and their containers
 * in turn.  A server in any of them listens on the same addresses, so two
 * sites of one name and port there clash as they do on one host.  A
 * Docker container (prop runs each in a network of its own), a machine
 * with a private network and a jail with an address of its own are
 * networks of their own: their sites are checked on their own.
 *
 * The sites of one host are compared in claims.c (with the host's other
 * claims); here only pairs from two hosts of one network.  Each host's
 * web claims are kept while it is checked (pp_web_keep), with whether it
 * has a network of its own; once every host is checked, each claim is
 * grouped under the host whose network it is in (pp_check_web).
 *
 * Ownership: the kept claims and the per-host flags are the checker's
 * scratch memory (malloc), freed by prop_site_check().
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "prepass.h"

/* Has container h (checked now: its effective leaves are k->ents) a
 * network of its own?  From the info its recipe gives it. */
static int
own_network(const checker *k, const prop_host *h)
{
    switch (h->kind) {
    case PROP_CONTAINER_NONE:
    case PROP_CONTAINER_DOCKER:
        return 1;
    case PROP_CONTAINER_CHROOT:
        return 0;
    case PROP_CONTAINER_NSPAWN:
    case PROP_CONTAINER_JAIL:
        break;
    }
    for (size_t e = 0; e < k->nents; e++) {
        const prop_node *l = k->ents[e].leaf;

        for (unsigned i = 0; i < l->leaf->ninfo; i++) {
            const char *key = l->leaf->info[i].key, *v = l->leaf->info[i].value;

            if (h->kind == PROP_CONTAINER_NSPAWN &&
                ((strcmp(key, "container.private_network") == 0 && strcmp(v, "yes") == 0) ||
                 strcmp(key, "container.publish") == 0))
                return 1;
            if (h->kind == PROP_CONTAINER_JAIL && strcmp(key, "container.ip4") == 0 &&
                strcmp(v, "inherit") != 0)
                return 1;
        }
    }
    return 0;
}

int
pp_web_keep(checker *k)
{
    const prop_host *h = k->h;

    if (h->index >= k->s->hosts.n)
        return PROP_OK;
    if (!k->ownnet) {
        if (!(k->ownnet = prop_calloc(k->s->hosts.n, 1)))
            return pp_nomem(k->s);
        memset(k->ownnet, 1, k->s->hosts.n);
    }
    k->ownnet[h->index] = (unsigned char)own_network(k, h);
    for (size_t e = 0; e < k->nents; e++) {
        const prop_node *l = k->ents[e].leaf;

        for (unsigned i = 0; i < l->leaf->nclaims; i++) {
            const prop_claim *c = &l->leaf->claims[i];
            ref *r;

            if (c->kind != PROP_CLAIM_WEB_NAME && c->kind != PROP_CLAIM_WEB_DEFAULT)
                continue;
            if (pp_reserve(k->s, (void **)&k->web, &k->webcap, sizeof *k->web, k->nweb + 1) !=
                PROP_OK)
                return PROP_ENOMEM;
            r = &k->web[k->nweb++];
            r->c = c;
            r->node = l;
            r->host = h;
            r->ent = 0;
            r->next = -1;
        }
    }
    return PROP_OK;
}

/* The host whose network h is in: its own, or its parent's (and so on). */
static const prop_host *
network_of(const checker *k, const prop_host *h)
{
    for (unsigned depth = 0;
         depth < 64 && h->parent && h->index < k->s->hosts.n && !k->ownnet[h->index]; depth++)
        h = h->parent;
    return h;
}

/* "NAME on port PORT" or "for port PORT" parts of a claim's key. */
static void
key_parts(const prop_claim *c, int *nlen, const char **port)
{
    const char *colon = strrchr(c->key, ':');

    *nlen = colon ? (int)(colon - c->key) : (int)strlen(c->key);
    *port = colon ? colon + 1 : c->key;
}

/* Report the pair (ri before rj, on two hosts of network net). */
static int
report(checker *k, const prop_host *net, const ref *ri, const ref *rj)
{
    const prop_claim *c = rj->c;
    const char *port, *hi = prop_host_fullname(ri->host), *hj = prop_host_fullname(rj->host);
    const prop_host *shared = ri->host == net ? rj->host : ri->host;
    char at[512];
    diag_builder b;
    int nlen, rc;

    rc = pp_pair_take(k->s, &k->pairs, ri->node, rj->node);
    if (rc <= 0)
        return rc;
    key_parts(c, &nlen, &port);
    pp_place(ri->node->origin, at, sizeof at);
    if (c->kind == PROP_CLAIM_WEB_DEFAULT)
        rc = diag_begin(&b, k->s, "P017", PROP_SEV_ERROR, rj->node->origin,
                        "two default web sites for port %s in the network of host \"%s\": "
                        "\"%s\" on \"%s\" here and \"%s\" on \"%s\" at %s (\"%s\" has no network "
                        "of its own): one port of one network has one default site",
                        port, prop_host_fullname(net), rj->node->desc, hj, ri->node->desc, hi, at,
                        prop_host_fullname(shared));
    else
        rc = diag_begin(&b, k->s, "P017", PROP_SEV_ERROR, rj->node->origin,
                        "two web sites answer %.*s on port %s in the network of host \"%s\": "
                        "\"%s\" on \"%s\" here and \"%s\" on \"%s\" at %s (\"%s\" has no network "
                        "of its own): only one of them can answer there",
                        nlen, c->key, port, prop_host_fullname(net), rj->node->desc, hj,
                        ri->node->desc, hi, at, prop_host_fullname(shared));
    if (rc == PROP_OK) {
        if (c->kind == PROP_CLAIM_WEB_DEFAULT)
            rc = diag_note(&b, ri->node->origin, "\"%s\" is the default site of port %s here",
                           ri->node->desc, port);
        else
            rc = diag_note(&b, ri->node->origin, "\"%s\" answers %.*s on port %s here",
                           ri->node->desc, nlen, c->key, port);
    }
    if (rc == PROP_OK)
        rc = diag_end(&b);
    return rc == PROP_OK ? 1 : rc;
}

int
pp_check_web(checker *k)
{
    table *t = &k->site;
    size_t i, gi;

    if (k->nweb == 0)
        return PROP_OK;
    pp_table_reset(t);
    for (i = 0; i < k->nweb; i++) {
        const ref *r = &k->web[i];
        const prop_host *net = network_of(k, r->host);
        unsigned cls = r->c->kind == PROP_CLAIM_WEB_NAME ? CLS_WEB_NAME : CLS_WEB_DEF;

        if (pp_table_group(k->s, t, cls, r->c->key, strlen(r->c->key), (long long)net->index,
                           &gi) != PROP_OK ||
            pp_table_add(k->s, t, gi, r->c, r->node, r->host, 0) != PROP_OK)
            return PROP_ENOMEM;
    }
    for (gi = 0; gi < t->ngroups; gi++) {
        const group *g = &t->groups[gi];
        const prop_host *net;
        int j;

        if ((g->cls != CLS_WEB_NAME && g->cls != CLS_WEB_DEF) || g->first < 0)
            continue;
        net = k->s->hosts.v[g->id];
        for (j = t->refs[g->first].next; j >= 0; j = t->refs[j].next) {
            const ref *rj = &t->refs[j];
            int ii;

            for (ii = g->first; ii != j; ii = t->refs[ii].next) {
                const ref *ri = &t->refs[ii];
                int rc;

                /* One host's pairs are claims.c's. */
                if (ri->host == rj->host || pp_same_leaf(ri->node, rj->node))
                    continue;
                if ((rc = report(k, net, ri, rj)) < 0)
                    return rc;
                if (rc > 0)
                    break;
            }
        }
    }
    return PROP_OK;
}
