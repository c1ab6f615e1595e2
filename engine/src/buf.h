/*
 * buf.h - a growing byte buffer, always NUL-terminated, for the engine's
 * own use (command output, scripts sent to a remote shell, diffs).
 *
 * A zeroed prop_buf (PROP_BUF_INIT) is empty and owns nothing.  Appending
 * reports running out of memory (or a size that would overflow) by
 * returning -1 and leaves the buffer as it was; the caller frees it with
 * prop_buf_free() or takes its text with prop_buf_take().
 */
#ifndef PROP_BUF_H
#define PROP_BUF_H

#include <stddef.h>

typedef struct prop_buf {
    char *p;    /* NULL until the first append, then NUL-terminated */
    size_t len; /* bytes held, the NUL not counted */
    size_t cap; /* bytes allocated */
} prop_buf;

#define PROP_BUF_INIT                                                                              \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

/* Append n bytes (data may be NULL when n is 0): 0, or -1. */
int prop_buf_add(prop_buf *b, const void *data, size_t n);
/* Room for n more bytes (and the NUL) without growing: 0, or -1. */
int prop_buf_reserve(prop_buf *b, size_t n);
/* Append a NUL-terminated string: 0, or -1. */
int prop_buf_adds(prop_buf *b, const char *s);
/* The buffer's text, handed over (never NULL: "" when empty), its length
 * in *len when len is not NULL; NULL when out of memory.  The buffer is
 * empty again afterwards. */
char *prop_buf_take(prop_buf *b, size_t *len);
/* Free what the buffer holds; it is empty again afterwards. */
void prop_buf_free(prop_buf *b);

#endif /* PROP_BUF_H */
