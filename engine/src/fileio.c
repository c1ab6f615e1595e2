/*
 * fileio.c - whole reads and writes of a file descriptor; see fileio.h.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "fileio.h"
#include "internal.h"

#define READ_CHUNK 4096

int
prop_read_all(int fd, prop_buf *b, size_t max)
{
    ssize_t r;
    size_t room;

    for (;;) {
        if (b->cap - b->len < READ_CHUNK && prop_buf_reserve(b, READ_CHUNK) != 0)
            return ENOMEM;
        room = b->cap - b->len - 1;
        if (max) {
            size_t left = max > b->len ? max - b->len : 0;

            /* One byte past max at most, to see that there is more. */
            if (room > left + 1)
                room = left + 1;
        }
        r = read(fd, b->p + b->len, room);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return errno;
        if (r == 0)
            return 0;
        if (max && b->len + (size_t)r > max) {
            b->p[b->len] = '\0';
            return EFBIG;
        }
        b->len += (size_t)r;
        b->p[b->len] = '\0';
    }
}

int
prop_write_all(int fd, const void *data, size_t len)
{
    const char *p = data;

    while (len > 0) {
        ssize_t w = write(fd, p, len > (1u << 30) ? (1u << 30) : len);

        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return errno;
        if (w == 0)
            return EIO;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

int
prop_write_file_atomic(const char *path, const void *data, size_t len, mode_t mode, uid_t uid,
                       gid_t gid, prop_atomic_stage *stage)
{
    const char *slash = strrchr(path, '/');
    size_t dl = slash ? (size_t)(slash - path) + 1 : 0, need = strlen(path) + sizeof "..XXXXXX";
    char *tmp = prop_malloc(need), *dir = NULL;
    int fd, e = 0;

    *stage = PROP_ATOMIC_TEMP;
    if (tmp == NULL)
        return ENOMEM;
    snprintf(tmp, need, "%.*s.%s.XXXXXX", (int)dl, path, path + dl);
    if ((fd = mkstemp(tmp)) < 0) {
        e = errno;
        free(tmp);
        return e;
    }
    *stage = PROP_ATOMIC_WRITE;
    if ((e = prop_write_all(fd, data, len)) != 0)
        goto fail;
    if (uid != (uid_t)-1 && fchown(fd, uid, gid) != 0 && errno != EPERM)
        goto fail_errno;
    if (fchmod(fd, mode) != 0 || fsync(fd) != 0)
        goto fail_errno;
    e = close(fd);
    fd = -1;
    if (e != 0 && errno != EINTR)
        goto fail_errno;
    if (rename(tmp, path) != 0)
        goto fail_errno;
    free(tmp);
    *stage = PROP_ATOMIC_DIR;
    if (slash == NULL)
        return prop_sync_dir(".");
    if ((dir = prop_strndup(path, slash == path ? 1 : (size_t)(slash - path))) == NULL)
        return ENOMEM;
    e = prop_sync_dir(dir);
    free(dir);
    return e;

fail_errno:
    e = errno;
fail:
    if (fd >= 0)
        (void)close(fd);
    (void)unlink(tmp);
    free(tmp);
    return e ? e : EIO;
}
