/*
 * internal.h - what the engine's files share and nobody else sees.
 *
 * Where things are in engine/src (the public headers are
 * engine/include/prop/):
 *   a site and what it holds
 *     arena.c           the bump allocator every site lives in
 *     site.c            the site: its error, interned strings, origins,
 *                       source texts
 *     host.c            its hosts and containers, their OS and info
 *     node.c            property nodes and the combinators' types
 *                       (node_access.c reads them, node_remake.c makes a
 *                       call's nodes again for the REPL)
 *     os.c              OS families and claim kinds by name
 *   checking it before anything runs
 *     prepass.c         every rule over a whole site; prepass_structure.c
 *                       the rules of one combinator; prepass_uses.c what a
 *                       property uses (W106, P016)
 *     claims.c          what properties claim, and conflicts; claims_files.c
 *                       the claims on one path (P007)
 *     diag.c            diagnostics; explain.c what each code means
 *     query.c           "what manages this?" (prop claims, prop show)
 *   running it
 *     exec.c            the combinators at run time, the executor
 *     pending.c         owed triggers kept on a target between runs
 *     diff.c            unified diffs; text.c text shown, never obeyed
 *   reaching a target (prop/transport.h)
 *     transport.c       the public calls: argument checks, limits
 *     host_connect.c    which transport a host's connect.* means, and the
 *                       detection of its OS
 *     transport_local*.c  this machine and directory trees: files by
 *                       descriptor inside the root (_paths), accounts
 *                       (_names), directory syncs (_sync), commands (_run,
 *                       through spawn.c)
 *     transport_container.c  chroot, systemd-nspawn and Docker through the
 *                       parent's transport
 *     transport_dry.c   dry runs and --diff, over any transport
 *     transport_tcp.c   a probe's TCP exchange from here, or from a
 *                       container's network namespace
 *     transport_sh.c    file operations as shell scripts, and the parser
 *                       of the remote shell's answers; transport_sh_prefetch.c
 *                       one fetch of many files' stats and contents
 *     transport_ssh*.c  SSH (the module libprop-ssh.so): _load loads it,
 *                       _entry its symbol, _known_hosts host keys, _auth
 *                       authentication, _lock the run lock on the target,
 *                       _chan commands and TCP probes on
 *                       channels, _shell the remote shell and its answers,
 *                       _pipeline the pipelining (deferred operations,
 *                       batches, staged writes), _prefetch the prefetch
 *   secrets
 *     secrets.c         the store's values and recipients; secrets_file.c
 *                       and secrets_read.c its text; secrets_pgp.c OpenPGP
 *                       through GPGME; secmem.c memory for decrypted values;
 *     openpgp.c         the one walker of OpenPGP packet framing and the
 *                       armor's CRC-24 (the store's messages, apt.key's keys)
 *   the utility layer, shared with the bindings (each header says what it does)
 *     alloc.c           the engine's own allocations (prop_malloc, ...), and
 *                       the test hook that refuses the Nth of them
 *     buf.c             prop_buf, the one growing byte buffer
 *     array.c           the one growth of arrays of any element type
 *     base64.c          the one base64 codec
 *     fileio.c          the one read-to-the-end (bounded) and write-it-all,
 *                       and the one atomic writer of a file of this machine
 *                       (the secret store, --report, --prometheus, the HTML
 *                       page; a transport's write does it on a target)
 *     spawn.c           the one spawn-and-capture: a program run with
 *                       its input given, its output captured, bounded
 *
 * Ownership: everything below is carved out of the site's arena (arena.c)
 * and lives exactly as long as the site; no struct here is freed alone.
 */
#ifndef PROP_INTERNAL_H
#define PROP_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "prop/prop.h"

#if defined(__GNUC__)
#define PROP_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define PROP_PRINTF(a, b)
#endif

/* ---- arena.c: bump allocator over chunks from the site's allocator ---- */
typedef struct arena_chunk arena_chunk;
typedef struct arena {
    prop_alloc_fn alloc;
    void *ud;
    arena_chunk *head; /* newest chunk first */
    char *cur, *end;   /* free space in head */
    size_t total;      /* bytes obtained from alloc */
} arena;

/* malloc, realloc and free as a prop_alloc_fn: what a NULL allocator means. */
void *arena_default_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
void arena_init(arena *a, prop_alloc_fn alloc, void *ud);
void arena_release(arena *a);
/* 16-byte aligned, uninitialised; NULL when the allocator refuses. */
void *arena_alloc(arena *a, size_t size);
/* The same with another alignment (a power of two, at most 16). */
void *arena_alloc_align(arena *a, size_t size, size_t align);
void *arena_zalloc(arena *a, size_t size);
char *arena_strndup(arena *a, const char *s, size_t len);
char *arena_strdup(arena *a, const char *s);
char *arena_vprintf(arena *a, const char *fmt, va_list ap) PROP_PRINTF(2, 0);
char *arena_printf(arena *a, const char *fmt, ...) PROP_PRINTF(2, 3);

/* A growable array of pointers inside an arena (growth abandons old copies). */
typedef struct ptrvec {
    void **v;
    size_t n, cap;
} ptrvec;
int ptrvec_push(arena *a, ptrvec *pv, void *p);

/* ---- site.c ---- */
typedef struct source_file {
    const char *file; /* interned */
    const char *text;
    size_t len;
    const char **lines; /* index built on first use */
    size_t nlines;
    size_t owned; /* adopted text: its size for the allocator; 0: in the arena */
} source_file;

/* A string intern table (open addressing).  Each slot keeps the string's
 * hash and length, so that a probe compares strings only when both match. */
typedef struct intern_slot {
    const char *str;
    uint32_t hash;
    uint32_t len; /* UINT32_MAX: longer (compared in full) */
} intern_slot;

typedef struct intern_table {
    intern_slot *slots;
    size_t cap, n;
} intern_table;

/* Distinct origins (open addressing), so that a loop or a helper called
 * for every host stores each of its places once. */
typedef struct origin_table {
    const prop_origin **slots;
    size_t cap, n;
} origin_table;

/*
 * The one-frame origins of one file, by line: a site written out host by
 * host makes an origin per line, in order, and an array finds them where
 * a hash table would miss the cache on every one.
 */
typedef struct line_origins {
    const char *file; /* interned */
    /* Pages of LINE_PAGE slots, made when a line of theirs is first met,
     * so that memory follows the lines used, not the highest line; the
     * pages and the directory come from the site's allocator. */
    const prop_origin ***pages;
    size_t npages;
} line_origins;
#define LINE_PAGE 1024

/* Hosts by name (open addressing over the first host of each name). */
typedef struct host_table {
    prop_host **slots;
    size_t cap, n;
} host_table;

struct prop_host {
    const char *name;
    const prop_origin *origin;
    ptrvec props; /* prop_node * */
    ptrvec lists; /* const void *: the list props.v[i] was written in (prop_host_add_in) */
    unsigned index;
    /* prop_host_os(): props only grow at the end, so the first os.* leaf,
     * once found, stays the first; os_scanned props hold none. */
    prop_os_set os;
    size_t os_scanned;
    /* Containers (prop_container_new): their kind, and what the pre-pass
     * links: the parent, the leaf attaching them, the full name.  A host
     * lists its containers in attach order. */
    prop_container_kind kind;
    prop_host *parent;
    const prop_node *attached_by;
    const char *fullname;
    int named;         /* a leaf of some host names it (W105 is for the others) */
    ptrvec containers; /* prop_host * */
};

struct prop_site {
    arena mem;
    char error[256];
    intern_table files;
    intern_table strings; /* descriptions, claim keys, info: shared copies */
    ptrvec sources;       /* source_file * */
    ptrvec nodes;         /* every node made, in order; its array comes from the
                             allocator, not the arena (node.c appends to it) */
    ptrvec hosts;         /* prop_host * */
    host_table host_names;
    ptrvec diags;                   /* prop_diag * */
    const prop_origin *last_origin; /* reuse identical consecutive origins */
    /* The file name of the last frame copied, as the caller gave it (only
     * its address: it may be gone), and its interned copy. */
    const char *last_file, *last_file_interned;
    origin_table origins; /* every distinct origin, shared */
    ptrvec line_origins;  /* line_origins *: one-frame origins by file and line */
    unsigned next_id;
    size_t ncontainers; /* made by prop_container_new */
    int checked;        /* prop_site_check ran */
    size_t nerrors, nwarnings;
};

/* Set the site's error message; returns code. */
int site_fail(prop_site *s, int code, const char *fmt, ...) PROP_PRINTF(3, 4);
/* The hash of str[0..len) the site's tables use (site.c). */
uint32_t site_hash(const char *str, size_t len);
const char *site_intern(prop_site *s, const char *str);
/* A shared copy of str[0..len) (NUL-terminated) from the strings table;
 * NULL when out of memory (the site's error is then set). */
const char *site_intern_n(prop_site *s, const char *str, size_t len);
/* Attach container c to parent (found by the pre-pass), naming it
 * "PARENT/NAME".  PROP_ENOMEM on failure. */
int site_attach(prop_site *s, prop_host *parent, prop_host *c, const prop_node *via);
/* Copy an origin into the arena (interning file names). NULL o: no frames. */
const prop_origin *site_origin_copy(prop_site *s, const prop_origin *o);

/* ---- node.c ---- */
/*
 * What only a leaf has, apart from the node: made once per leaf, and
 * shared by the copies prop_node_remake makes.  Every other node points
 * at one shared empty instance, so that it can be read from any node.
 */
typedef struct leaf_data {
    prop_claim *claims;
    prop_info *info;
    const char *norevert;
    long behaviour;
    unsigned nclaims;
    unsigned ninfo;
    prop_os_set os_family; /* os.* info leaves */
    int publishes;         /* its ports are a container's published ports */
    int detaches;          /* it removes its container rather than attach it */
    prop_host *container;  /* the container it attaches (or removes), or NULL */
    /* uses = { services=, ports= }: what it needs running on its host
     * (interned names; ports sorted, without duplicates). */
    const char **uses_services;
    int *uses_ports;
    unsigned nuses_services;
    unsigned nuses_ports;
    /* The server whose virtual hosts share its ports (interned), or NULL. */
    const char *shares_ports;
} leaf_data;

/* A site holds millions of nodes: this is kept to 64 bytes. */
struct prop_node {
    unsigned id; /* creation order, unique in the site */
    prop_os_set targets;
    unsigned nchildren;
    unsigned nports;
    /* Leaf visits of prop_node_each_leaf(n, PROP_OS_NONE), saturating at
     * UINT_MAX: a graph that shares subtrees can expand exponentially, and
     * a walker can refuse it before starting. */
    unsigned weight;
    unsigned kind : 8; /* prop_kind */
    /* One-bit flags: assign 0 or 1 only. */
    unsigned revertable : 1;
    unsigned paired : 1;    /* recipe-made REVERTABLE shown as one */
    unsigned info_only : 1; /* nothing in the tree can change */
    unsigned synthetic : 1; /* made by the engine (reverted forms) */
    unsigned conflict : 1;  /* targets empty because children disagree (P005) */
    const char *desc;
    const prop_origin *origin;
    prop_node *rev; /* REVERTABLE: b; REVERT: reverted form or NULL */
    int *ports;     /* sorted union over the tree; shared, NULL if none */
    const leaf_data *leaf;
    /* the nchildren child pointers follow (node_children) */
};

/* The children of n, stored right after it. */
static inline prop_node **
node_children(const prop_node *n)
{
    return (prop_node **)(n + 1);
}

/* A zeroed node of kind with room for nchildren children, not yet in the
 * site; NULL when out of memory (the site's error is then set). */
prop_node *node_alloc(prop_site *s, prop_kind kind, size_t nchildren, const prop_origin *origin,
                      int synthetic);
/* Give the complete node n its id and record it in the site; NULL when out
 * of memory. */
prop_node *node_commit(prop_site *s, prop_node *n);

/* ---- diag.c ---- */
/* Begin a diagnostic at origin o (frames[0]); outer frames become
 * "called from here" notes once the diagnostic is finished. */
typedef struct diag_builder {
    prop_site *site;
    prop_diag *d;
    ptrvec notes; /* prop_note * */
    const prop_origin *origin;
} diag_builder;

int diag_begin(diag_builder *b, prop_site *s, const char *code, prop_severity sev,
               const prop_origin *o, const char *fmt, ...) PROP_PRINTF(6, 7);
int diag_note(diag_builder *b, const prop_origin *o, const char *fmt, ...) PROP_PRINTF(3, 4);
int diag_end(diag_builder *b);
/* Sort the site's diagnostics, stably: by file, line, then code; those
 * without a file last.  Fails only when scratch memory is refused. */
int diag_sort(prop_site *s);

/* ---- transport_local_sync.c ---- */
/* fsync directory dir, so that a change of its entries (a rename, a new
 * or removed name) lasts a crash: 0 or errno. */
int prop_sync_dir(const char *dir);

#endif /* PROP_INTERNAL_H */
