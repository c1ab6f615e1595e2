/*
 * site.c - the site: its arena, error message, interned strings, origins
 * and source texts.  Its hosts are host.c's.
 *
 * Ownership: the prop_site struct, the slot arrays of its hash tables and
 * the array of all nodes come straight from the site's allocator (they are
 * resized, which an arena cannot do without waste); everything else lives
 * in the arena.
 * prop_site_free() returns all of it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "internal.h"

static const prop_origin no_origin = {NULL, 0};

int
prop_site_new(prop_site **out, prop_alloc_fn alloc, void *ud)
{
    prop_site *s;

    if (!out)
        return PROP_EINVAL;
    *out = NULL;
    if (!alloc)
        alloc = arena_default_alloc;
    s = alloc(ud, NULL, 0, sizeof *s);
    if (!s)
        return PROP_ENOMEM;
    memset(s, 0, sizeof *s);
    arena_init(&s->mem, alloc, ud);
    *out = s;
    return PROP_OK;
}

void
prop_site_free(prop_site *s)
{
    prop_alloc_fn alloc;
    void *ud;

    if (!s)
        return;
    alloc = s->mem.alloc;
    ud = s->mem.ud;
    for (size_t i = 0; i < s->sources.n; i++) {
        source_file *src = s->sources.v[i];

        if (src->owned)
            alloc(ud, (void *)src->text, src->owned, 0);
    }
    /* The records of both live in the arena. */
    for (size_t i = 0; i < s->line_origins.n; i++) {
        line_origins *lo = s->line_origins.v[i];

        for (size_t k = 0; k < lo->npages; k++)
            if (lo->pages[k])
                alloc(ud, (void *)lo->pages[k], LINE_PAGE * sizeof(prop_origin *), 0);
        if (lo->pages)
            alloc(ud, (void *)lo->pages, lo->npages * sizeof *lo->pages, 0);
    }
    arena_release(&s->mem);
    if (s->files.slots)
        alloc(ud, s->files.slots, s->files.cap * sizeof(intern_slot), 0);
    if (s->strings.slots)
        alloc(ud, s->strings.slots, s->strings.cap * sizeof(intern_slot), 0);
    if (s->host_names.slots)
        alloc(ud, s->host_names.slots, s->host_names.cap * sizeof(prop_host *), 0);
    if (s->origins.slots)
        alloc(ud, (void *)s->origins.slots, s->origins.cap * sizeof(prop_origin *), 0);
    if (s->nodes.v)
        alloc(ud, s->nodes.v, s->nodes.cap * sizeof(void *), 0);
    alloc(ud, s, sizeof *s, 0);
}

const char *
prop_site_error(const prop_site *s)
{
    return s ? s->error : "no site";
}

size_t
prop_site_memory(const prop_site *s)
{
    size_t adopted = 0;

    if (!s)
        return 0;
    for (size_t i = 0; i < s->sources.n; i++)
        adopted += ((const source_file *)s->sources.v[i])->owned;
    for (size_t i = 0; i < s->line_origins.n; i++) {
        const line_origins *lo = s->line_origins.v[i];

        adopted += lo->npages * sizeof *lo->pages;
        for (size_t k = 0; k < lo->npages; k++)
            adopted += lo->pages[k] ? LINE_PAGE * sizeof(prop_origin *) : 0;
    }
    return sizeof *s + s->mem.total + adopted +
           (s->files.cap + s->strings.cap) * sizeof(intern_slot) +
           s->host_names.cap * sizeof(prop_host *) + s->origins.cap * sizeof(prop_origin *) +
           s->nodes.cap * sizeof(void *);
}

int
site_fail(prop_site *s, int code, const char *fmt, ...)
{
    va_list ap;

    if (!s)
        return code;
    va_start(ap, fmt);
    vsnprintf(s->error, sizeof s->error, fmt, ap);
    va_end(ap);
    return code;
}

/* ---- interning ---- */

/*
 * A multiplicative hash over 8 bytes at a time: descriptions, paths and
 * file contents are hashed once each, and most are longer than a word.
 */
static uint64_t
load_word(const char *p, size_t n)
{
    uint64_t w = 0;

    memcpy(&w, p, n);
    return w;
}

uint32_t
site_hash(const char *str, size_t len)
{
    const uint64_t k = 0x9e3779b97f4a7c15ULL;
    uint64_t h = (uint64_t)len * k;
    size_t i = 0;

    for (; i + 8 <= len; i += 8)
        h = ((h << 5 | h >> 59) ^ load_word(str + i, 8)) * k;
    if (i < len)
        h = ((h << 5 | h >> 59) ^ load_word(str + i, len - i)) * k;
    h ^= h >> 32;
    h *= k;
    return (uint32_t)(h ^ (h >> 29));
}

static uint32_t
slot_len(size_t len)
{
    return len < UINT32_MAX ? (uint32_t)len : UINT32_MAX;
}

/* Whether the interned string of slot e is str[0..len) (len NUL-free). */
static int
slot_is(const intern_slot *e, const char *str, size_t len)
{
    if (e->len != UINT32_MAX)
        return memcmp(e->str, str, len) == 0;
    /* Too long for the length field: stop at the interned string's end. */
    for (size_t i = 0; i < len; i++)
        if (e->str[i] != str[i] || e->str[i] == '\0')
            return 0;
    return e->str[len] == '\0';
}

/*
 * Double the slot array of t (kept at most half full).  The old array is
 * returned to the allocator.  PROP_ENOMEM leaves t as it was.
 */
static int
intern_grow(prop_site *s, intern_table *t)
{
    size_t cap = t->cap ? t->cap * 2 : 64;
    intern_slot *slots;

    if (cap > (size_t)-1 / sizeof *slots)
        return PROP_ENOMEM;
    slots = s->mem.alloc(s->mem.ud, NULL, 0, cap * sizeof *slots);
    if (!slots)
        return PROP_ENOMEM;
    memset(slots, 0, cap * sizeof *slots);
    for (size_t i = 0; i < t->cap; i++) {
        size_t j;

        if (!t->slots[i].str)
            continue;
        j = t->slots[i].hash & (cap - 1);
        while (slots[j].str)
            j = (j + 1) & (cap - 1);
        slots[j] = t->slots[i];
    }
    if (t->slots)
        s->mem.alloc(s->mem.ud, t->slots, t->cap * sizeof *slots, 0);
    t->slots = slots;
    t->cap = cap;
    return PROP_OK;
}

static const char *
intern_in(prop_site *s, intern_table *t, const char *str, size_t len)
{
    uint32_t h = site_hash(str, len), l = slot_len(len);
    size_t j;
    char *copy;

    if ((t->n + 1) * 2 > t->cap && intern_grow(s, t) != PROP_OK)
        goto nomem;
    j = h & (t->cap - 1);
    while (t->slots[j].str) {
        const intern_slot *e = &t->slots[j];

        if (e->hash == h && e->len == l && slot_is(e, str, len))
            return e->str;
        j = (j + 1) & (t->cap - 1);
    }
    copy = arena_strndup(&s->mem, str, len);
    if (!copy)
        goto nomem;
    t->slots[j].str = copy;
    t->slots[j].hash = h;
    t->slots[j].len = l;
    t->n++;
    return copy;
nomem:
    site_fail(s, PROP_ENOMEM, "out of memory");
    return NULL;
}

const char *
site_intern(prop_site *s, const char *str)
{
    return intern_in(s, &s->files, str, strlen(str));
}

/*
 * Strings holding a NUL byte (binary file contents) cannot live in a table
 * of C strings: they are copied instead of shared.
 */
const char *
site_intern_n(prop_site *s, const char *str, size_t len)
{
    if (memchr(str, '\0', len)) {
        char *copy = arena_strndup(&s->mem, str, len);

        if (!copy)
            site_fail(s, PROP_ENOMEM, "out of memory");
        return copy;
    }
    return intern_in(s, &s->strings, str, len);
}

/* ---- origins ---- */

static int
same_origin(const prop_origin *a, const prop_origin *b)
{
    if (a->nframes != b->nframes)
        return 0;
    for (unsigned i = 0; i < a->nframes; i++) {
        const prop_frame *fa = &a->frames[i], *fb = &b->frames[i];

        if (fa->line != fb->line)
            return 0;
        if (fa->file == fb->file)
            continue;
        if (!fa->file || !fb->file || strcmp(fa->file, fb->file) != 0)
            return 0;
    }
    return 1;
}

#define LOCAL_FRAMES 16

static size_t
hash_origin(const prop_origin *o)
{
    uint64_t h = o->nframes;

    for (unsigned i = 0; i < o->nframes; i++) {
        h = (h ^ (uint64_t)(uintptr_t)o->frames[i].file) * 1099511628211ULL;
        h = (h ^ (uint64_t)(unsigned)o->frames[i].line) * 1099511628211ULL;
    }
    return (size_t)(h ^ (h >> 31));
}

/* Same frames, file names compared as interned pointers. */
static int
same_interned(const prop_origin *a, const prop_origin *b)
{
    if (a->nframes != b->nframes)
        return 0;
    for (unsigned i = 0; i < a->nframes; i++)
        if (a->frames[i].file != b->frames[i].file || a->frames[i].line != b->frames[i].line)
            return 0;
    return 1;
}

static int
origin_table_grow(prop_site *s, origin_table *t)
{
    size_t cap = t->cap ? t->cap * 2 : 256;
    const prop_origin **slots;

    if (cap > (size_t)-1 / sizeof(prop_origin *))
        return PROP_ENOMEM;
    slots = s->mem.alloc(s->mem.ud, NULL, 0, cap * sizeof(prop_origin *));
    if (!slots)
        return PROP_ENOMEM;
    memset(slots, 0, cap * sizeof(prop_origin *));
    for (size_t i = 0; i < t->cap; i++) {
        const prop_origin *o = t->slots[i];
        size_t j;

        if (!o)
            continue;
        j = hash_origin(o) & (cap - 1);
        while (slots[j])
            j = (j + 1) & (cap - 1);
        slots[j] = o;
    }
    if (t->slots)
        s->mem.alloc(s->mem.ud, (void *)t->slots, t->cap * sizeof(prop_origin *), 0);
    t->slots = slots;
    t->cap = cap;
    return PROP_OK;
}

/*
 * The slot of the one-frame origin at file:line (file interned, line > 0)
 * in its file's pages, made as needed; NULL when out of memory.
 */
static const prop_origin **
line_slot(prop_site *s, const char *file, int line)
{
    line_origins *lo = NULL;
    size_t page = (size_t)line / LINE_PAGE, n;
    const prop_origin ***dir, **slots;

    for (size_t i = s->line_origins.n; i-- > 0;) {
        line_origins *x = s->line_origins.v[i];

        if (x->file == file) {
            lo = x;
            break;
        }
    }
    if (!lo) {
        if (!(lo = arena_zalloc(&s->mem, sizeof *lo)) ||
            ptrvec_push(&s->mem, &s->line_origins, lo) != PROP_OK)
            return NULL;
        lo->file = file;
    }
    if (page >= lo->npages) {
        n = lo->npages ? lo->npages : 16;
        while (n <= page)
            n *= 2;
        dir = s->mem.alloc(s->mem.ud, (void *)lo->pages, lo->npages * sizeof *dir, n * sizeof *dir);
        if (!dir)
            return NULL;
        memset(dir + lo->npages, 0, (n - lo->npages) * sizeof *dir);
        lo->pages = dir;
        lo->npages = n;
    }
    if (!lo->pages[page]) {
        if (!(slots = s->mem.alloc(s->mem.ud, NULL, 0, LINE_PAGE * sizeof *slots)))
            return NULL;
        memset(slots, 0, LINE_PAGE * sizeof *slots);
        lo->pages[page] = slots;
    }
    return &lo->pages[page][(size_t)line % LINE_PAGE];
}

/*
 * Copy o into the arena with interned file names.  Every distinct origin
 * is stored once (a site built in a loop, or a helper called for every
 * host, makes the same places over and over), and the previous origin is
 * checked first, without hashing.  The frames are interned into a scratch
 * copy (on the stack when short) to look the origin up.  NULL when out of
 * memory, with the site's error set.
 */
const prop_origin *
site_origin_copy(prop_site *s, const prop_origin *o)
{
    prop_frame local[LOCAL_FRAMES];
    prop_frame *frames = local;
    prop_origin key, *copy = NULL;
    origin_table *t = &s->origins;
    const prop_origin *result = NULL, **slot;
    size_t j;
    int hashed = 0;

    if (!o || o->nframes == 0 || !o->frames)
        return &no_origin;
    if (s->last_origin && same_origin(s->last_origin, o))
        return s->last_origin;
    if (o->nframes > LOCAL_FRAMES) {
        frames = s->mem.alloc(s->mem.ud, NULL, 0, o->nframes * sizeof *frames);
        if (!frames)
            goto done;
    }
    for (unsigned i = 0; i < o->nframes; i++) {
        const char *file = o->frames[i].file;

        frames[i].line = o->frames[i].line;
        frames[i].file = NULL;
        if (!file)
            continue;
        /* Callers name one file with the same string again and again
         * (the address alone could have been reused for another name). */
        if (file == s->last_file && strcmp(file, s->last_file_interned) == 0) {
            frames[i].file = s->last_file_interned;
            continue;
        }
        if (!(frames[i].file = site_intern(s, file)))
            goto done;
        s->last_file = file;
        s->last_file_interned = frames[i].file;
    }
    key.frames = frames;
    key.nframes = o->nframes;
    if (o->nframes == 1 && frames[0].file && frames[0].line > 0) {
        if (!(slot = line_slot(s, frames[0].file, frames[0].line)))
            goto done;
    } else {
        hashed = 1;
        if ((t->n + 1) * 2 > t->cap && origin_table_grow(s, t) != PROP_OK)
            goto done;
        j = hash_origin(&key) & (t->cap - 1);
        while (t->slots[j] && !same_interned(t->slots[j], &key))
            j = (j + 1) & (t->cap - 1);
        slot = &t->slots[j];
    }
    if (*slot) {
        result = *slot;
        goto done;
    }
    copy = arena_alloc_align(&s->mem, sizeof *copy + o->nframes * sizeof *frames, sizeof(void *));
    if (!copy)
        goto done;
    memcpy(copy + 1, frames, o->nframes * sizeof *frames);
    copy->frames = (const prop_frame *)(copy + 1);
    copy->nframes = o->nframes;
    *slot = copy;
    if (hashed)
        t->n++;
    result = copy;
done:
    if (frames != local && frames)
        s->mem.alloc(s->mem.ud, frames, o->nframes * sizeof *frames, 0);
    if (!result)
        site_fail(s, PROP_ENOMEM, "out of memory");
    else
        s->last_origin = result;
    return result;
}

/* ---- source texts ---- */

int
prop_site_add_source(prop_site *s, const char *file, const char *text, size_t len)
{
    source_file *src;

    if (!s || !file || (!text && len))
        return s ? site_fail(s, PROP_EINVAL, "prop_site_add_source: no file name or text")
                 : PROP_EINVAL;
    src = arena_zalloc(&s->mem, sizeof *src);
    if (!src || !(src->file = site_intern(s, file)))
        goto nomem;
    if (!(src->text = arena_strndup(&s->mem, text ? text : "", len)))
        goto nomem;
    src->len = len;
    if (ptrvec_push(&s->mem, &s->sources, src) != PROP_OK)
        goto nomem;
    return PROP_OK;
nomem:
    return site_fail(s, PROP_ENOMEM, "out of memory");
}

int
prop_site_adopt_source(prop_site *s, const char *file, char *text, size_t len, size_t size)
{
    source_file *src;

    if (!s || !file || !text || size <= len || text[len] != '\0')
        return s ? site_fail(s, PROP_EINVAL, "prop_site_adopt_source: no file name or text")
                 : PROP_EINVAL;
    src = arena_zalloc(&s->mem, sizeof *src);
    if (!src || !(src->file = site_intern(s, file)) ||
        ptrvec_push(&s->mem, &s->sources, src) != PROP_OK)
        return site_fail(s, PROP_ENOMEM, "out of memory");
    src->text = text;
    src->len = len;
    src->owned = size;
    return PROP_OK;
}

/* Build the index of line starts of src; PROP_ENOMEM leaves it unbuilt. */
static int
index_lines(prop_site *s, source_file *src)
{
    size_t n = 1, k = 0;
    const char **lines;

    for (size_t i = 0; i < src->len; i++)
        if (src->text[i] == '\n' && i + 1 < src->len)
            n++;
    lines = arena_alloc_align(&s->mem, n * sizeof *lines, sizeof(void *));
    if (!lines)
        return PROP_ENOMEM;
    lines[k++] = src->text;
    for (size_t i = 0; i < src->len; i++)
        if (src->text[i] == '\n' && i + 1 < src->len)
            lines[k++] = src->text + i + 1;
    src->lines = lines;
    src->nlines = n;
    return PROP_OK;
}

/*
 * The site is const for the caller, but the index of lines is built on
 * first use; the site was made writable by prop_site_new, so the cast is
 * sound.  The latest source registered under a name wins.
 */
const char *
prop_site_source_line(const prop_site *s, const char *file, int line, size_t *len)
{
    prop_site *ws = (prop_site *)s;
    source_file *src = NULL;
    const char *start, *end, *stop;

    if (len)
        *len = 0;
    if (!s || !file || line < 1)
        return NULL;
    for (size_t i = s->sources.n; i-- > 0;) {
        source_file *f = s->sources.v[i];

        if (f->file == file || strcmp(f->file, file) == 0) {
            src = f;
            break;
        }
    }
    if (!src || src->len == 0)
        return NULL;
    if (!src->lines && index_lines(ws, src) != PROP_OK)
        return NULL;
    if ((size_t)line > src->nlines)
        return NULL;
    start = src->lines[line - 1];
    stop = src->text + src->len;
    end = memchr(start, '\n', (size_t)(stop - start));
    if (!end)
        end = stop;
    if (end > start && end[-1] == '\r')
        end--;
    if (len)
        *len = (size_t)(end - start);
    return start;
}
