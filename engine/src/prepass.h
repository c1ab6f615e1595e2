/*
 * prepass.h - what the parts of the pre-pass share, and nothing else uses:
 *
 *   prepass.c            the driver, the per-host and site-wide rules
 *   prepass_structure.c  the structural rules (each node once)
 *   claims.c             the resource tables and the conflicts between
 *                        claims
 *   claims_files.c       the conflicts between claims on files (P007)
 *   prepass_uses.c       what a property uses against what provides it
 *                        (W106, P016)
 *   prepass_web.c        P017 between hosts of one network (a host and
 *                        the containers sharing its network)
 *
 * Ownership: every table here is scratch memory from malloc, owned by the
 * checker of one prop_site_check() call and freed before it returns.
 */
#ifndef PROP_PREPASS_H
#define PROP_PREPASS_H

#include <stdint.h>

#include "internal.h"

/* What a group of the hash tables is about. */
enum {
    CLS_FILE = 1, /* key: path */
    CLS_PKG,      /* key: package */
    CLS_SVC,      /* key: service */
    CLS_USER,     /* key: user name */
    CLS_GROUP,    /* key: group name */
    CLS_UID,      /* id: uid */
    CLS_GID,      /* id: gid */
    CLS_HOSTNAME, /* key: "hostname" */
    CLS_PORT,     /* id: port */
    CLS_TOP,      /* key: description of a top-level property */
    CLS_HOST,     /* site-wide; key: host name */
    CLS_IPV4,     /* site-wide; key: address */
    CLS_IPV6,     /* site-wide; key: address */
    CLS_ALIAS,    /* site-wide; key: a DNS name given with alias */
    CLS_WEB_NAME, /* key: "NAME:PORT" a web site answers */
    CLS_WEB_DEF   /* key: a port ("80") of which a web site is the default */
};

/* One member of a group: a claim of a leaf, a port user, a host, ... */
typedef struct ref {
    const prop_claim *c;   /* NULL when the group is not about claims */
    const prop_node *node; /* the leaf (or top-level node) */
    const prop_host *host;
    unsigned ent; /* index in checker.ents (per host) */
    int next;     /* next ref of the group, -1 at the end */
} ref;

typedef struct group {
    uint64_t hash;
    const char *key;
    size_t len;
    long long id;
    unsigned cls;
    int first, last;
    unsigned char absent; /* CLS_FILE: some member is file.absent */
    unsigned char owned;  /* CLS_FILE: some member is file.owned */
} group;

typedef struct slot {
    unsigned gen; /* the slot is empty unless gen == table.gen */
    unsigned group;
} slot;

/* Groups by (class, key, id), open addressing, reset in O(1). */
typedef struct table {
    slot *slots;
    size_t cap;
    unsigned gen;
    group *groups;
    size_t ngroups, gcap;
    ref *refs;
    size_t nrefs, rcap;
} table;

/* Pairs of node ids already reported (0 is the empty slot). */
typedef struct pairset {
    uint64_t *slots;
    size_t cap, n;
} pairset;

/* An effective leaf of the host being checked. */
typedef struct ent {
    const prop_node *leaf;
    unsigned top; /* index of the top-level property it came from */
} ent;

typedef struct checker {
    prop_site *s;
    table host; /* per host */
    table site; /* whole site */
    pairset pairs;
    unsigned *seen; /* by node id: == gen when visited on this host */
    size_t nseen;
    unsigned gen;
    ent *ents;
    size_t nents, entcap;
    const prop_node **stack;
    size_t stackcap;
    unsigned char *fresh; /* per top-level property: first visit on the host */
    size_t freshcap;
    const prop_host *h;
    prop_os_set os;
    /* prepass_web.c: the web claims of every host checked so far, and per
     * host index whether it has a network of its own. */
    ref *web;
    size_t nweb, webcap;
    unsigned char *ownnet;
} checker;

/* Set the site's error to "out of memory" and return PROP_ENOMEM. */
int pp_nomem(prop_site *s);
/* Make room for need elements of size elem in *v (malloc'd). */
int pp_reserve(prop_site *s, void **v, size_t *cap, size_t elem, size_t need);

void pp_table_init(table *t);
void pp_table_free(table *t);
/* Forget every group: O(1) except when the generation number wraps. */
void pp_table_reset(table *t);
/* The group of (cls, key[0..len), id), or NULL. */
group *pp_table_find(table *t, unsigned cls, const char *key, size_t len, long long id);
/* Find or make the group of (cls, key, id); its index in *out. */
int pp_table_group(prop_site *s, table *t, unsigned cls, const char *key, size_t len, long long id,
                   size_t *out);
/* Append a member to group gi. */
int pp_table_add(prop_site *s, table *t, size_t gi, const prop_claim *c, const prop_node *node,
                 const prop_host *host, unsigned ei);
/* 1 when the pair (a, b) was not reported yet (it now is), 0 when it was,
 * PROP_ENOMEM on failure. */
int pp_pair_take(prop_site *s, pairset *p, const prop_node *a, const prop_node *b);

/* "file:line" of o into buf, or "an unknown place". */
const char *pp_place(const prop_origin *o, char *buf, size_t n);
/* Two origins whose innermost frames are one place. */
int pp_same_place(const prop_origin *a, const prop_origin *b);
int pp_same_str(const char *a, const char *b);
/* Two leaves that say the same thing (never in conflict). */
int pp_same_leaf(const prop_node *a, const prop_node *b);
/* Two leaves of one web server's sites (the same shares_ports): they
 * declare its ports together, without P006. */
int pp_shares_ports(const prop_node *a, const prop_node *b);

/* The names of the systems in set into buf, for messages. */
#define os_name prop_os_set_name

/* prepass_purge.c: P012 for a purge of a system directory (each node
 * once) or of a directory holding a container's files (per host). */
int pp_check_purge_node(checker *k, const prop_node *n);
int pp_check_purge_host(checker *k);

/* P001, P005, P006 inside one combinator, W102 and W108: each node once. */
int pp_check_structure(checker *k);

/*
 * P006-P010, P013 (hostname) and P017 (web sites) over the effective
 * leaves in k->ents:
 * group their claims and ports, then compare within each group.
 */
int pp_check_claims(checker *k);
/*
 * The unit a service name stands for on a host of os: name without a
 * ".service" suffix, or the unit it is an alias of on that system
 * ("sshd" is ssh.service on Debian), in *len bytes at the pointer
 * returned.  So P009 and uses compare units, not names.
 */
const char *pp_service_unit(prop_os_set os, const char *name, size_t *len);

/*
 * W106 and P016 over the effective leaves in k->ents, once pp_check_claims
 * has grouped the host's claims and ports: what each leaf uses against
 * what provides it, and the order they run in (prepass_uses.c).
 */
int pp_check_uses(checker *k);

/*
 * prepass_web.c: keep the web claims of the host being checked (k->h, its
 * leaves in k->ents) and whether it has a network of its own; once every
 * host is checked, P017 between the sites of two hosts of one network.
 */
int pp_web_keep(checker *k);
int pp_check_web(checker *k);

#endif /* PROP_PREPASS_H */
