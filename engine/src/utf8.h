/*
 * utf8.h - the one UTF-8 decoder of engine and bindings (text.c): what
 * prop shows of a site's text (prop_text_write, prop_json_write_string)
 * and the JSON it reads back (bindings/json_read.c).
 */
#ifndef PROP_UTF8_H
#define PROP_UTF8_H

#include <stddef.h>

/* The length of the valid UTF-8 sequence at s[0..len) (len > 0), with its
 * code point in *cp; 0 when it is not one (overlong, a surrogate, past
 * U+10FFFF, cut short). */
size_t prop_utf8_seq(const unsigned char *s, size_t len, unsigned long *cp);

#endif /* PROP_UTF8_H */
