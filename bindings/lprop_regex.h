/*
 * lprop_regex.h - POSIX extended regular expressions for recipes
 * (lprop_regex.c): libc's regcomp and regexec, as functions of prop.core,
 * so that a recipe's regex = option is checked when the site is read and
 * matched the same way at run time.
 */
#ifndef LPROP_REGEX_H
#define LPROP_REGEX_H

#include <lua.h>

/*
 * Set on the table at the stack top (prop.core):
 *   regex_compile(re) -> a compiled expression (REG_EXTENDED|REG_NOSUB),
 *                        or nil and regerror's text (also for a NUL byte
 *                        in re); the expression's :match(s) is whether it
 *                        finds a match in s (up to its first NUL byte).
 */
void lprop_regex_register(lua_State *L);

#endif /* LPROP_REGEX_H */
