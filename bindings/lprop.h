/*
 * lprop.h - what the Lua bindings share: the per-state context, the
 * sandboxed evaluation of a site, and the property/host userdata.
 *
 * Ownership: one lprop_ctx per lua_State, made by lprop_open() and freed by
 * lprop_close() after lua_close().  The ctx owns the prop_site; every
 * userdata is a thin handle on a node or host of that site, and the site
 * outlives them all because it is freed only after the state is closed.
 *
 * The rule for C code here: no malloc'd pointer is live across a call
 * that can raise a Lua error.  Nearly every Lua API call that makes a
 * value can raise (a memory error at the limit, or the stop of the CPU
 * clock in a hook), and a raise is a longjmp past every free().  So
 * memory from malloc (a transport's result, a walk's stack) is turned into
 * Lua values inside a protected call (lprop_cpcall, lprop_push_and_free)
 * and freed before the error, if any, goes on; a walk of the graph that
 * pushes values collects its leaves first (lprop_each_leaf).  Outside any
 * protected call (the commands' own code) a raise ends in Lua's panic:
 * push there only inside lua_pcall.
 */
#ifndef LPROP_H
#define LPROP_H

#include <signal.h>
#include <stddef.h>

#include <lua.h>

#include "prop/prop.h"

#define LPROP_PROPERTY "prop.Property"
#define LPROP_HOST "prop.Host"
#define LPROP_SECRET "prop.Secret"

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
 * carved out of large slabs (lprop_state.c says why and how the memory
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
} lprop_pool;

/*
 * What earlier recipe calls made, by their arguments (lprop_memo.c): when
 * a site is only checked, a recipe call equal to an earlier one has that
 * call's nodes made again at its own place instead of running the recipe.
 */
typedef struct lprop_memo lprop_memo;
/* NULL when out of memory; its blocks come from alloc (the state's). */
lprop_memo *lprop_memo_new(lua_Alloc alloc, void *ud);
void lprop_memo_free(lprop_memo *m); /* accepts NULL */
/* 1 and the nodes an earlier call with this key made, or 0. */
int lprop_memo_get(lprop_memo *m, const void *key, size_t len, size_t *mark, size_t *count);
/* Remember them (silently not, when memory is short). */
void lprop_memo_put(lprop_memo *m, const void *key, size_t len, size_t mark, size_t count);

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
    /* The CPU clock (lprop_state.c): set by its signal handler once the
     * evaluation has used limits.max_cpu seconds, which end at
     * cpu_deadline (nanoseconds of the process's CPU clock). */
    volatile sig_atomic_t cpu_expired;
    long long cpu_deadline;
    /* The PROP_FAIL_ALLOC test hook (lprop_state.c): requests for more
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
/*
 * Give the next piece of Lua (a property's check or apply at run time, a
 * REPL input) a fresh budget: instructions, and max_cpu seconds of CPU
 * from now, so that an endless loop there stops cleanly.  lprop_eval_file
 * does it for the evaluation of the site.
 */
void lprop_budget_reset(lprop_ctx *ctx);
/* Stop the CPU clock lprop_budget_reset started: the evaluation is over. */
void lprop_budget_stop(lprop_ctx *ctx);
/*
 * Make the running Lua code of ctx stop at its next instruction or
 * function call, when a stop has a reason (ctx->interrupt set, CPU time
 * used up).  Async-signal-safe: for signal handlers.
 */
void lprop_interrupt_now(lprop_ctx *ctx);
/*
 * For a signal handler, when the code is stuck inside C and cannot be
 * stopped: write "FILE:LINE: error[P000]: WHAT inside a function of Lua's
 * library, ... (HINT)" with the innermost line of the site on the call
 * stack (hint may be NULL), and end the process with status.
 * Async-signal-safe; does not return.
 */
void lprop_abandon(lprop_ctx *ctx, const char *what, const char *hint, int status)
    __attribute__((noreturn));
/*
 * A call of one of prop's recipes counts as this many instructions of the
 * budget, whatever the recipe does inside: prop's own code is not counted
 * instruction by instruction (see lprop_budget_suspend).
 */
#define LPROP_RECIPE_CHARGE 100
/*
 * Around a recipe call that cannot run any code of the site: charge
 * LPROP_RECIPE_CHARGE (raising the budget error when it is spent) and take
 * the count hook off, so that prop's own code runs at full speed.  Returns
 * 1 when the hook was taken off (lprop_budget_resume must follow, also when
 * the call fails), 0 when no budget hook is set (run time under another
 * hook, or a nested recipe call): nothing to resume then.  The
 * instructions the site ran since the hook last fired are not counted.
 */
int lprop_budget_suspend(lua_State *L);
void lprop_budget_resume(lua_State *L);
/* The registry tables core.leaf keeps each leaf's impl and args in, by behaviour number. */
#define LPROP_BEHAVIOURS "prop.behaviours"
#define LPROP_BEHAVIOUR_ARGS "prop.behaviour_args"
/* Tags (p:tag): registry table, light userdata of a node -> list of its
 * own tags; and the set of every tag the site used. */
#define LPROP_TAGS "prop.tags"
#define LPROP_ALL_TAGS "prop.all_tags"
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

/* Install the "prop.core" module into package.preload equivalent. */
int luaopen_prop_core(lua_State *L);

/* Push a new Property userdata for n / Host userdata for h. */
void lprop_push_node(lua_State *L, prop_node *n);
void lprop_push_host(lua_State *L, prop_host *h);
/* The node of the Property at idx, or NULL when it is not one. */
prop_node *lprop_tonode(lua_State *L, int idx);
prop_host *lprop_tohost(lua_State *L, int idx);

/*
 * Fill o with the user-code frames of the current call stack (innermost
 * first), skipping prop's own chunks and C functions; buf holds at most
 * nbuf frames.
 */
void lprop_origin(lua_State *L, prop_origin *o, prop_frame *buf, unsigned nbuf);
/* Raise a Lua error prefixed with the innermost user place "file:line: ". */
int lprop_error(lua_State *L, const char *fmt, ...);
/* Raise the engine's last error (out of memory becomes the limit message). */
int lprop_engine_error(lua_State *L, int rc);

/* Whether a site may require prop module name: the recipe modules only. */
int lprop_site_may_require(const char *name);
/*
 * Whether the innermost Lua function calling the running C function is the
 * user's (a site file, a module next to it, a chunk it loaded) rather than
 * one of prop's own modules (chunk names "=prop/..."; a site's load()
 * cannot make such a name).  0 when no Lua function is on the stack.
 */
int lprop_user_caller(lua_State *L);

/*
 * Secrets (lprop_secret.c): `secret "name"` values, which hold names and
 * literal parts, never a secret's bytes.
 */
int lprop_is_secret(lua_State *L, int idx);
/* Add secret, is_secret, secret_token and secret_names to the core
 * module table on top of the stack. */
void lprop_secret_register(lua_State *L);
/* The names of the secrets in the value at idx (a Secret, tables of them,
 * a function's upvalues) into the name -> true table on top. */
void lprop_secret_collect(lua_State *L, int idx, int depth);
/* Where a secret's bytes come from at run time: 0 with *data and *len (owned
 * by the callee), or -1 with why filled in.  Must not raise. */
typedef int (*lprop_reveal_fn)(void *ud, const char *name, const unsigned char **data, size_t *len,
                               char *why, size_t whysize);
/*
 * The bytes of the Secret at idx, in a malloc'd buffer (NUL after the
 * end) that the caller wipes (lprop_wipe) and frees: 0, or -1 with why.
 * Does not raise.
 */
int lprop_secret_resolve(lua_State *L, int idx, lprop_reveal_fn reveal, void *ud,
                         unsigned char **out, size_t *outlen, char *why, size_t whysize);
/* Zero n bytes at p in a way the compiler keeps. */
void lprop_wipe(void *p, size_t n);

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

/* Call require(name) in the state and leave the module on the stack. */
int lprop_require(lua_State *L, const char *name);

/* site.file(rel): a regular file beside the site, read at evaluation time. */
int lprop_site_file(lua_State *L);

#endif /* LPROP_H */
