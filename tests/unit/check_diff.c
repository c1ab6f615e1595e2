/*
 * check_diff.c - unified diffs (diff.c): exact output for known inputs
 * (as GNU diff -u prints them), equal texts, newlines at the end, large
 * inputs, and random inputs whose diffs must apply back and be minimal.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prop/diff.h"
#include "unit.h"

/* Diff two strings with labels "old" / "new". */
static char *
udiff(const char *a, const char *b, unsigned context, size_t *len)
{
    char *out = NULL;

    ck_assert_int_eq(
        prop_diff_unified(a, strlen(a), b, strlen(b), "old", "new", context, &out, len), PROP_OK);
    return out;
}

static void
expect_diff(const char *a, const char *b, unsigned context, const char *want)
{
    size_t len = 0;
    char *out = udiff(a, b, context, &len);

    ck_assert_ptr_nonnull(out);
    ck_assert_uint_eq(len, strlen(out));
    ck_assert_str_eq(out, want);
    free(out);
}

/*
 * Check's ck_assert records a place on every success (a write to a pipe):
 * the helpers below, run millions of times, only report failures.
 */
#define REQ(cond)                                                                                  \
    do {                                                                                           \
        if (!(cond))                                                                               \
            ck_abort_msg("%s:%d: %s", __FILE__, __LINE__, #cond);                                  \
    } while (0)

/* ---- applying a diff back (a small patch) ---- */

typedef struct tline {
    const char *s;
    size_t len;
} tline;

static size_t
tsplit(const char *t, size_t len, tline **out)
{
    size_t n = 0, cap = 16, p = 0;
    tline *v = malloc(cap * sizeof *v);

    REQ((v) != NULL);
    while (p < len) {
        const char *nl = memchr(t + p, '\n', len - p);
        size_t e = nl ? (size_t)(nl - t) + 1 : len;

        if (n == cap) {
            cap *= 2;
            void *nv = realloc(v, cap * sizeof *v);
            REQ((nv) != NULL);
            v = nv;
        }
        v[n].s = t + p;
        v[n].len = e - p;
        n++;
        p = e;
    }
    *out = v;
    return n;
}

typedef struct tbuf {
    char *p;
    size_t len, cap;
} tbuf;

static void
tadd(tbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
        REQ((b->p) != NULL);
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

static size_t
parse_num(const char **p)
{
    char *end;
    unsigned long long v = strtoull(*p, &end, 10);

    REQ((end) != (*p));
    *p = end;
    return (size_t)v;
}

/* "start[,count]" */
static void
parse_range(const char **p, size_t *start, size_t *count)
{
    *start = parse_num(p);
    *count = 1;
    if (**p == ',') {
        (*p)++;
        *count = parse_num(p);
    }
}

/*
 * Apply diff d to old; the result must be new_.  Counts the removed and
 * added lines in *dels / *adds.
 */
static void
apply_check(const char *old, size_t ol, const char *new_, size_t nl, const char *d, size_t dl,
            size_t *dels, size_t *adds)
{
    tline *ol_lines;
    size_t no = tsplit(old, ol, &ol_lines), oi = 0, nout = 0;
    const char *p = d, *end = d + dl;
    tbuf r = {NULL, 0, 0};

    *dels = *adds = 0;
    if (dl == 0) {
        REQ(ol == nl && memcmp(old, new_, ol) == 0);
        free(ol_lines);
        return;
    }
    REQ(strncmp(p, "--- ", 4) == 0);
    p = strchr(p, '\n') + 1;
    REQ(strncmp(p, "+++ ", 4) == 0);
    p = strchr(p, '\n') + 1;
    while (p < end) {
        size_t os, on, ns, nn, co = 0, cn = 0, ostart, nstart;

        REQ(strncmp(p, "@@ -", 4) == 0);
        p += 4;
        parse_range(&p, &os, &on);
        REQ(strncmp(p, " +", 2) == 0);
        p += 2;
        parse_range(&p, &ns, &nn);
        REQ(strncmp(p, " @@\n", 4) == 0);
        p += 4;
        ostart = on ? os - 1 : os;
        nstart = nn ? ns - 1 : ns;
        REQ((ostart) >= (oi)); /* hunks in order, not overlapping */
        REQ((ostart) <= (no));
        for (; oi < ostart; oi++, nout++)
            tadd(&r, ol_lines[oi].s, ol_lines[oi].len);
        REQ((nout) == (nstart));
        while (co < on || cn < nn) {
            char tag = *p;
            const char *s = p + 1, *e = memchr(s, '\n', (size_t)(end - s));
            size_t len;

            REQ((e) != NULL);
            len = (size_t)(e - s) + 1;
            p = e + 1;
            if (p < end && *p == '\\') {
                REQ(strncmp(p, "\\ No newline at end of file\n", 28) == 0);
                p += 28;
                len--;
            }
            if (tag == ' ' || tag == '-') {
                REQ((oi) < (no));
                REQ((ol_lines[oi].len) == (len));
                REQ(memcmp(ol_lines[oi].s, s, len) == 0);
                oi++;
                co++;
            }
            if (tag == ' ' || tag == '+') {
                tadd(&r, s, len);
                cn++;
                nout++;
            }
            REQ(tag == ' ' || tag == '-' || tag == '+');
            *dels += tag == '-';
            *adds += tag == '+';
        }
        REQ((co) == (on));
        REQ((cn) == (nn));
    }
    for (; oi < no; oi++)
        tadd(&r, ol_lines[oi].s, ol_lines[oi].len);
    REQ((r.len) == (nl));
    REQ(nl == 0 || memcmp(r.p, new_, nl) == 0);
    free(r.p);
    free(ol_lines);
}

/* Length of a longest common subsequence of the lines (small inputs). */
static size_t
lcs(const char *a, size_t al, const char *b, size_t bl)
{
    tline *la, *lb;
    size_t na = tsplit(a, al, &la), nb = tsplit(b, bl, &lb), i, j, *t, r;

    t = calloc((na + 1) * (nb + 1), sizeof *t);
    REQ((t) != NULL);
    for (i = 1; i <= na; i++)
        for (j = 1; j <= nb; j++) {
            if (la[i - 1].len == lb[j - 1].len &&
                memcmp(la[i - 1].s, lb[j - 1].s, la[i - 1].len) == 0)
                t[i * (nb + 1) + j] = t[(i - 1) * (nb + 1) + j - 1] + 1;
            else {
                size_t u = t[(i - 1) * (nb + 1) + j], l = t[i * (nb + 1) + j - 1];
                t[i * (nb + 1) + j] = u > l ? u : l;
            }
        }
    r = t[na * (nb + 1) + nb];
    free(t);
    free(la);
    free(lb);
    return r;
}

static size_t
nlines(const char *t, size_t len)
{
    tline *v;
    size_t n = tsplit(t, len, &v);

    free(v);
    return n;
}

/* ---- tests ---- */

START_TEST(test_equal)
{
    char *out = (char *)1;
    size_t len = 99;

    ck_assert_int_eq(prop_diff_unified("a\nb\n", 4, "a\nb\n", 4, "x", "y", 3, &out, &len), PROP_OK);
    ck_assert_ptr_null(out);
    ck_assert_uint_eq(len, 0);
    out = (char *)1;
    ck_assert_int_eq(prop_diff_unified(NULL, 0, "", 0, "x", "y", 3, &out, &len), PROP_OK);
    ck_assert_ptr_null(out);
    ck_assert_uint_eq(len, 0);
    ck_assert_int_eq(prop_diff_unified("abc", 3, "abc", 3, "x", "y", 0, &out, &len), PROP_OK);
    ck_assert_ptr_null(out);
}
END_TEST

START_TEST(test_bad_args)
{
    char *out = (char *)1;
    size_t len = 5;

    ck_assert_int_eq(prop_diff_unified("a", 1, "b", 1, "x", "y", 3, NULL, &len), PROP_EINVAL);
    ck_assert_uint_eq(len, 0);
    ck_assert_int_eq(prop_diff_unified("a", 1, "b", 1, "x", "y", 3, &out, NULL), PROP_EINVAL);
    ck_assert_ptr_null(out);
    ck_assert_int_eq(prop_diff_unified(NULL, 3, "b", 1, "x", "y", 3, &out, &len), PROP_EINVAL);
    ck_assert_int_eq(prop_diff_unified("a", 1, NULL, 2, "x", "y", 3, &out, &len), PROP_EINVAL);
}
END_TEST

START_TEST(test_one_change)
{
    expect_diff("a\nb\nc\n", "a\nB\nc\n", 3, "--- old\n+++ new\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
    expect_diff("a\nb\nc\n", "a\nB\nc\n", 0, "--- old\n+++ new\n@@ -2 +2 @@\n-b\n+B\n");
    expect_diff("a\nb\nc\n", "a\nb\nc\nd\n", 1, "--- old\n+++ new\n@@ -3 +3,2 @@\n c\n+d\n");
    expect_diff("a\nb\nc\n", "a\nc\n", 3, "--- old\n+++ new\n@@ -1,3 +1,2 @@\n a\n-b\n c\n");
    expect_diff("a\nb\nc\n", "a\nc\n", 0, "--- old\n+++ new\n@@ -2 +1,0 @@\n-b\n");
    expect_diff("a\nc\n", "a\nb\nc\n", 0, "--- old\n+++ new\n@@ -1,0 +2 @@\n+b\n");
}
END_TEST

START_TEST(test_empty_sides)
{
    expect_diff("", "x\ny\n", 3, "--- old\n+++ new\n@@ -0,0 +1,2 @@\n+x\n+y\n");
    expect_diff("x\n", "", 3, "--- old\n+++ new\n@@ -1 +0,0 @@\n-x\n");
    expect_diff("", "x", 3, "--- old\n+++ new\n@@ -0,0 +1 @@\n+x\n\\ No newline at end of file\n");
}
END_TEST

START_TEST(test_trailing_newline)
{
    expect_diff("a\nb", "a\nb\n", 3,
                "--- old\n+++ new\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n");
    expect_diff("a\nb\n", "a\nb", 3,
                "--- old\n+++ new\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n");
    expect_diff("a\nb", "a\nc", 3,
                "--- old\n+++ new\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n"
                "\\ No newline at end of file\n");
    /* An unchanged last line without newline, shown as context. */
    expect_diff(
        "a\nb\nc", "A\nb\nc", 3,
        "--- old\n+++ new\n@@ -1,3 +1,3 @@\n-a\n+A\n b\n c\n\\ No newline at end of file\n");
}
END_TEST

/* "1\n" .. "n\n", with line i (1-based) replaced by repl[i] when set. */
static char *
numbered(int n, const char *const *repl)
{
    tbuf b = {NULL, 0, 0};
    char line[32];
    int i;

    for (i = 1; i <= n; i++) {
        if (repl && repl[i])
            snprintf(line, sizeof line, "%s\n", repl[i]);
        else
            snprintf(line, sizeof line, "%d\n", i);
        tadd(&b, line, strlen(line));
    }
    tadd(&b, "", 1);
    return b.p;
}

START_TEST(test_hunks)
{
    const char *r1[21] = {NULL}, *r2[21] = {NULL}, *r3[21] = {NULL};
    char *a = numbered(20, NULL), *b;

    /* Far apart: two hunks. */
    r1[2] = "two";
    r1[18] = "eighteen";
    b = numbered(20, r1);
    expect_diff(a, b, 3,
                "--- old\n+++ new\n"
                "@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n"
                "@@ -15,6 +15,6 @@\n 15\n 16\n 17\n-18\n+eighteen\n 19\n 20\n");
    free(b);
    /* Six equal lines between: one hunk. */
    r2[2] = "two";
    r2[9] = "nine";
    b = numbered(20, r2);
    expect_diff(a, b, 3,
                "--- old\n+++ new\n"
                "@@ -1,12 +1,12 @@\n 1\n-2\n+two\n 3\n 4\n 5\n 6\n 7\n 8\n-9\n+nine\n 10\n 11\n"
                " 12\n");
    free(b);
    /* Seven: two. */
    r3[2] = "two";
    r3[10] = "ten";
    b = numbered(20, r3);
    expect_diff(a, b, 3,
                "--- old\n+++ new\n"
                "@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n"
                "@@ -7,7 +7,7 @@\n 7\n 8\n 9\n-10\n+ten\n 11\n 12\n 13\n");
    free(b);
    free(a);
}
END_TEST

START_TEST(test_moves_and_labels)
{
    char *out = NULL;
    size_t len = 0;

    ck_assert_int_eq(prop_diff_unified("x\n", 2, "y\n", 2, NULL, NULL, 3, &out, &len), PROP_OK);
    ck_assert_str_eq(out, "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n");
    free(out);
    /* A block moved: the minimal diff moves the shorter part. */
    expect_diff("a\nb\nc\nd\ne\n", "c\nd\ne\na\nb\n", 3,
                "--- old\n+++ new\n@@ -1,5 +1,5 @@\n-a\n-b\n c\n d\n e\n+a\n+b\n");
}
END_TEST

START_TEST(test_binary)
{
    const char a[] = "x\0y\nsame\n", b[] = "x\0z\nsame\n";
    const char want[] = "--- a\n+++ b\n@@ -1,2 +1,2 @@\n-x\0y\n+x\0z\n same\n";
    char *out = NULL;
    size_t len = 0;

    ck_assert_int_eq(prop_diff_unified(a, sizeof a - 1, b, sizeof b - 1, "a", "b", 3, &out, &len),
                     PROP_OK);
    ck_assert_uint_eq(len, sizeof want - 1);
    ck_assert(memcmp(out, want, len) == 0);
    ck_assert_int_eq(out[len], '\0');
    free(out);
}
END_TEST

static uint64_t rng_state = 0x12345678abcdefULL;

static unsigned
rnd(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)((rng_state >> 33) % n);
}

/* Random lines from a small alphabet, so that many lines repeat. */
static void
random_text(tbuf *b, unsigned maxlines)
{
    unsigned n = rnd(maxlines + 1), i;

    b->len = 0;
    for (i = 0; i < n; i++) {
        char c = (char)('a' + rnd(4));

        tadd(b, &c, 1);
        if (rnd(5) == 0)
            tadd(b, &c, 1);
        if (i + 1 < n || rnd(4) != 0)
            tadd(b, "\n", 1);
    }
    tadd(b, "", 1);
    b->len--;
}

/* Edit a copy of a at random. */
static void
mutate(const tbuf *a, tbuf *b)
{
    tline *v;
    size_t n = tsplit(a->p, a->len, &v), i;

    b->len = 0;
    for (i = 0; i < n; i++) {
        unsigned r = rnd(10);

        if (r == 0)
            continue; /* delete */
        if (r == 1)
            tadd(b, "new\n", 4);
        if (r == 2)
            tadd(b, "x\n", 2);
        else
            tadd(b, v[i].s, v[i].len);
    }
    if (rnd(3) == 0)
        tadd(b, "tail", 4);
    tadd(b, "", 1);
    b->len--;
    free(v);
}

START_TEST(test_random_minimal)
{
    tbuf a = {NULL, 0, 0}, b = {NULL, 0, 0};
    int iter;

    for (iter = 0; iter < 3000; iter++) {
        unsigned ctx = rnd(5);
        size_t len = 0, dels, adds, common;
        char *out = NULL;

        random_text(&a, 30);
        if (iter % 2)
            mutate(&a, &b);
        else
            random_text(&b, 30);
        ck_assert_int_eq(prop_diff_unified(a.p, a.len, b.p, b.len, "a", "b", ctx, &out, &len),
                         PROP_OK);
        apply_check(a.p, a.len, b.p, b.len, out, len, &dels, &adds);
        common = lcs(a.p, a.len, b.p, b.len);
        ck_assert_uint_eq(dels, nlines(a.p, a.len) - common);
        ck_assert_uint_eq(adds, nlines(b.p, b.len) - common);
        free(out);
    }
    free(a.p);
    free(b.p);
}
END_TEST

START_TEST(test_large_similar)
{
    int n = 200000, i;
    tbuf a = {NULL, 0, 0}, b = {NULL, 0, 0};
    char line[32];
    char *out = NULL;
    size_t len = 0, dels, adds;

    for (i = 1; i <= n; i++) {
        snprintf(line, sizeof line, "line %d\n", i);
        tadd(&a, line, strlen(line));
        if (i == 10)
            continue; /* removed */
        if (i == 100000)
            tadd(&b, "changed\n", 8);
        else
            tadd(&b, line, strlen(line));
        if (i == 199990)
            tadd(&b, "added\n", 6);
    }
    ck_assert_int_eq(prop_diff_unified(a.p, a.len, b.p, b.len, "a", "b", 3, &out, &len), PROP_OK);
    ck_assert_ptr_nonnull(out);
    ck_assert_str_eq(out, "--- a\n+++ b\n"
                          "@@ -7,7 +7,6 @@\n line 7\n line 8\n line 9\n-line 10\n line 11\n"
                          " line 12\n line 13\n"
                          "@@ -99997,7 +99996,7 @@\n line 99997\n line 99998\n line 99999\n"
                          "-line 100000\n+changed\n line 100001\n line 100002\n line 100003\n"
                          "@@ -199988,6 +199987,7 @@\n line 199988\n line 199989\n line 199990\n"
                          "+added\n line 199991\n line 199992\n line 199993\n");
    apply_check(a.p, a.len, b.p, b.len, out, len, &dels, &adds);
    ck_assert_uint_eq(dels, 2);
    ck_assert_uint_eq(adds, 2);
    free(out);
    free(a.p);
    free(b.p);
}
END_TEST

/* Two large texts with nothing in common: one replacement hunk, quickly. */
static void
large_different(int n)
{
    tbuf a = {NULL, 0, 0}, b = {NULL, 0, 0};
    char line[32], head[64];
    char *out = NULL;
    size_t len = 0, dels, adds;
    int i;

    for (i = 0; i < n; i++) {
        snprintf(line, sizeof line, "old %d\n", i);
        tadd(&a, line, strlen(line));
        snprintf(line, sizeof line, "new %lld\n", (long long)i * 7919 % n);
        tadd(&b, line, strlen(line));
    }
    ck_assert_int_eq(prop_diff_unified(a.p, a.len, b.p, b.len, "a", "b", 3, &out, &len), PROP_OK);
    snprintf(head, sizeof head, "--- a\n+++ b\n@@ -1,%d +1,%d @@\n-old 0\n", n, n);
    ck_assert_int_eq(strncmp(out, head, strlen(head)), 0);
    apply_check(a.p, a.len, b.p, b.len, out, len, &dels, &adds);
    ck_assert_uint_eq(dels, (size_t)n);
    ck_assert_uint_eq(adds, (size_t)n);
    free(out);
    free(a.p);
    free(b.p);
}

START_TEST(test_large_different)
{
    large_different(300000); /* searched until the budget runs out */
    large_different(600000); /* too many lines to search */
}
END_TEST

/* Large, mostly equal, with many scattered changes: still minimal enough to apply. */
START_TEST(test_large_scattered)
{
    tbuf a = {NULL, 0, 0}, b = {NULL, 0, 0};
    char line[32], *out = NULL;
    size_t len = 0, dels, adds;
    int i;

    for (i = 0; i < 100000; i++) {
        snprintf(line, sizeof line, "%d\n", i);
        tadd(&a, line, strlen(line));
        if (i % 50 == 0)
            snprintf(line, sizeof line, "x%d\n", i);
        tadd(&b, line, strlen(line));
    }
    ck_assert_int_eq(prop_diff_unified(a.p, a.len, b.p, b.len, "a", "b", 3, &out, &len), PROP_OK);
    apply_check(a.p, a.len, b.p, b.len, out, len, &dels, &adds);
    ck_assert_uint_eq(dels, 2000);
    ck_assert_uint_eq(adds, 2000);
    free(out);
    free(a.p);
    free(b.p);
}
END_TEST

static Suite *
diff_suite(void)
{
    Suite *s = suite_create("diff");
    TCase *tc = tcase_create("unified");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_equal);
    tcase_add_test(tc, test_bad_args);
    tcase_add_test(tc, test_one_change);
    tcase_add_test(tc, test_empty_sides);
    tcase_add_test(tc, test_trailing_newline);
    tcase_add_test(tc, test_hunks);
    tcase_add_test(tc, test_moves_and_labels);
    tcase_add_test(tc, test_binary);
    tcase_add_test(tc, test_random_minimal);
    tcase_add_test(tc, test_large_similar);
    tcase_add_test(tc, test_large_different);
    tcase_add_test(tc, test_large_scattered);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    return run_suite(diff_suite());
}
