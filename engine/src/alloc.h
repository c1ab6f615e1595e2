/*
 * alloc.h - the engine's own allocations (everything but the site's
 * graph, which draws from the site's lua_Alloc: arena.c): malloc, calloc,
 * realloc, strdup and strndup, through one place where a test can make
 * one of them fail, as a fault simulator under every allocation does.
 *
 * PROP_FAIL_ENGINE_ALLOC=N in the environment (read once) or
 * prop_alloc_fail_at(N) makes the Nth allocation from then on fail (NULL),
 * and only that one; 0 turns it off.  Every caller handles NULL: the
 * tests (tests/unit/check_alloc_faults.c) walk N over whole operations
 * and check each ends in a clean error, with nothing leaked.
 */
#ifndef PROP_ALLOC_H
#define PROP_ALLOC_H

#include <stddef.h>

void *prop_malloc(size_t n);
void *prop_calloc(size_t n, size_t size);
void *prop_realloc(void *p, size_t n);
char *prop_strdup(const char *s);
char *prop_strndup(const char *s, size_t n);

/* Make the nth allocation from now fail (0: none); how many were made
 * since the last call, for a test to know when a walk is over. */
void prop_alloc_fail_at(unsigned long long n);
unsigned long long prop_alloc_count(void);

#endif /* PROP_ALLOC_H */
