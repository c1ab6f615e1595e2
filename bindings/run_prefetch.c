/*
 * run_prefetch.c - before a host's properties run, prop run tells the
 * transport which files they will look at: the paths they claim (file.*
 * claims), the pending file of prop's state directory (run_pending.c),
 * and /etc/os-release when the OS is to be found out.
 */
#include <stdlib.h>

#include "array.h"
#include "run.h"

typedef struct path_list {
    const char **v;
    size_t n, cap;
    int oom;
} path_list;

/* The paths n and the nodes below it claim (file.* claims). */
static void
claimed_paths(const prop_node *n, path_list *l)
{
    size_t i, nc = prop_node_nclaims(n);

    for (i = 0; i < nc && !l->oom; i++) {
        const prop_claim *c = prop_node_claim(n, i);

        /* The file.* kinds: the first ones in prop_claim_kind, file.owned
         * and file.setting. */
        if ((c->kind > PROP_CLAIM_FILE_NO_LINE && c->kind != PROP_CLAIM_FILE_OWNED &&
             c->kind != PROP_CLAIM_FILE_SETTING) ||
            !c->key || c->key[0] != '/')
            continue;
        if (prop_array_reserve(l->v, l->cap, l->n, 1, 64) != 0) {
            l->oom = 1;
            return;
        }
        l->v[l->n++] = c->key;
    }
    for (i = 0; i < prop_node_nchildren(n); i++)
        claimed_paths(prop_node_child(n, i), l);
}

/*
 * Tell the transport which files the host's properties are about to look
 * at, and those prop run reads itself before them: over SSH their stats
 * and small contents then come in one round trip instead of one or two
 * per property.  A hint: nothing depends on it.
 */
void
run_prefetch(prop_transport *t, const prop_host *h, int os_unknown)
{
    static const char os_release[] = "/etc/os-release";
    path_list l = {0};
    size_t i;

    if (!(l.v = malloc(64 * sizeof *l.v)))
        return;
    l.cap = 64;
    l.v[l.n++] = run_pending_path();
    if (os_unknown)
        l.v[l.n++] = os_release;
    for (i = 0; i < prop_host_nprops(h); i++)
        claimed_paths(prop_host_prop(h, i), &l);
    if (!l.oom && l.n)
        (void)prop_transport_prefetch(t, l.v, l.n);
    free(l.v);
}
