/*
 * alloc.c - the engine's own allocations, and the test hook that makes
 * one of them fail (alloc.h).
 */
#define _GNU_SOURCE /* strndup */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"

/* The hook: allocations counted since prop_alloc_fail_at, and the one to
 * refuse.  Read from the environment on the first allocation.  The engine
 * runs in one thread (prop run -j forks), so plain counters do. */
static unsigned long long count, fail_at;
static int hook_read;

static int
refuse(void)
{
    if (!hook_read) {
        const char *v = getenv("PROP_FAIL_ENGINE_ALLOC");

        hook_read = 1;
        if (v && *v)
            fail_at = strtoull(v, NULL, 10);
    }
    return ++count == fail_at;
}

void
prop_alloc_fail_at(unsigned long long n)
{
    hook_read = 1;
    count = 0;
    fail_at = n;
}

unsigned long long
prop_alloc_count(void)
{
    return count;
}

void *
prop_malloc(size_t n)
{
    return refuse() ? NULL : malloc(n);
}

void *
prop_calloc(size_t n, size_t size)
{
    return refuse() ? NULL : calloc(n, size);
}

void *
prop_realloc(void *p, size_t n)
{
    return refuse() ? NULL : realloc(p, n);
}

char *
prop_strdup(const char *s)
{
    return refuse() ? NULL : strdup(s);
}

char *
prop_strndup(const char *s, size_t n)
{
    return refuse() ? NULL : strndup(s, n);
}
