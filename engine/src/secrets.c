/*
 * secrets.c - the secret store of a site: its values and recipients.
 *
 * Each value in the store is one OpenPGP message, encrypted on its own
 * so that one value can be decrypted without the others.  The plaintext
 * of a message is a line "prop-secret NAME [HOST]" and then the value's
 * bytes: a message copied onto another line (a bad merge, an edit by
 * hand) is refused when decrypted, rather than handing one host's secret
 * to another.  The file itself is secrets_file.c's.
 *
 * Ownership: the store owns its lines (and each line its strings) and
 * every decrypted value (plains); a line only points at its value.  A
 * change works on a draft (a deep copy of the lines), writes the draft's
 * text, and only once the file is renamed into place swaps the draft in:
 * nothing that can fail comes after the write, so a failure leaves file
 * and object as they were.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "array.h"
#include "base64.h"
#include "secrets_impl.h"

#define PLAIN_WORD "prop-secret"

/* ---- errors ---- */

int
secrets_fail(prop_secrets *s, int code, const char *fmt, ...)
{
    va_list ap;
    char *msg;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    msg = n >= 0 ? prop_malloc((size_t)n + 1) : NULL;
    if (msg) {
        va_start(ap, fmt);
        (void)vsnprintf(msg, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    free(s->err);
    s->err = msg;
    s->err_oom = msg == NULL;
    return code;
}

const char *
prop_secrets_error(const prop_secrets *s)
{
    if (s == NULL)
        return "out of memory";
    if (s->err)
        return s->err;
    return s->err_oom ? "out of memory" : "";
}

const char *
prop_secrets_path(const prop_secrets *s)
{
    return s->path;
}

void
prop_secrets_wipe(void *p, size_t n)
{
    secmem_wipe(p, n);
}

/* ---- names ---- */

int
prop_secrets_name_valid(const char *name)
{
    size_t i;

    if (name == NULL || !(name[0] == '_' || (name[0] >= 'A' && name[0] <= 'Z') ||
                          (name[0] >= 'a' && name[0] <= 'z')))
        return 0;
    for (i = 1; name[i]; i++) {
        char c = name[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-'))
            return 0;
    }
    return i <= PROP_SECRETS_NAME_MAX;
}

/* A blank that prop_text_clean lets through (it rejects the controls). */
static int
is_blank(unsigned long cp)
{
    return cp == 0x20 || cp == 0xa0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200b) ||
           cp == 0x2028 || cp == 0x2029 || cp == 0x202f || cp == 0x205f || cp == 0x3000 ||
           cp == 0xfeff;
}

int
prop_secrets_host_valid(const char *host)
{
    const unsigned char *u = (const unsigned char *)host;
    size_t len, i = 0;

    /* "*" is how prop secret list shows a value for every host. */
    if (host == NULL || (len = strlen(host)) == 0 || len > PROP_SECRETS_NAME_MAX ||
        strcmp(host, "*") == 0 || !prop_text_clean(host, len))
        return 0;
    /* Valid UTF-8 from here on: decode without checks. */
    while (i < len) {
        unsigned long cp;
        size_t n = u[i] < 0x80 ? 1 : u[i] < 0xe0 ? 2 : u[i] < 0xf0 ? 3 : 4;
        cp = n == 1 ? u[i] : (unsigned long)(u[i] & (0x7f >> n));
        for (size_t k = 1; k < n; k++)
            cp = cp << 6 | (u[i + k] & 0x3f);
        if (is_blank(cp))
            return 0;
        i += n;
    }
    return 1;
}

int
prop_secrets_store_path(char **out, const char *site)
{
    const char *base, *dot;
    size_t stem;
    char *p;

    *out = NULL;
    if (site == NULL || site[0] == '\0')
        return PROP_EINVAL;
    base = strrchr(site, '/');
    base = base ? base + 1 : site;
    if (base[0] == '\0' || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
        return PROP_EINVAL;
    dot = strrchr(base, '.');
    /* A leading dot starts a hidden name, not an extension. */
    stem = dot && dot != base ? (size_t)(dot - site) : strlen(site);
    if (strcmp(site + stem, ".secrets") == 0)
        return PROP_EINVAL;
    p = prop_malloc(stem + sizeof ".secrets");
    if (p == NULL)
        return PROP_ENOMEM;
    memcpy(p, site, stem);
    memcpy(p + stem, ".secrets", sizeof ".secrets");
    *out = p;
    return PROP_OK;
}

/* ---- open, free, read ---- */

int
prop_secrets_open(prop_secrets **out, const char *path)
{
    prop_secrets *s;
    int rc;

    *out = s = prop_calloc(1, sizeof *s);
    if (s == NULL)
        return PROP_ENOMEM;
    if (path == NULL || path[0] == '\0') {
        s->broken = 1;
        return secrets_fail(s, PROP_EINVAL, "no store path");
    }
    if ((s->path = prop_strdup(path)) == NULL) {
        s->broken = 1;
        return secrets_fail(s, PROP_ENOMEM, "out of memory");
    }
    rc = store_read(s, path, &s->orig, &s->orig_len);
    if (rc == PROP_ENOTFOUND) {
        /* A new store: a comment saying what it is, and the header. */
        if (store_init_new(s) != 0) {
            s->broken = 1;
            return secrets_fail(s, PROP_ENOMEM, "out of memory");
        }
        return PROP_OK;
    }
    if (rc != PROP_OK) {
        s->broken = 1;
        return rc;
    }
    s->existed = 1;
    {
        /* store_parse() cuts the text into lines in place: parse a copy. */
        char *work = prop_malloc(s->orig_len + 1);
        if (work == NULL) {
            s->broken = 1;
            return secrets_fail(s, PROP_ENOMEM, "out of memory");
        }
        memcpy(work, s->orig, s->orig_len + 1);
        rc = store_parse(s, work, s->orig_len);
        free(work);
    }
    if (rc != PROP_OK)
        s->broken = 1;
    return rc;
}

void
prop_secrets_free(prop_secrets *s)
{
    size_t i;

    if (s == NULL)
        return;
    for (i = 0; i < s->nplains; i++) {
        secbuf_release(s->plains[i]);
        free(s->plains[i]);
    }
    free(s->plains);
    pgp_free(s->pgp);
    slines_free(s->lines, s->nlines);
    free(s->secrets);
    free(s->recipients);
    free(s->orig);
    free(s->path);
    free(s->err);
    free(s);
}

size_t
prop_secrets_count(const prop_secrets *s)
{
    return s->nsecrets;
}

int
prop_secrets_entry(const prop_secrets *s, size_t i, const char **name, const char **host)
{
    if (name)
        *name = NULL;
    if (host)
        *host = NULL;
    if (i >= s->nsecrets)
        return PROP_EINVAL;
    if (name)
        *name = s->lines[s->secrets[i]].name;
    if (host)
        *host = s->lines[s->secrets[i]].host;
    return PROP_OK;
}

size_t
prop_secrets_nrecipients(const prop_secrets *s)
{
    return s->nrecipients;
}

const char *
prop_secrets_recipient(const prop_secrets *s, size_t i)
{
    return i < s->nrecipients ? s->lines[s->recipients[i]].fpr : NULL;
}

const char *
prop_secrets_recipient_uid(const prop_secrets *s, size_t i)
{
    return i < s->nrecipients ? s->lines[s->recipients[i]].uid : NULL;
}

void
prop_secrets_set_passphrase_cb(prop_secrets *s, prop_secrets_passphrase_fn fn, void *ud)
{
    s->pass_fn = fn;
    s->pass_ud = ud;
}

/* The line index of exactly (name, host), or (size_t)-1. */
static size_t
find_exact(const prop_secrets *s, const char *name, const char *host)
{
    size_t i;

    for (i = 0; i < s->nsecrets; i++) {
        const sline *l = &s->lines[s->secrets[i]];
        if (strcmp(l->name, name) == 0 && secrets_same_host(l->host, host))
            return s->secrets[i];
    }
    return (size_t)-1;
}

/* The line of the value name has on host: a host-specific one, else the site-wide one. */
static size_t
find_for(const prop_secrets *s, const char *name, const char *host)
{
    size_t k = (size_t)-1;

    if (name == NULL)
        return k;
    if (host)
        k = find_exact(s, name, host);
    if (k == (size_t)-1)
        k = find_exact(s, name, NULL);
    return k;
}

int
prop_secrets_has(const prop_secrets *s, const char *name, const char *host)
{
    return s && find_for(s, name, host) != (size_t)-1;
}

/* ---- values ---- */

/* "prop-secret NAME [HOST]\n", the first line of every plaintext, into a secbuf. */
static int
plain_header(secbuf *b, const char *name, const char *host)
{
    if (secbuf_append(b, PLAIN_WORD " ", sizeof PLAIN_WORD) || secbuf_append(b, name, strlen(name)))
        return -1;
    if (host && (secbuf_append(b, " ", 1) || secbuf_append(b, host, strlen(host))))
        return -1;
    return secbuf_append(b, "\n", 1);
}

static size_t
plain_header_len(const char *name, const char *host)
{
    return sizeof PLAIN_WORD + strlen(name) + (host ? 1 + strlen(host) : 0) + 1;
}

/* How errors name a line's value: "site.secrets:7: db_password for web1". */
static const char *
describe(const prop_secrets *s, const sline *l, char *buf, size_t size)
{
    if (l->lineno)
        snprintf(buf, size, "%s:%zu: %s%s%s", s->path, l->lineno, l->name, l->host ? " for " : "",
                 l->host ? l->host : "");
    else
        snprintf(buf, size, "%s: %s%s%s", s->path, l->name, l->host ? " for " : "",
                 l->host ? l->host : "");
    return buf;
}

static int
reserve_plains(prop_secrets *s, size_t more)
{
    if (prop_array_reserve(s->plains, s->capplains, s->nplains, more, 8) != 0)
        return secrets_fail(s, PROP_ENOMEM, "out of memory");
    return PROP_OK;
}

/* Decrypt line k's value once (it is then kept in s->plains). */
static int
reveal_line(prop_secrets *s, size_t k)
{
    sline *l = &s->lines[k];
    unsigned char *bin = NULL;
    size_t binlen = 0, hlen;
    secbuf *b = NULL, want = {NULL, 0, 0};
    char what[700];
    int rc;

    if (l->plain)
        return PROP_OK;
    describe(s, l, what, sizeof what);
    if ((rc = reserve_plains(s, 1)) != PROP_OK)
        return rc;
    rc = prop_base64_decode(l->b64, &bin, &binlen);
    if (rc != 0)
        return rc == ENOMEM ? secrets_fail(s, PROP_ENOMEM, "out of memory")
                            : secrets_fail(s, PROP_EINVAL, "%s: not base64", what);
    if ((b = prop_calloc(1, sizeof *b)) == NULL) {
        free(bin);
        return secrets_fail(s, PROP_ENOMEM, "out of memory");
    }
    rc = pgp_decrypt(s, bin, binlen, b, what);
    free(bin);
    if (rc != PROP_OK) {
        free(b);
        return rc;
    }
    /* The value must have been encrypted for this name and host. */
    hlen = plain_header_len(l->name, l->host);
    if (plain_header(&want, l->name, l->host) != 0) {
        rc = secrets_fail(s, PROP_ENOMEM, "out of memory");
    } else if (b->len < hlen || memcmp(b->p, want.p, hlen) != 0) {
        size_t n = 0;
        int ours =
            b->len > sizeof PLAIN_WORD && memcmp(b->p, PLAIN_WORD " ", sizeof PLAIN_WORD) == 0;
        while (ours && n < b->len && n < 300 && b->p[n] != '\n')
            n++;
        if (ours && n < b->len && prop_text_clean((const char *)b->p, n))
            rc = secrets_fail(s, PROP_ERROR,
                              "%s: the message on this line was encrypted as \"%.*s\": it was "
                              "copied from another line; set the value again",
                              what, (int)n, (const char *)b->p);
        else
            rc = secrets_fail(s, PROP_ERROR,
                              "%s: the message on this line is not a value prop encrypted; set "
                              "the value again",
                              what);
    }
    secbuf_release(&want);
    if (rc != PROP_OK) {
        secbuf_release(b);
        free(b);
        return rc;
    }
    s->plains[s->nplains++] = b;
    l->plain = b;
    return PROP_OK;
}

int
prop_secrets_reveal(prop_secrets *s, const char *name, const char *host, const unsigned char **data,
                    size_t *len)
{
    size_t k, hlen;
    int rc;

    *data = NULL;
    *len = 0;
    if (name == NULL)
        return secrets_fail(s, PROP_EINVAL, "no secret name");
    k = find_for(s, name, host);
    if (k == (size_t)-1)
        return secrets_fail(s, PROP_ENOTFOUND, "%s has no value %s%s%s", s->path, name,
                            host ? " for " : "", host ? host : "");
    if ((rc = reveal_line(s, k)) != PROP_OK)
        return rc;
    hlen = plain_header_len(s->lines[k].name, s->lines[k].host);
    *data = s->lines[k].plain->p + hlen;
    *len = s->lines[k].plain->len - hlen;
    return PROP_OK;
}

/*
 * Write the draft's text and, once it is in place, make the draft the
 * store's lines.  Nothing after the write can fail: the indexes are made
 * first.
 */
static int
commit(prop_secrets *s, draft *d)
{
    char *text;
    size_t len = 0;
    int rc;

    if (draft_index(d) != 0)
        return secrets_fail(s, PROP_ENOMEM, "out of memory");
    if ((text = draft_text(d, &len)) == NULL)
        return secrets_fail(s, PROP_ENOMEM, "out of memory");
    if ((rc = store_write(s, text, len)) != PROP_OK) {
        free(text);
        return rc;
    }
    free(s->orig);
    s->orig = text;
    s->orig_len = len;
    s->existed = 1;
    slines_free(s->lines, s->nlines);
    free(s->secrets);
    free(s->recipients);
    s->lines = d->lines;
    s->nlines = d->n;
    s->secrets = d->secrets;
    s->nsecrets = d->nsecrets;
    s->recipients = d->recipients;
    s->nrecipients = d->nrecipients;
    memset(d, 0, sizeof *d);
    free(s->err);
    s->err = NULL;
    s->err_oom = 0;
    return PROP_OK;
}

static int
check_changeable(prop_secrets *s)
{
    if (s->broken)
        return secrets_fail(s, PROP_ERROR, "%s cannot be changed until it can be read whole",
                            s->path ? s->path : "the store");
    return PROP_OK;
}

static int
check_name_host(prop_secrets *s, const char *name, const char *host)
{
    if (!prop_secrets_name_valid(name))
        return secrets_fail(s, PROP_EINVAL,
                            "\"%s\" is not a secret name (letters, digits, _ . -, not first a "
                            "digit, . or -)",
                            name ? name : "");
    if (host && !prop_secrets_host_valid(host))
        return secrets_fail(s, PROP_EINVAL,
                            "not a host name (blanks, control characters or not "
                            "UTF-8)");
    return PROP_OK;
}

/* The draft's recipients' public keys. */
static int
draft_keys(prop_secrets *s, const draft *d, pgp_keys **keys)
{
    char **fprs;
    size_t i, n = 0;
    int rc;

    fprs = prop_malloc((d->n + 1) * sizeof *fprs);
    if (fprs == NULL)
        return secrets_fail(s, PROP_ENOMEM, "out of memory");
    for (i = 0; i < d->n; i++)
        if (d->lines[i].kind == SL_RECIPIENT)
            fprs[n++] = d->lines[i].fpr;
    rc = pgp_keys_get(s, fprs, n, keys);
    free(fprs);
    return rc;
}

/* Encrypt plain to keys into line l's b64. */
static int
encrypt_into(prop_secrets *s, pgp_keys *keys, const secbuf *plain, sline *l)
{
    unsigned char *cipher = NULL;
    size_t clen = 0;
    char *b64;
    int rc;

    if ((rc = pgp_encrypt(s, keys, plain->p, plain->len, &cipher, &clen)) != PROP_OK)
        return rc;
    b64 = prop_base64_encode(cipher, clen);
    free(cipher);
    if (b64 == NULL)
        return secrets_fail(s, PROP_ENOMEM, "out of memory");
    free(l->b64);
    l->b64 = b64;
    return PROP_OK;
}

int
prop_secrets_set(prop_secrets *s, const char *name, const char *host, const unsigned char *value,
                 size_t len)
{
    secbuf *plain = NULL;
    pgp_keys *keys = NULL;
    draft d = {NULL, 0, NULL, 0, NULL, 0};
    size_t k, at, i;
    sline *l;
    int rc;

    if ((rc = check_changeable(s)) != PROP_OK || (rc = check_name_host(s, name, host)) != PROP_OK)
        return rc;
    if (value == NULL && len > 0)
        return secrets_fail(s, PROP_EINVAL, "no value");
    if (len > PROP_SECRETS_VALUE_MAX)
        return secrets_fail(s, PROP_EINVAL, "the value is %zu bytes; at most %u are kept", len,
                            PROP_SECRETS_VALUE_MAX);
    if (s->nrecipients == 0)
        return secrets_fail(s, PROP_ERROR, "%s lists no recipient to encrypt to: add one first",
                            s->path);
    if ((rc = reserve_plains(s, 1)) != PROP_OK)
        return rc;
    secmem_harden();
    if ((plain = prop_calloc(1, sizeof *plain)) == NULL)
        return secrets_fail(s, PROP_ENOMEM, "out of memory");
    if (plain_header(plain, name, host) != 0 || secbuf_append(plain, value, len) != 0) {
        rc = secrets_fail(s, PROP_ENOMEM, "out of memory");
        goto done;
    }
    if ((rc = draft_from(s, &d, (size_t)-1)) != PROP_OK)
        goto done;
    k = find_exact(s, name, host);
    if (k != (size_t)-1) {
        l = &d.lines[k];
    } else {
        /* In order among the values when the file is in order; else after the last. */
        at = (size_t)-1;
        for (i = 0; i < d.n && at == (size_t)-1; i++)
            if (d.lines[i].kind == SL_SECRET &&
                secrets_entry_cmp(d.lines[i].name, d.lines[i].host, name, host) > 0)
                at = i;
        for (i = d.n; i-- > 0 && at == (size_t)-1;)
            if (d.lines[i].kind == SL_SECRET || d.lines[i].kind == SL_RECIPIENT ||
                d.lines[i].kind == SL_HEADER)
                at = i + 1;
        if (at == (size_t)-1)
            at = d.n;
        l = draft_insert(&d, at);
        l->kind = SL_SECRET;
        if (secrets_strdup(&l->name, name) || secrets_strdup(&l->host, host)) {
            rc = secrets_fail(s, PROP_ENOMEM, "out of memory");
            goto done;
        }
    }
    if ((rc = draft_keys(s, &d, &keys)) != PROP_OK ||
        (rc = encrypt_into(s, keys, plain, l)) != PROP_OK)
        goto done;
    l->plain = plain;
    if ((rc = commit(s, &d)) != PROP_OK)
        goto done;
    s->plains[s->nplains++] = plain;
    plain = NULL;

done:
    pgp_keys_free(keys);
    draft_free(&d);
    if (plain) {
        secbuf_release(plain);
        free(plain);
    }
    return rc;
}

int
prop_secrets_set_fd(prop_secrets *s, const char *name, const char *host, int fd)
{
    secbuf b = {NULL, 0, 0};
    ssize_t r;
    int rc, e;

    if ((rc = check_changeable(s)) != PROP_OK || (rc = check_name_host(s, name, host)) != PROP_OK)
        return rc;
    secmem_harden();
    for (;;) {
        if (b.len == b.cap && secbuf_reserve(&b, b.cap ? b.cap : 4096) != 0) {
            secbuf_release(&b);
            return secrets_fail(s, PROP_ENOMEM, "out of memory");
        }
        r = read(fd, b.p + b.len, b.cap - b.len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            e = errno;
            secbuf_release(&b);
            return secrets_fail(s, PROP_ERROR, "cannot read the value: %s", strerror(e));
        }
        if (r == 0)
            break;
        b.len += (size_t)r;
        if (b.len > PROP_SECRETS_VALUE_MAX) {
            secbuf_release(&b);
            return secrets_fail(s, PROP_EINVAL, "the value is over %u bytes",
                                PROP_SECRETS_VALUE_MAX);
        }
    }
    rc = prop_secrets_set(s, name, host, b.p ? b.p : (const unsigned char *)"", b.len);
    secbuf_release(&b);
    return rc;
}

int
prop_secrets_remove(prop_secrets *s, const char *name, const char *host)
{
    draft d;
    size_t k;
    int rc;

    if ((rc = check_changeable(s)) != PROP_OK || (rc = check_name_host(s, name, host)) != PROP_OK)
        return rc;
    k = find_exact(s, name, host);
    if (k == (size_t)-1)
        return secrets_fail(s, PROP_ENOTFOUND, "%s has no value %s%s%s", s->path, name,
                            host ? " for " : "", host ? host : " (site-wide)");
    if ((rc = draft_from(s, &d, k)) != PROP_OK)
        return rc;
    rc = commit(s, &d);
    draft_free(&d);
    return rc;
}

/* ---- recipients ---- */

/*
 * Encrypt every value of the draft again, to the draft's recipients.
 * Every value of s is decrypted first (and kept: it is the same value).
 */
static int
reencrypt(prop_secrets *s, draft *d)
{
    pgp_keys *keys = NULL;
    size_t i;
    int rc = PROP_OK;

    for (i = 0; i < s->nsecrets; i++)
        if ((rc = reveal_line(s, s->secrets[i])) != PROP_OK)
            return rc;
    /* reveal_line set the values on s's lines after the draft was copied. */
    for (i = 0; i < d->n; i++) {
        sline *l = &d->lines[i];
        size_t k;
        if (l->kind != SL_SECRET)
            continue;
        k = find_exact(s, l->name, l->host);
        l->plain = k != (size_t)-1 ? s->lines[k].plain : NULL;
    }
    if (s->nsecrets == 0)
        return PROP_OK;
    if ((rc = draft_keys(s, d, &keys)) != PROP_OK)
        return rc;
    for (i = 0; i < d->n && rc == PROP_OK; i++)
        if (d->lines[i].kind == SL_SECRET)
            rc = encrypt_into(s, keys, d->lines[i].plain, &d->lines[i]);
    pgp_keys_free(keys);
    return rc;
}

static int
check_keyid(prop_secrets *s, const char *keyid)
{
    if (keyid == NULL || keyid[0] == '\0' || !prop_text_clean(keyid, strlen(keyid)) ||
        strlen(keyid) > 1024)
        return secrets_fail(s, PROP_EINVAL, "not a key id, fingerprint or user id");
    return PROP_OK;
}

int
prop_secrets_recipient_add(prop_secrets *s, const char *keyid)
{
    char *fpr = NULL, *uid = NULL;
    draft d = {NULL, 0, NULL, 0, NULL, 0};
    size_t i, at;
    sline *l;
    int rc;

    if ((rc = check_changeable(s)) != PROP_OK || (rc = check_keyid(s, keyid)) != PROP_OK)
        return rc;
    if ((rc = pgp_resolve(s, keyid, &fpr, &uid)) != PROP_OK)
        return rc;
    secrets_upcase(fpr);
    for (i = 0; i < s->nrecipients; i++)
        if (strcmp(s->lines[s->recipients[i]].fpr, fpr) == 0)
            goto done; /* already one: nothing to do */
    if ((rc = draft_from(s, &d, (size_t)-1)) != PROP_OK)
        goto done;
    at = d.n;
    for (i = d.n; i-- > 0;)
        if (d.lines[i].kind == SL_RECIPIENT || d.lines[i].kind == SL_HEADER) {
            at = i + 1;
            break;
        }
    l = draft_insert(&d, at);
    l->kind = SL_RECIPIENT;
    l->fpr = fpr;
    l->uid = uid;
    fpr = uid = NULL;
    if ((rc = reencrypt(s, &d)) != PROP_OK)
        goto done;
    rc = commit(s, &d);

done:
    draft_free(&d);
    free(fpr);
    free(uid);
    return rc;
}

/* Which recipient keyid names: by the fingerprint or key id written in the store, else through the
 * keyring. */
static int
match_recipient(prop_secrets *s, const char *keyid, size_t *which)
{
    char norm[80], **fprs = NULL;
    size_t n = 0, i, j, nf = 0, found = 0;
    const char *p = keyid;
    int hex = 1, rc;

    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        p += 2;
    for (; *p && n + 1 < sizeof norm; p++) {
        if (*p == ' ')
            continue;
        if (!((*p >= '0' && *p <= '9') || (*p >= 'A' && *p <= 'F') || (*p >= 'a' && *p <= 'f')))
            hex = 0;
        norm[n++] = *p;
    }
    norm[n] = '\0';
    secrets_upcase(norm);
    if (*p || !(n == 8 || n == 16 || n == 40 || n == 64))
        hex = 0;
    if (hex)
        for (i = 0; i < s->nrecipients; i++) {
            const char *f = s->lines[s->recipients[i]].fpr;
            size_t fl = strlen(f);
            if (fl >= n && strcmp(f + fl - n, norm) == 0) {
                *which = i;
                found++;
            }
        }
    if (found == 0) {
        rc = pgp_fingerprints(s, keyid, &fprs, &nf);
        if (rc != PROP_OK && !hex)
            return rc;
        for (j = 0; j < nf; j++) {
            secrets_upcase(fprs[j]);
            for (i = 0; i < s->nrecipients; i++)
                if (strcmp(s->lines[s->recipients[i]].fpr, fprs[j]) == 0) {
                    if (found == 0 || *which != i)
                        found++;
                    *which = i;
                }
            free(fprs[j]);
        }
        free(fprs);
    }
    if (found == 0)
        return secrets_fail(s, PROP_ENOTFOUND, "\"%s\" is not a recipient of %s", keyid, s->path);
    if (found > 1)
        return secrets_fail(s, PROP_ERROR,
                            "\"%s\" names %zu recipients of %s: give a full fingerprint", keyid,
                            found, s->path);
    return PROP_OK;
}

int
prop_secrets_recipient_remove(prop_secrets *s, const char *keyid)
{
    draft d = {NULL, 0, NULL, 0, NULL, 0};
    size_t which = 0;
    int rc;

    if ((rc = check_changeable(s)) != PROP_OK || (rc = check_keyid(s, keyid)) != PROP_OK)
        return rc;
    if ((rc = match_recipient(s, keyid, &which)) != PROP_OK)
        return rc;
    if (s->nrecipients == 1)
        return secrets_fail(s, PROP_ERROR,
                            "%s is the last recipient of %s: without one nobody could decrypt "
                            "it (add another first)",
                            s->lines[s->recipients[which]].fpr, s->path);
    if ((rc = draft_from(s, &d, s->recipients[which])) != PROP_OK)
        return rc;
    if ((rc = reencrypt(s, &d)) == PROP_OK)
        rc = commit(s, &d);
    draft_free(&d);
    return rc;
}
