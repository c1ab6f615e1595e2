/*
 * lprop_alloc.c - the allocator of a Lua state and its property graph:
 * size-class pools carved out of slabs, large blocks mapped on their own,
 * and the count of what is held against the memory limit (and, for the
 * Lua heap, against the instruction budget).
 */
#define _GNU_SOURCE /* MAP_ANONYMOUS, madvise; mremap (Linux) */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "lprop_alloc.h"
#include "lprop_budget.h"

/* Under AddressSanitizer (GCC says so one way, clang another), malloc
 * does it all: let it see every block. */
#if defined(__SANITIZE_ADDRESS__)
#define POOLING 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define POOLING 0
#endif
#endif
#ifndef POOLING
#define POOLING 1
#endif

/*
 * Where a block lives follows from its size alone, which every caller
 * gives back on free (the lua_Alloc contract):
 *   - up to LPROP_POOL_MAX bytes, a size class of the pool, carved out of
 *     2 MiB slabs: a site makes millions of small Lua objects, and
 *     malloc's bookkeeping for each was most of the cost of evaluating a
 *     large site.  Huge pages are asked for from the fifth slab on: a
 *     huge page is zeroed whole at its first touch, which costs a small
 *     site (most runs) more than it saves;
 *   - above that, a mapping of its own, in whole pages; from HUGE_MIN on,
 *     in whole 2 MiB, aligned, with transparent huge pages asked for: a
 *     big site touches hundreds of MB for the first time, and one fault
 *     per 2 MiB instead of one per 4 KiB saves a tenth of its evaluation.
 * So all the memory the process holds for the state is slabs and
 * mappings, and the memory limit counts exactly those: a slab from when
 * it is mapped until the state is closed (its freed blocks wait in free
 * lists and stay resident), a mapping for as long as it exists.  A site
 * that frees many small blocks and then asks for large ones cannot take
 * the process past the limit.  Without pooling (AddressSanitizer), malloc
 * does it all, and the limit counts the bytes asked for.
 */
#define HUGE_MIN ((size_t)2 << 20)
#define SLAB_SIZE HUGE_MIN
#define PAGE_SIZE_ ((size_t)4096)

/* Whether a block of n bytes (n > 0) has a mapping of its own. */
static int
is_mapped(size_t n)
{
    return POOLING && n > LPROP_POOL_MAX;
}

/* The length of the mapping of a block of n bytes; 0 when too large. */
static size_t
map_round(size_t n)
{
    size_t unit = n >= HUGE_MIN ? HUGE_MIN : PAGE_SIZE_;
    size_t len = (n + unit - 1) & ~(unit - 1);

    return len < n || len + HUGE_MIN < len ? 0 : len;
}

#define SLABS_SMALL_PAGES 4

/* n bytes (n > LPROP_POOL_MAX) mapped on their own, in huge pages when n
 * is large enough and huge; NULL when refused. */
static void *
map_get(size_t n, int huge)
{
    size_t len = map_round(n), head;
    char *p;

    if (len == 0)
        return NULL;
    if (len < HUGE_MIN) {
        p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        return p == MAP_FAILED ? NULL : p;
    }
    p = mmap(NULL, len + HUGE_MIN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    /* Trim to an aligned start: what is left over goes back at once. */
    head = (HUGE_MIN - ((uintptr_t)p & (HUGE_MIN - 1))) & (HUGE_MIN - 1);
    if (head)
        (void)munmap(p, head);
    (void)munmap(p + head + len, HUGE_MIN - head);
    p += head;
#ifdef MADV_HUGEPAGE
    if (huge)
        (void)madvise(p, len, MADV_HUGEPAGE); /* a hint: without it, small pages */
#else
    (void)huge;
#endif
    return p;
}

static void
map_put(void *p, size_t n)
{
    (void)munmap(p, map_round(n));
}

/*
 * The size classes: 16, 32, ... 256 bytes, then four in each doubling
 * (320, 384, 448, 512, 640, ...) up to LPROP_POOL_MAX.  n is 1 to
 * LPROP_POOL_MAX.
 */
static size_t
size_class(size_t n)
{
    size_t k = 8, quarter;

    if (n <= 256)
        return (n + 15) / 16 - 1;
    while (((size_t)2 << k) < n)
        k++;
    quarter = ((size_t)1 << k) / 4; /* 2^k < n <= 2^(k+1) */
    return 16 + (k - 8) * 4 + (n - ((size_t)1 << k) + quarter - 1) / quarter - 1;
}

static size_t
class_size(size_t c)
{
    size_t k;

    if (c < 16)
        return (c + 1) * 16;
    k = 8 + (c - 16) / 4;
    return ((size_t)1 << k) + ((c - 16) % 4 + 1) * (((size_t)1 << k) / 4);
}

/* Whether a block of class c needs a new slab. */
static int
pool_needs_slab(const lprop_pool *pool, size_t c)
{
    return pool->free[c] == NULL && (size_t)(pool->end - pool->cur) < class_size(c);
}

/* A block of class c from the pool; NULL when no slab can be mapped. */
static void *
pool_get(lprop_pool *pool, size_t c)
{
    size_t size = class_size(c);
    void *p = pool->free[c];
    char *slab;

    if (p) {
        pool->free[c] = *(void **)p;
        return p;
    }
    if ((size_t)(pool->end - pool->cur) < size) {
        slab = map_get(SLAB_SIZE, pool->nslabs >= SLABS_SMALL_PAGES);
        if (slab == NULL)
            return NULL;
        pool->nslabs++;
        *(void **)slab = pool->slabs;
        pool->slabs = slab;
        pool->cur = slab + 16;
        pool->end = slab + SLAB_SIZE;
    }
    p = pool->cur;
    pool->cur += size;
    return p;
}

static void
pool_put(lprop_pool *pool, void *p, size_t c)
{
    *(void **)p = pool->free[c];
    pool->free[c] = p;
}

void
lprop_pool_release(lprop_pool *pool)
{
    void *slab = pool->slabs, *next;

    while (slab) {
        next = *(void **)slab;
        map_put(slab, SLAB_SIZE);
        slab = next;
    }
    memset(pool, 0, sizeof *pool);
}

/* Give back a block of old bytes, wherever it came from. */
static void
block_put(lprop_pool *pool, void *ptr, size_t old)
{
    if (!POOLING)
        free(ptr);
    else if (is_mapped(old))
        map_put(ptr, old);
    else
        pool_put(pool, ptr, size_class(old));
}

/*
 * The bytes the process comes to hold, and those it lets go, when the
 * block ptr of old bytes becomes one of nsize bytes (see above).
 */
static void
held_change(const lprop_pool *pool, const void *ptr, size_t old, size_t nsize, size_t *add,
            size_t *sub)
{
    *add = *sub = 0;
    if (!POOLING) {
        if (nsize > old)
            *add = nsize - old;
        else
            *sub = old - nsize;
        return;
    }
    if (ptr && is_mapped(old))
        *sub = map_round(old);
    if (nsize == 0)
        return;
    if (is_mapped(nsize))
        *add = map_round(nsize) ? map_round(nsize) : SIZE_MAX;
    else if (!(ptr && !is_mapped(old) && size_class(old) == size_class(nsize)) &&
             pool_needs_slab(pool, size_class(nsize)))
        *add = SLAB_SIZE;
}

/* realloc over the pool and the mappings (malloc without pooling). */
static void *
pool_realloc(lprop_pool *pool, void *ptr, size_t old, size_t nsize)
{
    int old_mapped = ptr && is_mapped(old), new_mapped = is_mapped(nsize);
    void *p;

    if (nsize == 0) {
        if (ptr)
            block_put(pool, ptr, old);
        return NULL;
    }
    if (!POOLING)
        return realloc(ptr, nsize);
    if (ptr && !old_mapped && !new_mapped && size_class(old) == size_class(nsize))
        return ptr;
    if (old_mapped && new_mapped && map_round(old) == map_round(nsize))
        return ptr;
#ifdef MREMAP_MAYMOVE
    /* A big array growing (the parser's code and constants, the list of
     * every node): the kernel moves the pages, nothing is copied or
     * cleared again.  The new place may lose the 2 MiB alignment; only
     * the huge-page hint depends on it. */
    if (old_mapped && new_mapped && map_round(nsize) != 0) {
        p = mremap(ptr, map_round(old), map_round(nsize), MREMAP_MAYMOVE);
        if (p == MAP_FAILED)
            return NULL;
#ifdef MADV_HUGEPAGE
        if (nsize >= HUGE_MIN)
            (void)madvise(p, map_round(nsize), MADV_HUGEPAGE);
#endif
        return p;
    }
#endif
    p = new_mapped ? map_get(nsize, 1) : pool_get(pool, size_class(nsize));
    if (p == NULL)
        return NULL;
    if (ptr) {
        memcpy(p, ptr, old < nsize ? old : nsize);
        block_put(pool, ptr, old);
    }
    return p;
}

/*
 * lua_Alloc that counts the memory held for the state (see above) and
 * refuses past the limit.  The engine's arena uses the same function, so
 * the limit covers the Lua heap and the property graph together.
 *
 * For tests, PROP_FAIL_ALLOC=N in the environment makes it refuse the Nth
 * request for more memory (a new block or a block growing) of a state, as
 * if the limit were reached there, and the same request again when Lua
 * retries it after an emergency collection: tests/cli/test_alloc_faults.sh
 * walks N over the requests of a run, to see each one fail cleanly.
 */
void *
lprop_counting_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    lprop_ctx *ctx = ud;
    size_t old = ptr ? osize : 0, add, sub;
    void *p;

    held_change(&ctx->heap.pool, ptr, old, nsize, &add, &sub);
    if (nsize == 0) {
        pool_realloc(&ctx->heap.pool, ptr, old, 0);
        ctx->heap.used -= sub;
        return NULL;
    }
    if (nsize > old && ctx->heap.faults.at) {
        if (ctx->heap.faults.again && ptr == ctx->heap.faults.ptr &&
            osize == ctx->heap.faults.osize && nsize == ctx->heap.faults.nsize) {
            ctx->heap.faults.again = 0;
            return NULL;
        }
        ctx->heap.faults.again = 0;
        if (++ctx->heap.faults.count == ctx->heap.faults.at) {
            ctx->heap.faults.again = 1;
            ctx->heap.faults.ptr = ptr;
            ctx->heap.faults.osize = osize;
            ctx->heap.faults.nsize = nsize;
            return NULL;
        }
    }
    /* A block never fails to shrink: Lua relies on it. */
    if (nsize > old && add > sub && add - sub > ctx->limits.max_memory - ctx->heap.used) {
        if (ctx->evaluating && ctx->L)
            lprop_note_place_now(ctx);
        return NULL;
    }
    p = pool_realloc(&ctx->heap.pool, ptr, old, nsize);
    if (p == NULL)
        return NULL;
    ctx->heap.used = ctx->heap.used + add - sub;
    if (ctx->heap.used > ctx->heap.peak)
        ctx->heap.peak = ctx->heap.used;
    return p;
}

/*
 * The Lua heap's allocator: lprop_counting_alloc, and the bytes a block grows by
 * count against the instruction budget as the work of filling them, one
 * instruction every BYTES_AN_INSTRUCTION.  A loop that copies a long
 * string (s:upper(), s .. "x") runs a handful of instructions a round: so
 * the budget, and not only the CPU clock, ends it.  The count hook raises
 * the error at its next tick.
 */
#define BYTES_AN_INSTRUCTION 16
void *
lprop_lua_heap_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    lprop_ctx *ctx = ud;
    size_t old = ptr ? osize : 0;
    void *p = lprop_counting_alloc(ud, ptr, osize, nsize);

    if (p != NULL && nsize > old)
        lprop_charge_instructions(ctx, (long long)((nsize - old) / BYTES_AN_INSTRUCTION));
    return p;
}
