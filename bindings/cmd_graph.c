/*
 * cmd_graph.c - prop graph SITE [HOST...]: the combinator graph of a host
 * as Graphviz dot, for `dot -Tsvg`.
 *
 * One cluster per host, and inside it one per container of the host,
 * with an edge from the property that puts the container there to the
 * container's cluster.  Inside a host a node reached twice (a property
 * shared by two combinators) is drawn once, with two edges into it, so
 * the picture is the graph the engine holds, not the tree `prop show`
 * unfolds.  Leaves are boxes, facts are notes, combinators are ellipses;
 * every edge names the combinator and the part's role in it.
 *
 * The walk is breadth-first over a queue (a site can chain thousands of
 * `requires`, too deep to recurse); the pointer -> id map and the queue
 * are malloc'd and freed before return.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "cli.h"

/* A map from node to its dot id (open addressing), and the queue of nodes
 * to draw in the order they were first reached. */
typedef struct graph_walk {
    const prop_node **keys;
    size_t *ids;
    size_t cap, used;
    const prop_node **queue;
    size_t nqueue, queuecap;
    size_t next_id;
} graph_walk;

static void
walk_free(graph_walk *w)
{
    free(w->keys);
    free(w->ids);
    free(w->queue);
    memset(w, 0, sizeof *w);
}

static size_t
hash_ptr(const prop_node *n, size_t cap)
{
    uintptr_t v = (uintptr_t)n;

    v ^= v >> 17;
    v *= (uintptr_t)0x9e3779b97f4a7c15ULL;
    return (size_t)(v >> 7) & (cap - 1);
}

static int
map_grow(graph_walk *w)
{
    size_t ncap = w->cap ? w->cap * 2 : 256, i, j;
    const prop_node **keys = calloc(ncap, sizeof *keys);
    size_t *ids = calloc(ncap, sizeof *ids);

    if (keys == NULL || ids == NULL) {
        free(keys);
        free(ids);
        return -1;
    }
    for (i = 0; i < w->cap; i++) {
        if (w->keys[i] == NULL)
            continue;
        for (j = hash_ptr(w->keys[i], ncap); keys[j]; j = (j + 1) & (ncap - 1))
            ;
        keys[j] = w->keys[i];
        ids[j] = w->ids[i];
    }
    free(w->keys);
    free(w->ids);
    w->keys = keys;
    w->ids = ids;
    w->cap = ncap;
    return 0;
}

static int
queue_push(graph_walk *w, const prop_node *n)
{
    if (prop_array_reserve(w->queue, w->queuecap, w->nqueue, 1, 64) != 0)
        return -1;
    w->queue[w->nqueue++] = n;
    return 0;
}

/*
 * The id of n; a node seen for the first time gets a new id and is pushed
 * to be drawn.  0 on success, -1 when out of memory.
 */
static int
node_id(graph_walk *w, const prop_node *n, size_t *id)
{
    size_t j;

    if (w->cap == 0 || (w->used + 1) * 4 > w->cap * 3) {
        if (map_grow(w) != 0)
            return -1;
    }
    for (j = hash_ptr(n, w->cap); w->keys[j]; j = (j + 1) & (w->cap - 1)) {
        if (w->keys[j] == n) {
            *id = w->ids[j];
            return 0;
        }
    }
    if (queue_push(w, n) != 0)
        return -1;
    w->keys[j] = n;
    w->ids[j] = *id = w->next_id++;
    w->used++;
    return 0;
}

/* Write s inside a dot double-quoted string: quotes and backslashes
 * escaped, a newline as dot's centred line break. */
static void
put_escaped(FILE *f, const char *s)
{
    while (*s) {
        unsigned char c = (unsigned char)*s;
        size_t n = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;

        if (c == '"' || c == '\\')
            fputc('\\', f);
        if (c == '\n') {
            fputs("\\n", f);
        } else if (c < ' ' || c == 0x7f) {
            fputc(' ', f);
        } else if (c >= 0x80) {
            /* Valid UTF-8 goes as it is, a C1 control or a stray byte as
             * "?": Graphviz wants UTF-8, and labels are shown. */
            if (strnlen(s, n) == n && prop_text_clean(s, n)) {
                fwrite(s, 1, n, f);
                s += n;
                continue;
            }
            fputc('?', f);
        } else {
            fputc(c, f);
        }
        s++;
    }
}

static void
put_origin(FILE *f, const prop_origin *o)
{
    if (o && o->nframes > 0) {
        put_escaped(f, o->frames[0].file);
        fprintf(f, ":%d", o->frames[0].line);
    } else {
        fputc('?', f);
    }
}

/* A recipe's pair (apt installed with apt removed) is drawn as one leaf. */
static int
drawn_as_leaf(const prop_node *n)
{
    prop_kind k = prop_node_kind(n);

    return k == PROP_LEAF || k == PROP_INFO || k == PROP_INVALID || prop_node_paired(n);
}

/* The claims of a leaf drawn as one (a pair: its first side's), one
 * "kind key value" line each, at most MAX_CLAIM_LINES. */
#define MAX_CLAIM_LINES 8
static void
put_claims(FILE *f, const prop_node *n)
{
    size_t i, nc, shown = 0;

    if (prop_node_paired(n))
        n = prop_node_child(n, 0);
    nc = prop_node_nclaims(n);
    for (i = 0; i < nc && shown < MAX_CLAIM_LINES; i++, shown++) {
        const prop_claim *c = prop_node_claim(n, i);
        size_t len = c->value ? (c->value_len ? c->value_len : strlen(c->value)) : 0;

        fputs("\\n", f);
        put_escaped(f, prop_claim_kind_name(c->kind));
        fputc(' ', f);
        put_escaped(f, c->key);
        if (c->flags & PROP_CLAIM_SECRET) {
            fputs(" (secret)", f);
        } else if (c->value && len <= 60 && memchr(c->value, '\n', len) == NULL) {
            fputs(" \\\"", f);
            put_escaped(f, c->value);
            fputs("\\\"", f);
        } else if (c->value) {
            fprintf(f, " (%zu bytes)", len);
        } else if (c->id >= 0) {
            fprintf(f, " (id %lld)", c->id);
        }
    }
    if (nc > shown)
        fprintf(f, "\\n... %zu more claims", nc - shown);
}

static void
put_node(FILE *f, const char *prefix, size_t id, const prop_node *n)
{
    char type[256];
    prop_kind k = prop_node_kind(n);

    fprintf(f, "    %s%zu [label=\"", prefix, id);
    if (!drawn_as_leaf(n))
        fprintf(f, "[%s]\\n", prop_kind_name(k));
    put_escaped(f, prop_node_desc(n));
    fputs("\\n", f);
    put_escaped(f, prop_node_type(n, type, sizeof type));
    fputs("\\n", f);
    put_origin(f, prop_node_origin(n));
    if (drawn_as_leaf(n))
        put_claims(f, n);
    fputc('"', f);
    if (k == PROP_INFO)
        fputs(", shape=note, fillcolor=\"#eeeeee\"", f);
    else if (k == PROP_INVALID)
        fputs(", color=\"#cc0000\", fontcolor=\"#cc0000\"", f);
    else if (!drawn_as_leaf(n))
        fputs(", shape=ellipse, fillcolor=\"#fff3cf\"", f);
    fputs("];\n", f);
}

static void
put_edge(FILE *f, const char *prefix, size_t from, size_t to, const char *label, const char *style)
{
    fprintf(f, "    %s%zu -> %s%zu [label=\"", prefix, from, prefix, to);
    put_escaped(f, label);
    fputc('"', f);
    if (style)
        fprintf(f, ", %s", style);
    fputs("];\n", f);
}

/* The label of the edge to child i of n ("requires: first", "props #2"). */
static const char *
edge_label(const prop_node *n, size_t i, char *buf, size_t size)
{
    /* Children a, b in the order the engine keeps them; requires(a, b)
     * runs b first. */
    static const char *const roles[][2] = {
        [PROP_REQUIRES] = {"requires: then", "requires: first"},
        [PROP_BEFORE] = {"before: first", "before: then"},
        [PROP_ON_CHANGE] = {"on_change: first", "on_change: if changed"},
        [PROP_FALLBACK] = {"fallback: first", "fallback: if it failed"},
        [PROP_REVERTABLE] = {"revertable: normally", "revertable: reverted"},
    };
    char os[64];
    prop_kind k = prop_node_kind(n);

    switch (k) {
    case PROP_REQUIRES:
    case PROP_BEFORE:
    case PROP_ON_CHANGE:
    case PROP_FALLBACK:
    case PROP_REVERTABLE:
        return roles[k][i == 0 ? 0 : 1];
    case PROP_PICK_OS:
        snprintf(buf, size, "pick_os: if %s",
                 prop_os_set_name(prop_node_targets(prop_node_child(n, i)), os, sizeof os));
        return buf;
    case PROP_PROPS:
        snprintf(buf, size, "props #%zu", i + 1);
        return buf;
    case PROP_REVERT:
        return "revert: of";
    case PROP_DESCRIBE:
        return "describe";
    default:
        return "";
    }
}

/* The container a node drawn as a leaf puts on its host or removes from
 * it (a recipe's pair: its first side's), NULL for any other node. */
static const prop_host *
node_container(const prop_node *n)
{
    if (prop_node_paired(n))
        n = prop_node_child(n, 0);
    return prop_node_container(n);
}

/* One host or container being drawn: its cluster is open while the
 * clusters of its containers are drawn inside it. */
typedef struct graph_level {
    const prop_host *h;
    size_t cluster;       /* its number: cluster_N, nodes hN_ */
    size_t next;          /* the next of its containers to draw */
    const prop_host **cs; /* the containers its nodes put on it or remove, */
    size_t *cids;         /* and the id of the node that does */
    size_t ncs;
    /* The node of the level below that puts it there (an edge drawn once
     * its cluster is closed, so that the node stays outside it). */
    size_t by_cluster, by_id;
    int by;
} graph_level;

/* What the whole drawing shares: the clusters so far, and every container
 * some drawn node puts on its host or removes (those left are on no host). */
typedef struct graph_ctx {
    FILE *f;
    size_t nclusters;
    const prop_host **seen;
    size_t nseen, seencap;
    graph_level *levels;
    size_t nlevels, levelcap;
} graph_ctx;

static int
seen_add(graph_ctx *g, const prop_host *c)
{
    if (prop_array_reserve(g->seen, g->seencap, g->nseen, 1, 16) != 0)
        return -1;
    g->seen[g->nseen++] = c;
    return 0;
}

static int
seen_has(const graph_ctx *g, const prop_host *c)
{
    size_t i;

    for (i = 0; i < g->nseen; i++)
        if (g->seen[i] == c)
            return 1;
    return 0;
}

static void
level_free(graph_level *l)
{
    free(l->cs);
    free(l->cids);
    l->cs = NULL;
    l->cids = NULL;
    l->ncs = 0;
}

static void
indent(FILE *f, size_t depth)
{
    size_t i;

    for (i = 0; i < depth; i++)
        fputs("  ", f);
}

/*
 * Open the cluster of h (a host, or a container nested in the level
 * below) and draw the graph under its properties: each node once, then
 * its edges.  The prefix hN_ keeps the ids of two clusters apart.  Fills
 * in l; 0 or -1 (out of memory).
 */
static int
open_host(graph_ctx *g, const prop_host *h, const char *extra, graph_level *l)
{
    FILE *f = g->f;
    graph_walk w;
    char prefix[32], label[96], os[64];
    size_t i, c, id, from, depth = g->nlevels + 1;
    const prop_node *n, *r;
    const prop_host *ct;
    prop_os_set hos = prop_host_os(h);
    prop_container_kind kind = prop_host_container_kind(h);
    static const char *const kinds[] = {"host", "chroot", "nspawn", "docker", "jail"};
    int rc = -1;

    memset(&w, 0, sizeof w);
    memset(l, 0, sizeof *l);
    l->h = h;
    l->cluster = g->nclusters++;
    w.next_id = 1;
    snprintf(prefix, sizeof prefix, "h%zu_", l->cluster);
    indent(f, depth);
    fprintf(f, "subgraph cluster_%zu {\n    label=\"%s ", l->cluster,
            kind == PROP_CONTAINER_NONE ? "host" : "container");
    /* A container inside its parent's cluster goes by its own name. */
    put_escaped(f, g->nlevels > 0 ? prop_host_name(h) : prop_host_fullname(h));
    if (kind != PROP_CONTAINER_NONE)
        fprintf(f, " (%s%s)", kinds[kind], extra ? extra : "");
    fprintf(f, " : %s  (", hos ? prop_os_set_name(hos, os, sizeof os) : "no OS declared");
    put_origin(f, prop_host_origin(h));
    fputs(")\";\n", f);
    if (kind != PROP_CONTAINER_NONE)
        fputs("    style=\"rounded,dashed\";\n", f);
    fprintf(f, "    %s0 [label=\"", prefix);
    put_escaped(f, g->nlevels > 0 ? prop_host_name(h) : prop_host_fullname(h));
    fputs("\", shape=house, fillcolor=\"#d7e6f7\"];\n", f);
    /* Out-edges are written last part first: with rankdir=LR and
     * ordering=out, dot then draws the first part at the top. */
    for (i = prop_host_nprops(h); i-- > 0;) {
        if (node_id(&w, prop_host_prop(h, i), &id) != 0)
            goto done;
        snprintf(label, sizeof label, "#%zu", i + 1);
        put_edge(f, prefix, 0, id, label, NULL);
    }
    /* The queue grows while it is read: each node's parts join its end. */
    for (i = 0; i < w.nqueue; i++) {
        n = w.queue[i];
        if (node_id(&w, n, &from) != 0)
            goto done;
        put_node(f, prefix, from, n);
        if (drawn_as_leaf(n)) {
            ct = node_container(n);
            if (ct == NULL)
                continue;
            if (seen_add(g, ct) != 0)
                goto done;
            if (prop_host_parent(ct) != h)
                continue;
            {
                const prop_host **cs = realloc(l->cs, (l->ncs + 1) * sizeof *cs);
                size_t *cids;

                if (cs == NULL)
                    goto done;
                l->cs = cs;
                cids = realloc(l->cids, (l->ncs + 1) * sizeof *cids);
                if (cids == NULL)
                    goto done;
                l->cids = cids;
            }
            l->cs[l->ncs] = ct;
            l->cids[l->ncs++] = from;
            continue;
        }
        r = prop_node_kind(n) == PROP_REVERT ? prop_node_reverted(n) : NULL;
        if (r) {
            if (node_id(&w, r, &id) != 0)
                goto done;
            put_edge(f, prefix, from, id, "revert: runs", "color=\"#aa3300\"");
        }
        for (c = prop_node_nchildren(n); c-- > 0;) {
            if (node_id(&w, prop_node_child(n, c), &id) != 0)
                goto done;
            put_edge(f, prefix, from, id, edge_label(n, c, label, sizeof label),
                     prop_node_kind(n) == PROP_REVERT ? "style=dashed, color=\"#888888\"" : NULL);
        }
    }
    rc = 0;
done:
    walk_free(&w);
    if (rc != 0)
        level_free(l);
    return rc;
}

/*
 * Draw h and, nested in its cluster, each of its containers (and theirs),
 * with an edge from the property that puts a container on its host to
 * the container's cluster.  The nesting is kept on a stack, not in C's:
 * a site can nest containers deeply.  0 or -1 (out of memory).
 */
static int
put_host(graph_ctx *g, const prop_host *h, const char *extra)
{
    graph_level *l, *top;
    const prop_host *c;
    size_t i;
    int rc = 0;

    g->nlevels = 0;
    if (g->levelcap == 0) {
        g->levels = malloc(8 * sizeof *g->levels);
        if (g->levels == NULL)
            return -1;
        g->levelcap = 8;
    }
    if (open_host(g, h, extra, &g->levels[0]) != 0)
        return -1;
    g->nlevels = 1;
    while (g->nlevels > 0 && rc == 0) {
        top = &g->levels[g->nlevels - 1];
        if (top->next == prop_host_ncontainers(top->h)) {
            indent(g->f, g->nlevels);
            fputs("}\n", g->f);
            /* The property that puts it there, to the container's cluster. */
            if (top->by)
                fprintf(g->f,
                        "    h%zu_%zu -> h%zu_0 [lhead=cluster_%zu, label=\"container\", "
                        "style=dashed, color=\"#3366aa\"];\n",
                        top->by_cluster, top->by_id, top->cluster, top->cluster);
            level_free(top);
            g->nlevels--;
            continue;
        }
        c = prop_host_container(top->h, top->next++);
        if (g->nlevels == g->levelcap) {
            if (prop_array_reserve(g->levels, g->levelcap, g->nlevels, 1, 1) != 0) {
                rc = -1;
                break;
            }
            top = &g->levels[g->nlevels - 1];
        }
        l = &g->levels[g->nlevels];
        if (open_host(g, c, NULL, l) != 0) {
            rc = -1;
            break;
        }
        g->nlevels++;
        for (i = 0; i < top->ncs; i++) {
            if (top->cs[i] == c) {
                l->by = 1;
                l->by_cluster = top->cluster;
                l->by_id = top->cids[i];
                break;
            }
        }
    }
    while (g->nlevels > 0)
        level_free(&g->levels[--g->nlevels]);
    return rc;
}

static void
put_header(FILE *f, const char *site)
{
    fputs("digraph prop {\n  label=\"", f);
    put_escaped(f, site);
    fputs(
        "\";\n  labelloc=t;\n  rankdir=LR;\n  compound=true;\n"
        "  graph [fontname=\"Helvetica\", fontsize=11, nodesep=0.25, ranksep=0.45, ordering=out];\n"
        "  node [fontname=\"Helvetica\", fontsize=10, shape=box, "
        "style=\"rounded,filled\", fillcolor=\"#ffffff\"];\n"
        "  edge [fontname=\"Helvetica\", fontsize=9, color=\"#444444\"];\n",
        f);
}

static int
run_graph(int argc, char **argv)
{
    cli_site_hosts sh;
    graph_ctx g;
    int rc = cli_site_hosts_open(&cmd_graph, argc, argv, &sh);
    size_t k;

    if (rc >= 0)
        return rc;
    rc = EXIT_WELL;
    memset(&g, 0, sizeof g);
    g.f = stdout;
    put_header(stdout, sh.site);
    /* Every host: containers are drawn inside their parents; those put
     * on no host come last. */
    for (k = 0; k < sh.nhosts && rc == EXIT_WELL; k++)
        if ((sh.named || prop_host_container_kind(sh.hosts[k]) == PROP_CONTAINER_NONE) &&
            put_host(&g, sh.hosts[k], NULL) != 0)
            rc = EXIT_FAILED;
    for (k = 0; k < sh.nhosts && rc == EXIT_WELL && !sh.named; k++)
        if (prop_host_container_kind(sh.hosts[k]) != PROP_CONTAINER_NONE &&
            prop_host_parent(sh.hosts[k]) == NULL && !seen_has(&g, sh.hosts[k]) &&
            put_host(&g, sh.hosts[k], ", put on no host") != 0)
            rc = EXIT_FAILED;
    fputs("}\n", stdout);
    free(g.seen);
    free(g.levels);
    if (rc != EXIT_WELL)
        fprintf(stderr, "prop graph: out of memory\n");
    cli_site_hosts_free(&sh);
    if (fflush(stdout) != 0 && rc == EXIT_WELL)
        rc = EXIT_FAILED;
    return rc;
}

const cli_command cmd_graph = {
    "graph", run_graph, "print a host's combinator graph as Graphviz dot",
    "prop graph SITE [HOST...] [--max-instructions N] [--max-memory MIB] [--max-cpu S]"};
