/*
 * transport_local_impl.h - what the parts of the local and directory-tree
 * transport share: its state (local_transport) and the calls from one
 * part to another.
 *
 *   transport_local.c        the file operations, the run lock, making
 *                            and closing
 *   transport_local_paths.c  paths: a tree's paths mapped below its root
 */
#ifndef PROP_TRANSPORT_LOCAL_IMPL_H
#define PROP_TRANSPORT_LOCAL_IMPL_H

#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "transport_impl.h"

/* Internal names, kept out of the way of the other transports'. */
#define tree_path prop_local_tree_path
#define host_path prop_local_host_path
#define split_path prop_local_split_path
#define confine prop_local_confine
#define parent_error prop_local_parent_error

typedef struct local_transport {
    prop_transport base;
    char *root;      /* tree: the realpath of the root; NULL for this machine */
    size_t plen;     /* bytes of root put before a path: 0 when root is "/" */
    int broken;      /* the tree could not be opened: every call fails */
    int lock_fd;     /* -1 until the run lock is taken */
    char *lock_path; /* malloc'd, with lock_fd */
    /*
     * Names of the ids stat() met lately: reading the account databases
     * for every stat cost more than the rest of a converged file check.
     * Emptied by every command run and file write, which may change them.
     */
    struct {
        int used, group;
        unsigned long id;
        char name[64];
    } names[8];
    unsigned next_name;
    struct stat db_seen[2]; /* /etc/passwd and /etc/group when the names were cached */
    /*
     * What remove_stale() found in the directory it read last: the entries
     * named as temporary files (of any path), read once for all the writes
     * in that directory until a command runs (base.changes).
     */
    char *stale_dir;
    struct stale_entry {
        char *name;
        int link;
        uid_t uid;
    } * stale;
    size_t nstale;
    unsigned long stale_changes;
    /*
     * The directories whose entries changed since the last sync (host
     * paths, malloc'd), a set by hash: each is synced once however many
     * files were written in it (see prop_transport_sync()).
     */
    char **dirty;
    size_t ndirty, dirty_cap;
} local_transport;

static inline local_transport *
lt_of(prop_transport *t)
{
    return (local_transport *)t;
}

/* Set the error for a missing path and return PROP_ENOTFOUND. */
static inline int
not_found(local_transport *lt, const char *op, const char *path)
{
    prop_transport_fail(&lt->base, "%s %s: no such file or directory", op, path);
    return PROP_ENOTFOUND;
}

static inline int
fail_errno(local_transport *lt, const char *op, const char *path, int err)
{
    return prop_transport_fail(&lt->base, "%s %s: %s", op, path, strerror(err));
}

/* transport_local_paths.c */
/*
 * Map path (absolute, without "..") to the host path below the root in
 * out (PATH_MAX bytes), following links as a chroot would.  The last
 * component is followed only when follow_last.
 */
int tree_path(local_transport *lt, const char *op, const char *path, int follow_last, char *out);
int host_path(local_transport *lt, const char *op, const char *path, int follow_last, char *out);
int split_path(local_transport *lt, const char *op, const char *path, const char *hp, char *dir,
               const char **base);
int confine(local_transport *lt, const char *op, const char *path, const char *hp);
int parent_error(local_transport *lt, const char *op, const char *path, int err);

#endif /* PROP_TRANSPORT_LOCAL_IMPL_H */
