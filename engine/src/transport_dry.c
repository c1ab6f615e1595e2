/*
 * transport_dry.c - dry runs and diffs as one layer, a transport over
 * another (prop_transport_dry()): what only looks, commands, the lock and
 * sync go through to the inner transport; a write, remove, mkdir,
 * symlink or chattr is said instead of made (PROP_DRY_RUN), or made and
 * said (PROP_DRY_DIFF), with a unified diff of every write under
 * PROP_DRY_DIFF.  prop_transport_write_secret() is here too: only this
 * transport treats a secret's content apart.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "prop/diff.h"
#include "transport_impl.h"

typedef struct dry_tr {
    prop_transport base;
    prop_transport *inner; /* not owned: it outlives this one */
    int flags;             /* PROP_DRY_RUN, PROP_DRY_DIFF */
    prop_dry_note_fn note;
    void *ud;
    /* base.changes when the last command came: prop_transport_run()
     * bumps it before it calls run, prop_transport_query() does not. */
    unsigned long runs;
} dry_tr;

static void notef(dry_tr *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
notef(dry_tr *d, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    d->note(d->ud, PROP_DRY_NOTE_LINE, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* What inner answered, its reason taken as this one's. */
static int
through(dry_tr *d, int rc)
{
    memcpy(d->base.err, d->inner->err, sizeof d->base.err);
    return rc;
}

/* Diff of what path holds now against content, as a note. */
static void
note_diff(dry_tr *d, const char *path, const char *content, size_t len, int secret)
{
    char *old = NULL, *diff = NULL;
    size_t oldlen = 0, dlen = 0;
    char a[1100], b[1100];
    int rc;

    if (secret) {
        notef(d, "%s: secret content, diff not shown", path);
        return;
    }
    rc = prop_transport_read(d->inner, path, &old, &oldlen);
    if (rc != PROP_OK && rc != PROP_ENOTFOUND) {
        notef(d, "%s: cannot read the old content for a diff: %s", path,
              prop_transport_error(d->inner));
        return;
    }
    snprintf(a, sizeof a, "%s%s", rc == PROP_ENOTFOUND ? "/dev/null" : "a",
             rc == PROP_ENOTFOUND ? "" : path);
    snprintf(b, sizeof b, "b%s", path);
    if (prop_diff_unified(old ? old : "", oldlen, content, len, a, b, 3, &diff, &dlen) != PROP_OK)
        notef(d, "%s: no memory for a diff", path);
    else if (diff && dlen)
        d->note(d->ud, PROP_DRY_NOTE_DIFF, diff, dlen);
    free(diff);
    free(old);
}

/* A write; data is NULL only for a secret not made for a dry run. */
static int
write_as(dry_tr *d, const char *path, const char *data, size_t len, const prop_file_attrs *attrs,
         int secret)
{
    if (!data && !(d->flags & PROP_DRY_RUN))
        return PROP_EINVAL;
    if (d->flags & PROP_DRY_DIFF)
        note_diff(d, path, data, len, secret);
    if (d->flags & PROP_DRY_RUN) {
        if (!data)
            notef(d, "would write %s (a secret)", path);
        else
            notef(d, "would write %s (%zu bytes)", path, len);
        return PROP_OK;
    }
    return through(d, secret ? prop_transport_write_secret(d->inner, path, data, len, attrs)
                             : prop_transport_write(d->inner, path, data, len, attrs));
}

static int
dry_run(prop_transport *t, const char *const *argv, const char *in, size_t inlen,
        prop_cmd_result *r)
{
    dry_tr *d = (dry_tr *)t;
    int query = t->changes == d->runs;

    d->runs = t->changes;
    return through(d, query ? prop_transport_query(d->inner, argv, in, inlen, r)
                            : prop_transport_run(d->inner, argv, in, inlen, r));
}

static int
dry_read(prop_transport *t, const char *path, char **data, size_t *len)
{
    dry_tr *d = (dry_tr *)t;

    return through(d, prop_transport_read(d->inner, path, data, len));
}

static int
dry_write(prop_transport *t, const char *path, const char *data, size_t len,
          const prop_file_attrs *attrs)
{
    return write_as((dry_tr *)t, path, data, len, attrs, 0);
}

static int
dry_stat(prop_transport *t, const char *path, prop_file_stat *st)
{
    dry_tr *d = (dry_tr *)t;

    return through(d, prop_transport_stat(d->inner, path, st));
}

static int
dry_remove(prop_transport *t, const char *path)
{
    dry_tr *d = (dry_tr *)t;
    int rc;

    if (d->flags & PROP_DRY_RUN) {
        notef(d, "would remove %s", path);
        return PROP_OK;
    }
    rc = through(d, prop_transport_remove(d->inner, path));
    if (rc == PROP_OK && (d->flags & PROP_DRY_DIFF))
        notef(d, "removed %s", path);
    return rc;
}

static int
dry_mkdir(prop_transport *t, const char *path, const prop_file_attrs *attrs)
{
    dry_tr *d = (dry_tr *)t;

    if (d->flags & PROP_DRY_RUN) {
        notef(d, "would make directory %s", path);
        return PROP_OK;
    }
    return through(d, prop_transport_mkdir(d->inner, path, attrs));
}

static int
dry_symlink(prop_transport *t, const char *target, const char *link)
{
    dry_tr *d = (dry_tr *)t;
    int rc;

    if (d->flags & PROP_DRY_RUN) {
        notef(d, "would link %s -> %s", link, target);
        return PROP_OK;
    }
    rc = through(d, prop_transport_symlink(d->inner, target, link));
    if (rc == PROP_OK && (d->flags & PROP_DRY_DIFF))
        notef(d, "linked %s -> %s", link, target);
    return rc;
}

static int
dry_chattr(prop_transport *t, const char *path, const prop_file_attrs *attrs)
{
    dry_tr *d = (dry_tr *)t;
    int dry = d->flags & PROP_DRY_RUN;

    if (d->flags & (PROP_DRY_RUN | PROP_DRY_DIFF)) {
        char m[24] = "";

        if (attrs->mode >= 0)
            snprintf(m, sizeof m, " mode %04o", (unsigned)attrs->mode);
        notef(d, "%s %s%s%s%s%s%s", dry ? "would set" : "set", path, m,
              attrs->owner ? " owner " : "", attrs->owner ? attrs->owner : "",
              attrs->group ? " group " : "", attrs->group ? attrs->group : "");
    }
    if (dry)
        return PROP_OK;
    return through(d, prop_transport_chattr(d->inner, path, attrs));
}

static int
dry_lock(prop_transport *t)
{
    dry_tr *d = (dry_tr *)t;

    return through(d, prop_transport_lock(d->inner));
}

static void
dry_close(prop_transport *t)
{
    free(t);
}

static int
dry_prefetch(prop_transport *t, const char *const *paths, size_t npaths)
{
    dry_tr *d = (dry_tr *)t;

    return through(d, prop_transport_prefetch(d->inner, paths, npaths));
}

static int
dry_sync(prop_transport *t)
{
    dry_tr *d = (dry_tr *)t;

    return through(d, prop_transport_sync(d->inner));
}

/* A probe only looks: it goes through. */
static int
dry_tcp(prop_transport *t, const prop_tcp_req *req, char **out, size_t *out_len)
{
    dry_tr *d = (dry_tr *)t;

    return through(d, prop_transport_tcp(d->inner, req, out, out_len));
}

static const prop_transport_ops dry_ops = {
    .run = dry_run,
    .read = dry_read,
    .write = dry_write,
    .stat = dry_stat,
    .remove = dry_remove,
    .mkdir = dry_mkdir,
    .symlink = dry_symlink,
    .chattr = dry_chattr,
    .lock = dry_lock,
    .close = dry_close,
    .prefetch = dry_prefetch,
    .sync = dry_sync,
    .tcp = dry_tcp,
};

int
prop_transport_dry(prop_transport **out, prop_transport *inner, int flags, prop_dry_note_fn note,
                   void *ud)
{
    dry_tr *d;

    if (!out)
        return PROP_EINVAL;
    *out = NULL;
    if (!inner || !note || (flags & ~(PROP_DRY_RUN | PROP_DRY_DIFF)))
        return PROP_EINVAL;
    if (!(d = prop_calloc(1, sizeof *d)))
        return PROP_ENOMEM;
    d->base.ops = &dry_ops;
    memcpy(d->base.name, inner->name, sizeof d->base.name);
    d->inner = inner;
    d->flags = flags;
    d->note = note;
    d->ud = ud;
    *out = &d->base;
    return PROP_OK;
}

int
prop_transport_write_secret(prop_transport *t, const char *path, const char *data, size_t len,
                            const prop_file_attrs *attrs)
{
    if (!t || !path || (!data && len))
        return PROP_EINVAL;
    if (t->ops == &dry_ops)
        return write_as((dry_tr *)t, path, data, len, attrs, 1);
    if (!data)
        return PROP_EINVAL;
    return prop_transport_write(t, path, data, len, attrs);
}
