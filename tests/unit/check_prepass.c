/*
 * check_prepass.c - the static pre-pass (prepass.c) and its diagnostics
 * (diag.c, explain.c, json.c), driven from C with the engine API alone.
 *
 * Each rule has its own TCase: sites that must be rejected with the code
 * at the right line and with the right notes, and near misses that must
 * pass.  The helpers below build properties shaped like the recipes'
 * (same descriptions, targets, claims) without any Lua.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "prop/prop.h"
#include "unit.h"

static prop_site *S;

/* ---- building sites ---- */

static prop_origin
at_in(const char *file, int line)
{
    static prop_frame frames[64];
    static unsigned next;
    prop_frame *f = &frames[next++ % 64];
    prop_origin o;

    f->file = file;
    f->line = line;
    o.frames = f;
    o.nframes = 1;
    return o;
}

static prop_origin
at(int line)
{
    return at_in("site.lua", line);
}

typedef struct spec_extra {
    const prop_claim *claims;
    size_t nclaims;
    const int *ports;
    size_t nports;
    const prop_info *info;
    size_t ninfo;
    int info_only;
    prop_os_set os_family;
    const char *norevert;
} spec_extra;

static prop_node *
leaf_x(const char *desc, prop_os_set targets, int line, spec_extra x)
{
    prop_leaf_spec spec;
    prop_origin o = at(line);
    prop_node *n = NULL;

    memset(&spec, 0, sizeof spec);
    spec.desc = desc;
    spec.targets = targets;
    spec.claims = x.claims;
    spec.nclaims = x.nclaims;
    spec.ports = x.ports;
    spec.nports = x.nports;
    spec.info = x.info;
    spec.ninfo = x.ninfo;
    spec.info_only = x.info_only;
    spec.os_family = x.os_family;
    spec.norevert = x.norevert;
    spec.behaviour = -1;
    ck_assert_int_eq(prop_leaf_new(S, &spec, &o, &n), PROP_OK);
    return n;
}

static prop_node *
leaf(const char *desc, prop_os_set targets, int line)
{
    spec_extra x;

    memset(&x, 0, sizeof x);
    return leaf_x(desc, targets, line, x);
}

/* A leaf with one claim. */
static prop_node *
claim1(const char *desc, prop_os_set targets, int line, prop_claim_kind kind, const char *key,
       const char *value, long long id)
{
    prop_claim c;
    spec_extra x;

    memset(&x, 0, sizeof x);
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.key = key;
    c.value = value;
    c.value_len = 0;
    c.id = id;
    x.claims = &c;
    x.nclaims = 1;
    return leaf_x(desc, targets, line, x);
}

static prop_node *
pair(prop_node *a, prop_node *b, int paired, int line)
{
    prop_origin o = at(line);
    prop_node *n = NULL;

    ck_assert_int_eq(prop_revertable_new(S, a, b, paired, &o, &n), PROP_OK);
    return n;
}

static prop_node *
combine(prop_kind kind, prop_node *a, prop_node *b, int line)
{
    prop_origin o = at(line);
    prop_node *n = NULL;

    ck_assert_int_eq(prop_combine_new(S, kind, a, b, &o, &n), PROP_OK);
    return n;
}

static prop_node *
list(prop_kind kind, int line, prop_node *const *items, size_t n)
{
    prop_origin o = at(line);
    prop_node *out = NULL;

    ck_assert_int_eq(prop_list_new(S, kind, items, n, &o, &out), PROP_OK);
    return out;
}

static prop_node *
revert(prop_node *p, int line)
{
    prop_origin o = at(line);
    prop_node *n = NULL;

    ck_assert_int_eq(prop_revert_new(S, p, &o, &n), PROP_OK);
    return n;
}

static prop_node *
os_decl(prop_os_set family, const char *desc, int line)
{
    spec_extra x;
    prop_info info = {"os", desc};

    memset(&x, 0, sizeof x);
    x.info = &info;
    x.ninfo = 1;
    x.info_only = 1;
    x.os_family = family;
    x.norevert = "declaring the operating system has no revert action";
    return leaf_x(desc, 0, line, x);
}

static prop_node *
debian(int line)
{
    return os_decl(PROP_OS_DEBIAN, "os.debian \"bookworm\" amd64", line);
}

static prop_node *
freebsd(int line)
{
    return os_decl(PROP_OS_FREEBSD, "os.freebsd \"14.1\" amd64", line);
}

static prop_node *
info_leaf(const char *key, const char *value, int line)
{
    char desc[128];
    spec_extra x;
    prop_info info;

    info.key = key;
    info.value = value;
    memset(&x, 0, sizeof x);
    x.info = &info;
    x.ninfo = 1;
    x.info_only = 1;
    snprintf(desc, sizeof desc, "%s %s", key, value);
    return leaf_x(desc, 0, line, x);
}

/* apt.installed / apt.removed and pkg.* as the recipes pair them. */
static prop_node *
pkgs(const char *tool, prop_os_set t, const char *name, int installed, int line)
{
    char d1[128], d2[128];
    prop_node *in, *out;

    snprintf(d1, sizeof d1, "%s installed %s", tool, name);
    snprintf(d2, sizeof d2, "%s removed %s", tool, name);
    in = claim1(d1, t, line, PROP_CLAIM_PKG_INSTALLED, name, NULL, -1);
    out = claim1(d2, t, line, PROP_CLAIM_PKG_REMOVED, name, NULL, -1);
    return installed ? pair(in, out, 1, line) : pair(out, in, 1, line);
}

static prop_node *
apt_installed(const char *name, int line)
{
    return pkgs("apt", PROP_OS_DEBIANLIKE, name, 1, line);
}

static prop_node *
apt_removed(const char *name, int line)
{
    return pkgs("apt", PROP_OS_DEBIANLIKE, name, 0, line);
}

static prop_node *
pkg_installed(const char *name, int line)
{
    return pkgs("pkg", PROP_OS_FREEBSD, name, 1, line);
}

static prop_node *
file_content(const char *path, const char *content, int line)
{
    char d[256];
    spec_extra x;
    prop_claim c = {PROP_CLAIM_FILE_CONTENT, path, content, 0, -1, 0};

    snprintf(d, sizeof d, "file %s has content", path);
    memset(&x, 0, sizeof x);
    x.claims = &c;
    x.nclaims = 1;
    x.norevert = "file.has_content has no revert action: the old content is not known";
    return leaf_x(d, 0, line, x);
}

static prop_node *
file_state(const char *what, prop_claim_kind kind, const char *path, const char *value, int line)
{
    char d[256];

    snprintf(d, sizeof d, "file %s %s", path, what);
    return claim1(d, 0, line, kind, path, value, -1);
}

static prop_node *
file_lines(const char *path, const char *l, int contains, int line)
{
    char d1[256], d2[256];
    prop_node *a, *b;

    snprintf(d1, sizeof d1, "file %s contains lines", path);
    snprintf(d2, sizeof d2, "file %s lacks lines", path);
    a = claim1(d1, 0, line, PROP_CLAIM_FILE_LINE, path, l, -1);
    b = claim1(d2, 0, line, PROP_CLAIM_FILE_NO_LINE, path, l, -1);
    return contains ? pair(a, b, 1, line) : pair(b, a, 1, line);
}

static prop_node *
service(const char *name, prop_claim_kind kind, int line)
{
    char d[128];
    const char *what = kind == PROP_CLAIM_SVC_RUNNING   ? "running"
                       : kind == PROP_CLAIM_SVC_STOPPED ? "stopped"
                                                        : "restarted";

    snprintf(d, sizeof d, "service %s %s", name, what);
    return claim1(d, 0, line, kind, name, NULL, -1);
}

static prop_node *
user(const char *name, long long uid, int line)
{
    char d[128];

    snprintf(d, sizeof d, "user %s exists", name);
    return claim1(d, 0, line, PROP_CLAIM_USER, name, NULL, uid);
}

static prop_node *
ported(const char *desc, int line, const int *ports, size_t n)
{
    spec_extra x;

    memset(&x, 0, sizeof x);
    x.ports = ports;
    x.nports = n;
    return leaf_x(desc, PROP_OS_DEBIANLIKE, line, x);
}

static prop_node *
apache(int line)
{
    static const int p[] = {80, 443};

    return ported("apache installed", line, p, 2);
}

static prop_node *
tor(int line)
{
    static const int p[] = {443};

    return ported("tor bridge", line, p, 1);
}

static prop_host *
host(const char *name, int line, prop_node *const *props, size_t n)
{
    prop_origin o = at(line);
    prop_host *h = NULL;
    size_t i;

    ck_assert_int_eq(prop_host_new(S, name, &o, &h), PROP_OK);
    for (i = 0; i < n; i++)
        ck_assert_int_eq(prop_host_add(S, h, props[i]), PROP_OK);
    return h;
}

#define HOST(name, line, ...)                                                                      \
    do {                                                                                           \
        prop_node *items_[] = {__VA_ARGS__};                                                       \
        host(name, line, items_, sizeof items_ / sizeof items_[0]);                                \
    } while (0)

#define LIST(kind, line, ...)                                                                      \
    list(kind, line, (prop_node *[]){__VA_ARGS__},                                                 \
         sizeof((prop_node *[]){__VA_ARGS__}) / sizeof(prop_node *))

/* ---- looking at findings ---- */

static size_t
count(const char *code)
{
    size_t i, n = 0;

    for (i = 0; i < prop_site_ndiags(S); i++)
        if (strcmp(prop_site_diag(S, i)->code, code) == 0)
            n++;
    return n;
}

/* The k-th diagnostic with code (0-based); fails the test when missing. */
static const prop_diag *
nth(const char *code, size_t k)
{
    size_t i;

    for (i = 0; i < prop_site_ndiags(S); i++) {
        const prop_diag *d = prop_site_diag(S, i);

        if (strcmp(d->code, code) == 0 && k-- == 0)
            return d;
    }
    ck_abort_msg("no diagnostic %s", code);
    return NULL;
}

static const prop_diag *
only(const char *code)
{
    ck_assert_uint_eq(count(code), 1);
    return nth(code, 0);
}

static void
expect_note(const prop_diag *d, size_t i, int line, const char *msg)
{
    ck_assert_uint_gt(d->nnotes, i);
    ck_assert_int_eq(d->notes[i].line, line);
    ck_assert_str_eq(d->notes[i].message, msg);
}

/* Every finding, as the text printer gives it. */
static char *
text(int color, int werror)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(prop_diags_print_text(S, f, color, werror), PROP_OK);
    fclose(f);
    return buf;
}

static char *
json(int werror)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(prop_diags_print_json(S, f, werror), PROP_OK);
    fclose(f);
    return buf;
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

/* ---- P001 ---- */

START_TEST(p001_os)
{
    static const char src[] = "host \"h\" {\n"
                              "\n\n\n\n\n\n\n\n"
                              "  revert(os.debian(\"bookworm\", \"amd64\")),\n"
                              "}\n";
    char *out;

    ck_assert_int_eq(prop_site_add_source(S, "site.lua", src, strlen(src)), PROP_OK);
    HOST("h", 1, revert(debian(10), 10));
    ck_assert_int_eq(prop_site_check(S), 1);
    out = text(0, 0);
    ck_assert_str_eq(out, "site.lua:10: error[P001]: cannot revert os.debian \"bookworm\" amd64: "
                          "it is not revertable\n"
                          "   10 |   revert(os.debian(\"bookworm\", \"amd64\")),\n"
                          "site.lua:10: note: declaring the operating system has no revert "
                          "action\n");
    free(out);
}
END_TEST

START_TEST(p001_composite_names_the_leaf)
{
    prop_node *items[2];
    const prop_diag *d;

    items[0] = apt_installed("foo", 3);
    items[1] = file_content("/etc/motd", "hi\n", 4);
    HOST("h", 1, debian(2), revert(list(PROP_PROPS, 5, items, 2), 6));
    prop_site_check(S);
    d = only("P001");
    ck_assert_int_eq(d->line, 6);
    ck_assert_str_eq(d->message, "cannot revert props: it is not revertable");
    ck_assert_uint_eq(d->nnotes, 1);
    expect_note(d, 0, 4, "file.has_content has no revert action: the old content is not known");
}
END_TEST

START_TEST(p001_generic_note_and_on_change)
{
    const prop_diag *d;
    prop_node *a = leaf("cmd run foo", 0, 3);
    prop_node *hook = apt_installed("bar", 4);

    HOST("h", 1, debian(2), revert(combine(PROP_ON_CHANGE, a, hook, 5), 6));
    prop_site_check(S);
    d = only("P001");
    ck_assert_int_eq(d->line, 6);
    expect_note(d, 0, 3, "cmd run foo has no revert action");
}
END_TEST

START_TEST(p001_near_miss)
{
    prop_node *a = leaf("cmd run foo", 0, 3);

    /* on_change is revertable when its first part is: the hook does not count */
    HOST("h", 1, debian(2), revert(apt_installed("foo", 3), 3),
         revert(combine(PROP_ON_CHANGE, apt_installed("x", 4), a, 4), 4),
         revert(revert(file_lines("/etc/x", "a=1", 1, 5), 5), 5));
    ck_assert_int_eq(prop_site_check(S), 0);
    ck_assert_uint_eq(count("P001"), 0);
}
END_TEST

START_TEST(p001_nested_revert_reported_once)
{
    HOST("h", 1, debian(2), revert(revert(file_content("/a", "x", 3), 3), 4));
    prop_site_check(S);
    ck_assert_int_eq(only("P001")->line, 3);
}
END_TEST

/* ---- P002 ---- */

START_TEST(p002_apt_on_freebsd)
{
    const prop_diag *d;

    HOST("bsd1", 1, freebsd(2), apt_installed("nginx", 3));
    ck_assert_int_eq(prop_site_check(S), 1);
    d = only("P002");
    ck_assert_int_eq(d->line, 3);
    ck_assert_str_eq(
        d->message,
        "\"apt installed nginx\" runs only on DebianLike, but host \"bsd1\" is freebsd");
    ck_assert_uint_eq(d->nnotes, 1);
    expect_note(d, 0, 2, "host \"bsd1\" declared freebsd here");
}
END_TEST

START_TEST(p002_innermost_part)
{
    const prop_diag *d;
    prop_node *web = combine(
        PROP_REQUIRES, file_state("is a directory", PROP_CLAIM_FILE_DIRECTORY, "/srv", NULL, 3),
        apt_installed("nginx", 4), 5);

    HOST("bsd1", 1, freebsd(2), web);
    prop_site_check(S);
    d = only("P002");
    ck_assert_int_eq(d->line, 5);
    ck_assert_str_eq(d->message, "\"file /srv is a directory\" runs only on DebianLike, but host "
                                 "\"bsd1\" is freebsd");
    ck_assert_uint_eq(d->nnotes, 2);
    expect_note(d, 0, 4, "\"apt installed nginx\" runs only on DebianLike");
    expect_note(d, 1, 2, "host \"bsd1\" declared freebsd here");
}
END_TEST

START_TEST(p002_near_miss)
{
    prop_node *up = LIST(PROP_PICK_OS, 3, leaf("apt upgraded", PROP_OS_DEBIANLIKE, 3),
                         leaf("pkg upgraded", PROP_OS_FREEBSD, 3));

    HOST("bsd1", 1, freebsd(2), up, pkg_installed("nginx", 4), file_content("/etc/motd", "x", 5));
    HOST("deb1", 6, debian(7), up, apt_installed("nginx", 8));
    ck_assert_int_eq(prop_site_check(S), 0);
    ck_assert_uint_eq(prop_site_ndiags(S), 0);
}
END_TEST

START_TEST(p002_pick_os_without_fit)
{
    prop_node *p = LIST(PROP_PICK_OS, 3, leaf("apt upgraded", PROP_OS_DEBIANLIKE, 3),
                        leaf("apt dist-upgraded", PROP_OS_DEBIAN, 3));
    const prop_diag *d;

    HOST("bsd1", 1, freebsd(2), p);
    prop_site_check(S);
    d = only("P002");
    ck_assert_int_eq(d->line, 3);
    ck_assert_uint_eq(d->nnotes, 1); /* pick_os counts as a whole */
}
END_TEST

/* ---- P003 ---- */

START_TEST(p003_no_os)
{
    const prop_diag *d;

    /* Typed by its properties: DebianLike and FreeBSD share no system. */
    HOST("web1", 1, apt_installed("nginx", 2), file_content("/etc/motd", "x", 3),
         leaf("pkg installed tor", PROP_OS_FREEBSD, 4),
         leaf("pkg installed vim", PROP_OS_FREEBSD, 5));
    ck_assert_int_eq(prop_site_check(S), 1);
    d = only("P003"); /* one per host */
    ck_assert_int_eq(d->line, 4);
    ck_assert_str_eq(d->message, "\"pkg installed tor\" runs only on FreeBSD, but \"apt installed "
                                 "nginx\" on host \"web1\" runs only on DebianLike: host \"web1\" "
                                 "declares no operating system, and no system runs both");
    expect_note(d, 0, 2, "\"apt installed nginx\" runs only on DebianLike");
    expect_note(d, 1, 1,
                "host \"web1\" is declared here: give it its OS (os.debian(...), os.rhel(...), "
                "os.freebsd(...), ...), or remove the property that does not belong");
}
END_TEST

START_TEST(p003_no_single_culprit)
{
    const prop_diag *d;

    /* debian|buntish, then buntish|freebsd (leaves buntish), then
     * debian|freebsd: each pair meets, the three do not. */
    HOST("web1", 1, leaf("a", PROP_OS_DEBIANLIKE, 2),
         leaf("b", PROP_OS_BUNTISH | PROP_OS_FREEBSD, 3),
         leaf("c", PROP_OS_DEBIAN | PROP_OS_FREEBSD, 4));
    ck_assert_int_eq(prop_site_check(S), 1);
    d = only("P003");
    ck_assert_int_eq(d->line, 4);
    ck_assert_str_eq(d->message, "\"c\" runs only on debian | freebsd, but the properties before "
                                 "it on host \"web1\" run together only on buntish: the host "
                                 "declares no operating system, and no system runs them all");
    expect_note(d, 0, 3, "\"b\" runs only on buntish | freebsd");
}
END_TEST

START_TEST(p003_near_miss)
{
    prop_node *up = LIST(PROP_PICK_OS, 3, leaf("apt upgraded", PROP_OS_DEBIANLIKE, 3),
                         leaf("pkg upgraded", PROP_OS_FREEBSD, 3));

    /* pick_os on a host without an OS: it fits whichever the host is. */
    HOST("web1", 1, up, file_content("/etc/motd", "x", 4), info_leaf("ipv4", "192.0.2.1", 5));
    /* Several DebianLike properties agree: the host is DebianLike. */
    HOST("web2", 6, apt_installed("nginx", 7), apt_installed("tor", 8), up,
         leaf("apt dist-upgraded", PROP_OS_DEBIAN, 9));
    ck_assert_int_eq(prop_site_check(S), 0);
    ck_assert_uint_eq(prop_host_targets(prop_site_find_host(S, "web1")),
                      PROP_OS_DEBIANLIKE | PROP_OS_FREEBSD);
    ck_assert_uint_eq(prop_host_targets(prop_site_find_host(S, "web2")), PROP_OS_DEBIAN);
}
END_TEST

/* ---- P004 ---- */

START_TEST(p004_two_oses)
{
    const prop_diag *d;

    HOST("web1", 1, debian(2), freebsd(3), apt_installed("nginx", 4));
    ck_assert_int_eq(prop_site_check(S), 1);
    d = only("P004");
    ck_assert_int_eq(d->line, 3);
    ck_assert_str_eq(d->message, "host \"web1\" declares its operating system twice, as "
                                 "os.debian \"bookworm\" amd64 and as os.freebsd \"14.1\" amd64: "
                                 "a host runs one operating system");
    expect_note(d, 0, 2, "os.debian \"bookworm\" amd64 is declared here");
    ck_assert_uint_eq(count("P002"), 0);
}
END_TEST

START_TEST(p004_nested)
{
    prop_node *base = LIST(PROP_PROPS, 1, debian(1), leaf("apt update", PROP_OS_DEBIANLIKE, 1));
    const prop_diag *d;

    HOST("web1", 2, base, os_decl(PROP_OS_DEBIAN, "os.debian \"trixie\" amd64", 4));
    prop_site_check(S);
    d = only("P004");
    ck_assert_int_eq(d->line, 4);
    expect_note(d, 0, 1, "os.debian \"bookworm\" amd64 is declared here");
}
END_TEST

START_TEST(p004_near_miss)
{
    HOST("web1", 1, debian(2), debian(3));
    prop_site_check(S);
    ck_assert_uint_eq(count("P004"), 0);
    ck_assert_uint_eq(count("W101"), 1);
}
END_TEST

/* ---- P005 ---- */

START_TEST(p005_requires)
{
    const prop_diag *d;
    prop_node *p = combine(PROP_REQUIRES, apt_installed("nginx", 1), pkg_installed("curl", 1), 1);

    combine(PROP_REQUIRES, p, file_content("/a", "b", 2), 2); /* not reported again */
    ck_assert_int_eq(prop_site_check(S), 1);
    d = only("P005");
    ck_assert_int_eq(d->line, 1);
    ck_assert_str_eq(d->message, "cannot combine \"apt installed nginx\" (DebianLike) with \"pkg "
                                 "installed curl\" (FreeBSD) in requires: no operating system can "
                                 "run both");
    ck_assert_uint_eq(d->nnotes, 2);
    expect_note(d, 0, 1, "\"apt installed nginx\" runs only on DebianLike");
    expect_note(d, 1, 1, "\"pkg installed curl\" runs only on FreeBSD");
}
END_TEST

START_TEST(p005_props_three)
{
    const prop_diag *d;
    prop_node *a = leaf("a", PROP_OS_DEBIAN | PROP_OS_FREEBSD, 2);
    prop_node *b = leaf("b", PROP_OS_BUNTISH | PROP_OS_FREEBSD, 3);
    prop_node *c = leaf("c", PROP_OS_DEBIANLIKE, 4);

    LIST(PROP_PROPS, 5, a, b, c);
    prop_site_check(S);
    d = only("P005");
    ck_assert_int_eq(d->line, 5);
    ck_assert_str_eq(d->message, "cannot combine \"c\" (DebianLike) with the properties before it "
                                 "in props, which together run only on FreeBSD: no operating "
                                 "system can run them all");
    ck_assert_uint_eq(d->nnotes, 3);
    expect_note(d, 2, 4, "\"c\" runs only on DebianLike");
}
END_TEST

START_TEST(p005_near_miss)
{
    LIST(PROP_PICK_OS, 1, apt_installed("nginx", 1), pkg_installed("nginx", 1));
    combine(PROP_BEFORE, apt_installed("a", 2), file_content("/a", "b", 2), 2);
    ck_assert_int_eq(prop_site_check(S), 0);
}
END_TEST

/* ---- P006 ---- */

START_TEST(p006_host)
{
    const prop_diag *d;

    HOST("web1", 1, debian(2), apache(3), tor(4));
    ck_assert_int_eq(prop_site_check(S), 1);
    d = only("P006");
    ck_assert_int_eq(d->line, 4);
    ck_assert_str_eq(d->message, "port 443 is used by both \"tor bridge\" and \"apache installed\" "
                                 "on host \"web1\": two services cannot listen on one port");
    ck_assert_uint_eq(d->nnotes, 1);
    expect_note(d, 0, 3, "\"apache installed\" uses port 443 here");
}
END_TEST

START_TEST(p006_composite_once)
{
    const prop_diag *d;
    prop_node *both = LIST(PROP_PROPS, 5, apache(3), tor(4));

    HOST("web1", 1, debian(2), both);
    HOST("web2", 6, debian(7), both);
    prop_site_check(S);
    d = only("P006");
    ck_assert_int_eq(d->line, 5);
    ck_assert_str_eq(d->message,
                     "port 443 is used by both \"tor bridge\" and \"apache installed\", "
                     "which props puts on one host: two services cannot listen on "
                     "one port");
    expect_note(d, 0, 3, "\"apache installed\" uses port 443 here");
    expect_note(d, 1, 4, "\"tor bridge\" uses port 443 here");
}
END_TEST

START_TEST(p006_top_note)
{
    const prop_diag *d;
    prop_node *web = combine(PROP_REQUIRES, tor(2), file_content("/x", "y", 3), 4);

    HOST("web1", 5, debian(6), apache(7), web);
    prop_site_check(S);
    d = only("P006");
    ck_assert_int_eq(d->line, 2);
    ck_assert_uint_eq(d->nnotes, 2);
    expect_note(d, 0, 7, "\"apache installed\" uses port 443 here");
    expect_note(d, 1, 4, "\"tor bridge\" puts it on host \"web1\" here");
}
END_TEST

START_TEST(p006_near_miss)
{
    prop_node *a = apache(3);

    HOST("web1", 1, debian(2), a, LIST(PROP_PROPS, 4, a, leaf("x", 0, 4)));
    HOST("web2", 5, debian(6), apache(7), apache(8));
    HOST("web3", 9, debian(10), tor(11));
    ck_assert_int_eq(prop_site_check(S), 0);
    ck_assert_uint_eq(count("P006"), 0);
}
END_TEST

/* ---- P014 ---- */

/* A docker container named name, its OS declared at line. */
static prop_host *
container(const char *name, int line)
{
    prop_origin o = at(line);
    prop_host *c = NULL;

    ck_assert_int_eq(prop_container_new(S, PROP_CONTAINER_DOCKER, name, &o, &c), PROP_OK);
    ck_assert_int_eq(prop_host_add(S, c, debian(line)), PROP_OK);
    return c;
}

/* What puts container c on its host, publishing port on it. */
static prop_node *
running(prop_host *c, int port, int line)
{
    prop_leaf_spec spec;
    prop_origin o = at(line);
    prop_node *n = NULL;
    char desc[64];

    snprintf(desc, sizeof desc, "docker running %s", prop_host_name(c));
    memset(&spec, 0, sizeof spec);
    spec.desc = desc;
    spec.ports = &port;
    spec.nports = 1;
    spec.behaviour = -1;
    spec.container = c;
    spec.publishes = 1;
    ck_assert_int_eq(prop_leaf_new(S, &spec, &o, &n), PROP_OK);
    return n;
}

START_TEST(p014_host_port)
{
    const prop_diag *d;
    prop_host *web = container("web", 1);

    HOST("box", 2, debian(3), apache(4), running(web, 80, 5));
    ck_assert_int_eq(prop_site_check(S), 1);
    d = only("P014");
    ck_assert_uint_eq(count("P006"), 0);
    ck_assert_int_eq(d->line, 5);
    ck_assert_str_eq(d->message,
                     "port 80 is published on host \"box\" by container \"box/web\" but "
                     "\"apache installed\" uses it on the host: the host cannot pass "
                     "it to the container and listen on it too");
    expect_note(d, 0, 4, "\"apache installed\" takes port 80 here");
}
END_TEST

START_TEST(p014_two_containers)
{
    const prop_diag *d;
    prop_host *web = container("web", 1), *api = container("api", 2);

    HOST("box", 3, debian(4), running(web, 8080, 5), running(api, 8080, 6));
    ck_assert_int_eq(prop_site_check(S), 1);
    d = only("P014");
    ck_assert_int_eq(d->line, 6);
    ck_assert_str_eq(d->message,
                     "port 8080 is published on host \"box\" by container \"box/api\" and "
                     "by container \"box/web\": one port of a host takes one container");
    expect_note(d, 0, 5, "\"docker running web\" takes port 8080 here");
}
END_TEST

START_TEST(p014_near_miss)
{
    prop_host *web = container("web", 1), *api = container("api", 2);

    /* Other ports, and one port on two hosts. */
    HOST("box", 3, debian(4), apache(5), running(web, 8080, 6), running(api, 8081, 7));
    HOST("box2", 8, debian(9), apache(10), running(container("web", 11), 8080, 12));
    ck_assert_int_eq(prop_site_check(S), 0);
    ck_assert_uint_eq(count("P014"), 0);
    ck_assert_uint_eq(count("P006"), 0);
}
END_TEST

/* ---- P007 ---- */

START_TEST(p007_absent_vs_directory)
{
    const prop_diag *d;

    HOST("web1", 1, debian(2), file_state("absent", PROP_CLAIM_FILE_ABSENT, "/etc/foo", NULL, 3),
         file_state("is a directory", PROP_CLAIM_FILE_DIRECTORY, "/etc/foo", NULL, 7));
    ck_assert_int_eq(prop_site_check(S), 1);
    d = only("P007");
    ck_assert_int_eq(d->line, 7);
    ck_assert_str_eq(d->message, "\"/etc/foo\" must be a directory here but absent at site.lua:3");
    expect_note(d, 0, 3, "\"file /etc/foo absent\" makes it absent here");
}
END_TEST

START_TEST(p007_two_contents)
{
    const prop_diag *d;

    HOST("web1", 1, debian(2), file_content("/etc/foo", "a\n", 3),
         file_content("/etc/foo", "b\n", 4));
    prop_site_check(S);
    d = only("P007");
    ck_assert_int_eq(d->line, 4);
    ck_assert_str_eq(d->message, "\"/etc/foo\" is given two different contents");
    expect_note(d, 0, 3, "\"file /etc/foo has content\" makes it a file with fixed content here");
}
END_TEST

/* ---- files built from fragments ---- */

#define FRAG(path, value, line)                                                                    \
    file_state("has a fragment", PROP_CLAIM_FILE_FRAGMENT, path, value, line)
#define FRAGS(path, value, line)                                                                   \
    file_state("assembled from fragments", PROP_CLAIM_FILE_FRAGMENTS, path, value, line)

START_TEST(p007_fragments_agree)
{
    /* Other names, the same fragment twice, a mode and the assembler. */
    HOST("web1", 1, debian(2), FRAGS("/etc/hosts", "file.fragments", 3),
         FRAG("/etc/hosts", "db\n50\n10.0.0.3 db\n", 4),
         FRAG("/etc/hosts", "web\n20\n10.0.0.2 web\n", 5),
         file_state("is a fragment too", PROP_CLAIM_FILE_FRAGMENT, "/etc/hosts",
                    "db\n50\n10.0.0.3 db\n", 6),
         file_state("mode", PROP_CLAIM_FILE_MODE, "/etc/hosts", "0644", 7));
    ck_assert_int_eq(prop_site_check(S), 0);
    ck_assert_uint_eq(count("P007"), 0);
    ck_assert_uint_eq(count("P012"), 0);
}
END_TEST

START_TEST(p007_fragment_two_texts)
{
    const prop_diag *d;

    HOST("web1", 1, debian(2), FRAGS("/etc/hosts", "file.fragments", 3),
         FRAG("/etc/hosts", "db\n50\n10.0.0.3 db\n", 4),
         FRAG("/etc/hosts", "db\n50\n10.0.0.4 db\n", 5),
         FRAG("/etc/hosts", "web\n20\n10.0.0.2 web\n", 6),
         FRAG("/etc/hosts", "web\n10\n10.0.0.2 web\n", 7));
    ck_assert_int_eq(prop_site_check(S), 2);
    d = nth("P007", 0);
    ck_assert_int_eq(d->line, 5);
    ck_assert_str_eq(d->message, "\"/etc/hosts\": the fragment \"db\" is given other text here "
                                 "than at site.lua:4: one name is one fragment (give each part a "
                                 "name of its own)");
    expect_note(d, 0, 4, "\"file /etc/hosts has a fragment\" gives the fragment \"db\" here");
    d = nth("P007", 1);
    ck_assert_int_eq(d->line, 7);
    ck_assert_str_eq(d->message, "\"/etc/hosts\": the fragment \"web\" has order 10 here but 20 "
                                 "at site.lua:6: one name is one fragment");
}
END_TEST

START_TEST(p007_fragments_and_content)
{
    const prop_diag *d;

    HOST("web1", 1, debian(2), FRAGS("/etc/hosts", "file.fragments", 3),
         file_content("/etc/hosts", "127.0.0.1 localhost\n", 4));
    ck_assert_int_eq(prop_site_check(S), 1);
    d = only("P007");
    ck_assert_int_eq(d->line, 4);
    ck_assert_str_eq(d->message, "\"/etc/hosts\" must be a file with fixed content here but a "
                                 "file assembled from fragments at site.lua:3");
    expect_note(d, 1, 4,
                "\"/etc/hosts\" is assembled from fragments: give that content as a "
                "file.fragment(\"/etc/hosts\", name, text) instead");
}
END_TEST

START_TEST(p007_two_assemblers)
{
    const prop_diag *d;

    HOST("web1", 1, debian(2), FRAGS("/etc/motd", "file.fragments", 3),
         FRAGS("/etc/motd", "file.fragments header \"#\"", 4));
    ck_assert_int_eq(prop_site_check(S), 1);
    d = only("P007");
    ck_assert_str_eq(d->message, "\"/etc/motd\" is assembled by \"file /etc/motd assembled from "
                                 "fragments\" here and by \"file /etc/motd assembled from "
                                 "fragments\" at site.lua:3: a file has one assembler");
    expect_note(d, 1, 4,
                "to build \"/etc/motd\" from parts that several properties give, give the host "
                "one file.fragments(\"/etc/motd\") and let each property add its part with "
                "file.fragment(\"/etc/motd\", name, text)");
}
END_TEST

START_TEST(p007_two_firewalls)
{
    const prop_diag *d;

    HOST("fw", 1, debian(2), FRAGS("/etc/nftables.conf", "firewall.nftables 22/tcp", 3),
         FRAGS("/etc/nftables.conf", "firewall.nftables 443/tcp", 4));
    ck_assert_int_eq(prop_site_check(S), 1);
    d = only("P007");
    ck_assert_int_eq(d->line, 4);
    ck_assert_str_eq(d->message,
                     "\"/etc/nftables.conf\" is written by \"file /etc/nftables.conf assembled "
                     "from fragments\" here and by \"file /etc/nftables.conf assembled from "
                     "fragments\" at site.lua:3: a host has one firewall; each role adds its "
                     "ports to it with firewall.allow { port = N }");
    ck_assert_uint_eq(d->nnotes, 1);
}
END_TEST

START_TEST(p007_two_contents_name_fragments)
{
    const prop_diag *d;

    HOST("web1", 1, debian(2), file_content("/etc/foo", "a\n", 3),
         file_content("/etc/foo", "b\n", 4));
    prop_site_check(S);
    d = only("P007");
    ck_assert_uint_eq(d->nnotes, 2);
    expect_note(d, 1, 4,
                "to build \"/etc/foo\" from parts that several properties give, give the host "
                "one file.fragments(\"/etc/foo\") and let each property add its part with "
                "file.fragment(\"/etc/foo\", name, text)");
}
END_TEST

START_TEST(p012_fragment_without_assembler)
{
    const prop_diag *d;

    HOST("web1", 1, debian(2), FRAG("/etc/hosts", "db\n50\n10.0.0.3 db\n", 3),
         FRAGS("/etc/motd", "file.fragments", 4),
         FRAG("/etc/nftables.conf", "tcp 22\n50\n\t\ttcp dport 22 accept\n", 5));
    ck_assert_int_eq(prop_site_check(S), 2);
    d = nth("P012", 0);
    ck_assert_int_eq(d->line, 3);
    ck_assert_str_eq(d->message, "\"file /etc/hosts has a fragment\" adds a fragment to "
                                 "\"/etc/hosts\", but nothing on host \"web1\" assembles that "
                                 "file: add file.fragments(\"/etc/hosts\") to the host");
    d = nth("P012", 1);
    ck_assert_int_eq(d->line, 5);
    ck_assert_str_eq(d->message,
                     "\"file /etc/nftables.conf has a fragment\" adds to the firewall's ruleset "
                     "\"/etc/nftables.conf\", but host \"web1\" has no firewall to add it to: add "
                     "firewall.nftables { ... } or firewall.open_declared() to the host");
}
END_TEST

START_TEST(p007_content_lacks_line)
{
    const prop_diag *d;

    HOST("web1", 1, debian(2), file_content("/etc/foo", "a=1\nb=2\n", 3),
         file_lines("/etc/foo", "secure=1", 1, 4));
    prop_site_check(S);
    d = only("P007");
    ck_assert_int_eq(d->line, 4);
    ck_assert_str_eq(d->message, "\"/etc/foo\" must contain the line \"secure=1\" here but its "
                                 "fixed content from \"file /etc/foo has content\" at site.lua:3 "
                                 "lacks it");
}
END_TEST

START_TEST(p007_content_after_line)
{
    const prop_diag *d;

    HOST("web1", 1, debian(2), file_lines("/etc/foo", "secure=1", 1, 3),
         file_content("/etc/foo", "a=1\n", 4));
    prop_site_check(S);
    d = only("P007");
    ck_assert_int_eq(d->line, 4);
    ck_assert_str_eq(d->message, "\"/etc/foo\" is given fixed content here that lacks the line "
                                 "\"secure=1\" required at site.lua:3");
}
END_TEST

START_TEST(p007_content_has_removed_line)
{
    HOST("web1", 1, debian(2), file_content("/etc/foo", "a=1\nsecure=0", 3),
         file_lines("/etc/foo", "secure=0", 0, 4));
    prop_site_check(S);
    ck_assert_int_eq(only("P007")->line, 4);
}
END_TEST

START_TEST(p007_line_and_noline)
{
    const prop_diag *d;

    HOST("web1", 1, debian(2), file_lines("/etc/foo", "x=1", 1, 3),
         revert(file_lines("/etc/foo", "x=1", 1, 4), 4));
    prop_site_check(S);
    d = only("P007");
    ck_assert_int_eq(d->line, 4);
    ck_assert_str_eq(d->message, "\"/etc/foo\" must lack the line \"x=1\" here but contain it at "
                                 "site.lua:3");
}
END_TEST

START_TEST(p007_below_absent)
{
    const prop_diag *d;

    HOST("web1", 1, debian(2), file_state("absent", PROP_CLAIM_FILE_ABSENT, "/etc/foo", NULL, 3),
         file_content("/etc/foo/bar", "x", 4));
    HOST("web2", 5, debian(6), file_content("/srv/a/b", "x", 7),
         file_state("absent", PROP_CLAIM_FILE_ABSENT, "/srv", NULL, 8));
    prop_site_check(S);
    ck_assert_uint_eq(count("P007"), 2);
    d = nth("P007", 0);
    ck_assert_int_eq(d->line, 4);
    ck_assert_str_eq(d->message, "\"/etc/foo/bar\" must be a file with fixed content here but "
                                 "\"/etc/foo\" is absent at site.lua:3");
    expect_note(d, 0, 3, "\"file /etc/foo absent\" makes \"/etc/foo\" absent here");
    d = nth("P007", 1);
    ck_assert_int_eq(d->line, 8);
    ck_assert_str_eq(d->message, "\"/srv\" must be absent here but \"/srv/a/b\", below it, is a "
                                 "file with fixed content at site.lua:7");
}
END_TEST

START_TEST(p007_modes_and_owners)
{
    HOST("web1", 1, debian(2), file_state("mode", PROP_CLAIM_FILE_MODE, "/a", "0644", 3),
         file_state("mode", PROP_CLAIM_FILE_MODE, "/a", "0600", 4),
         file_state("owner", PROP_CLAIM_FILE_OWNER, "/b", "root:root", 5),
         file_state("owner", PROP_CLAIM_FILE_OWNER, "/b", "www:", 6),
         file_state("link", PROP_CLAIM_FILE_SYMLINK, "/c", "/x", 7),
         file_state("link", PROP_CLAIM_FILE_SYMLINK, "/c", "/y", 8));
    prop_site_check(S);
    ck_assert_uint_eq(count("P007"), 3);
    ck_assert_str_eq(nth("P007", 0)->message,
                     "\"/a\" must be mode \"0600\" here but mode \"0644\" at site.lua:3");
    ck_assert_str_eq(nth("P007", 1)->message,
                     "\"/b\" must be owned by \"www:\" here but owned by \"root:root\" at "
                     "site.lua:5");
    ck_assert_int_eq(nth("P007", 2)->line, 8);
}
END_TEST

START_TEST(p007_owned_whole)
{
    const char *own = "/etc/app.conf";

    HOST("web1", 1, debian(2), claim1("app configured", 0, 3, PROP_CLAIM_FILE_OWNED, own, NULL, -1),
         file_content(own, "x=1\n", 4), file_lines(own, "y=2", 1, 5),
         claim1("other app", 0, 6, PROP_CLAIM_FILE_OWNED, own, NULL, -1),
         /* Mode and owner are attributes: they may be said elsewhere. */
         file_state("mode", PROP_CLAIM_FILE_MODE, own, "0600", 7),
         file_state("owner", PROP_CLAIM_FILE_OWNER, own, "root:", 8),
         /* Owned first here, edited after. */
         claim1("motd by hand", 0, 9, PROP_CLAIM_FILE_OWNED, "/etc/motd", NULL, -1),
         file_lines("/etc/motd", "hello", 0, 10));
    ck_assert_int_eq(prop_site_check(S), 4);
    ck_assert_uint_eq(count("P007"), 4);
    ck_assert_int_eq(nth("P007", 0)->line, 4);
    ck_assert_str_eq(nth("P007", 0)->message,
                     "\"/etc/app.conf\" must be a file with fixed content here, but \"app "
                     "configured\" owns the whole file at site.lua:3");
    expect_note(nth("P007", 0), 0, 3, "\"app configured\" makes it a file owned whole here");
    ck_assert_int_eq(nth("P007", 1)->line, 5);
    ck_assert_str_eq(nth("P007", 1)->message,
                     "\"/etc/app.conf\" must be a file containing the line \"y=2\" here, but "
                     "\"app configured\" owns the whole file at site.lua:3");
    ck_assert_int_eq(nth("P007", 2)->line, 6);
    ck_assert_str_eq(nth("P007", 2)->message,
                     "\"/etc/app.conf\" is owned whole by \"other app\" here and by \"app "
                     "configured\" at site.lua:3: one file cannot have two owners");
    ck_assert_int_eq(nth("P007", 3)->line, 10);
    ck_assert_str_eq(nth("P007", 3)->message,
                     "\"/etc/motd\" must be a file lacking the line \"hello\" here, but \"motd by "
                     "hand\" owns the whole file at site.lua:9");
}
END_TEST

START_TEST(p007_owned_reverse_order)
{
    HOST("web1", 1, debian(2), file_content("/etc/a", "x\n", 3),
         claim1("a by hand", 0, 4, PROP_CLAIM_FILE_OWNED, "/etc/a", NULL, -1));
    ck_assert_int_eq(prop_site_check(S), 1);
    ck_assert_str_eq(only("P007")->message,
                     "\"/etc/a\" is owned whole by \"a by hand\" here, but \"file /etc/a has "
                     "content\" makes it a file with fixed content at site.lua:3");
}
END_TEST

static prop_node *
conf_setting(const char *path, const char *name_value, int line)
{
    char d[256];

    snprintf(d, sizeof d, "%s in %s", name_value, path);
    return claim1(d, 0, line, PROP_CLAIM_FILE_SETTING, path, name_value, -1);
}

START_TEST(p007_conf_settings)
{
    const char *sshd = "/etc/ssh/sshd_config";

    HOST("web1", 1, debian(2), conf_setting(sshd, "PermitRootLogin=no", 3),
         /* Other settings of the same file, the same value again, and the
          * same name in another file agree. */
         conf_setting(sshd, "PasswordAuthentication=no", 4),
         conf_setting(sshd, "PermitRootLogin=no", 5),
         conf_setting("/etc/other.conf", "PermitRootLogin=yes", 6),
         file_lines(sshd, "Port 22", 1, 7),
         file_state("mode", PROP_CLAIM_FILE_MODE, sshd, "0600", 8),
         /* One setting given two values. */
         conf_setting(sshd, "PermitRootLogin=yes", 9),
         /* A setting is a prefix of another's name: different settings. */
         conf_setting(sshd, "Permit=yes", 10));
    ck_assert_int_eq(prop_site_check(S), 1);
    ck_assert_str_eq(only("P007")->message,
                     "\"/etc/ssh/sshd_config\": PermitRootLogin must be \"yes\" here but \"no\" at "
                     "site.lua:3");
    ck_assert_int_eq(only("P007")->line, 9);
    expect_note(only("P007"), 0, 3,
                "\"PermitRootLogin=no in /etc/ssh/sshd_config\" makes it a file setting "
                "\"PermitRootLogin\" to \"no\" here");
}
END_TEST

/* file.line's match claims: names of patterns compare with regard to case. */
START_TEST(p007_line_matches)
{
    HOST("web1", 1, debian(2), conf_setting("/etc/a", "lines matching ^Port=Port 22", 3),
         /* Another pattern only by case, and the same line again, agree. */
         conf_setting("/etc/a", "lines matching ^port=port 2222", 4),
         conf_setting("/etc/a", "lines matching ^Port=Port 22", 5),
         /* A plain string of the same text is another match. */
         conf_setting("/etc/a", "lines containing ^Port=Port 23", 6),
         /* The same pattern, another line. */
         conf_setting("/etc/a", "lines matching ^Port=Port 2200", 7));
    ck_assert_int_eq(prop_site_check(S), 1);
    ck_assert_str_eq(only("P007")->message, "\"/etc/a\": lines matching ^Port must be \"Port "
                                            "2200\" here but \"Port 22\" at site.lua:3");
    ck_assert_int_eq(only("P007")->line, 7);
}
END_TEST

START_TEST(p007_setting_and_content)
{
    HOST("web1", 1, debian(2), file_content("/etc/a.conf", "x = 2\n", 3),
         conf_setting("/etc/a.conf", "x=1", 4), conf_setting("/etc/b.conf", "[main] y=", 5),
         file_state("absent", PROP_CLAIM_FILE_ABSENT, "/etc/b.conf", NULL, 6),
         conf_setting("/etc/c.conf", "z=1", 7),
         claim1("c by hand", 0, 8, PROP_CLAIM_FILE_OWNED, "/etc/c.conf", NULL, -1),
         conf_setting("/etc/d/e.conf", "k=v", 9),
         file_state("link", PROP_CLAIM_FILE_SYMLINK, "/etc/d/e.conf", "/x", 10));
    ck_assert_int_eq(prop_site_check(S), 4);
    ck_assert_uint_eq(count("P007"), 4);
    ck_assert_str_eq(nth("P007", 0)->message,
                     "\"/etc/a.conf\" must be a file setting \"x\" to \"1\" here but a file with "
                     "fixed content at site.lua:3");
    ck_assert_str_eq(nth("P007", 1)->message,
                     "\"/etc/b.conf\" must be absent here but a file setting \"[main] y\" to "
                     "\"\" at site.lua:5");
    ck_assert_str_eq(nth("P007", 2)->message,
                     "\"/etc/c.conf\" is owned whole by \"c by hand\" here, but \"z=1 in "
                     "/etc/c.conf\" makes it a file setting \"z\" to \"1\" at site.lua:7");
    ck_assert_int_eq(nth("P007", 3)->line, 10);
}
END_TEST

START_TEST(p007_near_miss)
{
    HOST("web1", 1, debian(2), file_content("/etc/foo", "a=1\nsecure=1\n", 3),
         file_lines("/etc/foo", "secure=1", 1, 4), file_lines("/etc/foo", "debug=1", 0, 5),
         file_state("absent", PROP_CLAIM_FILE_ABSENT, "/etc/bar", NULL, 6),
         file_lines("/etc/bar", "x", 0, 7),
         file_state("is a directory", PROP_CLAIM_FILE_DIRECTORY, "/srv", NULL, 8),
         file_state("mode", PROP_CLAIM_FILE_MODE, "/srv", "0755", 9),
         file_state("owner", PROP_CLAIM_FILE_OWNER, "/srv", "root:", 10),
         file_state("owner", PROP_CLAIM_FILE_OWNER, "/srv", ":wheel", 11),
         file_state("owner", PROP_CLAIM_FILE_OWNER, "/srv", "root:wheel", 12),
         file_content("/etc/foo", "a=1\nsecure=1\n", 13),
         file_state("absent", PROP_CLAIM_FILE_ABSENT, "/etc/foobar", NULL, 14),
         file_content("/etc/foobar2/x", "y", 15));
    ck_assert_int_eq(prop_site_check(S), 0);
    ck_assert_uint_eq(count("P007"), 0);
}
END_TEST

START_TEST(p007_one_diag_per_pair)
{
    prop_claim c1[] = {{PROP_CLAIM_FILE_CONTENT, "/a", "x", 0, -1, 0},
                       {PROP_CLAIM_FILE_MODE, "/a", "0644", 0, -1, 0},
                       {PROP_CLAIM_PKG_INSTALLED, "foo", NULL, 0, -1, 0}};
    prop_claim c2[] = {{PROP_CLAIM_FILE_CONTENT, "/a", "y", 0, -1, 0},
                       {PROP_CLAIM_FILE_MODE, "/a", "0600", 0, -1, 0},
                       {PROP_CLAIM_PKG_REMOVED, "foo", NULL, 0, -1, 0}};
    spec_extra x;

    memset(&x, 0, sizeof x);
    x.claims = c1;
    x.nclaims = 3;
    HOST("web1", 1, debian(2), leaf_x("one", 0, 3, x), (x.claims = c2, leaf_x("two", 0, 4, x)));
    ck_assert_int_eq(prop_site_check(S), 1);
    ck_assert_uint_eq(prop_site_ndiags(S), 1);
}
END_TEST

/* ---- P008 ---- */

START_TEST(p008_installed_removed)
{
    const prop_diag *d;

    HOST("web1", 1, debian(2), apt_installed("telnet", 3), apt_removed("telnet", 4));
    ck_assert_int_eq(prop_site_check(S), 1);
    d = only("P008");
    ck_assert_int_eq(d->line, 4);
    ck_assert_str_eq(d->message,
                     "package \"telnet\" must be removed here but installed at site.lua:3");
    expect_note(d, 0, 3, "\"apt installed telnet\" installs it here");
}
END_TEST

START_TEST(p008_revert)
{
    HOST("web1", 1, debian(2), apt_installed("telnet", 3), revert(apt_installed("telnet", 4), 4));
    prop_site_check(S);
    ck_assert_int_eq(only("P008")->line, 4);
}
END_TEST

START_TEST(p008_near_miss)
{
    HOST("web1", 1, debian(2), apt_installed("telnet", 3), apt_removed("rsh", 4),
         apt_installed("telnet", 5));
    ck_assert_int_eq(prop_site_check(S), 0);
    ck_assert_uint_eq(count("P008"), 0);
}
END_TEST

/* ---- P009 ---- */

START_TEST(p009_running_stopped)
{
    const prop_diag *d;

    HOST("web1", 1, debian(2), service("nginx", PROP_CLAIM_SVC_RUNNING, 3),
         service("nginx", PROP_CLAIM_SVC_STOPPED, 4), service("tor", PROP_CLAIM_SVC_STOPPED, 5),
         service("tor", PROP_CLAIM_SVC_RESTARTED, 6));
    ck_assert_int_eq(prop_site_check(S), 2);
    d = nth("P009", 0);
    ck_assert_int_eq(d->line, 4);
    ck_assert_str_eq(d->message,
                     "service \"nginx\" must be stopped here but running at site.lua:3");
    expect_note(d, 0, 3, "\"service nginx running\" wants it running here");
    ck_assert_int_eq(nth("P009", 1)->line, 6);
}
END_TEST

START_TEST(p009_near_miss)
{
    HOST("web1", 1, debian(2), service("nginx", PROP_CLAIM_SVC_RUNNING, 3),
         service("nginx", PROP_CLAIM_SVC_RESTARTED, 4), service("tor", PROP_CLAIM_SVC_STOPPED, 5));
    ck_assert_int_eq(prop_site_check(S), 0);
}
END_TEST

/* ---- P016, W106: what a leaf uses, what provides it ---- */

static prop_node *
user_of(const char *desc, int line, const char *svc, int port)
{
    prop_leaf_spec spec;
    prop_origin o = at(line);
    prop_node *n = NULL;
    const char *names[1];

    names[0] = svc;
    memset(&spec, 0, sizeof spec);
    spec.desc = desc;
    spec.behaviour = -1;
    if (svc) {
        spec.uses_services = names;
        spec.nuses_services = 1;
    }
    if (port) {
        spec.uses_ports = &port;
        spec.nuses_ports = 1;
    }
    ck_assert_int_eq(prop_leaf_new(S, &spec, &o, &n), PROP_OK);
    return n;
}

START_TEST(p016_provider_after)
{
    static const int p8080[] = {8080};
    const prop_diag *d;

    HOST("db1", 1, debian(2), user_of("mariadb user app", 3, "mariadb", 0),
         service("mariadb", PROP_CLAIM_SVC_RUNNING, 4), user_of("proxy", 5, NULL, 8080),
         ported("backend", 6, p8080, 1));
    ck_assert_int_eq(prop_site_check(S), 2);
    d = nth("P016", 0);
    ck_assert_int_eq(d->line, 3);
    ck_assert_str_eq(d->message, "\"mariadb user app\" uses service \"mariadb\", but \"service "
                                 "mariadb running\", the only property of host \"db1\" that "
                                 "provides it, runs after it (at site.lua:4), and no requires or "
                                 "before orders them");
    expect_note(d, 0, 4, "\"service mariadb running\" provides service \"mariadb\" here");
    ck_assert_int_eq(nth("P016", 1)->line, 5);
    ck_assert_uint_eq(count("W106"), 0);
}
END_TEST

START_TEST(p016_ordered)
{
    prop_node *u = user_of("mariadb user app", 3, "mariadb", 0);
    prop_node *svc = service("mariadb", PROP_CLAIM_SVC_RUNNING, 4);
    prop_node *u2 = user_of("mariadb user two", 13, "mariadb", 0);
    prop_node *svc2 = service("mariadb", PROP_CLAIM_SVC_RESTARTED, 14);

    /* requires; before listed after the user; the provider first. */
    HOST("db1", 1, debian(2), combine(PROP_REQUIRES, u, svc, 5));
    HOST("db2", 6, debian(7), u, combine(PROP_BEFORE, svc, u, 8));
    HOST("db3", 9, debian(10), svc, u);
    HOST("db4", 11, debian(12), svc2, u2);
    ck_assert_int_eq(prop_site_check(S), 0);
    ck_assert_uint_eq(prop_site_ndiags(S), 0);
}
END_TEST

START_TEST(w106_nothing_provides)
{
    const prop_diag *d;

    HOST("app1", 1, debian(2), user_of("mariadb user app", 3, "mariadb", 0),
         service("mariadb", PROP_CLAIM_SVC_STOPPED, 4), user_of("proxy", 5, NULL, 8080));
    ck_assert_int_eq(prop_site_check(S), 0);
    ck_assert_uint_eq(count("W106"), 2);
    d = nth("W106", 0);
    ck_assert_int_eq(d->line, 3);
    ck_assert_int_eq(nth("W106", 1)->line, 5);
}
END_TEST

/* ---- P010 ---- */

START_TEST(p010_accounts)
{
    HOST("web1", 1, debian(2), user("alice", 1000, 3), user("bob", 1000, 4), user("carol", 1001, 5),
         user("carol", 1002, 6), user("dave", -1, 7),
         claim1("user dave absent", 0, 8, PROP_CLAIM_USER_ABSENT, "dave", NULL, -1),
         claim1("group web exists", 0, 9, PROP_CLAIM_GROUP, "web", NULL, 50),
         claim1("group web exists", 0, 10, PROP_CLAIM_GROUP, "web", NULL, 51),
         claim1("group ops exists", 0, 11, PROP_CLAIM_GROUP, "ops", NULL, 51));
    ck_assert_int_eq(prop_site_check(S), 5);
    ck_assert_uint_eq(count("P010"), 5);
    ck_assert_str_eq(nth("P010", 0)->message,
                     "uid 1000 is given to user \"bob\" here but to user \"alice\" at site.lua:3: "
                     "two accounts would share one identity");
    ck_assert_int_eq(nth("P010", 0)->line, 4);
    ck_assert_str_eq(nth("P010", 1)->message,
                     "user \"carol\" must have uid 1002 here but uid 1001 at site.lua:5");
    ck_assert_str_eq(nth("P010", 2)->message,
                     "user \"dave\" must be absent here but exist at site.lua:7");
    ck_assert_str_eq(nth("P010", 3)->message,
                     "group \"web\" must have gid 51 here but gid 50 at site.lua:9");
    ck_assert_str_eq(nth("P010", 4)->message,
                     "gid 51 is given to group \"ops\" here but to group \"web\" at site.lua:10: "
                     "two groups would share one identity");
}
END_TEST

START_TEST(p010_near_miss)
{
    HOST("web1", 1, debian(2), user("alice", 1000, 3), user("alice", 1000, 4), user("bob", -1, 5),
         user("carol", -1, 6), user("bob", 1001, 7));
    HOST("web2", 8, debian(9), user("eve", 1000, 10));
    ck_assert_int_eq(prop_site_check(S), 0);
}
END_TEST

/* One setting of a config file, as ssh.sshd_config claims it. */
static prop_node *
setting(const char *path, const char *nv, int line)
{
    char d[256];

    snprintf(d, sizeof d, "%s sets %s", path, nv);
    return claim1(d, 0, line, PROP_CLAIM_FILE_SETTING, path, nv, -1);
}

START_TEST(p007_settings)
{
    static const char *const sshd = "/etc/ssh/sshd_config";
    const prop_diag *d;

    HOST("web1", 1, debian(2), setting(sshd, "PasswordAuthentication=no", 3),
         setting(sshd, "passwordauthentication=yes", 4));
    HOST("web2", 5, debian(6), setting(sshd, "Port=2222", 7), file_lines(sshd, "Port 22", 1, 8));
    HOST("web3", 9, debian(10), setting(sshd, "PermitRootLogin=no", 11),
         file_lines(sshd, "  PermitRootLogin  no ", 0, 12));
    /* Fixed content that gives the setting another value. */
    HOST("web4", 13, debian(14), file_content(sshd, "Port 2222\n", 15),
         setting(sshd, "Port=22", 16));
    prop_site_check(S);
    ck_assert_uint_eq(count("P007"), 4);
    d = nth("P007", 0);
    ck_assert_int_eq(d->line, 4);
    ck_assert_str_eq(d->message, "\"/etc/ssh/sshd_config\": passwordauthentication must be \"yes\" "
                                 "here but \"no\" at site.lua:3");
    expect_note(d, 0, 3,
                "\"/etc/ssh/sshd_config sets PasswordAuthentication=no\" makes it a file setting "
                "\"PasswordAuthentication\" to \"no\" here");
    d = nth("P007", 1);
    ck_assert_int_eq(d->line, 8);
    ck_assert_str_eq(d->message, "\"/etc/ssh/sshd_config\" must be a file containing the line "
                                 "\"Port 22\" here but a file setting \"Port\" to \"2222\" at "
                                 "site.lua:7");
    d = nth("P007", 2);
    ck_assert_int_eq(d->line, 12);
    ck_assert_str_eq(d->message, "\"/etc/ssh/sshd_config\" must be a file lacking the line "
                                 "\"  PermitRootLogin  no \" here but a file setting "
                                 "\"PermitRootLogin\" to \"no\" at site.lua:11");
    d = nth("P007", 3);
    ck_assert_int_eq(d->line, 16);
    ck_assert_str_eq(d->message,
                     "\"/etc/ssh/sshd_config\" must be a file setting \"Port\" to \"22\" "
                     "here but a file with fixed content at site.lua:15");
}
END_TEST

START_TEST(p007_settings_near_miss)
{
    static const char *const sshd = "/etc/ssh/sshd_config";

    /* Other names, the same value twice, a line that agrees, the removal
     * of another value's line, a comment, another file. */
    HOST("web1", 1, debian(2), setting(sshd, "PasswordAuthentication=no", 3),
         setting(sshd, "Port=2222", 4), setting("/etc/ssh/sshd_config", "port=2222", 5),
         file_lines(sshd, "Port=2222", 1, 6), file_lines(sshd, "PasswordAuthentication yes", 0, 7),
         file_lines(sshd, "#Port 22", 1, 8), setting("/etc/other", "Port=22", 9),
         file_state("mode", PROP_CLAIM_FILE_MODE, sshd, "0644", 10));
    /* Fixed content that already holds the setting's own line (as a whole
     * /etc/resolv.conf beside hostname.search_domain). */
    HOST("web2", 11, debian(12),
         file_content("/etc/resolv.conf", "# fixed\nsearch example.com\nnameserver 192.0.2.53\n",
                      13),
         setting("/etc/resolv.conf", "search=example.com", 14));
    ck_assert_int_eq(prop_site_check(S), 0);
}
END_TEST

START_TEST(p007_settings_content)
{
    /* Fixed content agrees with a setting only when a line of it is the
     * setting's own and none gives the name another value. */
    HOST("ns1", 1, debian(2),
         file_content("/etc/resolv.conf", "search example.com\nsearch other\n", 3),
         setting("/etc/resolv.conf", "search=example.com", 4));
    HOST("ns2", 5, debian(6), file_content("/etc/resolv.conf", "nameserver 192.0.2.53\n", 7),
         setting("/etc/resolv.conf", "search=example.com", 8));
    HOST("ns3", 9, debian(10), file_content("/etc/resolv.conf", "search   example.com  \n", 11),
         setting("/etc/resolv.conf", "search=example.com", 12));
    prop_site_check(S);
    ck_assert_uint_eq(count("P007"), 2);
    ck_assert_int_eq(nth("P007", 0)->line, 4);
    ck_assert_int_eq(nth("P007", 1)->line, 8);
}
END_TEST

static prop_node *
user_setting(const char *name, const char *nv, int line)
{
    char d[128];

    snprintf(d, sizeof d, "user %s has %s", name, nv);
    return claim1(d, 0, line, PROP_CLAIM_USER_SETTING, name, nv, -1);
}

START_TEST(p010_user_settings)
{
    const prop_diag *d;

    HOST("web1", 1, debian(2), user_setting("alice", "shell=/bin/bash", 3),
         user_setting("alice", "shell=/bin/zsh", 4), user_setting("bob", "locked=yes", 5),
         claim1("user bob absent", 0, 6, PROP_CLAIM_USER_ABSENT, "bob", NULL, -1));
    prop_site_check(S);
    ck_assert_uint_eq(count("P010"), 2);
    d = nth("P010", 0);
    ck_assert_int_eq(d->line, 4);
    ck_assert_str_eq(
        d->message,
        "user \"alice\": shell must be \"/bin/zsh\" here but \"/bin/bash\" at site.lua:3");
    expect_note(d, 0, 3, "\"user alice has shell=/bin/bash\" declares it here");
    d = nth("P010", 1);
    ck_assert_int_eq(d->line, 6);
    ck_assert_str_eq(d->message, "user \"bob\" must be absent here but exist at site.lua:5");
}
END_TEST

START_TEST(p010_user_settings_near_miss)
{
    HOST("web1", 1, debian(2), user("alice", 1000, 3), user_setting("alice", "shell=/bin/bash", 4),
         user_setting("alice", "member of adm=yes", 5),
         user_setting("alice", "member of sudo=no", 6), user_setting("bob", "shell=/bin/zsh", 7),
         user("alice", 1000, 8));
    HOST("web2", 9, debian(10), user_setting("alice", "shell=/bin/zsh", 11));
    ck_assert_int_eq(prop_site_check(S), 0);
}
END_TEST

/* ---- P011 ---- */

START_TEST(p011_two_hosts)
{
    const prop_diag *d;

    HOST("web1", 1, debian(2));
    HOST("web2", 3, debian(4));
    HOST("web1", 5, debian(6));
    ck_assert_int_eq(prop_site_check(S), 1);
    d = only("P011");
    ck_assert_int_eq(d->line, 5);
    ck_assert_str_eq(d->message,
                     "host \"web1\" is declared twice: host names must be unique in a site");
    expect_note(d, 0, 1, "host \"web1\" was first declared here");
}
END_TEST

START_TEST(p011_near_miss)
{
    HOST("web1", 1, debian(2));
    HOST("web1.example.com", 3, debian(4));
    ck_assert_int_eq(prop_site_check(S), 0);
}
END_TEST

/* ---- P012 (recorded by the constructors) ---- */

START_TEST(p012_invalid)
{
    prop_origin o = at(3);
    prop_node *bad = NULL;

    ck_assert_int_eq(prop_invalid_new(S, "file srv/www is a directory",
                                      "file.directory: path \"srv/www\" is not absolute", &o, &bad),
                     PROP_OK);
    HOST("web1", 1, debian(2), bad, revert(bad, 4));
    ck_assert_int_eq(prop_site_check(S), 1);
    ck_assert_int_eq(only("P012")->line, 3);
    ck_assert_uint_eq(count("P001"), 0);
}
END_TEST

/* ---- P013 ---- */

START_TEST(p013_hostnames)
{
    prop_claim a[] = {{PROP_CLAIM_HOSTNAME, "hostname", "web1", 0, -1, 0},
                      {PROP_CLAIM_FILE_CONTENT, "/etc/hostname", "web1\n", 0, -1, 0}};
    prop_claim b[] = {{PROP_CLAIM_HOSTNAME, "hostname", "web2", 0, -1, 0},
                      {PROP_CLAIM_FILE_CONTENT, "/etc/hostname", "web2\n", 0, -1, 0}};
    spec_extra x;
    const prop_diag *d;
    prop_node *h1, *h2;

    memset(&x, 0, sizeof x);
    x.nclaims = 2;
    x.claims = a;
    h1 = leaf_x("hostname web1", 0, 3, x);
    x.claims = b;
    h2 = leaf_x("hostname web2", 0, 4, x);
    HOST("web1", 1, debian(2), h1, h2);
    ck_assert_int_eq(prop_site_check(S), 1);
    d = only("P013");
    ck_assert_int_eq(d->line, 4);
    ck_assert_str_eq(d->message,
                     "host \"web1\" is given the hostname \"web2\" here but \"web1\" at "
                     "site.lua:3: a machine has one hostname");
    expect_note(d, 0, 3, "\"hostname web1\" sets it here");
    ck_assert_uint_eq(count("P007"), 0);
}
END_TEST

START_TEST(p013_addresses)
{
    const prop_diag *d;

    HOST("web1", 1, debian(2), info_leaf("ipv4", "192.0.2.10", 3));
    HOST("web2", 4, debian(5), info_leaf("ipv4", "192.0.2.10", 6),
         info_leaf("ipv6", "2001:db8::1", 7));
    HOST("web3", 8, debian(9), info_leaf("ipv6", "2001:db8::1", 10));
    ck_assert_int_eq(prop_site_check(S), 2);
    d = nth("P013", 0);
    ck_assert_int_eq(d->line, 6);
    ck_assert_str_eq(d->message, "address 192.0.2.10 is declared by host \"web2\" here but also by "
                                 "host \"web1\" at site.lua:3: one address cannot belong to two "
                                 "machines");
    expect_note(d, 0, 3, "host \"web1\" declares it here");
    ck_assert_int_eq(nth("P013", 1)->line, 10);
}
END_TEST

START_TEST(p013_near_miss)
{
    prop_node *addr = info_leaf("ipv4", "192.0.2.10", 3);

    HOST("web1", 1, debian(2), addr, info_leaf("ipv4", "192.0.2.10", 4),
         info_leaf("ipv4", "192.0.2.11", 5),
         claim1("hostname web1", 0, 6, PROP_CLAIM_HOSTNAME, "hostname", "web1", -1));
    HOST("web2", 7, debian(8), info_leaf("ipv4", "192.0.2.12", 9),
         claim1("hostname web1", 0, 10, PROP_CLAIM_HOSTNAME, "hostname", "web1", -1),
         claim1("hostname web1", 0, 11, PROP_CLAIM_HOSTNAME, "hostname", "web1", -1));
    ck_assert_int_eq(prop_site_check(S), 0);
}
END_TEST

/* ipv4/ipv6 { shared = true }: the address and its mark, in one leaf. */
static prop_node *
shared_addr(const char *key, const char *value, int line)
{
    prop_info in[2];
    spec_extra x;

    in[0].key = key;
    in[0].value = value;
    in[1].key = "address.shared";
    in[1].value = value;
    memset(&x, 0, sizeof x);
    x.info = in;
    x.ninfo = 2;
    x.info_only = 1;
    return leaf_x(key, 0, line, x);
}

START_TEST(p013_shared_addresses)
{
    const prop_diag *d;

    /* Marked on every host that holds it: no finding. */
    HOST("ns1", 1, debian(2), shared_addr("ipv6", "2001:db8::53", 3));
    HOST("ns2", 4, debian(5), shared_addr("ipv6", "2001:db8::53", 6));
    /* Marked on one, not on the other: both places named. */
    HOST("lb1", 7, debian(8), shared_addr("ipv4", "192.0.2.80", 9));
    HOST("lb2", 10, debian(11), info_leaf("ipv4", "192.0.2.80", 12));
    ck_assert_int_eq(prop_site_check(S), 1);
    d = only("P013");
    ck_assert_int_eq(d->line, 12);
    ck_assert_str_eq(d->message, "address 192.0.2.80 is declared by host \"lb2\" here, and host "
                                 "\"lb1\" marks it shared at site.lua:9: a shared address "
                                 "(floating, anycast) must be marked { shared = true } on every "
                                 "host that holds it");
    expect_note(d, 0, 9, "host \"lb1\" marks it shared here");
    ck_assert_uint_eq(d->nnotes, 1);
}
END_TEST

/* ---- warnings ---- */

START_TEST(w101_duplicates)
{
    prop_node *p = apt_installed("nginx", 3);
    const prop_diag *d;

    HOST("web1", 1, debian(2), p, p, apt_installed("nginx", 5));
    ck_assert_int_eq(prop_site_check(S), 0);
    ck_assert_uint_eq(count("W101"), 2);
    d = nth("W101", 0);
    ck_assert_int_eq(d->line, 3);
    ck_assert_str_eq(d->message,
                     "\"apt installed nginx\" is listed twice on host \"web1\": the second one "
                     "has no effect");
    expect_note(d, 0, 1, "host \"web1\" is declared here");
    d = nth("W101", 1);
    ck_assert_int_eq(d->line, 5);
    ck_assert_str_eq(d->message, "\"apt installed nginx\" is already on host \"web1\": the second "
                                 "one has no effect");
    expect_note(d, 0, 3, "\"apt installed nginx\" is first declared here");
    ck_assert_uint_eq(prop_site_nwarnings(S), 2);
    ck_assert_uint_eq(prop_site_nerrors(S, 0), 0);
    ck_assert_uint_eq(prop_site_nerrors(S, 1), 2);
}
END_TEST

START_TEST(w101_near_miss)
{
    prop_node *srv = file_state("is a directory", PROP_CLAIM_FILE_DIRECTORY, "/srv", NULL, 3);

    HOST("web1", 1, debian(2), combine(PROP_REQUIRES, apt_installed("a", 4), srv, 4),
         combine(PROP_REQUIRES, apt_installed("b", 5), srv, 5),
         combine(PROP_REQUIRES, apt_installed("c", 6),
                 file_state("is a directory", PROP_CLAIM_FILE_DIRECTORY, "/srv", NULL, 6), 6),
         apt_installed("nginx", 7), apt_installed("tor", 8));
    ck_assert_int_eq(prop_site_check(S), 0);
    ck_assert_uint_eq(prop_site_ndiags(S), 0);
}
END_TEST

START_TEST(w102_hook)
{
    const prop_diag *d;

    combine(PROP_ON_CHANGE, info_leaf("ipv4", "192.0.2.10", 1),
            service("nginx", PROP_CLAIM_SVC_RESTARTED, 1), 1);
    combine(PROP_ON_CHANGE, file_content("/etc/nginx.conf", "x", 2),
            service("nginx", PROP_CLAIM_SVC_RESTARTED, 2), 2);
    ck_assert_int_eq(prop_site_check(S), 0);
    d = only("W102");
    ck_assert_int_eq(d->line, 1);
    ck_assert_str_eq(d->message, "\"service nginx restarted\" can never run: it waits for a change "
                                 "of \"ipv4 192.0.2.10\", which only carries information and "
                                 "never changes");
}
END_TEST

START_TEST(w103_empty_host)
{
    prop_host *h = NULL;
    prop_origin o = at(1);

    ck_assert_int_eq(prop_host_new(S, "web1", &o, &h), PROP_OK);
    HOST("web2", 2, debian(2));
    ck_assert_int_eq(prop_site_check(S), 0);
    ck_assert_int_eq(only("W103")->line, 1);
    ck_assert_str_eq(only("W103")->message,
                     "host \"web1\" has no properties: prop has nothing to do on it");
}
END_TEST

/* ---- diagnostics: recording, sorting, printing ---- */

START_TEST(called_from_here)
{
    prop_frame frames[] = {{"lib.lua", 4}, {"site.lua", 13}, {"site.lua", 20}};
    prop_origin o = {frames, 3};
    const prop_diag *d;

    ck_assert_int_eq(prop_site_report(S, "P012", PROP_SEV_ERROR, &o, "bad"), PROP_OK);
    d = prop_site_diag(S, 0);
    ck_assert_str_eq(d->file, "lib.lua");
    ck_assert_int_eq(d->line, 4);
    ck_assert_uint_eq(d->nnotes, 2);
    ck_assert_str_eq(d->notes[0].file, "site.lua");
    expect_note(d, 0, 13, "called from here");
    expect_note(d, 1, 20, "called from here");
}
END_TEST

START_TEST(explicit_notes_come_first)
{
    prop_frame frames[] = {{"site.lua", 4}, {"site.lua", 13}};
    prop_origin o = {frames, 2};
    prop_node *a = leaf("cmd run x", 0, 9);
    prop_origin ro = {frames, 2};
    prop_node *r = NULL;

    ck_assert_int_eq(prop_revert_new(S, a, &ro, &r), PROP_OK);
    (void)o;
    prop_site_check(S);
    ck_assert_uint_eq(only("P001")->nnotes, 2);
    expect_note(only("P001"), 0, 9, "cmd run x has no revert action");
    expect_note(only("P001"), 1, 13, "called from here");
}
END_TEST

START_TEST(sorting)
{
    prop_origin b5 = at_in("b.lua", 5), a9 = at_in("a.lua", 9), a2 = at_in("a.lua", 2);
    prop_origin none = {NULL, 0};
    size_t i;
    static const char *const want[] = {"a.lua:2:P002", "a.lua:2:P005", "a.lua:9:P001",
                                       "a.lua:9:P001", "b.lua:5:W101", "-:0:P011"};
    static const char *const msgs[] = {"first", "second"};

    ck_assert_int_eq(prop_site_report(S, "P011", PROP_SEV_ERROR, &none, "no place"), PROP_OK);
    ck_assert_int_eq(prop_site_report(S, "W101", PROP_SEV_WARNING, &b5, "w"), PROP_OK);
    ck_assert_int_eq(prop_site_report(S, "P001", PROP_SEV_ERROR, &a9, "first"), PROP_OK);
    ck_assert_int_eq(prop_site_report(S, "P005", PROP_SEV_ERROR, &a2, "x"), PROP_OK);
    ck_assert_int_eq(prop_site_report(S, "P001", PROP_SEV_ERROR, &a9, "second"), PROP_OK);
    ck_assert_int_eq(prop_site_report(S, "P002", PROP_SEV_ERROR, &a2, "y"), PROP_OK);
    ck_assert_int_eq(prop_site_check(S), 5);
    ck_assert_uint_eq(prop_site_ndiags(S), 6);
    for (i = 0; i < 6; i++) {
        const prop_diag *d = prop_site_diag(S, i);
        char got[64];

        snprintf(got, sizeof got, "%s:%d:%s", d->file ? d->file : "-", d->line, d->code);
        ck_assert_str_eq(got, want[i]);
    }
    ck_assert_str_eq(prop_site_diag(S, 2)->message, msgs[0]);
    ck_assert_str_eq(prop_site_diag(S, 3)->message, msgs[1]);
}
END_TEST

START_TEST(idempotent)
{
    HOST("web1", 1, debian(2), apache(3), tor(4), apt_installed("x", 5), apt_removed("x", 6));
    HOST("web1", 7, debian(8));
    ck_assert_int_eq(prop_site_check(S), 3);
    ck_assert_uint_eq(prop_site_ndiags(S), 3);
    ck_assert_int_eq(prop_site_check(S), 3);
    ck_assert_uint_eq(prop_site_ndiags(S), 3);
}
END_TEST

START_TEST(text_golden)
{
    static const char src[] = "host \"web1\" {\n"
                              "  os.debian(\"bookworm\", \"amd64\"),\n"
                              "  apt.installed { \"nginx\" },\n"
                              "  apt.installed { \"nginx\" },\n"
                              "}\n";
    prop_origin none = {NULL, 0};
    char *out;

    ck_assert_int_eq(prop_site_add_source(S, "site.lua", src, strlen(src)), PROP_OK);
    HOST("web1", 1, debian(2), apt_installed("nginx", 3), apt_installed("nginx", 4));
    ck_assert_int_eq(prop_site_report(S, "P011", PROP_SEV_ERROR, &none, "a \"quoted\"\tthing"),
                     PROP_OK);
    prop_site_check(S);
    out = text(0, 0);
    ck_assert_str_eq(out, "site.lua:4: warning[W101]: \"apt installed nginx\" is already on host "
                          "\"web1\": the second one has no effect\n"
                          "    4 |   apt.installed { \"nginx\" },\n"
                          "site.lua:3: note: \"apt installed nginx\" is first declared here\n"
                          "error[P011]: a \"quoted\"\\tthing\n");
    free(out);
    out = text(0, 1);
    ck_assert_ptr_nonnull(strstr(out, "site.lua:4: error[W101]: "));
    free(out);
    out = text(1, 0);
    ck_assert_ptr_nonnull(
        strstr(out, "\033[1msite.lua:4:\033[0m \033[1;35mwarning[W101]\033[0m: "));
    ck_assert_ptr_nonnull(strstr(out, "\033[1msite.lua:3:\033[0m \033[1;36mnote\033[0m: "));
    ck_assert_ptr_nonnull(strstr(out, "\033[1;31merror[P011]\033[0m: "));
    free(out);
}
END_TEST

START_TEST(text_without_source)
{
    prop_origin o = at(7);
    char *out;

    ck_assert_int_eq(prop_site_report(S, "P012", PROP_SEV_ERROR, &o, "bad"), PROP_OK);
    out = text(0, 0);
    ck_assert_str_eq(out, "site.lua:7: error[P012]: bad\n");
    free(out);
}
END_TEST

START_TEST(json_golden)
{
    prop_frame frames[] = {{"site.lua", 13}, {"site.lua", 20}};
    prop_origin o = {frames, 2}, none = {NULL, 0};
    char *out;

    ck_assert_int_eq(prop_site_report(S, "P006", PROP_SEV_ERROR, &o, "port \"443\"\n\x01\xc3\xa9"),
                     PROP_OK);
    ck_assert_int_eq(prop_site_report(S, "W103", PROP_SEV_WARNING, &none, "w\\"), PROP_OK);
    out = json(0);
    ck_assert_str_eq(out, "[\n"
                          "{\"code\":\"P006\",\"severity\":\"error\",\"file\":\"site.lua\","
                          "\"line\":13,\"message\":\"port \\\"443\\\"\\n\\u0001\xc3\xa9\","
                          "\"notes\":[{\"file\":\"site.lua\",\"line\":20,\"message\":\"called "
                          "from here\"}]},\n"
                          "{\"code\":\"W103\",\"severity\":\"warning\",\"file\":null,\"line\":"
                          "null,\"message\":\"w\\\\\",\"notes\":[]}\n"
                          "]\n");
    free(out);
    out = json(1);
    ck_assert_ptr_nonnull(strstr(out, "{\"code\":\"W103\",\"severity\":\"error\""));
    free(out);
}
END_TEST

START_TEST(json_empty)
{
    char *out;

    ck_assert_int_eq(prop_site_check(S), 0);
    out = json(0);
    ck_assert_str_eq(out, "[]\n");
    free(out);
}
END_TEST

START_TEST(json_string)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    ck_assert_int_eq(prop_json_write_string(f, "a\0b\x1f\x7f\"\\/\r\t\b\f", 12), PROP_OK);
    fclose(f);
    ck_assert_str_eq(buf, "\"a\\u0000b\\u001f\\u007f\\\"\\\\/\\r\\t\\b\\f\"");
    free(buf);
}
END_TEST

START_TEST(report_bad_arguments)
{
    prop_origin o = at(1);

    ck_assert_int_eq(prop_site_report(S, "P0000000012", PROP_SEV_ERROR, &o, "x"), PROP_EINVAL);
    ck_assert_int_eq(prop_site_report(S, "P012", (prop_severity)7, &o, "x"), PROP_EINVAL);
    ck_assert_int_eq(prop_site_report(S, NULL, PROP_SEV_ERROR, &o, "x"), PROP_EINVAL);
    ck_assert_uint_eq(prop_site_ndiags(S), 0);
    ck_assert_ptr_null(prop_site_diag(S, 0));
}
END_TEST

/* ---- explain ---- */

START_TEST(explain_every_code)
{
    const char *const *codes = prop_explain_codes();
    size_t n = 0;

    for (; codes[n] != NULL; n++) {
        const char *t = prop_explain(codes[n]);

        ck_assert_ptr_nonnull(t);
        ck_assert_ptr_nonnull(prop_explain_summary(codes[n]));
        ck_assert_msg(strncmp(t, codes[n], 4) == 0, "%s text starts with its code", codes[n]);
        ck_assert_msg(strstr(t, "Wrong") != NULL, "%s has a wrong example", codes[n]);
        ck_assert_msg(strstr(t, "Fix") != NULL, "%s has a fix", codes[n]);
        ck_assert_msg(strstr(t + 4, codes[n]) != NULL, "%s shows its diagnostic", codes[n]);
        if (n > 0)
            ck_assert_msg(strcmp(codes[n - 1], codes[n]) < 0, "codes in order");
    }
    ck_assert_uint_eq(n, 27);
    ck_assert_str_eq(codes[0], "P001");
    ck_assert_str_eq(codes[13], "P014");
    ck_assert_str_eq(codes[14], "P015");
    ck_assert_str_eq(codes[15], "P016");
    ck_assert_str_eq(codes[16], "P017");
    ck_assert_str_eq(codes[19], "W103");
    ck_assert_str_eq(codes[20], "W104");
    ck_assert_str_eq(codes[21], "W105");
    ck_assert_str_eq(codes[22], "W106");
    ck_assert_str_eq(codes[23], "W107");
    ck_assert_str_eq(codes[24], "W108");
    ck_assert_str_eq(codes[25], "W109");
    ck_assert_str_eq(codes[26], "W110");
    ck_assert_ptr_null(prop_explain("P999"));
    ck_assert_ptr_null(prop_explain_summary(NULL));
    ck_assert_ptr_null(prop_explain("p001"));
}
END_TEST

/* ---- scale: many hosts, linear ---- */

START_TEST(many_hosts)
{
    prop_node *shared = file_state("is a directory", PROP_CLAIM_FILE_DIRECTORY, "/srv", NULL, 2);
    char name[32];
    int i;

    for (i = 0; i < 2000; i++) {
        prop_node *items[4];
        prop_host *h;

        items[0] = debian(1);
        items[1] = shared;
        items[2] = apt_installed("nginx", 3);
        items[3] = file_content("/etc/motd", "hello\n", 4);
        snprintf(name, sizeof name, "web%d", i);
        h = host(name, 1, items, 4);
        (void)h;
    }
    ck_assert_int_eq(prop_site_check(S), 0);
    ck_assert_uint_eq(prop_site_ndiags(S), 0);
}
END_TEST

START_TEST(shared_subtrees_do_not_explode)
{
    prop_node *p = apt_installed("nginx", 1);
    int i;

    for (i = 0; i < 200; i++)
        p = combine(PROP_REQUIRES, p, p, 2);
    HOST("web1", 1, debian(1), p);
    HOST("web2", 2, p, leaf("pkg installed tor", PROP_OS_FREEBSD, 3));
    /* No OS: finding that out must not walk 2^200 leaves. */
    ck_assert_int_eq(prop_site_check(S), 1);
    ck_assert_int_eq(only("P003")->line, 3);
}
END_TEST

static TCase *
tcase(Suite *s, const char *name)
{
    TCase *tc = tcase_create(name);

    tcase_add_checked_fixture(tc, setup, teardown);
    suite_add_tcase(s, tc);
    return tc;
}

static Suite *
prepass_suite(void)
{
    Suite *s = suite_create("prepass");
    TCase *tc;

    tc = tcase(s, "P001");
    tcase_add_test(tc, p001_os);
    tcase_add_test(tc, p001_composite_names_the_leaf);
    tcase_add_test(tc, p001_generic_note_and_on_change);
    tcase_add_test(tc, p001_near_miss);
    tcase_add_test(tc, p001_nested_revert_reported_once);
    tc = tcase(s, "P002");
    tcase_add_test(tc, p002_apt_on_freebsd);
    tcase_add_test(tc, p002_innermost_part);
    tcase_add_test(tc, p002_near_miss);
    tcase_add_test(tc, p002_pick_os_without_fit);
    tc = tcase(s, "P003");
    tcase_add_test(tc, p003_no_os);
    tcase_add_test(tc, p003_no_single_culprit);
    tcase_add_test(tc, p003_near_miss);
    tc = tcase(s, "P004");
    tcase_add_test(tc, p004_two_oses);
    tcase_add_test(tc, p004_nested);
    tcase_add_test(tc, p004_near_miss);
    tc = tcase(s, "P005");
    tcase_add_test(tc, p005_requires);
    tcase_add_test(tc, p005_props_three);
    tcase_add_test(tc, p005_near_miss);
    tc = tcase(s, "P006");
    tcase_add_test(tc, p006_host);
    tcase_add_test(tc, p006_composite_once);
    tcase_add_test(tc, p006_top_note);
    tcase_add_test(tc, p006_near_miss);
    tc = tcase(s, "P014");
    tcase_add_test(tc, p014_host_port);
    tcase_add_test(tc, p014_two_containers);
    tcase_add_test(tc, p014_near_miss);
    tc = tcase(s, "P007");
    tcase_add_test(tc, p007_absent_vs_directory);
    tcase_add_test(tc, p007_two_contents);
    tcase_add_test(tc, p007_fragments_agree);
    tcase_add_test(tc, p007_fragment_two_texts);
    tcase_add_test(tc, p007_fragments_and_content);
    tcase_add_test(tc, p007_two_assemblers);
    tcase_add_test(tc, p007_two_firewalls);
    tcase_add_test(tc, p007_two_contents_name_fragments);
    tcase_add_test(tc, p012_fragment_without_assembler);
    tcase_add_test(tc, p007_content_lacks_line);
    tcase_add_test(tc, p007_content_after_line);
    tcase_add_test(tc, p007_content_has_removed_line);
    tcase_add_test(tc, p007_line_and_noline);
    tcase_add_test(tc, p007_below_absent);
    tcase_add_test(tc, p007_modes_and_owners);
    tcase_add_test(tc, p007_owned_whole);
    tcase_add_test(tc, p007_owned_reverse_order);
    tcase_add_test(tc, p007_conf_settings);
    tcase_add_test(tc, p007_setting_and_content);
    tcase_add_test(tc, p007_line_matches);
    tcase_add_test(tc, p007_near_miss);
    tcase_add_test(tc, p007_one_diag_per_pair);
    tc = tcase(s, "P008");
    tcase_add_test(tc, p008_installed_removed);
    tcase_add_test(tc, p008_revert);
    tcase_add_test(tc, p008_near_miss);
    tc = tcase(s, "P009");
    tcase_add_test(tc, p009_running_stopped);
    tcase_add_test(tc, p009_near_miss);
    tc = tcase(s, "P016");
    tcase_add_test(tc, p016_provider_after);
    tcase_add_test(tc, p016_ordered);
    tcase_add_test(tc, w106_nothing_provides);
    tc = tcase(s, "P010");
    tcase_add_test(tc, p010_accounts);
    tcase_add_test(tc, p010_near_miss);
    tcase_add_test(tc, p010_user_settings);
    tcase_add_test(tc, p010_user_settings_near_miss);
    tcase_add_test(tc, p007_settings);
    tcase_add_test(tc, p007_settings_near_miss);
    tcase_add_test(tc, p007_settings_content);
    tc = tcase(s, "P011");
    tcase_add_test(tc, p011_two_hosts);
    tcase_add_test(tc, p011_near_miss);
    tc = tcase(s, "P012");
    tcase_add_test(tc, p012_invalid);
    tc = tcase(s, "P013");
    tcase_add_test(tc, p013_hostnames);
    tcase_add_test(tc, p013_addresses);
    tcase_add_test(tc, p013_near_miss);
    tcase_add_test(tc, p013_shared_addresses);
    tc = tcase(s, "W101");
    tcase_add_test(tc, w101_duplicates);
    tcase_add_test(tc, w101_near_miss);
    tc = tcase(s, "W102");
    tcase_add_test(tc, w102_hook);
    tc = tcase(s, "W103");
    tcase_add_test(tc, w103_empty_host);
    tc = tcase(s, "diagnostics");
    tcase_add_test(tc, called_from_here);
    tcase_add_test(tc, explicit_notes_come_first);
    tcase_add_test(tc, sorting);
    tcase_add_test(tc, idempotent);
    tcase_add_test(tc, text_golden);
    tcase_add_test(tc, text_without_source);
    tcase_add_test(tc, json_golden);
    tcase_add_test(tc, json_empty);
    tcase_add_test(tc, json_string);
    tcase_add_test(tc, report_bad_arguments);
    tc = tcase(s, "explain");
    tcase_add_test(tc, explain_every_code);
    tc = tcase(s, "scale");
    tcase_add_test(tc, many_hosts);
    tcase_add_test(tc, shared_subtrees_do_not_explode);
    return s;
}

int
main(void)
{
    return run_suite(prepass_suite());
}
