/*
 * prop.h - the public C interface of prop's engine.
 *
 * The engine holds typed property objects, the combinators that compose
 * them, hosts, and the static pre-pass that checks a whole site before
 * anything runs.  It knows nothing of Lua: a C program can build a site
 * with these functions alone.
 *
 * Ownership, in one sentence: every node, host, string, origin and
 * diagnostic of a site lives in that site's arena and is freed, all at
 * once, by prop_site_free(); nothing is freed on its own.
 *
 * Error contract: functions returning int give 0 (PROP_OK), a named
 * negative PROP_E* code, or PROP_ERROR; the message is then available from
 * prop_site_error().  Out-parameters are set to NULL on entry.
 */
#ifndef PROP_PROP_H
#define PROP_PROP_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PROP_VERSION "0.1.0"

/*
 * Marks the functions of this interface: libprop.so exports them and
 * nothing else (it is built with -fvisibility=hidden).
 */
#ifndef PROP_API
#if defined(__GNUC__)
#define PROP_API __attribute__((visibility("default")))
#else
#define PROP_API
#endif
#endif

enum prop_status {
    PROP_OK = 0,
    PROP_ERROR = -1,       /* generic failure; see prop_site_error() */
    PROP_ENOMEM = -2,      /* the allocator refused (memory limit reached) */
    PROP_EINVAL = -3,      /* a caller passed an argument outside the contract */
    PROP_ENOTFOUND = -4,   /* no such host, code, path, ... */
    PROP_EUNREACHABLE = -5 /* a transport could not reach its target */
};

/*
 * Allocation.  Same contract as lua_Alloc: nsize == 0 frees ptr and returns
 * NULL; otherwise (re)allocates.  osize is the old size when ptr != NULL.
 * A NULL allocator means malloc/realloc/free.
 */
typedef void *(*prop_alloc_fn)(void *ud, void *ptr, size_t osize, size_t nsize);

/* ---------------------------------------------------------------------
 * OS families.  A set of families is a bit mask.
 */
typedef unsigned prop_os_set;
#define PROP_OS_DEBIAN 1u
#define PROP_OS_BUNTISH 2u
#define PROP_OS_FREEBSD 4u
#define PROP_OS_RHEL 8u    /* Red Hat Enterprise Linux and its rebuilds */
#define PROP_OS_FEDORA 16u /* Fedora */
#define PROP_OS_ARCH 32u   /* Arch Linux */
#define PROP_OS_NONE 0u
#define PROP_OS_DEBIANLIKE (PROP_OS_DEBIAN | PROP_OS_BUNTISH)
#define PROP_OS_REDHATLIKE (PROP_OS_RHEL | PROP_OS_FEDORA)
#define PROP_OS_LINUX (PROP_OS_DEBIANLIKE | PROP_OS_REDHATLIKE | PROP_OS_ARCH)
#define PROP_OS_UNIXLIKE (PROP_OS_LINUX | PROP_OS_FREEBSD)

/*
 * "debian", "buntish", "freebsd", "rhel", "fedora", "arch" for a single
 * family bit, else NULL.
 */
PROP_API const char *prop_os_family_name(prop_os_set family);
/*
 * A readable name for a set: a group ("UnixLike", "Linux", "DebianLike",
 * "RedHatLike", and "FreeBSD" or "ArchLinux" alone), a family ("debian"),
 * groups and families joined ("RedHatLike | freebsd"), or "no OS" for the
 * empty set.  Returns a static string or one written into buf (always
 * terminated; 64 bytes hold every name).
 */
PROP_API const char *prop_os_set_name(prop_os_set set, char *buf, size_t n);
/* Parse a family or group name (as above, case-sensitive). 0 or PROP_EINVAL. */
PROP_API int prop_os_set_parse(const char *name, prop_os_set *out);
/*
 * The family of a system from the text of its /etc/os-release: its ID,
 * else the first of its ID_LIKE words that names a known family (an
 * Ubuntu derivative is buntish even when it is also like debian).
 * rhel, centos, rocky, almalinux and ol (Oracle Linux) are rhel.  PROP_OS_NONE when none is
 * known.
 */
PROP_API prop_os_set prop_os_from_os_release(const char *text, size_t len);

/* ---------------------------------------------------------------------
 * Sites, origins.
 */
typedef struct prop_site prop_site;
typedef struct prop_node prop_node;
typedef struct prop_host prop_host;

/* One place in the user's code.  file is interned in the site. */
typedef struct prop_frame {
    const char *file;
    int line;
} prop_frame;

/*
 * Where a value was made: frames[0] is the innermost user-code line (the
 * call that made it), the following frames are the user-code lines that
 * called it, outermost last.  Frames inside prop's own modules are never
 * recorded.  nframes may be 0 for values made from C without a place.
 */
typedef struct prop_origin {
    const prop_frame *frames;
    unsigned nframes;
} prop_origin;

PROP_API int prop_site_new(prop_site **out, prop_alloc_fn alloc, void *ud);
PROP_API void prop_site_free(prop_site *s); /* accepts NULL */
/* The message of the last failed call on this site ("" if none). */
PROP_API const char *prop_site_error(const prop_site *s);
/* Bytes the site's arena holds (for benchmarks and memory tests). */
PROP_API size_t prop_site_memory(const prop_site *s);
/*
 * Keep the text of a source file so that diagnostics can quote its lines.
 * file is the name used in origins ("site.lua"); the text is copied.
 */
PROP_API int prop_site_add_source(prop_site *s, const char *file, const char *text, size_t len);
/*
 * The same without a copy: the site takes text over.  text comes from the
 * site's allocator (alloc(ud, NULL, 0, size)), holds len bytes and a NUL
 * (size > len), and is given back (alloc(ud, text, size, 0)) when the
 * site is freed.  On failure the caller still owns it.
 */
PROP_API int prop_site_adopt_source(prop_site *s, const char *file, char *text, size_t len,
                                    size_t size);
/* The text of line `line` of a registered source, without its newline. */
PROP_API const char *prop_site_source_line(const prop_site *s, const char *file, int line,
                                           size_t *len);

/* ---------------------------------------------------------------------
 * Properties.
 */
typedef enum prop_kind {
    PROP_LEAF,       /* does something: a recipe or a property {} */
    PROP_INFO,       /* carries facts only: os.*, ipv4, connect.* */
    PROP_REQUIRES,   /* children: a, b; ensure b, then a unless b failed */
    PROP_BEFORE,     /* children: a, b; ensure a, then b unless a failed */
    PROP_ON_CHANGE,  /* children: a, b; ensure a, b only if a changed */
    PROP_FALLBACK,   /* children: a, b; ensure a, b only if a failed */
    PROP_PICK_OS,    /* children: alternatives; the first that fits the OS */
    PROP_REVERTABLE, /* children: a, b; a normally, b when reverted */
    PROP_REVERT,     /* children: p; runs prop_node_reverted() */
    PROP_PROPS,      /* children: each in order, failures do not stop */
    PROP_DESCRIBE,   /* children: p, shown with another description */
    PROP_INVALID,    /* made from a bad argument (P012); never runs */
    PROP_ONLY_IF     /* children: p; ensured only when a run-time test holds */
} prop_kind;

/* "property", "info", "requires", ... , "invalid". */
PROP_API const char *prop_kind_name(prop_kind k);

/*
 * A resource a leaf claims.  The pre-pass compares claims of one host to
 * find conflicts (P007-P010, P013) and identical duplicates (W101).
 */
typedef enum prop_claim_kind {
    PROP_CLAIM_FILE_CONTENT,   /* key path, value content */
    PROP_CLAIM_FILE_GENERATED, /* key path, value: what generates it */
    PROP_CLAIM_FILE_ABSENT,    /* key path */
    PROP_CLAIM_FILE_DIRECTORY, /* key path */
    PROP_CLAIM_FILE_SYMLINK,   /* key path, value target */
    PROP_CLAIM_FILE_MODE,      /* key path, value octal mode "0644" */
    PROP_CLAIM_FILE_OWNER,     /* key path, value "user:group" */
    PROP_CLAIM_FILE_LINE,      /* key path, value a line that is present */
    PROP_CLAIM_FILE_NO_LINE,   /* key path, value a line that is absent */
    PROP_CLAIM_PKG_INSTALLED,  /* key package */
    PROP_CLAIM_PKG_REMOVED,    /* key package */
    PROP_CLAIM_SVC_RUNNING,    /* key service */
    PROP_CLAIM_SVC_STOPPED,    /* key service */
    PROP_CLAIM_SVC_RESTARTED,  /* key service */
    PROP_CLAIM_USER,           /* key name, id uid or -1 */
    PROP_CLAIM_USER_ABSENT,    /* key name */
    PROP_CLAIM_GROUP,          /* key name, id gid or -1 */
    PROP_CLAIM_HOSTNAME,       /* key "hostname", value the name */
    PROP_CLAIM_FILE_OWNED,     /* key path: the whole file is this property's */
    PROP_CLAIM_FILE_SETTING,   /* key path, value "NAME=VALUE": one setting of a config file */
    PROP_CLAIM_USER_SETTING,   /* key name, value "NAME=VALUE": one attribute of an account */
    PROP_CLAIM_FILE_PURGED,    /* key path: a directory holding only what the host claims */
    PROP_CLAIM_FILE_FRAGMENT,  /* key path, value "NAME\nORDER\nTEXT": one part of a file */
    PROP_CLAIM_FILE_FRAGMENTS, /* key path, value what else makes the file: it is assembled from
                                * its fragments */
    PROP_CLAIM_WEB_NAME,       /* key "NAME:PORT" (NAME lower-cased), value the web server:
                                * a site answers NAME on PORT */
    PROP_CLAIM_WEB_DEFAULT,    /* key the port ("80"), value the web server: the default site
                                * of that port */
    PROP_CLAIM__COUNT
} prop_claim_kind;

/* "file.content", "package.installed", ... (as accepted by the Lua core). */
PROP_API const char *prop_claim_kind_name(prop_claim_kind k);
PROP_API int prop_claim_kind_parse(const char *name, prop_claim_kind *out);

/* The value of the claim is secret: compared, never shown. */
#define PROP_CLAIM_SECRET 1u

typedef struct prop_claim {
    prop_claim_kind kind;
    const char *key;
    const char *value; /* may be NULL */
    size_t value_len;  /* 0 with a value: strlen(value) */
    long long id;      /* -1 when none */
    unsigned flags;    /* PROP_CLAIM_SECRET */
} prop_claim;

/*
 * Info keys prop itself reads: set by os.* and connect.* (a hand-written
 * property may not set them, nor anything under "connect.").
 */
#define PROP_INFO_OS "os"                     /* "FAMILY SUITE ARCH" */
#define PROP_INFO_CONNECT "connect"           /* "local", "dir" or "ssh" */
#define PROP_INFO_CONNECT_PATH "connect.path" /* connect.dir: the tree */
#define PROP_INFO_CONNECT_ADDRESS "connect.address"
#define PROP_INFO_CONNECT_PORT "connect.port"
#define PROP_INFO_CONNECT_USER "connect.user"
#define PROP_INFO_CONNECT_IDENTITY "connect.identity"
#define PROP_INFO_CONNECT_KNOWN_HOSTS "connect.known_hosts"
#define PROP_INFO_CONNECT_SUDO "connect.sudo"     /* "true" */
#define PROP_INFO_ADDRESS_SHARED "address.shared" /* an ipv4/ipv6 value held on purpose by many */
#define PROP_INFO_SECRET "secret"                 /* the name of a secret the property uses */
/* A path whose secret content is meant to be readable by group or others (no W108). */
#define PROP_INFO_SECRET_SHARED "secret.shared"
/* Set by a container's recipe (lua/prop/container.lua): where it is, as its kind needs. */
#define PROP_INFO_CONTAINER_PATH "container.path" /* chroot, nspawn: its tree */
#define PROP_INFO_CONTAINER_NAME "container.name" /* nspawn, docker, jail: its name */

typedef struct prop_info {
    const char *key;   /* "ipv4", "alias", "os", "connect", "backup.dir", ... */
    const char *value; /* always a string */
} prop_info;

/* What kind of container a host is (PROP_CONTAINER_NONE: a host). */
typedef enum prop_container_kind {
    PROP_CONTAINER_NONE = 0,
    PROP_CONTAINER_CHROOT,
    PROP_CONTAINER_NSPAWN,
    PROP_CONTAINER_DOCKER,
    PROP_CONTAINER_JAIL
} prop_container_kind;

typedef struct prop_leaf_spec {
    const char *desc;    /* required */
    prop_os_set targets; /* PROP_OS_NONE means UnixLike */
    const int *ports;    /* 1..65535 */
    size_t nports;
    const prop_claim *claims;
    size_t nclaims;
    const prop_info *info;
    size_t ninfo;
    const char *norevert;  /* why it cannot be reverted; NULL: generic text */
    int info_only;         /* makes the kind PROP_INFO: never changes anything */
    prop_os_set os_family; /* for os.*: the single family it declares */
    long behaviour;        /* the caller's handle on what it does; -1: none */
    /* The container this leaf puts on its host (chroot.provisioned, ...):
     * the pre-pass makes the host its parent.  NULL: none. */
    prop_host *container;
    /* With container: this leaf removes the container (a revert) rather
     * than putting it on the host. */
    int detaches;
    /* Its ports are ports a container publishes on the host: a clash is
     * P014 rather than P006. */
    int publishes;
    /* What it needs running on its host (uses = { services=, ports= }):
     * the pre-pass looks for a property of the host that provides each
     * (a service.running or service.restarted claim, a declared port) and
     * runs before it (W106, P016). */
    const char *const *uses_services;
    size_t nuses_services;
    const int *uses_ports; /* 1..65535 */
    size_t nuses_ports;
    /* The web server whose virtual hosts this leaf's ports are ("nginx"):
     * leaves with the same shares_ports declare one port without P006.
     * NULL: the ports are the leaf's alone. */
    const char *shares_ports;
} prop_leaf_spec;

/*
 * All constructors copy what they are given into the site's arena.  Every
 * node passed to a constructor must come from the same site s: mixing
 * sites is not detected.
 */
PROP_API int prop_leaf_new(prop_site *s, const prop_leaf_spec *spec, const prop_origin *o,
                           prop_node **out);
/* kind: PROP_REQUIRES, PROP_BEFORE, PROP_ON_CHANGE or PROP_FALLBACK. */
PROP_API int prop_combine_new(prop_site *s, prop_kind kind, prop_node *a, prop_node *b,
                              const prop_origin *o, prop_node **out);
/*
 * revertable(a, b).  paired != 0 marks a pair made by a recipe (apt.installed
 * with apt.removed as its revert): shown and described as one property.
 */
PROP_API int prop_revertable_new(prop_site *s, prop_node *a, prop_node *b, int paired,
                                 const prop_origin *o, prop_node **out);
/* kind: PROP_PICK_OS or PROP_PROPS. */
PROP_API int prop_list_new(prop_site *s, prop_kind kind, prop_node *const *items, size_t n,
                           const prop_origin *o, prop_node **out);
/*
 * revert(p).  Always succeeds for a valid p: when p is not revertable the
 * node is made anyway and the pre-pass reports P001 at its origin.
 */
PROP_API int prop_revert_new(prop_site *s, prop_node *p, const prop_origin *o, prop_node **out);
PROP_API int prop_describe_new(prop_site *s, prop_node *p, const char *text, const prop_origin *o,
                               prop_node **out);
/*
 * only_if(test, p): p, ensured at run time only when test holds (the
 * executor asks its caller, prop_exec_ops.test); otherwise ok.  test is
 * the caller's handle on the test, as a leaf's behaviour is (-1: none
 * kept, for a site that is only checked).  The type is p's; reverting it
 * gives only_if(test, revert(p)).
 */
PROP_API int prop_only_if_new(prop_site *s, prop_node *p, long test, const prop_origin *o,
                              prop_node **out);
/*
 * A property made from a bad argument: records error P012 with message at o
 * and returns a node of kind PROP_INVALID (UnixLike, never runs), so that
 * evaluation can go on and report every mistake in one pass.
 */
PROP_API int prop_invalid_new(prop_site *s, const char *desc, const char *message,
                              const prop_origin *o, prop_node **out);

/*
 * Making the nodes of one call again.  A caller that knows a call to be a
 * pure function of its arguments (prop's recipes, given plain data) can
 * remember what one call made and make it again for a later call with the
 * same arguments, at that call's place, without running it:
 *
 *   size_t mark = prop_site_mark(s);
 *   ... the call makes its nodes; root is the one it returns ...
 *   size_t count = prop_node_made_since(s, root, mark);
 *   ... later, for an equal call at origin o ...
 *   prop_node_remake(s, mark, count, o, &copy);
 *
 * prop_site_mark: how many nodes s has made so far.
 * prop_node_made_since: how many nodes were made from mark on, when they
 * can be made again: root is the last of them, each is reachable from
 * root, all share root's origin, and there are at most PROP_REMAKE_MAX;
 * else 0.  Diagnostics a call recorded are not made again: a caller
 * remembers only calls that recorded none.
 * prop_node_remake: copies of those count nodes, in the same order, with
 * origin o and new ids; links among them point to the copies, links to
 * older nodes are kept.  The copy of root is returned in *out.
 */
#define PROP_REMAKE_MAX 32
PROP_API size_t prop_site_mark(const prop_site *s);
PROP_API size_t prop_node_made_since(const prop_site *s, const prop_node *root, size_t mark);
PROP_API int prop_node_remake(prop_site *s, size_t mark, size_t count, const prop_origin *o,
                              prop_node **out);

PROP_API prop_kind prop_node_kind(const prop_node *n);
PROP_API const char *prop_node_desc(const prop_node *n);
PROP_API prop_os_set prop_node_targets(const prop_node *n);
PROP_API int prop_node_revertable(const prop_node *n);
PROP_API int prop_node_paired(const prop_node *n);
PROP_API int prop_node_info_only(const prop_node *n);  /* nothing in it can change */
PROP_API prop_os_set prop_node_os(const prop_node *n); /* os.* leaves: the family */
PROP_API long prop_node_behaviour(const prop_node *n);
PROP_API const char *prop_node_norevert(const prop_node *n);
PROP_API const prop_origin *prop_node_origin(const prop_node *n);
PROP_API size_t prop_node_nchildren(const prop_node *n);
PROP_API prop_node *prop_node_child(const prop_node *n, size_t i);
/* REVERT: the form that runs (NULL if the child is not revertable);
 * REVERTABLE: b.  NULL for other kinds. */
PROP_API prop_node *prop_node_reverted(const prop_node *n);
/* Sorted, without duplicates: the union over the node's tree. */
PROP_API size_t prop_node_nports(const prop_node *n);
PROP_API int prop_node_port(const prop_node *n, size_t i);
/* A leaf's own claims and info (none for composites). */
PROP_API size_t prop_node_nclaims(const prop_node *n);
PROP_API const prop_claim *prop_node_claim(const prop_node *n, size_t i);
PROP_API size_t prop_node_ninfo(const prop_node *n);
PROP_API const prop_info *prop_node_info(const prop_node *n, size_t i);
/*
 * How many leaf visits prop_node_each_leaf(n, PROP_OS_NONE, ...) makes,
 * saturating at UINT_MAX.  A graph sharing subtrees can expand
 * exponentially; a walker checks this before starting.
 */
PROP_API size_t prop_node_weight(const prop_node *n);
/* "DebianLike, revertable" / "UnixLike, ports 80 443"; returns buf. */
PROP_API const char *prop_node_type(const prop_node *n, char *buf, size_t size);

/*
 * Walk the leaves that take effect when n is ensured on a host running os
 * (PROP_OS_NONE: unknown), in execution order: a REVERT visits its
 * reverted form, a REVERTABLE its first side, a PICK_OS the alternative
 * chosen for os (every alternative when os is unknown; otherwise the first
 * whose targets meet os, or none).  PROP_INVALID leaves are visited too.
 * A non-zero return from visit stops the walk and is returned; PROP_EINVAL
 * for a NULL n or visit, PROP_ENOMEM if a very wide or deep graph needs
 * more stack than malloc gives.  The walk itself is not recursive.
 */
typedef int (*prop_leaf_visit)(void *ud, const prop_node *leaf);
PROP_API int prop_node_each_leaf(const prop_node *n, prop_os_set os, prop_leaf_visit visit,
                                 void *ud);

/* ---------------------------------------------------------------------
 * Hosts.
 */
PROP_API int prop_host_new(prop_site *s, const char *name, const prop_origin *o, prop_host **out);
/*
 * A container: a host inside a host, with its own properties (added with
 * prop_host_add) and OS.  It is attached to its parent by a leaf made
 * with spec.container set to it; prop_site_check() finds that leaf among
 * the parent's and links them.  Its name is its own ("web"); once
 * attached, prop_host_fullname() and prop_site_find_host() know it as
 * "PARENT/NAME".
 */
PROP_API int prop_container_new(prop_site *s, prop_container_kind kind, const char *name,
                                const prop_origin *o, prop_host **out);
PROP_API prop_container_kind prop_host_container_kind(const prop_host *h);
/* After prop_site_check(): the host a container is attached to (NULL for
 * a host, or a container attached to none), the leaf that attaches it,
 * and a host's containers in the order they are attached. */
PROP_API prop_host *prop_host_parent(const prop_host *h);
PROP_API const prop_node *prop_host_attached_by(const prop_host *h);
PROP_API size_t prop_host_ncontainers(const prop_host *h);
PROP_API prop_host *prop_host_container(const prop_host *h, size_t i);
/* "box/web" for a container web of box; a host's own name otherwise. */
PROP_API const char *prop_host_fullname(const prop_host *h);
/* The container a leaf attaches (NULL for any other node). */
PROP_API prop_host *prop_node_container(const prop_node *n);
PROP_API int prop_host_add(prop_site *s, prop_host *h, prop_node *p);
/*
 * prop_host_add, saying in which list of the site p was written: list is
 * an opaque token, equal for properties written in one list (a host's own
 * list, one role's, one profile's), NULL for "not known" (prop_host_add).
 * The same property twice in one list is W101; the same property from two
 * lists (two roles that each need a package) is two needs that agree.
 */
PROP_API int prop_host_add_in(prop_site *s, prop_host *h, prop_node *p, const void *list);
PROP_API const char *prop_host_name(const prop_host *h);
PROP_API const prop_origin *prop_host_origin(const prop_host *h);
PROP_API size_t prop_host_nprops(const prop_host *h);
PROP_API prop_node *prop_host_prop(const prop_host *h, size_t i);
/* The OS family of the first os.* property of the host, PROP_OS_NONE if none. */
PROP_API prop_os_set prop_host_os(const prop_host *h);
/*
 * The families the host's properties can run on: the intersection of the
 * targets of its top-level properties (UnixLike when it has none).  For a
 * host that declares no OS this is its type, as in Propellor; the run
 * refuses a target whose OS is outside it.
 */
PROP_API prop_os_set prop_host_targets(const prop_host *h);
/*
 * The i-th value of info key on the host (declaration order), NULL past
 * the end.  A container's alias is its parent's too (for the parent's
 * DNS), after the parent's own; its addresses are not (as in Propellor).
 */
PROP_API const char *prop_host_info(const prop_host *h, const char *key, size_t i);

PROP_API size_t prop_site_nhosts(const prop_site *s);
PROP_API prop_host *prop_site_host(const prop_site *s, size_t i);
/* The first host of that name, NULL if none. */
PROP_API prop_host *prop_site_find_host(const prop_site *s, const char *name);

/* ---------------------------------------------------------------------
 * What manages a thing: the claims, ports and info that match it.
 */
typedef struct prop_claim_match {
    const prop_host *host;
    const prop_node *top;    /* the host's top-level property it comes from */
    const prop_node *leaf;   /* the leaf that claims it */
    const prop_claim *claim; /* the claim, or NULL for a port or info match */
    int port;                /* a port match: the port; else 0 */
    const prop_info *info;   /* an info match (a bare word equal to a value), else NULL */
    /* The nodes from top down to the leaf's parent: chain[0] is top (when
     * the leaf is not top itself), chain[nchain - 1] the leaf's parent. */
    const prop_node *const *chain;
    size_t nchain;
} prop_claim_match;

typedef int (*prop_claim_visit)(void *ud, const prop_claim_match *m);

/*
 * Visit every match of thing on every host, in host and execution order:
 * "/path" (that path, and paths below it), "package:NAME",
 * "service:NAME", "user:NAME" or "user:UID", "group:NAME" or "group:GID",
 * "port:N", or a bare word (any claim whose key it is, a port, uid or gid
 * equal to it, an info value equal to it).  A web site's claims match its
 * port (web.name "NAME:PORT" and web.default "PORT" by "port:N" or "N")
 * and its name ("www.example.com" finds web.name "www.example.com:PORT"
 * on every port, in any case).  What takes effect on each
 * host is walked (the alternative of a pick_os for the host's OS, the
 * reverted form of a revert); a node is entered once per top-level
 * property.  A non-zero return from visit stops the walk and is returned;
 * PROP_EINVAL for an empty thing or a port outside 1..65535, PROP_ENOMEM.
 * The match and its chain are valid during the call only.
 */
PROP_API int prop_site_find_claims(const prop_site *s, const char *thing, prop_claim_visit visit,
                                   void *ud);
/* The same walk over the properties of host h of s only (not its containers). */
PROP_API int prop_host_find_claims(const prop_site *s, const prop_host *h, const char *thing,
                                   prop_claim_visit visit, void *ud);

/* ---------------------------------------------------------------------
 * The pre-pass and its diagnostics.
 */
typedef enum prop_severity { PROP_SEV_ERROR, PROP_SEV_WARNING } prop_severity;

typedef struct prop_note {
    const char *file; /* may be NULL when the note has no place */
    int line;
    const char *message;
} prop_note;

typedef struct prop_diag {
    char code[8]; /* "P001", "W101" */
    prop_severity severity;
    const char *file; /* may be NULL */
    int line;
    const char *message;
    const prop_note *notes;
    size_t nnotes;
} prop_diag;

/*
 * Check the whole site (every rule of the pre-pass), appending findings to
 * the diagnostics the constructors already recorded, then sort them by
 * file and line.  Returns the number of errors (>= 0), or a negative code.
 * Calling it twice does not repeat findings.
 */
PROP_API int prop_site_check(prop_site *s);
PROP_API size_t prop_site_ndiags(const prop_site *s);
PROP_API const prop_diag *prop_site_diag(const prop_site *s, size_t i);
/* Errors, counting warnings too when werror is set. */
PROP_API size_t prop_site_nerrors(const prop_site *s, int werror);
PROP_API size_t prop_site_nwarnings(const prop_site *s);

/*
 * Record a diagnostic from outside the pre-pass (the bindings use it for
 * misuse found while evaluating).  Notes for the outer frames of o
 * ("called from here") are added as for every diagnostic.
 */
PROP_API int prop_site_report(prop_site *s, const char *code, prop_severity sev,
                              const prop_origin *o, const char *message);

/*
 * Print the diagnostics GCC-style: "file:line: error[P001]: message", the
 * quoted source line, then one "file:line: note: ..." line per note.
 * With werror, warnings are printed as errors.  color: ANSI colours.
 */
PROP_API int prop_diags_print_text(const prop_site *s, FILE *f, int color, int werror);
/* A JSON array of diagnostics, one per line, as the SPEC shapes them. */
PROP_API int prop_diags_print_json(const prop_site *s, FILE *f, int werror);

/* The long explanation of a code, with an example and its fix; NULL if unknown. */
PROP_API const char *prop_explain(const char *code);
/* One line: what the rule is.  NULL if unknown. */
PROP_API const char *prop_explain_summary(const char *code);
/* Every known code, in order, NULL-terminated. */
PROP_API const char *const *prop_explain_codes(void);

/*
 * Text from a site or a target, for people and for programs.
 *
 * prop_json_write_string: s[0..len) (NUL bytes allowed) as a quoted JSON
 * string, always valid UTF-8 JSON: control characters escaped, each byte
 * that is not part of valid UTF-8 written as U+FFFD.
 *
 * prop_text_write: s[0..len) for a terminal, with what a terminal would
 * obey shown instead: control characters (C0, DEL, C1) as \e, \r, \n,
 * \t or \xNN, and bytes that are not valid UTF-8 as \xNN.  With
 * PROP_TEXT_LINES, newlines and tabs are kept (a block of lines).
 *
 * prop_text_clean: whether s[0..len) is valid UTF-8 without control
 * characters (host names must be).
 *
 * The writers return 0, PROP_EINVAL, or PROP_ERROR on a write error.
 */
#define PROP_TEXT_LINES 1u
PROP_API int prop_json_write_string(FILE *f, const char *s, size_t len);
PROP_API int prop_text_write(FILE *f, const char *s, size_t len, unsigned flags);
PROP_API int prop_text_puts(FILE *f, const char *s, unsigned flags); /* NULL: "" */
PROP_API int prop_text_clean(const char *s, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* PROP_PROP_H */
