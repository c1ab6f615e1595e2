/*
 * lprop_state.h - the context of a Lua state made by lprop_open (one
 * lprop_ctx per state), and the helpers every part of the bindings uses
 * to raise errors and to make Lua values without leaking what C holds
 * (lprop_state.c).  The bottom of the bindings' ladder: it includes no
 * other lprop_*.h, and each part of the ctx below belongs to one file,
 * which alone writes it:
 *
 *   heap     lprop_alloc.c   the allocator's counts, slabs and test hook
 *   budget   lprop_budget.c  instructions, the CPU clock, why code stopped
 *   paths    lprop_require.c where the site is, for require's confinement
 *   types    lprop_property.c the Property and Host metatables
 *   memo     lprop_memo.c, lprop_entry.c  the memo of recipe calls
 *
 * and the rest (the state, the site, the limits, the environment) is
 * lprop_eval.c's, which makes and closes the state.
 */
#ifndef LPROP_STATE_H
#define LPROP_STATE_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#include <lua.h>

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

/*
 * Blocks of up to LPROP_POOL_MAX bytes come from size-class free lists
 * carved out of large slabs (lprop_alloc.c says why and how the memory
 * limit counts them); the slabs are freed when the state is closed.
 * Classes: 16, 32, ... 256 bytes, then four in each doubling up to
 * LPROP_POOL_MAX.
 */
#define LPROP_POOL_MAX 65536
#define LPROP_POOL_CLASSES (16 + 8 * 4)
typedef struct lprop_pool {
    void *free[LPROP_POOL_CLASSES]; /* free blocks, linked through their first word */
    char *cur, *end;                /* unused space in the newest slab */
    void *slabs;                    /* every slab, linked through its first word */
    size_t nslabs;
} lprop_pool;

typedef struct lprop_memo lprop_memo;

typedef struct lprop_ctx {
    lua_State *L;
    prop_site *site;
    lprop_limits limits;
    int env_ref;      /* registry ref of the config environment */
    int evaluating;   /* inside lprop_eval_file's protected call */
    int secrets_made; /* a Secret was made: leaves are searched for the
                         secrets they use (lprop_secret.c) */
    struct lprop_heap {
        size_t used; /* bytes allocated through lprop's allocator */
        size_t peak; /* highest `used` seen */
        lprop_pool pool;
        /* The PROP_FAIL_ALLOC test hook: requests for more memory so
         * far, the one to refuse (0: none), and that request, whose retry
         * after Lua's emergency collection is refused too. */
        struct {
            unsigned long long count, at;
            const void *ptr;
            size_t osize, nsize;
            int again;
        } faults;
    } heap;
    struct lprop_budget {
        long long instructions; /* counted in steps of the hook's period */
        char where_file[256];   /* last user-code place the hook saw */
        int where_line;
        /* Why the running code was stopped (budget spent, CPU time used
         * up, interrupted): pcall and xpcall raise it again, and the count
         * hook at every instruction.  Cleared by lprop_budget_reset.
         * stop_msg holds the text when it is made up. */
        const char *stop;
        char stop_msg[160];
        /* When set and non-zero (the REPL's SIGINT flag, prop run's count
         * of SIGINT and SIGTERM): the running Lua code stops as
         * "interrupted" at the count hook's next tick, as it does when out
         * of budget.  To stop it at once, a signal handler that sets the
         * flag also calls lprop_interrupt_now. */
        volatile sig_atomic_t *interrupt;
        /* The CPU clock: set by its signal handler once the evaluation has
         * used limits.max_cpu seconds, which end at cpu_deadline
         * (nanoseconds of the process's CPU clock). */
        volatile sig_atomic_t cpu_expired;
        long long cpu_deadline;
    } budget;
    struct lprop_paths {
        char *site_dir;  /* directory of the site file ("." if none) */
        char *site_real; /* its realpath, for require's confinement */
        int in_embedded; /* depth of prop's own modules being loaded: only
                            they may wrap a function with core.entry */
    } paths;
    /* The Property and Host metatables (anchored in the registry for the
     * life of the state): a registry index to push them, and their
     * addresses to recognise a userdata without a lookup by name. */
    struct lprop_types {
        int node_mt_ref, host_mt_ref;
        const void *node_mt, *host_mt;
    } types;
    /* Check-only states: the memo of recipe calls (NULL when off), how
     * many calls of recipes with plain-data arguments the site made, and
     * how many of those were made again from an earlier equal call. */
    struct lprop_memo_part {
        lprop_memo *table;
        size_t recipe_calls, recipe_remade;
    } memo;
} lprop_ctx;

/* The ctx of a state made by lprop_open. */
lprop_ctx *lprop_getctx(lua_State *L);

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

#endif /* LPROP_STATE_H */
