/*
 * report_html.h - the fleet at a glance: a row for each host (its state,
 * its last run, the site's commit, the duration, the properties that
 * failed under it), written as one self-contained HTML page (prop report
 * --html, prop status --html) or as text lines (prop report).
 */
#ifndef PROP_REPORT_HTML_H
#define PROP_REPORT_HTML_H

#include <stdio.h>

/* A host's state, from the best to the worst (the page's default order is
 * the worst first). */
typedef enum {
    FLEET_OK,
    FLEET_CHANGED,
    FLEET_DRIFT,
    FLEET_NOT_RUN,
    FLEET_NEVER_PULLED,
    FLEET_STALE,
    FLEET_INTERRUPTED,
    FLEET_UNREACHABLE,
    FLEET_PROBE_FAILED,
    FLEET_FAILED,
    FLEET_NSTATES
} fleet_state;

/* What is shown under a host: a property that failed or drifted, or the
 * host's own error (no desc, no origin). */
typedef struct fleet_item {
    char *kind; /* "failed", "probe failed", "drift", "error", ... */
    char *desc, *origin, *message;
} fleet_item;

typedef struct fleet_host {
    char *name;
    fleet_state state;
    char *when;                      /* the run's time as the record has it (UTC), or NULL */
    long long epoch;                 /* the same in seconds, -1 when not known */
    char *commit;                    /* the site's commit, or NULL */
    int dirty;                       /* 1, 0, or -1 when not known */
    double ms;                       /* the host's duration, < 0 when not known */
    int verify;                      /* counts are ok/drift/failed, not ok/changed/failed */
    long ok, changed, drift, failed; /* < 0: not known */
    char *source;                    /* the file the row came from */
    int order;                       /* which of the files (later wins a tie) */
    fleet_item *items;
    size_t nitems, capitems;
} fleet_host;

typedef struct fleet_page {
    fleet_host *hosts;
    size_t nhosts, caphosts;
} fleet_page;

const char *fleet_state_name(fleet_state s);
/* A failed property's message that tells of its verify= probe failing
 * ("would fail: verify..." or "verify:..."). */
int fleet_is_probe_message(const char *msg);
/* "2026-12-05T12:00:00Z" in seconds, or -1. */
long long fleet_parse_time(const char *iso);

/* A new row (zeroed, counts and times unknown) named name; NULL when out
 * of memory.  The pointer lasts until the next fleet_add_host. */
fleet_host *fleet_add_host(fleet_page *pg, const char *name);
/* The row named name, or NULL. */
fleet_host *fleet_find_host(fleet_page *pg, const char *name);
/* Empty a row (keeps nothing; the page still counts it). */
void fleet_host_clear(fleet_host *h);
/* Copy s (NULL stays NULL) into *field, freeing what was there; 0 or -1. */
int fleet_set(char **field, const char *s);
/* Add an item under h; any of the strings may be NULL.  0 or -1. */
int fleet_add_item(fleet_host *h, const char *kind, const char *desc, const char *origin,
                   const char *message);
void fleet_page_free(fleet_page *pg);

/*
 * Write the page as one HTML file at path, atomically (a temporary file
 * beside it, renamed over it): title and subtitle head it.  0, or -1 with
 * why in err (path and the reason).
 */
int fleet_write_html(const fleet_page *pg, const char *title, const char *subtitle,
                     const char *path, char *err, size_t errsize);
/* The same rows as text, the worst first: a line per host, one per item. */
void fleet_print_text(const fleet_page *pg, FILE *f);

#endif
