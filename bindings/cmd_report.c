/*
 * cmd_report.c - prop report FILE.json... [--html OUT.html]: the fleet at
 * a glance from saved --report documents (prop run --report, prop verify
 * --report): one row per host, the newest run of each winning, as text
 * or as one self-contained HTML page.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "fileio.h"
#include "json_read.h"
#include "report_html.h"

/* Reports larger than this are refused (a report of a big fleet with
 * diffs stays far below). */
#define MAX_REPORT (256L * 1024 * 1024)

/* The whole of file into *data (NUL-terminated, malloc'd); 0, or -1 with
 * why in err. */
static int
slurp(const char *file, char **data, size_t *len, char *err, size_t errsize)
{
    prop_buf b = PROP_BUF_INIT;
    int fd = open(file, O_RDONLY | O_CLOEXEC), e;

    *data = NULL;
    *len = 0;
    if (fd < 0) {
        snprintf(err, errsize, "cannot read it: %s", strerror(errno));
        return -1;
    }
    e = prop_read_all(fd, &b, (size_t)MAX_REPORT);
    (void)close(fd);
    if (e == 0 && (*data = prop_buf_take(&b, len)) == NULL)
        e = ENOMEM;
    if (e == 0)
        return 0;
    if (e == EFBIG)
        snprintf(err, errsize, "larger than %ld MiB: not a report", MAX_REPORT >> 20);
    else if (e == ENOMEM)
        snprintf(err, errsize, "out of memory");
    else
        snprintf(err, errsize, "cannot read it: %s", strerror(e));
    prop_buf_free(&b);
    return -1;
}

/* Why doc is not a report prop wrote, or NULL when it is one. */
static const char *
not_a_report(const json_val *doc)
{
    const json_val *hosts = json_get(doc, "hosts");
    size_t i;

    if (doc->type != JSON_OBJ)
        return "not a JSON object";
    if (json_str(doc, "run") == NULL ||
        (json_str(doc, "ended") == NULL && json_str(doc, "started") == NULL))
        return "no \"run\" and \"started\"/\"ended\"";
    if (hosts == NULL || hosts->type != JSON_ARR)
        return "no \"hosts\" list";
    for (i = 0; i < hosts->nkids; i++) {
        const json_val *h = &hosts->kids[i], *props = json_get(h, "properties");

        if (h->type != JSON_OBJ || json_str(h, "host") == NULL)
            return "a host entry without \"host\"";
        if (props && props->type != JSON_ARR)
            return "a host's \"properties\" is not a list";
    }
    return NULL;
}

static long
count(const json_val *h, const char *key)
{
    double v = json_num(h, key, -1);

    return v < 0 || v > 1e9 ? -1 : (long)v;
}

/* The time of doc's run: its end, else its start (the text, or NULL). */
static const char *
run_time(const json_val *doc)
{
    const char *ended = json_str(doc, "ended");

    return fleet_parse_time(ended) >= 0 || json_str(doc, "started") == NULL
               ? ended
               : json_str(doc, "started");
}

/* The row of one host entry e of doc (a report read from file). */
static int
fill_host(fleet_host *row, const json_val *doc, const json_val *e, const char *file, int order)
{
    const json_val *props = json_get(e, "properties");
    const char *when = run_time(doc);
    const char *err = json_str(e, "error");
    int verify = json_true(doc, "verify"), dry = json_true(doc, "dry_run");
    int failed = 0, probes = 0, drift = 0;
    size_t i;

    fleet_host_clear(row);
    row->order = order;
    row->verify = verify;
    row->epoch = fleet_parse_time(when);
    row->ms = json_num(e, "ms", -1);
    row->ok = count(e, "ok");
    row->changed = count(e, "changed");
    row->drift = count(e, "drift");
    row->failed = count(e, "failed");
    if (json_get(doc, "dirty"))
        row->dirty = json_true(doc, "dirty");
    if (fleet_set(&row->when, when) != 0 || fleet_set(&row->commit, json_str(doc, "commit")) != 0 ||
        fleet_set(&row->source, file) != 0)
        return -1;
    if (err && fleet_add_item(row,
                              json_true(e, "unreachable") ? "unreachable"
                              : json_true(e, "refused")   ? "refused"
                                                          : "error",
                              NULL, NULL, err) != 0)
        return -1;
    for (i = 0; props && i < props->nkids; i++) {
        const json_val *p = &props->kids[i];
        const char *result = json_str(p, "result"), *msg = json_str(p, "message");
        const char *kind = NULL;

        if (result == NULL)
            continue;
        if (strcmp(result, "failed") == 0) {
            failed++;
            kind = fleet_is_probe_message(msg) ? "probe failed" : "failed";
            probes += kind[0] == 'p';
        } else if (strcmp(result, "drift") == 0) {
            drift++;
            kind = "drift";
        }
        if (kind && fleet_add_item(row, kind, json_str(p, "desc"), json_str(p, "origin"), msg) != 0)
            return -1;
    }
    if (json_true(e, "not_run"))
        row->state = json_true(e, "interrupted") ? FLEET_INTERRUPTED : FLEET_NOT_RUN;
    else if (json_true(e, "unreachable") || json_true(e, "refused"))
        row->state = FLEET_UNREACHABLE;
    else if (failed || row->failed > 0 || err)
        row->state = failed && probes == failed && row->failed <= failed && !err
                         ? FLEET_PROBE_FAILED
                         : FLEET_FAILED;
    else if (json_true(e, "interrupted"))
        row->state = FLEET_INTERRUPTED;
    else if (drift || row->drift > 0 || (dry && row->changed > 0))
        row->state = FLEET_DRIFT;
    else if (row->changed > 0)
        row->state = FLEET_CHANGED;
    else
        row->state = FLEET_OK;
    return 0;
}

/* Read one report into the page: each host's row, unless the page has a
 * newer run of it.  0, EXIT_REJECTED (a message said why) or EXIT_FAILED. */
static int
load(fleet_page *pg, const char *file, int order)
{
    char *data = NULL, err[256];
    size_t len = 0, i;
    json_val doc;
    json_error je;
    const char *why;
    const json_val *hosts;

    if (slurp(file, &data, &len, err, sizeof err) != 0) {
        fprintf(stderr, "prop report: %s: %s\n", file, err);
        return EXIT_REJECTED;
    }
    if (json_parse(data, len, &doc, &je) != 0) {
        fprintf(stderr, "prop report: %s:%lu:%lu: not valid JSON: %s\n", file, je.line, je.col,
                je.msg);
        free(data);
        return EXIT_REJECTED;
    }
    free(data);
    if ((why = not_a_report(&doc)) != NULL) {
        fprintf(stderr,
                "prop report: %s: not a report of prop run --report or prop verify --report: "
                "%s\n",
                file, why);
        json_free(&doc);
        return EXIT_REJECTED;
    }
    hosts = json_get(&doc, "hosts");
    for (i = 0; i < hosts->nkids; i++) {
        const json_val *e = &hosts->kids[i];
        const char *name = json_str(e, "host");
        const char *when = run_time(&doc);
        fleet_host *row = fleet_find_host(pg, name);

        /* The newest run wins; of two at the same time, the later file
         * (and, in one file, the later entry: the second pass of --twice). */
        if (row && row->epoch > fleet_parse_time(when))
            continue;
        if ((row == NULL && (row = fleet_add_host(pg, name)) == NULL) ||
            fill_host(row, &doc, e, file, order) != 0) {
            fprintf(stderr, "prop report: out of memory\n");
            json_free(&doc);
            return EXIT_FAILED;
        }
    }
    json_free(&doc);
    return 0;
}

static int
report_run(int argc, char **argv)
{
    const char *html = NULL, *title = "prop report";
    const char **files;
    fleet_page pg;
    size_t nfiles = 0, k;
    int i, rc = EXIT_WELL, opts = 1;
    char err[4400], sub[128];

    files = calloc((size_t)argc + 1, sizeof *files);
    if (files == NULL)
        return EXIT_FAILED;
    for (i = 1; i < argc; i++) {
        const char *v;

        if (opts && cli_is_help(argv[i])) {
            free(files);
            return cli_print_help(&cmd_report);
        }
        if (opts && strcmp(argv[i], "--") == 0) {
            opts = 0;
        } else if (opts && cli_opt_value("--html", argc, argv, &i, &v)) {
            if (v == NULL || *v == '\0') {
                free(files);
                return cli_usage_error(&cmd_report, "--html wants a file name");
            }
            html = v;
        } else if (opts && cli_opt_value("--title", argc, argv, &i, &v)) {
            if (v == NULL) {
                free(files);
                return cli_usage_error(&cmd_report, "--title wants a text");
            }
            title = v;
        } else if (opts && argv[i][0] == '-' && argv[i][1] != '\0') {
            rc = cli_usage_error(&cmd_report, "unknown option %s", argv[i]);
            free(files);
            return rc;
        } else {
            files[nfiles++] = argv[i];
        }
    }
    if (nfiles == 0) {
        free(files);
        return cli_usage_error(&cmd_report, "no report named");
    }
    memset(&pg, 0, sizeof pg);
    for (k = 0; k < nfiles && rc == EXIT_WELL; k++)
        rc = load(&pg, files[k], (int)k);
    if (rc == EXIT_WELL && html) {
        snprintf(sub, sizeof sub, "from %zu report%s", nfiles, nfiles == 1 ? "" : "s");
        if (fleet_write_html(&pg, title, sub, html, err, sizeof err) != 0) {
            fprintf(stderr, "prop report: --html ");
            prop_text_puts(stderr, err, 0);
            fputc('\n', stderr);
            rc = EXIT_FAILED;
        }
    } else if (rc == EXIT_WELL) {
        fleet_print_text(&pg, stdout);
        if (fflush(stdout) != 0)
            rc = EXIT_FAILED;
    }
    fleet_page_free(&pg);
    free(files);
    return rc;
}

const cli_command cmd_report = {
    "report", report_run,
    "the fleet at a glance from saved --report files, as text or an HTML page",
    "prop report FILE.json... [--html OUT.html] [--title TEXT]"};
