/*
 * claims.c - the resources a host's properties claim, and their conflicts:
 * the tables that group claims by resource, reporting a pair of leaves,
 * and P006 (ports), P008 (packages), P009 (services), P010 (accounts and
 * ids), P013 (hostnames), P017 (web sites).  P007 (files) is
 * claims_files.c's.
 *
 * The claims of a host's effective leaves are grouped by resource (one
 * path, one package, one uid, one port) in a hash table, and compared
 * only within a group, so a host costs time linear in its claims; only
 * the members of one group are compared pairwise, and groups are small.
 * A pair of leaves gives at most one diagnostic, whatever the number of
 * claims they disagree on, and two identical leaves (the same recipe
 * called twice alike) never conflict.
 *
 * Ownership: the tables are the checker's scratch memory (prepass.h);
 * messages and diagnostics go to the site's arena.
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "array.h"
#include "claims_impl.h"

int
pp_nomem(prop_site *s)
{
    return site_fail(s, PROP_ENOMEM, "out of memory checking the site");
}

/* Make room for need elements of size elem in *v (malloc'd). */
int
pp_reserve(prop_site *s, void **v, size_t *cap, size_t elem, size_t need)
{
    return prop_array_grow(v, cap, 0, need, elem, 16) == 0 ? PROP_OK : pp_nomem(s);
}

/* ---- hashing, tables, pairs ---- */

static uint64_t
hash_key(unsigned cls, const char *key, size_t len, long long id)
{
    uint64_t h = 14695981039346656037ULL ^ ((uint64_t)cls * 0x9e3779b97f4a7c15ULL);
    size_t i;

    for (i = 0; i < len; i++) {
        h ^= (unsigned char)key[i];
        h *= 1099511628211ULL;
    }
    h ^= (uint64_t)id * 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 29;
    return h;
}

void
pp_table_init(table *t)
{
    memset(t, 0, sizeof *t);
    t->gen = 1;
}

void
pp_table_free(table *t)
{
    free(t->slots);
    free(t->groups);
    free(t->refs);
}

/* Forget every group: O(1) except when the generation number wraps. */
void
pp_table_reset(table *t)
{
    t->ngroups = 0;
    t->nrefs = 0;
    if (++t->gen == 0) {
        if (t->slots != NULL)
            memset(t->slots, 0, t->cap * sizeof *t->slots);
        t->gen = 1;
    }
}

static int
table_grow(prop_site *s, table *t)
{
    size_t cap = t->cap ? t->cap * 2 : 256, i;
    slot *slots;

    if (cap > (size_t)-1 / 2 / sizeof *slots)
        return pp_nomem(s);
    slots = prop_calloc(cap, sizeof *slots);
    if (slots == NULL)
        return pp_nomem(s);
    for (i = 0; i < t->ngroups; i++) {
        size_t j = (size_t)t->groups[i].hash & (cap - 1);

        while (slots[j].gen == t->gen)
            j = (j + 1) & (cap - 1);
        slots[j].gen = t->gen;
        slots[j].group = (unsigned)i;
    }
    free(t->slots);
    t->slots = slots;
    t->cap = cap;
    return PROP_OK;
}

static int
group_is(const group *g, unsigned cls, const char *key, size_t len, long long id, uint64_t hash)
{
    return g->hash == hash && g->cls == cls && g->id == id && g->len == len &&
           (len == 0 || g->key == key || memcmp(g->key, key, len) == 0);
}

/* The group of (cls, key, id), or NULL. */
group *
pp_table_find(table *t, unsigned cls, const char *key, size_t len, long long id)
{
    uint64_t hash = hash_key(cls, key, len, id);
    size_t j;

    if (t->cap == 0)
        return NULL;
    for (j = (size_t)hash & (t->cap - 1); t->slots[j].gen == t->gen; j = (j + 1) & (t->cap - 1)) {
        group *g = &t->groups[t->slots[j].group];

        if (group_is(g, cls, key, len, id, hash))
            return g;
    }
    return NULL;
}

/* Find or make the group of (cls, key, id); its index in *out. */
int
pp_table_group(prop_site *s, table *t, unsigned cls, const char *key, size_t len, long long id,
               size_t *out)
{
    uint64_t hash = hash_key(cls, key, len, id);
    group *g;
    size_t j;

    if ((t->ngroups + 1) * 2 > t->cap && table_grow(s, t) != PROP_OK)
        return PROP_ENOMEM;
    for (j = (size_t)hash & (t->cap - 1); t->slots[j].gen == t->gen; j = (j + 1) & (t->cap - 1)) {
        if (group_is(&t->groups[t->slots[j].group], cls, key, len, id, hash)) {
            *out = t->slots[j].group;
            return PROP_OK;
        }
    }
    if (pp_reserve(s, (void **)&t->groups, &t->gcap, sizeof *t->groups, t->ngroups + 1) != PROP_OK)
        return PROP_ENOMEM;
    g = &t->groups[t->ngroups];
    g->hash = hash;
    g->key = key;
    g->len = len;
    g->id = id;
    g->cls = cls;
    g->first = g->last = -1;
    g->absent = 0;
    g->owned = 0;
    t->slots[j].gen = t->gen;
    t->slots[j].group = (unsigned)t->ngroups;
    *out = t->ngroups++;
    return PROP_OK;
}

/* Append a member to group gi. */
int
pp_table_add(prop_site *s, table *t, size_t gi, const prop_claim *c, const prop_node *node,
             const prop_host *host, unsigned ei)
{
    group *g;
    ref *r;

    if (t->nrefs >= (size_t)INT32_MAX)
        return pp_nomem(s);
    if (pp_reserve(s, (void **)&t->refs, &t->rcap, sizeof *t->refs, t->nrefs + 1) != PROP_OK)
        return PROP_ENOMEM;
    r = &t->refs[t->nrefs];
    r->c = c;
    r->node = node;
    r->host = host;
    r->ent = ei;
    r->next = -1;
    g = &t->groups[gi];
    if (g->last >= 0)
        t->refs[g->last].next = (int)t->nrefs;
    else
        g->first = (int)t->nrefs;
    g->last = (int)t->nrefs;
    if (c != NULL && c->kind == PROP_CLAIM_FILE_ABSENT)
        g->absent = 1;
    if (c != NULL && c->kind == PROP_CLAIM_FILE_OWNED)
        g->owned = 1;
    t->nrefs++;
    return PROP_OK;
}

static int
pairs_grow(prop_site *s, pairset *p)
{
    size_t cap = p->cap ? p->cap * 2 : 64, i;
    uint64_t *slots = prop_calloc(cap, sizeof *slots);

    if (slots == NULL)
        return pp_nomem(s);
    for (i = 0; i < p->cap; i++) {
        uint64_t k = p->slots[i];
        size_t j;

        if (k == 0)
            continue;
        for (j = (size_t)(k * 0x9e3779b97f4a7c15ULL >> 7) & (cap - 1); slots[j] != 0;
             j = (j + 1) & (cap - 1))
            ;
        slots[j] = k;
    }
    free(p->slots);
    p->slots = slots;
    p->cap = cap;
    return PROP_OK;
}

/*
 * Claim the right to report the pair (a, b): 1 when it was not reported
 * yet (it now is), 0 when it was, PROP_ENOMEM on failure.
 */
int
pp_pair_take(prop_site *s, pairset *p, const prop_node *a, const prop_node *b)
{
    unsigned x = a->id < b->id ? a->id : b->id, y = a->id < b->id ? b->id : a->id;
    uint64_t k = ((uint64_t)x + 1) << 32 | ((uint64_t)y + 1);
    size_t j;

    if ((p->n + 1) * 2 > p->cap && pairs_grow(s, p) != PROP_OK)
        return PROP_ENOMEM;
    for (j = (size_t)(k * 0x9e3779b97f4a7c15ULL >> 7) & (p->cap - 1); p->slots[j] != 0;
         j = (j + 1) & (p->cap - 1)) {
        if (p->slots[j] == k)
            return 0;
    }
    p->slots[j] = k;
    p->n++;
    return 1;
}

/* ---- small helpers for messages ---- */

/* "file:line" of o into buf, or "an unknown place". */
const char *
pp_place(const prop_origin *o, char *buf, size_t n)
{
    if (o == NULL || o->nframes == 0 || o->frames[0].file == NULL)
        return "an unknown place";
    snprintf(buf, n, "%s:%d", o->frames[0].file, o->frames[0].line);
    return buf;
}

int
pp_same_place(const prop_origin *a, const prop_origin *b)
{
    if (a == b)
        return 1;
    if (a == NULL || b == NULL || a->nframes == 0 || b->nframes == 0)
        return 0;
    return a->frames[0].line == b->frames[0].line &&
           (a->frames[0].file == b->frames[0].file ||
            (a->frames[0].file && b->frames[0].file &&
             strcmp(a->frames[0].file, b->frames[0].file) == 0));
}

void
cval(const prop_claim *c, const char **v, size_t *len)
{
    *v = c->value ? c->value : "";
    *len = c->value ? (c->value_len ? c->value_len : strlen(c->value)) : 0;
}

int
same_value(const prop_claim *a, const prop_claim *b)
{
    const char *va, *vb;
    size_t la, lb;

    cval(a, &va, &la);
    cval(b, &vb, &lb);
    return la == lb && (va == vb || memcmp(va, vb, la) == 0);
}

/* A claim's value quoted for a message, shortened past QUOTE_MAX bytes. */
const char *
quoted(const prop_claim *c, char *buf, size_t n)
{
    const char *v;
    size_t len;

    if (c->flags & PROP_CLAIM_SECRET) {
        snprintf(buf, n, "(a secret value)");
        return buf;
    }
    cval(c, &v, &len);
    if (len > QUOTE_MAX)
        snprintf(buf, n, "\"%.*s...\"", QUOTE_MAX, v);
    else
        snprintf(buf, n, "\"%.*s\"", (int)len, v);
    return buf;
}

int
pp_same_str(const char *a, const char *b)
{
    return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

static int
same_claim(const prop_claim *a, const prop_claim *b)
{
    return a->kind == b->kind && a->id == b->id && pp_same_str(a->key, b->key) && same_value(a, b);
}

int
pp_shares_ports(const prop_node *a, const prop_node *b)
{
    return a->leaf->shares_ports && b->leaf->shares_ports &&
           pp_same_str(a->leaf->shares_ports, b->leaf->shares_ports);
}

/*
 * Two leaves that say the same thing: the same node, or the same kind,
 * description, type, claims, ports and info (two calls of one recipe with
 * the same arguments).  Such duplicates never conflict with each other.
 */
int
pp_same_leaf(const prop_node *a, const prop_node *b)
{
    unsigned i;

    if (a == b)
        return 1;
    if (a->kind != b->kind || a->targets != b->targets ||
        a->leaf->os_family != b->leaf->os_family || a->leaf->nclaims != b->leaf->nclaims ||
        a->nports != b->nports || a->leaf->ninfo != b->leaf->ninfo ||
        !pp_same_str(a->desc, b->desc))
        return 0;
    for (i = 0; i < a->leaf->nclaims; i++)
        if (!same_claim(&a->leaf->claims[i], &b->leaf->claims[i]))
            return 0;
    for (i = 0; i < a->nports; i++)
        if (a->ports[i] != b->ports[i])
            return 0;
    for (i = 0; i < a->leaf->ninfo; i++)
        if (!pp_same_str(a->leaf->info[i].key, b->leaf->info[i].key) ||
            !pp_same_str(a->leaf->info[i].value, b->leaf->info[i].value))
            return 0;
    if (a->leaf->nuses_services != b->leaf->nuses_services ||
        a->leaf->nuses_ports != b->leaf->nuses_ports)
        return 0;
    for (i = 0; i < a->leaf->nuses_services; i++)
        if (!pp_same_str(a->leaf->uses_services[i], b->leaf->uses_services[i]))
            return 0;
    for (i = 0; i < a->leaf->nuses_ports; i++)
        if (a->leaf->uses_ports[i] != b->leaf->uses_ports[i])
            return 0;
    return pp_same_str(a->leaf->shares_ports, b->leaf->shares_ports);
}

/* ---- per host: reporting a pair of leaves ---- */

/*
 * Notes naming the top-level properties that brought the two leaves onto
 * the host, when they are other nodes at other lines than the leaves.
 */
static int
note_tops(checker *k, diag_builder *b, const ent *first, const ent *second)
{
    const prop_node *t1 = prop_host_prop(k->h, first->top);
    const prop_node *t2 = prop_host_prop(k->h, second->top);
    int rc = PROP_OK;

    if (t1 != first->leaf && !pp_same_place(t1->origin, first->leaf->origin))
        rc = diag_note(b, t1->origin, "\"%s\" puts it on host \"%s\" here", t1->desc,
                       prop_host_fullname(k->h));
    if (rc == PROP_OK && t2 != second->leaf && t2 != t1 &&
        !pp_same_place(t2->origin, second->leaf->origin))
        rc = diag_note(b, t2->origin, "\"%s\" puts it on host \"%s\" here", t2->desc,
                       prop_host_fullname(k->h));
    return rc;
}

/*
 * Report msg at the leaf of rj with note at the leaf of ri, unless the
 * pair was reported already.  Returns 1 (a conflict, reported now or
 * before) or a negative code.  msg and note were made in the arena.
 */
int
report_pair(checker *k, const char *code, const ref *ri, const ref *rj, const char *msg,
            const char *note)
{
    return report_pair_hint(k, code, ri, rj, msg, note, NULL);
}

int
report_pair_hint(checker *k, const char *code, const ref *ri, const ref *rj, const char *msg,
                 const char *note, const char *hint)
{
    const ent *ei = &k->ents[ri->ent], *ej = &k->ents[rj->ent];
    diag_builder b;
    int rc;

    if (msg == NULL || note == NULL)
        return pp_nomem(k->s);
    rc = pp_pair_take(k->s, &k->pairs, ri->node, rj->node);
    if (rc <= 0)
        return rc < 0 ? rc : 1;
    rc = diag_begin(&b, k->s, code, PROP_SEV_ERROR, rj->node->origin, "%s", msg);
    if (rc == PROP_OK)
        rc = diag_note(&b, ri->node->origin, "%s", note);
    if (rc == PROP_OK)
        rc = note_tops(k, &b, ei, ej);
    if (rc == PROP_OK && hint != NULL)
        rc = diag_note(&b, rj->node->origin, "%s", hint);
    if (rc == PROP_OK)
        rc = diag_end(&b);
    return rc == PROP_OK ? 1 : rc;
}

/* The place of the earlier member ri, for messages ("site.lua:7"). */
#define AT pp_place(ri->node->origin, at, sizeof at)

/* ---- P008, P009, P010, P013: packages, services, accounts, hostname ---- */

static const char *
pkg_state(const prop_claim *c)
{
    return c->kind == PROP_CLAIM_PKG_INSTALLED ? "installed" : "removed";
}

static const char *
svc_state(const prop_claim *c)
{
    switch (c->kind) {
    case PROP_CLAIM_SVC_RUNNING:
        return "running";
    case PROP_CLAIM_SVC_STOPPED:
        return "stopped";
    default:
        return "restarted";
    }
}

/*
 * Service names that are aliases of another unit, as the distributions'
 * packages install them (an Alias= line or a symlink in the unit
 * directory): systemctl show -p Names lists both for one unit.  Only for
 * the families whose packages do so; prop-site(5) lists the table.
 */
static const struct {
    prop_os_set os;
    const char *alias, *unit;
} svc_aliases[] = {
    {PROP_OS_DEBIANLIKE, "sshd", "ssh"},
    {PROP_OS_DEBIANLIKE, "bind9", "named"},
    {PROP_OS_DEBIANLIKE, "chronyd", "chrony"},
    {PROP_OS_DEBIANLIKE, "redis", "redis-server"},
    {PROP_OS_DEBIANLIKE, "nfs-kernel-server", "nfs-server"},
    {PROP_OS_DEBIANLIKE, "portmap", "rpcbind"},
    {PROP_OS_DEBIANLIKE, "smb", "smbd"},
    {PROP_OS_DEBIANLIKE, "nmb", "nmbd"},
    {PROP_OS_DEBIANLIKE | PROP_OS_REDHATLIKE | PROP_OS_ARCH, "mysql", "mariadb"},
    {PROP_OS_DEBIANLIKE | PROP_OS_REDHATLIKE | PROP_OS_ARCH, "mysqld", "mariadb"},
    {PROP_OS_DEBIANLIKE | PROP_OS_REDHATLIKE, "syslog", "rsyslog"},
};

const char *
pp_service_unit(prop_os_set os, const char *name, size_t *len)
{
    size_t n = strlen(name), i;

    if (n > 8 && strcmp(name + n - 8, ".service") == 0)
        n -= 8;
    /* A host of no single family (none declared) gets no alias. */
    for (i = 0; os != PROP_OS_NONE && i < sizeof svc_aliases / sizeof svc_aliases[0]; i++)
        if ((os & ~svc_aliases[i].os) == 0 && strlen(svc_aliases[i].alias) == n &&
            strncmp(svc_aliases[i].alias, name, n) == 0) {
            *len = strlen(svc_aliases[i].unit);
            return svc_aliases[i].unit;
        }
    *len = n;
    return name;
}

/* " (NAME and UNIT are one unit: ...)" when two claims name one service
 * differently, else "". */
static const char *
svc_same_unit(checker *k, const prop_claim *x, const prop_claim *y, char *buf, size_t n)
{
    size_t lx;
    const char *ux;

    if (strcmp(x->key, y->key) == 0)
        return "";
    ux = pp_service_unit(k->os, x->key, &lx);
    (void)snprintf(buf, n, " (\"%s\" and \"%s\" are one unit on this system: %.*s.service)", y->key,
                   x->key, (int)lx, ux);
    return buf;
}

/* ---- P017: web sites ---- */

/*
 * Two properties whose sites answer one name on one port (web.name), or
 * are both the default site of one port (web.default): the server would
 * take one and drop the other with a warning in its log.
 */
static int
web_pair(checker *k, const group *g, const ref *ri, const ref *rj)
{
    const prop_claim *y = rj->c;
    char at[512];

    if (g->cls == CLS_WEB_DEF)
        return report_pair(
            k, "P017", ri, rj,
            FMT("two default web sites for port %s on host \"%s\": \"%s\" here "
                "and \"%s\" at %s: a server has one default site per port",
                y->key, prop_host_fullname(k->h), rj->node->desc, ri->node->desc, AT),
            FMT("\"%s\" is the default site of port %s here", ri->node->desc, y->key));
    {
        const char *colon = strrchr(y->key, ':');
        int nlen = colon ? (int)(colon - y->key) : (int)strlen(y->key);
        const char *port = colon ? colon + 1 : "?";

        return report_pair(
            k, "P017", ri, rj,
            FMT("two web sites answer %.*s on port %s on host \"%s\": \"%s\" "
                "here and \"%s\" at %s: the server would answer with one of "
                "them only",
                nlen, y->key, port, prop_host_fullname(k->h), rj->node->desc, ri->node->desc, AT),
            FMT("\"%s\" answers %.*s on port %s here", ri->node->desc, nlen, y->key, port));
    }
}

/* Compare two members of one group (ri before rj): 0, 1 or a negative code. */
static int
pair_conflict(checker *k, const group *g, const ref *ri, const ref *rj)
{
    const prop_claim *x = ri->c, *y = rj->c;
    char at[512], unit[600];

    switch (g->cls) {
    case CLS_FILE:
        return file_pair(k, ri, rj);
    case CLS_PKG:
        if (x->kind == y->kind)
            return 0;
        return report_pair(k, "P008", ri, rj,
                           FMT("package \"%s\" must be %s here but %s at %s", y->key, pkg_state(y),
                               pkg_state(x), AT),
                           FMT("\"%s\" %s it here", ri->node->desc,
                               x->kind == PROP_CLAIM_PKG_INSTALLED ? "installs" : "removes"));
    case CLS_SVC:
        if (!KINDS(x->kind, y->kind, PROP_CLAIM_SVC_RUNNING, PROP_CLAIM_SVC_STOPPED) &&
            !KINDS(x->kind, y->kind, PROP_CLAIM_SVC_RESTARTED, PROP_CLAIM_SVC_STOPPED))
            return 0;
        return report_pair(k, "P009", ri, rj,
                           FMT("service \"%s\" must be %s here but %s at %s%s", y->key,
                               svc_state(y), svc_state(x), AT,
                               svc_same_unit(k, x, y, unit, sizeof unit)),
                           FMT("\"%s\" wants it %s here", ri->node->desc, svc_state(x)));
    case CLS_USER:
        /* user and user.setting claims need the account; user.absent not. */
        if ((x->kind == PROP_CLAIM_USER_ABSENT) != (y->kind == PROP_CLAIM_USER_ABSENT))
            return report_pair(k, "P010", ri, rj,
                               FMT("user \"%s\" must %s here but %s at %s", y->key,
                                   y->kind != PROP_CLAIM_USER_ABSENT ? "exist" : "be absent",
                                   x->kind != PROP_CLAIM_USER_ABSENT ? "exist" : "be absent", AT),
                               FMT("\"%s\" declares it here", ri->node->desc));
        if (x->kind == PROP_CLAIM_USER_SETTING && y->kind == PROP_CLAIM_USER_SETTING) {
            if (settings_agree(x, y) != 0)
                return 0;
            return report_pair(k, "P010", ri, rj,
                               FMT("user \"%s\": %s", y->key, setting_clash(k, x, y, AT)),
                               FMT("\"%s\" declares it here", ri->node->desc));
        }
        if (x->kind != PROP_CLAIM_USER || y->kind != PROP_CLAIM_USER || x->id < 0 || y->id < 0 ||
            x->id == y->id)
            return 0;
        return report_pair(
            k, "P010", ri, rj,
            FMT("user \"%s\" must have uid %lld here but uid %lld at %s", y->key, y->id, x->id, AT),
            FMT("\"%s\" declares it here", ri->node->desc));
    case CLS_GROUP:
        if (x->id < 0 || y->id < 0 || x->id == y->id)
            return 0;
        return report_pair(k, "P010", ri, rj,
                           FMT("group \"%s\" must have gid %lld here but gid %lld at %s", y->key,
                               y->id, x->id, AT),
                           FMT("\"%s\" declares it here", ri->node->desc));
    case CLS_UID:
    case CLS_GID:
        if (pp_same_str(x->key, y->key))
            return 0;
        return report_pair(k, "P010", ri, rj,
                           FMT("%s %lld is given to %s \"%s\" here but to %s \"%s\" at %s: two "
                               "%s would share one identity",
                               g->cls == CLS_UID ? "uid" : "gid", y->id,
                               g->cls == CLS_UID ? "user" : "group", y->key,
                               g->cls == CLS_UID ? "user" : "group", x->key, AT,
                               g->cls == CLS_UID ? "accounts" : "groups"),
                           FMT("\"%s\" declares it here", ri->node->desc));
    case CLS_HOSTNAME:
        if (same_value(x, y))
            return 0;
        {
            char qx[QUOTE_MAX + 8], qy[QUOTE_MAX + 8];

            return report_pair(k, "P013", ri, rj,
                               FMT("host \"%s\" is given the hostname %s here but %s at %s: a "
                                   "machine has one hostname",
                                   prop_host_fullname(k->h), quoted(y, qy, sizeof qy),
                                   quoted(x, qx, sizeof qx), AT),
                               FMT("\"%s\" sets it here", ri->node->desc));
        }
    case CLS_PORT: {
        int port = (int)g->id;

        if (pp_same_leaf(ri->node, rj->node) || (ri->node->targets & rj->node->targets) == 0 ||
            pp_shares_ports(ri->node, rj->node))
            return 0;
        if (ri->node->leaf->publishes || rj->node->leaf->publishes) {
            const ref *pub = rj->node->leaf->publishes ? rj : ri, *other = pub == rj ? ri : rj;
            const prop_host *c = pub->node->leaf->container;

            return report_pair(
                k, "P014", ri, rj,
                other->node->leaf->publishes
                    ? FMT("port %d is published on host \"%s\" by container \"%s\" and by "
                          "container \"%s\": one port of a host takes one container",
                          port, prop_host_fullname(k->h),
                          c ? prop_host_fullname(c) : pub->node->desc,
                          other->node->leaf->container
                              ? prop_host_fullname(other->node->leaf->container)
                              : other->node->desc)
                    : FMT("port %d is published on host \"%s\" by container \"%s\" but \"%s\" "
                          "uses it on the host: the host cannot pass it to the container and "
                          "listen on it too",
                          port, prop_host_fullname(k->h),
                          c ? prop_host_fullname(c) : pub->node->desc, other->node->desc),
                FMT("\"%s\" takes port %d here", ri->node->desc, port));
        }
        return report_pair(k, "P006", ri, rj,
                           FMT("port %d is used by both \"%s\" and \"%s\" on host \"%s\": two "
                               "services cannot listen on one port",
                               port, rj->node->desc, ri->node->desc, prop_host_fullname(k->h)),
                           FMT("\"%s\" uses port %d here", ri->node->desc, port));
    }
    case CLS_WEB_NAME:
    case CLS_WEB_DEF:
        return web_pair(k, g, ri, rj);
    default:
        return 0;
    }
}

/*
 * Every group of class cls: each member is compared with those before it
 * (groups are small: one path, one package); the first conflict found for
 * a member ends its search, so one mistake does not fan out.
 */
static int
check_groups(checker *k, unsigned cls)
{
    size_t gi;

    for (gi = 0; gi < k->host.ngroups; gi++) {
        const group *g = &k->host.groups[gi];
        int j;

        if (g->cls != cls || g->first < 0)
            continue;
        for (j = k->host.refs[g->first].next; j >= 0; j = k->host.refs[j].next) {
            const ref *rj = &k->host.refs[j];
            int i;

            for (i = g->first; i != j; i = k->host.refs[i].next) {
                const ref *ri = &k->host.refs[i];
                int rc;

                if (ri->node == rj->node || pp_same_leaf(ri->node, rj->node))
                    continue;
                rc = pair_conflict(k, g, ri, rj);
                if (rc < 0)
                    return rc;
                if (rc > 0)
                    break;
            }
        }
        if (cls == CLS_FILE && g->len > 1) {
            int rc = file_below_absent(k, g);

            if (rc >= 0)
                rc = file_below_owned(k, g);
            if (rc < 0)
                return rc;
        }
        if (cls == CLS_FILE) {
            int rc = file_fragment_owner(k, g);

            if (rc < 0)
                return rc;
        }
    }
    return PROP_OK;
}

/* Group every claim and port of the host's effective leaves. */
static int
collect(checker *k)
{
    prop_os_set os = k->os;
    size_t e, gi;
    unsigned i;

    for (e = 0; e < k->nents; e++) {
        const prop_node *l = k->ents[e].leaf;

        for (i = 0; i < l->leaf->nclaims; i++) {
            const prop_claim *c = &l->leaf->claims[i];
            unsigned cls = 0, idcls = 0;

            switch (c->kind) {
            case PROP_CLAIM_PKG_INSTALLED:
            case PROP_CLAIM_PKG_REMOVED:
                cls = CLS_PKG;
                break;
            case PROP_CLAIM_SVC_RUNNING:
            case PROP_CLAIM_SVC_STOPPED:
            case PROP_CLAIM_SVC_RESTARTED:
                cls = CLS_SVC;
                break;
            case PROP_CLAIM_USER:
                idcls = c->id >= 0 ? CLS_UID : 0;
                /* fall through */
            case PROP_CLAIM_USER_ABSENT:
            case PROP_CLAIM_USER_SETTING:
                cls = CLS_USER;
                break;
            case PROP_CLAIM_GROUP:
                cls = CLS_GROUP;
                idcls = c->id >= 0 ? CLS_GID : 0;
                break;
            case PROP_CLAIM_HOSTNAME:
                cls = CLS_HOSTNAME;
                break;
            case PROP_CLAIM_WEB_NAME:
                cls = CLS_WEB_NAME;
                break;
            case PROP_CLAIM_WEB_DEFAULT:
                cls = CLS_WEB_DEF;
                break;
            case PROP_CLAIM__COUNT:
                continue;
            default:
                cls = CLS_FILE;
                break;
            }
            if (cls == CLS_SVC) {
                size_t len;
                const char *unit = pp_service_unit(os, c->key, &len);

                if (pp_table_group(k->s, &k->host, cls, unit, len, 0, &gi) != PROP_OK)
                    return PROP_ENOMEM;
            } else if (pp_table_group(k->s, &k->host, cls, c->key, strlen(c->key), 0, &gi) !=
                       PROP_OK)
                return PROP_ENOMEM;
            if (pp_table_add(k->s, &k->host, gi, c, l, k->h, (unsigned)e) != PROP_OK)
                return PROP_ENOMEM;
            if (idcls != 0 &&
                (pp_table_group(k->s, &k->host, idcls, NULL, 0, c->id, &gi) != PROP_OK ||
                 pp_table_add(k->s, &k->host, gi, c, l, k->h, (unsigned)e) != PROP_OK))
                return PROP_ENOMEM;
        }
        for (i = 0; i < l->nports; i++) {
            if (pp_table_group(k->s, &k->host, CLS_PORT, NULL, 0, l->ports[i], &gi) != PROP_OK ||
                pp_table_add(k->s, &k->host, gi, NULL, l, k->h, (unsigned)e) != PROP_OK)
                return PROP_ENOMEM;
        }
    }
    return PROP_OK;
}

/* Group every claim and port of the host's effective leaves, then compare. */
int
pp_check_claims(checker *k)
{
    /* Hostnames first: hostname.set also claims /etc/hostname, and that
     * pair is better reported as two hostnames than as two contents. */
    /* Web sites after ports: an nginx and an Apache site on one port are
     * two servers on it (P006) before they are two sites of one name. */
    static const unsigned order[] = {CLS_HOSTNAME, CLS_UID,      CLS_GID,    CLS_USER,
                                     CLS_GROUP,    CLS_PKG,      CLS_SVC,    CLS_FILE,
                                     CLS_PORT,     CLS_WEB_NAME, CLS_WEB_DEF};
    size_t i;
    int rc;

    if ((rc = collect(k)) != PROP_OK)
        return rc;
    for (i = 0; i < sizeof order / sizeof order[0]; i++)
        if ((rc = check_groups(k, order[i])) != PROP_OK)
            return rc;
    return PROP_OK;
}
