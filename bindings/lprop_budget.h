/*
 * lprop_budget.h - what stops a site's code (lprop_budget.c): the
 * instruction budget, the CPU clock and the stop asked for from outside.
 */
#ifndef LPROP_BUDGET_H
#define LPROP_BUDGET_H

#include <lua.h>

#include "lprop_state.h"

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
/* Add n to the instructions spent (saturating); the hook raises. */
void lprop_charge_instructions(lprop_ctx *ctx, long long n);
/* Set the count hook as the state's budget stands now. */
void lprop_budget_arm_hook(lprop_ctx *ctx);
/* Record the innermost user-code place, for a memory error; allocates
 * nothing (safe from inside the allocator). */
void lprop_note_place_now(lprop_ctx *ctx);
/* Set the sandbox's pcall and xpcall, which keep a stopped site stopped. */
void lprop_budget_install(lua_State *L);

#endif /* LPROP_BUDGET_H */
