/*
 * cmd_status.c - prop status SITE [HOST...]: what the last prop pull on
 * each host did, read from its last-run.json over the transport prop run
 * uses to reach it (this machine, a directory tree, SSH).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "run.h"

#define DEFAULT_STATE_DIR "/var/lib/prop"
#define MAX_DEPTH 32

/* ---- a small JSON reader: last-run.json as prop pull writes it ----------- */

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jtype;

typedef struct jval jval;
struct jval {
    jtype type;
    double num;
    char *str;  /* J_STR: the string; J_OBJ member: its key (in key) */
    char *key;  /* set on the members of an object */
    jval *kids; /* J_ARR, J_OBJ: the elements */
    size_t nkids;
};

typedef struct jparser {
    const char *p, *end;
    int depth;
} jparser;

static void
jfree(jval *v)
{
    size_t i;

    for (i = 0; i < v->nkids; i++)
        jfree(&v->kids[i]);
    free(v->kids);
    free(v->str);
    free(v->key);
    memset(v, 0, sizeof *v);
}

static void
jspace(jparser *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\r' || *j->p == '\t'))
        j->p++;
}

static int
hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* A string (at its opening quote) into *out, malloc'd.  0 or -1. */
static int
jstring(jparser *j, char **out)
{
    size_t cap = 32, len = 0;
    char *b = malloc(cap);

    if (b == NULL)
        return -1;
    j->p++;
    while (j->p < j->end && *j->p != '"') {
        unsigned c = (unsigned char)*j->p++;
        char enc[4];
        size_t n = 1;

        if (c < 0x20)
            goto bad;
        if (c == '\\') {
            if (j->p >= j->end)
                goto bad;
            c = (unsigned char)*j->p++;
            switch (c) {
            case 'n':
                c = '\n';
                break;
            case 't':
                c = '\t';
                break;
            case 'r':
                c = '\r';
                break;
            case 'b':
                c = '\b';
                break;
            case 'f':
                c = '\f';
                break;
            case '"':
            case '\\':
            case '/':
                break;
            case 'u': {
                unsigned u = 0;
                int k;
                if (j->end - j->p < 4)
                    goto bad;
                for (k = 0; k < 4; k++) {
                    int h = hexval(j->p[k]);
                    if (h < 0)
                        goto bad;
                    u = u * 16 + (unsigned)h;
                }
                j->p += 4;
                /* Surrogates are shown as U+FFFD: only text is shown. */
                if (u >= 0xd800 && u <= 0xdfff)
                    u = 0xfffd;
                if (u < 0x80) {
                    c = u;
                } else if (u < 0x800) {
                    enc[0] = (char)(0xc0 | (u >> 6));
                    enc[1] = (char)(0x80 | (u & 0x3f));
                    n = 2;
                } else {
                    enc[0] = (char)(0xe0 | (u >> 12));
                    enc[1] = (char)(0x80 | ((u >> 6) & 0x3f));
                    enc[2] = (char)(0x80 | (u & 0x3f));
                    n = 3;
                }
                break;
            }
            default:
                goto bad;
            }
        }
        if (n == 1)
            enc[0] = (char)c;
        if (len + n + 1 > cap) {
            char *nb;
            cap *= 2;
            nb = realloc(b, cap);
            if (nb == NULL)
                goto bad;
            b = nb;
        }
        memcpy(b + len, enc, n);
        len += n;
    }
    if (j->p >= j->end)
        goto bad;
    j->p++;
    b[len] = '\0';
    *out = b;
    return 0;
bad:
    free(b);
    return -1;
}

static int jvalue(jparser *j, jval *v);

static int
jadd(jval *parent, jval *kid)
{
    jval *k = realloc(parent->kids, (parent->nkids + 1) * sizeof *k);

    if (k == NULL)
        return -1;
    parent->kids = k;
    parent->kids[parent->nkids++] = *kid;
    return 0;
}

static int
jcontainer(jparser *j, jval *v, char close)
{
    int obj = close == '}';

    v->type = obj ? J_OBJ : J_ARR;
    j->p++;
    if (++j->depth > MAX_DEPTH)
        return -1;
    jspace(j);
    if (j->p < j->end && *j->p == close) {
        j->p++;
        j->depth--;
        return 0;
    }
    for (;;) {
        jval kid;
        char *key = NULL;

        memset(&kid, 0, sizeof kid);
        jspace(j);
        if (obj) {
            if (j->p >= j->end || *j->p != '"' || jstring(j, &key) != 0)
                return -1;
            jspace(j);
            if (j->p >= j->end || *j->p != ':') {
                free(key);
                return -1;
            }
            j->p++;
        }
        if (jvalue(j, &kid) != 0) {
            free(key);
            jfree(&kid);
            return -1;
        }
        kid.key = key;
        if (jadd(v, &kid) != 0) {
            jfree(&kid);
            return -1;
        }
        jspace(j);
        if (j->p < j->end && *j->p == ',') {
            j->p++;
            continue;
        }
        if (j->p < j->end && *j->p == close) {
            j->p++;
            j->depth--;
            return 0;
        }
        return -1;
    }
}

static int
jvalue(jparser *j, jval *v)
{
    jspace(j);
    if (j->p >= j->end)
        return -1;
    switch (*j->p) {
    case '{':
        return jcontainer(j, v, '}');
    case '[':
        return jcontainer(j, v, ']');
    case '"':
        v->type = J_STR;
        return jstring(j, &v->str);
    case 't':
    case 'f':
    case 'n': {
        static const char *const words[] = {"true", "false", "null"};
        size_t k;
        for (k = 0; k < 3; k++) {
            size_t l = strlen(words[k]);
            if ((size_t)(j->end - j->p) >= l && strncmp(j->p, words[k], l) == 0) {
                j->p += l;
                v->type = k == 2 ? J_NULL : J_BOOL;
                v->num = k == 0;
                return 0;
            }
        }
        return -1;
    }
    default: {
        char *e;
        if (!(*j->p == '-' || (*j->p >= '0' && *j->p <= '9')))
            return -1;
        errno = 0;
        v->type = J_NUM;
        v->num = strtod(j->p, &e);
        if (e == j->p || e > j->end || errno == ERANGE)
            return -1;
        j->p = e;
        return 0;
    }
    }
}

/* Parse data[0..len), NUL-terminated; 0, or -1 with *v freed. */
static int
jparse(const char *data, size_t len, jval *v)
{
    jparser j = {data, data + len, 0};

    memset(v, 0, sizeof *v);
    if (jvalue(&j, v) != 0) {
        jfree(v);
        return -1;
    }
    jspace(&j);
    if (j.p != j.end) {
        jfree(v);
        return -1;
    }
    return 0;
}

static const jval *
jget(const jval *o, const char *key)
{
    size_t i;

    if (o == NULL || o->type != J_OBJ)
        return NULL;
    for (i = 0; i < o->nkids; i++)
        if (o->kids[i].key && strcmp(o->kids[i].key, key) == 0)
            return &o->kids[i];
    return NULL;
}

static const char *
jstr(const jval *o, const char *key)
{
    const jval *v = jget(o, key);

    return v && v->type == J_STR ? v->str : NULL;
}

static double
jnum(const jval *o, const char *key)
{
    const jval *v = jget(o, key);

    return v && v->type == J_NUM ? v->num : 0;
}

/* ---- the command ------------------------------------------------------- */

typedef struct status_opts {
    const char *state_dir;
    int json, accept_new, connect_timeout;
} status_opts;

static void
json_s(const char *s)
{
    prop_json_write_string(stdout, s ? s : "", s ? strlen(s) : 0);
}

static void
ago(long long secs, char *buf, size_t size)
{
    if (secs < 0)
        snprintf(buf, size, "in the future: check the clocks");
    else if (secs < 120)
        snprintf(buf, size, "%lld seconds ago", secs);
    else if (secs < 7200)
        snprintf(buf, size, "%lld minutes ago", secs / 60);
    else if (secs < 172800)
        snprintf(buf, size, "%lld hours ago", secs / 3600);
    else
        snprintf(buf, size, "%lld days ago", secs / 86400);
}

/*
 * A record of a scheduled pull (its "every", --every) older than its
 * schedule allows: no pull ended in twice the interval and 10 minutes
 * more (the jitter, a long run).  A pull that stalls, or fails before it
 * writes its record (the fetch), leaves the record to age so.
 */
static int
stale(const jval *v, long long *age)
{
    double every = jnum(v, "every");

    *age = (long long)time(NULL) - (long long)(jnum(v, "epoch") + jnum(v, "seconds"));
    return every > 0 && (double)*age > 2 * every + 600;
}

/* Print one host's record; returns the host's exit code. */
static int
show_record(const status_opts *o, const prop_host *h, const char *path, const char *data,
            size_t len, int first)
{
    const char *name = prop_host_name(h);
    jval v;
    const jval *fails;
    const char *result, *commit, *when;
    char since[64];
    long long age;
    int old;
    size_t i;

    if (jparse(data, len, &v) != 0 || v.type != J_OBJ || jstr(&v, "result") == NULL) {
        jfree(&v);
        if (o->json) {
            fputs(first ? "{\"host\":" : ",{\"host\":", stdout);
            json_s(name);
            fputs(",\"error\":", stdout);
            json_s("its last-run.json is not a record prop pull wrote");
            fputs("}", stdout);
        } else {
            printf("%s: %s is not a record prop pull wrote\n", name, path);
        }
        return EXIT_FAILED;
    }
    result = jstr(&v, "result");
    old = stale(&v, &age);
    if (o->json) {
        fputs(first ? "{\"host\":" : ",{\"host\":", stdout);
        json_s(name);
        if (old)
            fputs(",\"stale\":true", stdout);
        fputs(",\"last_run\":", stdout);
        fwrite(data, 1, len && data[len - 1] == '\n' ? len - 1 : len, stdout);
        fputs("}", stdout);
    } else {
        commit = jstr(&v, "commit");
        when = jstr(&v, "time");
        ago((long long)time(NULL) - (long long)jnum(&v, "epoch"), since, sizeof since);
        printf("%s: %s%s at %s (%s), commit %.12s", name, old ? "stale: " : "", result,
               when ? when : "?", since, commit ? commit : "?");
        if (jstr(&v, "signer"))
            printf(" signed by %s", jstr(&v, "signer"));
        printf(": %.0f ok, %.0f changed, %.0f failed\n", jnum(&v, "ok"), jnum(&v, "changed"),
               jnum(&v, "failed"));
        if (old) {
            ago(age, since, sizeof since);
            printf("  stale: the last pull ended %s, but it is scheduled every %.0f seconds: "
                   "the pulls since did not end, or failed before running\n",
                   since, jnum(&v, "every"));
        }
        fails = jget(&v, "failures");
        for (i = 0; fails && fails->type == J_ARR && i < fails->nkids; i++) {
            const jval *f = &fails->kids[i];
            const char *err = jstr(f, "error"), *origin = jstr(f, "origin");
            fputs("  failed: ", stdout);
            prop_text_puts(stdout, jstr(f, "property") ? jstr(f, "property") : "?", 0);
            if (origin) {
                fputs(" (", stdout);
                prop_text_puts(stdout, origin, 0);
                fputs(")", stdout);
            }
            if (err) {
                fputs(": ", stdout);
                prop_text_puts(stdout, err, 0);
            }
            fputc('\n', stdout);
        }
        fails = jget(&v, "hosts");
        for (i = 0; fails && fails->type == J_ARR && i < fails->nkids; i++) {
            const jval *hs = &fails->kids[i];
            if (jstr(hs, "state") == NULL)
                continue;
            printf("  %s %s: ", jstr(hs, "host") ? jstr(hs, "host") : "?", jstr(hs, "state"));
            prop_text_puts(stdout, jstr(hs, "error") ? jstr(hs, "error") : "", 0);
            fputc('\n', stdout);
        }
    }
    i = !old && (strcmp(result, "ok") == 0 || strcmp(result, "changed") == 0);
    jfree(&v);
    return i ? EXIT_WELL : EXIT_FAILED;
}

static int
status_host(const status_opts *o, const prop_host *h, int first)
{
    prop_transport *t = NULL;
    char why[1200] = "", path[4200];
    const char *how = prop_host_info(h, PROP_INFO_CONNECT, 0);
    const char *root = prop_host_info(h, PROP_INFO_CONNECT_PATH, 0);
    char *data = NULL;
    size_t len = 0;
    int rc;

    snprintf(path, sizeof path, "%s/last-run.json", o->state_dir);
    if (how && strcmp(how, "dir") == 0 && root && access(root, F_OK) != 0)
        snprintf(why, sizeof why, "%s: %s", root, strerror(errno));
    if (why[0] ||
        cli_open_transport(h, o->accept_new, o->connect_timeout, &t, why, sizeof why) != PROP_OK) {
        if (o->json) {
            fputs(first ? "{\"host\":" : ",{\"host\":", stdout);
            json_s(prop_host_name(h));
            fputs(",\"unreachable\":true,\"error\":", stdout);
            json_s(why);
            fputs("}", stdout);
        } else {
            printf("%s: unreachable: ", prop_host_name(h));
            prop_text_puts(stdout, why, 0);
            fputc('\n', stdout);
        }
        prop_transport_close(t);
        return EXIT_UNREACHABLE;
    }
    rc = prop_transport_read(t, path, &data, &len);
    if (rc != PROP_OK) {
        const char *err = rc == PROP_ENOTFOUND ? "never pulled" : prop_transport_error(t);
        if (o->json) {
            fputs(first ? "{\"host\":" : ",{\"host\":", stdout);
            json_s(prop_host_name(h));
            fputs(rc == PROP_ENOTFOUND ? ",\"never_pulled\":true" : "", stdout);
            fputs(",\"error\":", stdout);
            json_s(err);
            fputs("}", stdout);
        } else {
            printf("%s: %s (no %s)\n", prop_host_name(h), err, path);
        }
        prop_transport_close(t);
        free(data);
        return EXIT_FAILED;
    }
    prop_transport_close(t);
    rc = show_record(o, h, path, data, len, first);
    free(data);
    return rc;
}

static int
status_run(int argc, char **argv)
{
    status_opts o;
    cli_site_hosts sh;
    char **rest;
    int i, n = 0, rc, worst = EXIT_WELL;
    size_t k, shown = 0;

    memset(&o, 0, sizeof o);
    o.state_dir = DEFAULT_STATE_DIR;
    rest = calloc((size_t)argc + 1, sizeof *rest);
    if (rest == NULL)
        return EXIT_FAILED;
    /* Our own options out; the rest (SITE HOST... and the shared options)
     * for cli_site_hosts_open. */
    rest[n++] = argv[0];
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--json") == 0) {
            o.json = 1;
        } else if (strcmp(a, "--accept-new-host-keys") == 0) {
            o.accept_new = 1;
        } else if (strncmp(a, "--state-dir", 11) == 0 && (a[11] == '=' || a[11] == '\0')) {
            const char *v = a[11] == '=' ? a + 12 : i + 1 < argc ? argv[++i] : NULL;
            if (v == NULL || v[0] != '/') {
                free(rest);
                return cli_usage_error(&cmd_status, "--state-dir wants an absolute directory");
            }
            o.state_dir = v;
        } else if (strncmp(a, "--connect-timeout", 17) == 0 && (a[17] == '=' || a[17] == '\0')) {
            const char *v = a[17] == '=' ? a + 18 : i + 1 < argc ? argv[++i] : NULL;
            char *end;
            long t = v ? strtol(v, &end, 10) : 0;
            if (v == NULL || *v == '\0' || *end != '\0' || t < 1 || t > 3600) {
                free(rest);
                return cli_usage_error(&cmd_status, "--connect-timeout wants a number in 1..3600");
            }
            o.connect_timeout = (int)t;
        } else {
            rest[n++] = argv[i];
        }
    }
    rc = cli_site_hosts_open(&cmd_status, n, rest, &sh);
    free(rest);
    if (rc >= 0)
        return rc;
    if (o.json)
        putchar('[');
    for (k = 0; k < sh.nhosts; k++) {
        const prop_host *h = sh.hosts[k];
        if (prop_host_container_kind(h) != PROP_CONTAINER_NONE) {
            if (sh.named) {
                fprintf(stderr,
                        "prop status: %s is a container: its runs are in the record of %s\n",
                        prop_host_fullname(h), prop_host_name(prop_host_parent(h)));
                if (worst == EXIT_WELL)
                    worst = EXIT_USAGE;
            }
            continue;
        }
        if (!sh.named && cli_info_only_host(h))
            continue;
        rc = status_host(&o, h, shown == 0);
        shown++;
        if (rc == EXIT_UNREACHABLE || (rc == EXIT_FAILED && worst == EXIT_WELL))
            worst = rc;
        fflush(stdout);
    }
    if (o.json)
        puts("]");
    cli_site_hosts_free(&sh);
    if (fflush(stdout) != 0 && worst == EXIT_WELL)
        worst = EXIT_FAILED;
    return worst;
}

const cli_command cmd_status = {
    "status", status_run,
    "what the last prop pull did on each host (every host when none is named)",
    "prop status SITE [HOST...] [--json] [--state-dir DIR] [--accept-new-host-keys]\n"
    "                [--connect-timeout S] [--max-instructions N] [--max-memory MIB] [--max-cpu "
    "S]"};
