/*
 * check_openpgp.c - the one walker of OpenPGP packets (openpgp.c): old
 * and new formats, every length form, partial and indeterminate lengths
 * only when allowed, bytes that end inside a header or a body, and the
 * armor's CRC-24.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "openpgp.h"
#include "unit.h"

/* Walk p[0..n) with flags: the tags in tags[] (at most 8), their count,
 * or -(1 + the bad code) at the first packet that is not one, with the
 * position it was found at in *at. */
static int
walk(const unsigned char *p, size_t n, unsigned flags, int *tags, size_t *at)
{
    size_t pos = 0;
    int k = 0, r;
    prop_pgp_packet pkt;
    prop_pgp_bad bad = 0;

    while ((r = prop_pgp_next(p, n, &pos, flags, &pkt, &bad)) == 1) {
        ck_assert_int_lt(k, 8);
        ck_assert_uint_eq(pkt.end, pos);
        tags[k++] = pkt.tag;
    }
    *at = pos;
    return r == 0 ? k : -(1 + (int)bad);
}

START_TEST(test_formats_and_lengths)
{
    /* old format: tag 6 (public key), one-octet length 2; tag 13 (user
     * id), two-octet length 1; tag 2 (signature), four-octet length 0 */
    static const unsigned char old[] = {0x98, 2, 'a', 'b', 0xb5, 0, 1, 'u', 0x8a, 0, 0, 0, 0};
    /* new format: tag 6, one-octet 1; tag 14, two-octet 192 + 1 */
    unsigned char nw[2 + 1 + 3 + 193];
    /* new format: five-octet length 3 */
    static const unsigned char five[] = {0xc2, 255, 0, 0, 0, 3, 'x', 'y', 'z'};
    int tags[8];
    size_t at;
    prop_pgp_packet pkt;
    prop_pgp_bad bad;
    size_t pos = 0;

    ck_assert_int_eq(walk(old, sizeof old, 0, tags, &at), 3);
    ck_assert_int_eq(tags[0], 6);
    ck_assert_int_eq(tags[1], 13);
    ck_assert_int_eq(tags[2], 2);

    memset(nw, 0, sizeof nw);
    nw[0] = 0xc6;
    nw[1] = 1;
    nw[3] = 0xce;
    nw[4] = 192; /* (192 - 192) << 8 + nw[5] + 192 = 193 */
    nw[5] = 1;
    ck_assert_int_eq(walk(nw, sizeof nw, 0, tags, &at), 2);
    ck_assert_int_eq(tags[0], 6);
    ck_assert_int_eq(tags[1], 14);

    ck_assert_int_eq(prop_pgp_next(five, sizeof five, &pos, 0, &pkt, &bad), 1);
    ck_assert_int_eq(pkt.tag, 2);
    ck_assert_uint_eq(pkt.len, 3);
    ck_assert_uint_eq(pkt.start, 0);
    ck_assert_uint_eq(pos, sizeof five);
    ck_assert_int_eq(prop_pgp_next(five, sizeof five, &pos, 0, &pkt, &bad), 0);
}
END_TEST

START_TEST(test_cut_and_not_packets)
{
    static const unsigned char notpkt[] = {0x98, 1, 'a', 0x10};
    static const unsigned char cut_hdr_old[] = {0x99, 0};   /* wants two length octets */
    static const unsigned char cut_hdr_new[] = {0xc6, 200}; /* wants a second octet */
    static const unsigned char cut_hdr_five[] = {0xc6, 255, 0, 0};
    static const unsigned char cut_body[] = {0x98, 5, 'a', 'b'};
    static const unsigned char huge[] = {0xc6, 255, 0xff, 0xff, 0xff, 0xff, 'a'};
    int tags[8];
    size_t at;

    ck_assert_int_eq(walk(notpkt, sizeof notpkt, 0, tags, &at), -(1 + PROP_PGP_NOT_PACKET));
    ck_assert_uint_eq(at, 3); /* the fourth byte, where the walk stopped */
    ck_assert_int_eq(walk(cut_hdr_old, sizeof cut_hdr_old, 0, tags, &at),
                     -(1 + PROP_PGP_CUT_HEADER));
    ck_assert_int_eq(walk(cut_hdr_new, sizeof cut_hdr_new, 0, tags, &at),
                     -(1 + PROP_PGP_CUT_HEADER));
    ck_assert_int_eq(walk(cut_hdr_five, sizeof cut_hdr_five, 0, tags, &at),
                     -(1 + PROP_PGP_CUT_HEADER));
    ck_assert_int_eq(walk(cut_body, sizeof cut_body, 0, tags, &at), -(1 + PROP_PGP_CUT_BODY));
    ck_assert_int_eq(walk(huge, sizeof huge, 0, tags, &at), -(1 + PROP_PGP_CUT_BODY));
    ck_assert_int_eq(walk(notpkt, 0, 0, tags, &at), 0); /* nothing: no packet, no error */
}
END_TEST

START_TEST(test_partial_and_indeterminate)
{
    /* new format tag 18, a partial part of 2 (0xe1), then a last part of 1 */
    static const unsigned char partial[] = {0xd2, 0xe1, 'a', 'b', 1, 'c'};
    /* old format tag 9, length type 3: to the end */
    static const unsigned char indet[] = {0xa7, 'a', 'b', 'c'};
    /* a partial part that runs past the end */
    static const unsigned char partial_cut[] = {0xd2, 0xe3, 'a', 'b'};
    prop_pgp_packet pkt;
    prop_pgp_bad bad;
    size_t pos = 0;
    int tags[8];
    size_t at;

    ck_assert_int_eq(walk(partial, sizeof partial, 0, tags, &at), -(1 + PROP_PGP_PARTIAL));
    ck_assert_int_eq(
        prop_pgp_next(partial, sizeof partial, &pos, PROP_PGP_ALLOW_PARTIAL, &pkt, &bad), 1);
    ck_assert_int_eq(pkt.tag, 18);
    ck_assert_uint_eq(pkt.len, 3);
    ck_assert_uint_eq(pos, sizeof partial);

    ck_assert_int_eq(walk(indet, sizeof indet, 0, tags, &at), -(1 + PROP_PGP_INDETERMINATE));
    ck_assert_int_eq(walk(indet, sizeof indet, PROP_PGP_ALLOW_INDETERMINATE, tags, &at), 1);
    ck_assert_int_eq(tags[0], 9);

    ck_assert_int_eq(walk(partial_cut, sizeof partial_cut, PROP_PGP_ALLOW_PARTIAL, tags, &at),
                     -(1 + PROP_PGP_CUT_BODY));
}
END_TEST

START_TEST(test_crc24)
{
    /* Nothing: the initial value.  "abc": what gpg --enarmor writes as
     * the checksum line of those three bytes, "=uhx7" (0xBA1C7B). */
    ck_assert_uint_eq(prop_pgp_crc24((const unsigned char *)"", 0), 0xB704CE);
    ck_assert_uint_eq(prop_pgp_crc24((const unsigned char *)"abc", 3), 0xBA1C7B);
}
END_TEST

int
main(void)
{
    Suite *s = suite_create("openpgp");
    TCase *tc = tcase_create("openpgp");

    tcase_add_test(tc, test_formats_and_lengths);
    tcase_add_test(tc, test_cut_and_not_packets);
    tcase_add_test(tc, test_partial_and_indeterminate);
    tcase_add_test(tc, test_crc24);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
