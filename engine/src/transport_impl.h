/*
 * transport_impl.h - what every transport implements.  prop_transport is
 * a header that each implementation embeds as its first member; the public
 * functions of transport.h check arguments and dispatch through ops.
 */
#ifndef PROP_TRANSPORT_IMPL_H
#define PROP_TRANSPORT_IMPL_H

#include <stdarg.h>

#include "prop/transport.h"

typedef struct prop_transport_ops {
    int (*run)(prop_transport *t, const char *const *argv, const char *stdin_data, size_t stdin_len,
               prop_cmd_result *r);
    int (*read)(prop_transport *t, const char *path, char **data, size_t *len);
    int (*write)(prop_transport *t, const char *path, const char *data, size_t len,
                 const prop_file_attrs *attrs);
    int (*stat)(prop_transport *t, const char *path, prop_file_stat *st);
    int (*remove)(prop_transport *t, const char *path);
    int (*mkdir)(prop_transport *t, const char *path, const prop_file_attrs *attrs);
    int (*symlink)(prop_transport *t, const char *target, const char *link);
    int (*chattr)(prop_transport *t, const char *path, const prop_file_attrs *attrs);
    int (*lock)(prop_transport *t);
    /* Free everything the implementation owns, including t itself. */
    void (*close)(prop_transport *t);
    /* Optional (NULL: the hint is ignored); see prop_transport_prefetch(). */
    int (*prefetch)(prop_transport *t, const char *const *paths, size_t npaths);
    /* Optional (NULL: nothing to do); see prop_transport_sync(). */
    int (*sync)(prop_transport *t);
    /* Optional, all five or none (NULL: every operation is answered when it
     * returns); see prop_transport_defer(). */
    int (*defer)(prop_transport *t, int on);
    void (*batch)(prop_transport *t, unsigned long batch);
    int (*settle)(prop_transport *t);
    size_t (*outstanding)(const prop_transport *t);
    char *(*batch_failure)(prop_transport *t, unsigned long batch);
    /* Optional (NULL: never); see prop_transport_run_deferred(). */
    int (*run_deferred)(prop_transport *t, const char *const *argv, const char *stdin_data,
                        size_t stdin_len, const char *what);
    /* Optional (NULL: this transport has no network: the call fails); see
     * prop_transport_tcp().  req is checked and its defaults are filled. */
    int (*tcp)(prop_transport *t, const prop_tcp_req *req, char **out, size_t *out_len);
} prop_transport_ops;

struct prop_transport {
    const prop_transport_ops *ops;
    char name[1024]; /* "local", "dir:/srv/root", "ssh:root@host:22" */
    char err[1024];  /* the last failure's reason */
    /* Bumped by every run (not by query): anything fetched before may be
     * stale.  A file operation makes stale what it touches; an
     * implementation that fetches ahead sees to that itself. */
    unsigned long changes;
    /* See prop_transport_set_interrupt(); NULL when not set. */
    const volatile sig_atomic_t *intr, *intr_sig;
    /* See prop_transport_set_limits(); 0: the defaults. */
    size_t max_output;
    int timeout_s;
};

/* 1 while prop_transport_chattr_hardlinks() runs (a chattr of a tree may change a file with
 * several hard links), else 0. */
int prop_transport_hardlinks_allowed(void);

/* 1 when t is this machine (prop_transport_local), not a tree or a remote. */
int prop_transport_is_this_machine(const prop_transport *t);

/* How many times the run was asked to stop (0: it was not). */
int prop_transport_stops(const prop_transport *t);
/* The signal to pass on to an interrupted command. */
int prop_transport_stop_signal(const prop_transport *t);
/* The most a command's output or an answer may hold (set_limits). */
size_t prop_transport_max_output(const prop_transport *t);
/* n bytes as a failure says it: "64 MiB", "512 KiB", "100 bytes"; buf returned. */
const char *prop_transport_size_text(size_t n, char buf[32]);

/*
 * Run argv (stdin from stdin_data) as a deferred operation of the current
 * batch, without waiting for its answer, as a write is deferred (see
 * prop_transport_defer()): for a transport stacked on t (a container) whose
 * writes are commands run on t.  Its output is not kept; a status other
 * than 0 fails the batch with what and the command's error output.  0 when
 * sent; 1 when t does not defer it now (t is not deferring, or it cannot:
 * run it with prop_transport_run()); else the failure to send it.
 */
int prop_transport_run_deferred(prop_transport *t, const char *const *argv, const char *stdin_data,
                                size_t stdin_len, const char *what);

/*
 * The TCP exchange of prop_transport_tcp() from this process
 * (transport_tcp.c): on this machine's network, or, with netns_pid > 0,
 * from the network namespace of that process (a child process enters
 * it).  For the transports whose target's network is reachable here.
 */
int prop_tcp_exchange(prop_transport *t, const prop_tcp_req *req, long netns_pid, char **out,
                      size_t *out_len);
/* Whether the answer p[0..*len) is whole by framing (PROP_TCP_CLOSE: only
 * at the peer's close, so never here): 1, *len cut to it (p[*len] becomes
 * NUL: p has a byte beyond *len), or 0. */
int prop_tcp_whole(int framing, char *p, size_t *len);

/* Record the reason of a failure in t->err; returns PROP_ERROR. */
int prop_transport_fail(prop_transport *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif /* PROP_TRANSPORT_IMPL_H */
