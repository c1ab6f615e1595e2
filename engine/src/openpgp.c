/*
 * openpgp.c - the framing of OpenPGP packets (RFC 4880, 4.2) and the
 * armor's CRC-24 (6.1).  See openpgp.h.
 */
#include "openpgp.h"

/*
 * One new-format body length at p[*pos..n): the length in *len, *partial
 * set when it is a partial body length (more parts follow).  0, or -1
 * when the bytes end inside it.
 */
static int
new_length(const unsigned char *p, size_t n, size_t *pos, size_t *len, int *partial)
{
    unsigned o;

    *partial = 0;
    if (*pos >= n)
        return -1;
    o = p[(*pos)++];
    if (o < 192) {
        *len = o;
    } else if (o < 224) {
        if (*pos >= n)
            return -1;
        *len = ((size_t)(o - 192) << 8) + p[(*pos)++] + 192;
    } else if (o == 255) {
        if (n - *pos < 4)
            return -1;
        *len = (size_t)p[*pos] << 24 | (size_t)p[*pos + 1] << 16 | (size_t)p[*pos + 2] << 8 |
               p[*pos + 3];
        *pos += 4;
    } else {
        *len = (size_t)1 << (o & 0x1f);
        *partial = 1;
    }
    return 0;
}

int
prop_pgp_next(const unsigned char *p, size_t n, size_t *pos, unsigned flags, prop_pgp_packet *pkt,
              prop_pgp_bad *bad)
{
    size_t at = *pos, len, total = 0;
    unsigned char b;

    if (at >= n)
        return 0;
    b = p[at++];
    if (!(b & 0x80)) {
        *bad = PROP_PGP_NOT_PACKET;
        return -1;
    }
    if (b & 0x40) { /* new format: one length, or parts of partial lengths */
        int partial;

        pkt->tag = b & 0x3f;
        do {
            if (new_length(p, n, &at, &len, &partial) != 0) {
                *bad = PROP_PGP_CUT_HEADER;
                return -1;
            }
            if (partial && !(flags & PROP_PGP_ALLOW_PARTIAL)) {
                *bad = PROP_PGP_PARTIAL;
                return -1;
            }
            if (len > n - at) {
                *bad = PROP_PGP_CUT_BODY;
                return -1;
            }
            at += len;
            total += len;
        } while (partial);
    } else { /* old format: the size of the length in the tag byte */
        unsigned lt = b & 3, k, nb = lt == 0 ? 1 : lt == 1 ? 2 : 4;

        pkt->tag = (b >> 2) & 0x0f;
        if (lt == 3) {
            if (!(flags & PROP_PGP_ALLOW_INDETERMINATE)) {
                *bad = PROP_PGP_INDETERMINATE;
                return -1;
            }
            len = n - at;
        } else {
            if (n - at < nb) {
                *bad = PROP_PGP_CUT_HEADER;
                return -1;
            }
            for (len = 0, k = 0; k < nb; k++)
                len = len << 8 | p[at++];
        }
        if (len > n - at) {
            *bad = PROP_PGP_CUT_BODY;
            return -1;
        }
        at += len;
        total = len;
    }
    pkt->start = *pos;
    pkt->end = at;
    pkt->len = total;
    *pos = at;
    return 1;
}

uint32_t
prop_pgp_crc24(const unsigned char *p, size_t n)
{
    uint32_t crc = 0xB704CEu;
    size_t i;
    int k;

    for (i = 0; i < n; i++) {
        crc ^= (uint32_t)p[i] << 16;
        for (k = 0; k < 8; k++) {
            crc <<= 1;
            if (crc & 0x1000000u)
                crc ^= 0x1864CFBu;
        }
    }
    return crc & 0xFFFFFFu;
}
