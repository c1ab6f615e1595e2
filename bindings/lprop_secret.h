/*
 * lprop_secret.h - `secret "name"` values (lprop_secret.c).
 */
#ifndef LPROP_SECRET_H
#define LPROP_SECRET_H

#include <stddef.h>

#include <lua.h>

#include "lprop_state.h"

#define LPROP_SECRET "prop.Secret"

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

#endif /* LPROP_SECRET_H */
