/*
 * lprop_alloc.h - the allocator of a state (lprop_alloc.c): the Lua heap
 * and the property graph draw from it, and the memory limit counts both.
 */
#ifndef LPROP_ALLOC_H
#define LPROP_ALLOC_H

#include <stddef.h>

/*
 * Blocks of up to LPROP_POOL_MAX bytes come from size-class free lists
 * carved out of large slabs (lprop_alloc.c says why and how the memory
 * limit counts them); the slabs are freed when the state is closed.
 * Classes: 16, 32, ... 256 bytes, then four in each doubling up to
 * LPROP_POOL_MAX.
 */
#define LPROP_POOL_MAX 65536
#define LPROP_POOL_CLASSES (16 + 8 * 4)
typedef struct lprop_pool {
    void *free[LPROP_POOL_CLASSES]; /* free blocks, linked through their first word */
    char *cur, *end;                /* unused space in the newest slab */
    void *slabs;                    /* every slab, linked through its first word */
    size_t nslabs;
} lprop_pool;

/* The lua_Alloc of the graph (ud: the lprop_ctx): counts against the
 * memory limit; PROP_FAIL_ALLOC makes a chosen request fail. */
void *lprop_counting_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
/* The Lua heap's: lprop_counting_alloc, and growth charged to the budget. */
void *lprop_lua_heap_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
/* Free every slab of the pool (when the state is closed). */
void lprop_pool_release(lprop_pool *pool);

#endif /* LPROP_ALLOC_H */
