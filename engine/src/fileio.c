/*
 * fileio.c - whole reads and writes of a file descriptor; see fileio.h.
 */
#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#include "fileio.h"

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
