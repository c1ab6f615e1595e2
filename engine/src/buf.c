/*
 * buf.c - a growing byte buffer, always NUL-terminated (see buf.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "buf.h"

#define BUF_FIRST_CAP 256

int
prop_buf_reserve(prop_buf *b, size_t n)
{
    if (n > SIZE_MAX - b->len - 1)
        return -1;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : BUF_FIRST_CAP;
        char *p;

        while (cap < b->len + n + 1) {
            if (cap > SIZE_MAX / 2)
                return -1;
            cap *= 2;
        }
        p = prop_realloc(b->p, cap);
        if (!p)
            return -1;
        b->p = p;
        b->cap = cap;
        if (b->len == 0)
            p[0] = '\0';
    }
    return 0;
}

int
prop_buf_add(prop_buf *b, const void *data, size_t n)
{
    if (prop_buf_reserve(b, n) != 0)
        return -1;
    if (n)
        memcpy(b->p + b->len, data, n);
    b->len += n;
    b->p[b->len] = '\0';
    return 0;
}

int
prop_buf_adds(prop_buf *b, const char *s)
{
    return prop_buf_add(b, s, strlen(s));
}

char *
prop_buf_take(prop_buf *b, size_t *len)
{
    char *p;

    if (!b->p && prop_buf_add(b, "", 0) < 0)
        return NULL;
    p = b->p;
    if (len)
        *len = b->len;
    b->p = NULL;
    b->len = b->cap = 0;
    return p;
}

void
prop_buf_free(prop_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}
