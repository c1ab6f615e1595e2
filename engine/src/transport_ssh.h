/*
 * transport_ssh.h - what the parts of the SSH transport share: its state
 * (ssh_tr) and the calls from one part to another.
 *
 *   transport_ssh.c       the session, the remote shell and its protocol,
 *                         the file operations, prefetch, the run lock
 *   transport_ssh_keys.c  host keys (known_hosts) and authentication
 *   transport_sh.c        the file operations' shell scripts (shared with
 *                         the container transport)
 */
#ifndef PROP_TRANSPORT_SSH_H
#define PROP_TRANSPORT_SSH_H

#include <stddef.h>

#include <libssh/callbacks.h>
#include <libssh/libssh.h>

#include "buf.h"
#include "transport_sh.h"

#define SSH_DEFAULT_PORT 22
#define SSH_DEFAULT_CONNECT_TIMEOUT 10
#define SSH_DEFAULT_OP_TIMEOUT 300
#define AUTH_NO_KEY -100 /* the identity could not be loaded (reason in t->err) */

/* Internal names, kept out of the way of libssh's and the others'. */
#define user_home prop_ssh_user_home
#define expand_home prop_ssh_expand_home
#define check_host_key prop_ssh_check_host_key
#define authenticate prop_ssh_authenticate
#define refuse_passphrase prop_ssh_refuse_passphrase

/* ---------------------------------------------------------------------
 * The transport.
 */
typedef struct chan {
    ssh_channel ch;
    struct ssh_channel_callbacks_struct cb;
    int cb_set;
    prop_buf out, err;
    int eof, closed, have_status, status, oom;
} chan;

typedef struct ssh_tr {
    prop_transport base;
    ssh_session session;
    ssh_event event;
    struct ssh_callbacks_struct scb; /* refuses passphrase prompts */
    int passphrase_asked;
    char *address, *user, *known_hosts;
    char hostport[300]; /* "127.0.0.1:2222", "[::1]:22": for messages */
    int port, sudo, op_timeout;
    int connected; /* ssh_connect() succeeded and no ssh_disconnect() yet */
    int dead;      /* the connection is gone: operations fail at once */
    char dead_why[512];
    int locked;
    chan lock;
    /* The remote shell (see "The remote shell" below). */
    chan sh;
    int sh_up;
    char mark[40];             /* "prop-" and 32 random hex digits */
    char pidmark[48];          /* mark and "-pid": the run wrapper's first line */
    size_t out_scan, err_scan; /* how far the answer's end was looked for */
    /* What prop_transport_prefetch() fetched, sorted by path; valid while
     * base.changes == pf_changes. */
    struct pf_entry *pf;
    size_t npf;
    unsigned long pf_changes;
} ssh_tr;

/* The running user's home directory, or NULL. */
const char *user_home(void);
/* path with a leading "~/" replaced by the running user's home (malloc'd). */
char *expand_home(const char *path);

/* transport_ssh_keys.c */
/* Check the server's host key against the known_hosts file (recording an
 * unknown one when accept_new): 0, or PROP_EUNREACHABLE with the reason. */
int check_host_key(ssh_tr *s, int accept_new);
/* Public-key authentication (see transport_ssh.c): 0 or PROP_ERROR. */
int authenticate(ssh_tr *s, const prop_ssh_opts *opts);
/* libssh's passphrase callback: never prompts. */
int refuse_passphrase(const char *prompt, char *buf, size_t len, int echo, int verify,
                      void *userdata);

#endif /* PROP_TRANSPORT_SSH_H */
