/*
 * run_report.c - what prop run says of a run: the text and JSON helpers
 * its output shares, the run's id and its site's commit (each JSON event
 * carries them), a host's summary line, and --report: an entry for each
 * property and host as the run goes on, and the document made of them at
 * the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run.h"
#include "fileio.h"
#include "spawn.h"

const char *
run_origin_of(const prop_node *n, char *buf, size_t size)
{
    const prop_origin *o = prop_node_origin(n);

    if (o == NULL || o->nframes == 0) {
        snprintf(buf, size, "?");
        return buf;
    }
    snprintf(buf, size, "%s:%d", o->frames[0].file, o->frames[0].line);
    return buf;
}

/* Text from the site or the target, shown and never obeyed. */
void
run_text(const char *s)
{
    prop_text_puts(stdout, s, 0);
}

void
run_json_str(const char *s)
{
    prop_json_write_string(stdout, s ? s : "", s ? strlen(s) : 0);
}

/* ---- the run: its id, its site's commit, its report ------------------------ */

/*
 * Every run has an id (random, 32 hex digits) and, when the site file is
 * in a git work tree, the commit checked out there and whether the tree
 * has changes: each JSON event and the report carry them.  Set before
 * any host runs (jobs inherit them).
 */
static char run_id[33];
static char run_commit[72]; /* "" when not known */
static int run_dirty;

/* {"event":"NAME","run":"ID"[,"commit":"C","dirty":B], and the event's
 * own fields follow. */
void
run_json_event(FILE *f, const char *name)
{
    fprintf(f, "{\"event\":\"%s\",\"run\":\"%s\",", name, run_id);
    if (run_commit[0])
        fprintf(f, "\"commit\":\"%s\",\"dirty\":%s,", run_commit, run_dirty ? "true" : "false");
}

/*
 * --report: while the run goes on, each property and each host is an
 * entry, a line "KIND<TAB>PASS<TAB>HOST<TAB>OBJECT" (KIND P or H, PASS 0,
 * or 1 and 2 under --twice, HOST the host's name as a JSON string) in an
 * unnamed temporary file opened O_APPEND; every entry is one write(2), so
 * the entries of parallel jobs never mix.  The document is made of them
 * at the end.
 */
int run_report_fd = -1;
int run_report_pass;

/* Start an entry in a memory stream; NULL when out of memory. */
FILE *
run_report_begin(char **buf, size_t *len, char kind, const prop_host *h)
{
    FILE *m;

    *buf = NULL;
    *len = 0;
    if (run_report_fd < 0 || (m = open_memstream(buf, len)) == NULL)
        return NULL;
    fprintf(m, "%c\t%d\t", kind, run_report_pass);
    prop_json_write_string(m, prop_host_fullname(h), strlen(prop_host_fullname(h)));
    fputs("\t{\"host\":", m);
    prop_json_write_string(m, prop_host_fullname(h), strlen(prop_host_fullname(h)));
    if (prop_host_container_kind(h) != PROP_CONTAINER_NONE) {
        fputs(",\"container\":", m);
        prop_json_write_string(m, prop_host_name(h), strlen(prop_host_name(h)));
    }
    return m;
}

/* End the entry (its object's closing brace is written here) and add it. */
void
run_report_end(FILE *m, char **buf, size_t *len)
{
    if (m == NULL)
        return;
    fputs("}\n", m);
    if (fclose(m) == 0 && *buf && *len)
        (void)prop_write_all(run_report_fd, *buf, *len);
    free(*buf);
    *buf = NULL;
}

void
run_report_str(FILE *m, const char *key, const char *v)
{
    fprintf(m, ",\"%s\":", key);
    prop_json_write_string(m, v ? v : "", v ? strlen(v) : 0);
}

/* ,"key":["line",...] of the lines of text (not changed). */
void
run_report_lines(FILE *m, const char *key, const char *text)
{
    const char *p = text, *nl;
    int first = 1;

    fprintf(m, ",\"%s\":[", key);
    while (p && *p) {
        nl = strchr(p, '\n');
        if (!first)
            fputc(',', m);
        first = 0;
        prop_json_write_string(m, p, nl ? (size_t)(nl - p) : strlen(p));
        p = nl ? nl + 1 : NULL;
    }
    fputc(']', m);
}

/* "host":"box/web","container":"web" (a host has no "container"). */
void
run_json_host(const prop_host *h)
{
    fputs("\"host\":", stdout);
    run_json_str(prop_host_fullname(h));
    if (prop_host_container_kind(h) != PROP_CONTAINER_NONE) {
        fputs(",\"container\":", stdout);
        run_json_str(prop_host_name(h));
    }
}

/*
 * A host's summary: its line (text or a JSON event), its --report entry,
 * and what prop pull keeps of it.
 */
void
run_print_host(const run_opts *o, const prop_host *h, const outcome *oc, const char *why, int color)
{
    const char *name = prop_host_fullname(h);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = run_report_begin(&buf, &len, 'H', h);

    if (o->run && o->run->obs.host_done)
        o->run->obs.host_done(h, oc,
                              oc->unreachable ? "unreachable"
                              : oc->refused   ? "refused"
                              : oc->stopped   ? "interrupted"
                                              : NULL,
                              why, o->run->obs.payload);
    if (m) {
        fprintf(m, ",\"ok\":%u,\"%s\":%u,\"failed\":%u,\"ms\":%.1f", oc->ok,
                o->verify ? "drift" : "changed", oc->changed, oc->failed, oc->ms);
        if (oc->unreachable || oc->refused)
            fputs(oc->unreachable ? ",\"unreachable\":true" : ",\"refused\":true", m);
        if (why && *why)
            run_report_str(m, "error", why);
        if (oc->info_only)
            fputs(",\"info_only\":true", m);
        if (oc->stopped)
            fprintf(m, ",\"interrupted\":true,\"skipped\":%u", oc->skipped);
        run_report_end(m, &buf, &len);
    }
    if (o->json) {
        run_json_event(stdout, "host");
        run_json_host(h);
        printf(",\"ok\":%u,\"%s\":%u,\"failed\":%u,\"ms\":%.1f", oc->ok,
               o->verify ? "drift" : "changed", oc->changed, oc->failed, oc->ms);
        if (oc->unreachable || oc->refused)
            fputs(oc->unreachable ? ",\"unreachable\":true" : ",\"refused\":true", stdout);
        if (why && *why) {
            fputs(",\"error\":", stdout);
            run_json_str(why);
        }
        if (oc->info_only)
            fputs(",\"info_only\":true", stdout);
        if (oc->stopped)
            printf(",\"interrupted\":true,\"skipped\":%u", oc->skipped);
        if (o->dry && !o->verify)
            fputs(",\"dry_run\":true", stdout);
        fputs("}\n", stdout);
        return;
    }
    if (oc->unreachable || oc->refused) {
        printf("%s  %s%s%s: ", name, color ? "\033[1;31m" : "",
               oc->unreachable ? "unreachable" : "refused", color ? "\033[0m" : "");
        run_text(why);
        putchar('\n');
        return;
    }
    if (oc->info_only) {
        printf("%s: nothing to ensure (it only carries information for other hosts)\n", name);
        return;
    }
    if (why && *why) { /* a failure of the host's own, not of a property */
        printf("%s    %sfailed%s: ", name, color ? "\033[1;31m" : "", color ? "\033[0m" : "");
        run_text(why);
        putchar('\n');
    }
    printf("%s: %u ok, %u %s, %u failed", name, oc->ok, oc->changed,
           o->verify ? "drift"
           : o->dry  ? "would change"
                     : "changed",
           oc->failed);
    if (oc->stopped)
        printf(", %u not run (interrupted)", oc->skipped);
    printf(" in %.1f ms%s\n", oc->ms,
           o->verify ? ""
           : o->dry  ? " (dry run: nothing was changed)"
                     : "");
}

/* ---- run id, commit, report ------------------------------------------------ */

/* A random id for this run (32 hex digits) into run_id. */
void
run_make_id(void)
{
    unsigned char b[16];
    size_t i, got = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

    while (fd >= 0 && got < sizeof b) {
        ssize_t r = read(fd, b + got, sizeof b - got);

        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    if (fd >= 0)
        close(fd);
    if (got < sizeof b) {
        /* No /dev/urandom: the time and the pid, which still differ. */
        struct timespec ts;
        unsigned long long x;

        clock_gettime(CLOCK_REALTIME, &ts);
        x = (unsigned long long)ts.tv_sec * 1000000007ULL ^ (unsigned long long)ts.tv_nsec ^
            ((unsigned long long)getpid() << 32);
        for (i = 0; i < sizeof b; i++, x = x * 6364136223846793005ULL + 1442695040888963407ULL)
            b[i] = (unsigned char)(x >> 56);
    }
    for (i = 0; i < sizeof b; i++)
        snprintf(run_id + 2 * i, 3, "%02x", b[i]);
}

/*
 * git -C dir ARGS... with no input and no error output: its exit status
 * (-1: it could not be run), and the first size-1 bytes of its output in
 * out.  No lock is taken (GIT_OPTIONAL_LOCKS=0).
 */
static int
git_in(const char *dir, const char *a1, const char *a2, const char *a3, char *out, size_t size)
{
    static const char *const set[] = {"GIT_OPTIONAL_LOCKS=0", NULL};
    const char *argv[] = {"git", "-C", dir, a1, a2, a3, NULL};
    prop_spawn_opts o;
    prop_spawn_result r;
    char **envp;
    int rc;

    out[0] = '\0';
    if ((envp = prop_spawn_env(set)) == NULL)
        return -1;
    memset(&o, 0, sizeof o);
    o.argv = (char *const *)argv; /* execve does not change them */
    o.envp = envp;
    o.path = prop_spawn_path();
    o.stdin_null = 1;
    o.out = PROP_SPAWN_CAPTURE;
    o.err = PROP_SPAWN_NULL;
    o.max_output = size - 1;
    o.drain = 1;
    fflush(stdout);
    fflush(stderr);
    rc = prop_spawn(&o, &r);
    free(envp);
    if (r.out.len)
        memcpy(out, r.out.p, r.out.len + 1);
    prop_buf_free(&r.out);
    if (rc != PROP_SPAWN_OK || r.termsig != 0 || r.code == 127)
        return -1;
    return r.code;
}

/* Whether DIR or a directory above it holds ".git" (a directory, or the
 * file of a linked work tree or submodule), or GIT_DIR names a repository:
 * only then is git asked, as starting it costs more than the rest of a
 * converged run of a small site. */
static int
maybe_in_git(const char *dir)
{
    char path[4096];
    struct stat st;
    size_t n;

    if (getenv("GIT_DIR") != NULL)
        return 1;
    if (dir[0] != '/') {
        if (getcwd(path, sizeof path) == NULL)
            return 1; /* cannot tell: let git answer */
        n = strlen(path);
        if (strcmp(dir, ".") != 0 &&
            snprintf(path + n, sizeof path - n, "/%s", dir) >= (int)(sizeof path - n))
            return 1;
    } else if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
        return 1;
    }
    for (;;) {
        char *slash;

        n = strlen(path);
        if (n + sizeof "/.git" > sizeof path)
            return 1;
        memcpy(path + n, "/.git", sizeof "/.git");
        if (lstat(path, &st) == 0)
            return 1;
        path[n] = '\0';
        slash = strrchr(path, '/');
        if (slash == NULL || n == 0)
            return 0;
        *slash = '\0'; /* "/etc" -> "", the root, and then stop */
        if (slash == path && n == 1)
            return 0;
    }
}

/* The commit of the site's git work tree into run_commit ("" when the
 * site is not in one, or git is not there), and whether it has changes. */
void
run_find_site_commit(const char *site)
{
    char dir[4096], out[128];
    const char *slash = strrchr(site, '/');
    size_t i, n;

    run_commit[0] = '\0';
    run_dirty = 0;
    if (slash == NULL)
        snprintf(dir, sizeof dir, ".");
    else if (slash == site)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - site), site);
    if (!maybe_in_git(dir) || git_in(dir, "rev-parse", "--verify", "HEAD", out, sizeof out) != 0)
        return;
    n = strcspn(out, "\n");
    if (n < 40 || n >= sizeof run_commit)
        return;
    for (i = 0; i < n; i++)
        if (!strchr("0123456789abcdef", out[i]))
            return;
    memcpy(run_commit, out, n);
    run_commit[n] = '\0';
    if (git_in(dir, "status", "--porcelain", "--ignore-submodules=none", out, sizeof out) == 0)
        run_dirty = out[0] != '\0';
}

/* "2026-12-05T12:00:00Z" */
static void
utc_time(time_t t, char buf[32])
{
    struct tm tm;

    if (gmtime_r(&t, &tm) == NULL || strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        snprintf(buf, 32, "%lld", (long long)t);
}

/* Whether a file can be made beside FILE: 0, or -1 with a message. */
int
run_report_open(const char *file)
{
    const char *slash = strrchr(file, '/');
    size_t dl = slash ? (size_t)(slash - file) + 1 : 0;
    size_t need = strlen(file) + 16;
    char *tmp = malloc(need);
    int fd;

    if (tmp == NULL) {
        fprintf(stderr, "prop run: out of memory\n");
        return -1;
    }
    snprintf(tmp, need, "%.*s.%s.XXXXXX", (int)dl, file, file + dl);
    fd = mkstemp(tmp);
    if (fd < 0) {
        fprintf(stderr, "prop run: --report %s: cannot write there: %s\n", file, strerror(errno));
        free(tmp);
        return -1;
    }
    (void)close(fd);
    (void)unlink(tmp);
    free(tmp);
    return 0;
}

/* The entries of run_report_fd as one document; 0, or -1 out of memory. */
static int
report_document(FILE *m, const run_opts *o, const prop_host **hosts, size_t nhosts,
                const outcome *ocs, int rc, const char *started, const char *ended)
{
    prop_buf b = PROP_BUF_INIT;
    char *data, *line, *end;
    size_t len, k;
    int first = 1;

    for (;;) {
        ssize_t r;

        if (prop_buf_reserve(&b, 65536) != 0) {
            prop_buf_free(&b);
            return -1;
        }
        r = pread(run_report_fd, b.p + b.len, b.cap - b.len - 1, (off_t)b.len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        b.len += (size_t)r;
        b.p[b.len] = '\0';
    }
    len = b.len;
    data = b.p; /* freed below as before */
    fprintf(m, "{\"run\":\"%s\"", run_id);
    if (run_commit[0])
        fprintf(m, ",\"commit\":\"%s\",\"dirty\":%s", run_commit, run_dirty ? "true" : "false");
    run_report_str(m, "site", o->site_path);
    run_report_str(m, "started", started);
    run_report_str(m, "ended", ended);
    if (o->verify)
        fputs(",\"verify\":true", m);
    fprintf(m, ",\"dry_run\":%s,\"twice\":%s,\"exit\":%d,\"hosts\":[", o->dry ? "true" : "false",
            o->twice ? "true" : "false", rc);
    /* Each host entry, with the property entries of its host and pass. */
    for (line = data; line < data + len; line = end + 1) {
        char *t1, *t2, *t3, *p, *pe;

        end = strchr(line, '\n');
        if (end == NULL)
            break;
        if (line[0] != 'H' || !(t1 = memchr(line, '\t', (size_t)(end - line))) ||
            !(t2 = memchr(t1 + 1, '\t', (size_t)(end - t1 - 1))) ||
            !(t3 = memchr(t2 + 1, '\t', (size_t)(end - t2 - 1))) || end[-1] != '}')
            continue;
        if (!first)
            fputc(',', m);
        first = 0;
        fwrite(t3 + 1, 1, (size_t)(end - 1 - (t3 + 1)), m);
        if (o->twice)
            fprintf(m, ",\"pass\":%.*s", (int)(t2 - t1 - 1), t1 + 1);
        fputs(",\"properties\":[", m);
        {
            int pfirst = 1;

            for (p = data; p < data + len; p = pe + 1) {
                size_t keylen = (size_t)(t3 - t1); /* "\tPASS\tHOST" */

                pe = strchr(p, '\n');
                if (pe == NULL)
                    break;
                if (p[0] != 'P' || (size_t)(pe - p) <= keylen + 1 ||
                    memcmp(p + 1, t1, keylen) != 0 || p[1 + keylen] != '\t')
                    continue;
                if (!pfirst)
                    fputc(',', m);
                pfirst = 0;
                fwrite(p + 2 + keylen, 1, (size_t)(pe - (p + 2 + keylen)), m);
            }
        }
        fputs("]}", m);
    }
    /* Hosts that never started: held back by --max-fail, or interrupted. */
    for (k = 0; k < nhosts; k++) {
        if (!ocs[k].held &&
            !(ocs[k].stopped && ocs[k].ms == 0 && !ocs[k].ok && !ocs[k].failed && !ocs[k].changed))
            continue;
        if (!first)
            fputc(',', m);
        first = 0;
        fputs("{\"host\":", m);
        prop_json_write_string(m, prop_host_fullname(hosts[k]),
                               strlen(prop_host_fullname(hosts[k])));
        fputs(ocs[k].held ? ",\"not_run\":true,\"held\":true,\"properties\":[]}"
                          : ",\"not_run\":true,\"interrupted\":true,\"properties\":[]}",
              m);
    }
    fputs("]}\n", m);
    free(data);
    return 0;
}

/*
 * Write the report into its temporary file and rename it over FILE.
 * Returns rc, or EXIT_FAILED (with a message) when it cannot be written.
 */
int
run_report_write(const run_opts *o, const prop_host **hosts, size_t nhosts, const outcome *ocs,
                 int rc, time_t t0)
{
    char started[32], ended[32], *doc = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&doc, &len);
    mode_t um = umask(0);
    prop_atomic_stage stage;
    int e = ENOMEM, ok;

    umask(um);
    utc_time(t0, started);
    utc_time(time(NULL), ended);
    ok = m != NULL && report_document(m, o, hosts, nhosts, ocs, rc, started, ended) == 0;

    if (m != NULL && fclose(m) != 0)
        ok = 0;
    if (ok) {
        e = prop_write_file_atomic(o->report, doc, len, 0666 & ~um, (uid_t)-1, (gid_t)-1, &stage);
        /* Written, its directory not synced: the report is there. */
        if (e != 0 && stage == PROP_ATOMIC_DIR)
            e = 0;
    }
    free(doc);
    if (e != 0) {
        fprintf(stderr, "prop run: --report %s: cannot write it: %s\n", o->report, strerror(e));
        return rc == EXIT_WELL ? EXIT_FAILED : rc;
    }
    return rc;
}
