/*
 * fuzz_json.c - a libFuzzer target for the strict JSON reader of prop
 * status and prop report (bindings/json_read.c).  Each input is a text.
 * Besides no crash, leak or undefined behaviour: a text refused is
 * refused at a place inside it (line and column no further than its
 * end), and a text read is written back as JSON (prop_json_write_string
 * for its strings) that reads to the same tree.
 *
 * Built by -DPROP_FUZZ=ON with clang; tests/fuzz/run.sh builds and runs it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_read.h"
#include "prop/prop.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
emit(FILE *f, const json_val *v)
{
    size_t i;

    switch (v->type) {
    case JSON_NULL:
        fputs("null", f);
        break;
    case JSON_BOOL:
        fputs(v->num != 0 ? "true" : "false", f);
        break;
    case JSON_NUM:
        fprintf(f, "%.17g", v->num);
        break;
    case JSON_STR:
        prop_json_write_string(f, v->str, v->len);
        break;
    case JSON_ARR:
    case JSON_OBJ:
        fputc(v->type == JSON_ARR ? '[' : '{', f);
        for (i = 0; i < v->nkids; i++) {
            if (i)
                fputc(',', f);
            if (v->type == JSON_OBJ) {
                prop_json_write_string(f, v->kids[i].key, strlen(v->kids[i].key));
                fputc(':', f);
            }
            emit(f, &v->kids[i]);
        }
        fputc(v->type == JSON_ARR ? ']' : '}', f);
        break;
    }
}

static int
same(const json_val *a, const json_val *b)
{
    size_t i;

    if (a->type != b->type || a->nkids != b->nkids)
        return 0;
    if ((a->key == NULL) != (b->key == NULL) || (a->key && strcmp(a->key, b->key) != 0))
        return 0;
    if (a->type == JSON_NUM || a->type == JSON_BOOL)
        if (a->num != b->num)
            return 0;
    if (a->type == JSON_STR && (a->len != b->len || memcmp(a->str, b->str, a->len) != 0))
        return 0;
    for (i = 0; i < a->nkids; i++)
        if (!same(&a->kids[i], &b->kids[i]))
            return 0;
    return 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_val v, w;
    json_error e;
    char *text = NULL;
    size_t len = 0, i, lines = 1;
    FILE *f;

    if (json_parse((const char *)data, size, &v, &e) != 0) {
        for (i = 0; i < size; i++)
            lines += data[i] == '\n';
        if (e.line < 1 || e.line > lines || e.col < 1 || e.col > size + 1 || e.msg[0] == '\0') {
            fprintf(stderr, "fuzz_json: refused at %lu:%lu (%s), outside the text\n", e.line, e.col,
                    e.msg);
            abort();
        }
        return 0;
    }
    f = open_memstream(&text, &len);
    if (f == NULL) {
        json_free(&v);
        return 0;
    }
    emit(f, &v);
    if (fclose(f) != 0) {
        free(text);
        json_free(&v);
        return 0;
    }
    if (json_parse(text, len, &w, &e) != 0 || !same(&v, &w)) {
        fprintf(stderr, "fuzz_json: its own text does not read back the same: %.200s\n", text);
        abort();
    }
    json_free(&w);
    json_free(&v);
    free(text);
    return 0;
}
