/*
 * pull_record.c - what prop pull keeps of the prop run it makes: each
 * host's summary and each failed property (cli_run_note_host and
 * cli_run_note_failed, which prop run calls while prop pull keeps a
 * record), written as last-run.json in the state directory for prop
 * status.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pull.h"

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
    int on;
    host_sum *hosts;
    size_t nhosts, caphosts;
    failure fails[MAX_FAILURES];
    size_t nfails, lost; /* lost: failures beyond MAX_FAILURES */
} rec;

int cli_run_local;

static char *
dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

void
cli_run_note_host(const prop_host *h, unsigned ok, unsigned changed, unsigned failed,
                  const char *state, const char *why)
{
    host_sum *hs;

    if (!rec.on)
        return;
    if (rec.nhosts == rec.caphosts) {
        size_t cap = rec.caphosts ? rec.caphosts * 2 : 4;
        host_sum *v = realloc(rec.hosts, cap * sizeof *v);
        if (v == NULL)
            return;
        rec.hosts = v;
        rec.caphosts = cap;
    }
    hs = &rec.hosts[rec.nhosts++];
    hs->name = dup_or_null(prop_host_fullname(h));
    hs->state = dup_or_null(state);
    hs->why = state ? dup_or_null(why) : NULL;
    hs->ok = ok;
    hs->changed = changed;
    hs->failed = failed;
}

void
cli_run_note_failed(const prop_host *h, const prop_node *n, const char *msg)
{
    const prop_origin *o = prop_node_origin(n);
    failure *f;
    char where[1100];

    if (!rec.on)
        return;
    if (rec.nfails == MAX_FAILURES) {
        rec.lost++;
        return;
    }
    f = &rec.fails[rec.nfails++];
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
    char **argv = calloc((size_t)o->nsite_args + 8, sizeof *argv);
    int argc = 0, i, rc;

    if (argv == NULL) {
        fprintf(stderr, "prop: out of memory\n");
        return EXIT_FAILED;
    }
    argv[argc++] = "run";
    argv[argc++] = (char *)path;
    argv[argc++] = (char *)host;
    if (o->dry)
        argv[argc++] = "--dry-run";
    if (o->json)
        argv[argc++] = "--json";
    for (i = 0; i < o->nsite_args; i++)
        argv[argc++] = o->site_args[i];
    cli_run_local = 1;
    rec.on = !o->dry;
    rc = cmd_run.run(argc, argv);
    rec.on = 0;
    cli_run_local = 0;
    free(argv);
    return rc;
}
