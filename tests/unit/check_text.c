/*
 * check_text.c - text from a site, for people (prop_text_write: controls
 * and bytes that are not UTF-8 shown as escapes) and for programs
 * (prop_json_write_string: always valid UTF-8 JSON).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "prop/prop.h"
#include "unit.h"

/* What writer(s, len, flags) writes, as a NUL-terminated string (static). */
static const char *
written(int json, const char *s, size_t len, unsigned flags)
{
    static char buf[1024];
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    int rc;

    ck_assert_ptr_nonnull(f);
    rc = json ? prop_json_write_string(f, s, len) : prop_text_write(f, s, len, flags);
    ck_assert_int_eq(rc, PROP_OK);
    ck_assert_int_eq(fclose(f), 0);
    return buf;
}

#define TEXT(s, flags) written(0, s, sizeof s - 1, flags)
#define JSON(s) written(1, s, sizeof s - 1, 0)

START_TEST(test_plain_text_unchanged)
{
    ck_assert_str_eq(TEXT("apt installed nginx", 0), "apt installed nginx");
    ck_assert_str_eq(TEXT("caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x8d\x95", 0),
                     "caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x8d\x95");
    ck_assert_str_eq(TEXT("a\\b \"q\"", 0), "a\\b \"q\"");
}
END_TEST

START_TEST(test_controls_escaped)
{
    /* Clear screen, window title, carriage return, cursor up. */
    ck_assert_str_eq(TEXT("x\033[2J\033]0;t\007\r\033[1Ay", 0), "x\\e[2J\\e]0;t\\x07\\r\\e[1Ay");
    ck_assert_str_eq(TEXT("a\nb\tc\177", 0), "a\\nb\\tc\\x7f");
    /* C1 controls (U+0080..U+009F, two bytes in UTF-8): the CSI. */
    ck_assert_str_eq(TEXT("\xc2\x9b"
                          "2J",
                          0),
                     "\\xc2\\x9b2J");
    /* Lines kept: newlines and tabs stay, the rest is escaped. */
    ck_assert_str_eq(TEXT("a\nb\tc\r", PROP_TEXT_LINES), "a\nb\tc\\r");
    ck_assert_str_eq(TEXT("nul\0byte", 0), "nul\\x00byte");
}
END_TEST

START_TEST(test_invalid_utf8_escaped)
{
    ck_assert_str_eq(TEXT("\xff", 0), "\\xff");
    ck_assert_str_eq(TEXT("a\x80z", 0), "a\\x80z");                        /* stray continuation */
    ck_assert_str_eq(TEXT("\xc0\xaf", 0), "\\xc0\\xaf");                   /* overlong '/' */
    ck_assert_str_eq(TEXT("\xed\xa0\x80", 0), "\\xed\\xa0\\x80");          /* a surrogate */
    ck_assert_str_eq(TEXT("\xe2\x9c", 0), "\\xe2\\x9c");                   /* cut short */
    ck_assert_str_eq(TEXT("\xf4\x90\x80\x80", 0), "\\xf4\\x90\\x80\\x80"); /* past U+10FFFF */
    ck_assert_str_eq(TEXT("\xe2\x9c\xe2\x9c\x93", 0), "\\xe2\\x9c\xe2\x9c\x93");
}
END_TEST

START_TEST(test_json_valid)
{
    ck_assert_str_eq(JSON("plain"), "\"plain\"");
    ck_assert_str_eq(JSON("q\"b\\n\nt\tr\r"), "\"q\\\"b\\\\n\\nt\\tr\\r\"");
    ck_assert_str_eq(JSON("\033[2J\177\xc2\x9b"), "\"\\u001b[2J\\u007f\\u009b\"");
    ck_assert_str_eq(JSON("caf\xc3\xa9"), "\"caf\xc3\xa9\"");
    /* Not UTF-8: one U+FFFD per byte, the rest kept. */
    ck_assert_str_eq(JSON("a\xff"
                          "b\xc0\xaf"),
                     "\"a\\ufffdb\\ufffd\\ufffd\"");
    ck_assert_str_eq(JSON("nul\0"), "\"nul\\u0000\"");
}
END_TEST

START_TEST(test_clean)
{
    ck_assert_int_eq(prop_text_clean("web1.example.com", 16), 1);
    ck_assert_int_eq(prop_text_clean("h\xc3\xb4te", 5), 1);
    ck_assert_int_eq(prop_text_clean("a\033b", 3), 0);
    ck_assert_int_eq(prop_text_clean("a\xc2\x85", 3), 0);
    ck_assert_int_eq(prop_text_clean("\xff", 1), 0);
    ck_assert_int_eq(prop_text_clean(NULL, 0), 0);
    ck_assert_int_eq(prop_text_write(NULL, "x", 1, 0), PROP_EINVAL);
}
END_TEST

int
main(void)
{
    Suite *s = suite_create("text");
    TCase *tc = tcase_create("text");

    tcase_add_test(tc, test_plain_text_unchanged);
    tcase_add_test(tc, test_controls_escaped);
    tcase_add_test(tc, test_invalid_utf8_escaped);
    tcase_add_test(tc, test_json_valid);
    tcase_add_test(tc, test_clean);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
