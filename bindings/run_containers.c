/*
 * run_containers.c - prop run's containers pass: once a host's own
 * properties have run, each of its containers (chroot, nspawn, docker,
 * jail) is run in turn through the host's transport, when the property
 * that makes it did (or, in a dry run, it is there already).
 */
#include <stdio.h>
#include <string.h>

#include "run.h"

/*
 * The containers of hr's host, through its transport t, once its own
 * properties have run: each one whose container was made (or, in a dry
 * run, is there already).
 */
void
run_containers(lprop_ctx *ctx, const run_opts *o, host_run *hr, prop_transport *t, int progress,
               int color, outcome *oc)
{
    size_t i, n = prop_host_ncontainers(hr->h);

    /* Left out by --tags or --skip-tags, the property that makes a
     * container did not run: the container, made by an earlier run, runs
     * with the same tags (a tree not made yet cannot be entered, which
     * says so).  Asked before any container runs: each has a selection
     * of its own. */
    for (i = 0; i < n && (o->ntags || o->nskip); i++)
        if (hr->attach[i] < 0 &&
            !run_select_node(hr, prop_host_attached_by(prop_host_container(hr->h, i))))
            hr->attach[i] = PROP_RESULT_OK;
    for (i = 0; i < n; i++) {
        const prop_host *c = prop_host_container(hr->h, i);
        outcome coc;

        memset(&coc, 0, sizeof coc);
        if (run_want_stop(hr)) {
            oc->ctr_stopped++;
            continue;
        }
        if (hr->attach[i] == PROP_RESULT_FAILED || hr->attach[i] == PROP_RESULT_INTERRUPTED ||
            hr->attach[i] < 0) {
            char why[600];

            snprintf(why, sizeof why,
                     "not provisioned: the property that makes it %s (see \"%s\" above)",
                     hr->attach[i] < 0 ? "did not run" : "failed",
                     prop_node_desc(prop_host_attached_by(c)));
            /* Nothing ran in it: refused, a failure of the run. */
            coc.refused = 1;
            run_print_host(o, c, &coc, why, color && !o->json);
            oc->ctr_failed++;
            continue;
        }
        if (o->dry && hr->attach[i] == PROP_RESULT_CHANGED) {
            char *buf = NULL;
            size_t len = 0;
            FILE *m = run_report_begin(&buf, &len, 'H', c);

            if (m) {
                fputs(",\"ok\":0,\"changed\":0,\"failed\":0,\"not_made\":true", m);
                run_report_end(m, &buf, &len);
            }
            if (o->json) {
                run_json_event(stdout, "host");
                run_json_host(c);
                fputs(",\"ok\":0,\"changed\":0,\"failed\":0,\"not_made\":true,"
                      "\"dry_run\":true}\n",
                      stdout);
            } else {
                printf("%s: not made yet: a real run makes it, then runs its properties "
                       "(dry run)\n",
                       prop_host_fullname(c));
            }
            continue;
        }
        run_host_in(ctx, o, c, t, progress, color, &coc);
        if (coc.unreachable)
            oc->ctr_unreachable++;
        else if (coc.failed || coc.refused || coc.ctr_failed)
            oc->ctr_failed++;
        if (coc.stopped || coc.ctr_stopped)
            oc->ctr_stopped++;
        oc->ctr_unreachable += coc.ctr_unreachable;
    }
}
