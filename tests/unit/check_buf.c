/*
 * check_buf.c - the engine's growing byte buffer (buf.h): appends grow it
 * and keep it NUL-terminated, take hands its text over and empties it.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "unit.h"

START_TEST(test_add_terminates)
{
    prop_buf b = PROP_BUF_INIT;

    ck_assert_int_eq(prop_buf_add(&b, "abc", 3), 0);
    ck_assert_uint_eq(b.len, 3);
    ck_assert_uint_gt(b.cap, b.len);
    ck_assert_str_eq(b.p, "abc");
    /* Part of a string: the NUL is the buffer's, not the source's. */
    ck_assert_int_eq(prop_buf_add(&b, "defXYZ", 3), 0);
    ck_assert_str_eq(b.p, "abcdef");
    ck_assert_int_eq(prop_buf_adds(&b, "gh"), 0);
    ck_assert_str_eq(b.p, "abcdefgh");
    ck_assert_uint_eq(b.len, 8);
    /* Nothing added: still a string. */
    ck_assert_int_eq(prop_buf_add(&b, NULL, 0), 0);
    ck_assert_str_eq(b.p, "abcdefgh");
    /* Bytes that are NULs are kept, and counted. */
    ck_assert_int_eq(prop_buf_add(&b, "\0z", 2), 0);
    ck_assert_uint_eq(b.len, 10);
    ck_assert_int_eq(memcmp(b.p, "abcdefgh\0z", 11), 0);
    prop_buf_free(&b);
    ck_assert_ptr_null(b.p);
    ck_assert_uint_eq(b.len, 0);
    ck_assert_uint_eq(b.cap, 0);
}
END_TEST

START_TEST(test_growth)
{
    prop_buf b = PROP_BUF_INIT;
    char chunk[1000];
    size_t i, j;

    /* Many small appends, then one larger than all the room there is. */
    for (i = 0; i < 5000; i++) {
        char c = (char)('a' + i % 26);

        ck_assert_int_eq(prop_buf_add(&b, &c, 1), 0);
        ck_assert_uint_eq(b.len, i + 1);
        ck_assert_uint_gt(b.cap, b.len);
        ck_assert_int_eq(b.p[b.len], '\0');
    }
    memset(chunk, 'x', sizeof chunk);
    for (j = 0; j < 100; j++)
        ck_assert_int_eq(prop_buf_add(&b, chunk, sizeof chunk), 0);
    ck_assert_uint_eq(b.len, 5000 + 100 * sizeof chunk);
    ck_assert_uint_gt(b.cap, b.len);
    ck_assert_int_eq(b.p[b.len], '\0');
    for (i = 0; i < 5000; i++)
        ck_assert_int_eq(b.p[i], 'a' + (int)(i % 26));
    for (; i < b.len; i++)
        ck_assert_int_eq(b.p[i], 'x');
    ck_assert_uint_eq(strlen(b.p), b.len);
    prop_buf_free(&b);
}
END_TEST

START_TEST(test_overflow_refused)
{
    prop_buf b = PROP_BUF_INIT;

    ck_assert_int_eq(prop_buf_adds(&b, "kept"), 0);
    /* A size that cannot be held: refused, the buffer as it was. */
    ck_assert_int_eq(prop_buf_add(&b, "x", SIZE_MAX), -1);
    ck_assert_int_eq(prop_buf_add(&b, "x", SIZE_MAX - 4), -1);
    ck_assert_uint_eq(b.len, 4);
    ck_assert_str_eq(b.p, "kept");
    prop_buf_free(&b);
}
END_TEST

START_TEST(test_take)
{
    prop_buf b = PROP_BUF_INIT;
    size_t len = 99;
    char *s;

    /* An empty buffer hands over "", never NULL. */
    s = prop_buf_take(&b, &len);
    ck_assert_ptr_nonnull(s);
    ck_assert_str_eq(s, "");
    ck_assert_uint_eq(len, 0);
    free(s);

    ck_assert_int_eq(prop_buf_adds(&b, "hello, "), 0);
    ck_assert_int_eq(prop_buf_adds(&b, "world"), 0);
    s = prop_buf_take(&b, &len);
    ck_assert_str_eq(s, "hello, world");
    ck_assert_uint_eq(len, 12);
    /* The buffer is empty again, and usable. */
    ck_assert_ptr_null(b.p);
    ck_assert_uint_eq(b.len, 0);
    ck_assert_uint_eq(b.cap, 0);
    ck_assert_int_eq(prop_buf_adds(&b, "again"), 0);
    ck_assert_str_eq(b.p, "again");
    free(s);
    /* len may be NULL. */
    s = prop_buf_take(&b, NULL);
    ck_assert_str_eq(s, "again");
    free(s);
    /* Freeing an empty buffer is harmless. */
    prop_buf_free(&b);
    prop_buf_free(&b);
}
END_TEST

int
main(void)
{
    Suite *s = suite_create("buf");
    TCase *tc = tcase_create("buf");

    tcase_add_test(tc, test_add_terminates);
    tcase_add_test(tc, test_growth);
    tcase_add_test(tc, test_overflow_refused);
    tcase_add_test(tc, test_take);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
