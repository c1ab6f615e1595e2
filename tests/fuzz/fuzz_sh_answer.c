/*
 * fuzz_sh_answer.c - a libFuzzer target for the parser of the remote
 * shell's answers (prop_sh_answer, transport_sh.c): what the shell of the
 * SSH transport writes on its stdout and stderr, cut into answers by their
 * marks, and what the answers hold (the lines of a commit's failures, the
 * output of a stat).
 *
 * An input is: one byte that says where stdout ends and stderr begins,
 * one byte for the size of the pieces the two streams come in (as the
 * network cuts them), then the bytes of both streams, in which each byte
 * 0x01 stands for the session's mark (so that the fuzzer need not guess
 * 32 hex digits).  The answers are taken after each piece, as the
 * transport does, and each is checked: NUL-terminated at its length, no
 * byte read beyond what came.
 *
 * Built by -DPROP_FUZZ=ON with clang; tests/fuzz/run.sh builds and runs it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "transport_sh.h"

#define MARK "prop-00112233445566778899aabbccddeeff"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* data[0..size) with each 0x01 made MARK, appended to b: 0 or -1. */
static int
add_expanded(prop_buf *b, const uint8_t *data, size_t size)
{
    size_t i, run = 0;

    for (i = 0; i < size; i++) {
        if (data[i] != 1) {
            run++;
            continue;
        }
        if ((run && prop_buf_add(b, (const char *)data + i - run, run) < 0) ||
            prop_buf_adds(b, MARK) < 0)
            return -1;
        run = 0;
    }
    return run ? prop_buf_add(b, (const char *)data + size - run, run) : 0;
}

/* Read an answer's stdout as the transport's callers do. */
static void
read_answer(const prop_cmd_result *r)
{
    char *copy, *p, *line, *end;
    prop_file_stat st;

    if (r->out[r->out_len] != '\0' || r->err[r->err_len] != '\0')
        abort();
    if (!(copy = malloc(r->out_len + 1)))
        return;
    memcpy(copy, r->out, r->out_len + 1);
    /* A commit's failures: "prop-cf I REASON" (transport_ssh_pipeline.c). */
    p = copy;
    while ((line = prop_sh_next_line(&p)) != NULL)
        if (strncmp(line, "prop-cf ", 8) == 0) {
            unsigned long idx = strtoul(line + 8, &end, 10);

            (void)idx;
            if (end < line + 8)
                abort();
        }
    /* The output of a stat. */
    memcpy(copy, r->out, r->out_len + 1);
    memset(&st, 0, sizeof st);
    (void)prop_sh_parse_stat(copy, &st);
    free(copy);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    prop_buf out = PROP_BUF_INIT, err = PROP_BUF_INIT;
    size_t oscan = 0, escan = 0, split, piece, off_o = 0, off_e = 0, no, ne;
    prop_buf so = PROP_BUF_INIT, se = PROP_BUF_INIT;
    prop_cmd_result r;
    int answers = 0;

    if (size < 2)
        return 0;
    split = (size_t)data[0] * (size - 2) / 255;
    piece = (size_t)(data[1] % 64) + 1;
    data += 2;
    size -= 2;
    if (add_expanded(&so, data, split) < 0 || add_expanded(&se, data + split, size - split) < 0)
        goto out;
    no = so.len;
    ne = se.len;
    while (off_o < no || off_e < ne) {
        size_t a = no - off_o < piece ? no - off_o : piece;
        size_t b = ne - off_e < piece ? ne - off_e : piece;

        if ((a && prop_buf_add(&out, so.p + off_o, a) < 0) ||
            (b && prop_buf_add(&err, se.p + off_e, b) < 0))
            goto out;
        off_o += a;
        off_e += b;
        memset(&r, 0, sizeof r);
        while (prop_sh_answer(&out, &oscan, &err, &escan, MARK, &r)) {
            if (r.out && r.err)
                read_answer(&r);
            prop_cmd_result_clear(&r);
            memset(&r, 0, sizeof r);
            if (++answers > 100000)
                abort();
        }
        if (oscan > out.len || escan > err.len)
            abort();
    }
out:
    prop_buf_free(&out);
    prop_buf_free(&err);
    prop_buf_free(&so);
    prop_buf_free(&se);
    return 0;
}
