/*
 * transport_ssh_module.h - what libprop and its SSH module agree on.
 *
 * The SSH transport (transport_ssh.c and its parts, see transport_ssh.h)
 * is built as a module of its own, libprop-ssh.so, so that a program that
 * never reaches a host over SSH does not load libssh and its libraries
 * (libcrypto, GSSAPI, Kerberos).  prop_transport_ssh()
 * (transport_ssh_load.c) loads it on first use and calls its one exported
 * function.
 *
 * The module is built from the same sources as the library that loads it
 * and shares its private structures (prop_transport, its ops), so the two
 * must come from the same build: the entry's name carries a number
 * raised with its arguments, and the entry refuses a caller whose version or
 * structure sizes differ from its own.
 */
#ifndef PROP_TRANSPORT_SSH_MODULE_H
#define PROP_TRANSPORT_SSH_MODULE_H

#include <stddef.h>

#include "transport_impl.h"

/* The module's file name, looked up as dlopen(3) does, then in PROP_MODULE_DIR. */
#define PROP_SSH_MODULE_FILE "libprop-ssh.so"
/* The entry's name: its number is raised whenever its arguments change. */
#define PROP_SSH_MODULE_ENTRY_FN prop_ssh_module_open_v1
#define PROP_SSH_MODULE_STR_(x) #x
#define PROP_SSH_MODULE_STR(x) PROP_SSH_MODULE_STR_(x)
#define PROP_SSH_MODULE_ENTRY PROP_SSH_MODULE_STR(PROP_SSH_MODULE_ENTRY_FN)

/* What the module checks before it does anything. */
typedef struct prop_ssh_module_caller {
    const char *version;   /* PROP_VERSION of the caller */
    size_t transport_size; /* sizeof (prop_transport) */
    size_t ops_size;       /* sizeof (prop_transport_ops) */
    size_t opts_size;      /* sizeof (prop_ssh_opts) */
} prop_ssh_module_caller;

/* Returned by the entry when the caller is not from its build (*out is NULL). */
#define PROP_SSH_MODULE_MISMATCH (-100)

/* The entry: prop_transport_ssh() of the module. */
typedef int (*prop_ssh_module_entry)(const prop_ssh_module_caller *caller, prop_transport **out,
                                     const prop_ssh_opts *opts);

#endif /* PROP_TRANSPORT_SSH_MODULE_H */
