/*
 * check_pending.c - durable triggers without Lua: the record file of owed
 * trigger targets (prop_pending) and the executor running what an
 * earlier run owed (prop_triggers_new_owed, prop_exec_ops.owe).
 *
 * Each leaf's behaviour is an index into a table of results; ensure()
 * appends the leaf's description to a trail, owe() its calls to another.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prop/exec.h"
#include "prop/prop.h"
#include "unit.h"

static prop_site *S;

static const prop_frame frames[] = {{"site.lua", 1}, {"site.lua", 2}, {"site.lua", 3}};
static const prop_origin origins[] = {{&frames[0], 1}, {&frames[1], 1}, {&frames[2], 1}};

#define MAX_LEAVES 32

typedef struct run {
    prop_result results[MAX_LEAVES];
    char trail[1024];    /* "a,b,T" */
    char triggered[512]; /* "T<-last+a;" per triggered() */
    char owe[512];       /* "+T;" owed, "-T;" done */
} run;

static run R;
static long next_behaviour;

static void
setup(void)
{
    ck_assert_int_eq(prop_site_new(&S, NULL, NULL), PROP_OK);
    memset(&R, 0, sizeof R);
    next_behaviour = 0;
}

static void
teardown(void)
{
    prop_site_free(S);
    S = NULL;
}

/* A leaf giving r, made at line `line` of site.lua. */
static prop_node *
leafl(const char *desc, prop_result r, int line)
{
    prop_leaf_spec spec;
    prop_node *n = NULL;

    ck_assert_int_lt(next_behaviour, MAX_LEAVES);
    memset(&spec, 0, sizeof spec);
    spec.desc = desc;
    spec.behaviour = next_behaviour;
    R.results[next_behaviour++] = r;
    ck_assert_int_eq(prop_leaf_new(S, &spec, &origins[line - 1], &n), PROP_OK);
    return n;
}

static prop_node *
leaf(const char *desc, prop_result r)
{
    return leafl(desc, r, 1);
}

static prop_node *
on_change(prop_node *a, prop_node *b)
{
    prop_node *n = NULL;

    ck_assert_int_eq(prop_combine_new(S, PROP_ON_CHANGE, a, b, &origins[0], &n), PROP_OK);
    return n;
}

static prop_result
ensure(void *ud, const prop_node *n, char **msg)
{
    (void)ud;
    (void)msg;
    append(R.trail, sizeof R.trail, R.trail[0] ? "," : "", prop_node_desc(n));
    return R.results[prop_node_behaviour(n)];
}

static void
triggered(void *ud, const prop_node *n, unsigned depth, const prop_node *const *sources,
          size_t nsources)
{
    size_t i;

    (void)ud;
    (void)depth;
    append(R.triggered, sizeof R.triggered, prop_node_desc(n), "<-");
    for (i = 0; i < nsources; i++)
        append(R.triggered, sizeof R.triggered, i ? "+" : "",
               sources[i] ? prop_node_desc(sources[i]) : "last");
    append(R.triggered, sizeof R.triggered, ";", "");
}

static void
owe(void *ud, const prop_node *n, int owed)
{
    (void)ud;
    append(R.owe, sizeof R.owe, owed ? "+" : "-", prop_node_desc(n));
    append(R.owe, sizeof R.owe, ";", "");
}

static const prop_exec_ops OPS = {.ensure = ensure, .triggered = triggered, .owe = owe};

/* Run items with what an earlier run owed. */
static void
run_owed(prop_node *const *items, size_t n, prop_owed *owed, size_t nowed, prop_result *out)
{
    prop_triggers *t = NULL;
    size_t i;

    ck_assert_int_eq(
        prop_triggers_new_owed((const prop_node *const *)items, n, PROP_OS_DEBIAN, owed, nowed, &t),
        PROP_OK);
    for (i = 0; i < n; i++) {
        prop_result r = prop_exec_top(t, i, &OPS, NULL);
        if (out)
            out[i] = r;
    }
    prop_triggers_free(t);
}

/* ---- the record file ---------------------------------------------------- */

START_TEST(test_format_parse_round_trip)
{
    prop_pending *p = NULL, *q = NULL;
    const char *h, *d, *o;
    char *text = NULL;
    size_t len = 0;
    unsigned bad = 99;

    ck_assert_int_eq(prop_pending_new(&p), PROP_OK);
    ck_assert_int_eq(prop_pending_add(p, "web1", "restart nginx", "site.lua:3"), PROP_OK);
    ck_assert_int_eq(prop_pending_add(p, "web1", "a\tb\nc\\d\re", "x.lua:9"), PROP_OK);
    ck_assert_int_eq(prop_pending_add(p, "web1", "restart nginx", "site.lua:3"), PROP_OK);
    ck_assert_uint_eq(prop_pending_count(p), 2);
    ck_assert_int_eq(prop_pending_format(p, &text, &len), PROP_OK);
    ck_assert_ptr_nonnull(text);
    ck_assert_int_eq(text[0], '#');
    ck_assert_ptr_nonnull(strstr(text, "\nweb1\trestart nginx\tsite.lua:3\n"));
    ck_assert_ptr_nonnull(strstr(text, "\nweb1\ta\\tb\\nc\\\\d\\re\tx.lua:9\n"));
    ck_assert_int_eq(prop_pending_parse(text, len, &q, &bad), PROP_OK);
    ck_assert_uint_eq(bad, 0);
    ck_assert_uint_eq(prop_pending_count(q), 2);
    ck_assert_int_eq(prop_pending_get(q, 1, &h, &d, &o), PROP_OK);
    ck_assert_str_eq(h, "web1");
    ck_assert_str_eq(d, "a\tb\nc\\d\re");
    ck_assert_str_eq(o, "x.lua:9");
    ck_assert_int_eq(prop_pending_get(q, 2, &h, &d, &o), PROP_EINVAL);
    free(text);
    prop_pending_free(p);
    prop_pending_free(q);
}
END_TEST

START_TEST(test_parse_bad_lines)
{
    static const char text[] = "# comment\n"
                               "\n"
                               "web1\tonly two\n"
                               "web1\tgood\tsite.lua:1\n"
                               "web1\tbad \\q escape\tsite.lua:2\n"
                               "\tno host\tsite.lua:3\n"
                               "web1\tfour\tfields\there\n"
                               "web1\tgood\tsite.lua:1\n"
                               "web1\ta bare\rcarriage return\tsite.lua:4\n"
                               "web2\tlast\tno newline";
    prop_pending *p = NULL;
    const char *h, *d, *o;
    unsigned bad = 0;

    ck_assert_int_eq(prop_pending_parse(text, sizeof text - 1, &p, &bad), PROP_OK);
    ck_assert_uint_eq(bad, 3);
    ck_assert_uint_eq(prop_pending_count(p), 2); /* the same record once */
    ck_assert_int_eq(prop_pending_get(p, 0, &h, &d, &o), PROP_OK);
    ck_assert_str_eq(d, "good");
    ck_assert_int_eq(prop_pending_get(p, 1, &h, &d, &o), PROP_OK);
    ck_assert_str_eq(h, "web2");
    ck_assert_str_eq(o, "no newline");
    prop_pending_free(p);
    ck_assert_int_eq(prop_pending_parse("", 0, &p, &bad), PROP_OK);
    ck_assert_uint_eq(prop_pending_count(p), 0);
    prop_pending_free(p);
    ck_assert_int_eq(prop_pending_parse(NULL, 3, &p, &bad), PROP_EINVAL);
    ck_assert_int_eq(prop_pending_parse("a\tb\tc\0d", 7, &p, &bad), PROP_OK);
    ck_assert_uint_eq(bad, 1);
    ck_assert_uint_eq(prop_pending_count(p), 0);
    prop_pending_free(p);
}
END_TEST

START_TEST(test_remove_and_origin)
{
    prop_pending *p = NULL;
    const char *o;

    ck_assert_int_eq(prop_pending_new(&p), PROP_OK);
    ck_assert_int_eq(prop_pending_add(p, "web1", "T", "site.lua:1"), PROP_OK);
    ck_assert_int_eq(prop_pending_add(p, "web2", "T", "site.lua:1"), PROP_OK);
    ck_assert_uint_eq(prop_pending_remove(p, "web1", "T", "site.lua:2"), 0);
    ck_assert_uint_eq(prop_pending_remove(p, "web1", "T", "site.lua:1"), 1);
    ck_assert_uint_eq(prop_pending_count(p), 1);
    ck_assert_int_eq(prop_pending_set_origin(p, 0, "site.lua:7"), PROP_OK);
    ck_assert_int_eq(prop_pending_get(p, 0, NULL, NULL, &o), PROP_OK);
    ck_assert_str_eq(o, "site.lua:7");
    ck_assert_int_eq(prop_pending_set_origin(p, 1, "x"), PROP_EINVAL);
    prop_pending_free(p);
}
END_TEST

/* ---- the bounds of the record file -------------------------------------- */

/*
 * 80,000 records, each met twice, parse in linear time: a parser that
 * compared each record with every earlier one took minutes; the case's
 * timeout (a generous 20 s) is what fails it.
 */
START_TEST(test_parse_many_records)
{
    const size_t nrec = 80000;
    char *text = malloc(nrec * 2 * 64), *w = text;
    prop_pending *p = NULL;
    const char *h, *d, *o;
    unsigned char *drop;
    unsigned bad = 9;
    size_t i;

    ck_assert_ptr_nonnull(text);
    for (i = 0; i < 2 * nrec; i++)
        w += sprintf(w, "web%zu\trestart service %zu\tsite.lua:%zu\n", (i % nrec) % 7, i % nrec,
                     (i % nrec) + 1);
    ck_assert_int_eq(prop_pending_parse(text, (size_t)(w - text), &p, &bad), PROP_OK);
    ck_assert_uint_eq(bad, 0);
    ck_assert_uint_eq(prop_pending_count(p), nrec);
    ck_assert_int_eq(prop_pending_get(p, nrec - 1, &h, &d, &o), PROP_OK);
    ck_assert_str_eq(d, "restart service 79999");
    /* Dropping every other record is one pass too. */
    drop = calloc(nrec, 1);
    ck_assert_ptr_nonnull(drop);
    for (i = 0; i < nrec; i += 2)
        drop[i] = 1;
    ck_assert_uint_eq(prop_pending_sweep(p, drop), nrec / 2);
    ck_assert_uint_eq(prop_pending_count(p), nrec / 2);
    ck_assert_int_eq(prop_pending_get(p, 0, &h, &d, &o), PROP_OK);
    ck_assert_str_eq(d, "restart service 1");
    ck_assert_uint_eq(prop_pending_sweep(p, NULL), 0);
    free(drop);
    free(text);
    prop_pending_free(p);
}
END_TEST

/* A line over PROP_PENDING_RECORD_MAX is no record; a file over
 * PROP_PENDING_FILE_MAX is not parsed. */
START_TEST(test_parse_bounds)
{
    size_t big = PROP_PENDING_RECORD_MAX + 10;
    char *text = malloc(big + 64);
    prop_pending *p = NULL;
    unsigned bad = 0;
    const char *d;

    ck_assert_ptr_nonnull(text);
    strcpy(text, "web1\tok\tsite.lua:1\nweb1\t");
    memset(text + strlen(text), 'x', big);
    strcpy(text + strlen("web1\tok\tsite.lua:1\nweb1\t") + big, "\tsite.lua:2\n");
    ck_assert_int_eq(prop_pending_parse(text, strlen(text), &p, &bad), PROP_OK);
    ck_assert_uint_eq(bad, 2);
    ck_assert_uint_eq(prop_pending_count(p), 1);
    ck_assert_int_eq(prop_pending_get(p, 0, NULL, &d, NULL), PROP_OK);
    ck_assert_str_eq(d, "ok");
    prop_pending_free(p);
    p = NULL;
    /* Only the length is looked at: the data need not be that long. */
    ck_assert_int_eq(prop_pending_parse(text, (size_t)PROP_PENDING_FILE_MAX + 1, &p, &bad),
                     PROP_EINVAL);
    ck_assert_ptr_null(p);
    /* A record whose line would be over the bound is not added: it could
     * not be read back; nor one with no host or description. */
    ck_assert_int_eq(prop_pending_new(&p), PROP_OK);
    memset(text, 'x', big);
    text[big] = '\0';
    ck_assert_int_eq(prop_pending_add(p, "web1", text, "site.lua:1"), PROP_EINVAL);
    ck_assert_int_eq(prop_pending_add(p, "", "T", "site.lua:1"), PROP_EINVAL);
    ck_assert_int_eq(prop_pending_add(p, "#web1", "T", "site.lua:1"), PROP_EINVAL);
    ck_assert_int_eq(prop_pending_add(p, "web1", "", "site.lua:1"), PROP_EINVAL);
    ck_assert_uint_eq(prop_pending_count(p), 0);
    prop_pending_free(p);
    free(text);
}
END_TEST

/* ---- running what is owed ----------------------------------------------- */

/* A changes, T fails: T is owed and stays so (no "done"). */
START_TEST(test_owe_on_failure)
{
    prop_node *items[1];

    items[0] = on_change(leaf("a", PROP_RESULT_CHANGED), leaf("T", PROP_RESULT_FAILED));
    run_owed(items, 1, NULL, 0, NULL);
    ck_assert_str_eq(R.trail, "a,T");
    ck_assert_str_eq(R.owe, "+T;");
}
END_TEST

/* A changes, T runs: owed before it runs, done after. */
START_TEST(test_owe_then_done)
{
    prop_node *items[1];

    items[0] = on_change(leaf("a", PROP_RESULT_CHANGED), leaf("T", PROP_RESULT_OK));
    run_owed(items, 1, NULL, 0, NULL);
    ck_assert_str_eq(R.owe, "+T;-T;");
}
END_TEST

/* Owed from the last run: T runs although a is ok, once, where it would
 * run; then it is done. */
START_TEST(test_owed_runs_when_ok)
{
    prop_node *items[2];
    prop_owed owed[1] = {{"T", "site.lua:1", NULL}};
    prop_result res[2];

    items[0] = leaf("first", PROP_RESULT_OK);
    items[1] = on_change(leaf("a", PROP_RESULT_OK), leaf("T", PROP_RESULT_CHANGED));
    run_owed(items, 2, owed, 1, res);
    ck_assert_ptr_eq(owed[0].target, prop_node_child(items[1], 1));
    ck_assert_str_eq(R.trail, "first,a,T");
    ck_assert_str_eq(R.triggered, "T<-last;");
    ck_assert_str_eq(R.owe, "-T;");
    ck_assert_int_eq(res[1], PROP_RESULT_CHANGED);
}
END_TEST

/* Owed and triggered again: still once, for both. */
START_TEST(test_owed_and_changed_once)
{
    prop_node *T = leaf("T", PROP_RESULT_CHANGED);
    prop_node *items[2];
    prop_owed owed[1] = {{"T", "site.lua:1", NULL}};

    items[0] = on_change(leaf("a", PROP_RESULT_CHANGED), T);
    items[1] = on_change(leaf("b", PROP_RESULT_CHANGED), T);
    run_owed(items, 2, owed, 1, NULL);
    ck_assert_str_eq(R.trail, "a,b,T");
    ck_assert_str_eq(R.triggered, "T<-last+a+b;");
    /* Recorded already: not written again before it runs. */
    ck_assert_str_eq(R.owe, "-T;");
}
END_TEST

/* Owed and failing again: still owed (no "done"). */
START_TEST(test_owed_fails_again)
{
    prop_node *items[1];
    prop_owed owed[1] = {{"T", "site.lua:1", NULL}};
    prop_result res[1];

    items[0] = on_change(leaf("a", PROP_RESULT_OK), leaf("T", PROP_RESULT_FAILED));
    run_owed(items, 1, owed, 1, res);
    ck_assert_str_eq(R.trail, "a,T");
    ck_assert_str_eq(R.owe, "");
    ck_assert_int_eq(res[0], PROP_RESULT_FAILED);
}
END_TEST

/* A record the site no longer has: no target, nothing runs. */
START_TEST(test_owed_gone)
{
    prop_node *items[1];
    prop_owed owed[2] = {{"gone", "site.lua:1", NULL}, {"T", "site.lua:1", NULL}};

    items[0] = on_change(leaf("a", PROP_RESULT_OK), leaf("U", PROP_RESULT_OK));
    run_owed(items, 1, owed, 2, NULL);
    ck_assert_ptr_null(owed[0].target);
    ck_assert_ptr_null(owed[1].target);
    ck_assert_str_eq(R.trail, "a");
    ck_assert_str_eq(R.triggered, "");
}
END_TEST

/* Two targets with one description: the origin tells which is owed. */
START_TEST(test_owed_origin_decides)
{
    prop_node *items[2];
    prop_owed owed[1] = {{"T", "site.lua:3", NULL}};

    items[0] = on_change(leaf("a", PROP_RESULT_OK), leafl("T", PROP_RESULT_OK, 2));
    items[1] = on_change(leaf("b", PROP_RESULT_OK), leafl("T", PROP_RESULT_OK, 3));
    run_owed(items, 2, owed, 1, NULL);
    ck_assert_ptr_eq(owed[0].target, prop_node_child(items[1], 1));
    ck_assert_str_eq(R.trail, "a,b,T");
    /* An origin no target has: the first with the description. */
    memset(&R.trail, 0, sizeof R.trail);
    owed[0].origin = "site.lua:9";
    run_owed(items, 2, owed, 1, NULL);
    ck_assert_ptr_eq(owed[0].target, prop_node_child(items[0], 1));
    ck_assert_str_eq(R.trail, "a,T,b");
}
END_TEST

/* The property holding the owed on_change fails its requirement: the
 * owed target still runs at the end of that property. */
START_TEST(test_owed_requirement_failed)
{
    prop_node *items[1], *n = NULL;
    prop_owed owed[1] = {{"T", "site.lua:1", NULL}};

    ck_assert_int_eq(
        prop_combine_new(S, PROP_REQUIRES,
                         on_change(leaf("a", PROP_RESULT_OK), leaf("T", PROP_RESULT_OK)),
                         leaf("req", PROP_RESULT_FAILED), &origins[0], &n),
        PROP_OK);
    items[0] = n;
    run_owed(items, 1, owed, 1, NULL);
    ck_assert_str_eq(R.trail, "req,T");
    ck_assert_str_eq(R.owe, "-T;");
}
END_TEST

START_TEST(test_owed_bad_args)
{
    prop_triggers *t = NULL;
    prop_node *items[1];

    items[0] = leaf("a", PROP_RESULT_OK);
    ck_assert_int_eq(
        prop_triggers_new_owed((const prop_node *const *)items, 1, PROP_OS_DEBIAN, NULL, 1, &t),
        PROP_EINVAL);
    ck_assert_ptr_null(t);
}
END_TEST

static Suite *
pending_suite(void)
{
    Suite *s = suite_create("pending");
    TCase *tc = tcase_create("core");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_format_parse_round_trip);
    tcase_add_test(tc, test_parse_bad_lines);
    tcase_add_test(tc, test_remove_and_origin);
    tcase_add_test(tc, test_owe_on_failure);
    tcase_add_test(tc, test_owe_then_done);
    tcase_add_test(tc, test_owed_runs_when_ok);
    tcase_add_test(tc, test_owed_and_changed_once);
    tcase_add_test(tc, test_owed_fails_again);
    tcase_add_test(tc, test_owed_gone);
    tcase_add_test(tc, test_owed_origin_decides);
    tcase_add_test(tc, test_owed_requirement_failed);
    tcase_add_test(tc, test_owed_bad_args);
    suite_add_tcase(s, tc);
    tc = tcase_create("bounds");
    tcase_set_timeout(tc, 20);
    tcase_add_test(tc, test_parse_many_records);
    tcase_add_test(tc, test_parse_bounds);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    return run_suite(pending_suite());
}
