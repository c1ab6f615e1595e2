/*
 * base64.h - base64 (RFC 4648: the standard alphabet, padded, one line),
 * the one codec of engine and bindings.
 */
#ifndef PROP_BASE64_H
#define PROP_BASE64_H

#include <stddef.h>

/* The text of n bytes, malloc'd and NUL-terminated; NULL when out of
 * memory or n too large. */
char *prop_base64_encode(const void *data, size_t n);
/* Strict: whole groups of 4 of the alphabet, padding only at the end, no
 * white space.  0 with the bytes in *out (malloc'd, the caller frees it)
 * and their count in *outlen; EINVAL (an empty text too) or ENOMEM, *out
 * NULL then. */
int prop_base64_decode(const char *s, unsigned char **out, size_t *outlen);

#endif /* PROP_BASE64_H */
