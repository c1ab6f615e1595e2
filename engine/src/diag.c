/*
 * diag.c - recording, sorting and printing diagnostics.
 *
 * Ownership: every diagnostic, note and message lives in the site's arena,
 * like the nodes they talk about.  Sorting and printing borrow scratch
 * memory from malloc and give it back before returning.
 *
 * A diagnostic is built in three steps (diag_begin, diag_note..., diag_end)
 * so that the pre-pass can add one note per place involved; diag_end then
 * appends a "called from here" note for each outer frame of the origin,
 * innermost first, and only then makes the diagnostic visible.
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "internal.h"

/* The place of frames[0] of o, or no place (NULL, 0) when o has none. */
static void
place_of(const prop_origin *o, const char **file, int *line)
{
    if (o != NULL && o->nframes > 0 && o->frames != NULL) {
        *file = o->frames[0].file;
        *line = o->frames[0].line;
    } else {
        *file = NULL;
        *line = 0;
    }
}

/*
 * Start a diagnostic at o with a printf-style message.  On failure (no
 * memory, bad code) b->d stays NULL, the site's error is set, and the
 * later diag_note/diag_end calls on b return the same failure.
 */
int
diag_begin(diag_builder *b, prop_site *s, const char *code, prop_severity sev, const prop_origin *o,
           const char *fmt, ...)
{
    prop_diag *d;
    va_list ap;

    b->site = s;
    b->d = NULL;
    b->notes.v = NULL;
    b->notes.n = b->notes.cap = 0;
    b->origin = o;
    if (code == NULL || strlen(code) >= sizeof d->code)
        return site_fail(s, PROP_EINVAL, "bad diagnostic code");
    d = arena_zalloc(&s->mem, sizeof *d);
    if (d == NULL)
        return site_fail(s, PROP_ENOMEM, "out of memory recording a diagnostic");
    strcpy(d->code, code);
    d->severity = sev;
    place_of(o, &d->file, &d->line);
    va_start(ap, fmt);
    d->message = arena_vprintf(&s->mem, fmt, ap);
    va_end(ap);
    if (d->message == NULL)
        return site_fail(s, PROP_ENOMEM, "out of memory recording a diagnostic");
    b->d = d;
    return PROP_OK;
}

/* Add a note at a place (file and line); file NULL means no place. */
static int
add_note(diag_builder *b, const char *file, int line, const char *message)
{
    prop_note *n = arena_alloc(&b->site->mem, sizeof *n);

    if (n == NULL)
        return PROP_ENOMEM;
    n->file = file;
    n->line = line;
    n->message = message;
    if (ptrvec_push(&b->site->mem, &b->notes, n) != 0)
        return PROP_ENOMEM;
    return PROP_OK;
}

/* Add a note at frames[0] of o (no place when o has none). */
int
diag_note(diag_builder *b, const prop_origin *o, const char *fmt, ...)
{
    const char *file;
    const char *msg;
    int line;
    va_list ap;

    if (b->d == NULL)
        return PROP_ERROR;
    place_of(o, &file, &line);
    va_start(ap, fmt);
    msg = arena_vprintf(&b->site->mem, fmt, ap);
    va_end(ap);
    if (msg == NULL || add_note(b, file, line, msg) != PROP_OK) {
        b->d = NULL;
        return site_fail(b->site, PROP_ENOMEM, "out of memory recording a diagnostic");
    }
    return PROP_OK;
}

/*
 * Finish the diagnostic: add the "called from here" notes, copy the notes
 * into one array and append the diagnostic to the site.  A builder whose
 * earlier steps failed records nothing and returns the failure.
 */
int
diag_end(diag_builder *b)
{
    prop_site *s = b->site;
    prop_diag *d = b->d;
    prop_note *notes = NULL;
    unsigned i;

    if (d == NULL)
        return PROP_ERROR;
    b->d = NULL;
    if (b->origin != NULL && b->origin->frames != NULL) {
        for (i = 1; i < b->origin->nframes; i++) {
            const prop_frame *f = &b->origin->frames[i];
            if (add_note(b, f->file, f->line, "called from here") != PROP_OK)
                goto nomem;
        }
    }
    if (b->notes.n > 0) {
        size_t k;

        if (b->notes.n > (size_t)-1 / sizeof *notes)
            goto nomem;
        notes = arena_alloc(&s->mem, b->notes.n * sizeof *notes);
        if (notes == NULL)
            goto nomem;
        for (k = 0; k < b->notes.n; k++)
            notes[k] = *(const prop_note *)b->notes.v[k];
    }
    d->notes = notes;
    d->nnotes = b->notes.n;
    if (ptrvec_push(&s->mem, &s->diags, d) != 0)
        goto nomem;
    if (d->severity == PROP_SEV_ERROR)
        s->nerrors++;
    else
        s->nwarnings++;
    return PROP_OK;
nomem:
    return site_fail(s, PROP_ENOMEM, "out of memory recording a diagnostic");
}

int
prop_site_report(prop_site *s, const char *code, prop_severity sev, const prop_origin *o,
                 const char *message)
{
    diag_builder b;
    int rc;

    if (s == NULL || code == NULL || message == NULL)
        return PROP_EINVAL;
    if (sev != PROP_SEV_ERROR && sev != PROP_SEV_WARNING)
        return site_fail(s, PROP_EINVAL, "bad diagnostic severity");
    /* The caller's frames may be gone once we return: keep a copy. */
    if (o != NULL) {
        o = site_origin_copy(s, o);
        if (o == NULL)
            return PROP_ENOMEM;
    }
    rc = diag_begin(&b, s, code, sev, o, "%s", message);
    if (rc != PROP_OK)
        return rc;
    return diag_end(&b);
}

size_t
prop_site_ndiags(const prop_site *s)
{
    return s ? s->diags.n : 0;
}

const prop_diag *
prop_site_diag(const prop_site *s, size_t i)
{
    if (s == NULL || i >= s->diags.n)
        return NULL;
    return s->diags.v[i];
}

size_t
prop_site_nerrors(const prop_site *s, int werror)
{
    if (s == NULL)
        return 0;
    return s->nerrors + (werror ? s->nwarnings : 0);
}

size_t
prop_site_nwarnings(const prop_site *s)
{
    return s ? s->nwarnings : 0;
}

/* ---- sorting ---- */

typedef struct sort_item {
    prop_diag *d;
    size_t index; /* position before sorting: keeps the sort stable */
} sort_item;

static int
cmp_items(const void *pa, const void *pb)
{
    const sort_item *a = pa, *b = pb;
    int c;

    if ((a->d->file == NULL) != (b->d->file == NULL))
        return a->d->file == NULL ? 1 : -1;
    if (a->d->file != NULL && a->d->file != b->d->file) {
        c = strcmp(a->d->file, b->d->file);
        if (c != 0)
            return c;
    }
    if (a->d->line != b->d->line)
        return a->d->line < b->d->line ? -1 : 1;
    c = strcmp(a->d->code, b->d->code);
    if (c != 0)
        return c;
    return a->index < b->index ? -1 : a->index > b->index;
}

/*
 * Sort the site's diagnostics by file, line and code, keeping the order of
 * equal ones; diagnostics without a file go last.  Fails only when the
 * scratch array cannot be allocated (the order is then left as it was).
 */
int
diag_sort(prop_site *s)
{
    sort_item *items;
    size_t i, n = s->diags.n;

    if (n < 2)
        return PROP_OK;
    if (n > (size_t)-1 / sizeof *items)
        return site_fail(s, PROP_ENOMEM, "out of memory sorting diagnostics");
    items = prop_malloc(n * sizeof *items);
    if (items == NULL)
        return site_fail(s, PROP_ENOMEM, "out of memory sorting diagnostics");
    for (i = 0; i < n; i++) {
        items[i].d = s->diags.v[i];
        items[i].index = i;
    }
    qsort(items, n, sizeof *items, cmp_items);
    for (i = 0; i < n; i++)
        s->diags.v[i] = items[i].d;
    free(items);
    return PROP_OK;
}

/* ---- printing ---- */

#define C_BOLD "\033[1m"
#define C_RED "\033[1;31m"
#define C_MAGENTA "\033[1;35m"
#define C_CYAN "\033[1;36m"
#define C_RESET "\033[0m"

/* "file:line: " (bold when colour is on), or nothing without a place. */
static int
print_place(FILE *f, const char *file, int line, int color)
{
    if (file == NULL)
        return 0;
    if (fputs(color ? C_BOLD : "", f) == EOF || prop_text_puts(f, file, 0) != PROP_OK)
        return -1;
    if (line > 0)
        return fprintf(f, ":%d:%s ", line, color ? C_RESET : "");
    return fprintf(f, ":%s ", color ? C_RESET : "");
}

/*
 * Print every diagnostic GCC-style.  Returns 0, or PROP_ERROR when the
 * stream reports a write error.
 */
int
prop_diags_print_text(const prop_site *s, FILE *f, int color, int werror)
{
    size_t i, k;

    if (s == NULL || f == NULL)
        return PROP_EINVAL;
    for (i = 0; i < s->diags.n; i++) {
        const prop_diag *d = s->diags.v[i];
        int error = d->severity == PROP_SEV_ERROR || werror;
        const char *src;
        size_t len = 0;

        if (print_place(f, d->file, d->line, color) < 0)
            return PROP_ERROR;
        /* Messages quote the site (descriptions, paths, error text) and
         * the source line is the site's: shown, never obeyed. */
        if (fprintf(f, "%s%s[%s]%s: ", color ? (error ? C_RED : C_MAGENTA) : "",
                    error ? "error" : "warning", d->code, color ? C_RESET : "") < 0 ||
            prop_text_puts(f, d->message, 0) != PROP_OK || putc('\n', f) == EOF)
            return PROP_ERROR;
        src = d->file ? prop_site_source_line(s, d->file, d->line, &len) : NULL;
        if (src != NULL) {
            if (len > (size_t)1 << 20)
                len = (size_t)1 << 20;
            if (len > 0 && src[len - 1] == '\r')
                len--; /* a file with CRLF line ends */
            if (fprintf(f, "%5d | ", d->line) < 0 ||
                prop_text_write(f, src, len, PROP_TEXT_LINES) != PROP_OK || putc('\n', f) == EOF)
                return PROP_ERROR;
        }
        for (k = 0; k < d->nnotes; k++) {
            const prop_note *n = &d->notes[k];

            if (print_place(f, n->file, n->line, color) < 0)
                return PROP_ERROR;
            if (fprintf(f, "%snote%s: ", color ? C_CYAN : "", color ? C_RESET : "") < 0 ||
                prop_text_puts(f, n->message, 0) != PROP_OK || putc('\n', f) == EOF)
                return PROP_ERROR;
        }
    }
    return fflush(f) == EOF ? PROP_ERROR : PROP_OK;
}

/* "file":"x","line":n  or  "file":null,"line":null */
static int
print_json_place(FILE *f, const char *file, int line)
{
    if (fputs("\"file\":", f) == EOF)
        return PROP_ERROR;
    if (file == NULL)
        return fputs("null,\"line\":null", f) == EOF ? PROP_ERROR : PROP_OK;
    if (prop_json_write_string(f, file, strlen(file)) != PROP_OK)
        return PROP_ERROR;
    return fprintf(f, ",\"line\":%d", line) < 0 ? PROP_ERROR : PROP_OK;
}

static int
print_json_field(FILE *f, const char *name, const char *value)
{
    if (fprintf(f, "\"%s\":", name) < 0)
        return PROP_ERROR;
    return prop_json_write_string(f, value, strlen(value));
}

/*
 * Print the diagnostics as one JSON array, one diagnostic per line.
 * Returns 0, or PROP_ERROR when the stream reports a write error.
 */
int
prop_diags_print_json(const prop_site *s, FILE *f, int werror)
{
    size_t i, k;

    if (s == NULL || f == NULL)
        return PROP_EINVAL;
    if (fputs(s->diags.n ? "[\n" : "[", f) == EOF)
        return PROP_ERROR;
    for (i = 0; i < s->diags.n; i++) {
        const prop_diag *d = s->diags.v[i];
        int error = d->severity == PROP_SEV_ERROR || werror;

        if (fputs("{", f) == EOF || print_json_field(f, "code", d->code) != PROP_OK ||
            fprintf(f, ",\"severity\":\"%s\",", error ? "error" : "warning") < 0 ||
            print_json_place(f, d->file, d->line) != PROP_OK || fputs(",", f) == EOF ||
            print_json_field(f, "message", d->message) != PROP_OK ||
            fputs(",\"notes\":[", f) == EOF)
            return PROP_ERROR;
        for (k = 0; k < d->nnotes; k++) {
            const prop_note *n = &d->notes[k];

            if (fputs(k ? ",{" : "{", f) == EOF ||
                print_json_place(f, n->file, n->line) != PROP_OK || fputs(",", f) == EOF ||
                print_json_field(f, "message", n->message) != PROP_OK || fputs("}", f) == EOF)
                return PROP_ERROR;
        }
        if (fputs(i + 1 < s->diags.n ? "]},\n" : "]}\n", f) == EOF)
            return PROP_ERROR;
    }
    if (fputs("]\n", f) == EOF)
        return PROP_ERROR;
    return fflush(f) == EOF ? PROP_ERROR : PROP_OK;
}
