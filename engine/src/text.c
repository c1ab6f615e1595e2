/*
 * text.c - text from a site, shown and never obeyed.
 *
 * Descriptions, paths, notes, command output and quoted source lines come
 * from the site (or from the target) and end up on a terminal.  A control
 * character there is an instruction to the terminal: clear the screen,
 * set the window title, move the cursor back over a "failed" to print
 * "ok".  Every human output goes through prop_text_write(), which shows
 * such bytes as escapes (\e, \r, \x9b, ...), as ls and git do, and JSON
 * output goes through prop_json_write_string(), which keeps it valid
 * UTF-8 whatever the bytes.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "utf8.h"

size_t
prop_utf8_seq(const unsigned char *s, size_t len, unsigned long *cp)
{
    unsigned long c;
    size_t n, i;

    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        n = 2, c = s[0] & 0x1f;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        n = 3, c = s[0] & 0x0f;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        n = 4, c = s[0] & 0x07;
    else
        return 0;
    if (len < n)
        return 0;
    for (i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        c = c << 6 | (s[i] & 0x3f);
    }
    if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
        (c >= 0xd800 && c <= 0xdfff))
        return 0;
    *cp = c;
    return n;
}

/* A code point a terminal takes as an instruction: C0, DEL, C1. */
static int
is_control(unsigned long cp)
{
    return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f);
}

int
prop_text_clean(const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, n;
    unsigned long cp;

    if (s == NULL)
        return 0;
    while (i < len) {
        if ((n = prop_utf8_seq(u + i, len - i, &cp)) == 0 || is_control(cp))
            return 0;
        i += n;
    }
    return 1;
}

/* The escape for a control code point or a byte that is not UTF-8. */
static int
put_escape(FILE *f, unsigned long cp, const unsigned char *bytes, size_t n)
{
    size_t i;

    switch (cp) {
    case '\n':
        return fputs("\\n", f);
    case '\r':
        return fputs("\\r", f);
    case '\t':
        return fputs("\\t", f);
    case 0x1b:
        return fputs("\\e", f);
    default:
        break;
    }
    for (i = 0; i < n; i++)
        if (fprintf(f, "\\x%02x", bytes[i]) < 0)
            return EOF;
    return 0;
}

int
prop_text_write(FILE *f, const char *s, size_t len, unsigned flags)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, start = 0, n;
    unsigned long cp;

    if (f == NULL || (s == NULL && len > 0))
        return PROP_EINVAL;
    while (i < len) {
        n = prop_utf8_seq(u + i, len - i, &cp);
        if (n > 0 && !is_control(cp)) {
            i += n;
            continue;
        }
        if (n > 0 && (flags & PROP_TEXT_LINES) && (cp == '\n' || cp == '\t')) {
            i += n;
            continue;
        }
        if (i > start && fwrite(s + start, 1, i - start, f) != i - start)
            return PROP_ERROR;
        if (n == 0) {
            /* Not UTF-8: the one byte, then try again from the next. */
            if (put_escape(f, 0x100, u + i, 1) == EOF)
                return PROP_ERROR;
            i++;
        } else {
            if (put_escape(f, cp, u + i, n) == EOF)
                return PROP_ERROR;
            i += n;
        }
        start = i;
    }
    if (i > start && fwrite(s + start, 1, i - start, f) != i - start)
        return PROP_ERROR;
    return PROP_OK;
}

int
prop_text_puts(FILE *f, const char *s, unsigned flags)
{
    return prop_text_write(f, s ? s : "", s ? strlen(s) : 0, flags);
}

/* ---- JSON ---- */

int
prop_json_write_string(FILE *f, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, n;
    unsigned long cp;

    if (f == NULL || (s == NULL && len > 0))
        return PROP_EINVAL;
    if (putc('"', f) == EOF)
        return PROP_ERROR;
    while (i < len) {
        int rc;

        n = prop_utf8_seq(u + i, len - i, &cp);
        if (n == 0) {
            /* Not UTF-8: JSON text must be, so the replacement character
             * stands for each such byte. */
            rc = fputs("\\ufffd", f);
            i++;
        } else if (cp == '"') {
            rc = fputs("\\\"", f);
        } else if (cp == '\\') {
            rc = fputs("\\\\", f);
        } else if (cp == '\n') {
            rc = fputs("\\n", f);
        } else if (cp == '\t') {
            rc = fputs("\\t", f);
        } else if (cp == '\r') {
            rc = fputs("\\r", f);
        } else if (cp == '\b') {
            rc = fputs("\\b", f);
        } else if (cp == '\f') {
            rc = fputs("\\f", f);
        } else if (is_control(cp)) {
            char esc[7] = {'\\', 'u', '0', '0', hex[(cp >> 4) & 15], hex[cp & 15], '\0'};
            rc = fputs(esc, f);
        } else {
            rc = fwrite(s + i, 1, n, f) == n ? 0 : EOF;
        }
        if (rc == EOF)
            return PROP_ERROR;
        if (n > 0)
            i += n;
    }
    return putc('"', f) == EOF ? PROP_ERROR : PROP_OK;
}
