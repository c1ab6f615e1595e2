/*
 * secrets_impl.h - what the files of the secret store share: locked
 * memory for plaintext (secmem.c), the store object (secrets.c), its
 * text (secrets_file.c, and secrets_read.c reading it) and the OpenPGP
 * operations through GPGME (secrets_pgp.c).
 */
#ifndef PROP_SECRETS_IMPL_H
#define PROP_SECRETS_IMPL_H

#include <stddef.h>

#include "internal.h"
#include "prop/secrets.h"

/* ---- secmem.c: memory for plaintext ----
 * A secbuf is anonymous memory of its own pages: locked when the system
 * allows it (a page is never shared with another buffer, so unlocking one
 * never unlocks another), kept out of core dumps, wiped before it is
 * given back.  Growing moves the bytes to new pages and wipes the old. */
typedef struct secbuf {
    unsigned char *p;
    size_t len, cap;
} secbuf;

/* Room for extra more bytes; 0 or ENOMEM (then b is unchanged). */
int secbuf_reserve(secbuf *b, size_t extra);
int secbuf_append(secbuf *b, const void *data, size_t n);
/* Wipe, unlock and unmap; b is then empty.  Accepts an empty buffer. */
void secbuf_release(secbuf *b);
/* Overwrite n bytes with zeros in a way the compiler cannot drop. */
void secmem_wipe(void *p, size_t n);
/* Once per process: no core dump and no ptrace by others of the same user. */
void secmem_harden(void);

/* ---- secrets.c: the store ---- */
typedef enum sline_kind {
    SL_OTHER,     /* a comment or a blank line, kept as it was */
    SL_HEADER,    /* prop-secrets 1 */
    SL_RECIPIENT, /* recipient FPR [USER-ID] */
    SL_SECRET     /* secret NAME [HOST] BASE64 */
} sline_kind;

/* One line of the file.  The strings are owned by the line; plain is
 * borrowed from the store's list of decrypted values. */
typedef struct sline {
    sline_kind kind;
    size_t lineno; /* in the file as read; 0 for a line not written yet */
    char *text;    /* SL_OTHER: the line without its newline */
    char *name;    /* SL_SECRET */
    char *host;    /* SL_SECRET: NULL for a site-wide value */
    char *b64;     /* SL_SECRET: the OpenPGP message, base64 */
    char *fpr;     /* SL_RECIPIENT: upper-case hex */
    char *uid;     /* SL_RECIPIENT: may be NULL */
    secbuf *plain; /* SL_SECRET, once decrypted: "prop-secret NAME [HOST]\n" VALUE */
} sline;

typedef struct pgp_ctx pgp_ctx;

struct prop_secrets {
    char *path;
    char *err;   /* the last failure's message (malloc), or NULL */
    int err_oom; /* the message could not be allocated: "out of memory" */
    int broken;  /* the file could not be read whole: every change is refused */
    sline *lines;
    size_t nlines;
    size_t *secrets, nsecrets;       /* indexes into lines, file order */
    size_t *recipients, nrecipients; /* indexes into lines, file order */
    /* The bytes read, to notice a change by someone else before a write. */
    char *orig;
    size_t orig_len;
    int existed;
    secbuf **plains; /* every decrypted value, owned here */
    size_t nplains, capplains;
    pgp_ctx *pgp; /* made on first use: listing needs no gpg */
    prop_secrets_passphrase_fn pass_fn;
    void *pass_ud;
};

int secrets_fail(prop_secrets *s, int code, const char *fmt, ...) PROP_PRINTF(3, 4);

/* ---- secrets_file.c: the store's text ---- */

/* The first word of the file's header line: "prop-secrets 1". */
#define HEADER_WORD "prop-secrets"

/* Free a line's strings and zero it. */
void sline_clear(sline *l);
void slines_free(sline *lines, size_t n);
/* strdup that copies NULL as NULL; 0, or -1 out of memory. */
int secrets_strdup(char **dst, const char *src);
int secrets_same_host(const char *a, const char *b); /* NULL: site-wide */
/* The order new values are put in: by name, the site-wide one first, then by host. */
int secrets_entry_cmp(const char *n1, const char *h1, const char *n2, const char *h2);

/* The lines after a change, with their indexes; owns its strings,
 * borrows the values. */
typedef struct draft {
    sline *lines;
    size_t n;
    size_t *secrets, nsecrets;
    size_t *recipients, nrecipients;
} draft;

/* A copy of s's lines with room for one more, without line skip
 * ((size_t)-1: none).  PROP_OK or PROP_ENOMEM (recorded in s). */
int draft_from(prop_secrets *s, draft *d, size_t skip);
/* Make room at position at (one more line fits); the new line is zeroed. */
sline *draft_insert(draft *d, size_t at);
int draft_index(draft *d); /* 0, or -1 out of memory */
/* The file's text (malloc'd, NUL-terminated), NULL out of memory. */
char *draft_text(const draft *d, size_t *len);
void draft_free(draft *d);
/* Replace the file with text atomically, refusing when it changed since
 * it was read (s->orig).  PROP_OK or PROP_ERROR/PROP_ENOMEM. */
int store_write(prop_secrets *s, const char *text, size_t len);

/* ---- secrets_read.c: reading the store's text ---- */

/* The whole of a regular file; PROP_ENOTFOUND when there is none. */
int store_read(prop_secrets *s, const char *path, char **data, size_t *len);
/* Parse text (cut in place) into s->lines: PROP_OK, or PROP_ERROR with
 * every error "PATH:LINE: ..." on a line of its own. */
int store_parse(prop_secrets *s, char *text, size_t len);
/* The lines of a new store: a comment and the header.  0, or -1. */
int store_init_new(prop_secrets *s);
/* s->secrets and s->recipients from s->lines.  0, or -1. */
int store_index(prop_secrets *s);
void secrets_upcase(char *p); /* ASCII letters, in place */

/* ---- secrets_pgp.c: OpenPGP through GPGME ---- */
void pgp_free(pgp_ctx *c);
/*
 * The public keys of the fingerprints fprs[0..n), each checked usable for
 * encryption, as a handle for pgp_encrypt.  Fails naming the first
 * recipient whose key is missing or unusable.
 */
typedef struct pgp_keys pgp_keys;
int pgp_keys_get(prop_secrets *s, char *const *fprs, size_t n, pgp_keys **out);
void pgp_keys_free(pgp_keys *k);
/* Encrypt plain to keys: *out (malloc, binary OpenPGP) and *outlen. */
int pgp_encrypt(prop_secrets *s, pgp_keys *k, const unsigned char *plain, size_t len,
                unsigned char **out, size_t *outlen);
/* Decrypt msg into out (appended).  what names the value in errors. */
int pgp_decrypt(prop_secrets *s, const unsigned char *msg, size_t len, secbuf *out,
                const char *what);
/* The one usable public key keyid names: its fingerprint and first user id (malloc). */
int pgp_resolve(prop_secrets *s, const char *keyid, char **fpr, char **uid);
/* Fingerprints of every key in the keyring keyid names, usable or not (malloc'd array). */
int pgp_fingerprints(prop_secrets *s, const char *keyid, char ***fprs, size_t *n);

#endif
