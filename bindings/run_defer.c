/*
 * run_defer.c - prop run over a transport that answers writes later
 * (prop_transport_defer: SSH).  The executor's deferred-result callbacks
 * (exec.h), and what each top-level property noted while its done() waits
 * for the answers: by then the properties after it have started and note
 * into the `sys` handle in turn, so a property's notes, warnings and
 * diffs are set aside when the next one starts and put back while its
 * results are reported.
 */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "lsys_methods.h"
#include "run.h"

void
run_defer_batch(void *ud, unsigned long b)
{
    host_run *hr = ud;

    prop_transport_batch(hr->t, b);
}

int
run_defer_pending(void *ud)
{
    host_run *hr = ud;

    return prop_transport_outstanding(hr->t) > 0;
}

void
run_defer_settle(void *ud)
{
    host_run *hr = ud;

    /* A lost connection fails the batches still waiting: their
     * properties are reported failed with that reason. */
    (void)prop_transport_settle(hr->t);
}

char *
run_defer_failure(void *ud, unsigned long b)
{
    host_run *hr = ud;

    return prop_transport_batch_failure(hr->t, b);
}

/* Exchange what the `sys` handle noted with what top keeps. */
static void
swap_notes(lsys *s, run_top *top)
{
    run_top t = *top;

    top->notes = s->notes, top->notes_len = s->notes_len, top->notes_cap = s->notes_cap;
    top->warnings = s->warnings, top->warnings_len = s->warnings_len;
    top->warnings_cap = s->warnings_cap;
    top->diffs = s->diffs, top->diffs_len = s->diffs_len, top->diffs_cap = s->diffs_cap;
    s->notes = t.notes, s->notes_len = t.notes_len, s->notes_cap = t.notes_cap;
    s->warnings = t.warnings, s->warnings_len = t.warnings_len, s->warnings_cap = t.warnings_cap;
    s->diffs = t.diffs, s->diffs_len = t.diffs_len, s->diffs_cap = t.diffs_cap;
}

static void
top_free(run_top *top)
{
    free(top->notes);
    free(top->warnings);
    free(top->diffs);
    memset(top, 0, sizeof *top);
}

int
run_defer_start(host_run *hr, const prop_node *n)
{
    if (prop_array_reserve(hr->tops, hr->tops_cap, hr->ntops, 1, 16) != 0)
        return -1;
    /* What was noted so far is the last property's: set it aside (its
     * own set-aside is empty: nothing is put there while it is the
     * newest). */
    if (hr->ntops)
        swap_notes(&hr->sys, &hr->tops[hr->ntops - 1]);
    memset(&hr->tops[hr->ntops], 0, sizeof hr->tops[hr->ntops]);
    hr->tops[hr->ntops++].top = n;
    return 0;
}

const prop_node *
run_defer_done_begin(host_run *hr, int *swapped)
{
    const prop_node *newest = hr->top;

    *swapped = 0;
    if (hr->ntops == 0)
        return newest;
    hr->top = hr->tops[0].top;
    if (hr->ntops > 1) {
        swap_notes(&hr->sys, &hr->tops[0]);
        *swapped = 1;
    }
    return newest;
}

void
run_defer_done_end(host_run *hr, unsigned depth, int swapped, const prop_node *newest)
{
    if (hr->ntops == 0)
        return;
    if (swapped)
        swap_notes(&hr->sys, &hr->tops[0]);
    hr->top = newest;
    if (depth == 0) {
        top_free(&hr->tops[0]);
        memmove(hr->tops, hr->tops + 1, (hr->ntops - 1) * sizeof *hr->tops);
        hr->ntops--;
    }
}

void
run_defer_free(host_run *hr)
{
    size_t i;

    for (i = 0; i < hr->ntops; i++)
        top_free(&hr->tops[i]);
    free(hr->tops);
    hr->tops = NULL;
    hr->ntops = hr->tops_cap = 0;
}
