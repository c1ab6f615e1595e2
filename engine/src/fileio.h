/*
 * fileio.h - whole reads and writes of a file descriptor: the one
 * read-until-end and the one write-it-all of engine and bindings, and the
 * one atomic writer of a file of this machine.
 */
#ifndef PROP_FILEIO_H
#define PROP_FILEIO_H

#include <stddef.h>
#include <sys/types.h>

#include "buf.h"

/*
 * Read fd to its end, appending to b (NUL-terminated as ever).  0, or an
 * errno: EFBIG when b would hold more than max bytes (0: no limit; what
 * was read up to then stays in b), ENOMEM, or read's.  EINTR is retried.
 */
int prop_read_all(int fd, prop_buf *b, size_t max);

/* Write all of data to fd, in pieces of at most 1 GiB: 0, or an errno
 * (EIO when write writes nothing).  EINTR is retried. */
int prop_write_all(int fd, const void *data, size_t len);

/* Where prop_write_file_atomic failed, for the caller's words. */
typedef enum prop_atomic_stage {
    PROP_ATOMIC_TEMP = 1, /* no temporary file could be made beside the file */
    PROP_ATOMIC_WRITE,    /* writing, syncing or renaming it: the file is as it was */
    PROP_ATOMIC_DIR       /* the file is written, but syncing its directory failed */
} prop_atomic_stage;

/*
 * The one atomic writer of a file of this machine (the transports' own
 * write does the same on a target): len bytes of data become the file at
 * path whole, or path stays as it was.  A temporary ".NAME.XXXXXX" beside
 * it (a name no reader's pattern takes: not *.prom, not *.json) is written,
 * given mode, and owner uid:gid unless uid is (uid_t)-1 (a refusal, EPERM,
 * leaves the writer's), synced, renamed over path, and the directory
 * synced.  The temporary is never left behind.  0, or an errno with *stage
 * set.
 */
int prop_write_file_atomic(const char *path, const void *data, size_t len, mode_t mode, uid_t uid,
                           gid_t gid, prop_atomic_stage *stage);

#endif /* PROP_FILEIO_H */
