/*
 * lprop_alloc.h - the allocator of a state (lprop_alloc.c): the Lua heap
 * and the property graph draw from it, and the memory limit counts both.
 */
#ifndef LPROP_ALLOC_H
#define LPROP_ALLOC_H

#include <stddef.h>

#include "lprop_state.h"

/* The lua_Alloc of the graph (ud: the lprop_ctx): counts against the
 * memory limit; PROP_FAIL_ALLOC makes a chosen request fail. */
void *lprop_counting_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
/* The Lua heap's: lprop_counting_alloc, and growth charged to the budget. */
void *lprop_lua_heap_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
/* Free every slab of the pool (when the state is closed). */
void lprop_pool_release(lprop_pool *pool);

#endif /* LPROP_ALLOC_H */
