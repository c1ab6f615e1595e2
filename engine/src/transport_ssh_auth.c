/*
 * transport_ssh_auth.c - the SSH transport's authentication (see
 * transport_ssh.c for the rules: public keys only, never a prompt).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "transport_ssh.h"

/* ---------------------------------------------------------------------
 * Authentication.
 */
int
prop_ssh_refuse_passphrase(const char *prompt, char *buf, size_t len, int echo, int verify,
                           void *userdata)
{
    (void)prompt;
    (void)echo;
    (void)verify;
    if (len)
        buf[0] = '\0';
    *(int *)userdata = 1;
    return -1;
}

static int
auth_identity(ssh_tr *s, const char *identity, prop_buf *tried)
{
    char *path = prop_ssh_expand_home(identity);
    ssh_key key = NULL;
    struct stat sb;
    int rc, asked = 0;

    if (!path) {
        prop_transport_fail(&s->base, "out of memory");
        return AUTH_NO_KEY;
    }
    if (stat(path, &sb) != 0) {
        if (errno == ENOENT)
            prop_transport_fail(&s->base, "identity file %s: no such file", path);
        else
            prop_transport_fail(&s->base, "identity file %s: %s", path, strerror(errno));
        free(path);
        return AUTH_NO_KEY;
    }
    rc = ssh_pki_import_privkey_file(path, NULL, prop_ssh_refuse_passphrase, &asked, &key);
    if (rc != SSH_OK) {
        if (asked)
            prop_transport_fail(&s->base,
                                "identity file %s needs a passphrase, which prop does not ask "
                                "for; load it into ssh-agent (ssh-add %s) and leave identity "
                                "unset",
                                path, path);
        else if (rc == SSH_EOF)
            prop_transport_fail(&s->base, "identity file %s: cannot read it", path);
        else
            prop_transport_fail(&s->base, "identity file %s: not a private key libssh can read",
                                path);
        free(path);
        return AUTH_NO_KEY;
    }
    rc = ssh_userauth_publickey(s->session, NULL, key);
    ssh_key_free(key);
    if (prop_buf_adds(tried, path) < 0) {
        prop_transport_fail(&s->base, "out of memory");
        rc = AUTH_NO_KEY;
    }
    free(path);
    return rc;
}

/*
 * The agent (when SSH_AUTH_SOCK is set), then the default keys of ~/.ssh:
 * ssh_userauth_publickey_auto() does both.  (Calling ssh_userauth_agent()
 * first would make libssh 0.10 fetch the agent's keys twice, and it leaks
 * the first list when it does.)  tried gets what was offered.
 */
static int
auth_default(ssh_tr *s, prop_buf *tried)
{
    static const char *const keys[] = {"id_ed25519", "id_ecdsa", "id_rsa", "id_dsa"};
    const char *sock = getenv("SSH_AUTH_SOCK"), *home = prop_ssh_user_home();
    char path[4200];
    struct stat sb;
    size_t i;
    int rc, nkeys = 0;

    rc = ssh_userauth_publickey_auto(s->session, NULL, NULL);
    if (prop_buf_adds(tried, sock && *sock ? "agent" : "no agent (SSH_AUTH_SOCK unset)") < 0)
        return SSH_AUTH_ERROR;
    for (i = 0; home && i < sizeof keys / sizeof keys[0]; i++) {
        snprintf(path, sizeof path, "%s/.ssh/%s", home, keys[i]);
        if (stat(path, &sb) != 0)
            continue;
        if (prop_buf_adds(tried, ", ") < 0 || prop_buf_adds(tried, path) < 0)
            return SSH_AUTH_ERROR;
        nkeys++;
    }
    if (!nkeys &&
        (prop_buf_adds(tried, ", no default key in ") < 0 ||
         prop_buf_adds(tried, home ? home : "~") < 0 || prop_buf_adds(tried, "/.ssh") < 0))
        return SSH_AUTH_ERROR;
    return rc;
}

int
prop_ssh_authenticate(ssh_tr *s, const prop_ssh_opts *opts)
{
    prop_buf tried = PROP_BUF_INIT;
    int rc, methods;

    rc = ssh_userauth_none(s->session, NULL);
    if (rc == SSH_AUTH_SUCCESS)
        return 0;
    if (rc == SSH_AUTH_ERROR)
        return prop_transport_fail(&s->base, "%s@%s: authentication failed: %s", s->user,
                                   s->hostport, ssh_get_error(s->session));
    methods = ssh_userauth_list(s->session, NULL);
    if (!(methods & SSH_AUTH_METHOD_PUBLICKEY))
        return prop_transport_fail(&s->base,
                                   "%s@%s: authentication rejected: the server does not accept "
                                   "public keys",
                                   s->user, s->hostport);
    if (opts->identity)
        rc = auth_identity(s, opts->identity, &tried);
    else
        rc = auth_default(s, &tried);
    if (rc == AUTH_NO_KEY) {
        prop_buf_free(&tried);
        return PROP_ERROR;
    }
    switch (rc) {
    case SSH_AUTH_SUCCESS:
        break;
    case SSH_AUTH_PARTIAL:
        prop_transport_fail(&s->base,
                            "%s@%s: the key was accepted but the server asks for more "
                            "authentication, which prop cannot give",
                            s->user, s->hostport);
        break;
    case SSH_AUTH_DENIED:
        prop_transport_fail(&s->base, "%s@%s: authentication rejected (tried: %s)", s->user,
                            s->hostport, tried.p ? tried.p : "nothing");
        break;
    default:
        prop_transport_fail(&s->base, "%s@%s: authentication failed: %s", s->user, s->hostport,
                            ssh_get_error(s->session));
        break;
    }
    prop_buf_free(&tried);
    return rc == SSH_AUTH_SUCCESS ? 0 : PROP_ERROR;
}
