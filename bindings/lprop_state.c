/*
 * lprop_state.c - the Lua state a site is evaluated in: a counting
 * allocator that enforces the memory limit, a count hook that enforces the
 * instruction budget, the libraries a site may use, `require` confined to
 * the site's directory and prop's embedded modules, and the evaluation of
 * the site file itself.
 *
 * The state never opens io, os, debug or package: what is not loaded
 * cannot leak into the sandbox.
 */
#define _GNU_SOURCE /* MAP_ANONYMOUS, madvise; mremap (Linux) */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

#include "embedded.h"
#include "lprop.h"

/*
 * Instructions between two calls of the count hook.  Taking the hook off
 * for a recipe call and putting it back restarts the count, so what the
 * site ran since the last call is not counted: up to HOOK_PERIOD - 1
 * instructions a recipe call.  1000 keeps that within ten times the
 * LPROP_RECIPE_CHARGE a call is charged, at no measurable cost (10000 let
 * a site run some 50 times its budget; 100 cost a tenth more time).
 */
#define HOOK_PERIOD 1000
#define LOADED_KEY "prop.loaded"
#define LOADING_SENTINEL "prop.loading"
#define EMBEDDED_GUARD_KEY "prop.embedded_guard"

/*
 * Record the innermost user-code place of the running evaluation, for a
 * memory error (Lua runs no message handler for those).  Reading the call
 * stack allocates nothing, so it is safe from inside the allocator.
 */
static void
note_place_now(lprop_ctx *ctx)
{
    lua_Debug ar;
    int level;

    for (level = 0; lua_getstack(ctx->L, level, &ar); level++) {
        if (!lua_getinfo(ctx->L, "Sl", &ar))
            return;
        if (ar.source[0] == '@' && ar.currentline > 0) {
            snprintf(ctx->where_file, sizeof ctx->where_file, "%s", ar.source + 1);
            ctx->where_line = ar.currentline;
            return;
        }
    }
}

/* Under AddressSanitizer (GCC says so one way, clang another), malloc
 * does it all: let it see every block. */
#if defined(__SANITIZE_ADDRESS__)
#define POOLING 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define POOLING 0
#endif
#endif
#ifndef POOLING
#define POOLING 1
#endif

/*
 * Where a block lives follows from its size alone, which every caller
 * gives back on free (the lua_Alloc contract):
 *   - up to LPROP_POOL_MAX bytes, a size class of the pool, carved out of
 *     2 MiB slabs: a site makes millions of small Lua objects, and
 *     malloc's bookkeeping for each was most of the cost of evaluating a
 *     large site;
 *   - above that, a mapping of its own, in whole pages; from HUGE_MIN on,
 *     in whole 2 MiB, aligned, with transparent huge pages asked for: a
 *     big site touches hundreds of MB for the first time, and one fault
 *     per 2 MiB instead of one per 4 KiB saves a tenth of its evaluation.
 * So all the memory the process holds for the state is slabs and
 * mappings, and the memory limit counts exactly those: a slab from when
 * it is mapped until the state is closed (its freed blocks wait in free
 * lists and stay resident), a mapping for as long as it exists.  A site
 * that frees many small blocks and then asks for large ones cannot take
 * the process past the limit.  Without pooling (AddressSanitizer), malloc
 * does it all, and the limit counts the bytes asked for.
 */
#define HUGE_MIN ((size_t)2 << 20)
#define SLAB_SIZE HUGE_MIN
#define PAGE_SIZE_ ((size_t)4096)

/* Whether a block of n bytes (n > 0) has a mapping of its own. */
static int
is_mapped(size_t n)
{
    return POOLING && n > LPROP_POOL_MAX;
}

/* The length of the mapping of a block of n bytes; 0 when too large. */
static size_t
map_round(size_t n)
{
    size_t unit = n >= HUGE_MIN ? HUGE_MIN : PAGE_SIZE_;
    size_t len = (n + unit - 1) & ~(unit - 1);

    return len < n || len + HUGE_MIN < len ? 0 : len;
}

/* n bytes (n > LPROP_POOL_MAX) mapped on their own; NULL when refused. */
static void *
map_get(size_t n)
{
    size_t len = map_round(n), head;
    char *p;

    if (len == 0)
        return NULL;
    if (len < HUGE_MIN) {
        p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        return p == MAP_FAILED ? NULL : p;
    }
    p = mmap(NULL, len + HUGE_MIN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    /* Trim to an aligned start: what is left over goes back at once. */
    head = (HUGE_MIN - ((uintptr_t)p & (HUGE_MIN - 1))) & (HUGE_MIN - 1);
    if (head)
        (void)munmap(p, head);
    (void)munmap(p + head + len, HUGE_MIN - head);
    p += head;
#ifdef MADV_HUGEPAGE
    (void)madvise(p, len, MADV_HUGEPAGE); /* a hint: without it, small pages */
#endif
    return p;
}

static void
map_put(void *p, size_t n)
{
    (void)munmap(p, map_round(n));
}

/*
 * The size classes: 16, 32, ... 256 bytes, then four in each doubling
 * (320, 384, 448, 512, 640, ...) up to LPROP_POOL_MAX.  n is 1 to
 * LPROP_POOL_MAX.
 */
static size_t
size_class(size_t n)
{
    size_t k = 8, quarter;

    if (n <= 256)
        return (n + 15) / 16 - 1;
    while (((size_t)2 << k) < n)
        k++;
    quarter = ((size_t)1 << k) / 4; /* 2^k < n <= 2^(k+1) */
    return 16 + (k - 8) * 4 + (n - ((size_t)1 << k) + quarter - 1) / quarter - 1;
}

static size_t
class_size(size_t c)
{
    size_t k;

    if (c < 16)
        return (c + 1) * 16;
    k = 8 + (c - 16) / 4;
    return ((size_t)1 << k) + ((c - 16) % 4 + 1) * (((size_t)1 << k) / 4);
}

/* Whether a block of class c needs a new slab. */
static int
pool_needs_slab(const lprop_pool *pool, size_t c)
{
    return pool->free[c] == NULL && (size_t)(pool->end - pool->cur) < class_size(c);
}

/* A block of class c from the pool; NULL when no slab can be mapped. */
static void *
pool_get(lprop_pool *pool, size_t c)
{
    size_t size = class_size(c);
    void *p = pool->free[c];
    char *slab;

    if (p) {
        pool->free[c] = *(void **)p;
        return p;
    }
    if ((size_t)(pool->end - pool->cur) < size) {
        slab = map_get(SLAB_SIZE);
        if (slab == NULL)
            return NULL;
        *(void **)slab = pool->slabs;
        pool->slabs = slab;
        pool->cur = slab + 16;
        pool->end = slab + SLAB_SIZE;
    }
    p = pool->cur;
    pool->cur += size;
    return p;
}

static void
pool_put(lprop_pool *pool, void *p, size_t c)
{
    *(void **)p = pool->free[c];
    pool->free[c] = p;
}

static void
pool_release(lprop_pool *pool)
{
    void *slab = pool->slabs, *next;

    while (slab) {
        next = *(void **)slab;
        map_put(slab, SLAB_SIZE);
        slab = next;
    }
    memset(pool, 0, sizeof *pool);
}

/* Give back a block of old bytes, wherever it came from. */
static void
block_put(lprop_pool *pool, void *ptr, size_t old)
{
    if (!POOLING)
        free(ptr);
    else if (is_mapped(old))
        map_put(ptr, old);
    else
        pool_put(pool, ptr, size_class(old));
}

/*
 * The bytes the process comes to hold, and those it lets go, when the
 * block ptr of old bytes becomes one of nsize bytes (see above).
 */
static void
held_change(const lprop_pool *pool, const void *ptr, size_t old, size_t nsize, size_t *add,
            size_t *sub)
{
    *add = *sub = 0;
    if (!POOLING) {
        if (nsize > old)
            *add = nsize - old;
        else
            *sub = old - nsize;
        return;
    }
    if (ptr && is_mapped(old))
        *sub = map_round(old);
    if (nsize == 0)
        return;
    if (is_mapped(nsize))
        *add = map_round(nsize) ? map_round(nsize) : SIZE_MAX;
    else if (!(ptr && !is_mapped(old) && size_class(old) == size_class(nsize)) &&
             pool_needs_slab(pool, size_class(nsize)))
        *add = SLAB_SIZE;
}

/* realloc over the pool and the mappings (malloc without pooling). */
static void *
pool_realloc(lprop_pool *pool, void *ptr, size_t old, size_t nsize)
{
    int old_mapped = ptr && is_mapped(old), new_mapped = is_mapped(nsize);
    void *p;

    if (nsize == 0) {
        if (ptr)
            block_put(pool, ptr, old);
        return NULL;
    }
    if (!POOLING)
        return realloc(ptr, nsize);
    if (ptr && !old_mapped && !new_mapped && size_class(old) == size_class(nsize))
        return ptr;
    if (old_mapped && new_mapped && map_round(old) == map_round(nsize))
        return ptr;
#ifdef MREMAP_MAYMOVE
    /* A big array growing (the parser's code and constants, the list of
     * every node): the kernel moves the pages, nothing is copied or
     * cleared again.  The new place may lose the 2 MiB alignment; only
     * the huge-page hint depends on it. */
    if (old_mapped && new_mapped && map_round(nsize) != 0) {
        p = mremap(ptr, map_round(old), map_round(nsize), MREMAP_MAYMOVE);
        if (p == MAP_FAILED)
            return NULL;
#ifdef MADV_HUGEPAGE
        if (nsize >= HUGE_MIN)
            (void)madvise(p, map_round(nsize), MADV_HUGEPAGE);
#endif
        return p;
    }
#endif
    p = new_mapped ? map_get(nsize) : pool_get(pool, size_class(nsize));
    if (p == NULL)
        return NULL;
    if (ptr) {
        memcpy(p, ptr, old < nsize ? old : nsize);
        block_put(pool, ptr, old);
    }
    return p;
}

/*
 * lua_Alloc that counts the memory held for the state (see above) and
 * refuses past the limit.  The engine's arena uses the same function, so
 * the limit covers the Lua heap and the property graph together.
 *
 * For tests, PROP_FAIL_ALLOC=N in the environment makes it refuse the Nth
 * request for more memory (a new block or a block growing) of a state, as
 * if the limit were reached there, and the same request again when Lua
 * retries it after an emergency collection: tests/cli/test_alloc_faults.sh
 * walks N over the requests of a run, to see each one fail cleanly.
 */
static void *
counting_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    lprop_ctx *ctx = ud;
    size_t old = ptr ? osize : 0, add, sub;
    void *p;

    held_change(&ctx->pool, ptr, old, nsize, &add, &sub);
    if (nsize == 0) {
        pool_realloc(&ctx->pool, ptr, old, 0);
        ctx->used -= sub;
        return NULL;
    }
    if (nsize > old && ctx->faults.at) {
        if (ctx->faults.again && ptr == ctx->faults.ptr && osize == ctx->faults.osize &&
            nsize == ctx->faults.nsize) {
            ctx->faults.again = 0;
            return NULL;
        }
        ctx->faults.again = 0;
        if (++ctx->faults.count == ctx->faults.at) {
            ctx->faults.again = 1;
            ctx->faults.ptr = ptr;
            ctx->faults.osize = osize;
            ctx->faults.nsize = nsize;
            return NULL;
        }
    }
    /* A block never fails to shrink: Lua relies on it. */
    if (nsize > old && add > sub && add - sub > ctx->limits.max_memory - ctx->used) {
        if (ctx->evaluating && ctx->L)
            note_place_now(ctx);
        return NULL;
    }
    p = pool_realloc(&ctx->pool, ptr, old, nsize);
    if (p == NULL)
        return NULL;
    ctx->used = ctx->used + add - sub;
    if (ctx->used > ctx->peak)
        ctx->peak = ctx->used;
    return p;
}

/* Add to the instructions spent, without overflow whatever the budget. */
static void
charge_instructions(lprop_ctx *ctx, long long n)
{
    if (n <= 0)
        return;
    if (ctx->instructions > LLONG_MAX - n)
        ctx->instructions = LLONG_MAX;
    else
        ctx->instructions += n;
}

/*
 * The Lua heap's allocator: counting_alloc, and the bytes a block grows by
 * count against the instruction budget as the work of filling them, one
 * instruction every BYTES_AN_INSTRUCTION.  A loop that copies a long
 * string (s:upper(), s .. "x") runs a handful of instructions a round: so
 * the budget, and not only the CPU clock, ends it.  The count hook raises
 * the error at its next tick.
 */
#define BYTES_AN_INSTRUCTION 16
static void *
lua_heap_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    lprop_ctx *ctx = ud;
    size_t old = ptr ? osize : 0;
    void *p = counting_alloc(ud, ptr, osize, nsize);

    if (p != NULL && nsize > old)
        charge_instructions(ctx, (long long)((nsize - old) / BYTES_AN_INSTRUCTION));
    return p;
}

lprop_ctx *
lprop_getctx(lua_State *L)
{
    return *(lprop_ctx **)lua_getextraspace(L);
}

/* Remember where user code is, so that a memory error can name a place. */
static void
note_place(lprop_ctx *ctx, lua_State *L, lua_Debug *ar)
{
    if (!lua_getinfo(L, "Sl", ar))
        return;
    if (ar->source[0] == '@' && ar->currentline > 0) {
        snprintf(ctx->where_file, sizeof ctx->where_file, "%s", ar->source + 1);
        ctx->where_line = ar->currentline;
    }
}

/*
 * Why the running code must stop, or NULL: stopped from outside (Ctrl-C),
 * out of CPU time, or out of instructions.  Once there is a reason it stays
 * (in ctx->stop) until lprop_budget_reset.
 */
static const char *
stop_reason(lprop_ctx *ctx)
{
    if (ctx->stop != NULL)
        return ctx->stop;
    if (ctx->cpu_expired) {
        snprintf(ctx->stop_msg, sizeof ctx->stop_msg,
                 "evaluation used more than %d s of CPU; raise the limit with --max-cpu",
                 ctx->limits.max_cpu);
        ctx->stop = ctx->stop_msg;
    } else if (ctx->interrupt != NULL && *ctx->interrupt) {
        ctx->stop = "interrupted";
    } else if (ctx->instructions > ctx->limits.max_instructions) {
        snprintf(ctx->stop_msg, sizeof ctx->stop_msg,
                 "instruction budget of %lld exceeded (an endless loop?); "
                 "raise it with --max-instructions",
                 ctx->limits.max_instructions);
        ctx->stop = ctx->stop_msg;
    }
    return ctx->stop;
}

/*
 * The count hook: the instruction budget, the last user place, and the
 * stop asked for from outside (the CPU clock, Ctrl-C).  Normally it runs
 * every HOOK_PERIOD instructions; to stop the code at once, the CPU
 * clock's signal handler (or the REPL's, for Ctrl-C) sets it to run at
 * the next instruction and the next function call, C functions included
 * (lprop_interrupt_now), as lua(1) does for Ctrl-C.
 */
static void
count_hook(lua_State *L, lua_Debug *ar)
{
    lprop_ctx *ctx = lprop_getctx(L);
    const char *why;

    if (ar->event == LUA_HOOKCOUNT) {
        charge_instructions(ctx, HOOK_PERIOD);
        note_place(ctx, L, ar);
    }
    why = stop_reason(ctx);
    if (why == NULL)
        return;
    /* From now on at every instruction, but no longer at calls: the
     * message handler is a call, and an error raised in it would become
     * "error in error handling".  A site that catches the error with pcall
     * is stopped again at its next instruction. */
    lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
    /* The hook is not a frame of its own: build the place by hand. */
    note_place_now(ctx);
    if (ctx->where_line > 0)
        lua_pushfstring(L, "%s:%d: %s", ctx->where_file, ctx->where_line, why);
    else
        lua_pushstring(L, why);
    lua_error(L);
}

/* The hook for code that runs under the budget, as things stand now. */
static void
set_budget_hook(lprop_ctx *ctx)
{
    if (ctx->stop != NULL || ctx->cpu_expired || (ctx->interrupt != NULL && *ctx->interrupt))
        lua_sethook(ctx->L, count_hook, LUA_MASKCOUNT | LUA_MASKCALL, 1);
    else
        lua_sethook(ctx->L, count_hook, LUA_MASKCOUNT, HOOK_PERIOD);
}

void
lprop_interrupt_now(lprop_ctx *ctx)
{
    /* lua_sethook may be called from a signal handler (lua.c does). */
    if (ctx != NULL && ctx->L != NULL)
        lua_sethook(ctx->L, count_hook, LUA_MASKCOUNT | LUA_MASKCALL, 1);
}

/* ---- the CPU clock ------------------------------------------------------
 *
 * Lua's library does much of its work in C, where no count hook runs:
 * comparing two long strings is one instruction, a pattern may backtrack
 * for days, load() parses any amount of text.  What bounds all of it is
 * the CPU time of the process.  One timer on the process's CPU clock
 * (each process makes its own: prop run's children do not inherit the
 * parent's) is armed for the evaluation running now, `watched`:
 *
 *   - at max_cpu seconds, the handler marks the state out of CPU time and
 *     sets the count hook to run at the next instruction or call, which
 *     raises the error with the site's line like any other;
 *   - a second of CPU later, if Lua code is still running, it is inside a
 *     C function that calls nothing (a pattern match, string.rep, a long
 *     memcmp) and that no hook can stop; a state stopped inside C cannot
 *     be unwound, so the handler writes the error, with the innermost
 *     line of the site on the call stack, and ends the process (exit 2).
 *
 * The handler uses only async-signal-safe calls: lua_sethook (as lua.c
 * does for Ctrl-C), clock_gettime, write, _exit, and reads of the call
 * stack, which the running C function does not change.
 */
#define CPU_SIGNAL SIGXCPU
#define NSEC 1000000000LL

static lprop_ctx *volatile watched;
static timer_t cpu_timer;
static pid_t cpu_timer_pid; /* the process that made cpu_timer; 0: none yet */

static long long
cpu_now(void)
{
    struct timespec ts;

    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        return 0;
    return (long long)ts.tv_sec * NSEC + ts.tv_nsec;
}

/* Async-signal-safe formatting into a fixed buffer. */
typedef struct sbuf {
    char b[512];
    size_t n;
} sbuf;

static void
sb_str(sbuf *s, const char *t)
{
    while (*t && s->n < sizeof s->b - 1)
        s->b[s->n++] = *t++;
}

static void
sb_int(sbuf *s, long long v)
{
    char d[24];
    int k = 0;

    if (v < 0) {
        sb_str(s, "-");
        v = -v;
    }
    do
        d[k++] = (char)('0' + v % 10);
    while ((v /= 10) > 0 && k < (int)sizeof d);
    while (k > 0 && s->n < sizeof s->b - 1)
        s->b[s->n++] = d[--k];
}

void
lprop_abandon(lprop_ctx *ctx, const char *what, const char *hint, int status)
{
    lua_Debug ar;
    const char *file = NULL;
    int level, line = 0;
    sbuf s = {{0}, 0};

    /* The innermost line of the site on the call stack: reading it only
     * follows pointers the running C function does not change. */
    for (level = 0; ctx->L && lua_getstack(ctx->L, level, &ar); level++) {
        if (lua_getinfo(ctx->L, "Sl", &ar) && ar.source[0] == '@' && ar.currentline > 0) {
            file = ar.source + 1;
            line = ar.currentline;
            break;
        }
    }
    if (file == NULL && ctx->where_line > 0) {
        file = ctx->where_file;
        line = ctx->where_line;
    }
    if (file) {
        sb_str(&s, file);
        sb_str(&s, ":");
        sb_int(&s, line);
        sb_str(&s, ": error[P000]: ");
    } else {
        sb_str(&s, "prop: error: ");
    }
    sb_str(&s, what);
    sb_str(&s, " inside a function of Lua's library, which cannot be stopped midway: "
               "prop stops here");
    if (hint) {
        sb_str(&s, " (");
        sb_str(&s, hint);
        sb_str(&s, ")");
    }
    sb_str(&s, "\n");
    (void)!write(2, s.b, s.n);
    _exit(status);
}

static void
cpu_alarm(int sig, siginfo_t *si, void *uc)
{
    lprop_ctx *ctx = watched;
    int saved = errno;
    long long now;
    lua_Debug ar;

    (void)uc;
    if (si->si_code != SI_TIMER) {
        /* Not ours (RLIMIT_CPU): what the signal would have done. */
        (void)signal(sig, SIG_DFL);
        (void)raise(sig);
        errno = saved;
        return;
    }
    now = cpu_now();
    /* A late signal of an earlier evaluation finds the deadline ahead. */
    if (ctx != NULL && now >= ctx->cpu_deadline - NSEC / 20) {
        if (!ctx->cpu_expired) {
            ctx->cpu_expired = 1;
            lprop_interrupt_now(ctx);
        } else if (now >= ctx->cpu_deadline + NSEC / 2 && lua_getstack(ctx->L, 0, &ar)) {
            sbuf m = {{0}, 0};

            sb_str(&m, "evaluation used more than ");
            sb_int(&m, ctx->limits.max_cpu);
            sb_str(&m, " s of CPU");
            lprop_abandon(ctx, m.b, "raise the limit with --max-cpu", 2);
        }
    }
    errno = saved;
}

/* Start the CPU clock of ctx's evaluation: max_cpu seconds from now. */
static void
cpu_arm(lprop_ctx *ctx)
{
    static int warned;
    struct itimerspec its;
    pid_t pid = getpid();

    ctx->cpu_expired = 0;
    if (ctx->limits.max_cpu <= 0)
        return;
    if (cpu_timer_pid != pid) {
        struct sigaction sa;
        struct sigevent sev;

        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = cpu_alarm;
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        memset(&sev, 0, sizeof sev);
        sev.sigev_notify = SIGEV_SIGNAL;
        sev.sigev_signo = CPU_SIGNAL;
        if (sigaction(CPU_SIGNAL, &sa, NULL) != 0 ||
            timer_create(CLOCK_PROCESS_CPUTIME_ID, &sev, &cpu_timer) != 0) {
            if (!warned++)
                fprintf(stderr, "prop: warning: no CPU time limit: %s\n", strerror(errno));
            return;
        }
        cpu_timer_pid = pid;
    }
    watched = NULL;
    ctx->cpu_deadline = cpu_now() + (long long)ctx->limits.max_cpu * NSEC;
    watched = ctx;
    memset(&its, 0, sizeof its);
    its.it_value.tv_sec = ctx->limits.max_cpu;
    its.it_interval.tv_sec = 1;
    if (timer_settime(cpu_timer, 0, &its, NULL) != 0)
        watched = NULL;
}

void
lprop_budget_stop(lprop_ctx *ctx)
{
    struct itimerspec its;

    if (ctx == NULL || watched != ctx)
        return;
    memset(&its, 0, sizeof its);
    (void)timer_settime(cpu_timer, 0, &its, NULL);
    watched = NULL;
}

/*
 * pcall and xpcall: Lua's, but a stopped evaluation (budget spent, CPU
 * time used up, interrupted) stays stopped.  The count hook raises the
 * error again at the next instruction, but a site that calls pcall in a
 * loop would catch each one and go on for ever; so the reason is checked
 * again when the protected call returns.  (No coroutines in the state: the
 * calls need no continuation.)
 */
static void
budget_recheck(lua_State *L)
{
    const char *why = stop_reason(lprop_getctx(L));

    if (why != NULL)
        lprop_error(L, "%s", why);
}

/*
 * The message handler l_xpcall installs around the site's: Lua calls it
 * where the error is raised, and a stop is raised inside the count hook,
 * where hooks are off: the site's handler would run uncounted.  So once
 * the code is stopped the error goes on as it is.
 */
static int
xpcall_handler(lua_State *L)
{
    if (stop_reason(lprop_getctx(L)) != NULL)
        return 1;
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

static int
l_pcall(lua_State *L)
{
    int status;

    luaL_checkany(L, 1);
    status = lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0);
    budget_recheck(L);
    lua_pushboolean(L, status == LUA_OK);
    lua_insert(L, 1);
    return lua_gettop(L);
}

static int
l_xpcall(lua_State *L)
{
    int n = lua_gettop(L), status;

    luaL_checktype(L, 2, LUA_TFUNCTION);
    /* f, msgh, args -> handler(msgh), f, args */
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, xpcall_handler, 1);
    lua_replace(L, 1);
    lua_replace(L, 2);
    status = lua_pcall(L, n - 2, LUA_MULTRET, 1);
    budget_recheck(L);
    lua_pushboolean(L, status == LUA_OK);
    lua_replace(L, 1);
    return lua_gettop(L);
}

int
lprop_budget_suspend(lua_State *L)
{
    lprop_ctx *ctx = lprop_getctx(L);
    const char *why;

    if (lua_gethook(L) != count_hook)
        return 0;
    charge_instructions(ctx, LPROP_RECIPE_CHARGE);
    why = stop_reason(ctx);
    if (why != NULL)
        return lprop_error(L, "%s", why);
    lua_sethook(L, NULL, 0, 0);
    return 1;
}

void
lprop_budget_resume(lua_State *L)
{
    set_budget_hook(lprop_getctx(L));
}

void
lprop_origin(lua_State *L, prop_origin *o, prop_frame *buf, unsigned nbuf)
{
    lua_Debug ar;
    int level;

    o->frames = buf;
    o->nframes = 0;
    for (level = 1; o->nframes < nbuf && lua_getstack(L, level, &ar); level++) {
        /* The current line costs a walk of the function's line table:
         * ask for it only for the user's own frames. */
        if (!lua_getinfo(L, "S", &ar))
            break;
        if (ar.source[0] != '@' || !lua_getinfo(L, "l", &ar) || ar.currentline <= 0)
            continue;
        buf[o->nframes].file = ar.source + 1;
        buf[o->nframes].line = ar.currentline;
        o->nframes++;
    }
}

int
lprop_error(lua_State *L, const char *fmt, ...)
{
    prop_frame buf[1];
    prop_origin o;
    va_list ap;

    lprop_origin(L, &o, buf, 1);
    if (o.nframes > 0)
        lua_pushfstring(L, "%s:%d: ", buf[0].file, buf[0].line);
    else
        lua_pushliteral(L, "");
    va_start(ap, fmt);
    lua_pushvfstring(L, fmt, ap);
    va_end(ap);
    lua_concat(L, 2);
    return lua_error(L);
}

int
lprop_engine_error(lua_State *L, int rc)
{
    lprop_ctx *ctx = lprop_getctx(L);

    if (rc == PROP_ENOMEM)
        return lprop_error(L, "memory limit of %d MiB exceeded; raise it with --max-memory",
                           (int)(ctx->limits.max_memory >> 20));
    return lprop_error(L, "%s", prop_site_error(ctx->site));
}

/* What kind of file a mode is, for the refusal of anything but a regular file. */
static const char *
file_kind(mode_t m)
{
    if (S_ISDIR(m))
        return "a directory, not a regular file";
    if (S_ISFIFO(m))
        return "a FIFO, not a regular file";
    if (S_ISCHR(m))
        return "a character device, not a regular file";
    if (S_ISBLK(m))
        return "a block device, not a regular file";
    if (S_ISSOCK(m))
        return "a socket, not a regular file";
    return "not a regular file";
}

/*
 * Read a whole regular file into a block from the state's allocator (so
 * that the memory limit covers it), NUL-terminated: *len bytes of text in
 * a block of *size bytes.  NULL on failure, with *why saying what went
 * wrong (a static string; NULL when the memory limit refused the block).
 *
 * The file is opened without blocking and then looked at through the open
 * descriptor: opening a FIFO would otherwise wait for a writer for ever,
 * and a check by name before the open could be fooled by a swap in
 * between.  Only a regular file is read.
 */
static char *
read_file(lua_State *L, const char *path, size_t *len, size_t *size, const char **why)
{
    void *ud;
    lua_Alloc alloc = lua_getallocf(L, &ud);
    struct stat st;
    char *buf = NULL, *nbuf;
    size_t cap = 0, n = 0;
    ssize_t got;
    int fd;

    *why = NULL;
    do
        fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        *why = strerror(errno);
        return NULL;
    }
    if (fstat(fd, &st) != 0) {
        *why = strerror(errno);
        goto fail;
    }
    if (!S_ISREG(st.st_mode)) {
        *why = file_kind(st.st_mode);
        goto fail;
    }
    /* The size the file has now, and one more byte to see its end. */
    if (st.st_size > 0 && (uintmax_t)st.st_size < SIZE_MAX / 2)
        cap = (size_t)st.st_size + 2;
    for (;;) {
        if (cap - n < 2) {
            size_t ncap = cap ? cap * 2 : 8192;

            if (ncap < cap || !(nbuf = alloc(ud, buf, cap, ncap))) {
                *why = NULL;
                goto fail;
            }
            buf = nbuf;
            cap = ncap;
        } else if (buf == NULL) {
            if (!(buf = alloc(ud, NULL, 0, cap))) {
                *why = NULL;
                goto fail;
            }
        }
        got = read(fd, buf + n, cap - n - 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            *why = strerror(errno);
            goto fail;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    (void)close(fd);
    buf[n] = '\0';
    *len = n;
    *size = cap;
    return buf;
fail:
    if (buf)
        alloc(ud, buf, cap, 0);
    (void)close(fd);
    return NULL;
}

/*
 * Load and run a user source file (the site or a module next to it) in the
 * config environment; pushes its results (1 value).  Raises on error.
 *
 * As lua(1) does for a file: a UTF-8 byte order mark is dropped, and a
 * first line starting with "#" (#!/usr/bin/env prop) is skipped, its
 * newline kept so that line numbers stay those of the file.
 */
static void
run_user_file(lua_State *L, const char *path, const char *shown)
{
    lprop_ctx *ctx = lprop_getctx(L);
    size_t len = 0, size = 0, skip = 0;
    const char *why;
    char *text = read_file(L, path, &len, &size, &why);
    int rc;

    if (text == NULL && why == NULL)
        lprop_error(L, "memory limit of %d MiB exceeded reading %s; raise it with --max-memory",
                    (int)(ctx->limits.max_memory >> 20), shown);
    if (text == NULL)
        lprop_error(L, "cannot read %s: %s", shown, why);
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
        memmove(text, text + 3, len - 3 + 1);
        len -= 3;
    }
    if (text[0] == '#')
        skip = strcspn(text, "\n");
    /* The site keeps the text, to quote its lines in diagnostics. */
    rc = prop_site_adopt_source(ctx->site, shown, text, len, size);
    if (rc != PROP_OK) {
        void *ud;

        lua_getallocf(L, &ud)(ud, text, size, 0);
        lprop_engine_error(L, rc);
    }
    lua_pushfstring(L, "@%s", shown);
    /* Parsing makes little garbage, but a large site makes a large
     * function: collections while it grows only walk it again and again. */
    lua_gc(L, LUA_GCSTOP);
    rc = luaL_loadbufferx(L, text + skip, len - skip, lua_tostring(L, -1), "t");
    lua_gc(L, LUA_GCRESTART);
    lua_remove(L, -2);
    if (rc == LUA_ERRMEM) /* the parser's memory is counted too */
        lprop_error(L, "memory limit of %d MiB exceeded parsing %s; raise it with --max-memory",
                    (int)(ctx->limits.max_memory >> 20), shown);
    if (rc != LUA_OK)
        lua_error(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, ctx->env_ref);
    if (lua_setupvalue(L, -2, 1) == NULL)
        lua_pop(L, 1);
    lua_call(L, 0, 1);
}

/* A module name a site may require: letters, digits, _ and -, dot-separated. */
static int
valid_module_name(const char *name)
{
    const char *p;
    int seg = 0;

    if (*name == '\0')
        return 0;
    for (p = name; *p; p++) {
        if (*p == '.') {
            if (seg == 0)
                return 0;
            seg = 0;
        } else if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                   (*p >= '0' && *p <= '9') || *p == '_' || *p == '-') {
            seg++;
        } else {
            return 0;
        }
    }
    return seg > 0;
}

/* __close of the guard run_embedded keeps below a module's chunk. */
static int
embedded_guard_close(lua_State *L)
{
    lprop_getctx(L)->in_embedded--;
    return 0;
}

int
lprop_site_may_require(const char *name)
{
    const struct lprop_embedded *m;

    for (m = lprop_embedded_modules; m->module; m++)
        if (strcmp(m->module, name) == 0)
            return m->recipe;
    return 0;
}

int
lprop_user_caller(lua_State *L)
{
    lua_Debug ar;
    int level;

    for (level = 1; lua_getstack(L, level, &ar); level++) {
        if (!lua_getinfo(L, "S", &ar))
            return 1;
        if (strcmp(ar.what, "C") != 0)
            return strncmp(ar.source, "=prop/", 6) != 0;
    }
    return 0; /* called from C only: prop itself */
}

/* Find and run an embedded module; 1 if found (module value pushed). */
static int
run_embedded(lua_State *L, const char *name)
{
    lprop_ctx *ctx = lprop_getctx(L);
    const struct lprop_embedded *m;
    int guard;

    if (strcmp(name, "prop.core") == 0) {
        lua_pushcfunction(L, luaopen_prop_core);
        lua_call(L, 0, 1);
        return 1;
    }
    for (m = lprop_embedded_modules; m->module; m++) {
        if (strcmp(m->module, name) != 0)
            continue;
        if (luaL_loadbufferx(L, m->text, m->len, m->chunkname, "b") != LUA_OK)
            lua_error(L);
        /* core.entry takes the count hook off the functions it wraps:
         * it accepts them only from prop's own modules, while they load.
         * The guard counts the load out however it ends. */
        lua_getfield(L, LUA_REGISTRYINDEX, EMBEDDED_GUARD_KEY);
        lua_insert(L, -2);
        guard = lua_gettop(L) - 1;
        lua_toclose(L, guard);
        ctx->in_embedded++;
        lua_pushstring(L, name);
        lua_call(L, 1, 1);
        lua_closeslot(L, guard);
        lua_remove(L, guard);
        return 1;
    }
    return 0;
}

/* Run a module from the site's directory, confined to it. */
static void
run_site_module(lua_State *L, const char *name)
{
    lprop_ctx *ctx = lprop_getctx(L);
    luaL_Buffer rel;
    char *real;
    const char *relpath, *p;
    size_t dlen;

    luaL_buffinit(L, &rel);
    for (p = name; *p; p++)
        luaL_addchar(&rel, *p == '.' ? '/' : *p);
    luaL_addstring(&rel, ".lua");
    luaL_pushresult(&rel);
    relpath = lua_tostring(L, -1);
    if (strcmp(ctx->site_dir, ".") == 0)
        lua_pushstring(L, relpath);
    else
        lua_pushfstring(L, "%s/%s", ctx->site_dir, relpath);
    real = realpath(lua_tostring(L, -1), NULL);
    if (real == NULL)
        lprop_error(L, "module \"%s\" not found: no file %s next to the site", name, relpath);
    dlen = strlen(ctx->site_real);
    if (strncmp(real, ctx->site_real, dlen) != 0 || real[dlen] != '/') {
        free(real);
        lprop_error(L, "module \"%s\" resolves outside the site's directory; refused", name);
    }
    lua_pushstring(L, real);
    free(real);
    run_user_file(L, lua_tostring(L, -1), lua_tostring(L, -2));
}

/*
 * require(name): prop's embedded modules ("prop.apt") and modules next to
 * the site file ("lib.util" -> lib/util.lua); nothing else.  Results are
 * cached per state; a module that requires itself is an error.
 */
static int
do_require(lua_State *L, int from_prop)
{
    const char *name = luaL_checkstring(L, 1);
    int top;

    if (strncmp(name, "prop.", 5) == 0 && !lprop_site_may_require(name) && !from_prop &&
        lprop_user_caller(L))
        return lprop_error(L,
                           "module \"%s\" is internal to prop: a site uses the recipe modules "
                           "(prop.apt, prop.file, ...) and property {}",
                           name);
    lua_settop(L, 1);
    lua_getfield(L, LUA_REGISTRYINDEX, LOADED_KEY);
    lua_getfield(L, 2, name);
    if (lua_type(L, 3) == LUA_TSTRING && strcmp(lua_tostring(L, 3), LOADING_SENTINEL) == 0)
        return lprop_error(L, "module \"%s\" requires itself (a require loop)", name);
    if (!lua_isnil(L, 3))
        return 1;
    lua_pop(L, 1);
    if (!valid_module_name(name))
        return lprop_error(L,
                           "bad module name \"%s\": require takes names like \"lib.util\" "
                           "for lib/util.lua next to the site file",
                           name);
    lua_pushliteral(L, LOADING_SENTINEL);
    lua_setfield(L, 2, name);
    top = lua_gettop(L);
    if (strncmp(name, "prop.", 5) == 0) {
        if (!run_embedded(L, name)) {
            lua_pushnil(L);
            lua_setfield(L, 2, name);
            return lprop_error(L, "prop has no module \"%s\"", name);
        }
    } else {
        run_site_module(L, name);
    }
    if (lua_gettop(L) > top + 1)
        lua_replace(L, top + 1);
    lua_settop(L, top + 1);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_pushboolean(L, 1);
    }
    lua_pushvalue(L, -1);
    lua_setfield(L, 2, name);
    return 1;
}

int
lprop_cpcall(lua_State *L, lua_CFunction fn, void *ud)
{
    lua_pushcfunction(L, fn);
    lua_pushlightuserdata(L, ud);
    return lua_pcall(L, 1, 1, 0);
}

typedef struct bytes {
    const char *p;
    size_t len;
} bytes;

static int
push_bytes(lua_State *L)
{
    const bytes *b = lua_touserdata(L, 1);

    lua_pushlstring(L, b->len ? b->p : "", b->len);
    return 1;
}

/*
 * core.site_file(rel) (site.file in a site): the bytes of a regular file
 * below the site's directory, read while the site is evaluated, so that a
 * site keeps its configuration files and templates beside it.  rel is
 * relative to the site's directory; neither it nor a symbolic link in it
 * may lead outside that directory, and only a regular file is read (never
 * a FIFO or a device).  The memory limit covers what is read.  Refusals
 * are P012 (a bad path) at the caller's line; a file that cannot be read
 * is an evaluation error there.  Returns the bytes, and the file's name
 * as messages show it (the site's directory as given, then rel).
 */
int
lprop_site_file(lua_State *L)
{
    lprop_ctx *ctx = lprop_getctx(L);
    const char *rel, *p, *why;
    size_t rlen, dlen, len = 0, size = 0;
    char *real, *text;
    void *ud;
    lua_Alloc alloc;

    if (lua_type(L, 1) != LUA_TSTRING)
        return lprop_error(L,
                           "[P012] site.file: the path must be a string such as "
                           "\"files/nginx.conf\", got %s",
                           luaL_typename(L, 1));
    rel = lua_tolstring(L, 1, &rlen);
    if (rlen == 0 || rel[0] == '/' || strlen(rel) != rlen)
        return lprop_error(L,
                           "[P012] site.file: \"%s\" must be a path relative to the site's "
                           "directory, such as \"files/nginx.conf\"",
                           rel);
    for (p = rel; *p;) {
        size_t seg = strcspn(p, "/");

        if (seg == 2 && p[0] == '.' && p[1] == '.')
            return lprop_error(L,
                               "[P012] site.file: \"%s\" leads outside the site's directory "
                               "(\"..\"); a site reads only files beside it",
                               rel);
        p += seg;
        while (*p == '/')
            p++;
    }
    if (strcmp(ctx->site_dir, ".") == 0)
        lua_pushstring(L, rel);
    else
        lua_pushfstring(L, "%s/%s", ctx->site_dir, rel);
    real = realpath(lua_tostring(L, -1), NULL);
    if (real == NULL)
        return lprop_error(L, "site.file: cannot read \"%s\" beside the site: %s", rel,
                           strerror(errno));
    dlen = ctx->site_real ? strlen(ctx->site_real) : 0;
    if (dlen == 0 || strncmp(real, ctx->site_real, dlen) != 0 ||
        (real[dlen] != '/' && strcmp(ctx->site_real, "/") != 0)) {
        free(real);
        return lprop_error(L,
                           "[P012] site.file: \"%s\" resolves outside the site's directory "
                           "(a symbolic link leads out of it); refused",
                           rel);
    }
    lua_pushstring(L, real);
    free(real);
    text = read_file(L, lua_tostring(L, -1), &len, &size, &why);
    if (text == NULL && why == NULL)
        return lprop_error(L,
                           "memory limit of %d MiB exceeded reading %s; raise it with "
                           "--max-memory",
                           (int)(ctx->limits.max_memory >> 20), rel);
    if (text == NULL)
        return lprop_error(L, "site.file: cannot read \"%s\": %s", rel, why);
    alloc = lua_getallocf(L, &ud);
    /* The bytes are copied into a Lua string; the block goes back at once
     * (a failed copy raises, so the block is freed first). */
    lua_settop(L, 1);
    if (!lua_checkstack(L, 2)) {
        alloc(ud, text, size, 0);
        return lprop_error(L, "out of stack reading %s", rel);
    }
    {
        bytes b = {text, len};
        int status = lprop_cpcall(L, push_bytes, &b);

        alloc(ud, text, size, 0);
        if (status != LUA_OK)
            return lua_error(L);
    }
    /* Second: the file as messages name it (as the site's name is). */
    if (strcmp(ctx->site_dir, ".") == 0)
        lua_pushvalue(L, 1);
    else
        lua_pushfstring(L, "%s/%s", ctx->site_dir, rel);
    return 2;
}

int
lprop_push_and_free(lua_State *L, char *p, size_t len)
{
    bytes b = {p, len};
    int status = lprop_cpcall(L, push_bytes, &b);

    free(p);
    if (status != LUA_OK)
        return lua_error(L);
    return 1;
}

typedef struct leaf_list {
    const prop_node **v;
    size_t n, cap;
} leaf_list;

static int
gather_leaf(void *ud, const prop_node *leaf)
{
    leaf_list *l = ud;

    if (l->n == l->cap)
        return 1; /* more visits than the weight said: cannot happen */
    l->v[l->n++] = leaf;
    return 0;
}

void
lprop_each_leaf(lua_State *L, const prop_node *n, prop_os_set os, prop_leaf_visit visit, void *ud)
{
    size_t w = prop_node_weight(n), i;
    leaf_list l;
    int rc;

    if (w >= UINT_MAX || w >= SIZE_MAX / sizeof *l.v)
        lprop_error(L,
                    "\"%s\" has too many leaves to list (the same properties nested in it "
                    "again and again)",
                    prop_node_desc(n));
    l.v = lua_newuserdatauv(L, (w ? w : 1) * sizeof *l.v, 0);
    l.n = 0;
    l.cap = w;
    lua_insert(L, -2);
    rc = prop_node_each_leaf(n, os, gather_leaf, &l);
    if (rc == PROP_ENOMEM)
        lprop_error(L, "out of memory walking %s", prop_node_desc(n));
    for (i = 0; i < l.n; i++)
        if (visit(ud, l.v[i]) != 0)
            break;
    lua_remove(L, -2);
}

static int
l_require(lua_State *L)
{
    return do_require(L, 0);
}

/* require for prop's own C code, which may load its internal modules
 * whatever Lua code is on the stack below (a site's check asking for
 * sys.facts). */
static int
l_require_prop(lua_State *L)
{
    return do_require(L, 1);
}

int
lprop_require(lua_State *L, const char *name)
{
    lua_pushcfunction(L, l_require_prop);
    lua_pushstring(L, name);
    lua_call(L, 1, 1);
    return 1;
}

/* print(...) for sites: to stderr, so that JSON on stdout stays clean;
 * control characters are shown as escapes (a site may come from anyone). */
static int
l_print(lua_State *L)
{
    int i, n = lua_gettop(L);

    for (i = 1; i <= n; i++) {
        size_t len;
        const char *s = luaL_tolstring(L, i, &len);
        if (i > 1)
            fputc('\t', stderr);
        prop_text_write(stderr, s, len, PROP_TEXT_LINES); /* shown, never obeyed */
        lua_pop(L, 1);
    }
    fputc('\n', stderr);
    fflush(stderr);
    return 0;
}

/* load(chunk [, name [, mode [, env]]]) for sites: text only, sandboxed env. */
static int
l_load(lua_State *L)
{
    lprop_ctx *ctx = lprop_getctx(L);
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    const char *name = luaL_optstring(L, 2, "=(load)");
    int has_env = !lua_isnone(L, 4);

    if (len > 0 && s[0] == LUA_SIGNATURE[0])
        return lprop_error(L, "load: binary chunks are not allowed in a site");
    if (name[0] == '=' || name[0] == '@') {
        /* Keep user chunk names from passing for prop's own modules. */
        lua_pushfstring(L, "=(load:%s)", name + 1);
        name = lua_tostring(L, -1);
    }
    if (luaL_loadbufferx(L, s, len, name, "t") != LUA_OK) {
        lua_pushnil(L);
        lua_insert(L, -2);
        return 2;
    }
    if (has_env)
        lua_pushvalue(L, 4);
    else
        lua_rawgeti(L, LUA_REGISTRYINDEX, ctx->env_ref);
    if (lua_setupvalue(L, -2, 1) == NULL)
        lua_pop(L, 1);
    return 1;
}

/* Open the libraries the sandbox draws from, and prop's own functions. */
static int
setup_state(lua_State *L)
{
    lprop_ctx *ctx = lprop_getctx(L);
    static const luaL_Reg libs[] = {
        {LUA_GNAME, luaopen_base},       {LUA_STRLIBNAME, luaopen_string},
        {LUA_TABLIBNAME, luaopen_table}, {LUA_MATHLIBNAME, luaopen_math},
        {LUA_UTF8LIBNAME, luaopen_utf8}, {NULL, NULL}};
    const luaL_Reg *lib;

    for (lib = libs; lib->func; lib++) {
        luaL_requiref(L, lib->name, lib->func, 1);
        lua_pop(L, 1);
    }
    /* No bytecode ever: string.dump is the only way to make it. */
    lua_getglobal(L, LUA_STRLIBNAME);
    lua_pushnil(L);
    lua_setfield(L, -2, "dump");
    lua_pop(L, 1);
    /* Base functions that reach outside, or that would let a site undo
     * the limits, are removed from the state altogether. */
    lua_pushnil(L);
    lua_setglobal(L, "dofile");
    lua_pushnil(L);
    lua_setglobal(L, "loadfile");
    lua_pushnil(L);
    lua_setglobal(L, "collectgarbage");
    lua_pushcfunction(L, l_load);
    lua_setglobal(L, "load");
    lua_pushcfunction(L, l_pcall);
    lua_setglobal(L, "pcall");
    lua_pushcfunction(L, l_xpcall);
    lua_setglobal(L, "xpcall");
    lua_pushcfunction(L, l_print);
    lua_setglobal(L, "print");
    lua_pushcfunction(L, l_require);
    lua_setglobal(L, "require");
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, LOADED_KEY);
    lua_newtable(L);
    lua_newtable(L);
    lua_pushcfunction(L, embedded_guard_close);
    lua_setfield(L, -2, "__close");
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, EMBEDDED_GUARD_KEY);

    /* The prelude builds the config environment from this state. */
    lprop_require(L, "prop.prelude");
    if (!lua_istable(L, -1))
        return luaL_error(L, "prop.prelude did not return the environment");
    ctx->env_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
}

lprop_ctx *
lprop_open(const lprop_limits *limits)
{
    lprop_ctx *ctx = calloc(1, sizeof *ctx);
    lua_State *L;

    if (ctx == NULL)
        return NULL;
    ctx->limits = *limits;
    ctx->env_ref = LUA_NOREF;
    if (getenv("PROP_FAIL_ALLOC") != NULL)
        ctx->faults.at = strtoull(getenv("PROP_FAIL_ALLOC"), NULL, 10);
    if (prop_site_new(&ctx->site, counting_alloc, ctx) != PROP_OK)
        goto fail;
    L = lua_newstate(lua_heap_alloc, ctx);
    if (L == NULL)
        goto fail;
    ctx->L = L;
    *(lprop_ctx **)lua_getextraspace(L) = ctx;
    set_budget_hook(ctx);
    lua_gc(L, LUA_GCGEN, 0, 0);
    /* Without its memo a check is only slower: no memory for it is no error. */
    if (limits->check_only && limits->recipe_memo)
        ctx->memo = lprop_memo_new(counting_alloc, ctx);
    lua_pushcfunction(L, setup_state);
    if (lua_pcall(L, 0, 0, 0) != LUA_OK) {
        fprintf(stderr, "prop: cannot set up Lua: %s\n", lua_tostring(L, -1));
        goto fail;
    }
    return ctx;
fail:
    lprop_close(ctx);
    return NULL;
}

void
lprop_budget_reset(lprop_ctx *ctx)
{
    ctx->instructions = 0;
    ctx->stop = NULL;
    cpu_arm(ctx);
    set_budget_hook(ctx);
}

void
lprop_close(lprop_ctx *ctx)
{
    if (ctx == NULL)
        return;
    lprop_budget_stop(ctx);
    /* Finalizers of prop's own userdata run now and must not fail. */
    ctx->limits.max_memory = SIZE_MAX;
    if (ctx->faults.at > ctx->faults.count)
        fprintf(stderr, "prop: PROP_FAIL_ALLOC=%llu: this state made %llu requests\n",
                ctx->faults.at, ctx->faults.count);
    if (ctx->L)
        lua_close(ctx->L);
    lprop_memo_free(ctx->memo);
    prop_site_free(ctx->site);
    pool_release(&ctx->pool);
    free(ctx->site_dir);
    free(ctx->site_real);
    free(ctx);
}

/*
 * The length of "CHUNK:LINE: " at the start of msg when CHUNK is one of
 * prop's own modules (an error raised inside one: a stack overflow in the
 * prelude's setmetatable, say), else 0.
 */
static size_t
internal_place(const char *msg)
{
    const struct lprop_embedded *m;
    const char *q;
    size_t n;

    if (strncmp(msg, "prop/", 5) != 0)
        return 0;
    for (m = lprop_embedded_modules; m->module; m++) {
        n = strlen(m->chunkname + 1);
        if (strncmp(msg, m->chunkname + 1, n) != 0 || msg[n] != ':')
            continue;
        for (q = msg + n + 1; *q >= '0' && *q <= '9'; q++)
            ;
        if (q > msg + n + 1 && q[0] == ':' && q[1] == ' ')
            return (size_t)(q + 2 - msg);
    }
    return 0;
}

int
lprop_msgh(lua_State *L)
{
    prop_frame fr[1];
    prop_origin o;
    luaL_Buffer b;
    const char *text;
    size_t len, skip = 0, cut;
    int is_string = lua_type(L, 1) == LUA_TSTRING;

    if (is_string) {
        text = lua_tolstring(L, 1, &len);
        skip = internal_place(text);
    } else if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) {
        text = lua_tolstring(L, -1, &len);
    } else {
        lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
        text = lua_tolstring(L, -1, &len);
    }
    lprop_origin(L, &o, fr, 1);
    if (skip && o.nframes == 0)
        skip = 0; /* no line of the site to name instead */
    cut = len - skip;
    if (cut > LPROP_MAX_MESSAGE) {
        cut = LPROP_MAX_MESSAGE;
        while (cut > 0 && ((unsigned char)text[skip + cut] & 0xC0) == 0x80)
            cut--; /* not inside a UTF-8 character */
    }
    luaL_buffinit(L, &b);
    if ((!is_string || skip) && o.nframes > 0) {
        lua_pushfstring(L, "%s:%d: ", fr[0].file, fr[0].line);
        luaL_addvalue(&b);
    }
    luaL_addlstring(&b, text + skip, cut);
    if (cut < len - skip) {
        lua_pushfstring(L, " [... %I more bytes]", (lua_Integer)(len - skip - cut));
        luaL_addvalue(&b);
    }
    if (skip) {
        luaL_addstring(&b, " (in ");
        luaL_addlstring(&b, text, skip - 2);
        luaL_addstring(&b, ")");
    }
    luaL_pushresult(&b);
    return 1;
}

/* Message handler: lprop_msgh, and a note for each user-code place the
 * error passed through. */
static int
msgh(lua_State *L)
{
    lua_Debug ar;
    int level, added = 0;
    luaL_Buffer b;

    /* Where the error was raised, in case handling it fails (a stack
     * overflow inside __close handlers, say): Lua then reports only
     * "error in error handling". */
    note_place_now(lprop_getctx(L));
    lprop_msgh(L);
    luaL_buffinit(L, &b);
    lua_pushvalue(L, -2);
    luaL_addvalue(&b);
    /* Skip the innermost user frame when the message names it already
     * (an error raised elsewhere, in a template say, names its own place). */
    for (level = 1; lua_getstack(L, level, &ar); level++) {
        if (!lua_getinfo(L, "Sl", &ar) || ar.source[0] != '@' || ar.currentline <= 0)
            continue;
        if (added++ == 0) {
            const char *msg = lua_tostring(L, -2);
            size_t flen = strlen(ar.source + 1);
            char num[24];
            int nlen = snprintf(num, sizeof num, ":%d:", ar.currentline);

            if (msg && strncmp(msg, ar.source + 1, flen) == 0 && nlen > 0 &&
                strncmp(msg + flen, num, (size_t)nlen) == 0)
                continue;
        }
        lua_pushfstring(L, "\n%s:%d: note: called from here", ar.source + 1, ar.currentline);
        luaL_addvalue(&b);
        if (added > 8)
            break;
    }
    luaL_pushresult(&b);
    return 1;
}

/* Protected: the site file, whose path is a light userdata (pushing a
 * string before the call could raise outside it). */
static int
eval_main(lua_State *L)
{
    lua_pushstring(L, lua_touserdata(L, 1));
    run_user_file(L, lua_tostring(L, -1), lua_tostring(L, -1));
    return 0;
}

int
lprop_eval_file(lprop_ctx *ctx, const char *path)
{
    lua_State *L = ctx->L;
    const char *slash = strrchr(path, '/');
    int rc;

    free(ctx->site_dir);
    free(ctx->site_real);
    ctx->site_real = NULL;
    ctx->site_dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
    if (ctx->site_dir && ctx->site_dir[0] == '\0') {
        free(ctx->site_dir);
        ctx->site_dir = strdup("/");
    }
    if (ctx->site_dir == NULL) {
        lua_pushliteral(L, "prop: out of memory");
        return 1;
    }
    ctx->site_real = realpath(ctx->site_dir, NULL);
    if (ctx->site_real == NULL) {
        lua_pushfstring(L, "prop: cannot read %s: %s", path, strerror(errno));
        return 1;
    }
    ctx->where_line = 0;
    lua_pushcfunction(L, msgh);
    lua_pushcfunction(L, eval_main);
    lua_pushlightuserdata(L, (void *)path);
    lprop_budget_reset(ctx);
    ctx->evaluating = 1;
    rc = lua_pcall(L, 1, 0, -3);
    ctx->evaluating = 0;
    lprop_budget_stop(ctx);
    if (rc == LUA_OK) {
        lua_pop(L, 1);
        return 0;
    }
    lua_remove(L, -2);
    {
        /* Evaluation is over: reporting the error must not need room
         * that the site used up (the graph's arena shares the limit). */
        int mib = (int)(ctx->limits.max_memory >> 20);

        ctx->limits.max_memory = SIZE_MAX;
        if (rc == LUA_ERRERR && ctx->where_line > 0 && lua_type(L, -1) == LUA_TSTRING) {
            lua_pushfstring(L, "%s:%d: %s", ctx->where_file, ctx->where_line, lua_tostring(L, -1));
            lua_remove(L, -2);
        }
        if (rc != LUA_ERRMEM)
            return 1;
        /* Lua calls no handler for memory errors: name the last place. */
        lua_pop(L, 1);
        if (ctx->where_line > 0)
            lua_pushfstring(L, "%s:%d: memory limit of %d MiB exceeded; raise it with --max-memory",
                            ctx->where_file, ctx->where_line, mib);
        else
            lua_pushliteral(L, "prop: memory limit exceeded; raise it with --max-memory");
    }
    return 1;
}

/*
 * Print "file:line: error: message" for an evaluation error; a message
 * without a place is printed as "prop: error: ...".
 */
void
lprop_report_error(lprop_ctx *ctx, FILE *f, int color)
{
    const char *msg = lua_tostring(ctx->L, -1);
    const char *p, *first_line_end;
    const char *red = color ? "\033[1;31m" : "", *bold = color ? "\033[1m" : "";
    const char *reset = color ? "\033[0m" : "";

    if (msg == NULL)
        msg = "(error without a message)";
    first_line_end = strchr(msg, '\n');
    if (first_line_end == NULL)
        first_line_end = msg + strlen(msg);
    /* "file:line: text" -> "file:line: error: text" */
    p = strchr(msg, ':');
    if (p && p < first_line_end && p[1] >= '0' && p[1] <= '9') {
        const char *q = p + 1;
        while (*q >= '0' && *q <= '9')
            q++;
        if (*q == ':' && q[1] == ' ') {
            fprintf(f, "%s%.*s:%s %serror:%s %s\n", bold, (int)(q - msg), msg, reset, red, reset,
                    q + 2);
            return;
        }
    }
    if (strncmp(msg, "prop: ", 6) == 0)
        msg += 6;
    fprintf(f, "prop: %serror:%s %s\n", red, reset, msg);
}
