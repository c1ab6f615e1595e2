/*
 * run.h - the run object: run_new(ctx, opts, observer), run_hosts,
 * run_stop, run_free, with an observer (run_observer) told of each host
 * and property as the run goes; and what the run_*.c files that make it
 * share.  prop run (cmd_run.c: options, --report), prop pull
 * (pull_record.c), prop status, prop verify (cmd_verify.c: a dry run
 * read as a check) and the REPL's :plan use it; no run_*.c
 * file calls back into them.  The map of bindings/ in lprop.h says what
 * each file holds.
 */
#ifndef RUN_H
#define RUN_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include <lua.h>

#include "cli.h"
#include "lsys.h"
#include "prop/exec.h"

#define MAX_TAGS 64
#define SUMMARY_MARK '\001' /* a child's last line: its outcome, for the parent */
#define AGAIN_MARK '\002'   /* a child's line: a property the second run changed */

typedef struct run run;

/* --timeout's default: seconds for one operation on a target. */
#define RUN_DEFAULT_TIMEOUT 300

typedef struct run_opts {
    cli_site_opts site;
    int dry, diff, json, jobs;
    int twice;  /* --twice: run, then run again; the second run must change nothing */
    int record; /* this is the second run of --twice: record what changes */
    int accept_new;
    int no_pipeline; /* --no-pipeline: every SSH write waits for its answer */
    int connect_timeout, op_timeout;
    size_t max_output; /* --max-output: bytes (0: the transports' default) */
    int serial;        /* hosts per batch (0: one batch); negative: a percentage */
    /* --tags: run only properties with one of these (none: all);
     * --skip-tags: leave out those with one of these.  Words of argv. */
    const char *tags[MAX_TAGS], *skip_tags[MAX_TAGS];
    size_t ntags, nskip;
    int max_fail;          /* hosts that may fail before the next batch is held back */
    const char *site_path; /* the site file: its secret store is beside it */
    const char *report;    /* --report FILE */
    /* The host is this machine (prop pull): it is reached here whatever
     * its connect.* info says, unless it is a directory tree (connect.dir). */
    int local;
    /* prop verify: a dry run (dry is set too) whose results are named as
     * a check of the site: a property that would change is "drift", the
     * failure's message is on the property's line, the host's counts are
     * ok/drift/failed. */
    int verify;
    run *run; /* the run these are the options of (run_new) */
} run_opts;

/* What became of one host. */
typedef struct outcome outcome;
struct outcome {
    unsigned ok, changed, failed, skipped;
    int unreachable; /* could not be reached (or its key was refused) */
    int stopped;     /* interrupted */
    int refused;     /* its OS is not one its properties run on: nothing ran */
    int info_only;   /* it only carries information: nothing to run */
    double ms;
    /* Its containers (run after it) that failed or were refused, could
     * not be reached, or were interrupted. */
    unsigned ctr_failed, ctr_unreachable, ctr_stopped;
    int held; /* not run: an earlier batch had more failed hosts than --max-fail */
};

/* A top-level property whose done() waits for answers (run_defer.c):
 * what it noted, set aside while the properties after it run. */
typedef struct run_top {
    const prop_node *top;
    char *notes, *warnings, *diffs;
    size_t notes_len, notes_cap, warnings_len, warnings_cap, diffs_len, diffs_cap;
} run_top;

/* Everything the executor's callbacks need for one host. */
typedef struct host_run {
    lprop_ctx *ctx;
    const run_opts *o;
    const prop_host *h;
    const char *name;
    lsys sys;
    int sys_idx;          /* stack index of the `sys` userdata */
    int progress;         /* a terminal: show the running property */
    int color;            /* colour on stdout */
    const prop_node *top; /* the top-level property running now */
    struct outcome *oc;   /* the host's counts */
    prop_secrets *store;  /* opened when a secret is first needed; freed (and
                             every value wiped) when the host is done */
    /* What the properties that put containers on the host gave (the
     * containers of h, in order; -1: it did not run). */
    int *attach;
    /* A shared trigger target running now, and what triggered it. */
    const prop_node *trig;
    const prop_node *const *trig_sources; /* a NULL: owed from the last run */
    size_t trig_n;
    /* Owed trigger targets, kept on the target in its pending file
     * (every host's records there: run_pending.c); NULL: not read, never
     * written. */
    prop_transport *t;
    prop_pending *pending;
    /* Writes are answered later (prop_transport_defer): the top-level
     * properties started whose done() has not come, oldest first. */
    int deferring;
    run_top *tops;
    size_t ntops, tops_cap;
} host_run;

/* How an owed trigger target is named in what prop run says. */
#define PENDING_TEXT "pending from the last run"

/*
 * What a run tells of itself as it goes, besides what it prints: a
 * struct of callbacks (each may be NULL) and the payload they are given.
 * Make one with RUN_OBSERVER_INIT, then set what is wanted.
 */
typedef struct run_observer {
    unsigned version; /* RUN_OBSERVER_VERSION */
    /* A host's (or container's) summary, as it is printed: state
     * "unreachable", "refused", "interrupted" or NULL, and why. */
    void (*host_done)(const prop_host *h, const outcome *oc, const char *state, const char *why,
                      void *payload);
    /* A property counted ok or changed. */
    void (*prop_result)(const prop_host *h, const prop_node *n, prop_result r, void *payload);
    /* A property counted failed, and its message (may be NULL). */
    void (*failure)(const prop_host *h, const prop_node *n, const char *msg, void *payload);
    void *payload;
} run_observer;
#define RUN_OBSERVER_VERSION 1
#define RUN_OBSERVER_INIT                                                                          \
    {                                                                                              \
        RUN_OBSERVER_VERSION, NULL, NULL, NULL, NULL                                               \
    }

/* A run of hosts of a loaded, checked site (run_object.c). */
struct run {
    lprop_ctx *ctx;
    run_opts o; /* o.run is this run */
    run_observer obs;
    /* SIGINT and SIGTERM (or run_stop): how many came, and the last,
     * passed on to a running command and to the jobs. */
    volatile sig_atomic_t stop_requested, stop_signal;
    /* This process is a job of a parallel run (a forked child)... */
    volatile sig_atomic_t in_job;
    /* ... and its stdout is the pipe to the parent. */
    int piped_job;
    /* --twice: the lines of the properties the second run changed. */
    struct {
        char *buf;
        size_t len, n;
    } again;
};

/* run_object.c */
#define EXIT_INTERRUPTED 130
/* A run of hosts of ctx (a loaded, checked site) with the options o
 * (copied) and the observer obs (copied; NULL: none).  NULL when out of
 * memory or obs is of another version.  Freed by run_free. */
run *run_new(lprop_ctx *ctx, const run_opts *o, const run_observer *obs);
/* Run hosts[0..nhosts) (in parallel with -j, in batches with --serial,
 * twice with --twice), print the summary of the hosts, and return the
 * exit code; the outcomes are left in ocs. */
int run_hosts(run *r, const prop_host **hosts, size_t nhosts, outcome *ocs);
/* Stop r as signal sig would: nothing more starts. */
void run_stop(run *r, int sig);
void run_free(run *r); /* accepts NULL */
/* Load the site at o->site_path for a run of names[0..nnames) (every
 * host but containers when nnames is 0), its findings shown: -1 to go on,
 * else the exit code after a message; what is set of *ctxp, *hostsp
 * (*nhostsp hosts) and *ocsp (zeroed outcomes) is the caller's to free. */
int run_open_site(run_opts *o, const char *const *names, int nnames, lprop_ctx **ctxp,
                  const prop_host ***hostsp, size_t *nhostsp, outcome **ocsp);
/* SIGINT and SIGTERM stop r from now on. */
void run_catch_signals(run *r);
/* Tell the observer of hr's run of n's result, as it is counted. */
void run_observe_result(host_run *hr, const prop_node *n, prop_result res, const char *msg);
/* Whether r should stop (NULL: no). */
int run_stopping(const run *r);
/* Whether the run should stop; ud is a host_run (exec.h's callback). */
int run_want_stop(void *ud);
/* Note a line of a property the second run of --twice changed. */
void run_again_add(run *r, const char *line, size_t len);
/* Under --twice's second run, keep (or send the parent) n as changed. */
void run_record_again(host_run *hr, const prop_node *n);

/* run_tags.c */
/* Mark the properties of h that --tags/--skip-tags select: 0, or -1. */
int run_select_for_host(lua_State *L, const run_opts *o, const prop_host *h);
/* Whether n was selected for the host being run (1 when nothing is marked). */
int run_selected(lua_State *L, const prop_node *n);
/* Warn of the tags of list that no property of the site has. */
void run_warn_unknown_tags(lua_State *L, const char *const *list, size_t n, const char *opt);

/* run_prefetch.c */
/* Tell t which files h's properties will look at (a hint). */
void run_prefetch(prop_transport *t, const prop_host *h, int os_unknown);

/* run_report.c */
/* What r is called in JSON and --report: prop_result_name, but
 * "drift" for a change under prop verify. */
const char *run_result_word(const run_opts *o, prop_result r);
/* "file:line" of where n was declared into buf ("?" when not known); returns buf. */
const char *run_origin_of(const prop_node *n, char *buf, size_t size);
/* Text from the site or the target on stdout, shown and never obeyed. */
void run_text(const char *s);
/* s as a JSON string on stdout ("" for NULL). */
void run_json_str(const char *s);
/* {"event":"NAME","run":"ID"[,"commit":"C","dirty":B], on f; the event's
 * own fields follow. */
void run_json_event(FILE *f, const char *name);
/* "host":"box/web","container":"web" on stdout (a host has no "container"). */
void run_json_host(const prop_host *h);
/* --report: the unnamed temporary file of the entries (-1: no report),
 * and the pass the entries are of (0, or 1 and 2 under --twice). */
extern int run_report_fd, run_report_pass;
/* Start an entry of kind 'P' (property) or 'H' (host) for h in a memory
 * stream; NULL when there is no report or no memory. */
FILE *run_report_begin(char **buf, size_t *len, char kind, const prop_host *h);
/* End the entry m (its object's closing brace is written here) and add it. */
void run_report_end(FILE *m, char **buf, size_t *len);
/* ,"key":"v" / ,"key":["line",...] of the lines of text, on m. */
void run_report_str(FILE *m, const char *key, const char *v);
void run_report_lines(FILE *m, const char *key, const char *text);
/* A host's summary line (text or JSON), its --report entry, prop pull's record. */
void run_print_host(const run_opts *o, const prop_host *h, const outcome *oc, const char *why,
                    int color);
/* The run's id (random), and the commit of the site's git work tree. */
void run_make_id(void);
void run_find_site_commit(const char *site);
/* Whether the report can be written as FILE (a temporary file made beside
 * it, and removed): 0, or -1 with a message.  Before the run, so that a
 * report that cannot be written fails at once. */
int run_report_open(const char *file);
/* Write the report as o->report, atomically (prop_write_file_atomic);
 * returns rc, or EXIT_FAILED (with a message) when it cannot be written. */
int run_report_write(const run_opts *o, const prop_host **hosts, size_t nhosts, const outcome *ocs,
                     int rc, time_t t0);

/* run_metrics.c */
/* Make run_report_fd (when it is not open yet) the unnamed temporary
 * file a run's entries go to: 0, or -1 after a message (who: the command). */
int run_entries_open(const char *who);
/* The run's entries (run_report_fd) as node_exporter textfile-collector
 * metrics, written atomically over file: each property's state (a change
 * made is ok, one that would be made is drift), each host's reach and
 * counts, when the run ended (ended), how long it took (secs) and its
 * exit code rc.  0, or -1 after a message. */
int run_metrics_write(const char *file, const char *who, time_t ended, double secs, int rc);

/* run_host.c */
/* 1 when nothing on h can change anything: it only carries facts for
 * other hosts, and is never run (prop status leaves it out too). */
int cli_info_only_host(const prop_host *h);
/*
 * A dry run of host h of a loaded, checked site, by a run object,
 * printed as `prop run --dry-run` prints it (the REPL's :plan).  Returns
 * the exit code.
 */
int cli_dry_run_host(lprop_ctx *ctx, const prop_host *h, int color);
/*
 * Reach host h (not a container) the way prop run does: its connect.*
 * info, the same host key checks; a tree that is not there is
 * unreachable (prop status).  0, or PROP_EUNREACHABLE with the reason in
 * why; *t may be set even on failure (the caller closes it).
 */
int cli_open_transport(const prop_host *h, int accept_new, int connect_timeout, prop_transport **t,
                       char *why, size_t wsize);
/* Run host h (and its containers): its outcome in oc. */
void run_host(lprop_ctx *ctx, const run_opts *o, const prop_host *h, int progress, int color,
              outcome *oc);
/* Run host h; pt: the parent's transport when h is a container run after
 * its parent, NULL when h is reached on its own. */
void run_host_in(lprop_ctx *ctx, const run_opts *o, const prop_host *h, prop_transport *pt,
                 int progress, int color, outcome *oc);

/* run_containers.c */
/* Run the containers of hr's host through its transport t, once its own
 * properties have run; what became of them is added to oc. */
void run_containers(lprop_ctx *ctx, const run_opts *o, host_run *hr, prop_transport *t,
                    int progress, int color, outcome *oc);

/* run_defer.c: deferred results (exec.h's batch, pending, settle,
 * failure; ud is a host_run), and the notes of the top-level properties
 * whose results wait: run_defer_start() when one starts (-1: out of
 * memory), run_defer_done_begin() and _end() around each done(). */
void run_defer_batch(void *ud, unsigned long b);
int run_defer_pending(void *ud);
void run_defer_settle(void *ud);
char *run_defer_failure(void *ud, unsigned long b);
int run_defer_start(host_run *hr, const prop_node *n);
const prop_node *run_defer_done_begin(host_run *hr, int *swapped);
void run_defer_done_end(host_run *hr, unsigned depth, int swapped, const prop_node *newest);
void run_defer_free(host_run *hr);

/* run_exec.c: the executor's callbacks (prop_exec_ops, exec.h); ud is a host_run. */
prop_result run_ensure_leaf(void *ud, const prop_node *leaf, char **msg);
void run_on_start(void *ud, const prop_node *n, unsigned depth);
void run_on_done(void *ud, const prop_node *n, unsigned depth, prop_result r, double ms,
                 const char *msg);
int run_test_only_if(void *ud, const prop_node *n, char **msg);
void run_on_triggered(void *ud, const prop_node *n, unsigned depth, const prop_node *const *sources,
                      size_t nsources);
/* Whether --tags/--skip-tags select n. */
int run_select_node(void *ud, const prop_node *n);
/* lsys's reveal: the bytes of a secret the host uses, from the site's store. */
int run_reveal_secret(void *ud, const char *name, const unsigned char **data, size_t *len,
                      char *why, size_t whysize);

/* run_pending.c */
/* Take PROP_STATE_DIR, when set, as where targets keep prop's state: 0,
 * or EXIT_USAGE after printing why it will not do. */
int run_state_dir_from_env(void);
/* Where targets keep owed triggers (under PROP_STATE_DIR, when set). */
const char *run_pending_path(void);
/* Read the pending file on hr's target into hr->pending; this host's
 * records in *owed (malloc'd, *nowed of them).  0, or -1 out of memory. */
int run_pending_load(host_run *hr, prop_owed **owed, size_t *nowed);
/* Say what is owed from the last run; drop what the site no longer has. */
void run_pending_report(host_run *hr, prop_owed *owed, size_t nowed);
/* The executor's owe(): keep (or forget) n as owed on the target. */
void run_on_owe(void *ud, const prop_node *n, int owed);

/* run_jobs.c */
/* Run hosts[0..n) with at most o->jobs at once; outcomes in ocs. */
void run_parallel(lprop_ctx *ctx, const run_opts *o, const prop_host **hosts, size_t n, int color,
                  outcome *ocs);

#endif /* RUN_H */
