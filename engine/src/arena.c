/*
 * arena.c - the bump allocator every site lives in.
 *
 * Ownership: an arena owns a list of chunks obtained from the site's
 * allocator (the lua_Alloc contract; NULL means malloc/realloc/free).
 * Allocations are never freed one by one: arena_release() gives every
 * chunk back at once.  A refused chunk makes the allocation return NULL
 * and leaves the arena usable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define CHUNK_SIZE ((size_t)64 * 1024)
#define MAX_CHUNK_SIZE ((size_t)4 * 1024 * 1024)
#define ALIGN 16

struct arena_chunk {
    arena_chunk *next;
    size_t size; /* bytes of the whole chunk, header included */
    /* the payload follows, ALIGN-aligned */
};

/* The chunk header rounded up so that the payload stays aligned. */
#define HEADER_SIZE ((sizeof(arena_chunk) + ALIGN - 1) & ~(size_t)(ALIGN - 1))

void *
arena_default_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    (void)ud;
    (void)osize;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    return realloc(ptr, nsize);
}

void
arena_init(arena *a, prop_alloc_fn alloc, void *ud)
{
    a->alloc = alloc ? alloc : arena_default_alloc;
    a->ud = ud;
    a->head = NULL;
    a->cur = a->end = NULL;
    a->total = 0;
}

void
arena_release(arena *a)
{
    arena_chunk *c = a->head;

    while (c) {
        arena_chunk *next = c->next;
        a->alloc(a->ud, c, c->size, 0);
        c = next;
    }
    a->head = NULL;
    a->cur = a->end = NULL;
    a->total = 0;
}

/*
 * Get a chunk able to hold size bytes at the given alignment.  A request
 * larger than a quarter of a chunk gets a chunk of its own, linked behind
 * the head so that the free space of the head is not wasted.
 */
static void *
new_chunk(arena *a, size_t size, size_t align)
{
    size_t need = HEADER_SIZE + size + align;
    /* Chunks grow with the arena (an eighth of what it holds, up to 4 MiB):
     * few large requests keep malloc from consolidating its free lists
     * again and again while a big site is built. */
    size_t chunk = a->total / 8;
    int alone;
    size_t csize;

    if (chunk < CHUNK_SIZE)
        chunk = CHUNK_SIZE;
    if (chunk > MAX_CHUNK_SIZE)
        chunk = MAX_CHUNK_SIZE;
    alone = size > chunk / 4;
    csize = alone ? need : chunk;
    arena_chunk *c;
    char *p;

    if (size > (size_t)-1 / 2)
        return NULL;
    c = a->alloc(a->ud, NULL, 0, csize);
    if (!c)
        return NULL;
    c->size = csize;
    a->total += csize;
    p = (char *)(((uintptr_t)c + HEADER_SIZE + align - 1) & ~(uintptr_t)(align - 1));
    if (alone && a->head) {
        c->next = a->head->next;
        a->head->next = c;
        return p;
    }
    c->next = a->head;
    a->head = c;
    a->cur = p + size;
    a->end = (char *)c + csize;
    return p;
}

void *
arena_alloc_align(arena *a, size_t size, size_t align)
{
    uintptr_t cur = (uintptr_t)a->cur;
    uintptr_t aligned = (cur + align - 1) & ~(uintptr_t)(align - 1);

    if (size == 0)
        size = 1;
    if (a->cur && aligned <= (uintptr_t)a->end && size <= (uintptr_t)a->end - aligned) {
        a->cur = (char *)aligned + size;
        return (void *)aligned;
    }
    return new_chunk(a, size, align);
}

void *
arena_alloc(arena *a, size_t size)
{
    return arena_alloc_align(a, size, ALIGN);
}

void *
arena_zalloc(arena *a, size_t size)
{
    void *p = arena_alloc(a, size);

    if (p)
        memset(p, 0, size);
    return p;
}

char *
arena_strndup(arena *a, const char *s, size_t len)
{
    char *p;

    if (len == (size_t)-1)
        return NULL;
    p = arena_alloc_align(a, len + 1, 1);
    if (!p)
        return NULL;
    if (len)
        memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

char *
arena_strdup(arena *a, const char *s)
{
    return arena_strndup(a, s, strlen(s));
}

char *
arena_vprintf(arena *a, const char *fmt, va_list ap)
{
    va_list aq;
    int n;
    char *p;

    va_copy(aq, ap);
    n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    if (n < 0)
        return NULL;
    p = arena_alloc_align(a, (size_t)n + 1, 1);
    if (!p)
        return NULL;
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    return p;
}

char *
arena_printf(arena *a, const char *fmt, ...)
{
    va_list ap;
    char *p;

    va_start(ap, fmt);
    p = arena_vprintf(a, fmt, ap);
    va_end(ap);
    return p;
}

/*
 * Append p, doubling the array when full.  The old copy stays in the arena
 * (it is freed with the site), which costs at most as much as the final
 * array.  PROP_ENOMEM when the arena refuses; pv is then unchanged.
 */
int
ptrvec_push(arena *a, ptrvec *pv, void *p)
{
    if (pv->n == pv->cap) {
        size_t cap = pv->cap ? pv->cap * 2 : 8;
        void **v;

        if (cap > (size_t)-1 / sizeof(void *))
            return PROP_ENOMEM;
        v = arena_alloc_align(a, cap * sizeof(void *), sizeof(void *));
        if (!v)
            return PROP_ENOMEM;
        if (pv->n)
            memcpy(v, pv->v, pv->n * sizeof(void *));
        pv->v = v;
        pv->cap = cap;
    }
    pv->v[pv->n++] = p;
    return PROP_OK;
}
