/*
 * check_json.c - the strict JSON reader of prop status and prop report
 * (bindings/json_read.c, built here alone: it needs no Lua): documents
 * read whole, escapes decoded, and every text that is not JSON refused
 * with the line and column where it stops being JSON.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "../../bindings/json_read.c"
#include "unit.h"

static json_val v;
static json_error e;

#define PARSE(s) json_parse(s, sizeof s - 1, &v, &e)

/* s is refused at line:col with a message holding what. */
static void
refused(const char *s, unsigned long line, unsigned long col, const char *what)
{
    memset(&e, 0, sizeof e);
    ck_assert_msg(json_parse(s, strlen(s), &v, &e) == -1, "accepted: %s", s);
    ck_assert_int_eq(v.type, JSON_NULL);
    ck_assert_ptr_null(v.kids);
    ck_assert_msg(e.line == line && e.col == col, "%s: at %lu:%lu, want %lu:%lu (%s)", s, e.line,
                  e.col, line, col, e.msg);
    ck_assert_msg(strstr(e.msg, what) != NULL, "%s: message \"%s\" lacks \"%s\"", s, e.msg, what);
}

START_TEST(test_document)
{
    const json_val *hosts, *h;

    ck_assert_int_eq(PARSE("{\"run\":\"ab\",\"exit\":1,\"dirty\":false,\"twice\":true,"
                           "\"hosts\":[{\"host\":\"web1\",\"ms\":-3.5e2,\"x\":null}],"
                           "\"run\":\"cd\"}"),
                     0);
    ck_assert_int_eq(v.type, JSON_OBJ);
    ck_assert_str_eq(json_str(&v, "run"), "cd"); /* the last of a name */
    ck_assert(json_num(&v, "exit", -1) == 1);
    ck_assert(json_num(&v, "run", -1) == -1); /* not a number */
    ck_assert_int_eq(json_true(&v, "dirty"), 0);
    ck_assert_int_eq(json_true(&v, "twice"), 1);
    ck_assert_int_eq(json_true(&v, "missing"), 0);
    hosts = json_get(&v, "hosts");
    ck_assert_ptr_nonnull(hosts);
    ck_assert_int_eq(hosts->type, JSON_ARR);
    ck_assert_uint_eq(hosts->nkids, 1);
    h = &hosts->kids[0];
    ck_assert_str_eq(json_str(h, "host"), "web1");
    ck_assert(json_num(h, "ms", 0) == -350);
    ck_assert_int_eq(json_get(h, "x")->type, JSON_NULL);
    ck_assert_ptr_null(json_get(hosts, "host")); /* not an object */
    ck_assert_ptr_null(json_get(NULL, "host"));
    json_free(&v);
    ck_assert_int_eq(PARSE(" \n[ ] \t"), 0);
    ck_assert_int_eq(v.type, JSON_ARR);
    ck_assert_uint_eq(v.nkids, 0);
    json_free(&v);
    ck_assert_int_eq(PARSE("0"), 0);
    ck_assert_int_eq(PARSE("-0.5E+3"), 0);
    ck_assert(v.num == -500);
    ck_assert_int_eq(PARSE("1e-400"), 0); /* too small: 0, not an error */
}
END_TEST

START_TEST(test_strings)
{
    ck_assert_int_eq(PARSE("\"a\\n\\t\\\"\\\\\\/\\b\\f\\r\\u00e9\\u20ac\\ud83c\\udf55\""), 0);
    ck_assert_str_eq(v.str, "a\n\t\"\\/\b\f\r\xc3\xa9\xe2\x82\xac\xf0\x9f\x8d\x95");
    json_free(&v);
    /* A lone surrogate is no character: U+FFFD. */
    ck_assert_int_eq(PARSE("\"\\ud800x\\udc00\""), 0);
    ck_assert_str_eq(v.str, "\xef\xbf\xbdx\xef\xbf\xbd");
    json_free(&v);
    ck_assert_int_eq(PARSE("\"\\ud800\\u0041\""), 0);
    ck_assert_str_eq(v.str, "\xef\xbf\xbd"
                            "A");
    json_free(&v);
    /* \u0000 is kept: the length says where the string ends. */
    ck_assert_int_eq(PARSE("\"a\\u0000b\""), 0);
    ck_assert_uint_eq(v.len, 3);
    ck_assert_int_eq(memcmp(v.str, "a\0b", 4), 0);
    json_free(&v);
    ck_assert_int_eq(PARSE("\"caf\xc3\xa9 <script>\""), 0);
    ck_assert_str_eq(v.str, "caf\xc3\xa9 <script>");
    json_free(&v);
}
END_TEST

START_TEST(test_refused)
{
    refused("", 1, 1, "ends");
    refused("   ", 1, 4, "ends");
    refused("{\"a\":1,}", 1, 8, "name in quotes");
    refused("[1,]", 1, 4, "not a value");
    refused("[1 2]", 1, 4, "',' or ']'");
    refused("{\"a\" 1}", 1, 6, "':'");
    refused("{\n  \"run\": \"x\",\n  \"hosts\": [tru]\n}", 3, 13, "not a value");
    refused("{\"a\":1}\n{", 2, 1, "more text");
    refused("\"abc", 1, 5, "not closed");
    refused("\"a\tb\"", 1, 3, "control character");
    refused("\"\\x\"", 1, 3, "unknown escape");
    refused("\"\\u12g4\"", 1, 3, "four hex digits");
    refused("\"\\u12\"", 1, 3, "four hex digits");
    refused("\"\xff\"", 1, 2, "UTF-8");
    refused("\"\xc0\xaf\"", 1, 2, "UTF-8");     /* overlong */
    refused("\"\xed\xa0\x80\"", 1, 2, "UTF-8"); /* an encoded surrogate */
    refused("01", 1, 2, "more text");
    refused("+1", 1, 1, "not a value");
    refused("1.", 1, 1, "after its point");
    refused(".5", 1, 1, "not a value");
    refused("1e", 1, 1, "exponent");
    refused("0x10", 1, 2, "more text");
    refused("-inf", 1, 1, "not a value");
    refused("NaN", 1, 1, "not a value");
    refused("1e999", 1, 1, "out of range");
    refused("nul", 1, 1, "not a value");
    /* A NUL byte outside a string is not JSON. */
    ck_assert_int_eq(json_parse("[1]\0", 4, &v, &e), -1);
    ck_assert(e.line == 1 && e.col == 4 && strstr(e.msg, "more text"));
}
END_TEST

START_TEST(test_depth)
{
    char deep[2 * JSON_MAX_DEPTH + 8];
    size_t n;

    /* As deep as allowed, and one more. */
    memset(deep, 0, sizeof deep);
    memset(deep, '[', JSON_MAX_DEPTH);
    memset(deep + JSON_MAX_DEPTH, ']', JSON_MAX_DEPTH);
    ck_assert_int_eq(json_parse(deep, strlen(deep), &v, &e), 0);
    json_free(&v);
    n = JSON_MAX_DEPTH + 1;
    memset(deep, 0, sizeof deep);
    memset(deep, '[', n);
    memset(deep + n, ']', n);
    refused(deep, 1, JSON_MAX_DEPTH + 1, "too deep");
}
END_TEST

START_TEST(test_not_terminated)
{
    /* The text need not end with a NUL: nothing past len is read. */
    static const char buf[] = {'[', '1', '2', '3', ']', '9'};
    char *heap = malloc(3);

    ck_assert_int_eq(json_parse(buf, 5, &v, &e), 0);
    ck_assert(v.kids[0].num == 123);
    json_free(&v);
    ck_assert_ptr_nonnull(heap);
    memcpy(heap, "-12", 3);
    ck_assert_int_eq(json_parse(heap, 3, &v, NULL), 0);
    ck_assert(v.num == -12);
    memcpy(heap, "\"ab", 3);
    ck_assert_int_eq(json_parse(heap, 3, &v, NULL), -1);
    free(heap);
}
END_TEST

int
main(void)
{
    Suite *s = suite_create("json");
    TCase *tc = tcase_create("json");

    tcase_add_test(tc, test_document);
    tcase_add_test(tc, test_strings);
    tcase_add_test(tc, test_refused);
    tcase_add_test(tc, test_depth);
    tcase_add_test(tc, test_not_terminated);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
