/*
 * report_html.c - the fleet at a glance (report_html.h): the rows, and
 * the page made of them.  The page is one HTML file that needs nothing
 * else: its style is inline, it loads nothing, and its few lines of
 * script only sort the rows (it reads the same without them).  Every text
 * from a report or a record is escaped.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "array.h"
#include "prop/prop.h"
#include "fileio.h"
#include "report_html.h"

static const char *const state_names[FLEET_NSTATES] = {
    "ok",    "changed",     "drift",       "not run",      "never pulled",
    "stale", "interrupted", "unreachable", "probe failed", "failed"};

/* The CSS class of each state. */
static const char *const state_class[FLEET_NSTATES] = {
    "s-ok",    "s-changed",     "s-drift",       "s-notrun", "s-notrun",
    "s-stale", "s-interrupted", "s-unreachable", "s-probe",  "s-failed"};

const char *
fleet_state_name(fleet_state s)
{
    return s < FLEET_NSTATES ? state_names[s] : "?";
}

int
fleet_is_probe_message(const char *msg)
{
    return msg && (strncmp(msg, "would fail: verify", 18) == 0 || strncmp(msg, "verify:", 7) == 0);
}

/* Days since 1970-01-01 of a date of the proleptic Gregorian calendar. */
static long long
days_from_civil(long long y, unsigned m, unsigned d)
{
    long long era;
    unsigned yoe, doy, doe;

    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = (unsigned)(y - era * 400);
    doy = (153 * (m + (m > 2 ? (unsigned)-3 : 9)) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (long long)doe - 719468;
}

long long
fleet_parse_time(const char *iso)
{
    int y, mo, d, h, mi, s, n = 0;

    if (iso == NULL ||
        sscanf(iso, "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &y, &mo, &d, &h, &mi, &s, &n) != 6 || n == 0 ||
        iso[n] != '\0' || y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 ||
        s > 60 || h < 0 || mi < 0 || s < 0)
        return -1;
    return days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + s;
}

int
fleet_set(char **field, const char *s)
{
    char *c = NULL;

    if (s && (c = strdup(s)) == NULL)
        return -1;
    free(*field);
    *field = c;
    return 0;
}

static void
host_init(fleet_host *h)
{
    memset(h, 0, sizeof *h);
    h->epoch = -1;
    h->dirty = -1;
    h->ms = -1;
    h->ok = h->changed = h->drift = h->failed = -1;
}

void
fleet_host_clear(fleet_host *h)
{
    size_t i;
    char *name = h->name;

    for (i = 0; i < h->nitems; i++) {
        free(h->items[i].kind);
        free(h->items[i].desc);
        free(h->items[i].origin);
        free(h->items[i].message);
    }
    free(h->items);
    free(h->when);
    free(h->commit);
    free(h->source);
    host_init(h);
    h->name = name;
}

fleet_host *
fleet_add_host(fleet_page *pg, const char *name)
{
    fleet_host *h;

    if (prop_array_reserve(pg->hosts, pg->caphosts, pg->nhosts, 1, 8) != 0)
        return NULL;
    h = &pg->hosts[pg->nhosts];
    host_init(h);
    if ((h->name = strdup(name ? name : "?")) == NULL)
        return NULL;
    pg->nhosts++;
    return h;
}

fleet_host *
fleet_find_host(fleet_page *pg, const char *name)
{
    size_t i;

    for (i = 0; i < pg->nhosts; i++)
        if (strcmp(pg->hosts[i].name, name) == 0)
            return &pg->hosts[i];
    return NULL;
}

int
fleet_add_item(fleet_host *h, const char *kind, const char *desc, const char *origin,
               const char *message)
{
    fleet_item *it;

    if (prop_array_reserve(h->items, h->capitems, h->nitems, 1, 4) != 0)
        return -1;
    it = &h->items[h->nitems];
    memset(it, 0, sizeof *it);
    if (fleet_set(&it->kind, kind) != 0 || fleet_set(&it->desc, desc) != 0 ||
        fleet_set(&it->origin, origin) != 0 || fleet_set(&it->message, message) != 0) {
        free(it->kind);
        free(it->desc);
        free(it->origin);
        free(it->message);
        return -1;
    }
    h->nitems++;
    return 0;
}

void
fleet_page_free(fleet_page *pg)
{
    size_t i;

    for (i = 0; i < pg->nhosts; i++) {
        fleet_host_clear(&pg->hosts[i]);
        free(pg->hosts[i].name);
    }
    free(pg->hosts);
    memset(pg, 0, sizeof *pg);
}

/* ---- order: the worst first, then by name ---------------------------- */

static int
worst_first(const void *a, const void *b)
{
    const fleet_host *x = *(const fleet_host *const *)a, *y = *(const fleet_host *const *)b;

    if (x->state != y->state)
        return x->state > y->state ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* The rows in the page's order (malloc'd), or NULL. */
static const fleet_host **
sorted(const fleet_page *pg)
{
    const fleet_host **v = calloc(pg->nhosts + 1, sizeof *v);
    size_t i;

    if (v == NULL)
        return NULL;
    for (i = 0; i < pg->nhosts; i++)
        v[i] = &pg->hosts[i];
    qsort(v, pg->nhosts, sizeof *v, worst_first);
    return v;
}

/* ---- the page ------------------------------------------------------- */

/* s as HTML text (or an attribute's value): markup characters as
 * references, controls other than newline and tab as U+FFFD. */
static void
esc(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;

        switch (c) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&#39;", f);
            break;
        default:
            if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
                fputs("\xef\xbf\xbd", f);
            else
                fputc(c, f);
        }
    }
}

static void
duration(char *buf, size_t size, double ms)
{
    if (!(ms >= 0 && ms < 1e12)) /* not known (or NaN, or past any run) */
        snprintf(buf, size, "?");
    else if (ms < 1000)
        snprintf(buf, size, "%.1f ms", ms);
    else if (ms < 120000)
        snprintf(buf, size, "%.1f s", ms / 1000);
    else
        snprintf(buf, size, "%lld min %lld s", (long long)(ms / 60000),
                 (long long)(ms / 1000) % 60);
}

/* "2026-12-05 12:00:03 UTC" from the epoch, else the record's own text. */
static void
when_text(char *buf, size_t size, const fleet_host *h)
{
    struct tm tm;
    time_t t = (time_t)h->epoch;

    if (h->epoch >= 0 && gmtime_r(&t, &tm) && strftime(buf, size, "%Y-%m-%d %H:%M:%S UTC", &tm))
        return;
    snprintf(buf, size, "%s", h->when ? h->when : "?");
}

static void
counts_text(FILE *f, const fleet_host *h, int html)
{
    const char *sep = "";

#define COUNT(field, label)                                                                        \
    if (h->field >= 0) {                                                                           \
        fprintf(f, "%s%ld %s", sep, h->field, label);                                              \
        sep = html ? " \xc2\xb7 " : ", ";                                                          \
    }
    COUNT(ok, "ok");
    if (h->verify) {
        COUNT(drift, "drift");
    } else {
        COUNT(changed, "changed");
    }
    COUNT(failed, "failed");
#undef COUNT
}

static const char page_style[] =
    "<style>\n"
    ":root{color-scheme:light;font-family:system-ui,-apple-system,'Segoe UI',Roboto,"
    "'DejaVu Sans',sans-serif;}\n"
    "body{margin:0;background:#f4f5f7;color:#1d2329;}\n"
    "header{background:#1d2733;color:#f4f5f7;padding:14px 24px;}\n"
    "header h1{margin:0;font-size:1.35rem;font-weight:600;}\n"
    "header p{margin:4px 0 0;color:#b9c3cf;font-size:.9rem;}\n"
    "main{padding:16px 24px 32px;}\n"
    ".summary{font-size:1.05rem;margin:0 0 14px;line-height:1.9;}\n"
    ".summary .n{font-weight:700;margin-right:4px;}\n"
    "table{border-collapse:collapse;width:100%;background:#fff;"
    "box-shadow:0 1px 3px rgba(0,0,0,.12);}\n"
    "th,td{text-align:left;padding:7px 10px;vertical-align:top;}\n"
    "thead th{background:#e3e7ec;font-size:.85rem;text-transform:uppercase;"
    "letter-spacing:.03em;color:#3b4754;border-bottom:2px solid #c6cdd5;white-space:nowrap;}\n"
    "thead th[data-key]{cursor:pointer;}\n"
    "thead th[data-key]:hover{background:#d5dbe2;}\n"
    "tbody.host{border-top:1px solid #dde2e7;}\n"
    "tbody.host>tr.row>td{font-size:.95rem;}\n"
    "td.name{font-weight:600;}\n"
    "td.num{white-space:nowrap;}\n"
    "td.src{color:#5a6672;font-size:.85rem;overflow-wrap:break-word;}\n"
    "code{font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace;font-size:.88em;}\n"
    ".badge{display:inline-block;padding:2px 9px;border-radius:10px;font-weight:700;"
    "font-size:.85rem;white-space:nowrap;border:1px solid transparent;}\n"
    ".s-ok{background:#d7f3de;color:#0f5323;border-color:#9fd8b0;}\n"
    ".s-changed{background:#d9e9ff;color:#0b3d91;border-color:#a6c8f5;}\n"
    ".s-drift{background:#fff0c2;color:#6b4a00;border-color:#ecd17a;}\n"
    ".s-notrun{background:#eceef1;color:#3b4754;border-color:#c9cfd6;}\n"
    ".s-stale{background:#f6e3ff;color:#5b1a78;border-color:#d7acec;}\n"
    ".s-interrupted{background:#ffe4cc;color:#7a3300;border-color:#f0b988;}\n"
    ".s-unreachable{background:#3b4754;color:#fff;border-color:#3b4754;}\n"
    ".s-probe{background:#ffd6e8;color:#7d0a3f;border-color:#f19cc1;}\n"
    ".s-failed{background:#b3161b;color:#fff;border-color:#b3161b;}\n"
    "tbody.host.s-failed>tr.row>td:first-child,tbody.host.s-probe>tr.row>td:first-child,"
    "tbody.host.s-unreachable>tr.row>td:first-child{box-shadow:inset 4px 0 #b3161b;}\n"
    "tbody.host{background:#fff;border-color:#dde2e7;color:inherit;}\n"
    "tr.detail>td{padding:0 10px 10px 28px;}\n"
    "ul.items{margin:0;padding:0;list-style:none;}\n"
    "ul.items li{margin:6px 0 0;padding:6px 10px;background:#f7f8fa;border-left:3px solid "
    "#c6cdd5;}\n"
    "ul.items li.k-failed,ul.items li.k-error{border-left-color:#b3161b;}\n"
    "ul.items li.k-probe{border-left-color:#c2185b;}\n"
    "ul.items li.k-drift{border-left-color:#d4a300;}\n"
    ".kind{font-weight:700;font-size:.8rem;text-transform:uppercase;margin-right:6px;}\n"
    ".desc{font-weight:600;}\n"
    ".origin{margin-left:8px;color:#4a5663;}\n"
    "pre.msg{margin:4px 0 0;white-space:pre-wrap;word-break:break-word;"
    "font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace;font-size:.85rem;color:#3a1d1d;}\n"
    ".dirty{color:#7a3300;font-weight:700;font-size:.8rem;margin-left:4px;}\n"
    ".muted{color:#8a949e;}\n"
    "footer{padding:0 24px 24px;color:#6b7580;font-size:.8rem;}\n"
    "</style>\n";

/* Sorts the rows when a column's head is clicked (host, state, time); a
 * second click turns the order round. */
static const char page_script[] =
    "<script>\n"
    "(function(){var t=document.getElementById('hosts');if(!t||!t.querySelectorAll)return;\n"
    "var last=null,dir=1;\n"
    "function key(b,k){var v=b.getAttribute('data-'+k);return k==='host'?v:Number(v);}\n"
    "Array.prototype.forEach.call(t.querySelectorAll('th[data-key]'),function(th){\n"
    "th.title='sort';th.addEventListener('click',function(){var k=th.getAttribute('data-key');\n"
    "dir=last===k?-dir:(k==='host'?1:-1);last=k;\n"
    "var rows=Array.prototype.slice.call(t.querySelectorAll('tbody.host'));\n"
    "rows.sort(function(a,b){var x=key(a,k),y=key(b,k);\n"
    "if(x<y)return -dir;if(x>y)return dir;\n"
    "return a.getAttribute('data-host')<b.getAttribute('data-host')?-1:1;});\n"
    "rows.forEach(function(r){t.appendChild(r);});});});})();\n"
    "</script>\n";

static void
write_summary(FILE *f, const fleet_page *pg)
{
    size_t counts[FLEET_NSTATES] = {0}, i;
    int s, first = 1;

    for (i = 0; i < pg->nhosts; i++)
        if (pg->hosts[i].state < FLEET_NSTATES)
            counts[pg->hosts[i].state]++;
    fprintf(f, "<p class=\"summary\" id=\"summary\"><span class=\"n\">%zu host%s:</span>",
            pg->nhosts, pg->nhosts == 1 ? "" : "s");
    for (s = FLEET_NSTATES - 1; s >= 0; s--) {
        if (counts[s] == 0)
            continue;
        fprintf(f, "%s<span class=\"badge %s\">%zu %s</span>", first ? " " : ", ", state_class[s],
                counts[s], state_names[s]);
        first = 0;
    }
    if (first)
        fputs(" <span class=\"muted\">none</span>", f);
    fputs("</p>\n", f);
}

static void
write_host(FILE *f, const fleet_host *h)
{
    char when[64], dur[64];
    size_t i;

    when_text(when, sizeof when, h);
    duration(dur, sizeof dur, h->ms);
    fprintf(f, "<tbody class=\"host %s\" data-host=\"", state_class[h->state]);
    esc(f, h->name);
    fprintf(f, "\" data-state=\"%d\" data-time=\"%lld\">\n<tr class=\"row\"><td class=\"name\">",
            (int)h->state, h->epoch);
    esc(f, h->name);
    fprintf(f, "</td><td><span class=\"badge %s\">%s</span></td><td class=\"num\">",
            state_class[h->state], state_names[h->state]);
    if (strcmp(when, "?") == 0)
        fputs("<span class=\"muted\">?</span>", f);
    else
        esc(f, when);
    fputs("</td><td>", f);
    if (h->commit) {
        char c12[13];

        snprintf(c12, sizeof c12, "%s", h->commit);
        fputs("<code title=\"", f);
        esc(f, h->commit);
        fputs("\">", f);
        esc(f, c12);
        fputs("</code>", f);
        if (h->dirty == 1)
            fputs("<span class=\"dirty\" title=\"the site had changes not committed\">"
                  "+dirty</span>",
                  f);
    } else {
        fputs("<span class=\"muted\">?</span>", f);
    }
    fprintf(f, "</td><td class=\"num\">%s%s%s</td><td class=\"num\">",
            dur[0] == '?' ? "<span class=\"muted\">" : "", dur, dur[0] == '?' ? "</span>" : "");
    counts_text(f, h, 1);
    fputs("</td><td class=\"src\">", f);
    esc(f, h->source ? h->source : "");
    fputs("</td></tr>\n", f);
    if (h->nitems) {
        fputs("<tr class=\"detail\"><td colspan=\"7\"><ul class=\"items\">\n", f);
        for (i = 0; i < h->nitems; i++) {
            const fleet_item *it = &h->items[i];
            const char *k = it->kind ? it->kind : "";

            fprintf(f, "<li class=\"%s\"><span class=\"kind\">",
                    strcmp(k, "probe failed") == 0 ? "k-probe"
                    : strcmp(k, "drift") == 0      ? "k-drift"
                    : strcmp(k, "failed") == 0     ? "k-failed"
                                                   : "k-error");
            esc(f, k);
            fputs("</span>", f);
            if (it->desc) {
                fputs("<span class=\"desc\">", f);
                esc(f, it->desc);
                fputs("</span>", f);
            }
            if (it->origin) {
                fputs("<code class=\"origin\">", f);
                esc(f, it->origin);
                fputs("</code>", f);
            }
            if (it->message) {
                fputs("<pre class=\"msg\">", f);
                esc(f, it->message);
                fputs("</pre>", f);
            }
            fputs("</li>\n", f);
        }
        fputs("</ul></td></tr>\n", f);
    }
    fputs("</tbody>\n", f);
}

static int
write_page(FILE *f, const fleet_page *pg, const char *title, const char *subtitle)
{
    const fleet_host **rows = sorted(pg);
    char now[64];
    time_t t = time(NULL);
    struct tm tm;
    size_t i;

    if (rows == NULL)
        return -1;
    if (gmtime_r(&t, &tm) == NULL || strftime(now, sizeof now, "%Y-%m-%d %H:%M:%S UTC", &tm) == 0)
        snprintf(now, sizeof now, "?");
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n<title>",
          f);
    esc(f, title);
    fputs("</title>\n", f);
    fputs(page_style, f);
    fputs("</head>\n<body>\n<header><h1>", f);
    esc(f, title);
    fputs("</h1><p>", f);
    if (subtitle && *subtitle) {
        esc(f, subtitle);
        fputs(" \xc2\xb7 ", f);
    }
    fprintf(f, "made %s</p></header>\n<main>\n", now);
    write_summary(f, pg);
    fputs("<table id=\"hosts\">\n<thead><tr><th data-key=\"host\">Host</th>"
          "<th data-key=\"state\">State</th><th data-key=\"time\">Last run</th>"
          "<th>Commit</th><th>Duration</th><th>Properties</th><th>From</th></tr></thead>\n",
          f);
    for (i = 0; i < pg->nhosts; i++)
        write_host(f, rows[i]);
    fputs("</table>\n</main>\n<footer>Sorted by state, the worst first. "
          "Click a column's head (host, state, last run) to sort by it.</footer>\n",
          f);
    fputs(page_script, f);
    fputs("</body>\n</html>\n", f);
    free(rows);
    return 0;
}

int
fleet_write_html(const fleet_page *pg, const char *title, const char *subtitle, const char *path,
                 char *err, size_t errsize)
{
    char *doc = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&doc, &len);
    mode_t um = umask(0);
    prop_atomic_stage stage = PROP_ATOMIC_WRITE;
    int ok, e = ENOMEM;

    umask(um);
    ok = m != NULL && write_page(m, pg, title, subtitle) == 0;
    if (m && fclose(m) != 0)
        ok = 0;
    if (ok) {
        e = prop_write_file_atomic(path, doc, len, 0666 & ~um, (uid_t)-1, (gid_t)-1, &stage);
        if (e != 0 && stage == PROP_ATOMIC_DIR)
            e = 0; /* written; its directory not synced */
    }
    free(doc);
    if (e != 0) {
        if (stage == PROP_ATOMIC_TEMP)
            snprintf(err, errsize, "%s: cannot write there: %s", path, strerror(e));
        else
            snprintf(err, errsize, "%s: cannot write it: %s", path, strerror(e));
        return -1;
    }
    return 0;
}

void
fleet_print_text(const fleet_page *pg, FILE *f)
{
    const fleet_host **rows = sorted(pg);
    size_t i, k;

    if (rows == NULL)
        return;
    for (i = 0; i < pg->nhosts; i++) {
        const fleet_host *h = rows[i];
        char when[64], dur[64];

        when_text(when, sizeof when, h);
        duration(dur, sizeof dur, h->ms);
        prop_text_puts(f, h->name, 0);
        fprintf(f, ": %s at %s in %s", state_names[h->state], when, dur);
        if (h->commit)
            fprintf(f, ", commit %.12s%s", h->commit, h->dirty == 1 ? " (dirty)" : "");
        if (h->ok >= 0 || h->changed >= 0 || h->drift >= 0 || h->failed >= 0) {
            fputs(": ", f);
            counts_text(f, h, 0);
        }
        if (h->source) {
            fputs(" (from ", f);
            prop_text_puts(f, h->source, 0);
            fputc(')', f);
        }
        fputc('\n', f);
        for (k = 0; k < h->nitems; k++) {
            const fleet_item *it = &h->items[k];

            fputs("  ", f);
            prop_text_puts(f, it->kind ? it->kind : "?", 0);
            fputs(": ", f);
            if (it->desc)
                prop_text_puts(f, it->desc, 0);
            else if (!it->origin && !it->message)
                fputc('?', f);
            if (it->origin) {
                fputs(" (", f);
                prop_text_puts(f, it->origin, 0);
                fputc(')', f);
            }
            if (it->message) {
                fputs(it->desc || it->origin ? ": " : "", f);
                prop_text_puts(f, it->message, 0);
            }
            fputc('\n', f);
        }
    }
    free(rows);
}
