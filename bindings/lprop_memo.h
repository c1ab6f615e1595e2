/*
 * lprop_memo.h - the memo of recipe calls of a check-only state
 * (lprop_memo.c).
 */
#ifndef LPROP_MEMO_H
#define LPROP_MEMO_H

#include <stddef.h>

#include <lua.h>

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

#endif /* LPROP_MEMO_H */
