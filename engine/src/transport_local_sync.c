/*
 * transport_local_sync.c - the directories of the local and
 * directory-tree transport whose entries changed since the last sync (the
 * dirty set), each synced once however many files were written in it
 * (see prop_transport_sync()).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "internal.h"
#include "transport_local_impl.h"

uint64_t
prop_local_fnv1a64(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;

    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ULL;
    }
    return h;
}

int
prop_sync_dir(const char *dir)
{
    int fd, e = 0;

    do
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return errno;
    if (fsync(fd) != 0 && errno != EINVAL && errno != EROFS)
        e = errno;
    if (close(fd) != 0 && !e && errno != EINTR)
        e = errno;
    return e;
}

/* Whether directory dir (a host path) is in the dirty set. */
static int
dirty_has(const local_transport *lt, const char *dir)
{
    size_t j;

    if (!lt->dirty_cap)
        return 0;
    for (j = (size_t)prop_local_fnv1a64(dir) & (lt->dirty_cap - 1); lt->dirty[j];
         j = (j + 1) & (lt->dirty_cap - 1))
        if (strcmp(lt->dirty[j], dir) == 0)
            return 1;
    return 0;
}

/*
 * Whether dir (a host path), gone or no longer a directory, went with a
 * change this transport made: the nearest directory above it that still
 * exists is in the dirty set (a remove or a replace marks the parent),
 * and its sync makes the change last.  Anything else (moved away behind
 * prop's back, under a directory prop did not touch) is not forgiven.
 */
static int
gone_under_dirty(const local_transport *lt, const char *dir)
{
    char up[PATH_MAX];
    size_t n = strlen(dir);
    char *slash;
    struct stat st;

    if (n >= sizeof up)
        return 0;
    memcpy(up, dir, n + 1);
    while ((slash = strrchr(up, '/')) != NULL) {
        if (slash == up)
            return dirty_has(lt, "/");
        *slash = '\0';
        if (dirty_has(lt, up))
            return 1;
        if (lstat(up, &st) == 0 || (errno != ENOENT && errno != ENOTDIR))
            return 0;
    }
    return 0;
}

/*
 * Sync every directory of the dirty set, then empty it: the first failure.
 * A directory that is gone, or is now a file or a link to nothing, was
 * removed or replaced by this transport when the nearest directory above
 * it is in the set (gone_under_dirty): that sync makes the change last,
 * and there is nothing left to sync.  The last component is followed: a
 * file written through a link to a directory marks the link's name, and
 * the directory it names is the one synced.
 */
int
prop_local_sync_dirty(local_transport *lt)
{
    size_t i;
    int e, rc = PROP_OK;

    for (i = 0; i < lt->dirty_cap; i++) {
        const char *dir = lt->dirty[i];

        if (!dir)
            continue;
        if (((e = prop_sync_dir(dir)) == ENOENT || e == ENOTDIR) && gone_under_dirty(lt, dir))
            e = 0;
        if (e != 0 && rc == PROP_OK) {
            const char *shown = dir + lt->plen;

            rc = prop_transport_fail(&lt->base, "sync %s: %s", *shown ? shown : "/", strerror(e));
        }
    }
    for (i = 0; i < lt->dirty_cap; i++) {
        free(lt->dirty[i]);
        lt->dirty[i] = NULL;
    }
    lt->ndirty = 0;
    return rc;
}

/* Grow the dirty set to cap slots (a power of two): 0 or ENOMEM. */
static int
dirty_grow(local_transport *lt, size_t cap)
{
    char **slots = prop_calloc(cap, sizeof *slots), **old = lt->dirty;
    size_t i, j;

    if (!slots)
        return ENOMEM;
    for (i = 0; i < lt->dirty_cap; i++) {
        if (!old[i])
            continue;
        for (j = (size_t)prop_local_fnv1a64(old[i]) & (cap - 1); slots[j];
             j = (j + 1) & (cap - 1)) {
        }
        slots[j] = old[i];
    }
    free(old);
    lt->dirty = slots;
    lt->dirty_cap = cap;
    return 0;
}

/*
 * The entries of directory dir (a host path) changed: it is synced with the
 * others by prop_local_sync_dirty().  When it cannot be remembered (out of
 * memory) it is synced now: 0 or errno.
 */
int
prop_local_dirty_add(local_transport *lt, const char *dir)
{
    size_t j;

    if ((lt->ndirty + 1) * 2 > lt->dirty_cap &&
        dirty_grow(lt, lt->dirty_cap ? lt->dirty_cap * 2 : 16) != 0)
        return prop_sync_dir(dir);
    for (j = (size_t)prop_local_fnv1a64(dir) & (lt->dirty_cap - 1); lt->dirty[j];
         j = (j + 1) & (lt->dirty_cap - 1))
        if (strcmp(lt->dirty[j], dir) == 0)
            return 0;
    if (!(lt->dirty[j] = prop_strdup(dir)))
        return prop_sync_dir(dir);
    lt->ndirty++;
    return 0;
}
