/*
 * fuzz_pending.c - a libFuzzer target for the parser of the record of
 * owed triggers (prop_pending_parse), which reads a file the target
 * writes.  Each input is such a file.  Besides no crash, leak or
 * undefined behaviour, what it parses must come back unchanged from its
 * own text: prop_pending_format() of it parses to the same records, with
 * no bad line, and formats to the same text.  Then every other record
 * is swept away, and the rest must be the odd ones.
 *
 * Built by -DPROP_FUZZ=ON with clang; tests/fuzz/run.sh builds and runs it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prop/exec.h"
#include "prop/prop.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
same_records(const prop_pending *a, const prop_pending *b, size_t step)
{
    size_t i, n = prop_pending_count(b);

    for (i = 0; i < n; i++) {
        const char *h1, *d1, *o1, *h2, *d2, *o2;

        if (prop_pending_get(a, i * step + (step - 1), &h1, &d1, &o1) != PROP_OK ||
            prop_pending_get(b, i, &h2, &d2, &o2) != PROP_OK || strcmp(h1, h2) != 0 ||
            strcmp(d1, d2) != 0 || strcmp(o1, o2) != 0) {
            fprintf(stderr, "fuzz_pending: record %zu differs\n", i);
            abort();
        }
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    prop_pending *p = NULL, *q = NULL;
    char *text = NULL, *again = NULL;
    unsigned char *drop = NULL;
    size_t len = 0, len2 = 0, n, i;
    unsigned bad = 0, bad2 = 0;

    if (prop_pending_parse((const char *)data, size, &p, &bad) != PROP_OK)
        return 0;
    n = prop_pending_count(p);
    if (prop_pending_format(p, &text, &len) != PROP_OK)
        goto done;
    if (prop_pending_parse(text, len, &q, &bad2) != PROP_OK)
        goto done;
    if (bad2 != 0 || prop_pending_count(q) != n) {
        fprintf(stderr, "fuzz_pending: its own text parses to %zu records (not %zu), bad line %u\n",
                prop_pending_count(q), n, bad2);
        abort();
    }
    same_records(p, q, 1);
    if (prop_pending_format(q, &again, &len2) == PROP_OK &&
        (len2 != len || memcmp(again, text, len) != 0)) {
        fprintf(stderr, "fuzz_pending: its text formats differently once parsed again\n");
        abort();
    }
    /* Sweep the even records of q: the odd ones of p are left. */
    if (n && (drop = calloc(n, 1)) != NULL) {
        for (i = 0; i < n; i += 2)
            drop[i] = 1;
        if (prop_pending_sweep(q, drop) != (n + 1) / 2 || prop_pending_count(q) != n / 2) {
            fprintf(stderr, "fuzz_pending: the sweep left %zu of %zu\n", prop_pending_count(q), n);
            abort();
        }
        same_records(p, q, 2);
    }
done:
    free(drop);
    free(again);
    free(text);
    prop_pending_free(q);
    prop_pending_free(p);
    return 0;
}
