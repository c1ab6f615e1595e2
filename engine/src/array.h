/*
 * array.h - growable arrays of any element type: the one growth of
 * engine and bindings for a pointer v to n used of cap elements.
 *
 *     widget *v = NULL;
 *     size_t n = 0, cap = 0;
 *
 *     if (prop_array_reserve(v, cap, n, 1, 16) != 0)
 *         return ENOMEM;
 *     v[n++] = w;
 *     ...
 *     free(v);
 *
 * The array is malloc'd; its owner frees it.
 */
#ifndef PROP_ARRAY_H
#define PROP_ARRAY_H

#include <stddef.h>

/*
 * Room in the array at *vp (a pointer to the array's pointer, of *cap
 * elements of elsize bytes, n of them used) for more elements after the n:
 * 0, or -1 when out of memory or the size would overflow, the array as it
 * was.  It grows by doubling, from first elements.
 */
int prop_array_grow(void *vp, size_t *cap, size_t n, size_t more, size_t elsize, size_t first);

/* prop_array_grow for an array v (an lvalue of pointer type) of cap. */
#define prop_array_reserve(v, cap, n, more, first)                                                 \
    prop_array_grow(&(v), &(cap), (n), (more), sizeof *(v), (first))

#endif /* PROP_ARRAY_H */
