/*
 * transport_ssh_prefetch.c - prop_transport_prefetch() over SSH: the
 * stats and small contents of many files fetched in two round trips, and
 * kept until a file operation touches them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport_ssh.h"

/* ---------------------------------------------------------------------
 * Prefetch: the stat of many paths, and the content of the small regular
 * files among them, in two round trips.
 *
 *   prop_pfstat PATH...   a line per path: link, dir, file, other or none;
 *                         then "prop-stat" and a stat line (mode, uid,
 *                         gid, user, group, size, mtime) per path that is
 *                         a file, dir or other, in the same order
 *   prop_pfread FILE...   the files one after the other, then "prop-stat"
 *                         and their stat lines again
 *
 * The content is cut up by the sizes of the first stat, and kept only
 * when the second stat gives the same lines (nothing changed between the
 * two) and the lengths add up.
 */
#define PF_MAX_FILE (256u << 10)   /* larger files are read when asked for */
#define PF_MAX_TOTAL (16u << 20)   /* content fetched by one prefetch */
#define PF_BATCH_PATHS 500         /* paths per round trip, */
#define PF_BATCH_BYTES (60u << 10) /* and their bytes: within ARG_MAX */

#define SH_STATLINE                                                                                \
    "if [ \"$prop_os\" = Linux ]; then exec stat -c '%a %u %g %U %G %s %Y' -- \"$@\"\n"            \
    "else exec stat -f '%p %u %g %Su %Sg %z %m' -- \"$@\"; fi\n"

const char pfstat_script[] = SH_OS "n=$#\n"
                                   "for p; do\n"
                                   "  if [ -L \"$p\" ]; then t=link\n"
                                   "  elif [ -d \"$p\" ]; then t=dir\n"
                                   "  elif [ -f \"$p\" ]; then t=file\n"
                                   "  elif [ -e \"$p\" ]; then t=other\n"
                                   "  else t=none; fi\n"
                                   "  echo \"$t\"\n"
                                   "  case $t in file | dir | other) set -- \"$@\" \"$p\" ;; "
                                   "esac\n"
                                   "done\n"
                                   "shift $n\n"
                                   "echo prop-stat\n"
                                   "[ $# -gt 0 ] || exit 0\n" SH_STATLINE;

const char pfread_script[] = SH_OS "cat -- \"$@\" || exit 1\n"
                                   "echo prop-stat\n" SH_STATLINE;

void
pf_clear(ssh_tr *s)
{
    size_t i;

    for (i = 0; i < s->npf; i++) {
        free(s->pf[i].path);
        free(s->pf[i].data);
        free(s->pf[i].line);
    }
    free(s->pf);
    s->pf = NULL;
    s->npf = 0;
}

static int
pf_cmp(const void *a, const void *b)
{
    return strcmp(((const pf_entry *)a)->path, ((const pf_entry *)b)->path);
}

/* The entry of path, stale or not; NULL once a run has made them all stale. */
static pf_entry *
pf_lookup(ssh_tr *s, const char *path)
{
    pf_entry key;

    if (!s->npf)
        return NULL;
    if (s->pf_changes != s->base.changes) {
        pf_clear(s);
        return NULL;
    }
    key.path = (char *)path;
    return bsearch(&key, s->pf, s->npf, sizeof *s->pf, pf_cmp);
}

/* The entry of path, when what was fetched is still true. */
const pf_entry *
pf_find(ssh_tr *s, const char *path)
{
    const pf_entry *e = pf_lookup(s, path);

    return e && !e->stale ? e : NULL;
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
 * entries are.
 */
void
pf_forget(ssh_tr *s, const char *path, int follows)
{
    pf_entry *e = pf_lookup(s, path);

    if (!s->npf)
        return;
    if (e && !e->stale && (!follows || e->type != PROP_FT_LINK))
        e->stale = 1;
    else if (follows || !pf_canonical(path))
        pf_clear(s);
}

/* "mode uid gid user group size mtime" into e; -1 when it is not that. */
static int
pf_parse_line(char *line, pf_entry *e)
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

/* Run a prefetch script on args; 1: ran with status 0, 0: it did not, <0: failure. */
static int
pf_run(ssh_tr *s, const char *name, const char *body, const char *const *args, prop_cmd_result *r)
{
    int rc = run_script(s, name, body, args, NULL, 0, r, "prefetch");

    if (rc)
        return s->dead ? rc : 0; /* a hint: only a lost connection matters */
    if (r->code != 0) {
        prop_cmd_result_clear(r);
        return 0;
    }
    return 1;
}

/* The stats of e[0..n); 0 when they are not to be had (entries left as they were). */
static int
pf_stat_batch(ssh_tr *s, pf_entry *e, size_t n, const char **args)
{
    prop_cmd_result r;
    char *p, *line;
    size_t i;
    int rc;

    for (i = 0; i < n; i++)
        args[i] = e[i].path;
    args[n] = NULL;
    if ((rc = pf_run(s, "prop_pfstat", pfstat_script, args, &r)) <= 0)
        return rc;
    p = r.out;
    for (i = 0; i < n; i++) {
        if (!(line = prop_sh_next_line(&p)))
            goto bad;
        if (strcmp(line, "file") == 0)
            e[i].type = PROP_FT_FILE;
        else if (strcmp(line, "dir") == 0)
            e[i].type = PROP_FT_DIR;
        else if (strcmp(line, "other") == 0)
            e[i].type = PROP_FT_OTHER;
        else if (strcmp(line, "link") == 0)
            e[i].type = PROP_FT_LINK;
        else if (strcmp(line, "none") == 0)
            e[i].type = PROP_FT_NONE;
        else
            goto bad;
    }
    if (!(line = prop_sh_next_line(&p)) || strcmp(line, "prop-stat") != 0)
        goto bad;
    for (i = 0; i < n; i++) {
        if (e[i].type == PROP_FT_NONE || e[i].type == PROP_FT_LINK)
            continue;
        if (!(line = prop_sh_next_line(&p)) || !(e[i].line = strdup(line)) ||
            pf_parse_line(line, &e[i]))
            goto bad;
    }
    if (prop_sh_next_line(&p))
        goto bad;
    prop_cmd_result_clear(&r);
    return 1;
bad:
    prop_cmd_result_clear(&r);
    return 0;
}

/* The contents of the entries at idx[0..n); those that check out get have_data. */
static int
pf_read_batch(ssh_tr *s, pf_entry *e, const size_t *idx, size_t n, const char **args)
{
    prop_cmd_result r;
    size_t i, total = 0, off;
    char *p, *line;
    int rc;

    for (i = 0; i < n; i++) {
        args[i] = e[idx[i]].path;
        total += (size_t)e[idx[i]].size;
    }
    args[n] = NULL;
    if ((rc = pf_run(s, "prop_pfread", pfread_script, args, &r)) <= 0)
        return rc;
    if (r.out_len < total + 10 || memcmp(r.out + total, "prop-stat\n", 10) != 0)
        goto out;
    p = r.out + total + 10;
    for (i = 0; i < n; i++)
        if (!(line = prop_sh_next_line(&p)) || strcmp(line, e[idx[i]].line) != 0)
            goto out;
    if (prop_sh_next_line(&p))
        goto out;
    for (i = 0, off = 0; i < n; i++) {
        pf_entry *x = &e[idx[i]];

        x->len = (size_t)x->size;
        if (!(x->data = malloc(x->len + 1)))
            break;
        memcpy(x->data, r.out + off, x->len);
        x->data[x->len] = '\0';
        x->have_data = 1;
        off += x->len;
    }
out:
    prop_cmd_result_clear(&r);
    return 1;
}

int
sshtr_prefetch(prop_transport *t, const char *const *paths, size_t npaths)
{
    ssh_tr *s = (ssh_tr *)t;
    pf_entry *e;
    const char **args = NULL;
    size_t *idx = NULL, i, n = 0, start, bytes, nidx, total;
    int rc = 0;

    pf_clear(s);
    if (s->dead)
        return fail_lost(s, "prefetch");
    e = calloc(npaths, sizeof *e);
    args = calloc(PF_BATCH_PATHS + 1, sizeof *args);
    idx = calloc(PF_BATCH_PATHS, sizeof *idx);
    if (!e || !args || !idx)
        goto done;
    for (i = 0; i < npaths; i++) {
        if (!pf_canonical(paths[i]))
            continue;
        if (!(e[n].path = strdup(paths[i])))
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
    /* The stats, in batches. */
    for (start = 0; start < n;) {
        for (i = start, bytes = 0; i < n && i - start < PF_BATCH_PATHS; i++) {
            bytes += strlen(e[i].path) + 4;
            if (bytes > PF_BATCH_BYTES && i > start)
                break;
        }
        if ((rc = pf_stat_batch(s, e + start, i - start, args)) <= 0)
            goto done;
        start = i;
    }
    /* The contents of the small regular files, in batches. */
    total = 0;
    for (start = 0; start < n;) {
        for (i = start, nidx = 0, bytes = 0; i < n && nidx < PF_BATCH_PATHS; i++) {
            if (e[i].type != PROP_FT_FILE || (unsigned long long)e[i].size > PF_MAX_FILE ||
                total + (size_t)e[i].size > PF_MAX_TOTAL)
                continue;
            bytes += strlen(e[i].path) + 4;
            if (bytes > PF_BATCH_BYTES && nidx)
                break;
            idx[nidx++] = i;
            total += (size_t)e[i].size;
        }
        if (nidx && (rc = pf_read_batch(s, e, idx, nidx, args)) < 0)
            goto done;
        start = i;
    }
    for (i = 0; i < n; i++) {
        free(e[i].line);
        e[i].line = NULL;
    }
    s->pf = e;
    s->npf = n;
    s->pf_changes = s->base.changes;
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
    free(idx);
    return rc < 0 ? rc : 0;
}
