/*
 * lprop_eval.h - making and closing the Lua state a site is evaluated in,
 * and the evaluation of a site (lprop_eval.c).  The top of the bindings'
 * ladder: lprop_eval.c sets up every other part.
 */
#ifndef LPROP_EVAL_H
#define LPROP_EVAL_H

#include <stdio.h>

#include <lua.h>

#include "lprop_state.h"

/*
 * Make a state with prop's allocator, libraries, core module and embedded
 * modules, and an empty site.  NULL when out of memory.
 */
lprop_ctx *lprop_open(const lprop_limits *limits);
/* Close the state, then free the site and the ctx.  Accepts NULL. */
void lprop_close(lprop_ctx *ctx);

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

#endif /* LPROP_EVAL_H */
