/*
 * spawn.h - run a program and capture what it says: the one
 * spawn-and-capture of engine and bindings.
 *
 * fork and execve, never a shell: argv[0] without a slash is looked for
 * in the directories of o->path.  Its standard input is the bytes given
 * (through a pipe) or /dev/null; its standard output and error are
 * captured in prop_bufs, sent to /dev/null, or left on ours.  The child
 * sees no file descriptor of ours above 2.  What it sends within
 * max_output bytes (output and error together) is kept; past it the
 * program is cut off (killed, PROP_SPAWN_TOO_MUCH) or, with drain set,
 * the rest is read and dropped and r->over tells.
 *
 * A time limit and a stop request (the stop callback, polled every
 * 100 ms) end it: at the limit SIGKILL, or SIGTERM and SIGKILL
 * timeout_grace_ms later; at a stop request the signal the callback
 * names, and SIGKILL stop_grace_ms later or at a second request.  With
 * a group of its own (PROP_SPAWN_PGRP, PROP_SPAWN_SESSION) the signals
 * go to its whole process group.
 */
#ifndef PROP_SPAWN_H
#define PROP_SPAWN_H

#include <stddef.h>

#include "buf.h"

/* Where its standard output or error goes. */
enum {
    PROP_SPAWN_CAPTURE = 0, /* into r->out or r->err */
    PROP_SPAWN_NULL,        /* /dev/null */
    PROP_SPAWN_INHERIT,     /* our standard error (both of them) */
};

/* The process group it runs in. */
enum {
    PROP_SPAWN_SAME_GROUP = 0, /* ours */
    PROP_SPAWN_PGRP,           /* a group of its own (setpgid) */
    /* A session of its own (no terminal to read from), killed when prop
     * dies (Linux: PR_SET_PDEATHSIG), not started when prop is gone. */
    PROP_SPAWN_SESSION,
};

typedef struct prop_spawn_opts {
    char *const *argv;
    char *const *envp; /* its environment */
    const char *path;  /* PATH: where argv[0] without a slash is looked for */
    const char *dir;   /* its working directory; NULL: ours */
    int stdin_null;    /* standard input /dev/null rather than in */
    const void *in;    /* its standard input (NULL or in_len 0: none) */
    size_t in_len;
    int out, err;               /* PROP_SPAWN_CAPTURE, _NULL, _INHERIT */
    int group;                  /* PROP_SPAWN_SAME_GROUP, _PGRP, _SESSION */
    size_t max_output;          /* 0: no limit */
    int drain;                  /* past max_output: drop the rest rather than cut it off */
    long long timeout_ms;       /* 0: no time limit */
    long long timeout_grace_ms; /* at the limit: 0 SIGKILL, else SIGTERM first */
    /* Stop requests: how many there were (0: none), and the signal in *sig
     * (0: SIGTERM); NULL: none. */
    int (*stop)(void *ud, int *sig);
    void *stop_ud;
    long long stop_grace_ms;
} prop_spawn_opts;

/* Why it did not run to its end. */
enum {
    PROP_SPAWN_OK = 0,
    PROP_SPAWN_SYS,      /* a call failed: r->call, r->errnum */
    PROP_SPAWN_NOT_RUN,  /* it could not be started: r->stage, r->errnum */
    PROP_SPAWN_TIMEOUT,  /* past its time limit */
    PROP_SPAWN_TOO_MUCH, /* past max_output, cut off */
    PROP_SPAWN_NOMEM,    /* no memory for its output: it was killed */
};

/* The step at which the child failed (PROP_SPAWN_NOT_RUN). */
enum {
    PROP_SPAWN_STAGE_FDS = 1, /* dup2 */
    PROP_SPAWN_STAGE_CHDIR,
    PROP_SPAWN_STAGE_EXEC,   /* errnum from execve (ENOENT: not found) */
    PROP_SPAWN_STAGE_INTERP, /* it is there, its interpreter (#!) is not */
};

typedef struct prop_spawn_result {
    int why;           /* PROP_SPAWN_OK..., the first that happened */
    int code;          /* exit status, 128+N for a signal N; -1: not known */
    int termsig;       /* the signal N that ended it, else 0 */
    int stopped;       /* it was sent the stop request's signal */
    int over;          /* drain: output past max_output was dropped */
    int stage;         /* PROP_SPAWN_NOT_RUN */
    int errnum;        /* PROP_SPAWN_SYS, PROP_SPAWN_NOT_RUN */
    const char *call;  /* PROP_SPAWN_SYS: "pipe", "fork", "poll", "sigmask", "waitpid" */
    prop_buf out, err; /* captured; the caller frees them (prop_buf_free) */
} prop_spawn_result;

/*
 * Run o->argv to its end.  PROP_SPAWN_OK, or why not (also in r->why);
 * r is filled in either case and its buffers are the caller's.
 */
int prop_spawn(const prop_spawn_opts *o, prop_spawn_result *r);

/*
 * Our environment with each of set ("NAME=value") put in place of the
 * variable of that name, or added: a malloc'd array (the strings are
 * environ's and set's, not copied), NULL when out of memory.
 */
char **prop_spawn_env(const char *const *set);

/* Where execvp looks when PATH is not set: PATH's value, or this. */
const char *prop_spawn_path(void);

#endif /* PROP_SPAWN_H */
