/*
 * exec.c - the run-time meaning of the combinators (SPEC 2.3 and 4).
 *
 * The executor allocates nothing: it walks the immutable graph and asks
 * the caller to ensure each leaf.  Failure of one top-level property never
 * stops the next; inside a property, requires/before chains stop at the
 * first failure, as Propellor's do.
 */
#include <stdlib.h>
#include <time.h>

#include "internal.h"
#include "prop/exec.h"

prop_result
prop_result_combine(prop_result a, prop_result b)
{
    return a > b ? a : b;
}

const char *
prop_result_name(prop_result r)
{
    switch (r) {
    case PROP_RESULT_OK:
        return "ok";
    case PROP_RESULT_CHANGED:
        return "changed";
    case PROP_RESULT_FAILED:
        return "failed";
    case PROP_RESULT_INTERRUPTED:
        return "interrupted";
    }
    return "?";
}

static double
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The first alternative of a pick_os whose targets hold os, or NULL. */
static const prop_node *
pick(const prop_node *n, prop_os_set os)
{
    unsigned i;

    for (i = 0; i < n->nchildren; i++)
        if (os != PROP_OS_NONE && (node_children(n)[i]->targets & os) == os)
            return node_children(n)[i];
    return NULL;
}

prop_result
prop_exec_node(const prop_node *n, prop_os_set os, unsigned depth, const prop_exec_ops *ops,
               void *ud)
{
    prop_result r = PROP_RESULT_OK, r2;
    const prop_node *alt;
    char *msg = NULL;
    const char *why = NULL;
    double t0 = now_ms();
    unsigned i;

    if (ops->start)
        ops->start(ud, n, depth);
    switch (n->kind) {
    case PROP_LEAF:
        r = ops->ensure(ud, n, &msg);
        why = msg;
        break;
    case PROP_INFO:
        break;
    case PROP_INVALID:
        r = PROP_RESULT_FAILED;
        why = "this property was made from a bad argument and cannot run";
        break;
    case PROP_REQUIRES:
        r = prop_exec_node(node_children(n)[1], os, depth + 1, ops, ud);
        if (r < PROP_RESULT_FAILED)
            r = prop_result_combine(r, prop_exec_node(node_children(n)[0], os, depth + 1, ops, ud));
        else if (r == PROP_RESULT_FAILED)
            why = "a requirement failed";
        break;
    case PROP_BEFORE:
        r = prop_exec_node(node_children(n)[0], os, depth + 1, ops, ud);
        if (r < PROP_RESULT_FAILED)
            r = prop_result_combine(r, prop_exec_node(node_children(n)[1], os, depth + 1, ops, ud));
        break;
    case PROP_ON_CHANGE:
        r = prop_exec_node(node_children(n)[0], os, depth + 1, ops, ud);
        if (r == PROP_RESULT_CHANGED)
            r = prop_result_combine(r, prop_exec_node(node_children(n)[1], os, depth + 1, ops, ud));
        break;
    case PROP_FALLBACK:
        r = prop_exec_node(node_children(n)[0], os, depth + 1, ops, ud);
        if (r == PROP_RESULT_FAILED) {
            r2 = prop_exec_node(node_children(n)[1], os, depth + 1, ops, ud);
            r = r2;
        }
        break;
    case PROP_PICK_OS:
        alt = pick(n, os);
        if (alt)
            r = prop_exec_node(alt, os, depth + 1, ops, ud);
        else {
            r = PROP_RESULT_FAILED;
            why = "no alternative of pick_os runs on this host's operating system";
        }
        break;
    case PROP_REVERTABLE:
        r = prop_exec_node(node_children(n)[0], os, depth + 1, ops, ud);
        break;
    case PROP_REVERT:
        if (n->rev)
            r = prop_exec_node(n->rev, os, depth + 1, ops, ud);
        else {
            r = PROP_RESULT_FAILED;
            why = "not revertable";
        }
        break;
    case PROP_PROPS:
        for (i = 0; i < n->nchildren && r != PROP_RESULT_INTERRUPTED; i++)
            r = prop_result_combine(r, prop_exec_node(node_children(n)[i], os, depth + 1, ops, ud));
        break;
    case PROP_DESCRIBE:
        r = prop_exec_node(node_children(n)[0], os, depth + 1, ops, ud);
        break;
    case PROP_ONLY_IF:
        switch (ops->test ? ops->test(ud, n, &msg) : 0) {
        case 1:
            r = prop_exec_node(node_children(n)[0], os, depth + 1, ops, ud);
            break;
        case 0:
            why = "its only_if test does not hold: not ensured";
            break;
        default:
            /* A test stopped by a signal is interrupted, not failed. */
            r = ops->stop && ops->stop(ud) ? PROP_RESULT_INTERRUPTED : PROP_RESULT_FAILED;
            why = msg ? msg : "its only_if test failed";
            break;
        }
        break;
    }
    if (ops->done)
        ops->done(ud, n, depth, r, now_ms() - t0, why);
    free(msg);
    return r;
}

prop_result
prop_exec_host(const prop_host *h, const prop_exec_ops *ops, void *ud, prop_exec_summary *sum)
{
    prop_os_set os = prop_host_os(h);
    prop_result all = PROP_RESULT_OK, r;
    double t0 = now_ms();
    size_t i, n = prop_host_nprops(h);

    sum->ok = sum->changed = sum->failed = sum->skipped = 0;
    sum->stopped = 0;
    for (i = 0; i < n; i++) {
        if (ops->stop && ops->stop(ud)) {
            sum->stopped = 1;
            sum->skipped = (unsigned)(n - i);
            break;
        }
        r = prop_exec_node(prop_host_prop(h, i), os, 0, ops, ud);
        if (r == PROP_RESULT_INTERRUPTED) {
            sum->stopped = 1;
            sum->skipped = (unsigned)(n - i);
            all = r;
            break;
        }
        if (r == PROP_RESULT_OK)
            sum->ok++;
        else if (r == PROP_RESULT_CHANGED)
            sum->changed++;
        else
            sum->failed++;
        all = prop_result_combine(all, r);
    }
    sum->ms = now_ms() - t0;
    return all;
}
