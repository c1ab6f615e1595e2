/*
 * openpgp.h - the one walker of OpenPGP packets (RFC 4880, 4.2) and the
 * armor's checksum (6.1), for the two places prop reads OpenPGP without
 * gpg: the secret store's messages (secrets_read.c: the framing of an
 * encrypted message, before gpg is handed it) and apt.key's public keys
 * (checked when the site is read, through prop.core in bindings/).
 *
 * Only the framing: packet headers and lengths, never what a packet
 * holds.  Each caller says in its own words why bytes are not what it
 * expects; the walker says what it found.
 */
#ifndef PROP_OPENPGP_H
#define PROP_OPENPGP_H

#include <stddef.h>
#include <stdint.h>

/* Why the bytes at a position are not a packet. */
typedef enum prop_pgp_bad {
    PROP_PGP_NOT_PACKET = 1, /* the first byte has no packet-tag bit (0x80) */
    PROP_PGP_CUT_HEADER,     /* the bytes end inside a packet header */
    PROP_PGP_CUT_BODY,       /* they end inside a packet's body */
    PROP_PGP_PARTIAL,        /* a partial body length, refused by the flags */
    PROP_PGP_INDETERMINATE   /* an old-format packet of indeterminate length,
                                refused by the flags */
} prop_pgp_bad;

/* Flags of prop_pgp_next: what an encrypted message may use and a key
 * never does. */
#define PROP_PGP_ALLOW_PARTIAL 1u       /* new-format partial body lengths */
#define PROP_PGP_ALLOW_INDETERMINATE 2u /* old-format "to the end" (type 3) */

typedef struct prop_pgp_packet {
    int tag;      /* 0..63 */
    size_t start; /* offset of its first header byte */
    size_t end;   /* offset just past its body */
    size_t len;   /* the body's length (all of its parts, when partial) */
} prop_pgp_packet;

/*
 * The packet at *pos of p[0..n): 1 with *pkt filled and *pos moved past
 * it; 0 when *pos is at the end (n); -1 with *bad set (and *pos
 * unchanged) when the bytes there are not a whole packet the flags
 * allow.  Lengths never read past n, whatever the bytes say.
 */
int prop_pgp_next(const unsigned char *p, size_t n, size_t *pos, unsigned flags,
                  prop_pgp_packet *pkt, prop_pgp_bad *bad);

/* The CRC-24 of the armor's checksum line ("=XXXX") over n bytes. */
uint32_t prop_pgp_crc24(const unsigned char *p, size_t n);

#endif /* PROP_OPENPGP_H */
