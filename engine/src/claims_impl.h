/*
 * claims_impl.h - what the two files of the claim checks share, and
 * nothing else uses:
 *
 *   claims.c        the tables, reporting a pair of leaves, and the
 *                   conflicts over ports, packages, services, accounts
 *                   and hostnames (P006, P008-P010, P013)
 *   claims_files.c  the conflicts over files (P007)
 */
#ifndef PROP_CLAIMS_IMPL_H
#define PROP_CLAIMS_IMPL_H

#include <stddef.h>

#include "prepass.h"

/* Internal names, kept out of the way of the rest of the engine's. */
#define cval pp_cval
#define same_value pp_same_value
#define quoted pp_quoted
#define report_pair pp_report_pair
#define settings_agree pp_settings_agree
#define setting_clash pp_setting_clash
#define file_pair pp_file_pair
#define file_below_absent pp_file_below_absent
#define file_below_owned pp_file_below_owned
#define file_fragment_owner pp_file_fragment_owner
#define report_pair_hint pp_report_pair_hint

/* Longest quoted value (a line, a symlink target) inside a message. */
#define QUOTE_MAX 120

/* A message made in the site's arena (NULL when out of memory). */
#define FMT(...) arena_printf(&k->s->mem, __VA_ARGS__)

/* The two kinds a and b are ka and kb, in either order. */
#define KINDS(a, b, ka, kb) (((a) == (ka) && (b) == (kb)) || ((a) == (kb) && (b) == (ka)))

/* ---- claims.c ---- */

/* A claim's value and its length ("" when it has none). */
void cval(const prop_claim *c, const char **v, size_t *len);
/* Two claims of one value. */
int same_value(const prop_claim *a, const prop_claim *b);
/* A claim's value quoted for a message into buf, shortened past QUOTE_MAX
 * bytes; a secret's reads "(a secret value)". */
const char *quoted(const prop_claim *c, char *buf, size_t n);
/*
 * Report msg at the leaf of rj with note at the leaf of ri, unless the
 * pair was reported already.  Returns 1 (a conflict, reported now or
 * before) or a negative code.  msg and note were made in the arena.
 */
int report_pair(checker *k, const char *code, const ref *ri, const ref *rj, const char *msg,
                const char *note);
/* report_pair() with, when hint is not NULL, a second note at the leaf of
 * rj saying what to do instead (made in the arena). */
int report_pair_hint(checker *k, const char *code, const ref *ri, const ref *rj, const char *msg,
                     const char *note, const char *hint);

/* ---- claims_files.c ---- */

/* Two setting claims: -1 when they name different settings, else whether
 * they give it the same value. */
int settings_agree(const prop_claim *a, const prop_claim *b);
/* "NAME must be "Y" here but "X" at AT" for two values of one setting,
 * in the arena. */
const char *setting_clash(checker *k, const prop_claim *x, const prop_claim *y, const char *at);
/* Compare two claims on one path (ri before rj): 0, 1 or a negative code. */
int file_pair(checker *k, const ref *ri, const ref *rj);
/* Members of group g (a path) that clash with a file.absent claim, or with
 * a property owning the whole file, on a directory above it: 0 or a
 * negative code. */
int file_below_absent(checker *k, const group *g);
int file_below_owned(checker *k, const group *g);
/* P012 for each fragment of group g (a path) that no property of the
 * host assembles: 0 or a negative code. */
int file_fragment_owner(checker *k, const group *g);

#endif /* PROP_CLAIMS_IMPL_H */
