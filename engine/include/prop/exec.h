/*
 * exec.h - the executor: ensures a host's properties in order, with the
 * run-time meaning of every combinator.  What a single leaf does is the
 * caller's (the Lua bindings run its check and apply); the executor owns
 * only the order, the combination of results and the events.
 */
#ifndef PROP_EXEC_H
#define PROP_EXEC_H

#include "prop/prop.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Ordered so that combining is max(): interrupted beats failed beats
 * changed beats ok.  Interrupted: the run was stopped (a signal) while
 * this ran, so it is not done; the caller's ensure() says so.
 */
typedef enum prop_result {
    PROP_RESULT_OK = 0,
    PROP_RESULT_CHANGED = 1,
    PROP_RESULT_FAILED = 2,
    PROP_RESULT_INTERRUPTED = 3
} prop_result;

prop_result prop_result_combine(prop_result a, prop_result b);
/* "ok", "changed", "failed", "interrupted" */
const char *prop_result_name(prop_result r);

typedef struct prop_exec_ops {
    /*
     * Ensure one leaf (kind PROP_LEAF): is it already true, and if not make
     * it so.  On failure *msg may be set to a malloc'd reason, which the
     * executor passes to done() and then frees.
     */
    prop_result (*ensure)(void *ud, const prop_node *leaf, char **msg);
    /* Optional: a node starts (depth 0 is a top-level property). */
    void (*start)(void *ud, const prop_node *n, unsigned depth);
    /*
     * Optional: a node is done, with its result and time in milliseconds.
     * msg, when set, is the node's own reason: why it failed, or why an
     * only_if ensured nothing; a composite whose parts decided its result
     * has none (but requires says "a requirement failed").
     */
    void (*done)(void *ud, const prop_node *n, unsigned depth, prop_result r, double ms,
                 const char *msg);
    /* Optional: non-zero asks the run to stop before the next property. */
    int (*stop)(void *ud);
    /*
     * The test of an only_if node n (prop_node_behaviour(n) is its handle):
     * 1 when it holds, 0 when not, -1 when it failed (with *msg as for
     * ensure).  Without it, tests never hold.
     */
    int (*test)(void *ud, const prop_node *n, char **msg);
} prop_exec_ops;

/*
 * Ensure n on a host running os.  Combinators: requires(a,b) runs b, then a
 * unless b failed; before(a,b) runs a, then b unless a failed; on_change
 * runs b only when a changed; fallback runs b only when a failed (and its
 * result is b's); pick_os runs the first alternative whose targets hold
 * os; props runs each, failures do not stop the rest; revert runs the
 * reverted form; only_if runs p when its test holds (ok when it does not,
 * failed when the test fails); info properties are ok.  Once a part is
 * interrupted, nothing more of n runs, and n is interrupted.
 */
prop_result prop_exec_node(const prop_node *n, prop_os_set os, unsigned depth,
                           const prop_exec_ops *ops, void *ud);

typedef struct prop_exec_summary {
    unsigned ok, changed, failed, skipped; /* top-level properties */
    double ms;
    int stopped; /* stop() asked to stop, or a property was interrupted */
} prop_exec_summary;

/*
 * Ensure every top-level property of h in order; a failure does not stop
 * the next, an interruption does (the interrupted one counts as skipped).
 */
prop_result prop_exec_host(const prop_host *h, const prop_exec_ops *ops, void *ud,
                           prop_exec_summary *sum);

#ifdef __cplusplus
}
#endif
#endif /* PROP_EXEC_H */
