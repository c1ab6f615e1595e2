/*
 * transport_ssh_pipeline.c - the pipelining of the SSH transport: the
 * deferred operations and their batches (see "Deferred operations"), the
 * syncs of the directories pipelined writes changed, and the staged
 * writes: a pipelined write of a small file goes into a staging directory
 * beside its path, and a commit puts the staged files in place together
 * (see "Staged writes").  The lines go through the remote shell
 * (transport_ssh_shell.c), which reads their answers in order.
 */
#define _DEFAULT_SOURCE /* getentropy */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "transport_ssh.h"

/*
 * The remote shell's functions for staged writes (transport_ssh_shell.c
 * defines them in the shell): they return, they do not exit, and fork
 * only where they name a command.
 *
 * prop_stw SD TMP MU SFX P M O G N FMT stages the write of FMT (a printf
 * format) to P as TMP, in SD, the staging directory of P's directory
 * (made when missing, with the shell's pid in SD/.pid; those of our user
 * whose shell is gone, a run cut off, are removed then; another run's
 * into the same directory, a host of the same machine, is left alone).
 * A new file whose mode a umask gives (MU) is made by the shell's
 * builtins alone, with noclobber.  A staging directory made is noted in
 * the record of staging directories ($prop_stgrec, see prop_stgc).
 * Anything else is prop_write's, in a
 * subshell, with prop_tmp=TMP: P exists, an owner, a TMP that will not be
 * made (no SD on a read-only file system), or a write that failed (a
 * builtin's message does not give the kernel's reason; prop_write's
 * does).  Status 4: staged.
 */
const char prop_ssh_stw_script[] =
    "if [ ! -d \"$1\" ]; then\n"
    "  for prop_x in \"${1%/*}/.prop-stg-\"*; do\n"
    "    if [ -d \"$prop_x\" ] && [ ! -L \"$prop_x\" ] && [ -O \"$prop_x\" ] &&\n"
    "       read prop_p 2>/dev/null <\"$prop_x/.pid\" && ! kill -0 \"$prop_p\" 2>/dev/null; then\n"
    "      rm -rf -- \"$prop_x\" </dev/null\n"
    "    fi\n"
    "  done\n"
    "  if mkdir -m 700 -- \"$1\" </dev/null 2>/dev/null && echo $$ >\"$1/.pid\" &&\n"
    "     [ -n \"$prop_stgrec\" ] && [ ! -L \"$prop_stgrec\" ]; then\n"
    "    case $1 in /*) prop_x=$1 ;; *) prop_x=$PWD/$1 ;; esac\n"
    "    { [ ! -e \"$prop_stgrec\" ] || [ -O \"$prop_stgrec\" ]; } &&\n"
    "      printf '%s\\n' \"$prop_x\" 2>/dev/null >>\"$prop_stgrec\"\n"
    "  fi\n"
    "fi\n"
    "if [ -n \"$3\" ] && [ -d \"$1\" ] && [ ! -e \"$5\" ] && [ ! -L \"$5\" ]; then\n"
    "  umask \"$3\"; set -C\n"
    "  if { :; } 2>/dev/null >\"$2\"; then\n"
    "    set +C\n"
    "    if printf \"${10}\" 2>/dev/null >|\"$2\"; then umask \"$prop_um\"; return 4; fi\n"
    "    rm -f -- \"$2\" </dev/null\n"
    "  fi\n"
    "  set +C; umask \"$prop_um\"\n"
    "fi\n"
    "(prop_sfx=$4 prop_dsync=1 prop_mu=$3 prop_tmp=$2; shift 4; prop_write \"$@\") </dev/null\n";

/*
 * The record of staging directories.  A run cut off (the connection
 * dropped, prop killed) leaves its staging directories behind, and only
 * a later write into the same directory would find them.  So each one
 * made is noted, as an absolute path, in a file of the remote user's
 * beside the run lock (transport_ssh.c): PROP_LOCK_FILE, or
 * /run/lock/prop.lock for root, or ${TMPDIR:-/tmp}/prop-UID.lock,
 * with ".stg" in place of ".lock".  prop_stgc, run by every new remote
 * shell (the next connection), removes those noted whose shell is gone
 * (the pid in their .pid), of this user, not a symbolic link, and keeps
 * the others noted; the record itself is this user's, not a symbolic
 * link, or left alone.  Builtins only, but for rm(1).
 */
const char prop_ssh_stgc_script[] =
    "prop_stgrec=$PROP_LOCK_FILE\n"
    "if [ -z \"$prop_stgrec\" ]; then\n"
    "  if [ \"$prop_uid\" = 0 ] && [ -d /run/lock ] && [ -w /run/lock ]; then\n"
    "    prop_stgrec=/run/lock/prop.lock\n"
    "  else prop_stgrec=${TMPDIR:-/tmp}/prop-$prop_uid.lock; fi\n"
    "fi\n"
    "prop_stgrec=${prop_stgrec%.lock}.stg\n"
    "[ -f \"$prop_stgrec\" ] && [ ! -L \"$prop_stgrec\" ] && [ -O \"$prop_stgrec\" ] && [ -s "
    "\"$prop_stgrec\" ] ||\n"
    "  return 0\n"
    "prop_k=\n"
    "while IFS= read -r prop_x; do\n"
    "  case $prop_x in /*) ;; *) continue ;; esac\n"
    "  case ${prop_x##*/} in .prop-stg-*) ;; *) continue ;; esac\n"
    "  [ -d \"$prop_x\" ] && [ ! -L \"$prop_x\" ] && [ -O \"$prop_x\" ] || continue\n"
    "  if read prop_p 2>/dev/null <\"$prop_x/.pid\" && ! kill -0 \"$prop_p\" 2>/dev/null; then\n"
    "    rm -rf -- \"$prop_x\" </dev/null 2>/dev/null\n"
    "  else prop_k=\"$prop_k$prop_x$prop_nl\"; fi\n"
    "done <\"$prop_stgrec\"\n"
    "printf '%s' \"$prop_k\" 2>/dev/null >\"$prop_stgrec\"\n"
    "return 0\n";

/*
 * The commit.  prop_sst I TMP...: fsync the temporary files of the
 * writes staged (I in $prop_sg) together, in a subshell; GNU sync(1)
 * syncs the files named, another syncs everything.
 *
 * prop_mvg SD DIR (I NAME BATCH)...: move the files staged in SD into
 * DIR with one mv(1), unless the fsync failed ($prop_cf), a write of the
 * same batch failed before ($prop_cfb), or DIR/NAME is a directory.  A
 * file still staged after the mv, or not at DIR/NAME, failed; a failure
 * says "prop-cf I REASON" and adds BATCH to $prop_cfb.
 *
 * prop_why MSG NAME: the line of MSG that names NAME, or MSG, in $prop_r.
 */
const char prop_ssh_sst_script[] = "n=$(($# / 2))\n"
                                   "while [ $n -gt 0 ]; do\n"
                                   "  case $prop_sg in *\" $1 \"*) set -- \"$@\" \"$2\" ;; esac\n"
                                   "  shift 2; n=$((n - 1))\n"
                                   "done\n"
                                   "[ $# -gt 0 ] || exit 0\n"
                                   "if [ \"$prop_os\" = Linux ]; then exec sync -- \"$@\"; fi\n"
                                   "exec sync\n";
const char prop_ssh_mvg_script[] =
    "prop_sd=$1 prop_dd=${2%/}/; shift 2\n"
    "prop_n=$(($# / 3))\n"
    "while [ $prop_n -gt 0 ]; do\n"
    "  prop_x=\n"
    "  case $prop_sg in *\" $1 \"*) prop_x=1 ;; esac\n"
    "  case $prop_cfb in *\" $3 \"*) prop_x= ;; esac\n"
    "  prop_r=\n"
    "  if [ -z \"$prop_x\" ]; then :\n"
    "  elif [ -n \"$prop_cf\" ]; then prop_r=$prop_cf\n"
    "  elif [ ! -f \"$prop_sd/$2\" ]; then prop_r=\"$prop_sd/$2: the staged file is gone\"\n"
    "  elif [ -d \"$prop_dd$2\" ]; then prop_r=\"$prop_dd$2: is a directory\"\n"
    "  else set -- \"$@\" \"$1\" \"$2\" \"$3\"; fi\n"
    "  if [ -n \"$prop_r\" ]; then\n"
    "    prop_cfb=\"$prop_cfb$3 \"; printf 'prop-cf %s %s\\n' \"$1\" \"$prop_r\"\n"
    "  fi\n"
    "  shift 3; prop_n=$((prop_n - 1))\n"
    "done\n"
    "[ $# -gt 0 ] || return 0\n"
    "prop_e=$(n=$(($# / 3))\n"
    "  while [ $n -gt 0 ]; do set -- \"$@\" \"$prop_sd/$2\"; shift 3; n=$((n - 1)); done\n"
    "  exec mv -f -- \"$@\" \"$prop_dd\" </dev/null 2>&1)\n"
    "while [ $# -gt 0 ]; do\n"
    "  if [ -e \"$prop_sd/$2\" ] || [ -L \"$prop_sd/$2\" ] ||\n"
    "     { [ ! -e \"$prop_dd$2\" ] && [ ! -L \"$prop_dd$2\" ]; }; then\n"
    "    prop_why \"$prop_e\" \"/$2\"\n"
    "    prop_cfb=\"$prop_cfb$3 \"; printf 'prop-cf %s %s\\n' \"$1\" \"$prop_r\"\n"
    "  fi\n"
    "  shift 3\n"
    "done\n";
const char prop_ssh_why_script[] =
    "prop_r=${1:-mv failed} prop_x=$1\n"
    "while [ -n \"$prop_x\" ]; do\n"
    "  case ${prop_x%%\"$prop_nl\"*} in *\"$2\"*) prop_r=${prop_x%%\"$prop_nl\"*}; return 0 ;; "
    "esac\n"
    "  case $prop_x in *\"$prop_nl\"*) prop_x=${prop_x#*\"$prop_nl\"} ;; *) prop_x= ;; esac\n"
    "done\n";

/* ---------------------------------------------------------------------
 * Staged writes.  A pipelined write of a small file (the data inline)
 * whose directory is synced later stops once its temporary file holds the
 * data, owner and mode, and answers at once: prop_stw puts it in the
 * staging directory of the file's directory, DIR/.prop-stg-TAG, under
 * the file's own name, and the line notes it in $prop_sg.  A new file
 * with a mode and no owner is staged by the shell's builtins alone.  The
 * writes staged are then moved into place together by a commit, one line
 * sent before the next operation that is not such a write (or that
 * writes a path already staged), at settle, and every SH_STAGE_MAX
 * writes: one fsync(1) of all their files, then one mv(1) per staging
 * directory, then one rm(1) of the staging directories.  So a first run
 * of many new files costs a few processes on the target, not one or
 * three per file, with the same guarantees: a file is old or new, never
 * partial, and synced with its directory before the answers are in.
 *
 * A batch (a property) whose write fails must not have its later writes
 * made, so a commit moves its writes in rounds: the first write staged by
 * each batch, then the second of the batches that have not failed, and so
 * on; almost always one round.  A write whose move fails fails its batch
 * (the answer of the commit names it with the reason), and the batch's
 * later lines are skipped, as when it failed on its own line.  Until its
 * commit is answered a staged write counts as outstanding: the executor
 * keeps its result provisional.
 */
#define SH_STAGE_MAX 128
#define SH_STAGE_BYTES (48u << 10)

/* Free the staged writes st[0..n) and the array. */
void
prop_ssh_stage_free(sh_stage *st, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        free(st[i].what);
        free(st[i].tmp);
        free(st[i].path);
    }
    free(st);
}

/* Fail the batch of each write of st[0..n) (not in place: why), and free them. */
void
prop_ssh_stg_fail(ssh_tr *s, sh_stage *st, size_t n, const char *why)
{
    char msg[1024];
    size_t i;

    for (i = 0; i < n; i++) {
        snprintf(msg, sizeof msg, "%.300s: %.700s", st[i].what, why);
        prop_ssh_fail_batch(s, st[i].batch, msg);
    }
    prop_ssh_stage_free(st, n);
}

/* The answer r of the commit of st[0..n) (NULL: lost, for the reason in
 * s->base.err): "prop-cf I REASON" for each write it could not put in
 * place (REASON may go on over the next lines). */
void
prop_ssh_commit_done(ssh_tr *s, sh_stage *st, size_t n, const prop_cmd_result *r)
{
    prop_buf why = PROP_BUF_INIT;
    sh_stage *cur = NULL;
    char *p, *line, *end, lost[1100];
    unsigned long idx;
    size_t i;

    if (!r || r->code != 0 || !r->out) {
        snprintf(lost, sizeof lost, "not put in place: %.1000s",
                 !r                  ? s->base.err
                 : r->err && *r->err ? r->err
                                     : "the commit failed");
        prop_ssh_stg_fail(s, st, n, lost);
        return;
    }
    p = r->out;
    for (;;) {
        line = prop_sh_next_line(&p);
        if (!line || strncmp(line, "prop-cf ", 8) == 0) {
            if (cur) {
                const char *m = why.p ? why.p : "failed";
                char msg[1024];

                snprintf(msg, sizeof msg, "%s: %s", cur->what, m);
                prop_ssh_fail_batch(s, cur->batch, msg);
            }
            prop_buf_free(&why);
            cur = NULL;
            if (!line)
                break;
            idx = strtoul(line + 8, &end, 10);
            for (i = 0; i < n; i++)
                if (st[i].idx == idx)
                    cur = &st[i];
            if (cur && *end == ' ')
                (void)prop_buf_adds(&why, end + 1);
        } else if (cur && *line) {
            (void)(prop_buf_adds(&why, "; ") < 0 || prop_buf_adds(&why, line) < 0);
        }
    }
    prop_ssh_stage_free(st, n);
}

/* The staging directory of path's directory (spelt as prop_write spells
 * its $d: "./" before a name alone, "/" for the root's) and the staged
 * file in it, malloc'd in *sd and *tmp: 0, or -1 out of memory. */
static int
stage_paths(const ssh_tr *s, const char *path, char **sd, char **tmp)
{
    const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
    const char *d = !slash ? "." : slash == path ? "" : path;
    size_t dn = !slash ? 1 : (size_t)(slash - path), n = dn + 16 + sizeof s->stg_tag;

    *tmp = NULL;
    if (!(*sd = prop_malloc(n)) || !(*tmp = prop_malloc(n + strlen(name) + 1))) {
        free(*sd);
        *sd = NULL;
        return -1;
    }
    snprintf(*sd, n, "%.*s/.prop-stg-%s", (int)dn, d, s->stg_tag);
    snprintf(*tmp, n + strlen(name) + 1, "%s/%s", *sd, name);
    return 0;
}

int
prop_ssh_sh_stage_write(ssh_tr *s, const char *path, const char *const *args, const char *data,
                        size_t len, const char sfx[7], const char *mu, const char *what)
{
    prop_buf b = PROP_BUF_INIT;
    char *sd = NULL, *tmp = NULL;
    size_t need, i;
    sh_stage *e;
    int rc;

    if (!s->stg_tag[0])
        prop_ssh_sh_next_sfx(s, s->stg_tag);
    if (stage_paths(s, path, &sd, &tmp) < 0)
        return prop_transport_fail(&s->base, "%s: out of memory", what);
    need = strlen(tmp) + strlen(path) + 64;
    for (i = 0; i < s->nstg; i++)
        if (strcmp(s->stg[i].path, path) == 0)
            break;
    if ((i < s->nstg || s->nstg >= SH_STAGE_MAX || s->stg_bytes + need > SH_STAGE_BYTES) &&
        (rc = prop_ssh_sh_commit(s, what)) != 0)
        goto out;
    rc = prop_transport_fail(&s->base, "%s: out of memory", what);
    if (prop_buf_adds(&b, "prop_stw ") < 0 || prop_ssh_buf_quote(&b, sd) < 0 ||
        prop_buf_add(&b, " ", 1) < 0 || prop_ssh_buf_quote(&b, tmp) < 0 ||
        prop_buf_add(&b, " ", 1) < 0 || prop_ssh_buf_quote(&b, mu) < 0 ||
        prop_buf_add(&b, " ", 1) < 0 || prop_buf_adds(&b, sfx) < 0)
        goto out;
    for (i = 0; args[i]; i++)
        if (prop_buf_add(&b, " ", 1) < 0 || prop_ssh_buf_quote(&b, args[i]) < 0)
            goto out;
    if (prop_buf_add(&b, " ", 1) < 0 || prop_ssh_buf_printf_format(&b, data, len) < 0)
        goto out;
    if (s->nstg == s->stg_cap) {
        size_t cap = s->stg_cap ? 2 * s->stg_cap : 32;
        sh_stage *v = prop_realloc(s->stg, cap * sizeof *v);

        if (!v)
            goto out;
        s->stg = v;
        s->stg_cap = cap;
    }
    e = &s->stg[s->nstg];
    e->idx = ++s->stg_idx;
    e->batch = s->batch;
    e->tmp = tmp;
    if (!(e->what = prop_strdup(what)) || !(e->path = prop_strdup(path))) {
        free(e->what);
        goto out;
    }
    tmp = NULL; /* e's now */
    s->nstg++;
    s->stg_bytes += need;
    if ((rc = prop_ssh_defer_line(s, b.p, b.len, what, e->idx, NULL, 0)) != 0) {
        /* Not staged as far as anyone knows: failed with the line (its
         * file, if made, goes with the staging directory). */
        e = &s->stg[--s->nstg];
        s->stg_bytes -= need;
        free(e->what);
        free(e->tmp);
        free(e->path);
    }
out:
    prop_buf_free(&b);
    free(sd);
    free(tmp);
    return rc;
}

/* p[0..n) quoted as one word (prop_ssh_buf_quote): 0, or -1 out of memory. */
static int
buf_quote_n(prop_buf *b, const char *p, size_t n)
{
    char *w = prop_strndup(p, n);
    int rc = w ? prop_ssh_buf_quote(b, w) : -1;

    free(w);
    return rc;
}

/* The commit's moves of st[0..n), in rounds (see "Staged writes"): a
 * prop_mvg for each staging directory of each round. */
static int
commit_moves(prop_buf *b, const sh_stage *st, size_t n)
{
    unsigned char round[SH_STAGE_MAX], done[SH_STAGE_MAX];
    size_t i, j, k;
    unsigned r, last = 0;
    char num[96];

    for (i = 0; i < n; i++) {
        round[i] = done[i] = 0;
        for (j = 0; j < i; j++)
            if (st[j].batch == st[i].batch)
                round[i]++;
        if (round[i] > last)
            last = round[i];
    }
    for (r = 0; r <= last; r++)
        for (i = 0; i < n; i++) {
            const char *sd = st[i].tmp, *name = strrchr(sd, '/') + 1;
            size_t sdn = (size_t)(name - 1 - sd), dn;

            if (round[i] != r || done[i])
                continue;
            /* The directory of the staging directory: "" is the root. */
            for (dn = sdn; dn > 0 && sd[dn - 1] != '/'; dn--)
                ;
            if (prop_buf_adds(b, "; prop_mvg ") < 0 || buf_quote_n(b, sd, sdn) < 0 ||
                prop_buf_add(b, " ", 1) < 0 || buf_quote_n(b, sd, dn) < 0)
                return -1;
            for (j = i; j < n; j++) {
                const char *nj = strrchr(st[j].tmp, '/') + 1;

                if (round[j] != r || done[j] || (size_t)(nj - 1 - st[j].tmp) != sdn ||
                    memcmp(st[j].tmp, sd, sdn) != 0)
                    continue;
                done[j] = 1;
                snprintf(num, sizeof num, " %lu ", st[j].idx);
                if (prop_buf_adds(b, num) < 0 || prop_ssh_buf_quote(b, nj) < 0)
                    return -1;
                snprintf(num, sizeof num, " %lu", st[j].batch);
                if (prop_buf_adds(b, num) < 0)
                    return -1;
            }
        }
    /* The staging directories, and whatever stayed in them. */
    if (prop_buf_adds(b, "; rm -rf --") < 0)
        return -1;
    for (i = 0; i < n; i++) {
        const char *sd = st[i].tmp;
        size_t sdn = (size_t)(strrchr(sd, '/') - sd);

        for (k = 0; k < i; k++)
            if ((size_t)(strrchr(st[k].tmp, '/') - st[k].tmp) == sdn &&
                memcmp(st[k].tmp, sd, sdn) == 0)
                break;
        if (k < i)
            continue;
        if (prop_buf_add(b, " ", 1) < 0 || buf_quote_n(b, sd, sdn) < 0)
            return -1;
    }
    return prop_buf_adds(b, " </dev/null");
}

int
prop_ssh_sh_commit(ssh_tr *s, const char *what)
{
    prop_buf b = PROP_BUF_INIT;
    char num[160];
    sh_stage *st = s->stg;
    size_t n = s->nstg, i;
    unsigned long batch = s->batch;
    int rc;

    if (n == 0)
        return 0;
    s->stg = NULL;
    s->nstg = s->stg_cap = s->stg_bytes = 0;
    if (prop_buf_adds(&b, "prop_cf=; prop_e=$(prop_sst") < 0)
        goto oom;
    for (i = 0; i < n; i++) {
        snprintf(num, sizeof num, " %lu ", st[i].idx);
        if (prop_buf_adds(&b, num) < 0 || prop_ssh_buf_quote(&b, st[i].tmp) < 0)
            goto oom;
    }
    if (prop_buf_adds(&b, " 2>&1) || prop_cf=\"fsync: ${prop_e:-failed}\"; prop_cfb=' '") < 0 ||
        commit_moves(&b, st, n) < 0)
        goto oom;
    /* The current batch's lines sent after this one are skipped when it
     * failed here. */
    snprintf(num, sizeof num,
             "; case $prop_cfb in *\" %lu \"*) prop_fb=%lu ;; esac; prop_sg=' ' prop_cf= prop_cfb=",
             batch, batch);
    if (prop_buf_adds(&b, num) < 0)
        goto oom;
    /* Of no batch: it runs whatever failed before it (prop_mvg skips what
     * it must). */
    s->batch = 0;
    rc = prop_ssh_defer_line(s, b.p, b.len, "commit", 0, st, n);
    s->batch = batch;
    prop_buf_free(&b);
    return rc;
oom:
    prop_buf_free(&b);
    prop_ssh_stg_fail(s, st, n, "out of memory");
    return prop_transport_fail(&s->base, "%s: the writes staged: out of memory", what);
}

/* ---------------------------------------------------------------------
 * Deferred operations (prop_transport_defer): a write, mkdir, symlink or
 * chattr is a line sent without waiting; its answer is read when the next
 * operation that waits reads its own (answers come in order), or at
 * prop_transport_settle().  A failed one is kept as its batch's failure.
 */

/* Keep msg as the failure of batch, unless the batch already has one. */
void
prop_ssh_fail_batch(ssh_tr *s, unsigned long batch, const char *msg)
{
    size_t i;
    char *m;

    for (i = 0; i < s->nfails; i++)
        if (s->fails[i].batch == batch)
            return;
    if (s->nfails == s->fails_cap) {
        size_t cap = s->fails_cap ? 2 * s->fails_cap : 8;
        sh_fail *v = prop_realloc(s->fails, cap * sizeof *v);

        if (!v)
            return; /* the batch is failed by the skipped lines that follow */
        s->fails = v;
        s->fails_cap = cap;
    }
    if (!(m = prop_strdup(msg && *msg ? msg : "failed")))
        return;
    s->fails[s->nfails].batch = batch;
    s->fails[s->nfails].msg = m;
    s->nfails++;
}

/* The failure of batch, or NULL. */
const char *
prop_ssh_batch_failed(const ssh_tr *s, unsigned long batch)
{
    size_t i;

    for (i = 0; i < s->nfails; i++)
        if (s->fails[i].batch == batch)
            return s->fails[i].msg;
    return NULL;
}

int
prop_ssh_sh_gate(ssh_tr *s, const char *what)
{
    const char *f;
    int rc;

    if (s->nstg && (rc = prop_ssh_sh_commit(s, what)) != 0)
        return rc;
    if (s->npend && (rc = prop_ssh_sh_settle(s, what)) != 0)
        return rc;
    if (s->defer && (f = prop_ssh_batch_failed(s, s->batch)) != NULL)
        return prop_transport_fail(&s->base, "%s", f);
    return 0;
}

int
prop_ssh_sh_defer(ssh_tr *s, const char *cmd, size_t len, const char *what)
{
    int rc;

    if (s->nstg && (rc = prop_ssh_sh_commit(s, what)) != 0)
        return rc;
    return prop_ssh_defer_line(s, cmd, len, what, 0, NULL, 0);
}

int
prop_ssh_sshtr_run_deferred(prop_transport *t, const char *const *argv, const char *stdin_data,
                            size_t stdin_len, const char *what)
{
    ssh_tr *s = (ssh_tr *)t;
    char *line;
    size_t len;
    int rc;

    if (!s->defer || (stdin_data && stdin_len > SH_MAX_INLINE))
        return 1;
    if (prop_transport_stops(t))
        return prop_transport_fail(t, "%s: interrupted: not started", what);
    if ((rc = prop_ssh_sh_sync_dirs(s, what)) != 0)
        return rc;
    line = prop_ssh_sh_line(NULL, argv, NULL, 0, stdin_data, stdin_data ? stdin_len : 0, &len);
    if (!line)
        return prop_transport_fail(t, "%s: out of memory", what);
    rc = prop_ssh_sh_defer(s, line, len, what);
    free(line);
    return rc;
}

int
prop_ssh_sshtr_defer(prop_transport *t, int on)
{
    ssh_tr *s = (ssh_tr *)t;

    if (!on)
        (void)prop_ssh_sshtr_settle(t);
    s->defer = on;
    return 1;
}

void
prop_ssh_sshtr_batch(prop_transport *t, unsigned long batch)
{
    ((ssh_tr *)t)->batch = batch;
}

int
prop_ssh_sshtr_settle(prop_transport *t)
{
    ssh_tr *s = (ssh_tr *)t;
    int rc = prop_ssh_sh_commit(s, "commit"), rc2 = prop_ssh_sh_sync_dirs(s, "sync");

    if (rc == 0)
        rc = rc2;
    if (s->npend && (rc2 = prop_ssh_sh_settle(s, "settle")) != 0 && rc == 0)
        rc = rc2;
    return rc;
}

size_t
prop_ssh_sshtr_outstanding(const prop_transport *t)
{
    const ssh_tr *s = (const ssh_tr *)t;

    return s->npend + s->nstg;
}

char *
prop_ssh_sshtr_batch_failure(prop_transport *t, unsigned long batch)
{
    ssh_tr *s = (ssh_tr *)t;
    size_t i;

    for (i = 0; i < s->nfails; i++)
        if (s->fails[i].batch == batch) {
            char *m = s->fails[i].msg;

            s->fails[i] = s->fails[--s->nfails];
            return m;
        }
    return NULL;
}

int
prop_ssh_sh_dir_changed(ssh_tr *s, const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : 1, i;
    char *d;

    if (slash == path)
        n = 1; /* "/x": the root */
    for (i = 0; i < s->ndirs; i++)
        if (strlen(s->dirs[i]) == n && memcmp(s->dirs[i], slash ? path : ".", n) == 0)
            return 0;
    if (s->ndirs == s->dirs_cap) {
        size_t cap = s->dirs_cap ? 2 * s->dirs_cap : 16;
        char **v = prop_realloc(s->dirs, cap * sizeof *v);

        if (!v)
            return -1;
        s->dirs = v;
        s->dirs_cap = cap;
    }
    if (!(d = prop_malloc(n + 1)))
        return -1;
    memcpy(d, slash ? path : ".", n);
    d[n] = '\0';
    s->dirs[s->ndirs++] = d;
    return 0;
}

int
prop_ssh_sh_sync_dirs(ssh_tr *s, const char *what)
{
    prop_buf b = PROP_BUF_INIT;
    unsigned long batch = s->batch;
    size_t i;
    int rc;

    if (s->ndirs == 0)
        return 0;
    /* sync(1) of GNU coreutils syncs the directories named; another may
     * not take arguments, and then syncs everything. */
    if (prop_buf_adds(&b, "( sync -- ") < 0)
        goto oom;
    for (i = 0; i < s->ndirs; i++)
        if (prop_ssh_buf_quote(&b, s->dirs[i]) < 0 || prop_buf_add(&b, " ", 1) < 0)
            goto oom;
    if (prop_buf_adds(&b, "2>/dev/null || sync ) </dev/null") < 0)
        goto oom;
    /* Of no batch: it runs whatever failed before it. */
    s->batch = 0;
    rc = prop_ssh_sh_defer(s, b.p, b.len, what);
    s->batch = batch;
    prop_buf_free(&b);
    if (rc == 0) {
        for (i = 0; i < s->ndirs; i++)
            free(s->dirs[i]);
        s->ndirs = 0;
    }
    return rc;
oom:
    prop_buf_free(&b);
    return prop_transport_fail(&s->base, "%s: out of memory", what);
}

void
prop_ssh_sh_next_sfx(ssh_tr *s, char out[7])
{
    static const char digits[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    unsigned long long v;
    int i;

    if (s->sfx_n == 0) {
        unsigned char rnd[4] = {0, 0, 0, 0};

        if (getentropy(rnd, sizeof rnd) != 0) /* unique is enough: noclobber */
            rnd[0] = (unsigned char)getpid();
        s->sfx_base = (unsigned long)rnd[0] << 24 | (unsigned long)rnd[1] << 16 |
                      (unsigned long)rnd[2] << 8 | rnd[3];
    }
    v = (unsigned long long)s->sfx_base + s->sfx_n++;
    for (i = 5; i >= 0; i--) {
        out[i] = digits[v % 62];
        v /= 62;
    }
    out[6] = '\0';
}

void
prop_ssh_sh_defer_free(ssh_tr *s)
{
    size_t i;

    for (i = 0; i < s->npend; i++) {
        prop_ssh_stage_free(s->pend[s->pend_off + i].stg, s->pend[s->pend_off + i].nstg);
        free(s->pend[s->pend_off + i].what);
    }
    prop_ssh_stage_free(s->stg, s->nstg);
    s->stg = NULL;
    s->nstg = s->stg_cap = s->stg_bytes = 0;
    for (i = 0; i < s->nfails; i++)
        free(s->fails[i].msg);
    for (i = 0; i < s->ndirs; i++)
        free(s->dirs[i]);
    free(s->dirs);
    s->dirs = NULL;
    s->ndirs = s->dirs_cap = 0;
    free(s->pend);
    free(s->fails);
    s->pend = NULL;
    s->fails = NULL;
    s->npend = s->pend_off = s->pend_cap = s->nfails = s->fails_cap = 0;
}
