/*
 * check_web.c - web sites in the pre-pass: the claim kinds web.name and
 * web.default (their keys checked and lower-cased, found by prop claims'
 * query), P017 (two sites of one name and port, two default sites of one
 * port), and the ports a web server's sites share (shares_ports) without
 * P006, while any other pair on one port still is P006.  Driven from C
 * with the engine API alone.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prop/prop.h"
#include "unit.h"

static prop_site *S;

static prop_origin
at(int line)
{
    static prop_frame frames[64];
    static unsigned next;
    prop_frame *f = &frames[next++ % 64];
    prop_origin o;

    f->file = "site.lua";
    f->line = line;
    o.frames = f;
    o.nframes = 1;
    return o;
}

static prop_node *
debian(int line)
{
    prop_leaf_spec spec;
    prop_info info = {"os", "os.debian \"bookworm\" amd64"};
    prop_origin o = at(line);
    prop_node *n = NULL;

    memset(&spec, 0, sizeof spec);
    spec.desc = info.value;
    spec.info = &info;
    spec.ninfo = 1;
    spec.info_only = 1;
    spec.os_family = PROP_OS_DEBIAN;
    spec.norevert = "declaring the operating system has no revert action";
    spec.behaviour = -1;
    ck_assert_int_eq(prop_leaf_new(S, &spec, &o, &n), PROP_OK);
    return n;
}

/* A leaf with up to four claims and ports, shares_ports server or NULL. */
static prop_node *
leaf(const char *desc, int line, const char *server, const prop_claim *claims, size_t nclaims,
     const int *ports, size_t nports)
{
    prop_leaf_spec spec;
    prop_origin o = at(line);
    prop_node *n = NULL;

    memset(&spec, 0, sizeof spec);
    spec.desc = desc;
    spec.targets = PROP_OS_DEBIANLIKE;
    spec.claims = claims;
    spec.nclaims = nclaims;
    spec.ports = ports;
    spec.nports = nports;
    spec.shares_ports = server;
    spec.behaviour = -1;
    ck_assert_int_eq(prop_leaf_new(S, &spec, &o, &n), PROP_OK);
    return n;
}

/* An nginx site answering name ("www.example.com:80"), the default site of
 * its port when def. */
static prop_node *
site(const char *desc, int line, const char *name, int port, int def)
{
    char key[16];
    prop_claim c[2] = {{PROP_CLAIM_WEB_NAME, name, "nginx", 0, -1, 0},
                       {PROP_CLAIM_WEB_DEFAULT, key, "nginx", 0, -1, 0}};

    snprintf(key, sizeof key, "%d", port);
    return leaf(desc, line, "nginx", c, def ? 2 : 1, &port, 1);
}

static prop_node *
tor(int line)
{
    static const int p[] = {443};

    return leaf("tor bridge", line, NULL, NULL, 0, p, 1);
}

static prop_host *
host(const char *name, int line, prop_node *const *props, size_t n)
{
    prop_origin o = at(line);
    prop_host *h = NULL;

    ck_assert_int_eq(prop_host_new(S, name, &o, &h), PROP_OK);
    for (size_t i = 0; i < n; i++)
        ck_assert_int_eq(prop_host_add(S, h, props[i]), PROP_OK);
    return h;
}

#define HOST(name, line, ...)                                                                      \
    host(name, line, (prop_node *[]){__VA_ARGS__},                                                 \
         sizeof((prop_node *[]){__VA_ARGS__}) / sizeof(prop_node *))

static prop_node *
props(int line, prop_node *const *items, size_t n)
{
    prop_origin o = at(line);
    prop_node *out = NULL;

    ck_assert_int_eq(prop_list_new(S, PROP_PROPS, items, n, &o, &out), PROP_OK);
    return out;
}

#define PROPS(line, ...)                                                                           \
    props(line, (prop_node *[]){__VA_ARGS__},                                                      \
          sizeof((prop_node *[]){__VA_ARGS__}) / sizeof(prop_node *))

static size_t
count(const char *code)
{
    size_t n = 0;

    for (size_t i = 0; i < prop_site_ndiags(S); i++)
        if (strcmp(prop_site_diag(S, i)->code, code) == 0)
            n++;
    return n;
}

static const prop_diag *
only(const char *code)
{
    ck_assert_uint_eq(count(code), 1);
    for (size_t i = 0; i < prop_site_ndiags(S); i++)
        if (strcmp(prop_site_diag(S, i)->code, code) == 0)
            return prop_site_diag(S, i);
    return NULL;
}

static void
expect_note(const prop_diag *d, size_t i, int line, const char *msg)
{
    ck_assert_uint_gt(d->nnotes, i);
    ck_assert_int_eq(d->notes[i].line, line);
    ck_assert_str_eq(d->notes[i].message, msg);
}

static void
setup(void)
{
    ck_assert_int_eq(prop_site_new(&S, NULL, NULL), PROP_OK);
}

static void
teardown(void)
{
    prop_site_free(S);
    S = NULL;
}

/* ---- the claim kinds ---- */

START_TEST(kinds_named)
{
    prop_claim_kind k;

    ck_assert_str_eq(prop_claim_kind_name(PROP_CLAIM_WEB_NAME), "web.name");
    ck_assert_str_eq(prop_claim_kind_name(PROP_CLAIM_WEB_DEFAULT), "web.default");
    ck_assert_int_eq(prop_claim_kind_parse("web.name", &k), PROP_OK);
    ck_assert_int_eq(k, PROP_CLAIM_WEB_NAME);
    ck_assert_int_eq(prop_claim_kind_parse("web.default", &k), PROP_OK);
    ck_assert_int_eq(k, PROP_CLAIM_WEB_DEFAULT);
}
END_TEST

/* Keys of the wrong form are refused, with what was given; names are
 * lower-cased. */
START_TEST(keys_checked)
{
    static const char *const bad_names[] = {
        "www.example.com",    "www.example.com:",      ":80",
        "www.example.com:0",  "www.example.com:65536", "www.example.com:080",
        "www example.com:80", "www.example.com:8o"};
    static const char *const bad_ports[] = {"", "0", "65536", "http", "80 ", "-1"};
    prop_leaf_spec spec;
    prop_claim c = {PROP_CLAIM_WEB_NAME, NULL, "nginx", 0, -1, 0};
    prop_origin o = at(1);
    prop_node *n = NULL;

    memset(&spec, 0, sizeof spec);
    spec.desc = "site";
    spec.claims = &c;
    spec.nclaims = 1;
    spec.behaviour = -1;
    for (size_t i = 0; i < sizeof bad_names / sizeof bad_names[0]; i++) {
        c.key = bad_names[i];
        ck_assert_int_eq(prop_leaf_new(S, &spec, &o, &n), PROP_EINVAL);
        ck_assert_ptr_nonnull(strstr(prop_site_error(S), "\"NAME:PORT\""));
        ck_assert_ptr_nonnull(strstr(prop_site_error(S), bad_names[i]));
    }
    c.kind = PROP_CLAIM_WEB_DEFAULT;
    for (size_t i = 0; i < sizeof bad_ports / sizeof bad_ports[0]; i++) {
        c.key = bad_ports[i];
        ck_assert_int_eq(prop_leaf_new(S, &spec, &o, &n), PROP_EINVAL);
        ck_assert_ptr_nonnull(strstr(prop_site_error(S), "web.default"));
    }
    c.kind = PROP_CLAIM_WEB_NAME;
    c.key = "WWW.Example.COM:8080";
    ck_assert_int_eq(prop_leaf_new(S, &spec, &o, &n), PROP_OK);
    ck_assert_str_eq(prop_node_claim(n, 0)->key, "www.example.com:8080");
    c.kind = PROP_CLAIM_WEB_DEFAULT;
    c.key = "443";
    ck_assert_int_eq(prop_leaf_new(S, &spec, &o, &n), PROP_OK);
    spec.nclaims = 0;
    spec.shares_ports = "";
    ck_assert_int_eq(prop_leaf_new(S, &spec, &o, &n), PROP_EINVAL);
}
END_TEST

/* ---- shares_ports and P006 ---- */

START_TEST(shared_ports_no_p006)
{
    static const int p80[] = {80}, both[] = {80, 443};
    prop_node *installed = leaf("nginx installed", 3, "nginx", NULL, 0, p80, 1);
    prop_node *a = leaf("nginx site a", 4, "nginx", NULL, 0, both, 2);
    prop_node *b = leaf("nginx site b", 5, "nginx", NULL, 0, both, 2);

    HOST("web1", 1, debian(2), installed, a, b);
    /* Inside one combinator too. */
    HOST("web2", 6, debian(7), PROPS(8, leaf("nginx site c", 9, "nginx", NULL, 0, both, 2), a));
    ck_assert_int_eq(prop_site_check(S), 0);
    ck_assert_uint_eq(count("P006"), 0);
}
END_TEST

START_TEST(other_pairs_p006)
{
    static const int p80[] = {80}, p443[] = {443};
    const prop_diag *d;

    /* A site and a Tor bridge on 443; an nginx and an Apache site on 80. */
    HOST("web1", 1, debian(2), leaf("nginx site a", 3, "nginx", NULL, 0, p443, 1), tor(4));
    HOST("web2", 5, debian(6), leaf("nginx site b", 7, "nginx", NULL, 0, p80, 1),
         leaf("apache site c", 8, "apache", NULL, 0, p80, 1));
    ck_assert_int_eq(prop_site_check(S), 2);
    ck_assert_uint_eq(count("P006"), 2);
    d = prop_site_diag(S, 0);
    ck_assert_str_eq(d->code, "P006");
    ck_assert_int_eq(d->line, 4);
    ck_assert_str_eq(d->message, "port 443 is used by both \"tor bridge\" and \"nginx site a\" "
                                 "on host \"web1\": two services cannot listen on one port");
    d = prop_site_diag(S, 1);
    ck_assert_int_eq(d->line, 8);
    /* A site and a bridge in one combinator: P006 there. */
    teardown();
    setup();
    HOST("web3", 1, debian(2),
         PROPS(3, leaf("nginx site a", 4, "nginx", NULL, 0, p443, 1), tor(5)));
    ck_assert_int_eq(prop_site_check(S), 1);
    d = only("P006");
    ck_assert_int_eq(d->line, 3);
}
END_TEST

/* ---- P017 ---- */

START_TEST(p017_name)
{
    const prop_diag *d;

    HOST("web1", 1, debian(2), site("nginx site old", 3, "www.example.com:80", 80, 0),
         site("web site www.example.com", 4, "www.example.com:80", 80, 0));
    ck_assert_int_eq(prop_site_check(S), 1);
    d = only("P017");
    ck_assert_int_eq(d->line, 4);
    ck_assert_int_eq(d->severity, PROP_SEV_ERROR);
    ck_assert_str_eq(d->message,
                     "two web sites answer www.example.com on port 80 on host \"web1\": \"web "
                     "site www.example.com\" here and \"nginx site old\" at site.lua:3: the "
                     "server would answer with one of them only");
    expect_note(d, 0, 3, "\"nginx site old\" answers www.example.com on port 80 here");
}
END_TEST

START_TEST(p017_default)
{
    const prop_diag *d;

    HOST("web1", 1, debian(2), site("nginx site a", 3, "a.example.com:80", 80, 1),
         site("nginx site b", 4, "b.example.com:80", 80, 1));
    ck_assert_int_eq(prop_site_check(S), 1);
    d = only("P017");
    ck_assert_int_eq(d->line, 4);
    ck_assert_str_eq(d->message,
                     "two default web sites for port 80 on host \"web1\": \"nginx site b\" here "
                     "and \"nginx site a\" at site.lua:3: a server has one default site per port");
    expect_note(d, 0, 3, "\"nginx site a\" is the default site of port 80 here");
}
END_TEST

/* Identical sites twice are W101 only; other ports, other hosts and a
 * reverted site do not clash. */
START_TEST(p017_near_miss)
{
    prop_node *a = site("nginx site a", 3, "www.example.com:80", 80, 1);
    prop_node *old = site("nginx site old", 7, "www.example.com:80", 80, 1);
    prop_origin o = at(8);
    prop_node *gone = NULL;

    HOST("web1", 1, debian(2), a, a, site("nginx site tls", 4, "www.example.com:443", 443, 1));
    HOST("web2", 5, debian(6), site("nginx site a", 3, "www.example.com:80", 80, 1));
    ck_assert_int_eq(prop_revert_new(S, old, &o, &gone), PROP_OK);
    HOST("web3", 9, debian(10), a, gone);
    prop_site_check(S);
    ck_assert_uint_eq(count("P017"), 0);
    ck_assert_uint_eq(count("P006"), 0);
}
END_TEST

/* Only what takes effect counts: a pick_os alternative for another OS
 * answering the same name is not a second site. */
START_TEST(p017_pick_os)
{
    prop_leaf_spec spec;
    prop_claim c = {PROP_CLAIM_WEB_NAME, "www.example.com:80", "nginx", 0, -1, 0};
    int port = 80;
    prop_origin o = at(4);
    prop_node *bsd = NULL, *alt[2], *pick = NULL;

    memset(&spec, 0, sizeof spec);
    spec.desc = "freebsd nginx site www";
    spec.targets = PROP_OS_FREEBSD;
    spec.claims = &c;
    spec.nclaims = 1;
    spec.ports = &port;
    spec.nports = 1;
    spec.shares_ports = "nginx";
    spec.behaviour = -1;
    ck_assert_int_eq(prop_leaf_new(S, &spec, &o, &bsd), PROP_OK);
    alt[0] = bsd;
    alt[1] = site("nginx site www", 5, "www.example.com:80", 80, 0);
    ck_assert_int_eq(prop_list_new(S, PROP_PICK_OS, alt, 2, &o, &pick), PROP_OK);
    HOST("web1", 1, debian(2), site("nginx site old", 3, "www.example.com:80", 80, 0), pick);
    ck_assert_int_eq(prop_site_check(S), 1);
    ck_assert_int_eq(only("P017")->line, 5);
}
END_TEST

/* ---- P017 across a host and the containers sharing its network ---- */

/* A container of kind with its OS and props (an info leaf when info_key). */
static prop_host *
container(prop_container_kind kind, const char *name, int line, const char *info_key,
          const char *info_value, prop_node *site_node)
{
    prop_origin o = at(line);
    prop_host *c = NULL;

    ck_assert_int_eq(prop_container_new(S, kind, name, &o, &c), PROP_OK);
    ck_assert_int_eq(prop_host_add(S, c, debian(line)), PROP_OK);
    if (info_key) {
        prop_leaf_spec spec;
        prop_info info = {info_key, info_value};
        prop_node *n = NULL;

        memset(&spec, 0, sizeof spec);
        spec.desc = info_key;
        spec.info = &info;
        spec.ninfo = 1;
        spec.info_only = 1;
        spec.behaviour = -1;
        ck_assert_int_eq(prop_leaf_new(S, &spec, &o, &n), PROP_OK);
        ck_assert_int_eq(prop_host_add(S, c, n), PROP_OK);
    }
    if (site_node)
        ck_assert_int_eq(prop_host_add(S, c, site_node), PROP_OK);
    return c;
}

/* What puts container c on its host. */
static prop_node *
put(prop_host *c, int line)
{
    prop_leaf_spec spec;
    prop_origin o = at(line);
    prop_node *n = NULL;

    memset(&spec, 0, sizeof spec);
    spec.desc = prop_host_name(c);
    spec.behaviour = -1;
    spec.container = c;
    ck_assert_int_eq(prop_leaf_new(S, &spec, &o, &n), PROP_OK);
    return n;
}

START_TEST(p017_chroot)
{
    const prop_diag *d;
    prop_host *c = container(PROP_CONTAINER_CHROOT, "old", 1, NULL, NULL,
                             site("nginx site old", 2, "www.example.com:80", 80, 1));

    HOST("box", 3, debian(4), site("nginx site new", 5, "www.example.com:80", 80, 0), put(c, 6));
    ck_assert_int_eq(prop_site_check(S), 1);
    d = only("P017");
    ck_assert_int_eq(d->line, 5);
    ck_assert_str_eq(d->message,
                     "two web sites answer www.example.com on port 80 in the network of host "
                     "\"box\": \"nginx site new\" on \"box\" here and \"nginx site old\" on "
                     "\"box/old\" at site.lua:2 (\"box/old\" has no network of its own): only "
                     "one of them can answer there");
    expect_note(d, 0, 2, "\"nginx site old\" answers www.example.com on port 80 here");
}
END_TEST

/* A chroot in an nspawn machine without a network of its own, on a host
 * that is itself the default site's: the default clash crosses both. */
START_TEST(p017_nested)
{
    const prop_diag *d;
    prop_host *inner = container(PROP_CONTAINER_CHROOT, "inner", 1, NULL, NULL,
                                 site("nginx site b", 2, "b.example.com:80", 80, 1));
    prop_host *m = container(PROP_CONTAINER_NSPAWN, "m", 3, NULL, NULL, put(inner, 4));

    HOST("box", 5, debian(6), site("nginx site a", 7, "a.example.com:80", 80, 1), put(m, 8));
    ck_assert_int_eq(prop_site_check(S), 1);
    d = only("P017");
    ck_assert_ptr_nonnull(strstr(d->message, "two default web sites for port 80 in the network "
                                             "of host \"box\""));
}
END_TEST

/* Containers with a network of their own: Docker, a machine with a private
 * network or published ports, a jail with an address; and a jail that
 * inherits the host's, which clashes. */
START_TEST(p017_own_networks)
{
    const prop_diag *d;
    prop_host *dk = container(PROP_CONTAINER_DOCKER, "dk", 1, NULL, NULL,
                              site("nginx site d", 2, "www.example.com:80", 80, 1));
    prop_host *pn = container(PROP_CONTAINER_NSPAWN, "pn", 3, "container.private_network", "yes",
                              site("nginx site p", 4, "www.example.com:80", 80, 1));
    prop_host *pub = container(PROP_CONTAINER_NSPAWN, "pub", 5, "container.publish", "tcp:8080:80",
                               site("nginx site q", 6, "www.example.com:80", 80, 1));
    prop_host *j = container(PROP_CONTAINER_JAIL, "j", 7, "container.ip4", "em0|192.0.2.50",
                             site("nginx site j", 8, "www.example.com:80", 80, 1));
    prop_host *ji = container(PROP_CONTAINER_JAIL, "ji", 9, "container.ip4", "inherit",
                              site("nginx site ji", 10, "www.example.com:80", 80, 0));

    HOST("box", 11, debian(12), site("nginx site a", 13, "www.example.com:80", 80, 1), put(dk, 14),
         put(pn, 15), put(pub, 16), put(j, 17));
    HOST("bsd", 18, debian(19), site("nginx site a", 13, "www.example.com:80", 80, 1), put(ji, 20));
    prop_site_check(S);
    d = only("P017");
    ck_assert_int_eq(d->line, 13);
    ck_assert_ptr_nonnull(strstr(d->message, "on \"bsd\" here and \"nginx site ji\" on "
                                             "\"bsd/ji\" at site.lua:10"));
}
END_TEST

/* ---- prop claims: port:N, a name, a key ---- */

typedef struct found {
    int n;
    char what[8][64];
} found;

static int
collect(void *ud, const prop_claim_match *m)
{
    found *f = ud;

    if (f->n < 8) {
        if (m->claim)
            snprintf(f->what[f->n], sizeof f->what[0], "%s %s",
                     prop_claim_kind_name(m->claim->kind), m->claim->key);
        else
            snprintf(f->what[f->n], sizeof f->what[0], "port %d", m->port);
    }
    f->n++;
    return 0;
}

START_TEST(query_sites)
{
    found f;

    HOST("web1", 1, debian(2), site("nginx site a", 3, "www.example.com:80", 80, 1),
         site("nginx site b", 4, "api.example.com:8080", 8080, 0));
    ck_assert_int_eq(prop_site_check(S), 0);
    memset(&f, 0, sizeof f);
    ck_assert_int_eq(prop_site_find_claims(S, "port:80", collect, &f), 0);
    ck_assert_int_eq(f.n, 3);
    ck_assert_str_eq(f.what[0], "web.name www.example.com:80");
    ck_assert_str_eq(f.what[1], "web.default 80");
    ck_assert_str_eq(f.what[2], "port 80");
    memset(&f, 0, sizeof f);
    ck_assert_int_eq(prop_site_find_claims(S, "WWW.example.com", collect, &f), 0);
    ck_assert_int_eq(f.n, 1);
    ck_assert_str_eq(f.what[0], "web.name www.example.com:80");
    memset(&f, 0, sizeof f);
    ck_assert_int_eq(prop_site_find_claims(S, "api.example.com:8080", collect, &f), 0);
    ck_assert_int_eq(f.n, 1);
    memset(&f, 0, sizeof f);
    ck_assert_int_eq(prop_site_find_claims(S, "example.com", collect, &f), 0);
    ck_assert_int_eq(f.n, 0);
}
END_TEST

static Suite *
web_suite(void)
{
    Suite *s = suite_create("web");
    TCase *tc = tcase_create("web");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, kinds_named);
    tcase_add_test(tc, keys_checked);
    tcase_add_test(tc, shared_ports_no_p006);
    tcase_add_test(tc, other_pairs_p006);
    tcase_add_test(tc, p017_name);
    tcase_add_test(tc, p017_default);
    tcase_add_test(tc, p017_near_miss);
    tcase_add_test(tc, p017_pick_os);
    tcase_add_test(tc, p017_chroot);
    tcase_add_test(tc, p017_nested);
    tcase_add_test(tc, p017_own_networks);
    tcase_add_test(tc, query_sites);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    return run_suite(web_suite());
}
