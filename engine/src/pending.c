/*
 * pending.c - the record of owed triggers kept on a target between runs
 * (prop_pending in exec.h): a short text file, one trigger target a line,
 * "HOST<TAB>DESCRIPTION<TAB>ORIGIN", with backslash, tab, newline and
 * carriage return escaped as \\, \t, \n and \r.  Lines starting with '#'
 * and empty lines are comments.
 *
 * Ownership: a prop_pending owns its record array and every string in it
 * (malloc), freed by prop_pending_free.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "array.h"
#include "internal.h"
#include "prop/exec.h"

typedef struct pending_rec {
    char *host, *desc, *origin;
} pending_rec;

struct prop_pending {
    pending_rec *v;
    size_t n, cap;
};

static const char header[] = "# prop: trigger targets owed from an earlier run, run by the next "
                             "(prop-run(1)): host, property, origin\n";

int
prop_pending_new(prop_pending **out)
{
    if (!out)
        return PROP_EINVAL;
    *out = prop_calloc(1, sizeof **out);
    return *out ? PROP_OK : PROP_ENOMEM;
}

static void
rec_free(pending_rec *r)
{
    free(r->host);
    free(r->desc);
    free(r->origin);
}

void
prop_pending_free(prop_pending *p)
{
    size_t i;

    if (!p)
        return;
    for (i = 0; i < p->n; i++)
        rec_free(&p->v[i]);
    free(p->v);
    free(p);
}

size_t
prop_pending_count(const prop_pending *p)
{
    return p ? p->n : 0;
}

int
prop_pending_get(const prop_pending *p, size_t i, const char **host, const char **desc,
                 const char **origin)
{
    if (!p || i >= p->n)
        return PROP_EINVAL;
    if (host)
        *host = p->v[i].host;
    if (desc)
        *desc = p->v[i].desc;
    if (origin)
        *origin = p->v[i].origin;
    return PROP_OK;
}

static int
same_rec(const pending_rec *r, const char *host, const char *desc, const char *origin)
{
    return strcmp(r->host, host) == 0 && strcmp(r->desc, desc) == 0 &&
           strcmp(r->origin, origin) == 0;
}

static int
has(const prop_pending *p, const char *host, const char *desc, const char *origin)
{
    size_t i;

    for (i = 0; i < p->n; i++)
        if (same_rec(&p->v[i], host, desc, origin))
            return 1;
    return 0;
}

/* Takes the three strings (malloc'd) into a new record, or frees them. */
static int
push(prop_pending *p, char *host, char *desc, char *origin)
{
    if (!host || !desc || !origin)
        goto nomem;
    if (prop_array_reserve(p->v, p->cap, p->n, 1, 8) != 0)
        goto nomem;
    p->v[p->n].host = host;
    p->v[p->n].desc = desc;
    p->v[p->n].origin = origin;
    p->n++;
    return PROP_OK;
nomem:
    free(host);
    free(desc);
    free(origin);
    return PROP_ENOMEM;
}

/* The length of s once escaped. */
static size_t
escaped_len(const char *s)
{
    size_t n = 0;

    for (; *s; s++)
        n += *s == '\\' || *s == '\t' || *s == '\n' || *s == '\r' ? 2 : 1;
    return n;
}

int
prop_pending_add(prop_pending *p, const char *host, const char *desc, const char *origin)
{
    if (!p || !host || !desc || !origin || !*host || !*desc || *host == '#')
        return PROP_EINVAL;
    /* Its line would not be read back. */
    if (escaped_len(host) + escaped_len(desc) + escaped_len(origin) + 2 > PROP_PENDING_RECORD_MAX)
        return PROP_EINVAL;
    if (has(p, host, desc, origin))
        return PROP_OK;
    return push(p, prop_strdup(host), prop_strdup(desc), prop_strdup(origin));
}

size_t
prop_pending_remove(prop_pending *p, const char *host, const char *desc, const char *origin)
{
    size_t i, j = 0, gone;

    if (!p || !host || !desc || !origin)
        return 0;
    for (i = 0; i < p->n; i++) {
        if (same_rec(&p->v[i], host, desc, origin)) {
            rec_free(&p->v[i]);
            continue;
        }
        p->v[j++] = p->v[i];
    }
    gone = p->n - j;
    p->n = j;
    return gone;
}

int
prop_pending_set_origin(prop_pending *p, size_t i, const char *origin)
{
    char *o;

    if (!p || i >= p->n || !origin)
        return PROP_EINVAL;
    if (!(o = prop_strdup(origin)))
        return PROP_ENOMEM;
    free(p->v[i].origin);
    p->v[i].origin = o;
    return PROP_OK;
}

/* s[0..len) unescaped into a new string; NULL on a bad escape or no memory
 * (*bad set for the former). */
static char *
unescape(const char *s, size_t len, int *bad)
{
    char *out = prop_malloc(len + 1), *o = out;
    size_t i;

    if (!out)
        return NULL;
    for (i = 0; i < len; i++) {
        if (s[i] != '\\') {
            *o++ = s[i];
            continue;
        }
        if (++i == len)
            goto bad;
        switch (s[i]) {
        case '\\':
            *o++ = '\\';
            break;
        case 't':
            *o++ = '\t';
            break;
        case 'n':
            *o++ = '\n';
            break;
        case 'r':
            *o++ = '\r';
            break;
        default:
            goto bad;
        }
    }
    *o = '\0';
    return out;
bad:
    *bad = 1;
    free(out);
    return NULL;
}

/*
 * The records met so far while parsing, by hash (open addressing over
 * indices into p->v, 0 the empty slot): a file of many records is
 * parsed in linear time, each record compared only with those of its
 * hash.  Scratch memory of one prop_pending_parse() call.
 */
typedef struct seen_set {
    size_t *slot; /* index + 1 */
    size_t cap;   /* a power of two, or 0 */
} seen_set;

static size_t
rec_hash(const char *h, const char *d, const char *o)
{
    const char *parts[3] = {h, d, o};
    size_t x = 1469598103934665603u, i;

    for (i = 0; i < 3; i++) {
        const unsigned char *c;

        for (c = (const unsigned char *)parts[i]; *c; c++)
            x = (x ^ *c) * 1099511628211u;
        x = (x ^ 0xffu) * 1099511628211u; /* ends each part */
    }
    return x;
}

static int
seen_put(seen_set *ss, const prop_pending *p, size_t i)
{
    size_t m, k;

    /* At most half full: grown (and refilled from p->v[0..i)) first. */
    if (2 * (i + 1) > ss->cap) {
        size_t cap = ss->cap ? ss->cap * 2 : 64, j;
        size_t *slot = prop_calloc(cap, sizeof *slot);

        if (!slot)
            return PROP_ENOMEM;
        free(ss->slot);
        ss->slot = slot;
        ss->cap = cap;
        for (j = 0; j < i; j++) {
            m = cap - 1;
            k = rec_hash(p->v[j].host, p->v[j].desc, p->v[j].origin) & m;
            while (slot[k])
                k = (k + 1) & m;
            slot[k] = j + 1;
        }
    }
    m = ss->cap - 1;
    k = rec_hash(p->v[i].host, p->v[i].desc, p->v[i].origin) & m;
    while (ss->slot[k])
        k = (k + 1) & m;
    ss->slot[k] = i + 1;
    return PROP_OK;
}

static int
seen_has(const seen_set *ss, const prop_pending *p, const char *h, const char *d, const char *o)
{
    size_t m, k;

    if (ss->cap == 0)
        return 0;
    m = ss->cap - 1;
    for (k = rec_hash(h, d, o) & m; ss->slot[k]; k = (k + 1) & m)
        if (same_rec(&p->v[ss->slot[k] - 1], h, d, o))
            return 1;
    return 0;
}

/* One line (without its newline) as a record, taken by p unless it is
 * there already; *bad set when the line is not a record. */
static int
parse_line(prop_pending *p, seen_set *ss, const char *s, size_t l, int *bad)
{
    const char *t1, *t2;
    char *h, *d, *o;
    int rc;

    if (l > PROP_PENDING_RECORD_MAX) {
        *bad = 1;
        return PROP_OK;
    }
    t1 = memchr(s, '\t', l);
    t2 = t1 ? memchr(t1 + 1, '\t', l - (size_t)(t1 + 1 - s)) : NULL;
    /* prop writes a carriage return escaped: a bare one is not its. */
    if (!t1 || !t2 || t1 == s || t2 == t1 + 1 || memchr(t2 + 1, '\t', l - (size_t)(t2 + 1 - s)) ||
        memchr(s, '\0', l) || memchr(s, '\r', l)) {
        *bad = 1;
        return PROP_OK;
    }
    h = unescape(s, (size_t)(t1 - s), bad);
    d = *bad || !h ? NULL : unescape(t1 + 1, (size_t)(t2 - t1 - 1), bad);
    o = *bad || !d ? NULL : unescape(t2 + 1, l - (size_t)(t2 + 1 - s), bad);
    if (*bad || (h && d && o && seen_has(ss, p, h, d, o))) {
        free(h);
        free(d);
        free(o);
        return PROP_OK;
    }
    if ((rc = push(p, h, d, o)) != PROP_OK) /* frees them on failure */
        return rc;
    return seen_put(ss, p, p->n - 1);
}

int
prop_pending_parse(const char *data, size_t len, prop_pending **out, unsigned *bad_line)
{
    prop_pending *p = NULL;
    seen_set ss = {NULL, 0};
    size_t pos = 0;
    unsigned line = 0;
    int rc;

    if (!out || !bad_line || (!data && len) || len > PROP_PENDING_FILE_MAX)
        return PROP_EINVAL;
    *out = NULL;
    *bad_line = 0;
    if ((rc = prop_pending_new(&p)) != PROP_OK)
        return rc;
    while (pos < len) {
        const char *s = data + pos, *nl = memchr(s, '\n', len - pos);
        size_t l = nl ? (size_t)(nl - s) : len - pos;
        int bad = 0;

        pos += l + (nl ? 1 : 0);
        line++;
        if (l == 0 || s[0] == '#')
            continue;
        if ((rc = parse_line(p, &ss, s, l, &bad)) != PROP_OK) {
            free(ss.slot);
            prop_pending_free(p);
            return rc;
        }
        if (bad && *bad_line == 0)
            *bad_line = line;
    }
    free(ss.slot);
    *out = p;
    return PROP_OK;
}

size_t
prop_pending_sweep(prop_pending *p, const unsigned char *drop)
{
    size_t i, j = 0, gone;

    if (!p || !drop)
        return 0;
    for (i = 0; i < p->n; i++) {
        if (drop[i]) {
            rec_free(&p->v[i]);
            continue;
        }
        p->v[j++] = p->v[i];
    }
    gone = p->n - j;
    p->n = j;
    return gone;
}

static int
escape_into(FILE *f, const char *s)
{
    for (; *s; s++) {
        const char *e = *s == '\\'   ? "\\\\"
                        : *s == '\t' ? "\\t"
                        : *s == '\n' ? "\\n"
                        : *s == '\r' ? "\\r"
                                     : NULL;

        if (e ? fputs(e, f) < 0 : fputc(*s, f) == EOF)
            return -1;
    }
    return 0;
}

int
prop_pending_format(const prop_pending *p, char **out, size_t *len)
{
    FILE *f;
    size_t i;
    int bad = 0;

    if (!p || !out || !len)
        return PROP_EINVAL;
    *out = NULL;
    *len = 0;
    if (!(f = open_memstream(out, len)))
        return PROP_ENOMEM;
    bad = fputs(header, f) < 0;
    for (i = 0; i < p->n && !bad; i++)
        bad = escape_into(f, p->v[i].host) || fputc('\t', f) == EOF ||
              escape_into(f, p->v[i].desc) || fputc('\t', f) == EOF ||
              escape_into(f, p->v[i].origin) || fputc('\n', f) == EOF;
    if (fclose(f) != 0 || bad || !*out) {
        free(*out);
        *out = NULL;
        *len = 0;
        return PROP_ENOMEM;
    }
    return PROP_OK;
}
