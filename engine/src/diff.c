/*
 * diff.c - unified diffs (see prop/diff.h).
 *
 * 1. The lines both texts share at the start and at the end are skipped
 *    without indexing them (a big file with a small change costs little),
 *    keeping `context` of them on each side.
 * 2. The lines left are numbered so that equal lines get equal numbers
 *    (a hash table), and compared with Myers' algorithm in linear space:
 *    find the middle snake of the edit graph by searching from both ends,
 *    split there, recurse on both halves.  Every comparison step costs
 *    from a budget; a part that runs over it is shown as wholly replaced.
 * 3. Changed lines are grouped into hunks; hunks closer than twice the
 *    context are merged, as diff -u does.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "buf.h"
#include "prop/diff.h"

/* Above this many lines (both texts), no search: the middle is replaced. */
#define MAX_SEARCH_LINES 1000000L
/* Steps of the search before the remaining parts are replaced. */
#define SEARCH_BUDGET 50000000LL

typedef struct line {
    const char *s;
    size_t len; /* with the '\n', if there is one */
} line;

typedef struct diff_ctx {
    const size_t *a, *b; /* line numbers: equal lines, equal numbers */
    unsigned char *da, *db;
    long *v1, *v2;
    long long budget;
} diff_ctx;

typedef struct block {
    size_t a0, a1, b0, b1; /* a[a0..a1) removed, b[b0..b1) added */
} block;

/* End of the line starting at p (after its '\n', or the end of the text). */
static size_t
line_end(const char *t, size_t p, size_t len)
{
    const char *nl = memchr(t + p, '\n', len - p);

    return nl ? (size_t)(nl - t) + 1 : len;
}

/* Start of the line ending at e (> lo), not going before lo (a line start). */
static size_t
line_start(const char *t, size_t lo, size_t e)
{
    size_t p = e - 1;

    while (p > lo && t[p - 1] != '\n')
        p--;
    return p;
}

static size_t
count_lines(const char *t, size_t p, size_t e)
{
    size_t n = 0;

    while (p < e) {
        p = line_end(t, p, e);
        n++;
    }
    return n;
}

static void
split_lines(const char *t, size_t p, size_t e, line *out)
{
    size_t n = 0, q;

    while (p < e) {
        q = line_end(t, p, e);
        out[n].s = t + p;
        out[n].len = q - p;
        n++;
        p = q;
    }
}

static uint64_t
hash_line(const line *l)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    size_t i;

    for (i = 0; i < l->len; i++) {
        h ^= (unsigned char)l->s[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

/*
 * Number the lines of both texts (all of la, then lb): a line's number is
 * the index of the first line equal to it.  0 or -1 (out of memory).
 */
static int
number_lines(const line *la, size_t na, const line *lb, size_t nb, size_t *ia, size_t *ib)
{
    size_t n = na + nb, cap = 16, i, slot, *table;

    while (cap < 2 * n)
        cap *= 2;
    table = prop_malloc(cap * sizeof *table);
    if (!table)
        return -1;
    for (i = 0; i < cap; i++)
        table[i] = SIZE_MAX;
    for (i = 0; i < n; i++) {
        const line *l = i < na ? &la[i] : &lb[i - na];

        slot = (size_t)hash_line(l) & (cap - 1);
        for (;;) {
            size_t j = table[slot];
            const line *m;

            if (j == SIZE_MAX) {
                table[slot] = i;
                j = i;
            } else {
                m = j < na ? &la[j] : &lb[j - na];
                if (m->len != l->len || memcmp(m->s, l->s, l->len) != 0) {
                    slot = (slot + 1) & (cap - 1);
                    continue;
                }
            }
            if (i < na)
                ia[i] = j;
            else
                ib[i - na] = j;
            break;
        }
    }
    free(table);
    return 0;
}

/*
 * The middle snake of a[a0..a1) against b[b0..b1), both non-empty and
 * differing in their first and last lines: a point (*xs, *ys) on an
 * optimal path, strictly between the corners.  0, or 1 when the budget
 * ran out (or, defensively, when no valid point was found).
 *
 * v1[k] is the furthest x reached on diagonal k = x - y searching forward
 * from (0, 0); v2[k] the furthest reached backward from (n, m), counted
 * from that end.  Diagonals whose search ran off the graph are dropped
 * from the window (klo/khi).
 */
static int
bisect(diff_ctx *c, long a0, long a1, long b0, long b1, long *xs, long *ys)
{
    const size_t *a = c->a + a0, *b = c->b + b0;
    long n = a1 - a0, m = b1 - b0, maxd = (n + m + 1) / 2, off = maxd, vlen = 2 * maxd;
    long delta = n - m, d, k, i, x, y, k1lo = 0, k1hi = 0, k2lo = 0, k2hi = 0;
    long *v1 = c->v1, *v2 = c->v2;
    int front = (delta % 2) != 0;

    for (i = 0; i < vlen + 2; i++)
        v1[i] = v2[i] = -1;
    v1[off + 1] = 0;
    v2[off + 1] = 0;
    for (d = 0; d < maxd; d++) {
        c->budget -= 2 * d + 2;
        if (c->budget < 0)
            return 1;
        for (k = -d + k1lo; k <= d - k1hi; k += 2) {
            i = off + k;
            if (k == -d || (k != d && v1[i - 1] < v1[i + 1]))
                x = v1[i + 1];
            else
                x = v1[i - 1] + 1;
            y = x - k;
            while (x < n && y < m && a[x] == b[y]) {
                x++;
                y++;
                c->budget--;
            }
            v1[i] = x;
            if (x > n)
                k1hi += 2;
            else if (y > m)
                k1lo += 2;
            else if (front) {
                long j = off + delta - k;

                if (j >= 0 && j < vlen && v2[j] != -1 && x >= n - v2[j]) {
                    *xs = x;
                    *ys = y;
                    goto found;
                }
            }
        }
        for (k = -d + k2lo; k <= d - k2hi; k += 2) {
            i = off + k;
            if (k == -d || (k != d && v2[i - 1] < v2[i + 1]))
                x = v2[i + 1];
            else
                x = v2[i - 1] + 1;
            y = x - k;
            while (x < n && y < m && a[n - x - 1] == b[m - y - 1]) {
                x++;
                y++;
                c->budget--;
            }
            v2[i] = x;
            if (x > n)
                k2hi += 2;
            else if (y > m)
                k2lo += 2;
            else if (!front) {
                long j = off + delta - k;

                if (j >= 0 && j < vlen && v1[j] != -1 && v1[j] >= n - x) {
                    *xs = v1[j];
                    *ys = v1[j] - (j - off);
                    goto found;
                }
            }
        }
    }
    return 1;
found:
    if (*xs < 0 || *xs > n || *ys < 0 || *ys > m || (*xs == 0 && *ys == 0) ||
        (*xs == n && *ys == m))
        return 1;
    *xs += a0;
    *ys += b0;
    return 0;
}

/* Mark the changed lines of a[a0..a1) against b[b0..b1). */
static void
compare(diff_ctx *c, long a0, long a1, long b0, long b1)
{
    long x, y;

    while (a0 < a1 && b0 < b1 && c->a[a0] == c->b[b0]) {
        a0++;
        b0++;
    }
    while (a0 < a1 && b0 < b1 && c->a[a1 - 1] == c->b[b1 - 1]) {
        a1--;
        b1--;
    }
    if (a0 == a1 || b0 == b1 || bisect(c, a0, a1, b0, b1, &x, &y) != 0) {
        memset(c->da + a0, 1, (size_t)(a1 - a0));
        memset(c->db + b0, 1, (size_t)(b1 - b0));
        return;
    }
    /* Each half holds about half of the edits: the depth is logarithmic. */
    compare(c, a0, x, b0, y);
    compare(c, x, a1, y, b1);
}

/* Find the changes; 0 or -1 (out of memory). */
static int
search(size_t *ia, size_t na, size_t *ib, size_t nb, unsigned char *da, unsigned char *db)
{
    diff_ctx c;
    size_t vn = na + nb + 4;

    c.a = ia;
    c.b = ib;
    c.da = da;
    c.db = db;
    c.budget = SEARCH_BUDGET;
    c.v1 = prop_malloc(vn * sizeof *c.v1);
    c.v2 = prop_malloc(vn * sizeof *c.v2);
    if (!c.v1 || !c.v2) {
        free(c.v1);
        free(c.v2);
        return -1;
    }
    compare(&c, 0, (long)na, 0, (long)nb);
    free(c.v1);
    free(c.v2);
    return 0;
}

static int
emit_line(prop_buf *o, char tag, const line *l)
{
    if (prop_buf_add(o, &tag, 1) < 0 || prop_buf_add(o, l->s, l->len) < 0)
        return -1;
    if (l->s[l->len - 1] != '\n')
        return prop_buf_adds(o, "\n\\ No newline at end of file\n");
    return 0;
}

/* "l,n" as diff -u shows a range: n omitted when 1, l the line before when n is 0. */
static int
emit_range(prop_buf *o, size_t start, size_t n)
{
    char buf[64];

    if (n == 1)
        snprintf(buf, sizeof buf, "%zu", start + 1);
    else
        snprintf(buf, sizeof buf, "%zu,%zu", n ? start + 1 : start, n);
    return prop_buf_adds(o, buf);
}

/* Write the hunks for the changes marked in da / db; base: the number of the first line. */
static int
emit(prop_buf *o, const line *la, size_t na, const unsigned char *da, const line *lb, size_t nb,
     const unsigned char *db, size_t base, unsigned context, const char *la_label,
     const char *lb_label)
{
    block *bl;
    size_t nbl = 0, i = 0, j = 0, h, last, a, b, as, ae, bs, be;

    bl = prop_malloc((na + nb + 1) * sizeof *bl);
    if (!bl)
        return -1;
    while (i < na || j < nb) {
        size_t ci = i, cj = j;

        if (i < na && j < nb && !da[i] && !db[j]) {
            i++;
            j++;
            continue;
        }
        while (i < na && da[i])
            i++;
        while (j < nb && db[j])
            j++;
        if (i == ci && j == cj)
            break; /* cannot happen: unmarked lines pair up */
        bl[nbl].a0 = ci;
        bl[nbl].a1 = i;
        bl[nbl].b0 = cj;
        bl[nbl].b1 = j;
        nbl++;
    }
    if (nbl > 0 && (prop_buf_adds(o, "--- ") < 0 || prop_buf_adds(o, la_label) < 0 ||
                    prop_buf_adds(o, "\n+++ ") < 0 || prop_buf_adds(o, lb_label) < 0 ||
                    prop_buf_adds(o, "\n") < 0))
        goto oom;
    for (h = 0; h < nbl; h = last + 1) {
        last = h;
        while (last + 1 < nbl && bl[last + 1].a0 - bl[last].a1 <= 2 * (size_t)context)
            last++;
        as = bl[h].a0 > context ? bl[h].a0 - context : 0;
        bs = bl[h].b0 - (bl[h].a0 - as);
        ae = na - bl[last].a1 > context ? bl[last].a1 + context : na;
        be = bl[last].b1 + (ae - bl[last].a1);
        if (prop_buf_adds(o, "@@ -") < 0 || emit_range(o, base + as, ae - as) < 0 ||
            prop_buf_adds(o, " +") < 0 || emit_range(o, base + bs, be - bs) < 0 ||
            prop_buf_adds(o, " @@\n") < 0)
            goto oom;
        a = as;
        b = bs;
        for (i = h; i <= last; i++) {
            for (; a < bl[i].a0; a++, b++)
                if (emit_line(o, ' ', &la[a]) < 0)
                    goto oom;
            for (; a < bl[i].a1; a++)
                if (emit_line(o, '-', &la[a]) < 0)
                    goto oom;
            for (; b < bl[i].b1; b++)
                if (emit_line(o, '+', &lb[b]) < 0)
                    goto oom;
        }
        for (; a < ae; a++)
            if (emit_line(o, ' ', &la[a]) < 0)
                goto oom;
    }
    free(bl);
    return 0;
oom:
    free(bl);
    return -1;
}

int
prop_diff_unified(const char *old, size_t old_len, const char *new_, size_t new_len,
                  const char *old_label, const char *new_label, unsigned context, char **out,
                  size_t *out_len)
{
    size_t pa = 0, pb = 0, ea = old_len, eb = new_len, qa, qb, pre = 0, suf = 0, cpre, csuf;
    size_t na, nb, *ia = NULL, *ib = NULL;
    line *la = NULL, *lb = NULL;
    unsigned char *da = NULL, *db = NULL;
    prop_buf o = PROP_BUF_INIT;
    int rc = PROP_ENOMEM;

    if (out)
        *out = NULL;
    if (out_len)
        *out_len = 0;
    if (!out || !out_len || (!old && old_len) || (!new_ && new_len))
        return PROP_EINVAL;
    if (!old)
        old = "";
    if (!new_)
        new_ = "";
    if (!old_label)
        old_label = "a";
    if (!new_label)
        new_label = "b";

    /* 1. Shared lines at the start and at the end. */
    while (pa < old_len && pb < new_len) {
        qa = line_end(old, pa, old_len);
        qb = line_end(new_, pb, new_len);
        if (qa - pa != qb - pb || memcmp(old + pa, new_ + pb, qa - pa) != 0)
            break;
        pa = qa;
        pb = qb;
        pre++;
    }
    if (pa == old_len && pb == new_len)
        return PROP_OK; /* equal */
    while (ea > pa && eb > pb) {
        qa = line_start(old, pa, ea);
        qb = line_start(new_, pb, eb);
        if (ea - qa != eb - qb || memcmp(old + qa, new_ + qb, ea - qa) != 0)
            break;
        ea = qa;
        eb = qb;
        suf++;
    }
    /* ... keeping context lines of them. */
    for (cpre = 0; cpre < context && cpre < pre; cpre++) {
        pa = line_start(old, 0, pa);
        pb = line_start(new_, 0, pb);
    }
    for (csuf = 0; csuf < context && csuf < suf; csuf++) {
        ea = line_end(old, ea, old_len);
        eb = line_end(new_, eb, new_len);
    }

    /* 2. The lines left, and which of them changed. */
    na = count_lines(old, pa, ea);
    nb = count_lines(new_, pb, eb);
    la = prop_malloc((na + 1) * sizeof *la);
    lb = prop_malloc((nb + 1) * sizeof *lb);
    da = prop_calloc(na + 1, 1);
    db = prop_calloc(nb + 1, 1);
    if (!la || !lb || !da || !db)
        goto out;
    split_lines(old, pa, ea, la);
    split_lines(new_, pb, eb, lb);
    if (na + nb <= (size_t)MAX_SEARCH_LINES) {
        ia = prop_malloc((na + 1) * sizeof *ia);
        ib = prop_malloc((nb + 1) * sizeof *ib);
        if (!ia || !ib || number_lines(la, na, lb, nb, ia, ib) != 0 ||
            search(ia, na, ib, nb, da, db) != 0)
            goto out;
    } else {
        /* Too big to search: all but the kept context is replaced. */
        memset(da + cpre, 1, na - cpre - csuf);
        memset(db + cpre, 1, nb - cpre - csuf);
    }

    /* 3. The hunks. */
    if (emit(&o, la, na, da, lb, nb, db, pre - cpre, context, old_label, new_label) != 0)
        goto out;
    *out = o.p;
    *out_len = o.len;
    o.p = NULL;
    rc = PROP_OK;
out:
    prop_buf_free(&o);
    free(la);
    free(lb);
    free(da);
    free(db);
    free(ia);
    free(ib);
    return rc;
}
