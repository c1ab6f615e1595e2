/*
 * lprop_memo.c - what earlier recipe calls made, by their arguments.
 *
 * A site of thousands of hosts calls the same recipe with the same
 * arguments thousands of times (apt.installed { "openssh-server" } on
 * every host).  prop's recipes are pure functions of plain-data arguments,
 * so when a site is only checked, the nodes one call made can be made
 * again for the next equal call, at its own place, without running the
 * recipe (prop_node_remake).  The key of a call is an exact encoding of
 * the recipe and its arguments (see key_* in lprop_entry.c): equal keys
 * mean equal calls.
 *
 * Ownership: the ctx owns its memo; the memo owns its entries, each one
 * block with its key.  Its memory comes from the state's allocator, so
 * that the memory limit covers it.  Entries name nodes of the ctx's site
 * by position, and the site outlives the memo.  The table is bounded: when
 * it holds MEMO_MAX entries it is emptied and fills again.
 */
#define _DEFAULT_SOURCE /* getentropy */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lprop_memo.h"

#define MEMO_MAX 16384       /* entries before the table is emptied */
#define MEMO_CAP (2 * 32768) /* slots: a power of two, at least 2 * MEMO_MAX */

typedef struct memo_entry {
    uint64_t hash;
    size_t mark, count; /* the nodes the call made (prop_node_remake) */
    size_t len;
    unsigned char key[]; /* len bytes */
} memo_entry;

struct lprop_memo {
    lua_Alloc alloc;
    void *ud;
    memo_entry **slots; /* MEMO_CAP slots, open addressing */
    size_t n;
    uint64_t seed;
};

static size_t
entry_size(const memo_entry *e)
{
    return sizeof *e + e->len;
}

lprop_memo *
lprop_memo_new(lua_Alloc alloc, void *ud)
{
    lprop_memo *m = alloc(ud, NULL, 0, sizeof *m);

    if (m == NULL)
        return NULL;
    memset(m, 0, sizeof *m);
    m->alloc = alloc;
    m->ud = ud;
    m->slots = alloc(ud, NULL, 0, MEMO_CAP * sizeof *m->slots);
    if (m->slots == NULL) {
        alloc(ud, m, sizeof *m, 0);
        return NULL;
    }
    memset(m->slots, 0, MEMO_CAP * sizeof *m->slots);
    if (getentropy(&m->seed, sizeof m->seed) != 0)
        m->seed = (uint64_t)(uintptr_t)m; /* still varies from run to run */
    return m;
}

static void
memo_clear(lprop_memo *m)
{
    for (size_t i = 0; i < MEMO_CAP; i++) {
        if (m->slots[i])
            m->alloc(m->ud, m->slots[i], entry_size(m->slots[i]), 0);
        m->slots[i] = NULL;
    }
    m->n = 0;
}

void
lprop_memo_free(lprop_memo *m)
{
    if (m == NULL)
        return;
    memo_clear(m);
    m->alloc(m->ud, m->slots, MEMO_CAP * sizeof *m->slots, 0);
    m->alloc(m->ud, m, sizeof *m, 0);
}

/*
 * A multiply-xorshift hash, a word at a time (keys are a few hundred
 * bytes and every recipe call hashes one), seeded per memo so that a site
 * cannot line its calls up on one slot.
 */
static uint64_t
key_hash(const lprop_memo *m, const unsigned char *key, size_t len)
{
    uint64_t h = m->seed ^ (len * 0x9e3779b97f4a7c15ULL), w;
    size_t i = 0;

    for (; i + 8 <= len; i += 8) {
        memcpy(&w, key + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
    }
    w = 0;
    memcpy(&w, key + i, len - i);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 29);
}

/* The slot holding key, or the empty slot where it would go. */
static memo_entry **
memo_slot(lprop_memo *m, const unsigned char *key, size_t len, uint64_t h)
{
    size_t i = (size_t)h & (MEMO_CAP - 1);
    memo_entry *e;

    while ((e = m->slots[i]) != NULL) {
        if (e->hash == h && e->len == len && memcmp(e->key, key, len) == 0)
            break;
        i = (i + 1) & (MEMO_CAP - 1);
    }
    return &m->slots[i];
}

int
lprop_memo_get(lprop_memo *m, const void *key, size_t len, size_t *mark, size_t *count)
{
    memo_entry *e = *memo_slot(m, key, len, key_hash(m, key, len));

    if (e == NULL)
        return 0;
    *mark = e->mark;
    *count = e->count;
    return 1;
}

void
lprop_memo_put(lprop_memo *m, const void *key, size_t len, size_t mark, size_t count)
{
    uint64_t h = key_hash(m, key, len);
    memo_entry **slot, *e;

    if (m->n >= MEMO_MAX)
        memo_clear(m);
    slot = memo_slot(m, key, len, h);
    if (*slot != NULL)
        return;
    /* Not remembering is always correct: a refused block only costs speed. */
    e = m->alloc(m->ud, NULL, 0, sizeof *e + len);
    if (e == NULL)
        return;
    e->hash = h;
    e->mark = mark;
    e->count = count;
    e->len = len;
    memcpy(e->key, key, len);
    *slot = e;
    m->n++;
}
