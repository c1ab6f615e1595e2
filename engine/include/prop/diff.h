/*
 * diff.h - unified diffs of two texts, to show what a write changes.
 *
 * The comparison is by lines (a line ends after its '\n'; the last line of
 * a text may lack one) with Myers' O(ND) algorithm in linear space.  When
 * two large texts differ so much that a minimal diff would take too long,
 * the differing part is shown as removed and then added as a whole: the
 * output is still a correct diff, only not the shortest.  Memory is
 * linear in the number of lines.
 */
#ifndef PROP_DIFF_H
#define PROP_DIFF_H

#include <stddef.h>

#include "prop/prop.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The usual number of context lines around a change. */
#define PROP_DIFF_CONTEXT 3

/*
 * Compare old (old_len bytes) with new_ (new_len bytes) and make a
 * unified diff as diff -u prints it: "--- old_label", "+++ new_label",
 * then hunks "@@ -l,n +l,n @@" with `context` lines of context around the
 * changes and "\ No newline at end of file" after a last line without one.
 * The texts may hold any bytes, NUL included; NULL is accepted for a text
 * of length 0.  A NULL label is shown as "a" / "b".
 *
 * On success (PROP_OK) *out is a malloc'd buffer of *out_len bytes,
 * NUL-terminated beyond them, that the caller frees with free(); when the
 * texts are equal there is no diff: *out is NULL and *out_len 0.
 * PROP_ENOMEM when memory runs out, PROP_EINVAL for a bad argument (then
 * *out is NULL too).
 */
PROP_API int prop_diff_unified(const char *old, size_t old_len, const char *new_, size_t new_len,
                               const char *old_label, const char *new_label, unsigned context,
                               char **out, size_t *out_len);

#ifdef __cplusplus
}
#endif
#endif /* PROP_DIFF_H */
