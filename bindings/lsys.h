/*
 * lsys.h - the `sys` handle that properties written in Lua get at run time
 * (SPEC 2.4): run, query, read, write, has_content, stat, remove, mkdir,
 * symlink, chattr, exists and note, over any prop_transport; and
 * sys.facts, gathered by lua/prop/facts.lua on first use and kept for the
 * host's run.  A secret
 * (lprop_secret.c) is taken as content and as standard input; its bytes
 * are made in C, used and wiped, and never reach Lua, an argv or a note.
 *
 * Ownership: the caller owns the lsys and its transport; lsys_push() makes
 * a Lua userdata that points at it, and lsys_retire() cuts that pointer
 * when the host's run ends, so a `sys` kept by a site raises instead of
 * reaching freed memory.  Notes are malloc'd, owned by the lsys, and taken
 * by the caller with lsys_take_notes().
 */
#ifndef LSYS_H
#define LSYS_H

#include <stddef.h>

#include <lua.h>

#include "prop/transport.h"

#define LSYS_TYPE "prop.Sys"

/* What the running Lua code of a property may do with `sys`. */
typedef enum lsys_mode {
    LSYS_APPLY, /* ensure, apply, revert: anything (recorded in a dry run) */
    LSYS_CHECK, /* check: look; sys:run only outside a dry run */
    LSYS_TEST   /* an only_if test: look only (sys:query, read, stat) */
} lsys_mode;

typedef struct lsys {
    prop_transport *t;
    const char *host;  /* the host's name */
    const char *os;    /* "debian", "buntish", "freebsd" or NULL */
    const char *suite; /* from os.debian(suite, arch) and the like, or NULL */
    const char *arch;
    /* The kind of container the host is ("chroot", "nspawn", "docker",
     * "jail"), or NULL for a host. */
    const char *container;
    /* The host whose properties' declared ports (ports=) sys.ports lists,
     * or NULL for an empty list. */
    const struct prop_host *declared;
    /* The site of declared, for sys:claims (NULL: no claims). */
    const struct prop_site *site;
    /* A dry run: commands that change are noted, not run, and a secret
     * written is not decrypted; t is then a prop_transport_dry() that
     * notes the file changes (lsys_dry_note), as it is for --diff. */
    int dry;
    lsys_mode mode;   /* what the running code may do */
    unsigned changes; /* changes made (or that would be) since lsys_begin */
    /* A dry run's check called sys:run: the check was stopped there, and
     * the property counts as one that would change. */
    int dry_check_ran;
    /* The leaf running, when its claims are to be kept true (a property {}
     * that declared claims): a write to a path it does not claim is a
     * W104 warning.  NULL: not checked. */
    const struct prop_node *claims_of;
    char *warnings; /* W104 lines, as notes are */
    size_t warnings_len, warnings_cap;
    /* Where the bytes of a secret come from (the site's store, opened by
     * the caller when first needed): 0 with *data and *len owned by the
     * callee, or -1 with why.  NULL: no secret can be used. */
    int (*reveal)(void *ud, const char *name, const unsigned char **data, size_t *len, char *why,
                  size_t whysize);
    void *reveal_ud;
    char *notes; /* lines to show under the property, each ending in \n */
    size_t notes_len, notes_cap;
    int notes_oom; /* a note was lost for want of memory */
    /* With keep_diffs, the diffs of --diff (never a secret's) as well,
     * apart from the notes they are in (lsys_dry_note). */
    int keep_diffs;
    char *diffs;
    size_t diffs_len, diffs_cap;
} lsys;

/*
 * Push a new `sys` userdata for s, with a fresh `cache` table, and return
 * 0; when that fails (out of memory), push the error and return -1.  It
 * never raises, so it may be called outside a protected call.
 */
int lsys_push(lua_State *L, lsys *s);
/* Detach the userdata at idx from its lsys: later use raises. */
void lsys_retire(lua_State *L, int idx);
/* Start a leaf: no changes counted, mode LSYS_APPLY.  Notes are kept until taken. */
void lsys_begin(lsys *s);
/* Append one note line (a trailing newline is added). */
void lsys_note(lsys *s, const char *text, size_t len);
/*
 * The note function of prop_transport_dry() for the lsys at ud: what it
 * says becomes notes, and a diff is kept apart too with keep_diffs.
 */
void lsys_dry_note(void *ud, prop_dry_note_kind kind, const char *text, size_t len);
/* The notes so far (NULL when none); the caller frees them. */
char *lsys_take_notes(lsys *s);
/* The diffs kept so far (keep_diffs; NULL when none); the caller frees them. */
char *lsys_take_diffs(lsys *s);
/* The W104 warnings so far, one per line (NULL when none); the caller frees them. */
char *lsys_take_warnings(lsys *s);
/* Free what s owns (not the transport). */
void lsys_clear(lsys *s);

#endif /* LSYS_H */
