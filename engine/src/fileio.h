/*
 * fileio.h - whole reads and writes of a file descriptor: the one
 * read-until-end and the one write-it-all of engine and bindings.
 */
#ifndef PROP_FILEIO_H
#define PROP_FILEIO_H

#include <stddef.h>

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

#endif /* PROP_FILEIO_H */
