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

#include "lprop_alloc.h"
#include "lprop_budget.h"
#include "lprop_eval.h"
#include "lprop_memo.h"
#include "lprop_property.h"
#include "lprop_require.h"
#include "lprop_secret.h"

#endif /* LPROP_H */
