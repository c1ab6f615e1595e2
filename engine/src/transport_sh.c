/*
 * transport_sh.c - the file operations as POSIX shell scripts, shared by
 * the transports that reach a target only through a shell: SSH (the
 * scripts are functions of its remote shell) and containers (each script
 * runs as "sh -c SCRIPT sh ARGS..." inside the container, started through
 * the parent's transport).  Only POSIX sh and the usual utilities (cat,
 * stat, mktemp, mv, chmod, chown, sync) are needed on the target.
 *
 * Every script takes its operands as positional parameters, never in its
 * text, so no path or name is ever parsed by the shell.  Exit status 3
 * (PROP_SH_MISSING) means "no such path".
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "transport_sh.h"

/*
 * The fields of a stat from their texts f[0..6): mode (octal), uid, gid,
 * user, group, size.  GNU stat says UNKNOWN (or nothing) for an id without
 * a name: the number stands in.  -1 when a field is not what it should be.
 */
int
prop_sh_stat_fields(char *const f[6], unsigned *mode, uid_t *uid, gid_t *gid, char owner[64],
                    char group[64], long long *size)
{
    char *end;

    errno = 0;
    *mode = (unsigned)(strtoul(f[0], &end, 8) & 07777u);
    if (end == f[0] || *end)
        return -1;
    *uid = (uid_t)strtoul(f[1], &end, 10);
    if (end == f[1] || *end)
        return -1;
    *gid = (gid_t)strtoul(f[2], &end, 10);
    if (end == f[2] || *end)
        return -1;
    if (*f[3] && strcmp(f[3], "UNKNOWN") != 0)
        snprintf(owner, 64, "%s", f[3]);
    else
        snprintf(owner, 64, "%lu", (unsigned long)*uid);
    if (*f[4] && strcmp(f[4], "UNKNOWN") != 0)
        snprintf(group, 64, "%s", f[4]);
    else
        snprintf(group, 64, "%lu", (unsigned long)*gid);
    *size = strtoll(f[5], &end, 10);
    return end == f[5] || *end || errno || *size < 0 ? -1 : 0;
}

/* A script's failure, with its stderr (on one line) as the reason. */
int
prop_sh_fail(prop_transport *t, const prop_cmd_result *r, const char *what)
{
    char msg[700];
    size_t i, n = 0, len = r->err_len;

    while (len && isspace((unsigned char)r->err[len - 1]))
        len--;
    for (i = 0; i < len && n + 3 < sizeof msg; i++) {
        if (r->err[i] == '\n') {
            msg[n++] = ';';
            msg[n++] = ' ';
        } else if (r->err[i] != '\r') {
            msg[n++] = r->err[i];
        }
    }
    msg[n] = '\0';
    if (n)
        return prop_transport_fail(t, "%s: %s", what, msg);
    return prop_transport_fail(t, "%s: failed (exit status %d)", what, r->code);
}

/* Mode, owner, group as script arguments ("" for "leave as is"). */
void
prop_sh_attr_args(const prop_file_attrs *attrs, char mode[16], const char **owner,
                  const char **group)
{
    mode[0] = '\0';
    *owner = *group = "";
    if (!attrs)
        return;
    if (attrs->mode >= 0)
        snprintf(mode, 16, "%o", (unsigned)attrs->mode & 07777u);
    if (attrs->owner)
        *owner = attrs->owner;
    if (attrs->group)
        *group = attrs->group;
}

/*
 * Remove what a write (type f: regular files) or a symlink (type l: links)
 * of "$d/$b" left behind when it was cut short (prop killed): entries
 * named "$d/.$b.prop-" and six letters or digits, owned by the user the
 * shell runs as ($prop_uid) or, for files, by the owner of "$p".  Linux's
 * stat(1) (-c) or the BSDs' (-f), after $gnu.
 */
#define SH_STALE(type)                                                                             \
    "[ -n \"$prop_uid\" ] || prop_uid=$(id -u)\n"                                                  \
    "for x in \"$d/.$b.prop-\"??????; do\n"                                                        \
    "  [ \"$x\" != \"$stg\" ] || continue\n"                                                       \
    "  sfx=${x#\"$d/.$b.prop-\"}\n"                                                                \
    "  case $sfx in *[!ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789]*) "         \
    "continue ;; esac\n"                                                                           \
    "  [ ${#sfx} -eq 6 ] || continue\n"                                                            \
    "  if [ " type " = f ]; then [ -f \"$x\" ] && [ ! -L \"$x\" ] || continue\n"                   \
    "  else [ -L \"$x\" ] || continue; fi\n"                                                       \
    "  if [ -n \"$gnu\" ]; then xu=$(stat -c %u -- \"$x\") pu=$(stat -L -c %u -- \"$p\" "          \
    "2>/dev/null)\n"                                                                               \
    "  else xu=$(stat -f %u -- \"$x\") pu=$(stat -L -f %u -- \"$p\" 2>/dev/null); fi\n"            \
    "  if [ \"$xu\" = \"$prop_uid\" ] || { [ " type " = f ] && [ \"$xu\" = \"$pu\" ]; }; then\n"   \
    "    rm -f -- \"$x\"\n"                                                                        \
    "  fi\n"                                                                                       \
    "done\n"

/* Sets owner "$o" and group "$g" of "$x" when they are not empty. */
#define SH_CHOWN                                                                                   \
    "if [ -n \"$o\" ]; then chown -- \"$o${g:+:$g}\" \"$x\" || exit 1;\n"                          \
    "elif [ -n \"$g\" ]; then chgrp -- \"$g\" \"$x\" || exit 1; fi\n"

const char prop_sh_read[] = "if [ -e \"$1\" ]; then exec cat -- \"$1\"; fi\n"
                            "exit 3\n";

const char prop_sh_stat[] = SH_OS "p=$1\n"
                                  "if [ -L \"$p\" ]; then t=link\n"
                                  "elif [ -d \"$p\" ]; then t=dir\n"
                                  "elif [ -f \"$p\" ]; then t=file\n"
                                  "elif [ -e \"$p\" ]; then t=other\n"
                                  "else exit 3; fi\n"
                                  "echo prop-stat\n"
                                  "echo \"$t\"\n"
                                  "if [ \"$prop_os\" = Linux ]; then\n"
                                  "  stat -c '%a\n%u\n%g\n%U\n%G\n%s' -- \"$p\" || exit 1\n"
                                  "else\n"
                                  "  stat -f '%p%n%u%n%g%n%Su%n%Sg%n%z' -- \"$p\" || exit 1\n"
                                  "fi\n"
                                  "if [ \"$t\" = link ]; then readlink -- \"$p\" || exit 1; fi\n";

/* The next line of *p (NUL-terminated in place), or NULL at the end. */
char *
prop_sh_next_line(char **p)
{
    char *line = *p, *nl;

    if (!line || !*line)
        return NULL;
    nl = strchr(line, '\n');
    if (nl) {
        *nl = '\0';
        *p = nl + 1;
    } else {
        *p = line + strlen(line);
    }
    return line;
}

/* ---------------------------------------------------------------------
 * The answers of a remote shell (transport_ssh_shell.c, "The remote
 * shell"): each line sent ends its stdout with "\nMARK STATUS\n" and its
 * stderr with "\nMARK\n"; answers follow one another in the two streams.
 */
/* Where tag (n bytes) starts in b at or after *scan; keeps *scan up to date. */
static const char *
find_tag(const prop_buf *b, size_t *scan, const char *tag, size_t n)
{
    const char *p;

    if (!b->p || b->len < n)
        return NULL;
    if (*scan > b->len - n)
        *scan = b->len - n;
    for (p = b->p + *scan; (p = memchr(p, tag[0], b->len - (size_t)(p - b->p))) != NULL; p++)
        if ((size_t)(b->p + b->len - p) >= n && memcmp(p, tag, n) == 0)
            return p;
    *scan = b->len - n + 1;
    return NULL;
}

/*
 * Hand b[0..end) over as *out (NUL-terminated, length *outlen), keeping
 * b[rest..len) in b for the next answer (deferred operations: answers
 * follow one another).  *out is NULL when out of memory.
 */
static void
take_answer(prop_buf *b, size_t end, size_t rest, char **out, size_t *outlen)
{
    prop_buf keep = PROP_BUF_INIT;

    if (rest < b->len && prop_buf_add(&keep, b->p + rest, b->len - rest) < 0) {
        *out = NULL;
        *outlen = 0;
        return;
    }
    b->len = end;
    b->p[end] = '\0';
    *out = prop_buf_take(b, outlen);
    *b = keep;
}

int
prop_sh_answer(prop_buf *out, size_t *out_scan, prop_buf *err, size_t *err_scan, const char *mark,
               prop_cmd_result *r)
{
    char tag[64];
    size_t n;
    const char *o, *e, *nl;
    long code;

    n = (size_t)snprintf(tag, sizeof tag, "\n%s ", mark);
    if (n >= sizeof tag || n < 3)
        return 0;
    o = find_tag(out, out_scan, tag, n);
    if (!o)
        return 0;
    nl = memchr(o + n, '\n', out->len - (size_t)(o + n - out->p));
    if (!nl)
        return 0;
    tag[n - 1] = '\n';
    e = find_tag(err, err_scan, tag, n);
    if (!e)
        return 0;
    code = strtol(o + n, NULL, 10);
    r->code = code < -1 || code > 255 ? -1 : (int)code;
    take_answer(out, (size_t)(o - out->p), (size_t)(nl + 1 - out->p), &r->out, &r->out_len);
    take_answer(err, (size_t)(e - err->p), (size_t)(e + n - err->p), &r->err, &r->err_len);
    *out_scan = *err_scan = 0;
    return 1;
}

int
prop_sh_parse_stat(char *out, prop_file_stat *st)
{
    char *p = strstr(out, "prop-stat\n"), *f[7];
    size_t i, n;

    if (!p)
        return -1;
    p += strlen("prop-stat\n");
    for (i = 0; i < 7; i++)
        if (!(f[i] = prop_sh_next_line(&p)))
            return -1;
    if (strcmp(f[0], "file") == 0)
        st->type = PROP_FT_FILE;
    else if (strcmp(f[0], "dir") == 0)
        st->type = PROP_FT_DIR;
    else if (strcmp(f[0], "link") == 0)
        st->type = PROP_FT_LINK;
    else
        st->type = PROP_FT_OTHER;
    if (prop_sh_stat_fields(f + 1, &st->mode, &st->uid, &st->gid, st->owner, st->group, &st->size))
        return -1;
    if (st->type == PROP_FT_LINK) {
        n = strlen(p);
        if (n && p[n - 1] == '\n')
            n--;
        if (n >= sizeof st->target)
            n = sizeof st->target - 1;
        memcpy(st->target, p, n);
        st->target[n] = '\0';
    }
    return 0;
}

const char prop_sh_write[] = SH_OS
    "p=$1 m=$2 o=$3 g=$4 n=$5 inl= f=\n"
    "if [ $# -ge 6 ]; then inl=1 f=$6; fi\n"
    "case $p in /*) ;; *) p=./$p ;; esac\n"
    "if [ \"$prop_os\" = Linux ]; then gnu=1; else gnu=; fi\n"
    "d=${p%/*} b=${p##*/}\n"
    "[ -n \"$d\" ] || d=/\n"
    "if [ -d \"$p\" ]; then echo \"$p: is a directory\" >&2; exit 1; fi\n"
    "if [ ! -d \"$d\" ]; then echo \"$d: no such directory\" >&2; exit 1; fi\n"
    "[ ${#b} -le 200 ] || b=prop\n"
    "umask 077\n"
    "tmp= stg=\n"
    "if [ -n \"$prop_sfx\" ]; then\n"
    "  if [ -n \"$prop_mu\" ] && [ ! -e \"$p\" ] && [ ! -L \"$p\" ]; then umask \"$prop_mu\"\n"
    "  else prop_mu=; fi\n"
    "  if [ -n \"$prop_tmp\" ]; then tmp=$prop_tmp; else tmp=\"$d/.$b.prop-$prop_sfx\"; fi\n"
    "  set -C\n"
    "  if true 2>/dev/null >\"$tmp\"; then stg=$prop_tmp; else tmp=; fi\n"
    "  set +C\n"
    "fi\n"
    "if [ -z \"$tmp\" ]; then\n"
    "  umask 077; prop_mu=\n"
    "  tmp=$(mktemp \"$d/.$b.prop-XXXXXX\") || exit 1\n"
    "fi\n"
    "trap '[ -z \"$tmp\" ] || rm -f -- \"$tmp\"' EXIT\n"
    "trap 'exit 1' HUP INT TERM PIPE\n"
    "if [ -e \"$p\" ]; then\n"
    "  if [ -n \"$gnu\" ]; then cur=$(stat -L -c '%a %u %g' -- \"$p\") || exit 1\n"
    "  else cur=$(stat -L -f '%p %u %g' -- \"$p\") || exit 1; fi\n"
    "  set -- $cur\n"
    "  [ -n \"$m\" ] || m=$(printf %o $((0$1 & 07777)))\n"
    "  [ -n \"$o\" ] || o=$2\n"
    "  [ -n \"$g\" ] || g=$3\n"
    "fi\n"
    "[ -n \"$m\" ] || m=644\n"
    "if [ -n \"$inl\" ]; then\n"
    "  printf \"$f\" 2>/dev/null >|\"$tmp\" || { printf \"$f\" | cat >|\"$tmp\" || exit 1; }\n"
    "else\n"
    "  cat >|\"$tmp\" || exit 1\n"
    "  set -- $(wc -c <\"$tmp\")\n"
    "  if [ \"$1\" != \"$n\" ]; then\n"
    "    echo \"received $1 of $n bytes; $p left as it was\" >&2; exit 1\n"
    "  fi\n"
    "fi\n"
    "x=$tmp\n" SH_CHOWN "[ -n \"$prop_mu\" ] || chmod -- \"$m\" \"$tmp\" || exit 1\n"
    "if [ -n \"$stg\" ]; then\n" SH_STALE(
        "f") "  tmp=; exit 4\nfi\n"
             "if [ -n \"$gnu\" ]; then sync -- \"$tmp\" || exit 1; else sync; fi\n"
             "mv -f -- \"$tmp\" \"$p\" || exit 1\n"
             "tmp=\n"
             "if [ -n \"$gnu\" ] && [ -z \"$prop_dsync\" ]; then sync -- \"$d\" 2>/dev/null || "
             "sync; "
             "fi\n" SH_STALE("f") "exit 0\n";

/*
 * $d, the directory of path $p (made ./$p when relative), and how to make
 * a change of its entries last a crash: GNU sync syncs the one directory,
 * another sync everything.  The scripts that add, remove or rename an
 * entry end with it, so SSH and containers sync as they go (transport.h).
 */
#define SH_DIR_OF_P                                                                                \
    "case $p in /*) ;; *) p=./$p ;; esac\n"                                                        \
    "d=${p%/*}\n"                                                                                  \
    "[ -n \"$d\" ] || d=/\n"
#define SH_SYNC_D "sync -- \"$d\" 2>/dev/null || sync\n"

const char prop_sh_remove[] =
    "p=$1\n" SH_DIR_OF_P "if [ -d \"$p\" ] && [ ! -L \"$p\" ]; then rmdir -- \"$p\" || exit 1\n"
    "elif [ -e \"$p\" ] || [ -L \"$p\" ]; then rm -f -- \"$p\" || exit 1\n"
    "else exit 3; fi\n" SH_SYNC_D;

/* A directory it made is removed again when its attributes cannot be set. */
const char prop_sh_mkdir[] =
    "x=$1 m=$2 o=$3 g=$4 made= p=$1\n" SH_DIR_OF_P "umask 077\n"
    "if [ -d \"$x\" ]; then :\n"
    "elif [ -e \"$x\" ] || [ -L \"$x\" ]; then\n"
    "  echo \"$x: exists and is not a directory\" >&2; exit 1\n"
    "else\n"
    "  mkdir -- \"$x\" || exit 1\n"
    "  made=1\n"
    "  [ -n \"$m\" ] || m=755\n"
    "fi\n"
    "if ! (\n" SH_CHOWN "if [ -n \"$m\" ]; then chmod -- \"$m\" \"$x\" || exit 1; fi\n"
    "); then\n"
    "  [ -z \"$made\" ] || rmdir -- \"$x\"\n"
    "  exit 1\n"
    "fi\n"
    "[ -z \"$made\" ] || { " SH_SYNC_D "}\n";

const char prop_sh_chattr[] =
    "x=$1 m=$2 o=$3 g=$4\n"
    "if [ ! -e \"$x\" ] && [ ! -L \"$x\" ]; then\n"
    "  echo 'no such file or directory' >&2; exit 3\n"
    "fi\n" SH_CHOWN "if [ -n \"$m\" ]; then chmod -- \"$m\" \"$x\" || exit 1; fi\n";

const char prop_sh_symlink[] = SH_OS
    "t=$1 l=$2\n"
    "case $l in /*) ;; *) l=./$l ;; esac\n"
    "if [ -d \"$l\" ] && [ ! -L \"$l\" ]; then echo \"$l: is a directory\" >&2; exit 1; fi\n"
    "d=${l%/*} b=${l##*/} p=$l gnu=1\n"
    "[ -n \"$d\" ] || d=/\n"
    "if [ \"$prop_os\" != Linux ]; then ln -sfh -- \"$t\" \"$l\" || exit 1; sync; exit 0; fi\n"
    "[ ${#b} -le 200 ] || b=prop\n" SH_STALE(
        "l") "tmp=$(mktemp -u \"$d/.$b.prop-XXXXXX\") || exit 1\n"
             "ln -s -- \"$t\" \"$tmp\" || exit 1\n"
             "mv -fT -- \"$tmp\" \"$l\" || { rm -f -- \"$tmp\"; exit 1; }\n" SH_SYNC_D;
