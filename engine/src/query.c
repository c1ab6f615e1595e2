/*
 * query.c - "what manages this?": the claims, ports and info of a site
 * that match a thing (a path, package:NAME, service:NAME, user:NAME,
 * group:NAME, port:N), each with its host, its leaf and the composites
 * above it (prop claims, the REPL's :claims).  Web sites are found by
 * their web.name claims ("NAME:PORT"): by the name alone, by the key
 * whole, and, with web.default claims, by port:N or N.
 *
 * The walk follows what takes effect on each host, as the executor and
 * the pre-pass do (a revert its reverted form, a pick_os the alternative
 * for the host's OS), and enters a node at most once per top-level
 * property, so that a graph sharing subtrees is walked in linear time.
 *
 * Ownership: the stack, the chain and the visit marks are malloc'd here
 * and freed before prop_site_find_claims() returns, on every path (the
 * visitor must not raise past it: a Lua caller collects matches and
 * pushes them after the walk).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "array.h"
#include "internal.h"

typedef enum thing_class {
    THING_ANY,     /* a bare word: any key equal to it, a port/uid/gid number */
    THING_PATH,    /* "/..." */
    THING_PACKAGE, /* package:NAME */
    THING_SERVICE, /* service:NAME */
    THING_USER,    /* user:NAME or user:UID */
    THING_GROUP,   /* group:NAME or group:GID */
    THING_PORT     /* port:N */
} thing_class;

typedef struct query {
    thing_class cls;
    const char *name; /* what follows the prefix; a path without trailing '/' */
    size_t len;
    long long num; /* name as a number, or -1 */
    prop_claim_visit visit;
    void *ud;
    prop_claim_match m;
} query;

static const struct {
    const char *prefix;
    thing_class cls;
} prefixes[] = {
    {"package:", THING_PACKAGE}, {"service:", THING_SERVICE}, {"user:", THING_USER},
    {"group:", THING_GROUP},     {"port:", THING_PORT},
};

static long long
as_number(const char *s, size_t len)
{
    long long v = 0;
    size_t i;

    if (len == 0 || len > 18)
        return -1;
    for (i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

static int
is_file_kind(prop_claim_kind k)
{
    switch (k) {
    case PROP_CLAIM_FILE_CONTENT:
    case PROP_CLAIM_FILE_GENERATED:
    case PROP_CLAIM_FILE_ABSENT:
    case PROP_CLAIM_FILE_DIRECTORY:
    case PROP_CLAIM_FILE_SYMLINK:
    case PROP_CLAIM_FILE_MODE:
    case PROP_CLAIM_FILE_OWNER:
    case PROP_CLAIM_FILE_LINE:
    case PROP_CLAIM_FILE_NO_LINE:
    case PROP_CLAIM_FILE_OWNED:
    case PROP_CLAIM_FILE_SETTING:
    case PROP_CLAIM_FILE_PURGED:
    case PROP_CLAIM_FILE_FRAGMENT:
    case PROP_CLAIM_FILE_FRAGMENTS:
        return 1;
    default:
        return 0;
    }
}

static int
same_name(const query *q, const char *key)
{
    return strlen(key) == q->len && memcmp(key, q->name, q->len) == 0;
}

/* A web claim about port q->num: web.name "NAME:PORT", web.default "PORT". */
static int
web_port_matches(const query *q, const prop_claim *c)
{
    const char *colon;

    if (q->num <= 0)
        return 0;
    if (c->kind == PROP_CLAIM_WEB_DEFAULT)
        return as_number(c->key, strlen(c->key)) == q->num;
    if (c->kind != PROP_CLAIM_WEB_NAME || !(colon = strrchr(c->key, ':')))
        return 0;
    return as_number(colon + 1, strlen(colon + 1)) == q->num;
}

/* A web.name claim of the name q->name, on any port ("www.example.com"
 * finds "www.example.com:80" and ":443"); names are compared without case,
 * as the claims' keys are lower-cased. */
static int
web_name_matches(const query *q, const prop_claim *c)
{
    const char *colon;

    if (c->kind != PROP_CLAIM_WEB_NAME || !(colon = strrchr(c->key, ':')) ||
        (size_t)(colon - c->key) != q->len)
        return 0;
    for (size_t i = 0; i < q->len; i++) {
        char a = c->key[i], b = q->name[i];

        if (b >= 'A' && b <= 'Z')
            b = (char)(b - 'A' + 'a');
        if (a != b)
            return 0;
    }
    return 1;
}

/* The path itself, or (for a directory) a path below it. */
static int
path_matches(const query *q, const char *key)
{
    if (same_name(q, key))
        return 1;
    return strncmp(key, q->name, q->len) == 0 && (q->len == 1 || key[q->len] == '/');
}

static int
claim_matches(const query *q, const prop_claim *c)
{
    switch (q->cls) {
    case THING_PATH:
        return is_file_kind(c->kind) && path_matches(q, c->key);
    case THING_PACKAGE:
        return (c->kind == PROP_CLAIM_PKG_INSTALLED || c->kind == PROP_CLAIM_PKG_REMOVED) &&
               same_name(q, c->key);
    case THING_SERVICE:
        return (c->kind == PROP_CLAIM_SVC_RUNNING || c->kind == PROP_CLAIM_SVC_STOPPED ||
                c->kind == PROP_CLAIM_SVC_RESTARTED) &&
               same_name(q, c->key);
    case THING_USER:
        return ((c->kind == PROP_CLAIM_USER || c->kind == PROP_CLAIM_USER_ABSENT ||
                 c->kind == PROP_CLAIM_USER_SETTING) &&
                same_name(q, c->key)) ||
               (c->kind == PROP_CLAIM_USER && q->num >= 0 && c->id == q->num);
    case THING_GROUP:
        return (c->kind == PROP_CLAIM_GROUP && same_name(q, c->key)) ||
               (c->kind == PROP_CLAIM_GROUP && q->num >= 0 && c->id == q->num);
    case THING_PORT:
        return web_port_matches(q, c);
    case THING_ANY:
        return same_name(q, c->key) || web_name_matches(q, c) || web_port_matches(q, c) ||
               (q->num >= 0 && c->id == q->num &&
                (c->kind == PROP_CLAIM_USER || c->kind == PROP_CLAIM_GROUP));
    }
    return 0;
}

/* Every match of one leaf; a non-zero return of the visitor is returned. */
static int
visit_leaf(query *q, const prop_node *leaf)
{
    unsigned i;
    int rc;

    q->m.leaf = leaf;
    q->m.port = 0;
    q->m.info = NULL;
    for (i = 0; i < leaf->leaf->nclaims; i++) {
        const prop_claim *c = &leaf->leaf->claims[i];

        if (!claim_matches(q, c))
            continue;
        q->m.claim = c;
        if ((rc = q->visit(q->ud, &q->m)) != 0)
            return rc;
    }
    q->m.claim = NULL;
    if ((q->cls == THING_PORT || q->cls == THING_ANY) && q->num > 0 && q->num <= 65535) {
        /* A leaf's own ports (a composite's are the union of its leaves'). */
        for (i = 0; i < leaf->nports; i++) {
            if (leaf->ports[i] != q->num)
                continue;
            q->m.port = leaf->ports[i];
            if ((rc = q->visit(q->ud, &q->m)) != 0)
                return rc;
        }
        q->m.port = 0;
    }
    if (q->cls == THING_ANY) {
        for (i = 0; i < leaf->leaf->ninfo; i++) {
            const prop_info *in = &leaf->leaf->info[i];

            if (!same_name(q, in->value))
                continue;
            q->m.info = in;
            if ((rc = q->visit(q->ud, &q->m)) != 0)
                return rc;
        }
        q->m.info = NULL;
    }
    return 0;
}

typedef struct walk_item {
    const prop_node *n;
    size_t depth;
} walk_item;

typedef struct walker {
    walk_item *stack;
    size_t sp, cap;
    const prop_node **chain;
    size_t chaincap;
    unsigned *mark; /* per node id: the round it was entered in */
    unsigned round;
} walker;

static int
push(walker *w, const prop_node *n, size_t depth)
{
    if (prop_array_reserve(w->stack, w->cap, w->sp, 1, 64) != 0)
        return PROP_ENOMEM;
    w->stack[w->sp].n = n;
    w->stack[w->sp].depth = depth;
    w->sp++;
    return PROP_OK;
}

/* The matches under top, a top-level property of q->m.host. */
static int
walk_top(query *q, walker *w, const prop_node *top, prop_os_set os)
{
    int rc = PROP_OK;

    w->sp = 0;
    w->round++;
    if ((rc = push(w, top, 0)) != PROP_OK)
        return rc;
    while (w->sp > 0 && rc == PROP_OK) {
        walk_item it = w->stack[--w->sp];
        const prop_node *c = it.n;
        size_t i;

        if (w->mark[c->id] == w->round)
            continue;
        w->mark[c->id] = w->round;
        if (prop_array_reserve(w->chain, w->chaincap, it.depth, 1, 64) != 0)
            return PROP_ENOMEM;
        w->chain[it.depth] = c;
        switch (c->kind) {
        case PROP_LEAF:
        case PROP_INFO:
            q->m.chain = w->chain;
            q->m.nchain = it.depth;
            rc = visit_leaf(q, c);
            break;
        case PROP_INVALID:
            break;
        case PROP_REQUIRES: /* b, then a */
            if ((rc = push(w, node_children(c)[0], it.depth + 1)) == PROP_OK)
                rc = push(w, node_children(c)[1], it.depth + 1);
            break;
        case PROP_BEFORE:
        case PROP_ON_CHANGE:
        case PROP_FALLBACK:
            if ((rc = push(w, node_children(c)[1], it.depth + 1)) == PROP_OK)
                rc = push(w, node_children(c)[0], it.depth + 1);
            break;
        case PROP_PROPS:
            for (i = c->nchildren; i-- > 0 && rc == PROP_OK;)
                rc = push(w, node_children(c)[i], it.depth + 1);
            break;
        case PROP_PICK_OS:
            for (i = c->nchildren; i-- > 0 && rc == PROP_OK;)
                if (os == PROP_OS_NONE || (node_children(c)[i]->targets & os)) {
                    rc = push(w, node_children(c)[i], it.depth + 1);
                    if (os != PROP_OS_NONE)
                        break;
                }
            break;
        case PROP_DESCRIBE:
        case PROP_REVERTABLE:
        case PROP_ONLY_IF:
            rc = push(w, node_children(c)[0], it.depth + 1);
            break;
        case PROP_REVERT:
            if (c->rev)
                rc = push(w, c->rev, it.depth + 1);
            break;
        }
    }
    return rc;
}

/* The walk of prop_site_find_claims, over every host or only over host only. */
static int
find_claims(const prop_site *s, const prop_host *only, const char *thing, prop_claim_visit visit,
            void *ud)
{
    query q;
    walker w;
    size_t i, j, n;
    int rc = PROP_OK;

    if (!s || !thing || !visit || *thing == '\0')
        return PROP_EINVAL;
    memset(&q, 0, sizeof q);
    memset(&w, 0, sizeof w);
    q.cls = THING_ANY;
    q.name = thing;
    for (i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        size_t pl = strlen(prefixes[i].prefix);

        if (strncmp(thing, prefixes[i].prefix, pl) == 0) {
            q.cls = prefixes[i].cls;
            q.name = thing + pl;
            break;
        }
    }
    if (thing[0] == '/')
        q.cls = THING_PATH;
    q.len = strlen(q.name);
    if (q.cls == THING_PATH)
        while (q.len > 1 && q.name[q.len - 1] == '/')
            q.len--;
    if (q.len == 0)
        return PROP_EINVAL;
    q.num = as_number(q.name, q.len);
    if (q.cls == THING_PORT && (q.num < 1 || q.num > 65535))
        return PROP_EINVAL;
    q.visit = visit;
    q.ud = ud;
    n = s->next_id;
    if (n > 0 && !(w.mark = prop_calloc(n, sizeof *w.mark)))
        return PROP_ENOMEM;
    for (i = 0; i < s->hosts.n && rc == PROP_OK; i++) {
        const prop_host *h = s->hosts.v[i];
        prop_os_set os = prop_host_os(h);

        if (only != NULL && h != only)
            continue;

        /* A container that the pre-pass found named only by leaves that
         * remove it (a reverted systemd.nspawned, say) is put on no host:
         * its properties claim nothing. */
        if (h->kind != PROP_CONTAINER_NONE && h->named && h->parent == NULL)
            continue;
        q.m.host = h;
        for (j = 0; j < h->props.n && rc == PROP_OK; j++) {
            q.m.top = h->props.v[j];
            rc = walk_top(&q, &w, h->props.v[j], os);
        }
    }
    free(w.stack);
    free((void *)w.chain);
    free(w.mark);
    return rc;
}

int
prop_site_find_claims(const prop_site *s, const char *thing, prop_claim_visit visit, void *ud)
{
    return find_claims(s, NULL, thing, visit, ud);
}

int
prop_host_find_claims(const prop_site *s, const prop_host *h, const char *thing,
                      prop_claim_visit visit, void *ud)
{
    if (!h)
        return PROP_EINVAL;
    return find_claims(s, h, thing, visit, ud);
}
