/*
 * json_read.h - a small strict JSON reader (RFC 8259) for the documents
 * prop itself writes and reads back: last-run.json (prop status), the
 * --report documents (prop report).  The whole text is parsed into a tree
 * of values; an error says where (line and column) and what was wrong.
 * No Lua: the unit tests and the fuzz target build it alone.
 */
#ifndef PROP_JSON_READ_H
#define PROP_JSON_READ_H

#include <stddef.h>

typedef enum { JSON_NULL, JSON_BOOL, JSON_NUM, JSON_STR, JSON_ARR, JSON_OBJ } json_type;

typedef struct json_val json_val;
struct json_val {
    json_type type;
    double num;     /* JSON_NUM; JSON_BOOL: 1 or 0 */
    char *str;      /* JSON_STR: valid UTF-8, NUL-terminated (len bytes) */
    size_t len;     /* JSON_STR: its length (it may hold \u0000) */
    char *key;      /* a member of an object: its name */
    json_val *kids; /* JSON_ARR, JSON_OBJ: the elements / members */
    size_t nkids;
};

/* Where a text is not JSON: 1-based line and column (in bytes). */
typedef struct json_error {
    unsigned long line, col;
    char msg[96];
} json_error;

/* Nesting deeper than this is refused (a stack never runs out). */
#define JSON_MAX_DEPTH 64

/*
 * Parse data[0..len) (NUL bytes are not allowed outside strings, and need
 * not end it): 0 with *v the document (free it with json_free), or -1
 * with *v empty and *err (when not NULL) set.  Strings must be valid
 * UTF-8; \u escapes are decoded (a lone surrogate becomes U+FFFD).
 * Duplicate object keys are kept; json_get finds the last.
 */
int json_parse(const char *data, size_t len, json_val *v, json_error *err);
void json_free(json_val *v);

/* The member key of object o (the last of that name), or NULL (also when
 * o is NULL or not an object). */
const json_val *json_get(const json_val *o, const char *key);
/* The member's string, or NULL when it is missing or not a string. */
const char *json_str(const json_val *o, const char *key);
/* The member's number, or dflt when it is missing or not a number. */
double json_num(const json_val *o, const char *key, double dflt);
/* 1 when the member is true, 0 otherwise. */
int json_true(const json_val *o, const char *key);

/* The value of a hexadecimal digit, or -1 (a \\u escape's). */
int json_hexval(char c);

#endif
