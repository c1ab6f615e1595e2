/*
 * check_util.c - the engine's utility layer shared with the bindings:
 * base64 (base64.h).
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "unit.h"

/* ---- base64 ---- */

START_TEST(test_base64_round_trip)
{
    static const struct {
        const char *plain, *text;
    } known[] = {{"f", "Zg=="},        {"fo", "Zm8="},        {"foo", "Zm9v"},
                 {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}};
    unsigned char all[256], *back;
    size_t i, n;
    char *t;

    for (i = 0; i < sizeof known / sizeof known[0]; i++) {
        t = prop_base64_encode(known[i].plain, strlen(known[i].plain));
        ck_assert_ptr_nonnull(t);
        ck_assert_str_eq(t, known[i].text);
        ck_assert_int_eq(prop_base64_decode(t, &back, &n), 0);
        ck_assert_uint_eq(n, strlen(known[i].plain));
        ck_assert_int_eq(memcmp(back, known[i].plain, n), 0);
        free(back);
        free(t);
    }
    /* Every byte value, at every length up to 256. */
    for (i = 0; i < sizeof all; i++)
        all[i] = (unsigned char)(255 - i);
    for (i = 1; i <= sizeof all; i++) {
        t = prop_base64_encode(all, i);
        ck_assert_ptr_nonnull(t);
        ck_assert_uint_eq(strlen(t), (i + 2) / 3 * 4);
        ck_assert_int_eq(prop_base64_decode(t, &back, &n), 0);
        ck_assert_uint_eq(n, i);
        ck_assert_int_eq(memcmp(back, all, i), 0);
        free(back);
        free(t);
    }
    /* Nothing encodes as nothing. */
    t = prop_base64_encode("", 0);
    ck_assert_str_eq(t, "");
    free(t);
    /* Too much to encode: refused, not wrapped around. */
    ck_assert_ptr_null(prop_base64_encode("x", SIZE_MAX - 2));
}
END_TEST

START_TEST(test_base64_bad_input)
{
    static const char *const bad[] = {"",     "Zg=",      "Zm9",  "Zm9v\n", "Zm 9v",
                                      "Zm-v", "Zg==Zg==", "=Zg=", "Z===",   "Zm9v Zg=="};
    unsigned char *out = (unsigned char *)"not touched";
    size_t i, n = 7;

    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(prop_base64_decode(bad[i], &out, &n) == EINVAL, "\"%s\" accepted", bad[i]);
        ck_assert_ptr_null(out);
        ck_assert_uint_eq(n, 0);
    }
}
END_TEST

int
main(void)
{
    Suite *s = suite_create("util");
    TCase *tc = tcase_create("util");

    tcase_add_test(tc, test_base64_round_trip);
    tcase_add_test(tc, test_base64_bad_input);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
