/*
 * lprop_eval.h - the per-state context and the evaluation of a site
 * (lprop_eval.c), with the helpers that let C code make Lua values
 * without leaking what it holds when a Lua error is raised.
 */
#ifndef LPROP_EVAL_H
#define LPROP_EVAL_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#include <lua.h>

#include "lprop_alloc.h"
#include "lprop_memo.h"
#include "prop/prop.h"

/* Defaults of the evaluation limits (overridable on the command line). */
#define LPROP_DEFAULT_MAX_INSTRUCTIONS 2000000000LL
#define LPROP_DEFAULT_MAX_MEMORY_MIB 2048
/* Seconds of CPU: a site of 100,000 hosts evaluates in about 25 s. */
#define LPROP_DEFAULT_MAX_CPU 300

typedef struct lprop_limits {
    long long max_instructions; /* VM instructions for one evaluation */
    size_t max_memory;          /* bytes: Lua heap and property graph together */
    int max_cpu;                /* seconds of CPU for one evaluation; 0: none */
    /* The site is only checked, never run (lint, show, graph): leaves keep
     * no impl or args, so that nothing of a property stays in the Lua heap. */
    int check_only;
    /* With check_only: make recipe calls equal to an earlier one again
     * from it (lprop_memo.c) rather than running them. */
    int recipe_memo;
} lprop_limits;

typedef struct lprop_ctx {
    lua_State *L;
    prop_site *site;
    lprop_limits limits;
    size_t used; /* bytes allocated through lprop's allocator */
    size_t peak; /* highest `used` seen */
    lprop_pool pool;
    long long instructions; /* counted in steps of the hook's period */
    char where_file[256];   /* last user-code place the hook saw */
    int where_line;
    char *site_dir;   /* directory of the site file ("." if none) */
    char *site_real;  /* its realpath, for require's confinement */
    int env_ref;      /* registry ref of the config environment */
    int evaluating;   /* inside lprop_eval_file's protected call */
    int in_embedded;  /* depth of prop's own modules being loaded: only they
                         may wrap a function with core.entry */
    int secrets_made; /* a Secret was made: leaves are searched for the
                         secrets they use (lprop_secret.c) */
    /* The Property and Host metatables (anchored in the registry for the
     * life of the state): a registry index to push them, and their
     * addresses to recognise a userdata without a lookup by name. */
    int node_mt_ref, host_mt_ref;
    const void *node_mt, *host_mt;
    /* Check-only states: the memo of recipe calls (NULL when off), how
     * many calls of recipes with plain-data arguments the site made, and
     * how many of those were made again from an earlier equal call. */
    lprop_memo *memo;
    size_t recipe_calls, recipe_remade;
    /* Why the running code was stopped (budget spent, CPU time used up,
     * interrupted): pcall and xpcall raise it again, and the count hook at
     * every instruction.  Cleared by lprop_budget_reset.  stop_msg holds
     * the text when it is made up. */
    const char *stop;
    char stop_msg[160];
    /* When set and non-zero (the REPL's SIGINT flag, prop run's count of
     * SIGINT and SIGTERM): the running Lua code
     * stops as "interrupted" at the count hook's next tick, as it does when
     * out of budget.  To stop it at once, a signal handler that sets the
     * flag also calls lprop_interrupt_now. */
    volatile sig_atomic_t *interrupt;
    /* The CPU clock (lprop_budget.c): set by its signal handler once the
     * evaluation has used limits.max_cpu seconds, which end at
     * cpu_deadline (nanoseconds of the process's CPU clock). */
    volatile sig_atomic_t cpu_expired;
    long long cpu_deadline;
    /* The PROP_FAIL_ALLOC test hook (lprop_alloc.c): requests for more
     * memory so far, the one to refuse (0: none), and that request, whose
     * retry after Lua's emergency collection is refused too. */
    struct {
        unsigned long long count, at;
        const void *ptr;
        size_t osize, nsize;
        int again;
    } faults;
} lprop_ctx;

/*
 * Make a state with prop's allocator, libraries, core module and embedded
 * modules, and an empty site.  NULL when out of memory.
 */
lprop_ctx *lprop_open(const lprop_limits *limits);
/* Close the state, then free the site and the ctx.  Accepts NULL. */
void lprop_close(lprop_ctx *ctx);
/* The ctx of a state made by lprop_open. */
lprop_ctx *lprop_getctx(lua_State *L);

/*
 * Evaluate the site file at path in the config environment.  On failure
 * returns non-zero and leaves a message of the form "file:line: ..." (or
 * "prop: ..." without a place) on top of the stack, with the memory limit
 * lifted so that the error can be reported (the caller puts it back).
 */
int lprop_eval_file(lprop_ctx *ctx, const char *path);
/*
 * A message handler for protected calls into code of the site: the error
 * object as text (its __tostring when it has one) of at most
 * LPROP_MAX_MESSAGE bytes, with the site's innermost line in front when
 * it has no place of its own (an error object that is not a string) or
 * names a line inside prop's own modules (then kept at the end).
 */
#define LPROP_MAX_MESSAGE 8192
int lprop_msgh(lua_State *L);
/* Print an evaluation error (from the stack top) GCC-style on f. */
void lprop_report_error(lprop_ctx *ctx, FILE *f, int color);

/*
 * Fill o with the user-code frames of the current call stack (innermost
 * first), skipping prop's own chunks and C functions; buf holds at most
 * nbuf frames.
 */
void lprop_origin(lua_State *L, prop_origin *o, prop_frame *buf, unsigned nbuf);
/* What raises a Lua error: it never returns (a longjmp past the caller). */
#define LPROP_NORETURN __attribute__((noreturn))
/* Raise a Lua error prefixed with the innermost user place "file:line: ". */
LPROP_NORETURN int lprop_error(lua_State *L, const char *fmt, ...);
/* Raise the engine's last error (out of memory becomes the limit message). */
LPROP_NORETURN int lprop_engine_error(lua_State *L, int rc);

/*
 * Call fn protected, with ud as its only argument (a light userdata), and
 * leave its one result, or its error, on the stack; returns the status of
 * lua_pcall.  For C code that holds malloc'd memory while it makes Lua
 * values: free the memory, then lua_error() when the status is not LUA_OK
 * (a memory error stays one).  Needs 2 free stack slots.
 */
int lprop_cpcall(lua_State *L, lua_CFunction fn, void *ud);
/*
 * Push a Lua string of the len bytes at p, a block from malloc, and free
 * the block whatever happens: when the string cannot be made, the error is
 * raised after the free.  p may be NULL when len is 0.  Returns 1.
 */
int lprop_push_and_free(lua_State *L, char *p, size_t len);
/*
 * prop_node_each_leaf for a visitor that may raise (it makes Lua values):
 * the leaves are first gathered into a userdata by a walk that cannot
 * raise, then visited from there, so that no malloc'd walk stack is live
 * when visit raises.  While the visitor runs that userdata sits just below
 * the stack top the caller left (a visitor working on the table at -1
 * sees no difference); it is removed at the end.  Raises for a graph that
 * shares subtrees so often that its leaves cannot be counted.
 */
void lprop_each_leaf(lua_State *L, const prop_node *n, prop_os_set os, prop_leaf_visit visit,
                     void *ud);

/* A Lua string of these bytes (a light userdata at 1), for lprop_cpcall. */
typedef struct lprop_bytes {
    const char *p;
    size_t len;
} lprop_bytes;
int lprop_push_bytes(lua_State *L);
/* print(...) to f: tab-separated, control characters shown as escapes. */
int lprop_print(lua_State *L, FILE *f);

#endif /* LPROP_EVAL_H */
