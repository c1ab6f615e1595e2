/*
 * pull_record.c - prop pull's run of the site (a run object, run.h) and
 * what it keeps of it: each host's summary and each failed property,
 * told by the run's observer, written as last-run.json in the state
 * directory for prop status; and, with --prometheus, the run's metrics
 * (run_metrics.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "array.h"
#include "pull.h"
#include "run.h"

#define MAX_FAILURES 200

/* ---- what the run did, for last-run.json ------------------------------ */

typedef struct host_sum {
    char *name, *state, *why;
    unsigned ok, changed, failed;
} host_sum;

typedef struct failure {
    char *host, *prop, *origin, *msg;
} failure;

static struct record {
    host_sum *hosts;
    size_t nhosts, caphosts;
    failure fails[MAX_FAILURES];
    size_t nfails, lost; /* lost: failures beyond MAX_FAILURES */
} rec;

static char *
dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* The run's observer: a host's (or container's) summary, as it is printed. */
static void
note_host(const prop_host *h, const outcome *oc, const char *state, const char *why, void *payload)
{
    struct record *rc = payload;
    host_sum *hs;

    if (prop_array_reserve(rc->hosts, rc->caphosts, rc->nhosts, 1, 4) != 0)
        return;
    hs = &rc->hosts[rc->nhosts++];
    hs->name = dup_or_null(prop_host_fullname(h));
    hs->state = dup_or_null(state);
    hs->why = state ? dup_or_null(why) : NULL;
    hs->ok = oc->ok;
    hs->changed = oc->changed;
    hs->failed = oc->failed;
}

/* The run's observer: a failed property. */
static void
note_failed(const prop_host *h, const prop_node *n, const char *msg, void *payload)
{
    struct record *rc = payload;
    const prop_origin *o = prop_node_origin(n);
    failure *f;
    char where[1100];

    if (rc->nfails == MAX_FAILURES) {
        rc->lost++;
        return;
    }
    f = &rc->fails[rc->nfails++];
    where[0] = '\0';
    if (o && o->nframes > 0)
        snprintf(where, sizeof where, "%s:%d", o->frames[0].file, o->frames[0].line);
    f->host = dup_or_null(prop_host_fullname(h));
    f->prop = dup_or_null(prop_node_desc(n));
    f->origin = where[0] ? strdup(where) : NULL;
    f->msg = msg && *msg ? strdup(msg) : NULL;
}

void
pull_record_free(void)
{
    size_t i;

    for (i = 0; i < rec.nhosts; i++) {
        free(rec.hosts[i].name);
        free(rec.hosts[i].state);
        free(rec.hosts[i].why);
    }
    for (i = 0; i < rec.nfails; i++) {
        free(rec.fails[i].host);
        free(rec.fails[i].prop);
        free(rec.fails[i].origin);
        free(rec.fails[i].msg);
    }
    free(rec.hosts);
    memset(&rec, 0, sizeof rec);
}

/* ---- last-run.json ---------------------------------------------------- */

void
pull_jstr(FILE *f, const char *s)
{
    if (s == NULL)
        fputs("null", f);
    else
        prop_json_write_string(f, s, strlen(s));
}

int
pull_write_last_run(const pull_opts *o, const char *host, const char *commit, const char *signer,
                    time_t start, double secs, int rc)
{
    char path[4096], when[64], *data = NULL;
    size_t len = 0, i;
    unsigned ok = 0, changed = 0, failed = 0;
    const char *result;
    prop_transport *t = NULL;
    prop_file_attrs attrs = {0644, NULL, NULL};
    struct tm tm;
    FILE *f;
    int w;

    for (i = 0; i < rec.nhosts; i++) {
        ok += rec.hosts[i].ok;
        changed += rec.hosts[i].changed;
        failed += rec.hosts[i].failed;
    }
    result = rc == 130                ? "interrupted"
             : rc == EXIT_UNREACHABLE ? "unreachable"
             : rc != EXIT_WELL        ? "failed"
             : changed                ? "changed"
                                      : "ok";
    if (gmtime_r(&start, &tm) == NULL ||
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        snprintf(when, sizeof when, "?");
    f = open_memstream(&data, &len);
    if (f == NULL)
        return -1;
    fputs("{\"version\":1,\"host\":", f);
    pull_jstr(f, host);
    fprintf(f, ",\"time\":\"%s\",\"epoch\":%lld,\"seconds\":%.3f,\"repo\":", when, (long long)start,
            secs);
    pull_jstr(f, o->shown);
    fputs(",\"branch\":", f);
    pull_jstr(f, o->branch);
    fputs(",\"site\":", f);
    pull_jstr(f, o->site);
    if (o->every > 0)
        fprintf(f, ",\"every\":%ld", o->every);
    fputs(",\"commit\":", f);
    pull_jstr(f, commit);
    fputs(",\"signer\":", f);
    pull_jstr(f, signer);
    fprintf(f, ",\"result\":\"%s\",\"exit\":%d,\"ok\":%u,\"changed\":%u,\"failed\":%u,\"hosts\":[",
            result, rc, ok, changed, failed);
    for (i = 0; i < rec.nhosts; i++) {
        fputs(i ? ",{\"host\":" : "{\"host\":", f);
        pull_jstr(f, rec.hosts[i].name);
        fprintf(f, ",\"ok\":%u,\"changed\":%u,\"failed\":%u", rec.hosts[i].ok, rec.hosts[i].changed,
                rec.hosts[i].failed);
        if (rec.hosts[i].state) {
            fputs(",\"state\":", f);
            pull_jstr(f, rec.hosts[i].state);
            fputs(",\"error\":", f);
            pull_jstr(f, rec.hosts[i].why);
        }
        fputc('}', f);
    }
    fputs("],\"failures\":[", f);
    for (i = 0; i < rec.nfails; i++) {
        fputs(i ? ",{\"host\":" : "{\"host\":", f);
        pull_jstr(f, rec.fails[i].host);
        fputs(",\"property\":", f);
        pull_jstr(f, rec.fails[i].prop);
        fputs(",\"origin\":", f);
        pull_jstr(f, rec.fails[i].origin);
        fputs(",\"error\":", f);
        pull_jstr(f, rec.fails[i].msg);
        fputc('}', f);
    }
    fprintf(f, "],\"failures_not_kept\":%zu}\n", rec.lost);
    if (fclose(f) != 0 || data == NULL) {
        free(data);
        return -1;
    }
    w = snprintf(path, sizeof path, "%s/last-run.json", o->state_dir);
    if (w < 0 || w >= (int)sizeof path || prop_transport_local(&t) != PROP_OK ||
        prop_transport_write(t, path, data, len, &attrs) != PROP_OK ||
        prop_transport_sync(t) != PROP_OK) { /* close cannot report it */
        fprintf(stderr, "prop pull: cannot write %s: %s\n", path,
                t ? prop_transport_error(t) : "out of memory");
        prop_transport_close(t);
        free(data);
        return -1;
    }
    prop_transport_close(t);
    free(data);
    return 0;
}

/* Run this host's part of the site at path, as prop run does. */
int
pull_run_site(const pull_opts *o, const char *path, const char *host)
{
    run_observer obs = RUN_OBSERVER_INIT;
    const char *names[1];
    const prop_host **hosts = NULL;
    outcome *ocs = NULL;
    size_t nhosts = 0;
    lprop_ctx *ctx = NULL;
    run_opts ro;
    run *r = NULL;
    int i, rc;
    struct timespec t0, t1;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(&ro, 0, sizeof ro);
    cli_site_opts_init(&ro.site);
    ro.jobs = 1;
    ro.op_timeout = RUN_DEFAULT_TIMEOUT; /* as prop run's: a hung command never holds the pull */
    ro.dry = o->dry;
    ro.json = o->json;
    ro.local = 1;
    ro.site_path = path;
    for (i = 0; i < o->nsite_args; i++)
        if (cli_site_opt(&ro.site, o->nsite_args, o->site_args, &i) <= 0)
            return EXIT_USAGE; /* cmd_pull.c took them as such */
    names[0] = host;
    rc = run_open_site(&ro, names, 1, &ctx, &hosts, &nhosts, &ocs);
    if (rc >= 0)
        goto done;
    if (!o->dry) { /* a dry run keeps no record */
        obs.host_done = note_host;
        obs.failure = note_failed;
        obs.payload = &rec;
    }
    if ((r = run_new(ctx, &ro, &obs)) == NULL) {
        fprintf(stderr, "prop: out of memory\n");
        rc = EXIT_FAILED;
        goto done;
    }
    run_catch_signals(r);
    /* The metrics are made of the run's entries. */
    if (o->prometheus && !o->dry && run_entries_open("pull") != 0) {
        rc = EXIT_FAILED;
        goto done;
    }
    rc = run_hosts(r, hosts, nhosts, ocs);
    fflush(stdout);
    if (o->prometheus && !o->dry) {
        /* As prop verify's: 0 every property holds (what the run changed
         * holds now), 2 some failed, 130 interrupted. */
        int code = rc == EXIT_WELL ? 0 : rc == EXIT_INTERRUPTED ? EXIT_INTERRUPTED : 2;

        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (run_metrics_write(o->prometheus, "pull", time(NULL),
                              (double)(t1.tv_sec - t0.tv_sec) +
                                  (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
                              code) != 0 &&
            rc == EXIT_WELL)
            rc = EXIT_FAILED;
    }
done:
    if (run_report_fd >= 0)
        close(run_report_fd);
    run_report_fd = -1;
    run_free(r);
    lprop_close(ctx);
    free(hosts);
    free(ocs);
    if (fflush(stdout) != 0 && rc == EXIT_WELL)
        rc = EXIT_FAILED;
    return rc;
}
