/*
 * transport_local_impl.h - what the parts of the local and directory-tree
 * transport share: its state (local_transport) and the calls from one
 * part to another.
 *
 *   transport_local.c        the file operations, the run lock, making
 *                            and closing
 *   transport_local_paths.c  paths: a tree's paths mapped below its root
 *   transport_local_names.c  users and groups, and the cache of their names
 *   transport_local_sync.c   the directories to sync (the dirty set)
 *   transport_local_run.c    commands
 *
 * The functions the parts share are named prop_local_*, out of the way of
 * the other transports'.
 */
#ifndef PROP_TRANSPORT_LOCAL_IMPL_H
#define PROP_TRANSPORT_LOCAL_IMPL_H

#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "transport_impl.h"

typedef struct local_transport {
    prop_transport base;
    char *root;      /* tree: the realpath of the root; NULL for this machine */
    int root_fd;     /* tree: the root, O_PATH (every path is opened from it); else -1 */
    int no_openat2;  /* resolve by walking (openat2(2) missing, or PROP_NO_OPENAT2 set) */
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
int prop_local_tree_path(local_transport *lt, const char *op, const char *path, int follow_last,
                         char *out);
/* The host path (PATH_MAX bytes) for a path given to the transport. */
int prop_local_host_path(local_transport *lt, const char *op, const char *path, int follow_last,
                         char *out);
/* Split host path hp into its directory (PATH_MAX bytes) and last
 * component, refusing the root itself and names that are no file name. */
int prop_local_split_path(local_transport *lt, const char *op, const char *path, const char *hp,
                          char *dir, const char **base);
/* A path given to the transport is one it can take: 0, or PROP_ERROR with the reason set. */
int prop_local_tree_check(local_transport *lt, const char *op, const char *path);
/*
 * Open the directory that holds path's last component as *dirfd (O_PATH,
 * the caller closes it) and copy that component to name (NAME_MAX + 1
 * bytes), for the *at() calls.  For a tree every component is resolved
 * inside the root however the tree changes meanwhile (openat2(2) with
 * RESOLVE_IN_ROOT, or a walk by descriptor that follows no link it has
 * not read itself), so nothing opened from *dirfd is outside the tree.
 * When follow_last, a final symbolic link is followed (the same way):
 * name is then no link, unless it was swapped for one since, which the
 * caller's O_NOFOLLOW / AT_SYMLINK_NOFOLLOW refuses.  A path that names
 * a directory as "/", "." or ".." gives that directory and name ".".
 * 0 or errno.
 */
int prop_local_at_path(local_transport *lt, const char *path, int follow_last, int *dirfd,
                       char *name);
/* The message for a failure on the parent directory of path. */
int prop_local_parent_error(local_transport *lt, const char *op, const char *path, int err);

/* transport_local.c */
/* Read a whole open file into a malloc'd buffer, NUL-terminated. 0 or errno. */
int prop_local_read_fd(int fd, char **data, size_t *len);

/* transport_local_names.c */
/* The name of a uid or gid on the target, or the id in decimal. */
void prop_local_id_name(local_transport *lt, int group, unsigned long id, char *out, size_t size);
/* Forget the cached names (the account databases may have changed). */
void prop_local_forget_names(local_transport *lt);
/* attrs' owner and group as ids, (uid_t)-1 / (gid_t)-1 when not given; the mode checked. */
int prop_local_attr_ids(local_transport *lt, const char *op, const char *path,
                        const prop_file_attrs *a, uid_t *uid, gid_t *gid);

/* transport_local_sync.c */
/* The FNV-1a hash of a string. */
uint64_t prop_local_fnv1a64(const char *s);
/* Sync every directory of the dirty set, then empty it: the first failure. */
int prop_local_sync_dirty(local_transport *lt);
/* The entries of directory dir (a host path) changed: it is synced with the
 * others by prop_local_sync_dirty(), or now when it cannot be remembered
 * (out of memory): 0 or errno. */
int prop_local_dirty_add(local_transport *lt, const char *dir);

/* transport_local_run.c */
/* The transport's run operation (see prop_transport_run()). */
int prop_local_lt_run(prop_transport *t, const char *const *argv, const char *stdin_data,
                      size_t stdin_len, prop_cmd_result *r);

#endif /* PROP_TRANSPORT_LOCAL_IMPL_H */
