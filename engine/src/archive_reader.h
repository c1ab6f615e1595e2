/*
 * archive_reader.h - reading tar (plain, gzip, bzip2, xz, zstd) and zip archives
 * on this machine with libarchive, entry by entry, for archive.extracted
 * (through prop.core in bindings/): prop reads the archive itself and the
 * target needs no tar.
 *
 * Every entry is checked before it is given out: a path that is absolute
 * or holds a ".." component, a path below a symbolic link an earlier
 * entry made (writing it would write through the link), and a hard link
 * to anything but an earlier entry are refused, naming the archive and
 * the entry.  A corrupt or truncated archive is an error naming both too.
 */
#ifndef PROP_ARCHIVE_READER_H
#define PROP_ARCHIVE_READER_H

#include <stddef.h>

typedef enum prop_ar_type {
    PROP_AR_FILE = 1,
    PROP_AR_DIR,
    PROP_AR_SYMLINK,
    PROP_AR_HARDLINK
} prop_ar_type;

/* What to give out: strip leading path components (an entry stripped to
 * nothing is skipped); skip entries whose path, or a directory above it,
 * matches one of the exclude globs (fnmatch(3), "*" matches "/" too);
 * refuse an entry whose content is larger than max_entry bytes, or an
 * archive whose contents add up to more than max_total (0: no limit). */
typedef struct prop_ar_opts {
    unsigned strip;
    const char *const *exclude;
    size_t nexclude;
    size_t max_entry;
    size_t max_total;
} prop_ar_opts;

/* One entry; its strings and data belong to the reader and hold until
 * the next prop_archive_next or prop_archive_close. */
typedef struct prop_ar_entry {
    const char *path; /* relative, normalised ("a/b"), after strip */
    prop_ar_type type;
    unsigned mode; /* permission bits, 07777 */
    long long uid, gid;
    const char *uname, *gname; /* "" when the archive names none */
    long long size;            /* of the content (0 but for files) */
    const char *link;          /* a symlink's target as stored, or a hard
                                  link's earlier entry (stripped); else NULL */
    const unsigned char *data; /* a file's content, len bytes */
    size_t len;
} prop_ar_entry;

typedef struct prop_archive prop_archive;

/*
 * Open the archive file path, or the bytes buf[0..len) (which must stay
 * until close) named name in messages.  0 and *out set, or -1 with why in
 * err (errlen bytes): the archive cannot be opened or is none.  o may be
 * NULL (no strip, no exclude, no limits); it is copied.
 */
int prop_archive_open_file(prop_archive **out, const char *path, const prop_ar_opts *o, char *err,
                           size_t errlen);
int prop_archive_open_memory(prop_archive **out, const char *name, const void *buf, size_t len,
                             const prop_ar_opts *o, char *err, size_t errlen);

/* The next entry: 1 with *e filled, 0 at the end, -1 with
 * prop_archive_error() saying why (the archive, the entry, what is
 * wrong); after -1 the reader gives nothing more. */
int prop_archive_next(prop_archive *a, prop_ar_entry *e);
const char *prop_archive_error(const prop_archive *a);

void prop_archive_close(prop_archive *a);

#endif /* PROP_ARCHIVE_READER_H */
