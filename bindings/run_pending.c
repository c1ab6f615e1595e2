/*
 * run_pending.c - prop run's owed triggers: a shared trigger target that
 * is owed (something triggered it, and it has not run yet) is kept on
 * the target, in the pending file of its state directory (/var/lib/prop,
 * or PROP_STATE_DIR), so that a run stopped before it runs leaves it to
 * the next run; the records are read at the start of each host's run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "run.h"

/* Where a target keeps the trigger targets owed from an earlier run. */
#define STATE_DIR "/var/lib/prop"
static char state_dir[1024] = STATE_DIR; /* PROP_STATE_DIR, when set */
static char pending_path[1100] = STATE_DIR "/pending";
#define PENDING_PATH pending_path

/*
 * PROP_STATE_DIR, when set: where a target keeps prop's state.  0, or
 * EXIT_USAGE after printing why.
 */
int
run_state_dir_from_env(void)
{
    /* Where a target keeps prop's state: an absolute path, as
     * transports take them (no "//", ".", ".." or trailing '/'). */
    const char *sd = getenv("PROP_STATE_DIR");

    if (sd && *sd) {
        size_t l = strlen(sd);

        if (sd[0] != '/' || l < 2 || l >= sizeof state_dir || sd[l - 1] == '/' ||
            strstr(sd, "//") || strstr(sd, "/./") || strstr(sd, "/../") ||
            (l >= 2 && strcmp(sd + l - 2, "/.") == 0) ||
            (l >= 3 && strcmp(sd + l - 3, "/..") == 0)) {
            cli_usage_error(&cmd_run,
                            "PROP_STATE_DIR=%s: an absolute path is wanted, without \"//\", "
                            "\".\", \"..\" or a trailing \"/\"",
                            sd);
            return EXIT_USAGE;
        }
        snprintf(state_dir, sizeof state_dir, "%s", sd);
        snprintf(pending_path, sizeof pending_path, "%s/pending", sd);
    }
    return 0;
}

const char *
run_pending_path(void)
{
    return PENDING_PATH;
}

/*
 * Write hr->pending to PENDING_PATH on the target (atomically), or remove
 * the file when nothing is owed.  0, or -1 with why.
 */
static int
pending_save(host_run *hr, char *why, size_t wsize)
{
    const prop_file_attrs dattrs = {0755, NULL, NULL}, fattrs = {0600, NULL, NULL};
    prop_file_stat st;
    char *data = NULL, dir[sizeof state_dir];
    size_t len = 0, i;
    int rc;

    if (prop_pending_count(hr->pending) == 0) {
        memset(&st, 0, sizeof st);
        rc = prop_transport_stat(hr->t, PENDING_PATH, &st);
        if (rc == PROP_ENOTFOUND || (rc == PROP_OK && st.type == PROP_FT_NONE))
            return 0;
        if (prop_transport_remove(hr->t, PENDING_PATH) == PROP_OK)
            return 0;
        snprintf(why, wsize, "%s", prop_transport_error(hr->t));
        return -1;
    }
    /* The state directory and those above it, made as needed. */
    for (i = 1; state_dir[i - 1] != '\0'; i++) {
        if (state_dir[i] != '/' && state_dir[i] != '\0')
            continue;
        memcpy(dir, state_dir, i);
        dir[i] = '\0';
        memset(&st, 0, sizeof st);
        rc = prop_transport_stat(hr->t, dir, &st);
        if (rc == PROP_ENOTFOUND || (rc == PROP_OK && st.type == PROP_FT_NONE))
            rc = prop_transport_mkdir(hr->t, dir, &dattrs);
        if (rc != PROP_OK) {
            snprintf(why, wsize, "%s", prop_transport_error(hr->t));
            return -1;
        }
    }
    if (prop_pending_format(hr->pending, &data, &len) != PROP_OK) {
        snprintf(why, wsize, "out of memory");
        return -1;
    }
    rc = prop_transport_write(hr->t, PENDING_PATH, data, len, &fattrs);
    free(data);
    /* Owed before the trigger runs: the record lasts a crash now, not at
     * the end of the host. */
    if (rc == PROP_OK)
        rc = prop_transport_sync(hr->t);
    if (rc != PROP_OK) {
        snprintf(why, wsize, "%s", prop_transport_error(hr->t));
        return -1;
    }
    return 0;
}

/* The executor's owe(): keep (or forget) n as owed on the target. */
void
run_on_owe(void *ud, const prop_node *n, int owed)
{
    host_run *hr = ud;
    char where[1200], why[1200], line[2600];
    int len, rc;

    if (hr->o->dry || hr->pending == NULL)
        return;
    prop_node_origin_text(n, where, sizeof where);
    if (owed) {
        rc = prop_pending_add(hr->pending, hr->name, prop_node_desc(n), where);
        if (rc != PROP_OK) {
            snprintf(why, sizeof why, "%s",
                     rc == PROP_ENOMEM ? "out of memory" : "its record would be too long");
            goto warn;
        }
    } else if (prop_pending_remove(hr->pending, hr->name, prop_node_desc(n), where) == 0) {
        return;
    }
    /* The record's own write is waited for, whatever the property's. */
    if (hr->deferring)
        (void)prop_transport_defer(hr->t, 0);
    rc = pending_save(hr, why, sizeof why);
    if (hr->deferring)
        (void)prop_transport_defer(hr->t, 1);
    if (rc == 0)
        return;
warn:
    len = snprintf(line, sizeof line,
                   "warning: cannot keep the owed trigger \"%s\" in %s: %s (a run stopped before "
                   "it runs will not run it)",
                   prop_node_desc(n), PENDING_PATH, why);
    if (len > 0)
        lsys_note(&hr->sys, line, (size_t)len < sizeof line ? (size_t)len : sizeof line - 1);
}

/* How much of a record's text a warning shows. */
#define EXCERPT_MAX 120
/* How many dropped records are named one by one; the rest are counted. */
#define DROPPED_SHOWN 10

/*
 * s[0..len) for a message: at most EXCERPT_MAX bytes of it (cut at a
 * character boundary), then how long it was.  Into buf (size > 200).
 */
static const char *
excerpt(const char *s, size_t len, char *buf, size_t size)
{
    size_t n = len;

    if (n <= EXCERPT_MAX) {
        snprintf(buf, size, "%.*s", (int)n, s);
        return buf;
    }
    n = EXCERPT_MAX;
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
        n--;
    snprintf(buf, size, "%.*s... (%zu bytes)", (int)n, s, len);
    return buf;
}

/* The text of line `line` (1-based) of data[0..len), and its length. */
static const char *
line_of(const char *data, size_t len, unsigned line, size_t *l)
{
    const char *s = data, *end = data + len, *nl;

    while (--line > 0 && (nl = memchr(s, '\n', (size_t)(end - s))) != NULL)
        s = nl + 1;
    nl = memchr(s, '\n', (size_t)(end - s));
    *l = nl ? (size_t)(nl - s) : (size_t)(end - s);
    return s;
}

/*
 * Read PENDING_PATH on the target into hr->pending, and list this host's
 * records in *owed (malloc'd, *nowed of them; pointing into
 * hr->pending).  A file that cannot be read, or is not a regular file,
 * leaves hr->pending NULL (it is then never written) with a warning; one
 * over PROP_PENDING_FILE_MAX is not read: it is removed (by a real run)
 * with a warning.  0, or -1 out of memory.
 */
int
run_pending_load(host_run *hr, prop_owed **owed, size_t *nowed)
{
    prop_file_stat st;
    char *data = NULL, why[1200], ex[EXCERPT_MAX * 2 + 64];
    size_t len = 0, i, n;
    unsigned bad = 0;
    int rc;

    *owed = NULL;
    *nowed = 0;
    memset(&st, 0, sizeof st);
    rc = prop_transport_stat(hr->t, PENDING_PATH, &st);
    if (rc == PROP_ENOTFOUND || (rc == PROP_OK && st.type == PROP_FT_NONE))
        return prop_pending_new(&hr->pending) == PROP_OK ? 0 : -1;
    /* Something else there (a pipe would never end, a link may name
     * anything): the record is prop's own regular file, or none. */
    if (rc == PROP_OK && st.type != PROP_FT_FILE) {
        fprintf(stderr,
                "prop run: %s: warning: %s is not a regular file; owed triggers are not kept\n",
                hr->name, PENDING_PATH);
        return 0;
    }
    if (rc == PROP_OK && st.size <= (long long)PROP_PENDING_FILE_MAX)
        rc = prop_transport_read(hr->t, PENDING_PATH, &data, &len);
    if (rc != PROP_OK) {
        fprintf(stderr, "prop run: %s: warning: cannot read %s: %s; owed triggers are not kept\n",
                hr->name, PENDING_PATH, prop_transport_error(hr->t));
        return 0;
    }
    if (data == NULL || len > PROP_PENDING_FILE_MAX) {
        fprintf(stderr,
                "prop run: %s: warning: %s is %lld bytes, more than the %u a record of owed "
                "triggers may be: none of it is read, and %s\n",
                hr->name, PENDING_PATH, data ? (long long)len : st.size,
                (unsigned)PROP_PENDING_FILE_MAX,
                hr->o->dry ? "a real run removes it" : "it is removed");
        free(data);
        if (prop_pending_new(&hr->pending) != PROP_OK)
            return -1;
        if (!hr->o->dry && pending_save(hr, why, sizeof why) != 0)
            fprintf(stderr, "prop run: %s: warning: cannot remove %s: %s\n", hr->name, PENDING_PATH,
                    why);
        return 0;
    }
    rc = prop_pending_parse(data, len, &hr->pending, &bad);
    if (rc == PROP_OK && bad) {
        size_t l;
        const char *s = line_of(data, len, bad, &l);

        fprintf(stderr, "prop run: %s: warning: %s:%u: not a record of an owed trigger (skipped): ",
                hr->name, PENDING_PATH, bad);
        prop_text_puts(stderr, excerpt(s, l, ex, sizeof ex), 0);
        fputc('\n', stderr);
    }
    free(data);
    if (rc != PROP_OK)
        return -1;
    n = prop_pending_count(hr->pending);
    if (n && !(*owed = calloc(n, sizeof **owed)))
        return -1;
    for (i = 0; i < n; i++) {
        const char *host, *desc, *origin;

        prop_pending_get(hr->pending, i, &host, &desc, &origin);
        if (strcmp(host, hr->name) != 0)
            continue;
        (*owed)[*nowed].desc = desc;
        (*owed)[*nowed].origin = origin;
        (*nowed)++;
    }
    return 0;
}

/*
 * After prop_triggers_new_owed: say what is owed from the last run, and
 * drop (with a warning) what the site no longer has, or never had (a
 * record nothing in the site could have written); a record found under
 * another origin is named by its target's from now on.  Linear in the
 * number of records and of the targets they name; a target is named
 * once (its other records go), the first DROPPED_SHOWN dropped records
 * are named in text, the rest counted, and a long record is shown cut.
 */
void
run_pending_report(host_run *hr, prop_owed *owed, size_t nowed)
{
    char where[1200], why[1200], ex[2][EXCERPT_MAX * 2 + 64];
    size_t i, j = 0, k, n = prop_pending_count(hr->pending), dropped = 0, dups = 0;
    size_t nshown = 0, shown_cap = 0;
    unsigned char *drop = n ? calloc(n, 1) : NULL;
    const prop_node **shown = NULL; /* the targets named so far */

    if (n && !drop) {
        fprintf(stderr, "prop run: %s: warning: out of memory; owed triggers not reported\n",
                hr->name);
        return;
    }
    for (i = 0; i < nowed; i++) {
        const char *d = NULL;

        /* owed[] points into the records, in their order: its record. */
        for (; j < n; j++) {
            prop_pending_get(hr->pending, j, NULL, &d, NULL);
            if (d == owed[i].desc)
                break;
        }
        if (j == n)
            break; /* cannot be: owed[] was made from these records */
        /* Several records for one target (the same one, under other
         * origins): the first stands for them all, the others go. */
        if (owed[i].target) {
            for (k = 0; k < nshown && shown[k] != owed[i].target; k++)
                ;
            if (k < nshown) {
                drop[j++] = 1;
                dups++;
                continue;
            }
            if (prop_array_reserve(shown, shown_cap, nshown, 1, 8) != 0) {
                fprintf(stderr, "prop run: %s: warning: out of memory\n", hr->name);
                break;
            }
            shown[nshown++] = owed[i].target;
        }
        excerpt(owed[i].desc, strlen(owed[i].desc), ex[0], sizeof ex[0]);
        excerpt(owed[i].origin, strlen(owed[i].origin), ex[1], sizeof ex[1]);
        if (owed[i].target)
            prop_node_origin_text(owed[i].target, where, sizeof where);
        if (hr->o->json) {
            run_json_event(stdout, owed[i].target ? "pending" : "pending_dropped");
            run_json_host(hr->h);
            fputs(",\"desc\":", stdout);
            run_json_str(owed[i].target ? owed[i].desc : ex[0]);
            fputs(",\"origin\":", stdout);
            run_json_str(owed[i].target ? where : ex[1]);
            if (hr->o->dry)
                fputs(",\"dry_run\":true", stdout);
            fputs("}\n", stdout);
        } else if (owed[i].target) {
            printf("%s  %s: ", hr->name, PENDING_TEXT);
            run_text(owed[i].desc);
            fputs(" (", stdout);
            run_text(where);
            printf(")%s\n", hr->o->dry ? ": would run" : "");
        } else if (dropped < DROPPED_SHOWN) {
            printf("%s  %swarning%s: %s: ", hr->name, hr->color ? "\033[1;35m" : "",
                   hr->color ? "\033[0m" : "", PENDING_TEXT);
            run_text(ex[0]);
            fputs(" (", stdout);
            run_text(ex[1]);
            printf("): the site has no trigger target so described any more; %s\n",
                   hr->o->dry ? "a real run drops it" : "dropped");
        }
        if (!owed[i].target) {
            drop[j] = 1;
            dropped++;
        } else if (strcmp(where, owed[i].origin) != 0) {
            (void)prop_pending_set_origin(hr->pending, j, where);
        }
        j++;
    }
    if (!hr->o->json && dropped > DROPPED_SHOWN)
        printf(
            "%s  %swarning%s: %s: %zu more records for which the site has no trigger target; %s\n",
            hr->name, hr->color ? "\033[1;35m" : "", hr->color ? "\033[0m" : "", PENDING_TEXT,
            dropped - DROPPED_SHOWN, hr->o->dry ? "a real run drops them" : "dropped");
    if (!hr->o->dry && (dropped || dups)) {
        (void)prop_pending_sweep(hr->pending, drop);
        if (pending_save(hr, why, sizeof why) != 0)
            fprintf(stderr, "prop run: %s: warning: cannot write %s: %s\n", hr->name, PENDING_PATH,
                    why);
    }
    free(shown);
    free(drop);
}
