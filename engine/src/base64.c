/*
 * base64.c - base64 (RFC 4648, padded, one line); see base64.h.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "base64.h"

static const char b64chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *
prop_base64_encode(const void *data, size_t n)
{
    const unsigned char *p = data;
    char *out, *o;
    size_t i;

    if (n > (SIZE_MAX - 1) / 4 * 3 - 3)
        return NULL;
    out = o = prop_malloc((n + 2) / 3 * 4 + 1);
    if (out == NULL)
        return NULL;
    for (i = 0; i + 2 < n; i += 3) {
        unsigned long v = (unsigned long)p[i] << 16 | (unsigned long)p[i + 1] << 8 | p[i + 2];
        /* cppcheck-suppress uninitdata ; o is written here, not read */
        *o++ = b64chars[v >> 18 & 63];
        *o++ = b64chars[v >> 12 & 63];
        *o++ = b64chars[v >> 6 & 63];
        *o++ = b64chars[v & 63];
    }
    if (i < n) {
        unsigned long v =
            (unsigned long)p[i] << 16 | (i + 1 < n ? (unsigned long)p[i + 1] << 8 : 0);
        *o++ = b64chars[v >> 18 & 63];
        *o++ = b64chars[v >> 12 & 63];
        *o++ = i + 1 < n ? b64chars[v >> 6 & 63] : '=';
        *o++ = '=';
    }
    *o = '\0';
    return out;
}

static int
b64_value(char c)
{
    const char *p = c ? strchr(b64chars, c) : NULL;

    return p ? (int)(p - b64chars) : -1;
}

int
prop_base64_decode(const char *s, unsigned char **out, size_t *outlen)
{
    size_t n = strlen(s), i, o = 0, pad = 0;
    unsigned char *p;

    *out = NULL;
    *outlen = 0;
    if (n == 0 || n % 4 != 0)
        return EINVAL;
    if (s[n - 1] == '=')
        pad = s[n - 2] == '=' ? 2 : 1;
    p = prop_malloc(n / 4 * 3);
    if (p == NULL)
        return ENOMEM;
    for (i = 0; i < n; i += 4) {
        int v[4], k;
        for (k = 0; k < 4; k++) {
            if (i + 4 == n && k >= 4 - (int)pad)
                v[k] = 0;
            else if ((v[k] = b64_value(s[i + k])) < 0)
                goto bad;
        }
        p[o++] = (unsigned char)(v[0] << 2 | v[1] >> 4);
        if (!(i + 4 == n && pad == 2))
            p[o++] = (unsigned char)((v[1] & 15) << 4 | v[2] >> 2);
        if (!(i + 4 == n && pad >= 1))
            p[o++] = (unsigned char)((v[2] & 3) << 6 | v[3]);
    }
    *out = p;
    *outlen = o;
    return 0;

bad:
    free(p);
    return EINVAL;
}
