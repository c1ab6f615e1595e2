/*
 * transport_ssh_prefetch.c - prop_transport_prefetch() over SSH: the
 * script of transport_sh_prefetch.c run by the remote shell (as its
 * function prop_pf), one round trip.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport_ssh.h"

void
prop_ssh_pf_clear(ssh_tr *s)
{
    prop_pf_clear(&s->pf);
}

void
prop_ssh_pf_forget(ssh_tr *s, const char *path, int follows)
{
    prop_pf_forget(&s->pf, path, follows, s->base.changes);
}

/* Run the prefetch script on args (prop_pf_run): 1 ran with status 0, 0 it did not, <0 the session
 * failed. */
static int
pf_run(void *ud, const char *const *args, prop_cmd_result *r)
{
    ssh_tr *s = ud;
    int rc = prop_ssh_run_script(s, "prop_pf", prop_sh_prefetch, args, NULL, 0, r, "prefetch");

    if (rc)
        return s->dead ? rc : 0; /* a hint: only a lost connection matters */
    if (r->code != 0) {
        prop_cmd_result_clear(r);
        return 0;
    }
    return 1;
}

int
prop_ssh_sshtr_prefetch(prop_transport *t, const char *const *paths, size_t npaths)
{
    ssh_tr *s = (ssh_tr *)t;

    prop_ssh_pf_clear(s);
    if (s->dead)
        return prop_ssh_fail_lost(s, "prefetch");
    return prop_pf_fetch(&s->pf, paths, npaths, s->base.changes, pf_run, s);
}
