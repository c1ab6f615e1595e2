/*
 * json.c - JSON string literals for the engine's machine-readable output.
 *
 * Only what prop writes needs escaping: the quote, the backslash and the
 * control characters.  Bytes from 0x80 up are copied as they are, so UTF-8
 * text stays readable and invalid UTF-8 is passed through rather than lost.
 */
#include "internal.h"

/*
 * Write s (len bytes, may contain NUL) as a quoted JSON string to f.
 * Returns 0, or PROP_ERROR when the stream reports a write error.
 */
int
prop_json_write_string(FILE *f, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    size_t i;

    if (f == NULL || (s == NULL && len > 0))
        return PROP_EINVAL;
    if (putc('"', f) == EOF)
        return PROP_ERROR;
    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        int rc;

        switch (c) {
        case '"':
            rc = fputs("\\\"", f);
            break;
        case '\\':
            rc = fputs("\\\\", f);
            break;
        case '\n':
            rc = fputs("\\n", f);
            break;
        case '\t':
            rc = fputs("\\t", f);
            break;
        case '\r':
            rc = fputs("\\r", f);
            break;
        case '\b':
            rc = fputs("\\b", f);
            break;
        case '\f':
            rc = fputs("\\f", f);
            break;
        default:
            if (c < 0x20 || c == 0x7f) {
                char esc[7] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], '\0'};
                rc = fputs(esc, f);
            } else {
                rc = putc(c, f);
            }
            break;
        }
        if (rc == EOF)
            return PROP_ERROR;
    }
    if (putc('"', f) == EOF)
        return PROP_ERROR;
    return PROP_OK;
}
