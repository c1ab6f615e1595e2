/*
 * transport_sh.h - the file operations as POSIX shell scripts (see
 * transport_sh.c), and the parsing of their output.
 */
#ifndef PROP_TRANSPORT_SH_H
#define PROP_TRANSPORT_SH_H

#include "transport_impl.h"

#define PROP_SH_MISSING 3 /* a script's "no such path" */
#define PROP_SH_STAGED 4  /* prop_sh_write: staged, not yet in place */

/* Sets $prop_os (uname -s) once per shell. */
#define SH_OS "[ -n \"$prop_os\" ] || prop_os=$(uname -s)\n"

/* read PATH: the content on stdout, or exit 3. */
extern const char prop_sh_read[];
/* stat PATH: "prop-stat", the type, then the fields (prop_sh_parse_stat). */
extern const char prop_sh_stat[];
/*
 * write PATH MODE OWNER GROUP SIZE [FORMAT]: atomically, the data on
 * stdin (SIZE bytes, checked) or, with a sixth argument, printf FORMAT.
 * The caller may set, for the call only (the SSH transport's pipelined
 * writes, where each process the target starts counts):
 *   prop_sfx    six letters or digits, unique to the caller: the temporary
 *               file is .NAME.prop-SFX, made with noclobber (mktemp when
 *               that name is taken), not by a mktemp process;
 *   prop_mu     the umask that gives the new file MODE at once, used when
 *               PATH does not exist (no chmod; the caller sets it only
 *               when MODE is within 0666 and no owner or group is asked);
 *   prop_dsync  non-empty: the directory is not synced here; the caller
 *               syncs it later, with the others it wrote into;
 *   prop_tmp    with prop_sfx: the temporary file's path, in PATH's
 *               directory.  When the script could make it (noclobber), it
 *               stops once the data, owner and mode are in it and exits
 *               PROP_SH_STAGED: the caller syncs it and moves it over PATH
 *               later, with the other writes staged (transport_ssh_shell.c,
 *               "Staged writes").  Otherwise it writes as without it.
 */
extern const char prop_sh_write[];
/* remove PATH: a file, a link or an empty directory; exit 3 if missing. */
extern const char prop_sh_remove[];
/* mkdir PATH MODE OWNER GROUP and chattr PATH MODE OWNER GROUP ("" for
 * "leave as is"). */
extern const char prop_sh_mkdir[];
extern const char prop_sh_chattr[];
/* symlink TARGET LINK: atomically replaces LINK. */
extern const char prop_sh_symlink[];

/* Mode, owner, group as script arguments ("" for "leave as is"). */
void prop_sh_attr_args(const prop_file_attrs *attrs, char mode[16], const char **owner,
                       const char **group);
/* A script's failure: its stderr on one line as t's error; PROP_ERROR. */
int prop_sh_fail(prop_transport *t, const prop_cmd_result *r, const char *what);
/* The output of prop_sh_stat into st: 0, or -1 when it is not as expected. */
int prop_sh_parse_stat(char *out, prop_file_stat *st);
/* The fields mode (octal), uid, gid, user, group, size of a stat line. */
int prop_sh_stat_fields(char *const f[6], unsigned *mode, uid_t *uid, gid_t *gid, char owner[64],
                        char group[64], long long *size);
/* The next line of *p (NUL-terminated in place), or NULL at the end. */
char *prop_sh_next_line(char **p);

struct prop_buf;
/*
 * The next answer of a remote shell whose marks are MARK, from what came
 * on its stdout (out) and stderr (err): 1 when it is complete, and then r
 * gets its status (-1 when not one of 0..255), its stdout and its stderr
 * (malloc'd, NUL-terminated; NULL when out of memory), and out and err
 * keep what follows for the next answer; 0 when more is needed.
 * *out_scan and *err_scan keep where the search for the marks stopped,
 * from one call to the next (0 to start; set to 0 after an answer).
 */
int prop_sh_answer(struct prop_buf *out, size_t *out_scan, struct prop_buf *err, size_t *err_scan,
                   const char *mark, prop_cmd_result *r);

/*
 * A prefetch (prop_transport_prefetch()): the stats of many paths and the
 * contents of the small regular files among them, fetched by one script
 * (transport_sh_prefetch.c), kept sorted by path while the transport's
 * base.changes is the same.
 */
typedef struct prop_pf_entry {
    char *path; /* malloc'd, as are data and line */
    prop_file_type type;
    unsigned mode;
    uid_t uid;
    gid_t gid;
    long long size;
    char owner[64], group[64];
    char *data;
    size_t len;
    int have_data;
    char *line; /* the stat line, until the content is checked against it */
    int flink;  /* a symbolic link to a regular file: data is that file's */
    int want;   /* its content was read: to be checked against line */
    int stale;  /* touched by a file operation since */
} prop_pf_entry;

typedef struct prop_pf {
    prop_pf_entry *v;
    size_t n;
    unsigned long changes; /* base.changes when fetched */
    int links;             /* some entries are flinks with data */
} prop_pf;

/* The script: BUDGET MAX PATH...; its output is prop_pf_fetch()'s to read. */
extern const char prop_sh_prefetch[];
/* Run prop_sh_prefetch with args: 1 when it ran with status 0 (r filled),
 * 0 when it did not (r cleared), <0 when the transport failed. */
typedef int (*prop_pf_run)(void *ud, const char *const *args, prop_cmd_result *r);
/* Fetch paths[0..npaths) into pf (what it held is dropped): 0, or the
 * failure of run; a prefetch that did not work leaves pf empty. */
int prop_pf_fetch(prop_pf *pf, const char *const *paths, size_t npaths, unsigned long changes,
                  prop_pf_run run, void *ud);
/* Forget every entry. */
void prop_pf_clear(prop_pf *pf);
/* Answer a read (or a stat: st zeroed first by the caller) of path from
 * pf, when what was fetched is still true (changes: t's base.changes; a
 * run since makes every entry stale), what naming it in a failure, which
 * is t's: PROP_OK, PROP_ENOTFOUND, PROP_ERROR (out of memory); 1 when pf
 * does not hold the answer. */
int prop_pf_read(prop_pf *pf, unsigned long changes, prop_transport *t, const char *path,
                 const char *what, char **data, size_t *len);
int prop_pf_stat(prop_pf *pf, unsigned long changes, prop_transport *t, const char *path,
                 const char *what, prop_file_stat *st);
/* A file operation on path: its entry is stale (follows: the operation
 * follows a final symbolic link, which may reach any entry). */
void prop_pf_forget(prop_pf *pf, const char *path, int follows, unsigned long changes);

#endif /* PROP_TRANSPORT_SH_H */
