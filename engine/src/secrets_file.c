/*
 * secrets_file.c - the text of a secret store: its lines, the
 * lines of a change (a draft), the text they make, and writing it whole
 * and atomically.  Reading and parsing it is secrets_read.c.
 *
 * The file is text, one line per fact, so that git diffs and merges of
 * it make sense (prop-secret(1) documents it):
 *
 *   # any comment
 *   prop-secrets 1
 *   recipient 0123...CDEF Alice <alice@example.org>
 *   secret db_password BASE64
 *   secret db_password web1.example.org BASE64
 *
 * Each BASE64 is one binary OpenPGP message.  Nothing here decrypts or
 * encrypts; secrets.c does, through secrets_pgp.c.
 */
#define _DEFAULT_SOURCE /* realpath, fchown */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "fileio.h"
#include "secrets_impl.h"

/* ---- lines ---- */

void
sline_clear(sline *l)
{
    free(l->text);
    free(l->name);
    free(l->host);
    free(l->b64);
    free(l->fpr);
    free(l->uid);
    memset(l, 0, sizeof *l);
}

void
slines_free(sline *lines, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        sline_clear(&lines[i]);
    free(lines);
}

int
secrets_strdup(char **dst, const char *src)
{
    *dst = NULL;
    if (src == NULL)
        return 0;
    *dst = prop_strdup(src);
    return *dst ? 0 : -1;
}

static int
sline_copy(sline *dst, const sline *src)
{
    *dst = *src;
    dst->text = dst->name = dst->host = dst->b64 = dst->fpr = dst->uid = NULL;
    if (secrets_strdup(&dst->text, src->text) || secrets_strdup(&dst->name, src->name) ||
        secrets_strdup(&dst->host, src->host) || secrets_strdup(&dst->b64, src->b64) ||
        secrets_strdup(&dst->fpr, src->fpr) || secrets_strdup(&dst->uid, src->uid)) {
        sline_clear(dst);
        return -1;
    }
    return 0;
}

int
secrets_same_host(const char *a, const char *b)
{
    return a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0;
}

/* The order new values are put in: by name, the site-wide one first, then by host. */
int
secrets_entry_cmp(const char *n1, const char *h1, const char *n2, const char *h2)
{
    int c = strcmp(n1, n2);

    if (c)
        return c;
    if (h1 == NULL || h2 == NULL)
        return (h1 != NULL) - (h2 != NULL);
    return strcmp(h1, h2);
}

/* ---- a draft: the lines after a change, with their indexes ---- */

void
draft_free(draft *d)
{
    slines_free(d->lines, d->n);
    free(d->secrets);
    free(d->recipients);
    memset(d, 0, sizeof *d);
}

int
draft_index(draft *d)
{
    size_t i;

    free(d->secrets);
    free(d->recipients);
    d->nsecrets = d->nrecipients = 0;
    d->secrets = prop_malloc((d->n + 1) * sizeof *d->secrets);
    d->recipients = prop_malloc((d->n + 1) * sizeof *d->recipients);
    if (d->secrets == NULL || d->recipients == NULL)
        return -1;
    for (i = 0; i < d->n; i++) {
        if (d->lines[i].kind == SL_SECRET)
            d->secrets[d->nsecrets++] = i;
        else if (d->lines[i].kind == SL_RECIPIENT)
            d->recipients[d->nrecipients++] = i;
    }
    return 0;
}

/*
 * A copy of s's lines with room for one more, leaving out line `skip`
 * ((size_t)-1: none).  The copy owns its strings and borrows the values.
 */
int
draft_from(prop_secrets *s, draft *d, size_t skip)
{
    size_t i;

    memset(d, 0, sizeof *d);
    d->lines = prop_calloc(s->nlines + 1, sizeof *d->lines);
    if (d->lines == NULL)
        return secrets_fail(s, PROP_ENOMEM, "out of memory");
    for (i = 0; i < s->nlines; i++) {
        if (i == skip)
            continue;
        if (sline_copy(&d->lines[d->n], &s->lines[i]) != 0) {
            draft_free(d);
            return secrets_fail(s, PROP_ENOMEM, "out of memory");
        }
        d->n++;
    }
    return PROP_OK;
}

/* Make room at position at (the draft has room for one more line). */
sline *
draft_insert(draft *d, size_t at)
{
    memmove(&d->lines[at + 1], &d->lines[at], (d->n - at) * sizeof *d->lines);
    memset(&d->lines[at], 0, sizeof *d->lines);
    d->n++;
    return &d->lines[at];
}

/* ---- the file's text ---- */

static size_t
line_text(const sline *l, char *out)
{
    char tmp[32];
    const char *parts[8];
    size_t np = 0, len = 0, i;

    switch (l->kind) {
    case SL_OTHER:
        parts[np++] = l->text;
        break;
    case SL_HEADER:
        snprintf(tmp, sizeof tmp, HEADER_WORD " %d", PROP_SECRETS_FORMAT);
        parts[np++] = tmp;
        break;
    case SL_RECIPIENT:
        parts[np++] = "recipient ";
        parts[np++] = l->fpr;
        if (l->uid) {
            parts[np++] = " ";
            parts[np++] = l->uid;
        }
        break;
    case SL_SECRET:
        parts[np++] = "secret ";
        parts[np++] = l->name;
        if (l->host) {
            parts[np++] = " ";
            parts[np++] = l->host;
        }
        parts[np++] = " ";
        parts[np++] = l->b64;
        break;
    }
    parts[np++] = "\n";
    for (i = 0; i < np; i++) {
        size_t k = strlen(parts[i]);
        if (out)
            memcpy(out + len, parts[i], k);
        len += k;
    }
    return len;
}

char *
draft_text(const draft *d, size_t *len)
{
    size_t i, n = 0;
    char *text;

    for (i = 0; i < d->n; i++)
        n += line_text(&d->lines[i], NULL);
    text = prop_malloc(n + 1);
    if (text == NULL)
        return NULL;
    for (*len = 0, i = 0; i < d->n; i++)
        *len += line_text(&d->lines[i], text + *len);
    text[*len] = '\0';
    return text;
}

/* ---- writing ---- */

/* Where the link s->path points, joined to its directory when relative;
 * the link may dangle (a store not written yet). */
static int
link_target(prop_secrets *s, char **out)
{
    char buf[PATH_MAX], *t;
    const char *slash;
    ssize_t n;
    size_t dl;

    *out = realpath(s->path, NULL);
    if (*out)
        return PROP_OK;
    n = readlink(s->path, buf, sizeof buf - 1);
    if (n < 0)
        return secrets_fail(s, PROP_ERROR, "cannot follow the link %s: %s", s->path,
                            strerror(errno));
    buf[n] = '\0';
    slash = strrchr(s->path, '/');
    dl = buf[0] != '/' && slash ? (size_t)(slash - s->path) + 1 : 0;
    if ((t = prop_malloc(dl + (size_t)n + 1)) == NULL)
        return secrets_fail(s, PROP_ENOMEM, "out of memory");
    memcpy(t, s->path, dl);
    memcpy(t + dl, buf, (size_t)n + 1);
    *out = t;
    return PROP_OK;
}

/*
 * Replace the store's file with text (len bytes) atomically
 * (prop_write_file_atomic: a temporary file beside it, fsync, rename,
 * fsync of the directory), keeping its mode and owner.  A store that is a
 * symbolic link has its target replaced.  Refuses when the file is no
 * longer what s read, so that two changes at once cannot lose one.
 */
int
store_write(prop_secrets *s, const char *text, size_t len)
{
    char *cur = NULL, *target = NULL, *dir, *slash;
    size_t curlen = 0;
    struct stat st;
    mode_t mode = 0644;
    prop_atomic_stage stage;
    int rc, e, have = 0;

    rc = store_read(s, s->path, &cur, &curlen);
    if (rc == PROP_ENOTFOUND ? s->existed
                             : rc == PROP_OK && (!s->existed || curlen != s->orig_len ||
                                                 memcmp(cur, s->orig, curlen) != 0)) {
        free(cur);
        return secrets_fail(s, PROP_ERROR,
                            "%s changed since it was read (another prop secret, or a git "
                            "checkout?); nothing was written: run the command again",
                            s->path);
    }
    free(cur);
    if (rc != PROP_OK && rc != PROP_ENOTFOUND)
        return rc;
    if (lstat(s->path, &st) == 0) {
        have = 1;
        if (S_ISLNK(st.st_mode)) {
            if ((rc = link_target(s, &target)) != PROP_OK)
                return rc;
            have = stat(target, &st) == 0;
        }
        if (have)
            mode = st.st_mode & 07777;
    }
    e = prop_write_file_atomic(target ? target : s->path, text, len, mode,
                               have && st.st_uid != geteuid() ? st.st_uid : (uid_t)-1,
                               have ? st.st_gid : (gid_t)-1, &stage);
    if (e == 0) {
        rc = PROP_OK;
    } else if (e == ENOMEM && stage != PROP_ATOMIC_DIR) {
        rc = secrets_fail(s, PROP_ENOMEM, "out of memory");
    } else if (stage == PROP_ATOMIC_TEMP) {
        /* The store's directory, for the message. */
        dir = prop_strdup(target ? target : s->path);
        slash = dir ? strrchr(dir, '/') : NULL;
        if (slash)
            slash[slash == dir] = '\0'; /* "/x" -> "/" */
        rc = secrets_fail(s, PROP_ERROR, "cannot write %s: cannot make a file in %s: %s", s->path,
                          dir == NULL ? "its directory"
                          : slash     ? dir
                                      : ".",
                          strerror(e));
        free(dir);
    } else if (stage == PROP_ATOMIC_DIR) {
        rc = secrets_fail(s, PROP_ERROR, "%s: written, but syncing its directory failed: %s",
                          s->path, strerror(e));
    } else {
        rc = secrets_fail(s, PROP_ERROR, "cannot write %s: %s (it is unchanged)", s->path,
                          strerror(e));
    }
    free(target);
    return rc;
}
