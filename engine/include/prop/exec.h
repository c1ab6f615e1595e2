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

PROP_API prop_result prop_result_combine(prop_result a, prop_result b);
/* "ok", "changed", "failed", "interrupted" */
PROP_API const char *prop_result_name(prop_result r);

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
    /*
     * Optional: n, a shared trigger target (see prop_triggers below), is
     * about to start, run once for the nsources properties whose change
     * triggered it (sources[i] is the first side of each such on_change,
     * in run order).  sources stays valid until done() for n returns.
     */
    void (*triggered)(void *ud, const prop_node *n, unsigned depth, const prop_node *const *sources,
                      size_t nsources);
    /*
     * Optional: 0 leaves n out of this run (prop run --tags): it is not
     * started, ensured nor reported, and counts as ok for the combinators
     * around it.  Without it, every node runs.
     */
    int (*select)(void *ud, const prop_node *n);
    /*
     * Optional, durable triggers (prop_triggers_new_owed): owed 1, the
     * trigger target n is owed a run, before it runs (its trigger
     * changed; a shared target, at its first trigger); owed 0, n (a
     * target once owed) ran and did not fail, and nothing more is noted
     * for it.  A caller keeps what is owed on the target, so that a run
     * that fails or is killed in between leaves it owed for the next.
     */
    void (*owe)(void *ud, const prop_node *n, int owed);
    /*
     * Optional, deferred results: all four or none, and only with
     * prop_exec_top() (prop_exec_node() ignores them).  For a caller whose
     * leaves' file operations may be answered after ensure() returned
     * (prop_transport_defer over SSH):
     *   batch(ud, b): a node starts, b counting up from 1; what it does
     *     until the next batch() belongs to batch b (prop_transport_batch);
     *   pending(ud): non-zero while an operation waits for its answer;
     *   settle(ud): wait for every answer (prop_transport_settle);
     *   failure(ud, b): the malloc'd reason batch b failed for, handed
     *     over, or NULL (prop_transport_batch_failure).
     * A leaf's result is then provisional until the answers are in: done()
     * is called once they are (in order, and each node after its parts),
     * with the leaf failed, and every node around it, when one of its
     * operations failed; a decision that reads a part's result (requires,
     * before, on_change, fallback) settles first, so it is exact.  The
     * result prop_exec_top() returns may be provisional; call
     * prop_exec_settle() after the last one.
     */
    void (*batch)(void *ud, unsigned long b);
    int (*pending)(void *ud);
    void (*settle)(void *ud);
    char *(*failure)(void *ud, unsigned long b);
} prop_exec_ops;

/*
 * Ensure n on a host running os.  Combinators: requires(a,b) runs b, then a
 * unless b failed; before(a,b) runs a, then b unless a failed; on_change
 * runs b only when a changed; fallback runs b only when a failed (and its
 * result is b's); pick_os runs the first alternative whose targets hold
 * os; props runs each, failures do not stop the rest; revert runs the
 * reverted form; only_if runs p when its test holds (ok when it does not,
 * failed when the test fails); info properties are ok.  Once a part is
 * interrupted, nothing more of n runs, and n is interrupted.  Every
 * on_change here runs its own target: sharing targets is prop_exec_top's.
 */
PROP_API prop_result prop_exec_node(const prop_node *n, prop_os_set os, unsigned depth,
                                    const prop_exec_ops *ops, void *ud);

/*
 * Triggers that run once.  When on one host the same property is the
 * target of several on_change (service.restarted "nginx" after two
 * config files), it runs once, as Ansible's handlers and Puppet's
 * refresh do.  The exact rule:
 *
 * - Counted: the on_change nodes met walking the host's properties in
 *   run order, each alternative the executor would take (the pick_os
 *   alternative for the host's OS, both sides of a fallback, the
 *   reverted form of a revert), not looking inside an on_change's
 *   target.  A top-level property that only carries information is
 *   not walked.
 * - Two targets are the same property when they are the same node or
 *   are made alike: the same kind, description, type (targets,
 *   revertable), ports, claims and information, and children the same
 *   in turn.  What a leaf runs (its behaviour) is not compared: a
 *   property's description and claims name what it does; a leaf that
 *   claims nothing is the same only as itself (the same node).
 * - A target counted at least twice is shared.  Its on_change runs its
 *   first side as ever but never runs the target itself; when the first
 *   side changed, it is noted as a trigger.  Once the last counted
 *   on_change (in run order) has run, the target runs once, right there
 *   (inside that on_change, which takes its result) when at least one
 *   trigger is noted.  When that last on_change is skipped (its
 *   property's requirement failed, an only_if did not hold, a fallback
 *   was not needed), the target runs at the end of the top-level
 *   property that holds it, before that property is done.
 * - When the same property runs for another reason while triggers are
 *   noted (a property requires it, or it is listed on its own), that run
 *   serves them: they are cleared, and a later trigger notes anew.
 * - An interrupted run runs no noted target.
 * A target counted once keeps the plain on_change: it runs right after
 * its first side, when that changed.
 */
typedef struct prop_triggers prop_triggers;

/*
 * The triggers of a run of props[0..n) (a host's top-level properties,
 * kept by pointer: they must outlive it) on os.  *out is NULL on entry;
 * PROP_ENOMEM, or PROP_EINVAL for a NULL props with n > 0.
 */
PROP_API int prop_triggers_new(const prop_node *const *props, size_t n, prop_os_set os,
                               prop_triggers **out);
PROP_API void prop_triggers_free(prop_triggers *t); /* accepts NULL */
/*
 * Durable triggers: the trigger targets an earlier run owed (their
 * trigger changed, and they failed or never ran).  Each is named by its
 * description and origin ("file:line" of the node that made it).  A
 * counted on_change target with that description is the one owed (with
 * that origin, when several have the description; the first met
 * otherwise); it is made shared, with a trigger already noted that
 * stands for the earlier run (a NULL entry in triggered()'s sources), so
 * it runs once in this run, where it would run for a change, even when
 * nothing changes now.  target is set to the shared target (its
 * description and origin name it from now on), or NULL when no counted
 * on_change of props has such a target any more.
 */
typedef struct prop_owed {
    const char *desc, *origin; /* in */
    const prop_node *target;   /* out */
} prop_owed;
PROP_API int prop_triggers_new_owed(const prop_node *const *props, size_t n, prop_os_set os,
                                    prop_owed *owed, size_t nowed, prop_triggers **out);
/* "file:line" of n's innermost frame ("?" when it has none) into buf. */
PROP_API const char *prop_node_origin_text(const prop_node *n, char *buf, size_t size);
/* How many shared targets there are, and the i-th (first met). */
PROP_API size_t prop_triggers_count(const prop_triggers *t);
PROP_API const prop_node *prop_triggers_target(const prop_triggers *t, size_t i);
/* Whether a and b are the same property in the sense above. */
PROP_API int prop_node_same(const prop_node *a, const prop_node *b);

/*
 * Ensure the top-level property i of t's run, at depth 0, with shared
 * targets run once as above.  Call it for i in increasing order, once
 * each (skipping some is fine: a skipped one triggers nothing).
 */
PROP_API prop_result prop_exec_top(prop_triggers *t, size_t i, const prop_exec_ops *ops, void *ud);
/* With deferred results (see prop_exec_ops): wait for every answer and
 * report what waited for them.  Call it after the last prop_exec_top(),
 * and before anything that needs every result. */
PROP_API void prop_exec_settle(prop_triggers *t, const prop_exec_ops *ops, void *ud);

typedef struct prop_exec_summary {
    unsigned ok, changed, failed, skipped; /* top-level properties */
    double ms;
    int stopped; /* stop() asked to stop, or a property was interrupted */
} prop_exec_summary;

/*
 * Ensure every top-level property of h in order; a failure does not stop
 * the next, an interruption does (the interrupted one counts as skipped).
 * Shared trigger targets run once (prop_triggers); PROP_RESULT_FAILED
 * with nothing run when memory runs out.
 */
PROP_API prop_result prop_exec_host(const prop_host *h, const prop_exec_ops *ops, void *ud,
                                    prop_exec_summary *sum);

/*
 * The record of owed triggers a target keeps between runs
 * (/var/lib/prop/pending): host, description, origin of each, one a
 * line, tab-separated (backslash, tab, newline and carriage return
 * escaped as \\, \t, \n, \r); '#' starts a comment line.
 */
typedef struct prop_pending prop_pending;
PROP_API int prop_pending_new(prop_pending **out);
PROP_API void prop_pending_free(prop_pending *p); /* accepts NULL */
/*
 * The bounds of a record file: a line longer than PROP_PENDING_RECORD_MAX
 * bytes is no record, and a file longer than PROP_PENDING_FILE_MAX is not
 * parsed (a caller says so and reads none of it).
 */
#define PROP_PENDING_RECORD_MAX (64u * 1024u)
#define PROP_PENDING_FILE_MAX (16u * 1024u * 1024u)
/*
 * Parse a record file, in time linear in its length.  A malformed line
 * (or one over PROP_PENDING_RECORD_MAX) is skipped: *bad_line is the
 * first such line's number (0: none); a record met again is kept once.
 * PROP_ENOMEM; PROP_EINVAL, also for len over PROP_PENDING_FILE_MAX.
 */
PROP_API int prop_pending_parse(const char *data, size_t len, prop_pending **out,
                                unsigned *bad_line);
PROP_API size_t prop_pending_count(const prop_pending *p);
PROP_API int prop_pending_get(const prop_pending *p, size_t i, const char **host, const char **desc,
                              const char **origin);
/* Add a record unless the same is there.  PROP_EINVAL for an empty host
 * or description, a host starting with '#', or a record whose line would
 * be longer than PROP_PENDING_RECORD_MAX (it could not be read back). */
PROP_API int prop_pending_add(prop_pending *p, const char *host, const char *desc,
                              const char *origin);
/* Remove every record equal to this one; how many were. */
PROP_API size_t prop_pending_remove(prop_pending *p, const char *host, const char *desc,
                                    const char *origin);
/* Remove the records i whose drop[i] is non-zero (drop has one entry per
 * record), in one pass; how many were. */
PROP_API size_t prop_pending_sweep(prop_pending *p, const unsigned char *drop);
PROP_API int prop_pending_set_origin(prop_pending *p, size_t i, const char *origin);
/* The file's text (malloc'd *out, a comment line first). */
PROP_API int prop_pending_format(const prop_pending *p, char **out, size_t *len);

#ifdef __cplusplus
}
#endif
#endif /* PROP_EXEC_H */
