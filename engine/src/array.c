/*
 * array.c - growable arrays of any element type; see array.h.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "array.h"

int
prop_array_grow(void *vp, size_t *cap, size_t n, size_t more, size_t elsize, size_t first)
{
    size_t ncap = *cap ? *cap : (first ? first : 1);
    void *v, *nv;

    if (elsize == 0 || more > SIZE_MAX - n)
        return -1;
    if (n + more <= *cap)
        return 0;
    while (ncap < n + more) {
        if (ncap > SIZE_MAX / 2)
            return -1;
        ncap *= 2;
    }
    if (ncap > SIZE_MAX / elsize)
        return -1;
    memcpy(&v, vp, sizeof v);
    if ((nv = prop_realloc(v, ncap * elsize)) == NULL)
        return -1;
    memcpy(vp, &nv, sizeof nv);
    *cap = ncap;
    return 0;
}
