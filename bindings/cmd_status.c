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
#include "json_read.h"
#include "report_html.h"
#include "run.h"

#define DEFAULT_STATE_DIR "/var/lib/prop"

/* ---- the command ------------------------------------------------------- */

typedef struct status_opts {
    const char *state_dir, *html;
    int json, accept_new, connect_timeout;
} status_opts;

/* --html: a row for each host shown; oom when one could not be made. */
static struct {
    fleet_page pg;
    int oom;
} page;

/* A record's count or time in 0..max, else -1 (not known). */
static double
bounded(const json_val *rec, const char *key, double max)
{
    double v = json_num(rec, key, -1);

    return v >= 0 && v <= max ? v : -1;
}

/* *out = "host:path", malloc'd; 0 or -1. */
static int
asprintf_like(char **out, const char *host, const char *path)
{
    size_t n = strlen(host) + strlen(path) + 2;

    if ((*out = malloc(n)) == NULL)
        return -1;
    snprintf(*out, n, "%s:%s", host, path);
    return 0;
}

/*
 * The host's row on the --html page: its state, its error (a host not
 * reached, a record not read) or what its record rec (at path) says.
 */
static void
page_row(const status_opts *o, const prop_host *h, fleet_state st, const char *error,
         const json_val *rec, const char *path)
{
    const json_val *fails = json_get(rec, "failures"), *hosts = json_get(rec, "hosts");
    fleet_host *row;
    size_t i, probes = 0, nfails = 0;
    int bad = 0;

    if (o->html == NULL || page.oom)
        return;
    if ((row = fleet_add_host(&page.pg, prop_host_name(h))) == NULL) {
        page.oom = 1;
        return;
    }
    row->state = st;
    if (error && fleet_add_item(row, st == FLEET_UNREACHABLE ? "unreachable" : "error", NULL, NULL,
                                error) != 0)
        bad = 1;
    if (rec) {
        row->epoch = (long long)bounded(rec, "epoch", 1e12);
        row->ms = json_num(rec, "seconds", -1) * 1000;
        row->ok = (long)bounded(rec, "ok", 1e9);
        row->changed = (long)bounded(rec, "changed", 1e9);
        row->failed = (long)bounded(rec, "failed", 1e9);
        if (fleet_set(&row->when, json_str(rec, "time")) != 0 ||
            fleet_set(&row->commit, json_str(rec, "commit")) != 0)
            bad = 1;
    }
    if (path) {
        char *src = NULL;

        if (asprintf_like(&src, prop_host_name(h), path) != 0 || fleet_set(&row->source, src) != 0)
            bad = 1;
        free(src);
    }
    for (i = 0; fails && fails->type == JSON_ARR && i < fails->nkids; i++) {
        const json_val *f = &fails->kids[i];
        int probe = fleet_is_probe_message(json_str(f, "error"));

        nfails++;
        probes += (size_t)probe;
        if (fleet_add_item(row, probe ? "probe failed" : "failed", json_str(f, "property"),
                           json_str(f, "origin"), json_str(f, "error")) != 0)
            bad = 1;
    }
    for (i = 0; hosts && hosts->type == JSON_ARR && i < hosts->nkids; i++) {
        const json_val *hs = &hosts->kids[i];

        if (json_str(hs, "state") &&
            fleet_add_item(row, json_str(hs, "state"), json_str(hs, "host"), NULL,
                           json_str(hs, "error")) != 0)
            bad = 1;
    }
    if (st == FLEET_FAILED && nfails > 0 && probes == nfails)
        row->state = FLEET_PROBE_FAILED;
    if (bad)
        page.oom = 1;
}

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
stale(const json_val *v, long long *age)
{
    double every = json_num(v, "every", 0);
    double end = bounded(v, "epoch", 1e12), secs = bounded(v, "seconds", 1e9);

    *age = (long long)time(NULL) - (long long)((end < 0 ? 0 : end) + (secs < 0 ? 0 : secs));
    return every > 0 && (double)*age > 2 * every + 600;
}

/* Print one host's record; returns the host's exit code. */
static int
show_record(const status_opts *o, const prop_host *h, const char *path, const char *data,
            size_t len, int first)
{
    const char *name = prop_host_name(h);
    json_val v;
    const json_val *fails;
    const char *result, *commit, *when;
    char since[64];
    long long age;
    int old;
    size_t i;

    if (json_parse(data, len, &v, NULL) != 0 || v.type != JSON_OBJ ||
        json_str(&v, "result") == NULL) {
        json_free(&v);
        if (o->json) {
            fputs(first ? "{\"host\":" : ",{\"host\":", stdout);
            json_s(name);
            fputs(",\"error\":", stdout);
            json_s("its last-run.json is not a record prop pull wrote");
            fputs("}", stdout);
        } else {
            printf("%s: %s is not a record prop pull wrote\n", name, path);
        }
        page_row(o, h, FLEET_FAILED, "its last-run.json is not a record prop pull wrote", NULL,
                 path);
        return EXIT_FAILED;
    }
    result = json_str(&v, "result");
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
        commit = json_str(&v, "commit");
        when = json_str(&v, "time");
        ago((long long)time(NULL) -
                (long long)(bounded(&v, "epoch", 1e12) < 0 ? 0 : bounded(&v, "epoch", 1e12)),
            since, sizeof since);
        printf("%s: %s%s at %s (%s), commit %.12s", name, old ? "stale: " : "", result,
               when ? when : "?", since, commit ? commit : "?");
        if (json_str(&v, "signer"))
            printf(" signed by %s", json_str(&v, "signer"));
        printf(": %.0f ok, %.0f changed, %.0f failed\n", json_num(&v, "ok", 0),
               json_num(&v, "changed", 0), json_num(&v, "failed", 0));
        if (old) {
            ago(age, since, sizeof since);
            printf("  stale: the last pull ended %s, but it is scheduled every %.0f seconds: "
                   "the pulls since did not end, or failed before running\n",
                   since, json_num(&v, "every", 0));
        }
        fails = json_get(&v, "failures");
        for (i = 0; fails && fails->type == JSON_ARR && i < fails->nkids; i++) {
            const json_val *f = &fails->kids[i];
            const char *err = json_str(f, "error"), *origin = json_str(f, "origin");
            fputs("  failed: ", stdout);
            prop_text_puts(stdout, json_str(f, "property") ? json_str(f, "property") : "?", 0);
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
        fails = json_get(&v, "hosts");
        for (i = 0; fails && fails->type == JSON_ARR && i < fails->nkids; i++) {
            const json_val *hs = &fails->kids[i];
            if (json_str(hs, "state") == NULL)
                continue;
            printf("  %s %s: ", json_str(hs, "host") ? json_str(hs, "host") : "?",
                   json_str(hs, "state"));
            prop_text_puts(stdout, json_str(hs, "error") ? json_str(hs, "error") : "", 0);
            fputc('\n', stdout);
        }
    }
    page_row(o, h,
             old                                  ? FLEET_STALE
             : strcmp(result, "ok") == 0          ? FLEET_OK
             : strcmp(result, "changed") == 0     ? FLEET_CHANGED
             : strcmp(result, "unreachable") == 0 ? FLEET_UNREACHABLE
             : strcmp(result, "interrupted") == 0 ? FLEET_INTERRUPTED
                                                  : FLEET_FAILED,
             NULL, &v, path);
    i = !old && (strcmp(result, "ok") == 0 || strcmp(result, "changed") == 0);
    json_free(&v);
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
        page_row(o, h, FLEET_UNREACHABLE, why, NULL, NULL);
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
        page_row(o, h, rc == PROP_ENOTFOUND ? FLEET_NEVER_PULLED : FLEET_FAILED,
                 rc == PROP_ENOTFOUND ? NULL : err, NULL, path);
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
        const char *hv;
        if (strcmp(a, "--json") == 0) {
            o.json = 1;
        } else if (cli_opt_value("--html", argc, argv, &i, &hv)) {
            if (hv == NULL || *hv == '\0') {
                free(rest);
                return cli_usage_error(&cmd_status, "--html wants a file name");
            }
            o.html = hv;
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
    if (o.html) {
        char err[4400], title[512];

        snprintf(title, sizeof title, "prop status: %s", sh.site ? sh.site : "?");
        if (page.oom) {
            fprintf(stderr, "prop status: --html %s: out of memory\n", o.html);
            worst = EXIT_FAILED;
        } else if (fleet_write_html(&page.pg, title, "the last prop pull on each host", o.html, err,
                                    sizeof err) != 0) {
            fputs("prop status: --html ", stderr);
            prop_text_puts(stderr, err, 0);
            fputc('\n', stderr);
            if (worst == EXIT_WELL || worst == EXIT_USAGE)
                worst = EXIT_FAILED;
        }
        fleet_page_free(&page.pg);
    }
    cli_site_hosts_free(&sh);
    if (fflush(stdout) != 0 && worst == EXIT_WELL)
        worst = EXIT_FAILED;
    return worst;
}

const cli_command cmd_status = {
    "status", status_run,
    "what the last prop pull did on each host (every host when none is named)",
    "prop status SITE [HOST...] [--json] [--html OUT.html] [--state-dir DIR]\n"
    "                [--accept-new-host-keys] [--connect-timeout S] [--max-instructions N]\n"
    "                [--max-memory MIB] [--max-cpu S]"};
