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

#endif /* PROP_TRANSPORT_SH_H */
