/*
 * check_graph.c - the property graph of the engine, without Lua: the
 * typing table of SPEC 2.3, reverted forms, the walk over leaves, names,
 * origins, sources, hosts and memory.
 */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "prop/prop.h"
#include "unit.h"

static prop_site *S;

static void
setup(void)
{
    ck_assert_int_eq(prop_site_new(&S, NULL, NULL), PROP_OK);
    ck_assert_ptr_nonnull(S);
}

static void
teardown(void)
{
    prop_site_free(S);
    S = NULL;
}

static const prop_frame site_frame = {"site.lua", 1};
static const prop_origin site_origin = {&site_frame, 1};

/* A leaf with the given description, targets and ports (0-terminated). */
static prop_node *
leafp(const char *desc, prop_os_set targets, const int *ports)
{
    prop_leaf_spec spec;
    prop_node *n = NULL;
    size_t np = 0;

    memset(&spec, 0, sizeof spec);
    while (ports && ports[np])
        np++;
    spec.desc = desc;
    spec.targets = targets;
    spec.ports = ports;
    spec.nports = np;
    spec.behaviour = -1;
    ck_assert_int_eq(prop_leaf_new(S, &spec, &site_origin, &n), PROP_OK);
    return n;
}

static prop_node *
leaf(const char *desc, prop_os_set targets)
{
    return leafp(desc, targets, NULL);
}

static prop_node *
info_leaf(const char *desc, const char *key, const char *value, prop_os_set os)
{
    prop_leaf_spec spec;
    prop_info in = {key, value};
    prop_node *n = NULL;

    memset(&spec, 0, sizeof spec);
    spec.desc = desc;
    spec.info = &in;
    spec.ninfo = key ? 1 : 0;
    spec.info_only = 1;
    spec.os_family = os;
    ck_assert_int_eq(prop_leaf_new(S, &spec, &site_origin, &n), PROP_OK);
    return n;
}

/* A recipe-made pair: a normally, b when reverted. */
static prop_node *
pair(const char *a, const char *b, prop_os_set targets)
{
    prop_node *n = NULL;

    ck_assert_int_eq(
        prop_revertable_new(S, leaf(a, targets), leaf(b, targets), 1, &site_origin, &n), PROP_OK);
    return n;
}

static prop_node *
combine(prop_kind k, prop_node *a, prop_node *b)
{
    prop_node *n = NULL;

    ck_assert_int_eq(prop_combine_new(S, k, a, b, &site_origin, &n), PROP_OK);
    return n;
}

static prop_node *
list(prop_kind k, prop_node *const *items, size_t count)
{
    prop_node *n = NULL;

    ck_assert_int_eq(prop_list_new(S, k, items, count, &site_origin, &n), PROP_OK);
    return n;
}

static prop_node *
revert(prop_node *p)
{
    prop_node *n = NULL;

    ck_assert_int_eq(prop_revert_new(S, p, &site_origin, &n), PROP_OK);
    return n;
}

static const char *
type_of(const prop_node *n)
{
    static char buf[128];

    return prop_node_type(n, buf, sizeof buf);
}

/* Leaves visited by a walk, as "a,b,c". */
typedef struct trail {
    char text[512];
    int stop_at; /* stop after this many visits; 0: never */
    int count;
} trail;

static int
record(void *ud, const prop_node *leafnode)
{
    trail *t = ud;

    size_t used = strlen(t->text);

    snprintf(t->text + used, sizeof t->text - used, "%s%s", used ? "," : "",
             prop_node_desc(leafnode));
    t->count++;
    return t->stop_at && t->count == t->stop_at ? 7 : 0;
}

static const char *
walk(const prop_node *n, prop_os_set os)
{
    static trail t;

    memset(&t, 0, sizeof t);
    ck_assert_int_eq(prop_node_each_leaf(n, os, record, &t), 0);
    return t.text;
}

/* ---- leaves ---- */

START_TEST(test_leaf_defaults)
{
    static const int ports[] = {443, 80, 443, 0};
    prop_node *n = leafp("apache installed", PROP_OS_DEBIANLIKE, ports);
    prop_node *u = leaf("motd", PROP_OS_NONE);

    ck_assert_int_eq(prop_node_kind(n), PROP_LEAF);
    ck_assert_str_eq(prop_node_desc(n), "apache installed");
    ck_assert_uint_eq(prop_node_targets(n), PROP_OS_DEBIANLIKE);
    ck_assert_uint_eq(prop_node_targets(u), PROP_OS_UNIXLIKE);
    ck_assert_int_eq(prop_node_revertable(n), 0);
    ck_assert_int_eq(prop_node_info_only(n), 0);
    ck_assert_uint_eq(prop_node_nports(n), 2);
    ck_assert_int_eq(prop_node_port(n, 0), 80);
    ck_assert_int_eq(prop_node_port(n, 1), 443);
    ck_assert_int_eq(prop_node_port(n, 2), 0);
    ck_assert_uint_eq(prop_node_nports(u), 0);
    ck_assert_uint_eq(prop_node_nchildren(n), 0);
    ck_assert_ptr_null(prop_node_reverted(n));
    ck_assert_uint_eq(prop_node_weight(n), 1);
    ck_assert_uint_lt(n->id, u->id);
    ck_assert_uint_eq(S->nodes.n, 2);
}
END_TEST

START_TEST(test_leaf_copies)
{
    char desc[] = "file has content /etc/motd";
    char path[] = "/etc/motd";
    char content[] = "hello\n";
    char norevert[] = "a file's old content is not kept";
    prop_claim claims[2] = {{PROP_CLAIM_FILE_CONTENT, path, content, 0, -1, 0},
                            {PROP_CLAIM_USER, "www", NULL, 0, 33, 0}};
    prop_info info = {"ipv4", "192.0.2.1"};
    prop_leaf_spec spec;
    prop_node *n = NULL;
    const prop_claim *c;

    memset(&spec, 0, sizeof spec);
    spec.desc = desc;
    spec.claims = claims;
    spec.nclaims = 2;
    spec.info = &info;
    spec.ninfo = 1;
    spec.norevert = norevert;
    spec.behaviour = 42;
    ck_assert_int_eq(prop_leaf_new(S, &spec, &site_origin, &n), PROP_OK);
    memset(desc, 'x', sizeof desc - 1);
    memset(path, 'x', sizeof path - 1);
    memset(content, 'x', sizeof content - 1);
    memset(norevert, 'x', sizeof norevert - 1);
    ck_assert_str_eq(prop_node_desc(n), "file has content /etc/motd");
    ck_assert_uint_eq(prop_node_nclaims(n), 2);
    c = prop_node_claim(n, 0);
    ck_assert_int_eq(c->kind, PROP_CLAIM_FILE_CONTENT);
    ck_assert_str_eq(c->key, "/etc/motd");
    ck_assert_str_eq(c->value, "hello\n");
    ck_assert_uint_eq(c->value_len, 6);
    ck_assert_int_eq(c->id, -1);
    c = prop_node_claim(n, 1);
    ck_assert_int_eq(c->kind, PROP_CLAIM_USER);
    ck_assert_ptr_null(c->value);
    ck_assert_int_eq(c->id, 33);
    ck_assert_ptr_null(prop_node_claim(n, 2));
    ck_assert_uint_eq(prop_node_ninfo(n), 1);
    ck_assert_str_eq(prop_node_info(n, 0)->key, "ipv4");
    ck_assert_str_eq(prop_node_info(n, 0)->value, "192.0.2.1");
    ck_assert_ptr_null(prop_node_info(n, 1));
    ck_assert_str_eq(prop_node_norevert(n), "a file's old content is not kept");
    ck_assert_int_eq(prop_node_behaviour(n), 42);
}
END_TEST

START_TEST(test_leaf_binary_value)
{
    static const char bytes[] = {'a', '\0', 'b'};
    prop_claim claim = {PROP_CLAIM_FILE_CONTENT, "/bin/blob", bytes, 3, -1, 0};
    prop_leaf_spec spec;
    prop_node *n = NULL;

    memset(&spec, 0, sizeof spec);
    spec.desc = "blob";
    spec.claims = &claim;
    spec.nclaims = 1;
    ck_assert_int_eq(prop_leaf_new(S, &spec, NULL, &n), PROP_OK);
    ck_assert_uint_eq(prop_node_claim(n, 0)->value_len, 3);
    ck_assert_int_eq(memcmp(prop_node_claim(n, 0)->value, bytes, 3), 0);
    ck_assert_uint_eq(prop_node_origin(n)->nframes, 0);
}
END_TEST

START_TEST(test_leaf_info_kind)
{
    prop_node *n = info_leaf("os debian", "os", "debian", PROP_OS_DEBIAN);

    ck_assert_int_eq(prop_node_kind(n), PROP_INFO);
    ck_assert_int_eq(prop_node_info_only(n), 1);
    ck_assert_uint_eq(prop_node_os(n), PROP_OS_DEBIAN);
    ck_assert_str_eq(type_of(n), "UnixLike, info");
}
END_TEST

START_TEST(test_leaf_rejects)
{
    static const int bad_low[] = {0};
    static const int bad_high[] = {65536};
    prop_claim noclaimkey = {PROP_CLAIM_FILE_ABSENT, NULL, NULL, 0, -1, 0};
    prop_claim badkind = {PROP_CLAIM__COUNT, "/x", NULL, 0, -1, 0};
    prop_leaf_spec spec;
    prop_node *n = (prop_node *)&spec;
    size_t before = S->nodes.n;

    memset(&spec, 0, sizeof spec);
    ck_assert_int_eq(prop_leaf_new(S, &spec, NULL, &n), PROP_EINVAL);
    ck_assert_ptr_null(n);
    ck_assert_str_eq(prop_site_error(S), "a property needs a description");
    spec.desc = "x";
    spec.targets = 64; /* a bit outside every family */
    ck_assert_int_eq(prop_leaf_new(S, &spec, NULL, &n), PROP_EINVAL);
    spec.targets = 0;
    spec.os_family = PROP_OS_DEBIANLIKE;
    ck_assert_int_eq(prop_leaf_new(S, &spec, NULL, &n), PROP_EINVAL);
    spec.os_family = 0;
    spec.ports = bad_low;
    spec.nports = 1;
    ck_assert_int_eq(prop_leaf_new(S, &spec, NULL, &n), PROP_EINVAL);
    ck_assert_str_eq(prop_site_error(S), "port 0 is outside 1..65535");
    spec.ports = bad_high;
    ck_assert_int_eq(prop_leaf_new(S, &spec, NULL, &n), PROP_EINVAL);
    spec.ports = NULL;
    ck_assert_int_eq(prop_leaf_new(S, &spec, NULL, &n), PROP_EINVAL);
    spec.nports = 0;
    spec.claims = &noclaimkey;
    spec.nclaims = 1;
    ck_assert_int_eq(prop_leaf_new(S, &spec, NULL, &n), PROP_EINVAL);
    spec.claims = &badkind;
    ck_assert_int_eq(prop_leaf_new(S, &spec, NULL, &n), PROP_EINVAL);
    ck_assert_int_eq(prop_leaf_new(S, NULL, NULL, &n), PROP_EINVAL);
    ck_assert_int_eq(prop_leaf_new(NULL, &spec, NULL, &n), PROP_EINVAL);
    ck_assert_uint_eq(S->nodes.n, before);
    ck_assert_uint_eq(S->next_id, before);
}
END_TEST

/* ---- requires, before, on_change, fallback ---- */

START_TEST(test_combine_types)
{
    static const prop_kind kinds[] = {PROP_REQUIRES, PROP_BEFORE, PROP_FALLBACK};
    static const int p80[] = {80, 0}, p443[] = {443, 80, 0};

    for (size_t i = 0; i < 3; i++) {
        prop_node *deb = pair("apt installed foo", "apt removed foo", PROP_OS_DEBIANLIKE);
        prop_node *anyunix = pair("lines in /etc/foo", "no lines in /etc/foo", PROP_OS_NONE);
        prop_node *plain = leafp("web", PROP_OS_DEBIAN, p80);
        prop_node *other = leafp("tls", PROP_OS_NONE, p443);
        prop_node *n = combine(kinds[i], deb, anyunix);

        ck_assert_int_eq(prop_node_kind(n), kinds[i]);
        ck_assert_uint_eq(prop_node_targets(n), PROP_OS_DEBIANLIKE);
        ck_assert_int_eq(prop_node_revertable(n), 1);
        ck_assert_str_eq(prop_node_desc(n), "apt installed foo");
        ck_assert_ptr_eq(prop_node_child(n, 0), deb);
        ck_assert_ptr_eq(prop_node_child(n, 1), anyunix);
        ck_assert_ptr_null(prop_node_child(n, 2));
        ck_assert_int_eq(n->conflict, 0);
        n = combine(kinds[i], deb, plain);
        ck_assert_uint_eq(prop_node_targets(n), PROP_OS_DEBIAN);
        ck_assert_int_eq(prop_node_revertable(n), 0);
        n = combine(kinds[i], plain, deb);
        ck_assert_int_eq(prop_node_revertable(n), 0);
        n = combine(kinds[i], plain, other);
        ck_assert_uint_eq(prop_node_nports(n), 2);
        ck_assert_int_eq(prop_node_port(n, 0), 80);
        ck_assert_int_eq(prop_node_port(n, 1), 443);
        ck_assert_ptr_eq(n->ports, other->ports); /* the union is other's set */
        ck_assert_str_eq(type_of(n), "debian, ports 80 443");
    }
}
END_TEST

START_TEST(test_combine_ports_union)
{
    static const int a[] = {22, 80, 0}, b[] = {80, 443, 0};
    prop_node *n = combine(PROP_REQUIRES, leafp("a", 0, a), leafp("b", 0, b));

    ck_assert_uint_eq(prop_node_nports(n), 3);
    ck_assert_int_eq(prop_node_port(n, 0), 22);
    ck_assert_int_eq(prop_node_port(n, 1), 80);
    ck_assert_int_eq(prop_node_port(n, 2), 443);
    n = combine(PROP_REQUIRES, leaf("a", 0), leaf("b", 0));
    ck_assert_uint_eq(prop_node_nports(n), 0);
    ck_assert_ptr_null(n->ports);
}
END_TEST

START_TEST(test_on_change_revertable_iff_a)
{
    prop_node *a = pair("running foo", "stopped foo", 0);
    prop_node *hook = leaf("restarted foo", 0);
    prop_node *n = combine(PROP_ON_CHANGE, a, hook);

    ck_assert_int_eq(prop_node_revertable(n), 1);
    n = combine(PROP_ON_CHANGE, hook, a);
    ck_assert_int_eq(prop_node_revertable(n), 0);
    n = combine(PROP_REQUIRES, a, hook);
    ck_assert_int_eq(prop_node_revertable(n), 0);
}
END_TEST

START_TEST(test_combine_info_only)
{
    prop_node *i1 = info_leaf("ipv4", "ipv4", "192.0.2.1", 0);
    prop_node *i2 = info_leaf("alias", "alias", "www", 0);

    ck_assert_int_eq(prop_node_info_only(combine(PROP_BEFORE, i1, i2)), 1);
    ck_assert_int_eq(prop_node_info_only(combine(PROP_BEFORE, i1, leaf("x", 0))), 0);
    ck_assert_int_eq(prop_node_info_only(combine(PROP_BEFORE, leaf("x", 0), i2)), 0);
}
END_TEST

START_TEST(test_combine_conflict)
{
    prop_node *deb = leaf("apt", PROP_OS_DEBIANLIKE);
    prop_node *bsd = leaf("pkg", PROP_OS_FREEBSD);
    prop_node *n = combine(PROP_REQUIRES, deb, bsd);
    prop_node *up;

    ck_assert_uint_eq(prop_node_targets(n), PROP_OS_NONE);
    ck_assert_int_eq(n->conflict, 1);
    ck_assert_str_eq(type_of(n), "no OS");
    /* one mistake, one error: the parent stays empty but is not flagged */
    up = combine(PROP_BEFORE, n, leaf("motd", 0));
    ck_assert_uint_eq(prop_node_targets(up), PROP_OS_NONE);
    ck_assert_int_eq(up->conflict, 0);
    up = combine(PROP_BEFORE, leaf("motd", 0), n);
    ck_assert_int_eq(up->conflict, 0);
    n = combine(PROP_FALLBACK, leaf("d", PROP_OS_DEBIAN), leaf("b", PROP_OS_BUNTISH));
    ck_assert_int_eq(n->conflict, 1);
    n = combine(PROP_FALLBACK, leaf("d", PROP_OS_DEBIAN), leaf("u", PROP_OS_DEBIANLIKE));
    ck_assert_int_eq(n->conflict, 0);
}
END_TEST

START_TEST(test_combine_rejects)
{
    prop_node *a = leaf("a", 0), *n = a;
    size_t before = S->nodes.n;

    ck_assert_int_eq(prop_combine_new(S, PROP_PROPS, a, a, NULL, &n), PROP_EINVAL);
    ck_assert_ptr_null(n);
    ck_assert_int_eq(prop_combine_new(S, PROP_REQUIRES, a, NULL, NULL, &n), PROP_EINVAL);
    ck_assert_int_eq(prop_combine_new(S, PROP_REQUIRES, NULL, a, NULL, &n), PROP_EINVAL);
    ck_assert_int_eq(prop_combine_new(S, PROP_REQUIRES, a, a, NULL, NULL), PROP_EINVAL);
    ck_assert_int_eq(prop_combine_new(S, (prop_kind)99, a, a, NULL, &n), PROP_EINVAL);
    ck_assert_uint_eq(S->nodes.n, before);
}
END_TEST

/* ---- pick_os, props ---- */

START_TEST(test_pick_os_types)
{
    prop_node *alts[3];
    prop_node *n;
    static const int p1[] = {8080, 0};

    alts[0] = pair("apt installed x", "apt removed x", PROP_OS_DEBIANLIKE);
    alts[1] = pair("pkg installed x", "pkg removed x", PROP_OS_FREEBSD);
    n = list(PROP_PICK_OS, alts, 2);
    ck_assert_int_eq(prop_node_kind(n), PROP_PICK_OS);
    ck_assert_uint_eq(prop_node_targets(n), PROP_OS_DEBIANLIKE | PROP_OS_FREEBSD);
    ck_assert_int_eq(prop_node_revertable(n), 1);
    ck_assert_int_eq(n->conflict, 0);
    ck_assert_str_eq(prop_node_desc(n), "apt installed x or pkg installed x");
    ck_assert_uint_eq(prop_node_nchildren(n), 2);
    alts[2] = leafp("other", PROP_OS_BUNTISH, p1);
    n = list(PROP_PICK_OS, alts, 3);
    ck_assert_int_eq(prop_node_revertable(n), 0);
    ck_assert_uint_eq(prop_node_nports(n), 1);
    n = list(PROP_PICK_OS, alts + 2, 1);
    ck_assert_uint_eq(prop_node_targets(n), PROP_OS_BUNTISH);
    ck_assert_str_eq(prop_node_desc(n), "other");
    ck_assert_int_eq(prop_list_new(S, PROP_PICK_OS, alts, 0, NULL, &n), PROP_EINVAL);
    ck_assert_ptr_null(n);
}
END_TEST

START_TEST(test_props_types)
{
    prop_node *items[3];
    prop_node *n;

    n = list(PROP_PROPS, NULL, 0);
    ck_assert_uint_eq(prop_node_targets(n), PROP_OS_UNIXLIKE);
    ck_assert_int_eq(prop_node_revertable(n), 1);
    ck_assert_uint_eq(prop_node_nchildren(n), 0);
    items[0] = pair("a", "not a", PROP_OS_DEBIANLIKE);
    items[1] = pair("b", "not b", PROP_OS_NONE);
    items[2] = pair("c", "not c", PROP_OS_DEBIAN);
    n = list(PROP_PROPS, items, 3);
    ck_assert_uint_eq(prop_node_targets(n), PROP_OS_DEBIAN);
    ck_assert_int_eq(prop_node_revertable(n), 1);
    ck_assert_int_eq(n->conflict, 0);
    items[1] = leaf("plain", 0);
    n = list(PROP_PROPS, items, 3);
    ck_assert_int_eq(prop_node_revertable(n), 0);
    ck_assert_uint_eq(prop_node_weight(n), 3);
    items[1] = leaf("bsd", PROP_OS_FREEBSD);
    n = list(PROP_PROPS, items, 3);
    ck_assert_uint_eq(prop_node_targets(n), PROP_OS_NONE);
    ck_assert_int_eq(n->conflict, 1);
    items[0] = n; /* already in conflict: not reported again */
    items[1] = leaf("any", 0);
    n = list(PROP_PROPS, items, 2);
    ck_assert_uint_eq(prop_node_targets(n), PROP_OS_NONE);
    ck_assert_int_eq(n->conflict, 0);
    items[1] = NULL;
    ck_assert_int_eq(prop_list_new(S, PROP_PROPS, items, 2, NULL, &n), PROP_EINVAL);
    ck_assert_int_eq(prop_list_new(S, PROP_REQUIRES, items, 1, NULL, &n), PROP_EINVAL);
}
END_TEST

START_TEST(test_props_info_and_ports)
{
    static const int a[] = {443, 0}, b[] = {22, 0};
    prop_node *items[3];
    prop_node *n;

    items[0] = info_leaf("ipv4", "ipv4", "192.0.2.1", 0);
    items[1] = info_leaf("alias", "alias", "www", 0);
    ck_assert_int_eq(prop_node_info_only(list(PROP_PROPS, items, 2)), 1);
    items[2] = leafp("sshd", 0, b);
    ck_assert_int_eq(prop_node_info_only(list(PROP_PROPS, items, 3)), 0);
    items[0] = leafp("tls", 0, a);
    n = list(PROP_PROPS, items, 3);
    ck_assert_str_eq(type_of(n), "UnixLike, ports 22 443");
}
END_TEST

/* ---- revertable, describe ---- */

START_TEST(test_revertable_types)
{
    static const int pa[] = {80, 0}, pb[] = {8080, 0};
    prop_node *a = leafp("apt installed bar", PROP_OS_DEBIANLIKE, pa);
    prop_node *b = leafp("apt removed bar", PROP_OS_UNIXLIKE, pb);
    prop_node *n = NULL;

    ck_assert_int_eq(prop_revertable_new(S, a, b, 0, &site_origin, &n), PROP_OK);
    ck_assert_int_eq(prop_node_kind(n), PROP_REVERTABLE);
    ck_assert_uint_eq(prop_node_targets(n), PROP_OS_DEBIANLIKE);
    ck_assert_int_eq(prop_node_revertable(n), 1);
    ck_assert_int_eq(prop_node_paired(n), 0);
    ck_assert_ptr_eq(prop_node_reverted(n), b);
    ck_assert_ptr_eq(prop_node_child(n, 0), a);
    ck_assert_ptr_eq(prop_node_child(n, 1), b);
    ck_assert_str_eq(prop_node_desc(n), "apt installed bar");
    ck_assert_uint_eq(prop_node_nports(n), 1);
    ck_assert_int_eq(prop_node_port(n, 0), 80);
    ck_assert_str_eq(type_of(n), "DebianLike, revertable, ports 80");
    ck_assert_int_eq(prop_node_paired(pair("x", "y", 0)), 1);
    ck_assert_int_eq(
        prop_revertable_new(S, leaf("d", PROP_OS_DEBIAN), leaf("f", PROP_OS_FREEBSD), 0, NULL, &n),
        PROP_OK);
    ck_assert_uint_eq(prop_node_targets(n), PROP_OS_NONE);
    ck_assert_int_eq(n->conflict, 1);
    ck_assert_int_eq(prop_revertable_new(S, a, NULL, 0, NULL, &n), PROP_EINVAL);
    ck_assert_ptr_null(n);
}
END_TEST

START_TEST(test_describe)
{
    static const int p[] = {443, 0};
    prop_node *inner =
        combine(PROP_REQUIRES, pair("a", "not a", PROP_OS_DEBIANLIKE), leafp("b", PROP_OS_NONE, p));
    prop_node *n = NULL;

    ck_assert_int_eq(prop_describe_new(S, inner, "web server", &site_origin, &n), PROP_OK);
    ck_assert_int_eq(prop_node_kind(n), PROP_DESCRIBE);
    ck_assert_str_eq(prop_node_desc(n), "web server");
    ck_assert_uint_eq(prop_node_targets(n), prop_node_targets(inner));
    ck_assert_int_eq(prop_node_revertable(n), prop_node_revertable(inner));
    ck_assert_str_eq(type_of(n), "DebianLike, ports 443");
    ck_assert_ptr_eq(prop_node_child(n, 0), inner);
    ck_assert_int_eq(prop_describe_new(S, pair("x", "y", 0), "z", NULL, &n), PROP_OK);
    ck_assert_str_eq(type_of(n), "UnixLike, revertable");
    ck_assert_int_eq(prop_describe_new(S, inner, NULL, NULL, &n), PROP_EINVAL);
    ck_assert_ptr_null(n);
}
END_TEST

START_TEST(test_only_if)
{
    static const int p[] = {8080, 0};
    prop_node *inner =
        combine(PROP_REQUIRES, pair("a", "not a", PROP_OS_DEBIANLIKE), leafp("b", PROP_OS_NONE, p));
    prop_node *n = NULL, *r, *rn;

    ck_assert_int_eq(prop_only_if_new(S, inner, 7, &site_origin, &n), PROP_OK);
    ck_assert_int_eq(prop_node_kind(n), PROP_ONLY_IF);
    ck_assert_str_eq(prop_node_desc(n), "a");
    ck_assert_str_eq(type_of(n), "DebianLike, ports 8080");
    ck_assert_int_eq(prop_node_behaviour(n), 7);
    ck_assert_ptr_eq(prop_node_child(n, 0), inner);
    ck_assert_uint_eq(prop_node_nclaims(n), 0);
    ck_assert_str_eq(walk(n, PROP_OS_NONE), "b,a");
    /* Revertable when p is; its reverted form asks the same test. */
    ck_assert_int_eq(prop_only_if_new(S, pair("x", "not x", 0), 9, &site_origin, &n), PROP_OK);
    ck_assert_int_eq(prop_node_revertable(n), 1);
    r = revert(n);
    rn = prop_node_reverted(r);
    ck_assert_int_eq(prop_node_kind(rn), PROP_ONLY_IF);
    ck_assert_int_eq(prop_node_behaviour(rn), 9);
    ck_assert_str_eq(walk(r, PROP_OS_NONE), "not x");
    ck_assert_int_eq(prop_only_if_new(S, NULL, 1, &site_origin, &n), PROP_EINVAL);
    ck_assert_ptr_null(n);
}
END_TEST

/* ---- revert and the reverted forms ---- */

START_TEST(test_revert_pair)
{
    prop_node *bar = pair("apt installed bar", "apt removed bar", PROP_OS_DEBIANLIKE);
    prop_node *n = revert(bar);

    ck_assert_int_eq(prop_node_kind(n), PROP_REVERT);
    ck_assert_str_eq(prop_node_desc(n), "apt removed bar");
    ck_assert_int_eq(prop_node_revertable(n), 1);
    ck_assert_ptr_eq(prop_node_reverted(n), prop_node_child(bar, 1));
    ck_assert_ptr_eq(prop_node_child(n, 0), bar);
    ck_assert_uint_eq(prop_node_targets(n), PROP_OS_DEBIANLIKE);
    ck_assert_str_eq(walk(n, PROP_OS_NONE), "apt removed bar");
    ck_assert_str_eq(walk(bar, PROP_OS_NONE), "apt installed bar");
}
END_TEST

START_TEST(test_revert_not_revertable)
{
    prop_node *os = info_leaf("os debian", "os", "debian", PROP_OS_DEBIAN);
    prop_node *n = revert(os);

    ck_assert_int_eq(prop_node_kind(n), PROP_REVERT);
    ck_assert_ptr_null(prop_node_reverted(n));
    ck_assert_int_eq(prop_node_revertable(n), 0);
    ck_assert_str_eq(prop_node_desc(n), "revert os debian");
    ck_assert_int_eq(prop_node_info_only(n), 1);
    ck_assert_int_eq(prop_node_info_only(revert(leaf("plain", 0))), 0);
    ck_assert_str_eq(walk(n, PROP_OS_NONE), "");
    ck_assert_uint_eq(prop_node_weight(n), 0);
    n = revert(combine(PROP_REQUIRES, pair("a", "not a", 0), leaf("b", 0)));
    ck_assert_ptr_null(prop_node_reverted(n));
    ck_assert_int_eq(prop_revert_new(S, NULL, NULL, &n), PROP_EINVAL);
    ck_assert_ptr_null(n);
}
END_TEST

START_TEST(test_revert_requires_before)
{
    prop_node *a = pair("a", "not a", 0), *b = pair("b", "not b", 0);
    prop_node *req = combine(PROP_REQUIRES, a, b);
    prop_node *bef = combine(PROP_BEFORE, a, b);
    prop_node *r = revert(req), *rev = prop_node_reverted(r);

    /* a:requires(b) ensures b then a; its revert reverts a then b */
    ck_assert_str_eq(walk(req, PROP_OS_NONE), "b,a");
    ck_assert_int_eq(prop_node_kind(rev), PROP_BEFORE);
    ck_assert_int_eq(rev->synthetic, 1);
    ck_assert_ptr_eq(prop_node_child(rev, 0), prop_node_child(a, 1));
    ck_assert_ptr_eq(prop_node_child(rev, 1), prop_node_child(b, 1));
    ck_assert_str_eq(walk(r, PROP_OS_NONE), "not a,not b");
    ck_assert_ptr_eq(prop_node_origin(rev), prop_node_origin(r));
    ck_assert_str_eq(prop_node_desc(r), "not a");
    /* a:before(b) ensures a then b; its revert undoes b first */
    ck_assert_str_eq(walk(bef, PROP_OS_NONE), "a,b");
    ck_assert_str_eq(walk(revert(bef), PROP_OS_NONE), "not b,not a");
    ck_assert_int_eq(req->synthetic, 0);
}
END_TEST

START_TEST(test_revert_fallback_on_change)
{
    prop_node *a = pair("a", "not a", 0), *b = pair("b", "not b", 0);
    prop_node *hook = leaf("restart", 0);
    prop_node *r = revert(combine(PROP_FALLBACK, a, b));

    ck_assert_int_eq(prop_node_kind(prop_node_reverted(r)), PROP_FALLBACK);
    ck_assert_str_eq(walk(r, PROP_OS_NONE), "not a,not b");
    r = revert(combine(PROP_ON_CHANGE, a, hook));
    ck_assert_ptr_eq(prop_node_reverted(r), prop_node_child(a, 1));
    ck_assert_str_eq(walk(r, PROP_OS_NONE), "not a");
}
END_TEST

START_TEST(test_revert_props_pick_os)
{
    prop_node *items[3];
    prop_node *r, *rev;

    items[0] = pair("a", "not a", 0);
    items[1] = pair("b", "not b", 0);
    items[2] = pair("c", "not c", 0);
    r = revert(list(PROP_PROPS, items, 3));
    rev = prop_node_reverted(r);
    ck_assert_int_eq(prop_node_kind(rev), PROP_PROPS);
    ck_assert_str_eq(walk(r, PROP_OS_NONE), "not c,not b,not a");
    ck_assert_int_eq(rev->synthetic, 1);
    items[0] = pair("apt x", "apt no x", PROP_OS_DEBIANLIKE);
    items[1] = pair("pkg x", "pkg no x", PROP_OS_FREEBSD);
    r = revert(list(PROP_PICK_OS, items, 2));
    rev = prop_node_reverted(r);
    ck_assert_int_eq(prop_node_kind(rev), PROP_PICK_OS);
    ck_assert_str_eq(prop_node_desc(r), "apt no x or pkg no x");
    ck_assert_str_eq(walk(r, PROP_OS_FREEBSD), "pkg no x");
    ck_assert_str_eq(walk(r, PROP_OS_BUNTISH), "apt no x");
    ck_assert_uint_eq(prop_node_targets(r), PROP_OS_DEBIANLIKE | PROP_OS_FREEBSD);
}
END_TEST

START_TEST(test_revert_conflict_once)
{
    prop_node *items[2];
    prop_node *p, *r;

    items[0] = pair("apt x", "apt no x", PROP_OS_DEBIANLIKE);
    items[1] = pair("pkg x", "pkg no x", PROP_OS_FREEBSD);
    p = list(PROP_PROPS, items, 2);
    ck_assert_int_eq(p->conflict, 1);
    r = revert(p);
    /* the mistake is p's, reported there; its reverted form is not flagged */
    ck_assert_uint_eq(prop_node_targets(prop_node_reverted(r)), PROP_OS_NONE);
    ck_assert_int_eq(prop_node_reverted(r)->conflict, 0);
    ck_assert_int_eq(r->conflict, 0);
    ck_assert_str_eq(walk(r, PROP_OS_NONE), "pkg no x,apt no x");
    p = combine(PROP_REQUIRES, items[0], items[1]);
    ck_assert_int_eq(p->conflict, 1);
    r = revert(p);
    ck_assert_int_eq(prop_node_kind(prop_node_reverted(r)), PROP_BEFORE);
    ck_assert_int_eq(prop_node_reverted(r)->conflict, 0);
}
END_TEST

START_TEST(test_revert_describe_twice)
{
    prop_node *p = pair("apt installed bar", "apt removed bar", 0);
    prop_node *d = NULL, *r, *rr;

    ck_assert_int_eq(prop_describe_new(S, p, "bar", NULL, &d), PROP_OK);
    r = revert(d);
    ck_assert_int_eq(prop_node_kind(prop_node_reverted(r)), PROP_DESCRIBE);
    ck_assert_str_eq(prop_node_desc(r), "revert: bar");
    /* revert(revert(p)) runs p itself */
    rr = revert(r);
    ck_assert_int_eq(prop_node_revertable(rr), 1);
    ck_assert_ptr_eq(prop_node_reverted(rr), d);
    ck_assert_str_eq(prop_node_desc(rr), "bar");
    ck_assert_str_eq(walk(rr, PROP_OS_NONE), "apt installed bar");
    rr = revert(revert(p));
    ck_assert_ptr_eq(prop_node_reverted(rr), p);
}
END_TEST

START_TEST(test_revert_ports_and_types)
{
    static const int pa[] = {80, 0}, pb[] = {8080, 0};
    prop_node *p = NULL;
    prop_node *r;

    ck_assert_int_eq(prop_revertable_new(S, leafp("on", PROP_OS_DEBIANLIKE, pa),
                                         leafp("off", PROP_OS_NONE, pb), 1, NULL, &p),
                     PROP_OK);
    r = revert(p);
    ck_assert_uint_eq(prop_node_nports(r), 1);
    ck_assert_int_eq(prop_node_port(r, 0), 8080);
    ck_assert_str_eq(type_of(r), "DebianLike, revertable, ports 8080");
}
END_TEST

START_TEST(test_revert_shared_subtree)
{
    prop_node *p = pair("a", "not a", 0);
    prop_node *items[2];
    prop_node *r;
    size_t before;

    /* 2^60 paths through 60 nodes: reverted once per node, not per path */
    for (int i = 0; i < 60; i++) {
        items[0] = items[1] = p;
        p = list(PROP_PROPS, items, 2);
    }
    ck_assert_uint_eq(prop_node_weight(p), UINT_MAX);
    before = S->nodes.n;
    r = revert(p);
    ck_assert_uint_eq(S->nodes.n - before, 61);
    ck_assert_ptr_eq(prop_node_child(prop_node_reverted(r), 0),
                     prop_node_child(prop_node_reverted(r), 1));
}
END_TEST

START_TEST(test_revert_deep_chain)
{
    prop_node *p = pair("a0", "not a0", 0);
    prop_node *r;
    trail t;

    for (int i = 1; i < 200000; i++)
        p = combine(PROP_REQUIRES, p, pair("a", "not a", 0));
    r = revert(p);
    ck_assert_int_eq(prop_node_revertable(r), 1);
    memset(&t, 0, sizeof t);
    t.stop_at = 2;
    ck_assert_int_eq(prop_node_each_leaf(r, PROP_OS_NONE, record, &t), 7);
    ck_assert_str_eq(t.text, "not a0,not a");
    ck_assert_uint_eq(prop_node_weight(r), 200000);
}
END_TEST

/* ---- the walk ---- */

START_TEST(test_each_leaf_order)
{
    prop_node *a = leaf("a", 0), *b = leaf("b", 0), *c = leaf("c", 0);
    prop_node *items[3] = {a, b, c};
    prop_node *d = NULL, *p = NULL;

    ck_assert_str_eq(walk(combine(PROP_REQUIRES, a, b), 0), "b,a");
    ck_assert_str_eq(walk(combine(PROP_BEFORE, a, b), 0), "a,b");
    ck_assert_str_eq(walk(combine(PROP_ON_CHANGE, a, b), 0), "a,b");
    ck_assert_str_eq(walk(combine(PROP_FALLBACK, a, b), 0), "a,b");
    ck_assert_str_eq(walk(list(PROP_PROPS, items, 3), 0), "a,b,c");
    ck_assert_str_eq(walk(combine(PROP_REQUIRES, combine(PROP_REQUIRES, a, b), c), 0), "c,b,a");
    ck_assert_int_eq(prop_describe_new(S, combine(PROP_BEFORE, c, a), "x", NULL, &d), PROP_OK);
    ck_assert_str_eq(walk(d, 0), "c,a");
    ck_assert_int_eq(prop_revertable_new(S, a, b, 0, NULL, &p), PROP_OK);
    ck_assert_str_eq(walk(p, 0), "a");
    ck_assert_str_eq(walk(a, 0), "a");
}
END_TEST

START_TEST(test_each_leaf_pick_os)
{
    prop_node *items[3];
    prop_node *n;

    items[0] = leaf("apt", PROP_OS_DEBIANLIKE);
    items[1] = leaf("pkg", PROP_OS_FREEBSD);
    items[2] = leaf("any", PROP_OS_UNIXLIKE);
    n = list(PROP_PICK_OS, items, 3);
    ck_assert_str_eq(walk(n, PROP_OS_NONE), "apt,pkg,any");
    ck_assert_str_eq(walk(n, PROP_OS_DEBIAN), "apt");
    ck_assert_str_eq(walk(n, PROP_OS_BUNTISH), "apt");
    ck_assert_str_eq(walk(n, PROP_OS_FREEBSD), "pkg");
    ck_assert_str_eq(walk(n, PROP_OS_UNIXLIKE), "apt");
    n = list(PROP_PICK_OS, items + 1, 1);
    ck_assert_str_eq(walk(n, PROP_OS_DEBIAN), "");
    ck_assert_str_eq(walk(n, PROP_OS_FREEBSD | PROP_OS_DEBIAN), "pkg");
}
END_TEST

START_TEST(test_each_leaf_stop_and_invalid)
{
    prop_node *items[3];
    trail t;

    items[0] = leaf("a", 0);
    ck_assert_int_eq(prop_invalid_new(S, "bad", "port 0 is outside 1..65535", NULL, &items[1]),
                     PROP_OK);
    items[2] = leaf("c", 0);
    ck_assert_str_eq(walk(list(PROP_PROPS, items, 3), 0), "a,bad,c");
    memset(&t, 0, sizeof t);
    t.stop_at = 1;
    ck_assert_int_eq(prop_node_each_leaf(list(PROP_PROPS, items, 3), 0, record, &t), 7);
    ck_assert_str_eq(t.text, "a");
    ck_assert_int_eq(prop_node_each_leaf(NULL, 0, record, &t), PROP_EINVAL);
    ck_assert_int_eq(prop_node_each_leaf(items[0], 0, NULL, &t), PROP_EINVAL);
}
END_TEST

START_TEST(test_each_leaf_wide)
{
    enum { N = 5000 };
    prop_node **items = malloc(N * sizeof *items);
    prop_node *n;
    trail t;

    ck_assert_ptr_nonnull(items);
    for (int i = 0; i < N; i++)
        items[i] = leaf(i == N - 1 ? "last" : "x", 0);
    n = list(PROP_PROPS, items, N);
    n = combine(PROP_BEFORE, n, leaf("after", 0));
    memset(&t, 0, sizeof t);
    t.stop_at = N;
    ck_assert_int_eq(prop_node_each_leaf(n, 0, record, &t), 7);
    ck_assert_int_eq(t.count, N);
    ck_assert_ptr_nonnull(strstr(t.text, "x,x")); /* every one seen, in order */
    ck_assert_uint_eq(prop_node_weight(n), N + 1);
    free(items);
}
END_TEST

/* ---- names ---- */

START_TEST(test_type_strings)
{
    static const int p[] = {443, 80, 0};
    prop_node *ipv4 = info_leaf("ipv4", "ipv4", "192.0.2.1", 0);
    char small[8];

    ck_assert_str_eq(type_of(pair("a", "b", PROP_OS_DEBIANLIKE)), "DebianLike, revertable");
    ck_assert_str_eq(type_of(ipv4), "UnixLike, info");
    ck_assert_str_eq(type_of(leafp("apache", PROP_OS_DEBIANLIKE, p)), "DebianLike, ports 80 443");
    ck_assert_str_eq(type_of(leaf("pkg", PROP_OS_FREEBSD)), "FreeBSD");
    ck_assert_str_eq(prop_node_type(ipv4, small, sizeof small), "UnixLik");
    ck_assert_str_eq(prop_node_type(NULL, small, sizeof small), "");
}
END_TEST

START_TEST(test_os_names)
{
    static const char *const names[] = {"debian",    "buntish", "freebsd",    "rhel",
                                        "fedora",    "arch",    "DebianLike", "RedHatLike",
                                        "ArchLinux", "FreeBSD", "Linux",      "UnixLike"};
    static const prop_os_set sets[] = {PROP_OS_DEBIAN,     PROP_OS_BUNTISH,    PROP_OS_FREEBSD,
                                       PROP_OS_RHEL,       PROP_OS_FEDORA,     PROP_OS_ARCH,
                                       PROP_OS_DEBIANLIKE, PROP_OS_REDHATLIKE, PROP_OS_ARCH,
                                       PROP_OS_FREEBSD,    PROP_OS_LINUX,      PROP_OS_UNIXLIKE};
    char buf[64];
    prop_os_set set = 99;

    ck_assert_str_eq(prop_os_family_name(PROP_OS_DEBIAN), "debian");
    ck_assert_str_eq(prop_os_family_name(PROP_OS_BUNTISH), "buntish");
    ck_assert_str_eq(prop_os_family_name(PROP_OS_FREEBSD), "freebsd");
    ck_assert_ptr_null(prop_os_family_name(PROP_OS_DEBIANLIKE));
    ck_assert_ptr_null(prop_os_family_name(PROP_OS_NONE));
    ck_assert_str_eq(prop_os_set_name(PROP_OS_UNIXLIKE, buf, sizeof buf), "UnixLike");
    ck_assert_str_eq(prop_os_set_name(PROP_OS_DEBIANLIKE, buf, sizeof buf), "DebianLike");
    ck_assert_str_eq(prop_os_set_name(PROP_OS_FREEBSD, buf, sizeof buf), "FreeBSD");
    ck_assert_str_eq(prop_os_set_name(PROP_OS_DEBIAN, buf, sizeof buf), "debian");
    ck_assert_str_eq(prop_os_set_name(PROP_OS_BUNTISH, buf, sizeof buf), "buntish");
    ck_assert_str_eq(prop_os_set_name(PROP_OS_BUNTISH | PROP_OS_FREEBSD, buf, sizeof buf),
                     "buntish | freebsd");
    ck_assert_str_eq(prop_os_set_name(PROP_OS_NONE, buf, sizeof buf), "no OS");
    ck_assert_str_eq(prop_os_set_name(PROP_OS_DEBIAN | 256u, buf, sizeof buf), "debian | 0x100");
    ck_assert_str_eq(prop_os_family_name(PROP_OS_RHEL), "rhel");
    ck_assert_str_eq(prop_os_family_name(PROP_OS_FEDORA), "fedora");
    ck_assert_str_eq(prop_os_family_name(PROP_OS_ARCH), "arch");
    ck_assert_ptr_null(prop_os_family_name(PROP_OS_REDHATLIKE));
    ck_assert_str_eq(prop_os_set_name(PROP_OS_REDHATLIKE, buf, sizeof buf), "RedHatLike");
    ck_assert_str_eq(prop_os_set_name(PROP_OS_LINUX, buf, sizeof buf), "Linux");
    ck_assert_str_eq(prop_os_set_name(PROP_OS_ARCH, buf, sizeof buf), "ArchLinux");
    ck_assert_str_eq(prop_os_set_name(PROP_OS_RHEL, buf, sizeof buf), "rhel");
    ck_assert_str_eq(prop_os_set_name(PROP_OS_DEBIANLIKE | PROP_OS_FREEBSD, buf, sizeof buf),
                     "DebianLike | freebsd");
    ck_assert_str_eq(prop_os_set_name(PROP_OS_REDHATLIKE | PROP_OS_ARCH, buf, sizeof buf),
                     "RedHatLike | arch");
    ck_assert_str_eq(
        prop_os_set_name(PROP_OS_DEBIAN | PROP_OS_FEDORA | PROP_OS_FREEBSD, buf, sizeof buf),
        "debian | fedora | freebsd");
    ck_assert_str_eq(prop_os_set_name(PROP_OS_UNIXLIKE & ~PROP_OS_BUNTISH, buf, sizeof buf),
                     "RedHatLike | debian | arch | freebsd");
    /* A short buffer: cut, still terminated. */
    ck_assert_str_eq(prop_os_set_name(PROP_OS_REDHATLIKE | PROP_OS_ARCH, buf, 8), "RedHatL");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        ck_assert_int_eq(prop_os_set_parse(names[i], &set), PROP_OK);
        ck_assert_uint_eq(set, sets[i]);
    }
    ck_assert_int_eq(prop_os_set_parse("Debian", &set), PROP_EINVAL);
    ck_assert_uint_eq(set, PROP_OS_NONE);
    ck_assert_int_eq(prop_os_set_parse("unixlike", &set), PROP_EINVAL);
    ck_assert_int_eq(prop_os_set_parse(NULL, &set), PROP_EINVAL);
}
END_TEST

START_TEST(test_os_from_os_release)
{
    static const struct {
        const char *text;
        prop_os_set os;
    } cases[] = {
        {"PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\nID=debian\n",
         PROP_OS_DEBIAN},
        {"NAME=\"Ubuntu\"\nID=ubuntu\nID_LIKE=debian\n", PROP_OS_BUNTISH},
        {"NAME=\"Linux Mint\"\nID=linuxmint\nID_LIKE=\"ubuntu debian\"\n", PROP_OS_BUNTISH},
        {"ID=pop\nID_LIKE=\"debian ubuntu\"\n", PROP_OS_BUNTISH},
        {"ID=raspbian\nID_LIKE=debian\n", PROP_OS_DEBIAN},
        {"NAME=FreeBSD\nID=freebsd\n", PROP_OS_FREEBSD},
        {"NAME=\"Red Hat Enterprise Linux\"\nID=\"rhel\"\nID_LIKE=\"fedora\"\n", PROP_OS_RHEL},
        {"NAME=\"CentOS Stream\"\nID=\"centos\"\nID_LIKE=\"rhel fedora\"\n", PROP_OS_RHEL},
        {"NAME=\"Rocky Linux\"\nID=\"rocky\"\nID_LIKE=\"rhel centos fedora\"\n", PROP_OS_RHEL},
        {"NAME=\"AlmaLinux\"\nID=\"almalinux\"\nID_LIKE=\"rhel centos fedora\"\n", PROP_OS_RHEL},
        {"NAME=\"Oracle Linux Server\"\nID=\"ol\"\nID_LIKE=\"fedora\"\n", PROP_OS_RHEL},
        {"NAME=Nobara\nID=nobara\nID_LIKE=\"rhel centos fedora\"\n", PROP_OS_RHEL},
        {"NAME=Ultramarine\nID=ultramarine\nID_LIKE=fedora\n", PROP_OS_FEDORA},
        {"NAME=\"Oracle Linux Server\"\nID=ol\nID_LIKE='rhel fedora'\r\n", PROP_OS_RHEL},
        {"NAME=\"Fedora Linux\"\nID=fedora\n", PROP_OS_FEDORA},
        {"NAME=\"Arch Linux\"\nID=arch\n", PROP_OS_ARCH},
        {"NAME=\"Manjaro Linux\"\nID=manjaro\nID_LIKE=arch\n", PROP_OS_ARCH},
        {"NAME=\"openSUSE\"\nID=\"opensuse-leap\"\nID_LIKE=\"suse opensuse\"\n", PROP_OS_NONE},
        /* Only whole keys and whole words count. */
        {"VARIANT_ID=debian\nID=alpine\n", PROP_OS_NONE},
        {"ID=debianish\n", PROP_OS_NONE},
        {"ID_LIKE=\"archlinux\"\n", PROP_OS_NONE},
        {"", PROP_OS_NONE},
        {"ID=", PROP_OS_NONE},
        {"ID=\"", PROP_OS_NONE},
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(prop_os_from_os_release(cases[i].text, strlen(cases[i].text)) == cases[i].os,
                      "case %zu: %s", i, cases[i].text);
    /* The length bounds the text: no terminating NUL is needed. */
    ck_assert_uint_eq(prop_os_from_os_release("ID=fedora", 9), PROP_OS_FEDORA);
    ck_assert_uint_eq(prop_os_from_os_release("ID=fedorax", 9), PROP_OS_FEDORA);
    ck_assert_uint_eq(prop_os_from_os_release(NULL, 0), PROP_OS_NONE);
}
END_TEST

START_TEST(test_claim_and_kind_names)
{
    static const char *const expect[PROP_CLAIM__COUNT] = {"file.content",
                                                          "file.generated",
                                                          "file.absent",
                                                          "file.directory",
                                                          "file.symlink",
                                                          "file.mode",
                                                          "file.owner",
                                                          "file.line",
                                                          "file.noline",
                                                          "package.installed",
                                                          "package.removed",
                                                          "service.running",
                                                          "service.stopped",
                                                          "service.restarted",
                                                          "user",
                                                          "user.absent",
                                                          "group",
                                                          "hostname",
                                                          "file.owned",
                                                          "file.setting",
                                                          "user.setting",
                                                          "file.purged",
                                                          "file.fragment",
                                                          "file.fragments",
                                                          "web.name",
                                                          "web.default"};
    prop_claim_kind k;

    for (unsigned i = 0; i < PROP_CLAIM__COUNT; i++) {
        ck_assert_str_eq(prop_claim_kind_name((prop_claim_kind)i), expect[i]);
        ck_assert_int_eq(prop_claim_kind_parse(expect[i], &k), PROP_OK);
        ck_assert_int_eq(k, (prop_claim_kind)i);
    }
    ck_assert_ptr_null(prop_claim_kind_name(PROP_CLAIM__COUNT));
    ck_assert_int_eq(prop_claim_kind_parse("file.contents", &k), PROP_EINVAL);
    ck_assert_str_eq(prop_kind_name(PROP_LEAF), "property");
    ck_assert_str_eq(prop_kind_name(PROP_INFO), "info");
    ck_assert_str_eq(prop_kind_name(PROP_ON_CHANGE), "on_change");
    ck_assert_str_eq(prop_kind_name(PROP_PICK_OS), "pick_os");
    ck_assert_str_eq(prop_kind_name(PROP_INVALID), "invalid");
    ck_assert_str_eq(prop_kind_name(PROP_ONLY_IF), "only_if");
    ck_assert_ptr_null(prop_kind_name((prop_kind)13));
}
END_TEST

/* ---- origins and sources ---- */

START_TEST(test_origins)
{
    char file1[] = "site.lua", file2[] = "site.lua", helper[] = "lib.lua";
    prop_frame f1[2] = {{file1, 10}, {helper, 3}};
    prop_frame f2[1] = {{file2, 11}};
    prop_origin o1 = {f1, 2}, o2 = {f2, 1};
    prop_leaf_spec spec;
    prop_node *a = NULL, *b = NULL, *c = NULL;
    const prop_origin *oa, *ob;

    memset(&spec, 0, sizeof spec);
    spec.desc = "x";
    ck_assert_int_eq(prop_leaf_new(S, &spec, &o1, &a), PROP_OK);
    ck_assert_int_eq(prop_leaf_new(S, &spec, &o2, &b), PROP_OK);
    memset(file1, 'z', 3);
    memset(helper, 'z', 3);
    oa = prop_node_origin(a);
    ob = prop_node_origin(b);
    ck_assert_uint_eq(oa->nframes, 2);
    ck_assert_str_eq(oa->frames[0].file, "site.lua");
    ck_assert_int_eq(oa->frames[0].line, 10);
    ck_assert_str_eq(oa->frames[1].file, "lib.lua");
    ck_assert_int_eq(oa->frames[1].line, 3);
    ck_assert_ptr_ne(oa->frames[0].file, file1);
    ck_assert_ptr_eq(oa->frames[0].file, ob->frames[0].file); /* interned */
    ck_assert_ptr_ne(oa, ob);
    /* the same line again (a loop) shares the copy */
    ck_assert_int_eq(prop_leaf_new(S, &spec, &o2, &c), PROP_OK);
    ck_assert_ptr_eq(prop_node_origin(c), ob);
    /* and so does any earlier place (a helper called for every host) */
    memcpy(file1, "site", 4);
    memcpy(helper, "lib", 3);
    ck_assert_int_eq(prop_leaf_new(S, &spec, &o1, &c), PROP_OK);
    ck_assert_ptr_eq(prop_node_origin(c), oa);
    f1[1].line = 4;
    ck_assert_int_eq(prop_leaf_new(S, &spec, &o1, &c), PROP_OK);
    ck_assert_ptr_ne(prop_node_origin(c), oa);
    ck_assert_int_eq(prop_node_origin(c)->frames[1].line, 4);
    ck_assert_int_eq(prop_leaf_new(S, &spec, NULL, &c), PROP_OK);
    ck_assert_uint_eq(prop_node_origin(c)->nframes, 0);
    ck_assert_ptr_eq(site_intern(S, "site.lua"), oa->frames[0].file);
}
END_TEST

START_TEST(test_origins_many)
{
    enum { LINES = 1000, DEEP = 20 };
    prop_frame deep[DEEP];
    prop_origin o = {deep, DEEP};
    const prop_origin *first[LINES];
    prop_leaf_spec spec;
    prop_node *n = NULL;

    memset(&spec, 0, sizeof spec);
    spec.desc = "x";
    for (int i = 0; i < DEEP; i++) {
        deep[i].file = i % 2 ? "a.lua" : "b.lua";
        deep[i].line = i + 1;
    }
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < LINES; i++) {
            deep[0].line = 100 + i;
            ck_assert_int_eq(prop_leaf_new(S, &spec, &o, &n), PROP_OK);
            if (pass == 0)
                first[i] = prop_node_origin(n);
            else
                ck_assert_ptr_eq(prop_node_origin(n), first[i]);
        }
    }
    ck_assert_uint_eq(first[7]->nframes, DEEP);
    ck_assert_int_eq(first[7]->frames[0].line, 107);
    ck_assert_int_eq(first[7]->frames[DEEP - 1].line, DEEP);
    ck_assert_str_eq(first[7]->frames[DEEP - 1].file, "a.lua");
    ck_assert_ptr_ne(first[7], first[8]);
}
END_TEST

/* One-frame origins (a site written out host by host) are found by file
 * and line: shared however many there are, kept apart by file. */
START_TEST(test_origins_by_line)
{
    enum { LINES = 5000 };
    static const prop_origin *first[LINES + 1];
    char name[2][16];
    prop_frame f;
    prop_origin o = {&f, 1};
    prop_leaf_spec spec;
    prop_node *n = NULL;

    memset(&spec, 0, sizeof spec);
    spec.desc = "x";
    for (int pass = 0; pass < 2; pass++) {
        /* Another buffer for the name on the second pass: equal text at
         * another address is the same file. */
        strcpy(name[pass], "site.lua");
        f.file = name[pass];
        for (int line = LINES; line >= 1; line--) {
            f.line = line;
            ck_assert_int_eq(prop_leaf_new(S, &spec, &o, &n), PROP_OK);
            if (pass == 0)
                first[line] = prop_node_origin(n);
            else
                ck_assert_ptr_eq(prop_node_origin(n), first[line]);
            ck_assert_int_eq(prop_node_origin(n)->frames[0].line, line);
        }
    }
    ck_assert_ptr_ne(first[1], first[2]);
    /* The same line of another file, and lines far apart (pages made as met). */
    f.file = "lib.lua";
    f.line = 7;
    ck_assert_int_eq(prop_leaf_new(S, &spec, &o, &n), PROP_OK);
    ck_assert_ptr_ne(prop_node_origin(n), first[7]);
    ck_assert_str_eq(prop_node_origin(n)->frames[0].file, "lib.lua");
    f.file = "site.lua";
    ck_assert_int_eq(prop_leaf_new(S, &spec, &o, &n), PROP_OK);
    ck_assert_ptr_eq(prop_node_origin(n), first[7]);
    for (int pass = 0; pass < 2; pass++) {
        const prop_origin *big = NULL;

        f.line = INT_MAX - pass;
        ck_assert_int_eq(prop_leaf_new(S, &spec, &o, &n), PROP_OK);
        big = prop_node_origin(n);
        ck_assert_int_eq(big->frames[0].line, INT_MAX - pass);
        f.line = 3;
        ck_assert_int_eq(prop_leaf_new(S, &spec, &o, &n), PROP_OK);
        f.line = INT_MAX - pass;
        ck_assert_int_eq(prop_leaf_new(S, &spec, &o, &n), PROP_OK);
        ck_assert_ptr_eq(prop_node_origin(n), big);
    }
}
END_TEST

START_TEST(test_source_lines)
{
    static const char text[] = "local a = 1\r\nhost \"x\" {\n\n  last line";
    size_t len = 99;
    const char *l;

    ck_assert_int_eq(prop_site_add_source(S, "site.lua", text, sizeof text - 1), PROP_OK);
    l = prop_site_source_line(S, "site.lua", 1, &len);
    ck_assert_uint_eq(len, 11);
    ck_assert_int_eq(strncmp(l, "local a = 1", len), 0);
    l = prop_site_source_line(S, "site.lua", 2, &len);
    ck_assert_uint_eq(len, 10);
    ck_assert_int_eq(strncmp(l, "host \"x\" {", len), 0);
    l = prop_site_source_line(S, "site.lua", 3, &len);
    ck_assert_ptr_nonnull(l);
    ck_assert_uint_eq(len, 0);
    l = prop_site_source_line(S, "site.lua", 4, &len);
    ck_assert_uint_eq(len, 11);
    ck_assert_int_eq(strncmp(l, "  last line", len), 0);
    ck_assert_ptr_null(prop_site_source_line(S, "site.lua", 5, &len));
    ck_assert_uint_eq(len, 0);
    ck_assert_ptr_null(prop_site_source_line(S, "site.lua", 0, &len));
    ck_assert_ptr_null(prop_site_source_line(S, "other.lua", 1, &len));
    ck_assert_int_eq(prop_site_add_source(S, "site.lua", "new\n", 4), PROP_OK);
    l = prop_site_source_line(S, "site.lua", 1, &len);
    ck_assert_uint_eq(len, 3);
    ck_assert_int_eq(strncmp(l, "new", 3), 0);
    ck_assert_ptr_null(prop_site_source_line(S, "site.lua", 2, &len));
}
END_TEST

/* A text the site takes over is quoted from where it is, and freed with
 * the site (the fixture's site uses malloc; LeakSanitizer sees a leak). */
START_TEST(test_source_adopted)
{
    size_t len = 0, before = prop_site_memory(S);
    char *text = malloc(64);
    const char *l;

    ck_assert_ptr_nonnull(text);
    strcpy(text, "a = 1\nhost \"y\" {}\n");
    ck_assert_int_eq(prop_site_adopt_source(S, "mod.lua", text, strlen(text), 64), PROP_OK);
    ck_assert_uint_ge(prop_site_memory(S), before + 64);
    l = prop_site_source_line(S, "mod.lua", 2, &len);
    ck_assert_ptr_eq(l, text + 6);
    ck_assert_uint_eq(len, 11);
    /* Not NUL-terminated at len, or no room for the NUL: refused, and the
     * caller keeps the block. */
    text = malloc(8);
    ck_assert_ptr_nonnull(text);
    memcpy(text, "abcdefgh", 8);
    ck_assert_int_eq(prop_site_adopt_source(S, "bad.lua", text, 4, 8), PROP_EINVAL);
    ck_assert_int_eq(prop_site_adopt_source(S, "bad.lua", text, 8, 8), PROP_EINVAL);
    ck_assert_ptr_null(prop_site_source_line(S, "bad.lua", 1, &len));
    free(text);
}
END_TEST

/* ---- hosts ---- */

START_TEST(test_hosts)
{
    prop_host *h = NULL, *dup = NULL, *g = NULL;
    prop_node *items[2];

    ck_assert_int_eq(prop_host_new(S, "web1", &site_origin, &h), PROP_OK);
    ck_assert_int_eq(prop_host_new(S, "db1", NULL, &g), PROP_OK);
    ck_assert_int_eq(prop_host_new(S, "web1", NULL, &dup), PROP_OK);
    ck_assert_uint_eq(prop_site_nhosts(S), 3);
    ck_assert_ptr_eq(prop_site_host(S, 0), h);
    ck_assert_ptr_eq(prop_site_host(S, 2), dup);
    ck_assert_ptr_null(prop_site_host(S, 3));
    ck_assert_ptr_eq(prop_site_find_host(S, "web1"), h);
    ck_assert_ptr_eq(prop_site_find_host(S, "db1"), g);
    ck_assert_ptr_null(prop_site_find_host(S, "web2"));
    ck_assert_str_eq(prop_host_name(h), "web1");
    ck_assert_int_eq(prop_host_origin(h)->frames[0].line, 1);
    ck_assert_uint_eq(prop_host_os(h), PROP_OS_NONE);

    ck_assert_int_eq(prop_host_add(S, h, leaf("motd", 0)), PROP_OK);
    ck_assert_int_eq(prop_host_add(S, h, info_leaf("ipv4", "ipv4", "192.0.2.1", 0)), PROP_OK);
    items[0] = info_leaf("os freebsd", "os", "freebsd", PROP_OS_FREEBSD);
    items[1] = info_leaf("alias", "alias", "www.example.com", 0);
    ck_assert_int_eq(prop_host_add(S, h, list(PROP_PROPS, items, 2)), PROP_OK);
    ck_assert_int_eq(prop_host_add(S, h, info_leaf("os debian", "os", "debian", PROP_OS_DEBIAN)),
                     PROP_OK);
    ck_assert_int_eq(prop_host_add(S, h, info_leaf("ipv4", "ipv4", "192.0.2.2", 0)), PROP_OK);
    ck_assert_uint_eq(prop_host_nprops(h), 5);
    ck_assert_str_eq(prop_node_desc(prop_host_prop(h, 0)), "motd");
    ck_assert_ptr_null(prop_host_prop(h, 5));
    ck_assert_uint_eq(prop_host_os(h), PROP_OS_FREEBSD);
    ck_assert_str_eq(prop_host_info(h, "ipv4", 0), "192.0.2.1");
    ck_assert_str_eq(prop_host_info(h, "ipv4", 1), "192.0.2.2");
    ck_assert_ptr_null(prop_host_info(h, "ipv4", 2));
    ck_assert_str_eq(prop_host_info(h, "alias", 0), "www.example.com");
    ck_assert_str_eq(prop_host_info(h, "os", 1), "debian");
    ck_assert_ptr_null(prop_host_info(g, "ipv4", 0));
    ck_assert_int_eq(prop_host_add(S, h, NULL), PROP_EINVAL);
    ck_assert_int_eq(prop_host_new(S, NULL, NULL, &g), PROP_EINVAL);
    ck_assert_ptr_null(g);
}
END_TEST

START_TEST(test_host_info_pick_os)
{
    prop_host *h = NULL;
    prop_node *items[2];

    items[0] = combine(PROP_BEFORE, leaf("apt", PROP_OS_DEBIANLIKE),
                       info_leaf("mirror", "mirror", "deb", 0));
    items[1] =
        combine(PROP_BEFORE, leaf("pkg", PROP_OS_FREEBSD), info_leaf("mirror", "mirror", "bsd", 0));
    ck_assert_int_eq(prop_host_new(S, "h", NULL, &h), PROP_OK);
    ck_assert_int_eq(prop_host_add(S, h, list(PROP_PICK_OS, items, 2)), PROP_OK);
    ck_assert_str_eq(prop_host_info(h, "mirror", 0), "deb"); /* no OS: every one */
    ck_assert_str_eq(prop_host_info(h, "mirror", 1), "bsd");
    ck_assert_int_eq(prop_host_add(S, h, info_leaf("os", "os", "freebsd", PROP_OS_FREEBSD)),
                     PROP_OK);
    ck_assert_str_eq(prop_host_info(h, "mirror", 0), "bsd");
    ck_assert_ptr_null(prop_host_info(h, "mirror", 1));
}
END_TEST

START_TEST(test_many_hosts)
{
    char name[32];
    prop_host *h = NULL;

    for (int i = 0; i < 3000; i++) {
        snprintf(name, sizeof name, "host%d.example.com", i);
        ck_assert_int_eq(prop_host_new(S, name, NULL, &h), PROP_OK);
    }
    for (int i = 0; i < 3000; i += 7) {
        snprintf(name, sizeof name, "host%d.example.com", i);
        ck_assert_ptr_eq(prop_site_find_host(S, name), prop_site_host(S, (size_t)i));
    }
    ck_assert_ptr_null(prop_site_find_host(S, "host3000.example.com"));
}
END_TEST

/* ---- invalid ---- */

START_TEST(test_invalid)
{
    prop_node *n = NULL;
    const prop_diag *d;
    prop_frame f = {"site.lua", 7};
    prop_origin o = {&f, 1};

    ck_assert_int_eq(prop_invalid_new(S, "file.mode", "malformed mode \"999\"", &o, &n), PROP_OK);
    ck_assert_int_eq(prop_node_kind(n), PROP_INVALID);
    ck_assert_uint_eq(prop_node_targets(n), PROP_OS_UNIXLIKE);
    ck_assert_int_eq(prop_node_revertable(n), 0);
    ck_assert_str_eq(prop_node_desc(n), "file.mode");
    ck_assert_uint_eq(prop_site_ndiags(S), 1);
    d = prop_site_diag(S, 0);
    ck_assert_str_eq(d->code, "P012");
    ck_assert_int_eq(d->severity, PROP_SEV_ERROR);
    ck_assert_int_eq(d->line, 7);
    ck_assert_ptr_nonnull(strstr(d->message, "malformed mode"));
    ck_assert_int_eq(prop_invalid_new(S, "x", NULL, NULL, &n), PROP_EINVAL);
    ck_assert_ptr_null(n);
}
END_TEST

/* ---- memory ---- */

typedef struct budget {
    size_t used, limit, peak;
    long blocks;
} budget;

static void *
budget_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    budget *b = ud;
    size_t old = ptr ? osize : 0;
    void *p;

    if (nsize == 0) {
        if (ptr) {
            b->used -= old;
            b->blocks--;
        }
        free(ptr);
        return NULL;
    }
    if (b->used - old + nsize > b->limit)
        return NULL;
    p = realloc(ptr, nsize);
    if (!p)
        return NULL;
    b->used = b->used - old + nsize;
    if (!ptr)
        b->blocks++;
    if (b->used > b->peak)
        b->peak = b->used;
    return p;
}

/* Build a small site with everything in it; stop at the first failure. */
static int
build_all(prop_site *s)
{
    static const int ports[] = {80, 443};
    prop_claim claim = {PROP_CLAIM_PKG_INSTALLED, "foo", NULL, 0, -1, 0};
    prop_info info = {"ipv4", "192.0.2.1"};
    prop_frame f = {"site.lua", 3};
    prop_origin o = {&f, 1};
    prop_leaf_spec spec;
    prop_node *a, *b, *items[40], *n;
    prop_host *h;
    char desc[32];
    int rc;

    memset(&spec, 0, sizeof spec);
    spec.ports = ports;
    spec.nports = 2;
    spec.claims = &claim;
    spec.nclaims = 1;
    spec.info = &info;
    spec.ninfo = 1;
    if ((rc = prop_site_add_source(s, "site.lua", "a\nb\nc\n", 6)))
        return rc;
    if ((rc = prop_host_new(s, "web", &o, &h)))
        return rc;
    for (int i = 0; i < 40; i++) {
        snprintf(desc, sizeof desc, "apt installed p%d", i);
        spec.desc = desc;
        f.line = i;
        if ((rc = prop_leaf_new(s, &spec, &o, &a)))
            return rc;
        spec.desc = "apt removed";
        if ((rc = prop_leaf_new(s, &spec, &o, &b)))
            return rc;
        if ((rc = prop_revertable_new(s, a, b, 1, &o, &items[i])))
            return rc;
        if (i && (rc = prop_combine_new(s, PROP_REQUIRES, items[i], items[i - 1], &o, &items[i])))
            return rc;
        if ((rc = prop_host_add(s, h, items[i])))
            return rc;
    }
    if ((rc = prop_list_new(s, PROP_PROPS, items, 40, &o, &n)))
        return rc;
    if ((rc = prop_list_new(s, PROP_PICK_OS, items, 40, &o, &n)))
        return rc;
    if ((rc = prop_describe_new(s, n, "described", &o, &n)))
        return rc;
    if ((rc = prop_revert_new(s, n, &o, &n)))
        return rc;
    if ((rc = prop_invalid_new(s, "bad", "bad argument", &o, &n)))
        return rc;
    return prop_site_source_line(s, "site.lua", 2, NULL) ? PROP_OK : PROP_ENOMEM;
}

START_TEST(test_memory_counted)
{
    budget b = {0, (size_t)-1 / 2, 0, 0};
    prop_site *s = NULL;
    size_t before;

    ck_assert_int_eq(prop_site_new(&s, budget_alloc, &b), PROP_OK);
    before = prop_site_memory(s);
    ck_assert_uint_gt(before, 0);
    ck_assert_int_eq(build_all(s), PROP_OK);
    ck_assert_uint_gt(prop_site_memory(s), before);
    /* everything the site holds came from its allocator, and is counted */
    ck_assert_uint_eq(prop_site_memory(s), b.used);
    prop_site_free(s);
    ck_assert_uint_eq(b.used, 0);
    ck_assert_int_eq(b.blocks, 0);
    prop_site_free(NULL);
}
END_TEST

START_TEST(test_memory_refused)
{
    budget full = {0, (size_t)-1 / 2, 0, 0};
    prop_site *s = NULL;
    size_t need;
    int enomem = 0;

    ck_assert_int_eq(prop_site_new(&s, budget_alloc, &full), PROP_OK);
    ck_assert_int_eq(build_all(s), PROP_OK);
    prop_site_free(s);
    need = full.peak;
    /* every limit below what the build needs fails cleanly, never crashes */
    for (size_t limit = 0; limit < need; limit += limit < 70000 ? 997 : 4099) {
        budget b = {0, limit, 0, 0};
        int rc = prop_site_new(&s, budget_alloc, &b);

        if (rc == PROP_OK) {
            rc = build_all(s);
            if (rc == PROP_ENOMEM)
                ck_assert_str_eq(prop_site_error(s), "out of memory");
            prop_site_free(s);
        } else {
            ck_assert_ptr_null(s);
        }
        ck_assert_int_eq(rc, PROP_ENOMEM);
        ck_assert_uint_eq(b.used, 0);
        ck_assert_int_eq(b.blocks, 0);
        enomem++;
    }
    ck_assert_int_gt(enomem, 10);
}
END_TEST

START_TEST(test_arena)
{
    budget b = {0, (size_t)-1 / 2, 0, 0};
    arena a;
    char *big, *small, *s1;
    void *p;

    arena_init(&a, budget_alloc, &b);
    small = arena_alloc(&a, 10);
    ck_assert_ptr_nonnull(small);
    ck_assert_uint_eq((uintptr_t)small % 16, 0);
    s1 = arena_strdup(&a, "abc");
    ck_assert_str_eq(s1, "abc");
    p = arena_alloc(&a, 3);
    ck_assert_uint_eq((uintptr_t)p % 16, 0);
    big = arena_alloc(&a, 1 << 20); /* a chunk of its own */
    ck_assert_ptr_nonnull(big);
    memset(big, 1, 1 << 20);
    ck_assert_uint_ge(a.total, (size_t)(1 << 20));
    ck_assert_str_eq(arena_printf(&a, "%d-%s", 12, "x"), "12-x");
    p = arena_zalloc(&a, 64);
    ck_assert_int_eq(((char *)p)[63], 0);
    ck_assert_uint_eq(a.total, b.used);
    arena_release(&a);
    ck_assert_uint_eq(b.used, 0);
    ck_assert_uint_eq(a.total, 0);
}
END_TEST

START_TEST(test_ptrvec)
{
    arena a;
    ptrvec v = {NULL, 0, 0};
    int x[100];

    arena_init(&a, NULL, NULL);
    for (int i = 0; i < 100; i++)
        ck_assert_int_eq(ptrvec_push(&a, &v, &x[i]), PROP_OK);
    ck_assert_uint_eq(v.n, 100);
    for (int i = 0; i < 100; i++)
        ck_assert_ptr_eq(v.v[i], &x[i]);
    arena_release(&a);
}
END_TEST

START_TEST(test_strings_shared)
{
    prop_node *a = leaf("apt installed nginx", 0);
    prop_node *b = leaf("apt installed nginx", 0);

    ck_assert_ptr_eq(prop_node_desc(a), prop_node_desc(b));
    ck_assert_ptr_ne(a, b);
    ck_assert_uint_ne(a->id, b->id);
}
END_TEST

/* ---- making a call's nodes again ---- */

static const prop_frame other_frames[] = {{"site.lua", 9}, {"site.lua", 30}};
static const prop_origin other_origin = {other_frames, 2};

START_TEST(test_remake)
{
    int p80[] = {80, 0};
    prop_node *shared = pair("shared", "unshared", PROP_OS_UNIXLIKE), *root, *web = NULL;
    prop_node *copy = NULL, *rev = NULL;
    size_t mark = prop_site_mark(S), count, before;
    char t1[128], t2[128];

    ck_assert_uint_eq(mark, 3);
    /* A "call": a recipe pair, and a revertable with a port, joined with
     * an older node, then reverted. */
    ck_assert_int_eq(prop_revertable_new(S, leaf("no web", PROP_OS_UNIXLIKE),
                                         leafp("web", PROP_OS_UNIXLIKE, p80), 0, &site_origin,
                                         &web),
                     PROP_OK);
    root =
        combine(PROP_REQUIRES, pair("apt installed x", "apt removed x", PROP_OS_DEBIANLIKE), web);
    root = combine(PROP_BEFORE, root, shared);
    ck_assert_int_eq(prop_revert_new(S, root, &site_origin, &rev), PROP_OK);
    count = prop_node_made_since(S, rev, mark);
    ck_assert_uint_eq(count, prop_site_mark(S) - mark);
    ck_assert_uint_ge(count, 6);

    before = prop_site_mark(S);
    ck_assert_int_eq(prop_node_remake(S, mark, count, &other_origin, &copy), PROP_OK);
    ck_assert_ptr_nonnull(copy);
    ck_assert_uint_eq(prop_site_mark(S), before + count);
    ck_assert_ptr_ne(copy, rev);
    /* The same type, description and shape ... */
    ck_assert_int_eq(prop_node_kind(copy), PROP_REVERT);
    ck_assert_str_eq(prop_node_desc(copy), prop_node_desc(rev));
    ck_assert_str_eq(prop_node_type(copy, t1, sizeof t1), prop_node_type(rev, t2, sizeof t2));
    ck_assert_uint_eq(prop_node_weight(copy), prop_node_weight(rev));
    ck_assert_uint_eq(prop_node_nports(copy), 1);
    ck_assert_int_eq(prop_node_port(copy, 0), 80);
    /* ... at the new place, with links to copies, and the older node shared. */
    ck_assert_ptr_eq(prop_node_origin(copy)->frames[0].file, prop_node_origin(rev)->frames[0].file);
    ck_assert_uint_eq(prop_node_origin(copy)->nframes, 2);
    ck_assert_int_eq(prop_node_origin(copy)->frames[0].line, 9);
    ck_assert_int_eq(prop_node_origin(copy)->frames[1].line, 30);
    {
        prop_node *before_node = prop_node_child(copy, 0);
        prop_node *orig_before = prop_node_child(rev, 0);

        ck_assert_ptr_ne(before_node, orig_before);
        ck_assert_int_eq(prop_node_origin(before_node)->frames[0].line, 9);
        ck_assert_ptr_eq(prop_node_child(before_node, 1), shared);
        ck_assert_ptr_ne(prop_node_child(before_node, 0), prop_node_child(orig_before, 0));
    }
    /* The reverted form is the copy's own, made of copies. */
    ck_assert_ptr_nonnull(prop_node_reverted(copy));
    ck_assert_ptr_ne(prop_node_reverted(copy), prop_node_reverted(rev));
    ck_assert_str_eq(prop_node_desc(prop_node_reverted(copy)),
                     prop_node_desc(prop_node_reverted(rev)));
    ck_assert_int_eq(prop_node_origin(prop_node_reverted(copy))->frames[0].line, 9);
    /* The copies can be made again in turn. */
    ck_assert_uint_eq(prop_node_made_since(S, copy, before), count);
}
END_TEST

START_TEST(test_remake_refused)
{
    prop_node *a, *b, *root, *out = NULL;
    size_t mark = prop_site_mark(S);

    /* A node made but left out of the result cannot be made again. */
    a = leaf("a", PROP_OS_UNIXLIKE);
    (void)leaf("dropped", PROP_OS_UNIXLIKE);
    b = leaf("b", PROP_OS_UNIXLIKE);
    root = combine(PROP_REQUIRES, a, b);
    ck_assert_uint_eq(prop_node_made_since(S, root, mark), 0);
    /* Nor a result that is not the last node made. */
    mark = prop_site_mark(S);
    a = leaf("a", PROP_OS_UNIXLIKE);
    (void)leaf("after", PROP_OS_UNIXLIKE);
    ck_assert_uint_eq(prop_node_made_since(S, a, mark), 0);
    /* Nor nodes made at different places. */
    mark = prop_site_mark(S);
    a = leaf("a", PROP_OS_UNIXLIKE);
    ck_assert_int_eq(prop_combine_new(S, PROP_BEFORE, a, a, &other_origin, &root), PROP_OK);
    ck_assert_uint_eq(prop_node_made_since(S, root, mark), 0);
    /* Nor nothing, nor too many. */
    ck_assert_uint_eq(prop_node_made_since(S, root, prop_site_mark(S)), 0);
    mark = prop_site_mark(S);
    root = leaf("x", PROP_OS_UNIXLIKE);
    for (int i = 0; i < PROP_REMAKE_MAX; i++)
        root = combine(PROP_REQUIRES, root, root);
    ck_assert_uint_eq(prop_node_made_since(S, root, mark), 0);
    /* A range that is not there is refused with an error, not a crash. */
    ck_assert_int_eq(prop_node_remake(S, prop_site_mark(S), 1, &site_origin, &out), PROP_EINVAL);
    ck_assert_ptr_null(out);
    ck_assert_int_eq(prop_node_remake(S, 0, PROP_REMAKE_MAX + 1, &site_origin, &out), PROP_EINVAL);
    ck_assert_int_eq(prop_node_remake(S, 0, 0, &site_origin, &out), PROP_EINVAL);
    ck_assert_int_eq(prop_node_remake(NULL, 0, 1, &site_origin, &out), PROP_EINVAL);
}
END_TEST

static Suite *
graph_suite(void)
{
    Suite *s = suite_create("graph");
    TCase *tc;

    tc = tcase_create("leaf");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_leaf_defaults);
    tcase_add_test(tc, test_leaf_copies);
    tcase_add_test(tc, test_leaf_binary_value);
    tcase_add_test(tc, test_leaf_info_kind);
    tcase_add_test(tc, test_leaf_rejects);
    tcase_add_test(tc, test_strings_shared);
    suite_add_tcase(s, tc);

    tc = tcase_create("combine");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_combine_types);
    tcase_add_test(tc, test_combine_ports_union);
    tcase_add_test(tc, test_on_change_revertable_iff_a);
    tcase_add_test(tc, test_combine_info_only);
    tcase_add_test(tc, test_combine_conflict);
    tcase_add_test(tc, test_combine_rejects);
    suite_add_tcase(s, tc);

    tc = tcase_create("lists");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_pick_os_types);
    tcase_add_test(tc, test_props_types);
    tcase_add_test(tc, test_props_info_and_ports);
    suite_add_tcase(s, tc);

    tc = tcase_create("revertable_describe");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_revertable_types);
    tcase_add_test(tc, test_describe);
    tcase_add_test(tc, test_only_if);
    suite_add_tcase(s, tc);

    tc = tcase_create("revert");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_revert_pair);
    tcase_add_test(tc, test_revert_not_revertable);
    tcase_add_test(tc, test_revert_requires_before);
    tcase_add_test(tc, test_revert_fallback_on_change);
    tcase_add_test(tc, test_revert_props_pick_os);
    tcase_add_test(tc, test_revert_conflict_once);
    tcase_add_test(tc, test_revert_describe_twice);
    tcase_add_test(tc, test_revert_ports_and_types);
    tcase_add_test(tc, test_revert_shared_subtree);
    tcase_add_test(tc, test_revert_deep_chain);
    suite_add_tcase(s, tc);

    tc = tcase_create("each_leaf");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_each_leaf_order);
    tcase_add_test(tc, test_each_leaf_pick_os);
    tcase_add_test(tc, test_each_leaf_stop_and_invalid);
    tcase_add_test(tc, test_each_leaf_wide);
    suite_add_tcase(s, tc);

    tc = tcase_create("names");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_type_strings);
    tcase_add_test(tc, test_os_names);
    tcase_add_test(tc, test_os_from_os_release);
    tcase_add_test(tc, test_claim_and_kind_names);
    suite_add_tcase(s, tc);

    tc = tcase_create("origins_sources");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_origins);
    tcase_add_test(tc, test_origins_many);
    tcase_add_test(tc, test_origins_by_line);
    tcase_add_test(tc, test_source_lines);
    tcase_add_test(tc, test_source_adopted);
    suite_add_tcase(s, tc);

    tc = tcase_create("remake");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_remake);
    tcase_add_test(tc, test_remake_refused);
    suite_add_tcase(s, tc);

    tc = tcase_create("hosts");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_hosts);
    tcase_add_test(tc, test_host_info_pick_os);
    tcase_add_test(tc, test_many_hosts);
    suite_add_tcase(s, tc);

    tc = tcase_create("invalid");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_invalid);
    suite_add_tcase(s, tc);

    tc = tcase_create("memory");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_memory_counted);
    tcase_add_test(tc, test_memory_refused);
    tcase_add_test(tc, test_arena);
    tcase_add_test(tc, test_ptrvec);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    return run_suite(graph_suite());
}
