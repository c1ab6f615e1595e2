/*
 * run_metrics.c - a run's results as node_exporter textfile-collector
 * metrics (prop verify --prometheus, and prop pull's prometheus=): read
 * from the run's entries (run_report_fd, the same entries --report is
 * made of, so the hosts of parallel jobs are in them), written into a
 * temporary file beside FILE and renamed over it.
 *
 * The entries are the lines "KIND<TAB>PASS<TAB>HOST<TAB>OBJECT" that
 * run_report.c writes; OBJECT is a flat JSON object whose strings are
 * written by prop_json_write_string, so the text ,"KEY": never occurs
 * inside a string (a quote there is always \") and a field is found by
 * looking for it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "array.h"
#include "fileio.h"
#include "json_read.h"
#include "run.h"

int
run_entries_open(const char *who)
{
    char tpl[4096];
    const char *tmpdir = getenv("TMPDIR");

    if (run_report_fd >= 0)
        return 0;
    snprintf(tpl, sizeof tpl, "%s/prop-report.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    if ((run_report_fd = mkstemp(tpl)) < 0 || unlink(tpl) != 0 ||
        fcntl(run_report_fd, F_SETFL, O_APPEND) != 0 ||
        fcntl(run_report_fd, F_SETFD, FD_CLOEXEC) != 0) {
        fprintf(stderr, "prop %s: cannot make a temporary file in %s: %s\n", who,
                tmpdir && *tmpdir ? tmpdir : "/tmp", strerror(errno));
        if (run_report_fd >= 0)
            close(run_report_fd);
        run_report_fd = -1;
        return -1;
    }
    return 0;
}

/* ---- reading an entry ------------------------------------------------- */

/* The JSON string at p (its opening quote) decoded, malloc'd; NULL when
 * it is not one or out of memory. */
static char *
json_string(const char *p, const char *end)
{
    char *b, *o;

    if (p >= end || *p != '"' || (b = malloc((size_t)(end - p) + 1)) == NULL)
        return NULL;
    o = b;
    for (p++; p < end && *p != '"'; p++) {
        unsigned u = 0;
        int k;

        if (*p != '\\') {
            *o++ = *p;
            continue;
        }
        if (++p >= end)
            break;
        switch (*p) {
        case 'n':
            *o++ = '\n';
            break;
        case 't':
            *o++ = '\t';
            break;
        case 'r':
            *o++ = '\r';
            break;
        case 'b':
            *o++ = '\b';
            break;
        case 'f':
            *o++ = '\f';
            break;
        case 'u':
            for (k = 1; k <= 4; k++) {
                int h = p + k < end ? json_hexval(p[k]) : -1;
                if (h < 0) {
                    free(b);
                    return NULL;
                }
                u = u * 16 + (unsigned)h;
            }
            p += 4;
            if (u >= 0xd800 && u <= 0xdfff)
                u = 0xfffd; /* only text is kept */
            if (u < 0x80) {
                *o++ = (char)u;
            } else if (u < 0x800) {
                *o++ = (char)(0xc0 | (u >> 6));
                *o++ = (char)(0x80 | (u & 0x3f));
            } else {
                *o++ = (char)(0xe0 | (u >> 12));
                *o++ = (char)(0x80 | ((u >> 6) & 0x3f));
                *o++ = (char)(0x80 | (u & 0x3f));
            }
            break;
        default: /* \" \\ \/ */
            *o++ = *p;
            break;
        }
    }
    if (p >= end) {
        free(b);
        return NULL;
    }
    *o = '\0';
    return b;
}

/* Where the value of obj's field key starts (obj..end), or NULL. */
static const char *
field(const char *obj, const char *end, const char *key)
{
    char pat[64];
    const char *p;
    size_t n;

    snprintf(pat, sizeof pat, "\"%s\":", key);
    n = strlen(pat);
    for (p = obj; p + n <= end; p++) {
        if (memcmp(p, pat, n) == 0 && p > obj && (p[-1] == ',' || p[-1] == '{'))
            return p + n;
    }
    return NULL;
}

static char *
field_str(const char *obj, const char *end, const char *key)
{
    const char *v = field(obj, end, key);

    return v ? json_string(v, end) : NULL;
}

static unsigned long
field_num(const char *obj, const char *end, const char *key)
{
    const char *v = field(obj, end, key);

    return v && v < end && *v >= '0' && *v <= '9' ? strtoul(v, NULL, 10) : 0;
}

/* ---- the metrics -------------------------------------------------------- */

enum { ST_OK, ST_DRIFT, ST_FAILED, NSTATES };
static const char *const state_names[NSTATES] = {"ok", "drift", "failed"};

typedef struct series {
    char *host, *desc, *file, *line;
    int state;
} series;

typedef struct hostrow {
    char *host;
    int up;
    unsigned long n[NSTATES];
} hostrow;

/* A label value: backslash, double quote and newline escaped. */
static void
label(FILE *f, const char *name, const char *v, int first)
{
    fprintf(f, "%s%s=\"", first ? "" : ",", name);
    for (; v && *v; v++) {
        if (*v == '\\')
            fputs("\\\\", f);
        else if (*v == '"')
            fputs("\\\"", f);
        else if (*v == '\n')
            fputs("\\n", f);
        else
            fputc(*v, f);
    }
    fputc('"', f);
}

/* A result word of an entry as a state: a change is ok when it was made
 * (prop pull: the property holds now), drift when it would be (prop
 * verify); -1: not a state (interrupted). */
static int
state_of(const char *word)
{
    if (word == NULL)
        return -1;
    if (strcmp(word, "ok") == 0 || strcmp(word, "changed") == 0)
        return ST_OK;
    if (strcmp(word, "drift") == 0)
        return ST_DRIFT;
    if (strcmp(word, "failed") == 0)
        return ST_FAILED;
    return -1;
}

static int
series_cmp(const void *a, const void *b)
{
    const series *x = a, *y = b;
    int c = strcmp(x->host, y->host);

    if (c == 0)
        c = strcmp(x->desc, y->desc);
    if (c == 0)
        c = strcmp(x->file, y->file);
    if (c == 0)
        c = strcmp(x->line, y->line);
    return c;
}

/* The whole of run_report_fd, NUL-terminated, malloc'd (NULL: no memory). */
static char *
read_entries(size_t *lenp)
{
    prop_buf b = PROP_BUF_INIT;

    for (;;) {
        ssize_t r;

        if (prop_buf_reserve(&b, 65536) != 0) {
            prop_buf_free(&b);
            return NULL;
        }
        r = pread(run_report_fd, b.p + b.len, b.cap - b.len - 1, (off_t)b.len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        b.len += (size_t)r;
        b.p[b.len] = '\0';
    }
    return prop_buf_take(&b, lenp);
}

/* Take the entries into ss (properties) and hs (hosts): 0, or -1 out of memory. */
static int
take_entries(const char *data, size_t len, series **ssp, size_t *nss, hostrow **hsp, size_t *nhs)
{
    const char *line, *end;
    size_t cs = 0, ch = 0;

    for (line = data; line < data + len; line = end + 1) {
        const char *obj;
        char *host, *word, *origin;

        end = strchr(line, '\n');
        if (end == NULL)
            break;
        obj = memchr(line, '{', (size_t)(end - line));
        if (obj == NULL || (line[0] != 'P' && line[0] != 'H'))
            continue;
        if ((host = field_str(obj, end, "host")) == NULL)
            return -1;
        if (line[0] == 'H') {
            hostrow *h;

            if (prop_array_reserve(*hsp, ch, *nhs, 1, 16) != 0) {
                free(host);
                return -1;
            }
            h = &(*hsp)[(*nhs)++];
            h->host = host;
            h->up = field(obj, end, "unreachable") == NULL;
            h->n[ST_OK] = field_num(obj, end, "ok");
            h->n[ST_DRIFT] = field_num(obj, end, "drift");
            h->n[ST_FAILED] = field_num(obj, end, "failed");
            /* prop pull: what it changed holds now. */
            h->n[ST_OK] += field_num(obj, end, "changed");
            continue;
        }
        word = field_str(obj, end, "result");
        if (state_of(word) < 0) {
            free(word);
            free(host);
            continue;
        }
        if (prop_array_reserve(*ssp, cs, *nss, 1, 64) != 0) {
            free(word);
            free(host);
            return -1;
        }
        {
            series *s = &(*ssp)[(*nss)++];
            char *colon;

            s->host = host;
            s->state = state_of(word);
            free(word);
            s->desc = field_str(obj, end, "desc");
            origin = field_str(obj, end, "origin");
            colon = origin ? strrchr(origin, ':') : NULL;
            s->line = strdup(colon ? colon + 1 : "");
            if (colon)
                *colon = '\0';
            s->file = origin;
            if (s->desc == NULL || s->file == NULL || s->line == NULL)
                return -1;
        }
    }
    return 0;
}

/* The metrics document on f. */
static void
metrics_document(FILE *f, series *ss, size_t nss, const hostrow *hs, size_t nhs, time_t ended,
                 double secs, int rc)
{
    size_t i, k;
    int st;

    /* One series per label set: the same property declared twice at the
     * same place (a loop) shows its worst state. */
    qsort(ss, nss, sizeof *ss, series_cmp);
    fputs("# HELP prop_property_state The state of a property at the last run: 1 for its "
          "state (ok, drift or failed), 0 for the others.\n"
          "# TYPE prop_property_state gauge\n",
          f);
    for (i = 0; i < nss; i = k) {
        int worst = ss[i].state;

        for (k = i + 1; k < nss && series_cmp(&ss[i], &ss[k]) == 0; k++)
            if (ss[k].state > worst)
                worst = ss[k].state;
        for (st = 0; st < NSTATES; st++) {
            fputs("prop_property_state{", f);
            label(f, "host", ss[i].host, 1);
            label(f, "desc", ss[i].desc, 0);
            label(f, "file", ss[i].file, 0);
            label(f, "line", ss[i].line, 0);
            label(f, "state", state_names[st], 0);
            fprintf(f, "} %d\n", st == worst);
        }
    }
    fputs("# HELP prop_host_up Whether the last run reached the host (1) or not (0).\n"
          "# TYPE prop_host_up gauge\n",
          f);
    for (i = 0; i < nhs; i++) {
        for (k = 0; k < i && strcmp(hs[k].host, hs[i].host) != 0; k++)
            ;
        if (k < i) /* a host twice (never, but for a name given twice) */
            continue;
        fputs("prop_host_up{", f);
        label(f, "host", hs[i].host, 1);
        fprintf(f, "} %d\n", hs[i].up);
    }
    fputs("# HELP prop_host_properties The properties of the host in each state at the last "
          "run.\n"
          "# TYPE prop_host_properties gauge\n",
          f);
    for (i = 0; i < nhs; i++) {
        for (k = 0; k < i && strcmp(hs[k].host, hs[i].host) != 0; k++)
            ;
        if (k < i)
            continue;
        for (st = 0; st < NSTATES; st++) {
            fputs("prop_host_properties{", f);
            label(f, "host", hs[i].host, 1);
            label(f, "state", state_names[st], 0);
            fprintf(f, "} %lu\n", hs[i].n[st]);
        }
    }
    fprintf(f,
            "# HELP prop_verify_last_run_timestamp_seconds When the last run ended (Unix time).\n"
            "# TYPE prop_verify_last_run_timestamp_seconds gauge\n"
            "prop_verify_last_run_timestamp_seconds %lld\n"
            "# HELP prop_verify_duration_seconds How long the last run took.\n"
            "# TYPE prop_verify_duration_seconds gauge\n"
            "prop_verify_duration_seconds %.3f\n"
            "# HELP prop_verify_exit_code The exit status of the last run.\n"
            "# TYPE prop_verify_exit_code gauge\n"
            "prop_verify_exit_code %d\n",
            (long long)ended, secs, rc);
}

/* Write data over file atomically: 0, or -1 with errno. */
static int
write_atomically(const char *file, const char *data, size_t len)
{
    mode_t um = umask(0);
    prop_atomic_stage stage;
    int e;

    umask(um);
    /* Its temporary ".NAME.XXXXXX" is no *.prom file the collector reads. */
    e = prop_write_file_atomic(file, data, len, 0644 & ~um, (uid_t)-1, (gid_t)-1, &stage);
    if (e != 0 && stage != PROP_ATOMIC_DIR) {
        errno = e;
        return -1;
    }
    return 0;
}

int
run_metrics_write(const char *file, const char *who, time_t ended, double secs, int rc)
{
    series *ss = NULL;
    hostrow *hs = NULL;
    size_t nss = 0, nhs = 0, len = 0, i, dlen = 0;
    char *data = NULL, *doc = NULL;
    FILE *m = NULL;
    int ok = 0;

    errno = 0;
    if (run_report_fd < 0 || (data = read_entries(&len)) == NULL ||
        take_entries(data, len, &ss, &nss, &hs, &nhs) != 0 ||
        (m = open_memstream(&doc, &dlen)) == NULL)
        goto out;
    metrics_document(m, ss, nss, hs, nhs, ended, secs, rc);
    ok = fclose(m) == 0 && doc != NULL;
    m = NULL;
    if (ok && write_atomically(file, doc, dlen) != 0)
        ok = 0;
out:
    if (m)
        fclose(m);
    if (!ok)
        fprintf(stderr, "prop %s: cannot write the metrics %s: %s\n", who, file,
                errno ? strerror(errno) : "out of memory");
    for (i = 0; i < nss; i++) {
        free(ss[i].host);
        free(ss[i].desc);
        free(ss[i].file);
        free(ss[i].line);
    }
    for (i = 0; i < nhs; i++)
        free(hs[i].host);
    free(ss);
    free(hs);
    free(doc);
    free(data);
    return ok ? 0 : -1;
}
