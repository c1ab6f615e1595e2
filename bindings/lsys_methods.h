/*
 * lsys_methods.h - what the files of the `sys` handle share: lsys.c (the
 * handle, its notes, its metatable and the table of its methods) and the
 * lsys_*.c files that hold the methods.  Callers of lsys include lsys.h,
 * not this.
 */
#ifndef LSYS_METHODS_H
#define LSYS_METHODS_H

#include <stddef.h>

#include <lua.h>

#include "lprop.h"
#include "lsys.h"

/* lsys.c */
/*
 * Raise an error from a sys method.  Called from the site's own code, the
 * message starts with the caller's "file:line: "; called from prop's
 * recipes, it does not.
 */
LPROP_NORETURN int lsys_error(lua_State *L, const char *fmt, ...);
/* The lsys of the `sys` at argument 1; raises when its host's run ended. */
lsys *lsys_check_self(lua_State *L);
/* Append a line to a malloc'd buffer of s's lines (a newline is added). */
void lsys_add_line(lsys *s, char **buf, size_t *len, size_t *cap, const char *text, size_t n);

/* lsys_file.c: sys:read, write, has_content, stat, exists, remove, mkdir,
 * symlink, chattr. */
int lsys_file_read(lua_State *L);
int lsys_file_write(lua_State *L);
int lsys_file_has_content(lua_State *L);
int lsys_file_stat(lua_State *L);
int lsys_file_exists(lua_State *L);
int lsys_file_remove(lua_State *L);
int lsys_file_mkdir(lua_State *L);
int lsys_file_symlink(lua_State *L);
int lsys_file_chattr(lua_State *L);

/* lsys_cmd.c: sys:run and sys:query. */
int lsys_cmd_run(lua_State *L);
int lsys_cmd_query(lua_State *L);

/* lsys_net.c: sys:tcp and sys:http, for probes. */
int lsys_net_tcp(lua_State *L);
int lsys_net_http(lua_State *L);

/* lsys_claims.c: sys:claims. */
int lsys_claims(lua_State *L);

#endif /* LSYS_METHODS_H */
