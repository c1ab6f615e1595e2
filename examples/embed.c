/*
 * embed.c - a site built, checked and run from C alone, with libprop.
 *
 *   cc embed.c $(pkg-config --cflags --libs prop) -o embed
 *   ./embed ROOT            build host "web", check it, run it on the tree ROOT
 *   ./embed --broken ROOT   the same with a mistake: the check refuses to run
 *
 * What it shows:
 *   - properties (leaves) with the claims the pre-pass compares, and the
 *     combinators around them: requires (the files need their directory),
 *     on_change (a reload when the configuration changed), props;
 *   - the pre-pass (prop_site_check) and its diagnostics, printed as prop
 *     lint prints them: a warning for a property given twice, and with
 *     --broken an error for a file given two contents;
 *   - a run of the host on a directory tree (prop_transport_dir): the
 *     executor (prop_exec_host) decides the order and combines results,
 *     this program ensures each leaf through the transport, and
 *     prop_transport_sync makes what it wrote durable before it says done.
 *
 * The leaves' work is this program's: what prop's Lua recipes do for
 * `prop run`, a C program does in its own ensure().  Run it twice: the
 * second run changes nothing.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <prop/exec.h>
#include <prop/prop.h>
#include <prop/transport.h>

/* What a leaf does, found by its behaviour (an index into actions). */
typedef enum { MAKE_DIR, WRITE_FILE, RELOAD } action_kind;

typedef struct action {
    action_kind kind;
    const char *path;
    const char *content; /* WRITE_FILE */
} action;

static const action actions[] = {
    {MAKE_DIR, "/srv/www", NULL},
    {WRITE_FILE, "/srv/www/index.html", "<h1>made by libprop</h1>\n"},
    {WRITE_FILE, "/srv/www/robots.txt", "User-agent: *\nDisallow:\n"},
    {MAKE_DIR, "/etc/web", NULL},
    {WRITE_FILE, "/etc/web/web.conf", "listen 8080\nroot /srv/www\n"},
    /* The reload counts itself in a file, so that a run shows whether it ran. */
    {RELOAD, "/etc/web/reloads", NULL},
    {WRITE_FILE, "/etc/web/web.conf", "listen 9090\n"}, /* --broken: a second content */
    {MAKE_DIR, "/srv/www/static", NULL},
};

/* Every value made here is placed at its line of this file (the pre-pass names it). */
#define HERE (&(prop_origin){(const prop_frame[]){{"embed.c", __LINE__}}, 1})

static prop_node *
leaf(prop_site *s, const char *desc, long behaviour, prop_claim_kind kind, const prop_origin *o)
{
    const action *a = &actions[behaviour];
    prop_claim claim = {kind, a->path, a->content, 0, -1, 0};
    prop_leaf_spec spec = {0};
    prop_node *n = NULL;

    spec.desc = desc;
    spec.targets = PROP_OS_LINUX;
    spec.behaviour = behaviour;
    spec.claims = &claim;
    spec.nclaims = 1;
    if (prop_leaf_new(s, &spec, o, &n) != PROP_OK) {
        fprintf(stderr, "embed: %s\n", prop_site_error(s));
        exit(2);
    }
    return n;
}

static prop_node *
combine(prop_site *s, prop_kind kind, prop_node *a, prop_node *b, const prop_origin *o)
{
    prop_node *n = NULL;

    if (prop_combine_new(s, kind, a, b, o, &n) != PROP_OK) {
        fprintf(stderr, "embed: %s\n", prop_site_error(s));
        exit(2);
    }
    return n;
}

static void
add(prop_site *s, prop_host *h, prop_node *p)
{
    if (prop_host_add(s, h, p) != PROP_OK) {
        fprintf(stderr, "embed: %s\n", prop_site_error(s));
        exit(2);
    }
}

/* ---- running: the executor's callbacks ---- */

typedef struct run {
    prop_transport *t;
} run;

static char *
reason(prop_transport *t)
{
    char *msg = strdup(prop_transport_error(t));

    return msg; /* NULL when out of memory: the executor copes */
}

/* A directory and the missing ones above it, as mkdir -p. */
static prop_result
ensure_dir(prop_transport *t, const action *a, char **msg)
{
    prop_file_attrs attrs = {0755, NULL, NULL};
    prop_result res = PROP_RESULT_OK;
    char path[4096];
    size_t i, n = strlen(a->path);

    if (n >= sizeof path)
        return PROP_RESULT_FAILED;
    for (i = 1; i <= n; i++) {
        prop_file_stat st;
        int rc;

        if (a->path[i] != '/' && a->path[i] != '\0')
            continue;
        memcpy(path, a->path, i);
        path[i] = '\0';
        rc = prop_transport_stat(t, path, &st);
        if (rc == PROP_OK && st.type == PROP_FT_DIR)
            continue;
        if ((rc != PROP_OK && rc != PROP_ENOTFOUND) ||
            prop_transport_mkdir(t, path, &attrs) != PROP_OK) {
            *msg = reason(t);
            return PROP_RESULT_FAILED;
        }
        res = PROP_RESULT_CHANGED;
    }
    return res;
}

static prop_result
ensure_file(prop_transport *t, const action *a, char **msg)
{
    prop_file_attrs attrs = {0644, NULL, NULL};
    size_t want = strlen(a->content), len = 0;
    char *data = NULL;
    int rc = prop_transport_read(t, a->path, &data, &len);
    int same = rc == PROP_OK && len == want && memcmp(data, a->content, len) == 0;

    free(data);
    if (same)
        return PROP_RESULT_OK;
    if ((rc != PROP_OK && rc != PROP_ENOTFOUND) ||
        prop_transport_write(t, a->path, a->content, want, &attrs) != PROP_OK) {
        *msg = reason(t);
        return PROP_RESULT_FAILED;
    }
    return PROP_RESULT_CHANGED;
}

/* One more line in the reload log: it only runs when its trigger changed. */
static prop_result
reload(prop_transport *t, const action *a, char **msg)
{
    char *data = NULL, *more;
    size_t len = 0;
    int rc = prop_transport_read(t, a->path, &data, &len);

    if (rc != PROP_OK && rc != PROP_ENOTFOUND) {
        *msg = reason(t);
        return PROP_RESULT_FAILED;
    }
    more = realloc(data, len + sizeof "reloaded\n");
    if (!more) {
        free(data);
        return PROP_RESULT_FAILED;
    }
    memcpy(more + len, "reloaded\n", sizeof "reloaded\n");
    rc = prop_transport_write(t, a->path, more, len + strlen("reloaded\n"), NULL);
    free(more);
    if (rc != PROP_OK) {
        *msg = reason(t);
        return PROP_RESULT_FAILED;
    }
    return PROP_RESULT_CHANGED;
}

static prop_result
ensure(void *ud, const prop_node *n, char **msg)
{
    run *r = ud;
    long b = prop_node_behaviour(n);

    if (b < 0 || (size_t)b >= sizeof actions / sizeof actions[0])
        return PROP_RESULT_FAILED;
    switch (actions[b].kind) {
    case MAKE_DIR:
        return ensure_dir(r->t, &actions[b], msg);
    case WRITE_FILE:
        return ensure_file(r->t, &actions[b], msg);
    case RELOAD:
        return reload(r->t, &actions[b], msg);
    }
    return PROP_RESULT_FAILED;
}

static void
done(void *ud, const prop_node *n, unsigned depth, prop_result res, double ms, const char *msg)
{
    (void)ud;
    (void)ms;
    if (prop_node_kind(n) != PROP_LEAF)
        return;
    printf("%*s%s: %s%s%s\n", (int)(2 * depth), "", prop_node_desc(n), prop_result_name(res),
           msg ? ": " : "", msg ? msg : "");
}

int
main(int argc, char **argv)
{
    int broken = argc == 3 && strcmp(argv[1], "--broken") == 0;
    const char *root = argv[argc - 1];
    prop_site *s = NULL;
    prop_host *web = NULL;
    prop_node *www, *etc, *conf, *reloaded, *files[2], *pages = NULL;
    prop_exec_ops ops = {0};
    prop_exec_summary sum;
    run r = {NULL};
    int errors;

    if (argc != 2 && !broken) {
        fprintf(stderr, "usage: embed [--broken] ROOT\n");
        return 2;
    }
    if (prop_site_new(&s, NULL, NULL) != PROP_OK) {
        fprintf(stderr, "embed: out of memory\n");
        return 2;
    }

    /* The properties, and the combinators that order them. */
    www = leaf(s, "directory /srv/www", 0, PROP_CLAIM_FILE_DIRECTORY, HERE);
    files[0] = leaf(s, "file /srv/www/index.html", 1, PROP_CLAIM_FILE_CONTENT, HERE);
    files[1] = leaf(s, "file /srv/www/robots.txt", 2, PROP_CLAIM_FILE_CONTENT, HERE);
    if (prop_list_new(s, PROP_PROPS, files, 2, HERE, &pages) != PROP_OK) {
        fprintf(stderr, "embed: %s\n", prop_site_error(s));
        return 2;
    }
    etc = leaf(s, "directory /etc/web", 3, PROP_CLAIM_FILE_DIRECTORY, HERE);
    conf = leaf(s, "file /etc/web/web.conf", 4, PROP_CLAIM_FILE_CONTENT, HERE);
    reloaded = leaf(s, "web reloaded", 5, PROP_CLAIM_FILE_GENERATED, HERE);

    if (prop_host_new(s, "web", HERE, &web) != PROP_OK) {
        fprintf(stderr, "embed: %s\n", prop_site_error(s));
        return 2;
    }
    /* The pages require their directory; a changed configuration reloads. */
    add(s, web, combine(s, PROP_REQUIRES, pages, www, HERE));
    add(s, web,
        combine(s, PROP_REQUIRES, combine(s, PROP_ON_CHANGE, conf, reloaded, HERE), etc, HERE));
    /* The same property twice: the pre-pass warns (W101); the second is ok at once. */
    add(s, web, leaf(s, "directory /srv/www/static", 7, PROP_CLAIM_FILE_DIRECTORY, HERE));
    add(s, web, leaf(s, "directory /srv/www/static", 7, PROP_CLAIM_FILE_DIRECTORY, HERE));
    if (broken) /* Another content for /etc/web/web.conf: an error (P007). */
        add(s, web, leaf(s, "file /etc/web/web.conf", 6, PROP_CLAIM_FILE_CONTENT, HERE));

    /* The pre-pass, and its diagnostics as prop lint prints them. */
    errors = prop_site_check(s);
    if (errors < 0) {
        fprintf(stderr, "embed: %s\n", prop_site_error(s));
        prop_site_free(s);
        return 2;
    }
    if (prop_diags_print_text(s, stdout, 0, 0) != PROP_OK)
        return 2;
    printf("check: %d error(s), %zu warning(s)\n", errors, prop_site_nwarnings(s));
    if (errors > 0) {
        printf("web: not run\n");
        prop_site_free(s);
        return 1;
    }

    /* The run, on the tree root. */
    if (prop_transport_dir(&r.t, root) != PROP_OK) {
        fprintf(stderr, "embed: %s\n", prop_transport_error(r.t));
        prop_transport_close(r.t);
        prop_site_free(s);
        return 2;
    }
    ops.ensure = ensure;
    ops.done = done;
    prop_exec_host(web, &ops, &r, &sum);
    /* Durable before it says so. */
    if (prop_transport_sync(r.t) != PROP_OK) {
        fprintf(stderr, "embed: %s\n", prop_transport_error(r.t));
        sum.failed++;
    }
    printf("web on %s: ok %u, changed %u, failed %u\n", prop_transport_name(r.t), sum.ok,
           sum.changed, sum.failed);
    prop_transport_close(r.t);
    prop_site_free(s);
    return sum.failed ? 1 : 0;
}
