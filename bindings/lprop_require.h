/*
 * lprop_require.h - `require` confined to the site's directory and
 * prop's embedded modules, and the reading of a site's files
 * (lprop_require.c).
 */
#ifndef LPROP_REQUIRE_H
#define LPROP_REQUIRE_H

#include <lua.h>

#include "lprop_state.h"

/* Whether a site may require prop module name: the recipe modules only. */
int lprop_site_may_require(const char *name);
/*
 * Whether the innermost Lua function calling the running C function is the
 * user's (a site file, a module next to it, a chunk it loaded) rather than
 * one of prop's own modules (chunk names "=prop/..."; a site's load()
 * cannot make such a name).  0 when no Lua function is on the stack.
 */
int lprop_user_caller(lua_State *L);

/* Call require(name) in the state and leave the module on the stack. */
int lprop_require(lua_State *L, const char *name);

/* site.file(rel): a regular file beside the site, read at evaluation time. */
int lprop_site_file(lua_State *L);

/* Run the user file at path (shown as `shown` in messages) in the config
 * environment; raises on error. */
void lprop_run_user_file(lua_State *L, const char *path, const char *shown);
/* Set the sandbox's require and the registry tables it keeps; require
 * "prop.core" calls open_core (luaopen_prop_core, which lies above this
 * file: it requires modules itself). */
void lprop_require_install(lua_State *L, lua_CFunction open_core);

#endif /* LPROP_REQUIRE_H */
