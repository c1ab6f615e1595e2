/*
 * transport_sh_prefetch.c - the stats and small contents of many files
 * fetched by one script, for the transports where every operation is a
 * round trip (SSH, a container through its parent), and kept until a file
 * operation touches them (transport_sh.h: prop_pf).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "transport_sh.h"

/* ---------------------------------------------------------------------
 * Prefetch: the stat of many paths, and the content of the small regular
 * files among them (and of the files that symbolic links among them name),
 * in one round trip.
 *
 *   prop_pf BUDGET MAX PATH...
 *     a line per path: link, flink (a link to a regular file), dir, file,
 *     other or none;
 *     "prop-stat", then a stat line (mode, uid, gid, user, group, size,
 *     mtime) per file, dir or other, in the order of the paths;
 *     "prop-lstat", then the stat line of what each flink names;
 *     "prop-read:F:L", F a 0 or 1 per file, dir or other and L one per
 *     flink: 1 for those whose content follows (regular files of at most
 *     MAX bytes, BUDGET bytes in all);
 *     their contents one after the other;
 *     "prop-stat" and their stat lines again.
 *
 * The contents are cut up by the sizes of the first stat lines, and kept
 * only when the last stat lines are the same as the first (nothing changed
 * in between) and the lengths add up; the stats are kept even when the
 * contents are not.  The lists travel as lines: a path with a newline in
 * it is not prefetched.
 */
#define PF_MAX_FILE (256u << 10)   /* larger files are read when asked for */
#define PF_MAX_TOTAL (16u << 20)   /* content fetched by one prefetch */
#define PF_BATCH_PATHS 500         /* paths per round trip, */
#define PF_BATCH_BYTES (60u << 10) /* and their bytes: within ARG_MAX */

const char prop_sh_prefetch[] =
    SH_OS "b=$1 m=$2; shift 2\n"
          "nl='\n'\n"
          "fs='' fl=''\n"
          "for p; do\n"
          "  if [ -L \"$p\" ]; then\n"
          "    if [ -f \"$p\" ]; then t=flink; fl=\"$fl$p$nl\"; else t=link; fi\n"
          "  elif [ -d \"$p\" ]; then t=dir\n"
          "  elif [ -f \"$p\" ]; then t=file\n"
          "  elif [ -e \"$p\" ]; then t=other\n"
          "  else t=none; fi\n"
          "  echo \"$t\"\n"
          "  case $t in file | dir | other) fs=\"$fs$p$nl\" ;; esac\n"
          "done\n"
          "st() {\n"
          "  if [ \"$prop_os\" = Linux ]; then stat -c '%a %u %g %U %G %s %Y' \"$@\"\n"
          "  else stat -f '%p %u %g %Su %Sg %z %m' \"$@\"; fi\n"
          "}\n"
          "sz() { shift 5; z=$1; }\n"
          "set -f; IFS=$nl\n"
          "so='' lo=''\n"
          "echo prop-stat\n"
          "if [ -n \"$fs\" ]; then so=$(st -- $fs) || exit 1; printf '%s\\n' \"$so\"; fi\n"
          "echo prop-lstat\n"
          "if [ -n \"$fl\" ]; then lo=$(st -L -- $fl) || exit 1; printf '%s\\n' \"$lo\"; fi\n"
          "rl='' tot=0\n"
          /* pick LINES: of the paths in $l0, paired with the stat lines
           * LINES, the regular files to read go into rl; f a flag each */
          "pick() {\n"
          "  f=''; set -- $1\n"
          "  for p in $l0; do\n"
          "    [ $# -gt 0 ] || exit 1\n"
          "    line=$1; shift\n"
          "    IFS=' '; sz $line; IFS=$nl\n"
          "    if [ -f \"$p\" ] && [ \"$z\" -le $m ] && [ $((tot + z)) -le $b ]; then\n"
          "      f=\"${f}1\"; tot=$((tot + z)); rl=\"$rl$p$nl\"\n"
          "    else f=\"${f}0\"; fi\n"
          "  done\n"
          "}\n"
          "l0=$fs; pick \"$so\"; ff=$f\n"
          "l0=$fl; pick \"$lo\"; lf=$f\n"
          "echo \"prop-read:$ff:$lf\"\n"
          "[ -z \"$rl\" ] || cat -- $rl\n"
          "echo prop-stat\n"
          "[ -z \"$rl\" ] || st -L -- $rl\n"
          "exit 0\n";

void
prop_pf_clear(prop_pf *pf)
{
    size_t i;

    for (i = 0; i < pf->n; i++) {
        free(pf->v[i].path);
        free(pf->v[i].data);
        free(pf->v[i].line);
    }
    free(pf->v);
    pf->v = NULL;
    pf->n = 0;
    pf->links = 0;
}

static int
pf_cmp(const void *a, const void *b)
{
    return strcmp(((const prop_pf_entry *)a)->path, ((const prop_pf_entry *)b)->path);
}

/* The entry of path, stale or not; NULL once a run has made them all stale. */
static prop_pf_entry *
pf_lookup(prop_pf *pf, const char *path, unsigned long changes)
{
    prop_pf_entry key;

    if (!pf->n)
        return NULL;
    if (pf->changes != changes) {
        prop_pf_clear(pf);
        return NULL;
    }
    key.path = (char *)path;
    return bsearch(&key, pf->v, pf->n, sizeof *pf->v, pf_cmp);
}

/* The entry of path, when what was fetched is still true. */
static const prop_pf_entry *
pf_find(prop_pf *pf, const char *path, unsigned long changes)
{
    const prop_pf_entry *e = pf_lookup(pf, path, changes);

    return e && !e->stale ? e : NULL;
}

int
prop_pf_read(prop_pf *pf, unsigned long changes, prop_transport *t, const char *path,
             const char *what, char **data, size_t *len)
{
    const prop_pf_entry *e = pf_find(pf, path, changes);

    if (!e || (e->type != PROP_FT_NONE && !e->have_data))
        return 1;
    if (e->type == PROP_FT_NONE) {
        prop_transport_fail(t, "%s: no such file or directory", what);
        return PROP_ENOTFOUND;
    }
    if (!(*data = prop_malloc(e->len + 1)))
        return prop_transport_fail(t, "%s: out of memory", what);
    memcpy(*data, e->data, e->len + 1);
    *len = e->len;
    return PROP_OK;
}

int
prop_pf_stat(prop_pf *pf, unsigned long changes, prop_transport *t, const char *path,
             const char *what, prop_file_stat *st)
{
    const prop_pf_entry *e = pf_find(pf, path, changes);

    if (!e || e->type == PROP_FT_LINK) /* a link's own stat is always asked for */
        return 1;
    if (e->type == PROP_FT_NONE) {
        prop_transport_fail(t, "%s: no such file or directory", what);
        return PROP_ENOTFOUND;
    }
    st->type = e->type;
    st->mode = e->mode;
    st->uid = e->uid;
    st->gid = e->gid;
    st->size = e->size;
    memcpy(st->owner, e->owner, sizeof st->owner);
    memcpy(st->group, e->group, sizeof st->group);
    return PROP_OK;
}

/* An absolute path without "//", "." or ".." components or a trailing '/'. */
static int
pf_canonical(const char *p)
{
    if (*p != '/')
        return 0;
    if (!p[1])
        return 1;
    for (; *p; p++) {
        if (*p != '/')
            continue;
        if (p[1] == '/' || !p[1])
            return 0;
        if (p[1] == '.' && (!p[2] || p[2] == '/' || (p[2] == '.' && (!p[3] || p[3] == '/'))))
            return 0;
    }
    return 1;
}

/*
 * A file operation on path: its entry is stale.  An operation that
 * follows a final symbolic link (follows) makes every entry stale unless
 * path is known not to be a link; so does a path spelt otherwise than the
 * entries are.  Any operation makes the contents fetched through links
 * stale: it may have been on the file a link names.
 */
void
prop_pf_forget(prop_pf *pf, const char *path, int follows, unsigned long changes)
{
    prop_pf_entry *e = pf_lookup(pf, path, changes);
    size_t i;

    if (!pf->n)
        return;
    if (pf->links) {
        for (i = 0; i < pf->n; i++)
            if (pf->v[i].flink)
                pf->v[i].stale = 1;
        pf->links = 0;
    }
    if (e && !e->stale && (!follows || e->type != PROP_FT_LINK))
        e->stale = 1;
    else if (follows || !pf_canonical(path))
        prop_pf_clear(pf);
}

/* "mode uid gid user group size mtime" into e; -1 when it is not that. */
static int
pf_parse_line(char *line, prop_pf_entry *e)
{
    char *f[7], *p = line;
    size_t i;

    for (i = 0; i < 7; i++) {
        while (*p == ' ')
            p++;
        if (!*p)
            return -1;
        f[i] = p;
        while (*p && *p != ' ')
            p++;
        if (*p)
            *p++ = '\0';
    }
    if (*p)
        return -1;
    return prop_sh_stat_fields(f, &e->mode, &e->uid, &e->gid, e->owner, e->group, &e->size);
}

/* Whether the next line at *p is e's stat line; *p moves past it. */
static int
pf_same_line(char **p, const prop_pf_entry *e)
{
    const char *line = prop_sh_next_line(p);

    return line && strcmp(line, e->line) == 0;
}

/* Whether e has a flag in "prop-read:F:L": a file, dir or other (in F), a flink (in L). */
#define PF_FLAGGED(e) ((e)->line != NULL)

/*
 * After "prop-read:F:L" (ff and lf point at F and L): the contents at
 * p[0..end) of the entries of e[0..n) whose flag is 1, files before
 * flinks, then "prop-stat" and their stat lines again.  Those whose lines
 * are the same get have_data; *used counts the bytes the target read.
 */
static void
pf_take_contents(prop_pf_entry *e, size_t n, const char *ff, const char *lf, char *p,
                 const char *end, size_t *used)
{
    size_t i, total = 0, off = 0;
    int pass;
    char *q;

    for (i = 0; i < n; i++) {
        const char **flag = e[i].flink ? &lf : &ff;

        if (!PF_FLAGGED(&e[i]))
            continue;
        if (**flag != '0' && **flag != '1')
            return;
        if (*(*flag)++ == '0')
            continue;
        if (e[i].size < 0 || e[i].size > PF_MAX_FILE)
            return;
        e[i].want = 1;
        total += (size_t)e[i].size;
    }
    if (*ff != ':' || *lf || (size_t)(end - p) < total + 10 || memcmp(p + total, "prop-stat\n", 10))
        return;
    *used += total;
    q = p + total + 10;
    for (pass = 0; pass < 2; pass++) /* files first, then flinks, as read */
        for (i = 0; i < n; i++)
            if (e[i].want && e[i].flink == pass && !pf_same_line(&q, &e[i]))
                return;
    if (prop_sh_next_line(&q))
        return;
    for (pass = 0; pass < 2; pass++)
        for (i = 0; i < n; i++) {
            prop_pf_entry *x = &e[i];

            if (!x->want || x->flink != pass)
                continue;
            x->len = (size_t)x->size;
            if (!(x->data = prop_malloc(x->len + 1)))
                return;
            memcpy(x->data, p + off, x->len);
            x->data[x->len] = '\0';
            x->have_data = 1;
            off += x->len;
        }
}

/*
 * The stats of e[0..n), and the contents of the small regular files among
 * them, with budget bytes of content at most (*used counts them): 1, 0
 * when the stats are not to be had, <0 on a failure of the session.
 */
static int
pf_batch(prop_pf_run run, void *ud, prop_pf_entry *e, size_t n, size_t budget, size_t *used,
         const char **args)
{
    static const struct {
        const char *name;
        prop_file_type type;
        int flink;
    } types[] = {
        {"file", PROP_FT_FILE, 0}, {"dir", PROP_FT_DIR, 0},    {"other", PROP_FT_OTHER, 0},
        {"link", PROP_FT_LINK, 0}, {"flink", PROP_FT_LINK, 1}, {"none", PROP_FT_NONE, 0},
    };
    char b[32], m[32], *p, *line, *ff, *lf;
    prop_cmd_result r;
    size_t i, k;
    int rc, pass;

    snprintf(b, sizeof b, "%zu", budget);
    snprintf(m, sizeof m, "%u", PF_MAX_FILE);
    args[0] = b;
    args[1] = m;
    for (i = 0; i < n; i++)
        args[i + 2] = e[i].path;
    args[n + 2] = NULL;
    if ((rc = run(ud, args, &r)) <= 0)
        return rc;
    p = r.out;
    for (i = 0; i < n; i++) {
        if (!(line = prop_sh_next_line(&p)))
            goto bad;
        for (k = 0; k < sizeof types / sizeof types[0] && strcmp(line, types[k].name); k++)
            ;
        if (k == sizeof types / sizeof types[0])
            goto bad;
        e[i].type = types[k].type;
        e[i].flink = types[k].flink;
    }
    /* The stat lines: of the files, dirs and others, then of what the flinks name. */
    for (pass = 0; pass < 2; pass++) {
        if (!(line = prop_sh_next_line(&p)) || strcmp(line, pass ? "prop-lstat" : "prop-stat"))
            goto bad;
        for (i = 0; i < n; i++) {
            if (e[i].type == PROP_FT_NONE || (e[i].type == PROP_FT_LINK && !e[i].flink) ||
                e[i].flink != pass)
                continue;
            if (!(line = prop_sh_next_line(&p)) || !(e[i].line = prop_strdup(line)) ||
                pf_parse_line(line, &e[i]))
                goto bad;
        }
    }
    if ((line = prop_sh_next_line(&p)) != NULL && strncmp(line, "prop-read:", 10) == 0 &&
        (lf = strchr(ff = line + 10, ':')) != NULL)
        pf_take_contents(e, n, ff, lf + 1, p, r.out + r.out_len, used);
    prop_cmd_result_clear(&r);
    return 1;
bad:
    prop_cmd_result_clear(&r);
    return 0;
}

int
prop_pf_fetch(prop_pf *pf, const char *const *paths, size_t npaths, unsigned long changes,
              prop_pf_run run, void *ud)
{
    prop_pf_entry *e;
    const char **args = NULL;
    size_t i, n = 0, start, bytes, used = 0;
    int rc = 0;

    prop_pf_clear(pf);
    e = prop_calloc(npaths, sizeof *e);
    args = prop_calloc(PF_BATCH_PATHS + 3, sizeof *args);
    if (!e || !args)
        goto done;
    for (i = 0; i < npaths; i++) {
        if (!pf_canonical(paths[i]) || strchr(paths[i], '\n'))
            continue;
        if (!(e[n].path = prop_strdup(paths[i])))
            goto done;
        n++;
    }
    qsort(e, n, sizeof *e, pf_cmp);
    for (i = 0, start = 0; i < n; i++) { /* the same path once */
        if (start && strcmp(e[start - 1].path, e[i].path) == 0) {
            free(e[i].path);
            e[i].path = NULL;
            continue;
        }
        e[start++] = e[i];
    }
    n = start;
    /* In batches: a round trip each. */
    for (start = 0; start < n;) {
        for (i = start, bytes = 0; i < n && i - start < PF_BATCH_PATHS; i++) {
            bytes += strlen(e[i].path) + 4;
            if (bytes > PF_BATCH_BYTES && i > start)
                break;
        }
        if ((rc = pf_batch(run, ud, e + start, i - start, PF_MAX_TOTAL - used, &used, args)) <= 0)
            goto done;
        start = i;
    }
    for (i = 0; i < n; i++) {
        free(e[i].line);
        e[i].line = NULL;
        if (e[i].flink && e[i].have_data)
            pf->links = 1;
    }
    pf->v = e;
    pf->n = n;
    pf->changes = changes;
    e = NULL;
    rc = 0;
done:
    if (e) {
        for (i = 0; i < n; i++) {
            free(e[i].path);
            free(e[i].data);
            free(e[i].line);
        }
        free(e);
    }
    free(args);
    return rc < 0 ? rc : 0;
}
