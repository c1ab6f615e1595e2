/*
 * secret_uses.c - where a site uses the secrets of its store: P015 for a
 * secret a host uses that the store lacks for it (part of every check of
 * a site), and the uses that prop secret list prints.
 *
 * Each property records the secrets it uses as info "secret" (bindings
 * find them in its arguments and in what its functions capture), so a use
 * is found by the engine's claims query (a bare word matches an info
 * value): host by host, in execution order, each leaf once, without
 * walking a shared graph exponentially.  Nothing here decrypts anything:
 * the names and hosts of the store are readable without a key.
 */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "cli.h"
#include "prop/secrets.h"

/* The distinct names of the secrets used on any host, in first-use order. */
typedef struct names {
    const char **v;
    size_t n, cap;
} names;

static int
add_name(names *ns, const char *name)
{
    size_t i;

    for (i = 0; i < ns->n; i++)
        if (strcmp(ns->v[i], name) == 0)
            return 0;
    if (prop_array_reserve(ns->v, ns->cap, ns->n, 1, 16) != 0)
        return -1;
    ns->v[ns->n++] = name;
    return 0;
}

/* Every secret name the site's hosts use (info "secret"). */
static int
used_names(const prop_site *s, names *ns)
{
    size_t h, i;
    const char *v;

    for (h = 0; h < prop_site_nhosts(s); h++)
        for (i = 0; (v = prop_host_info(prop_site_host(s, h), PROP_INFO_SECRET, i)) != NULL; i++)
            if (add_name(ns, v) != 0)
                return -1;
    return 0;
}

typedef struct check {
    prop_site *site;
    prop_secrets *store; /* NULL: there is no store */
    const char *store_path;
    const char *site_path;
    const char *name;
    int rc;
} check;

static int
check_use(void *ud, const prop_claim_match *m)
{
    check *c = ud;
    const char *host = prop_host_fullname(m->host);
    char msg[1200];

    if (m->info == NULL || strcmp(m->info->key, PROP_INFO_SECRET) != 0)
        return 0;
    /* An unattached container is not run: nothing to check for it. */
    if (prop_host_container_kind(m->host) != PROP_CONTAINER_NONE && !prop_host_parent(m->host))
        return 0;
    if (c->store && prop_secrets_has(c->store, c->name, host))
        return 0;
    snprintf(msg, sizeof msg,
             "secret \"%s\" is used on host \"%s\" but %s has no value for it (neither for %s "
             "nor for the whole site): prop secret set %s %s --host %s",
             c->name, host, c->store_path, host, c->site_path, c->name, host);
    c->rc = prop_site_report(c->site, "P015", PROP_SEV_ERROR, prop_node_origin(m->leaf), msg);
    return c->rc != PROP_OK;
}

int
cli_check_secrets(lprop_ctx *ctx, const char *site)
{
    names ns = {NULL, 0, 0};
    prop_secrets *store = NULL;
    char *path = NULL;
    check c;
    size_t i;
    int rc = PROP_OK;

    if (!ctx->secrets_made)
        return PROP_OK; /* no secret "name" in the site */
    if (used_names(ctx->site, &ns) != 0 || prop_secrets_store_path(&path, site) != PROP_OK) {
        rc = PROP_ENOMEM;
        goto done;
    }
    if (ns.n == 0)
        goto done;
    if (prop_secrets_open(&store, path) != PROP_OK) {
        /* One error a line of the store's (it gathers several). */
        const char *e = prop_secrets_error(store), *nl;
        char msg[1400];

        do {
            nl = strchr(e, '\n');
            snprintf(msg, sizeof msg, "the secret store cannot be read: %.*s",
                     (int)(nl ? (size_t)(nl - e) : strlen(e)), e);
            rc = prop_site_report(ctx->site, "P015", PROP_SEV_ERROR, NULL, msg);
            e = nl + 1;
        } while (nl && rc == PROP_OK);
        goto done;
    }
    memset(&c, 0, sizeof c);
    c.site = ctx->site;
    c.store = store;
    c.store_path = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    c.site_path = site;
    for (i = 0; i < ns.n && rc == PROP_OK; i++) {
        c.name = ns.v[i];
        c.rc = PROP_OK;
        rc = prop_site_find_claims(ctx->site, ns.v[i], check_use, &c);
        if (rc > 0)
            rc = c.rc;
    }
    if (rc == PROP_OK)
        rc = prop_site_check(ctx->site) < 0 ? PROP_ENOMEM : PROP_OK; /* sorts them in */
done:
    prop_secrets_free(store);
    free(path);
    free((void *)ns.v);
    return rc;
}

/* ---- prop secret list: where each is used ---- */

typedef struct lister {
    FILE *out;
    const char *name;
    size_t found;
} lister;

static int
list_use(void *ud, const prop_claim_match *m)
{
    lister *l = ud;
    const prop_origin *o = prop_node_origin(m->leaf);

    if (m->info == NULL || strcmp(m->info->key, PROP_INFO_SECRET) != 0)
        return 0;
    fprintf(l->out, "  %s  used on %s by \"", l->name, prop_host_fullname(m->host));
    prop_text_puts(l->out, prop_node_desc(m->leaf), 0);
    fputs("\"", l->out);
    if (o && o->nframes) {
        fputs(" (", l->out);
        prop_text_puts(l->out, o->frames[0].file, 0);
        fprintf(l->out, ":%d)", o->frames[0].line);
    }
    fputc('\n', l->out);
    l->found++;
    return 0;
}

int
cli_secret_uses(const char *site, prop_secrets *store, FILE *out)
{
    cli_site_opts o;
    lprop_ctx *ctx;
    names ns = {NULL, 0, 0};
    size_t i;
    int evaluated, rc = 0;

    cli_site_opts_init(&o);
    o.limits.check_only = 1;
    ctx = cli_load_site(site, &o, &evaluated);
    if (ctx == NULL)
        return 1;
    if (!evaluated) {
        fprintf(stderr,
                "prop secret: %s cannot be evaluated (prop lint shows why): where its "
                "secrets are used is not known\n",
                site);
        lprop_close(ctx);
        return 0;
    }
    if (used_names(ctx->site, &ns) != 0) {
        lprop_close(ctx);
        return 1;
    }
    fputs("\nwhere the site uses them:\n", out);
    for (i = 0; i < ns.n; i++) {
        lister l = {out, ns.v[i], 0};

        (void)prop_site_find_claims(ctx->site, ns.v[i], list_use, &l);
    }
    if (ns.n == 0)
        fputs("  (nowhere)\n", out);
    /* A value for a host the site does not have is never used. */
    for (i = 0; i < prop_secrets_count(store); i++) {
        const char *name, *host;

        if (prop_secrets_entry(store, i, &name, &host) != PROP_OK || host == NULL)
            continue;
        if (prop_site_find_host(ctx->site, host) == NULL)
            fprintf(stderr,
                    "prop secret: warning: %s is set for host %s, which %s does not declare\n",
                    name, host, site);
    }
    free((void *)ns.v);
    lprop_close(ctx);
    return rc;
}
