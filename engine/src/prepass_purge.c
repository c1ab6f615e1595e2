/*
 * prepass_purge.c - P012 for a purge (claim file.purged: a directory that
 * holds only what the host's properties claim, everything else removed at
 * run time) that the pre-pass refuses before anything runs:
 *
 *   - a system directory, or an ancestor of one ("/", "/etc", "/usr",
 *     "/var/lib", ...: protected_dirs below): most of what is in it comes
 *     from packages and the system, which no site declares;
 *   - a directory that is, or holds, a path a container attached to the
 *     host claims (its tree, its settings file): the container's files
 *     would be at the mercy of the purge.
 *
 * Ownership: diagnostics live in the site's arena (diag.c); nothing else
 * is allocated.
 */
#include <string.h>

#include "prepass.h"

/* Directories a purge may not empty, nor any directory above them. */
static const char *const protected_dirs[] = {
    "/bin",         "/boot",          "/dev",           "/etc",           "/home",
    "/lib",         "/lib32",         "/lib64",         "/libx32",        "/media",
    "/mnt",         "/opt",           "/proc",          "/root",          "/run",
    "/sbin",        "/srv",           "/sys",           "/tmp",           "/usr",
    "/usr/bin",     "/usr/include",   "/usr/lib",       "/usr/lib64",     "/usr/libexec",
    "/usr/local",   "/usr/local/bin", "/usr/local/etc", "/usr/local/lib", "/usr/local/sbin",
    "/usr/sbin",    "/usr/share",     "/usr/src",       "/var",           "/var/backups",
    "/var/cache",   "/var/db",        "/var/lib",       "/var/lib/apt",   "/var/lib/dpkg",
    "/var/lib/rpm", "/var/local",     "/var/lock",      "/var/log",       "/var/mail",
    "/var/opt",     "/var/run",       "/var/spool",     "/var/tmp",
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* The length of path without its trailing slashes ("/" keeps its own). */
static size_t
trimmed(const char *path)
{
    size_t n = strlen(path);

    while (n > 1 && path[n - 1] == '/')
        n--;
    return n;
}

/* Is path[0..pl) dir[0..dl) itself or a path below it? */
static int
at_or_below(const char *path, size_t pl, const char *dir, size_t dl)
{
    if (dl == 1 && dir[0] == '/')
        return path[0] == '/';
    return pl >= dl && memcmp(path, dir, dl) == 0 && (pl == dl || path[dl] == '/');
}

/* The protected directory at or below the purged path, or NULL. */
static const char *
protected_below(const char *path)
{
    size_t pl = trimmed(path), i;

    for (i = 0; i < NELEM(protected_dirs); i++)
        if (at_or_below(protected_dirs[i], strlen(protected_dirs[i]), path, pl))
            return protected_dirs[i];
    return NULL;
}

/* P012 at a leaf that purges a protected directory or an ancestor of one;
 * each node once (called for every node of the site). */
int
pp_check_purge_node(checker *k, const prop_node *n)
{
    unsigned i;

    if (n->kind != PROP_LEAF)
        return PROP_OK;
    for (i = 0; i < n->leaf->nclaims; i++) {
        const prop_claim *c = &n->leaf->claims[i];
        const char *p;
        diag_builder b;
        int rc;

        if (c->kind != PROP_CLAIM_FILE_PURGED || (p = protected_below(c->key)) == NULL)
            continue;
        if (strcmp(p, c->key) == 0)
            rc = diag_begin(&b, k->s, "P012", PROP_SEV_ERROR, n->origin,
                            "%s: refusing to purge \"%s\": it is a system directory, most of "
                            "what it holds comes from packages and the system, not from the "
                            "site",
                            n->desc, c->key);
        else
            rc = diag_begin(&b, k->s, "P012", PROP_SEV_ERROR, n->origin,
                            "%s: refusing to purge \"%s\": it holds the system directory \"%s\", "
                            "whose files come from packages and the system, not from the site",
                            n->desc, c->key, p);
        if (rc == PROP_OK)
            rc = diag_note(&b, n->origin,
                           "purge a directory the site fills itself (\"/etc/sudoers.d\", "
                           "\"/etc/nginx/sites-enabled\"), never one of /, /etc, /usr, /var, "
                           "/var/lib, ... (prop-site(5), file.directory)");
        if (rc == PROP_OK)
            rc = diag_end(&b);
        if (rc != PROP_OK)
            return rc;
    }
    return PROP_OK;
}

/* P012 at a purge of the host that would empty a container's tree or a
 * file its attaching leaf claims: the container's leaf is named in a note. */
static int
purge_vs_containers(checker *k, const prop_node *l, const prop_claim *c)
{
    size_t pl = trimmed(c->key), e;

    if (protected_below(c->key) != NULL)
        return PROP_OK; /* refused already: one mistake, one finding */
    for (e = 0; e < k->nents; e++) {
        const prop_node *o = k->ents[e].leaf;
        unsigned i;

        if (o->leaf->container == NULL || o->leaf->detaches || o == l)
            continue;
        for (i = 0; i < o->leaf->nclaims; i++) {
            const prop_claim *oc = &o->leaf->claims[i];
            const char *name = prop_claim_kind_name(oc->kind);
            diag_builder b;
            int rc;

            if (strncmp(name, "file.", 5) != 0 || oc->key[0] != '/' ||
                !at_or_below(oc->key, strlen(oc->key), c->key, pl))
                continue;
            rc = pp_pair_take(k->s, &k->pairs, l, o);
            if (rc <= 0)
                return rc == 0 ? PROP_OK : rc;
            rc = diag_begin(&b, k->s, "P012", PROP_SEV_ERROR, l->origin,
                            "%s: refusing to purge \"%s\": it holds \"%s\", which container "
                            "\"%s\" of host \"%s\" needs",
                            l->desc, c->key, oc->key, o->leaf->container->name, k->h->name);
            if (rc == PROP_OK)
                rc = diag_note(&b, o->origin,
                               "\"%s\" claims \"%s\" here: purge a directory that holds no "
                               "container's tree or files",
                               o->desc, oc->key);
            if (rc == PROP_OK)
                rc = diag_end(&b);
            return rc;
        }
    }
    return PROP_OK;
}

/* The per-host part: every purge of the host's effective leaves against
 * the containers attached to it. */
int
pp_check_purge_host(checker *k)
{
    size_t e;

    for (e = 0; e < k->nents; e++) {
        const prop_node *l = k->ents[e].leaf;
        unsigned i;

        for (i = 0; i < l->leaf->nclaims; i++) {
            int rc;

            if (l->leaf->claims[i].kind != PROP_CLAIM_FILE_PURGED)
                continue;
            if ((rc = purge_vs_containers(k, l, &l->leaf->claims[i])) != PROP_OK)
                return rc;
        }
    }
    return PROP_OK;
}
