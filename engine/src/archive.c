/*
 * archive.c - tar and zip archives read with libarchive, entry by entry,
 * each checked before it is given out (archive_reader.h).
 *
 * Formats: tar (every variant libarchive reads: ustar, pax, GNU) and zip;
 * filters: gzip, bzip2, xz, lzma and zstd.  Not "all": some of
 * libarchive's formats (mtree) read other files of this machine, and some
 * filters run external programs.
 */
#include <archive.h>
#include <archive_entry.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "archive_reader.h"

struct prop_archive {
    struct archive *ar;
    char *name;  /* as messages name the archive */
    char **excl; /* the exclude globs, copied */
    size_t nexcl;
    unsigned strip;
    size_t max_entry, max_total, total;
    char *path; /* the current entry's, normalised */
    char *link; /* its link target (stripped, for a hard link) */
    unsigned char *data;
    size_t cap;
    char **symlinks; /* the symbolic links given out so far */
    size_t nsym, capsym;
    char **files; /* the files given out so far (hard links name one) */
    size_t nfiles, capfiles;
    int failed;
    char err[1024];
};

static void fail(prop_archive *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
fail(prop_archive *a, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    (void)vsnprintf(a->err, sizeof a->err, fmt, ap);
    va_end(ap);
    a->failed = 1;
}

const char *
prop_archive_error(const prop_archive *a)
{
    return a->err;
}

static void
free_list(char **l, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        free(l[i]);
    free(l);
}

void
prop_archive_close(prop_archive *a)
{
    if (a == NULL)
        return;
    if (a->ar)
        (void)archive_read_free(a->ar);
    free(a->name);
    free_list(a->excl, a->nexcl);
    free(a->path);
    free(a->link);
    free(a->data);
    free_list(a->symlinks, a->nsym);
    free_list(a->files, a->nfiles);
    free(a);
}

static prop_archive *
make(const char *name, const prop_ar_opts *o, char *err, size_t errlen)
{
    prop_archive *a = prop_calloc(1, sizeof *a);
    size_t i;

    if (a == NULL)
        goto oom;
    a->name = prop_strdup(name);
    if (a->name == NULL)
        goto oom;
    if (o) {
        a->strip = o->strip;
        a->max_entry = o->max_entry;
        a->max_total = o->max_total;
        if (o->nexclude) {
            a->excl = prop_calloc(o->nexclude, sizeof *a->excl);
            if (a->excl == NULL)
                goto oom;
            for (i = 0; i < o->nexclude; i++) {
                a->excl[i] = prop_strdup(o->exclude[i]);
                if (a->excl[i] == NULL) {
                    a->nexcl = i;
                    goto oom;
                }
            }
            a->nexcl = o->nexclude;
        }
    }
    a->ar = archive_read_new();
    if (a->ar == NULL)
        goto oom;
    /* Each support call fails only when out of memory (or the library
     * lacks the format; a filter without its library falls back to a
     * program, which ARCHIVE_WARN says and is accepted). */
    if (archive_read_support_filter_gzip(a->ar) < ARCHIVE_WARN ||
        archive_read_support_filter_bzip2(a->ar) < ARCHIVE_WARN ||
        archive_read_support_filter_xz(a->ar) < ARCHIVE_WARN ||
        archive_read_support_filter_lzma(a->ar) < ARCHIVE_WARN ||
        archive_read_support_filter_zstd(a->ar) < ARCHIVE_WARN ||
        archive_read_support_format_tar(a->ar) != ARCHIVE_OK ||
        archive_read_support_format_gnutar(a->ar) != ARCHIVE_OK ||
        archive_read_support_format_zip(a->ar) != ARCHIVE_OK) {
        (void)snprintf(err, errlen, "%s: cannot set up the archive reader: %s", name,
                       archive_error_string(a->ar) ? archive_error_string(a->ar) : "?");
        prop_archive_close(a);
        return NULL;
    }
    return a;
oom:
    (void)snprintf(err, errlen, "%s: out of memory", name);
    prop_archive_close(a);
    return NULL;
}

static int
opened(prop_archive **out, prop_archive *a, int rc, char *err, size_t errlen)
{
    if (rc != ARCHIVE_OK) {
        const char *why = archive_error_string(a->ar);

        (void)snprintf(err, errlen, "%s: cannot open the archive: %s", a->name,
                       why ? why : "not a tar or zip archive");
        prop_archive_close(a);
        return -1;
    }
    *out = a;
    return 0;
}

int
prop_archive_open_file(prop_archive **out, const char *path, const prop_ar_opts *o, char *err,
                       size_t errlen)
{
    prop_archive *a = make(path, o, err, errlen);

    *out = NULL;
    if (a == NULL)
        return -1;
    return opened(out, a, archive_read_open_filename(a->ar, path, 65536), err, errlen);
}

int
prop_archive_open_memory(prop_archive **out, const char *name, const void *buf, size_t len,
                         const prop_ar_opts *o, char *err, size_t errlen)
{
    prop_archive *a = make(name, o, err, errlen);

    *out = NULL;
    if (a == NULL)
        return -1;
    /* libarchive's prototype takes a non-const pointer; it only reads. */
    return opened(out, a, archive_read_open_memory(a->ar, (void *)(uintptr_t)buf, len), err,
                  errlen);
}

/*
 * raw as a relative path of its components ("a/b": no "", "." or
 * leading "./"), with the first strip of them dropped: 1 and *out
 * (allocated), 0 when nothing is left, -1 with why set for an absolute
 * path or one with "..", -2 out of memory.
 */
static int
normalise(const char *raw, unsigned strip, char **out, const char **why)
{
    size_t n = strlen(raw), k = 0;
    unsigned comp = 0;
    const char *p = raw;
    char *s;

    *out = NULL;
    if (raw[0] == '/') {
        *why = "an absolute path";
        return -1;
    }
    s = prop_malloc(n + 1);
    if (s == NULL)
        return -2;
    while (*p) {
        size_t seg = strcspn(p, "/");

        if (seg == 2 && p[0] == '.' && p[1] == '.') {
            free(s);
            *why = "a \"..\" component";
            return -1;
        }
        if (seg > 0 && !(seg == 1 && p[0] == '.')) {
            if (comp++ >= strip) {
                if (k > 0)
                    s[k++] = '/';
                memcpy(s + k, p, seg);
                k += seg;
            }
        }
        p += seg;
        while (*p == '/')
            p++;
    }
    if (k == 0) {
        free(s);
        return 0;
    }
    s[k] = '\0';
    *out = s;
    return 1;
}

/* Whether path, or a directory above it, matches an exclude glob. */
static int
excluded(const prop_archive *a, const char *path)
{
    size_t i, n = strlen(path);
    char *cut;

    if (a->nexcl == 0)
        return 0;
    for (i = 0; i < a->nexcl; i++)
        if (fnmatch(a->excl[i], path, 0) == 0)
            return 1;
    /* The directories above: path cut at each '/'. */
    cut = prop_strdup(path);
    if (cut == NULL)
        return -1;
    while (n-- > 0) {
        if (cut[n] != '/')
            continue;
        cut[n] = '\0';
        for (i = 0; i < a->nexcl; i++)
            if (fnmatch(a->excl[i], cut, 0) == 0) {
                free(cut);
                return 1;
            }
    }
    free(cut);
    return 0;
}

static int
push(char ***l, size_t *n, size_t *cap, const char *s)
{
    char *d;

    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        char **nl = prop_realloc(*l, nc * sizeof *nl);

        if (nl == NULL)
            return -1;
        *l = nl;
        *cap = nc;
    }
    d = prop_strdup(s);
    if (d == NULL)
        return -1;
    (*l)[(*n)++] = d;
    return 0;
}

/* The earlier symbolic link path is below (writing it writes through
 * the link), or NULL. */
static const char *
under_symlink(const prop_archive *a, const char *path)
{
    size_t i;

    for (i = 0; i < a->nsym; i++) {
        size_t kl = strlen(a->symlinks[i]);

        if (strncmp(a->symlinks[i], path, kl) == 0 && path[kl] == '/')
            return a->symlinks[i];
    }
    return NULL;
}

static int
is_file(const prop_archive *a, const char *path)
{
    size_t i;

    for (i = 0; i < a->nfiles; i++)
        if (strcmp(a->files[i], path) == 0)
            return 1;
    return 0;
}

/* Read the current entry's content into a->data; -1 when it fails. */
static int
read_data(prop_archive *a, struct archive_entry *ent, prop_ar_entry *e)
{
    size_t len = 0;
    la_ssize_t r;

    if (archive_entry_size_is_set(ent) && archive_entry_size(ent) > 0 && a->max_entry &&
        (unsigned long long)archive_entry_size(ent) > a->max_entry) {
        fail(a, "%s: entry \"%s\" is %lld bytes, more than the limit of %zu", a->name, e->path,
             (long long)archive_entry_size(ent), a->max_entry);
        return -1;
    }
    for (;;) {
        if (a->cap - len < 65536) {
            size_t nc = a->cap ? a->cap * 2 : 65536;
            unsigned char *nd = prop_realloc(a->data, nc);

            if (nd == NULL) {
                fail(a, "%s: entry \"%s\": out of memory", a->name, e->path);
                return -1;
            }
            a->data = nd;
            a->cap = nc;
        }
        r = archive_read_data(a->ar, a->data + len, a->cap - len);
        if (r < 0) {
            const char *why = archive_error_string(a->ar);

            fail(a, "%s: entry \"%s\": %s (corrupt or cut short?)", a->name, e->path,
                 why ? why : "cannot read its content");
            return -1;
        }
        if (r == 0)
            break;
        len += (size_t)r;
        if (a->max_entry && len > a->max_entry) {
            fail(a, "%s: entry \"%s\" is more than the limit of %zu bytes", a->name, e->path,
                 a->max_entry);
            return -1;
        }
    }
    a->total += len;
    if (a->max_total && a->total > a->max_total) {
        fail(a, "%s: its contents add up to more than the limit of %zu bytes (at entry \"%s\")",
             a->name, a->max_total, e->path);
        return -1;
    }
    e->data = a->data;
    e->len = len;
    e->size = (long long)len;
    return 0;
}

int
prop_archive_next(prop_archive *a, prop_ar_entry *e)
{
    struct archive_entry *ent;
    const char *raw, *why = NULL;
    int r;

    if (a->failed)
        return -1;
    for (;;) {
        r = archive_read_next_header(a->ar, &ent);
        if (r == ARCHIVE_EOF)
            return 0;
        if (r < ARCHIVE_WARN || r == ARCHIVE_RETRY) {
            const char *msg = archive_error_string(a->ar);

            if (a->path)
                fail(a, "%s: after entry \"%s\": %s (corrupt or cut short?)", a->name, a->path,
                     msg ? msg : "cannot read the next entry");
            else
                fail(a, "%s: %s (corrupt, cut short, or not a tar or zip archive?)", a->name,
                     msg ? msg : "cannot read its first entry");
            return -1;
        }
        raw = archive_entry_pathname(ent);
        if (raw == NULL) {
            fail(a, "%s: an entry without a path (or one not readable in this locale)", a->name);
            return -1;
        }
        free(a->path);
        a->path = NULL;
        free(a->link);
        a->link = NULL;
        r = normalise(raw, a->strip, &a->path, &why);
        if (r == -2)
            goto oom;
        if (r == -1) {
            fail(a, "%s: entry \"%s\" is refused: %s", a->name, raw, why);
            return -1;
        }
        if (r == 0)
            continue;
        r = excluded(a, a->path);
        if (r < 0)
            goto oom;
        if (r == 1)
            continue;
        break;
    }
    memset(e, 0, sizeof *e);
    e->path = a->path;
    {
        const char *through = under_symlink(a, a->path);

        if (through) {
            fail(a,
                 "%s: entry \"%s\" is refused: it is below \"%s\", a symbolic link of the "
                 "archive, and would be written through it",
                 a->name, raw, through);
            return -1;
        }
    }
    e->mode = (unsigned)archive_entry_perm(ent) & 07777u;
    e->uid = (long long)archive_entry_uid(ent);
    e->gid = (long long)archive_entry_gid(ent);
    e->uname = archive_entry_uname(ent) ? archive_entry_uname(ent) : "";
    e->gname = archive_entry_gname(ent) ? archive_entry_gname(ent) : "";
    if (archive_entry_hardlink(ent) != NULL) {
        const char *hl = archive_entry_hardlink(ent);

        r = normalise(hl, a->strip, &a->link, &why);
        if (r == -2)
            goto oom;
        if (r != 1 || !is_file(a, a->link)) {
            fail(a,
                 "%s: entry \"%s\" is refused: a hard link to \"%s\", which is not a file "
                 "earlier in the archive",
                 a->name, raw, hl);
            return -1;
        }
        e->type = PROP_AR_HARDLINK;
        e->link = a->link;
        return 1;
    }
    switch (archive_entry_filetype(ent)) {
    case AE_IFREG:
        e->type = PROP_AR_FILE;
        if (read_data(a, ent, e) < 0)
            return -1;
        if (push(&a->files, &a->nfiles, &a->capfiles, a->path) < 0)
            goto oom;
        return 1;
    case AE_IFDIR:
        e->type = PROP_AR_DIR;
        return 1;
    case AE_IFLNK: {
        const char *t = archive_entry_symlink(ent);

        if (t == NULL || t[0] == '\0') {
            fail(a, "%s: entry \"%s\": a symbolic link without a target", a->name, raw);
            return -1;
        }
        a->link = prop_strdup(t);
        if (a->link == NULL)
            goto oom;
        if (push(&a->symlinks, &a->nsym, &a->capsym, a->path) < 0)
            goto oom;
        e->type = PROP_AR_SYMLINK;
        e->link = a->link;
        return 1;
    }
    default:
        fail(a,
             "%s: entry \"%s\" is refused: a device, FIFO or socket (only files, "
             "directories and links are extracted)",
             a->name, raw);
        return -1;
    }
oom:
    fail(a, "%s: out of memory", a->name);
    return -1;
}
