/*
 * json_read.c - a small strict JSON reader: the text into a tree of
 * json_val, or where and why it is not JSON (json_read.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "buf.h"
#include "json_read.h"
#include "utf8.h"

typedef struct jparser {
    const char *start, *p, *end;
    int depth;
    const char *why; /* the first error's message; p is left where it is */
} jparser;

void
json_free(json_val *v)
{
    size_t i;

    if (v == NULL)
        return;
    for (i = 0; i < v->nkids; i++)
        json_free(&v->kids[i]);
    free(v->kids);
    free(v->str);
    free(v->key);
    memset(v, 0, sizeof *v);
}

static int
bad(jparser *j, const char *why)
{
    if (j->why == NULL)
        j->why = why;
    return -1;
}

static void
space(jparser *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\r' || *j->p == '\t'))
        j->p++;
}

int
json_hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Code point u as UTF-8 into enc; its length. */
static size_t
utf8_put(unsigned long u, char enc[4])
{
    if (u < 0x80) {
        enc[0] = (char)u;
        return 1;
    }
    if (u < 0x800) {
        enc[0] = (char)(0xc0 | (u >> 6));
        enc[1] = (char)(0x80 | (u & 0x3f));
        return 2;
    }
    if (u < 0x10000) {
        enc[0] = (char)(0xe0 | (u >> 12));
        enc[1] = (char)(0x80 | ((u >> 6) & 0x3f));
        enc[2] = (char)(0x80 | (u & 0x3f));
        return 3;
    }
    enc[0] = (char)(0xf0 | (u >> 18));
    enc[1] = (char)(0x80 | ((u >> 12) & 0x3f));
    enc[2] = (char)(0x80 | ((u >> 6) & 0x3f));
    enc[3] = (char)(0x80 | (u & 0x3f));
    return 4;
}

/* Four hex digits at p (j->end bounds them) into *u; 0 or -1. */
static int
hex4(jparser *j, const char *p, unsigned long *u)
{
    int k;

    *u = 0;
    if (j->end - p < 4)
        return bad(j, "\\u wants four hex digits");
    for (k = 0; k < 4; k++) {
        int h = json_hexval(p[k]);
        if (h < 0)
            return bad(j, "\\u wants four hex digits");
        *u = *u * 16 + (unsigned long)h;
    }
    return 0;
}

/* A string (j->p at its opening quote) into *out (malloc'd), *outlen. */
static int
string(jparser *j, char **out, size_t *outlen)
{
    prop_buf b = PROP_BUF_INIT;

    if (prop_buf_reserve(&b, 31) != 0)
        return bad(j, "out of memory");
    j->p++;
    while (j->p < j->end && *j->p != '"') {
        unsigned char c = (unsigned char)*j->p;
        char enc[4];
        size_t n = 1;

        if (c < 0x20) {
            bad(j, "a control character in a string");
            goto fail;
        }
        if (c == '\\') {
            if (j->end - j->p < 2) {
                bad(j, "a string ends inside an escape");
                goto fail;
            }
            j->p++;
            switch (*j->p) {
            case 'n':
                enc[0] = '\n';
                break;
            case 't':
                enc[0] = '\t';
                break;
            case 'r':
                enc[0] = '\r';
                break;
            case 'b':
                enc[0] = '\b';
                break;
            case 'f':
                enc[0] = '\f';
                break;
            case '"':
            case '\\':
            case '/':
                enc[0] = *j->p;
                break;
            case 'u': {
                unsigned long u, lo;
                if (hex4(j, j->p + 1, &u) != 0)
                    goto fail;
                j->p += 4;
                if (u >= 0xd800 && u <= 0xdbff && j->end - j->p >= 7 && j->p[1] == '\\' &&
                    j->p[2] == 'u' && hex4(j, j->p + 3, &lo) == 0 && lo >= 0xdc00 && lo <= 0xdfff) {
                    u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
                    j->p += 6;
                } else if (u >= 0xd800 && u <= 0xdfff) {
                    u = 0xfffd; /* a lone surrogate: no character */
                }
                j->why = NULL; /* a failed look for a low surrogate is no error */
                n = utf8_put(u, enc);
                break;
            }
            default:
                bad(j, "an unknown escape in a string");
                goto fail;
            }
            j->p++;
        } else {
            unsigned long cp;

            n = prop_utf8_seq((const unsigned char *)j->p, (size_t)(j->end - j->p), &cp);
            if (n == 0) {
                bad(j, "a string that is not UTF-8");
                goto fail;
            }
            memcpy(enc, j->p, n);
            j->p += n;
        }
        if (prop_buf_add(&b, enc, n) != 0) {
            bad(j, "out of memory");
            goto fail;
        }
    }
    if (j->p >= j->end) {
        bad(j, "a string is not closed");
        goto fail;
    }
    j->p++;
    *out = prop_buf_take(&b, outlen); /* never NULL: b holds memory */
    return 0;
fail:
    prop_buf_free(&b);
    return -1;
}

/* A number as RFC 8259 spells it: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int
number(jparser *j, double *out)
{
    const char *p = j->p, *e = j->end;
    char small[64], *copy = small;
    size_t n;
    int rc = 0;

    if (p < e && *p == '-')
        p++;
    if (p < e && *p == '0')
        p++;
    else if (p < e && *p >= '1' && *p <= '9')
        while (p < e && *p >= '0' && *p <= '9')
            p++;
    else
        return bad(j, "not a value");
    if (p < e && *p == '.') {
        p++;
        if (p >= e || *p < '0' || *p > '9')
            return bad(j, "a number wants digits after its point");
        while (p < e && *p >= '0' && *p <= '9')
            p++;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < e && (*p == '+' || *p == '-'))
            p++;
        if (p >= e || *p < '0' || *p > '9')
            return bad(j, "a number wants digits in its exponent");
        while (p < e && *p >= '0' && *p <= '9')
            p++;
    }
    n = (size_t)(p - j->p);
    if (n >= sizeof small && (copy = malloc(n + 1)) == NULL)
        return bad(j, "out of memory");
    memcpy(copy, j->p, n);
    copy[n] = '\0';
    errno = 0;
    *out = strtod(copy, NULL);
    if (errno == ERANGE && isinf(*out))
        rc = bad(j, "a number out of range");
    else
        j->p = p;
    if (copy != small)
        free(copy);
    return rc;
}

static int value(jparser *j, json_val *v);

static int
add_kid(json_val *parent, size_t *cap, json_val *kid)
{
    if (prop_array_reserve(parent->kids, *cap, parent->nkids, 1, 4) != 0)
        return -1;
    parent->kids[parent->nkids++] = *kid;
    return 0;
}

static int
container(jparser *j, json_val *v, char close)
{
    int obj = close == '}';
    size_t cap = 0;

    v->type = obj ? JSON_OBJ : JSON_ARR;
    if (++j->depth > JSON_MAX_DEPTH)
        return bad(j, "nested too deep");
    j->p++;
    space(j);
    if (j->p < j->end && *j->p == close) {
        j->p++;
        j->depth--;
        return 0;
    }
    for (;;) {
        json_val kid;
        char *key = NULL;
        size_t klen;

        memset(&kid, 0, sizeof kid);
        space(j);
        if (obj) {
            if (j->p >= j->end || *j->p != '"')
                return bad(j, "an object member wants a name in quotes");
            if (string(j, &key, &klen) != 0)
                return -1;
            space(j);
            if (j->p >= j->end || *j->p != ':') {
                free(key);
                return bad(j, "a member's name wants ':' after it");
            }
            j->p++;
        }
        if (value(j, &kid) != 0) {
            free(key);
            json_free(&kid);
            return -1;
        }
        kid.key = key;
        if (add_kid(v, &cap, &kid) != 0) {
            json_free(&kid);
            return bad(j, "out of memory");
        }
        space(j);
        if (j->p < j->end && *j->p == ',') {
            j->p++;
            continue;
        }
        if (j->p < j->end && *j->p == close) {
            j->p++;
            j->depth--;
            return 0;
        }
        return bad(j, obj ? "an object wants ',' or '}' here" : "an array wants ',' or ']' here");
    }
}

static int
value(jparser *j, json_val *v)
{
    space(j);
    if (j->p >= j->end)
        return bad(j, "the text ends where a value should be");
    switch (*j->p) {
    case '{':
        return container(j, v, '}');
    case '[':
        return container(j, v, ']');
    case '"':
        v->type = JSON_STR;
        return string(j, &v->str, &v->len);
    case 't':
    case 'f':
    case 'n': {
        static const char *const words[] = {"true", "false", "null"};
        size_t k;
        for (k = 0; k < 3; k++) {
            size_t l = strlen(words[k]);
            if ((size_t)(j->end - j->p) >= l && memcmp(j->p, words[k], l) == 0) {
                j->p += l;
                v->type = k == 2 ? JSON_NULL : JSON_BOOL;
                v->num = k == 0;
                return 0;
            }
        }
        return bad(j, "not a value");
    }
    default:
        v->type = JSON_NUM;
        return number(j, &v->num);
    }
}

int
json_parse(const char *data, size_t len, json_val *v, json_error *err)
{
    jparser j;
    int rc;

    memset(&j, 0, sizeof j);
    j.start = j.p = data;
    j.end = data + len;
    memset(v, 0, sizeof *v);
    if (data == NULL && len > 0)
        return -1;
    rc = value(&j, v);
    if (rc == 0) {
        space(&j);
        if (j.p != j.end)
            rc = bad(&j, "more text after the document");
    }
    if (rc != 0) {
        json_free(v);
        if (err) {
            const char *q;

            err->line = 1;
            err->col = 1;
            for (q = data; q < j.p; q++) {
                if (*q == '\n') {
                    err->line++;
                    err->col = 1;
                } else {
                    err->col++;
                }
            }
            snprintf(err->msg, sizeof err->msg, "%s", j.why ? j.why : "not JSON");
        }
        return -1;
    }
    return 0;
}

const json_val *
json_get(const json_val *o, const char *key)
{
    size_t i;

    if (o == NULL || o->type != JSON_OBJ)
        return NULL;
    for (i = o->nkids; i-- > 0;)
        if (o->kids[i].key && strcmp(o->kids[i].key, key) == 0)
            return &o->kids[i];
    return NULL;
}

const char *
json_str(const json_val *o, const char *key)
{
    const json_val *v = json_get(o, key);

    return v && v->type == JSON_STR ? v->str : NULL;
}

double
json_num(const json_val *o, const char *key, double dflt)
{
    const json_val *v = json_get(o, key);

    return v && v->type == JSON_NUM ? v->num : dflt;
}

int
json_true(const json_val *o, const char *key)
{
    const json_val *v = json_get(o, key);

    return v && v->type == JSON_BOOL && v->num != 0;
}
