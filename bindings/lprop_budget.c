/*
 * lprop_budget.c - what stops a site's code: the count hook that enforces
 * the instruction budget, the CPU clock, the stop asked for from outside
 * (Ctrl-C), and the pcall/xpcall that keep a stopped evaluation stopped.
 */
#define _GNU_SOURCE /* SI_TIMER, timer_create */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>

#include "lprop_budget.h"

/*
 * Instructions between two calls of the count hook.  Taking the hook off
 * for a recipe call and putting it back restarts the count, so what the
 * site ran since the last call is not counted: up to HOOK_PERIOD - 1
 * instructions a recipe call.  1000 keeps that within ten times the
 * LPROP_RECIPE_CHARGE a call is charged, at no measurable cost (10000 let
 * a site run some 50 times its budget; 100 cost a tenth more time).
 */
#define HOOK_PERIOD 1000

/*
 * Record the innermost user-code place of the running evaluation, for a
 * memory error (Lua runs no message handler for those).  Reading the call
 * stack allocates nothing, so it is safe from inside the allocator.
 */
void
lprop_note_place_now(lprop_ctx *ctx)
{
    lua_Debug ar;
    int level;

    for (level = 0; lua_getstack(ctx->L, level, &ar); level++) {
        if (!lua_getinfo(ctx->L, "Sl", &ar))
            return;
        if (ar.source[0] == '@' && ar.currentline > 0) {
            snprintf(ctx->budget.where_file, sizeof ctx->budget.where_file, "%s", ar.source + 1);
            ctx->budget.where_line = ar.currentline;
            return;
        }
    }
}

/* Add to the instructions spent, without overflow whatever the budget. */
void
lprop_charge_instructions(lprop_ctx *ctx, long long n)
{
    if (n <= 0)
        return;
    if (ctx->budget.instructions > LLONG_MAX - n)
        ctx->budget.instructions = LLONG_MAX;
    else
        ctx->budget.instructions += n;
}

/* Remember where user code is, so that a memory error can name a place. */
static void
note_place(lprop_ctx *ctx, lua_State *L, lua_Debug *ar)
{
    if (!lua_getinfo(L, "Sl", ar))
        return;
    if (ar->source[0] == '@' && ar->currentline > 0) {
        snprintf(ctx->budget.where_file, sizeof ctx->budget.where_file, "%s", ar->source + 1);
        ctx->budget.where_line = ar->currentline;
    }
}

/*
 * Why the running code must stop, or NULL: stopped from outside (Ctrl-C),
 * out of CPU time, or out of instructions.  Once there is a reason it stays
 * (in ctx->budget.stop) until lprop_budget_reset.
 */
static const char *
stop_reason(lprop_ctx *ctx)
{
    if (ctx->budget.stop != NULL)
        return ctx->budget.stop;
    if (ctx->budget.cpu_expired) {
        snprintf(ctx->budget.stop_msg, sizeof ctx->budget.stop_msg,
                 "evaluation used more than %d s of CPU; raise the limit with --max-cpu",
                 ctx->limits.max_cpu);
        ctx->budget.stop = ctx->budget.stop_msg;
    } else if (ctx->budget.interrupt != NULL && *ctx->budget.interrupt) {
        ctx->budget.stop = "interrupted";
    } else if (ctx->budget.instructions > ctx->limits.max_instructions) {
        snprintf(ctx->budget.stop_msg, sizeof ctx->budget.stop_msg,
                 "instruction budget of %lld exceeded (an endless loop?); "
                 "raise it with --max-instructions",
                 ctx->limits.max_instructions);
        ctx->budget.stop = ctx->budget.stop_msg;
    }
    return ctx->budget.stop;
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
        lprop_charge_instructions(ctx, HOOK_PERIOD);
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
    lprop_note_place_now(ctx);
    if (ctx->budget.where_line > 0)
        lua_pushfstring(L, "%s:%d: %s", ctx->budget.where_file, ctx->budget.where_line, why);
    else
        lua_pushstring(L, why);
    lua_error(L);
}

/* The hook for code that runs under the budget, as things stand now. */
void
lprop_budget_arm_hook(lprop_ctx *ctx)
{
    if (ctx->budget.stop != NULL || ctx->budget.cpu_expired ||
        (ctx->budget.interrupt != NULL && *ctx->budget.interrupt))
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
    if (file == NULL && ctx->budget.where_line > 0) {
        file = ctx->budget.where_file;
        line = ctx->budget.where_line;
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
    if (ctx != NULL && now >= ctx->budget.cpu_deadline - NSEC / 20) {
        if (!ctx->budget.cpu_expired) {
            ctx->budget.cpu_expired = 1;
            lprop_interrupt_now(ctx);
        } else if (now >= ctx->budget.cpu_deadline + NSEC / 2 && lua_getstack(ctx->L, 0, &ar)) {
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

    ctx->budget.cpu_expired = 0;
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
    ctx->budget.cpu_deadline = cpu_now() + (long long)ctx->limits.max_cpu * NSEC;
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
    lprop_charge_instructions(ctx, LPROP_RECIPE_CHARGE);
    why = stop_reason(ctx);
    if (why != NULL)
        return lprop_error(L, "%s", why);
    lua_sethook(L, NULL, 0, 0);
    return 1;
}

void
lprop_budget_resume(lua_State *L)
{
    lprop_budget_arm_hook(lprop_getctx(L));
}

void
lprop_budget_reset(lprop_ctx *ctx)
{
    ctx->budget.instructions = 0;
    ctx->budget.stop = NULL;
    cpu_arm(ctx);
    lprop_budget_arm_hook(ctx);
}

void
lprop_budget_install(lua_State *L)
{
    lua_pushcfunction(L, l_pcall);
    lua_setglobal(L, "pcall");
    lua_pushcfunction(L, l_xpcall);
    lua_setglobal(L, "xpcall");
}
