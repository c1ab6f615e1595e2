/*
 * transport_ssh_entry.c - the one symbol libprop-ssh.so exports (see
 * transport_ssh_module.h): prop_transport_ssh() of this module, once the
 * caller is known to come from the same build.
 */
#include <string.h>

#include "transport_ssh_module.h"

__attribute__((visibility("default"))) int
PROP_SSH_MODULE_ENTRY_FN(const prop_ssh_module_caller *caller, prop_transport **out,
                         const prop_ssh_opts *opts);

int
PROP_SSH_MODULE_ENTRY_FN(const prop_ssh_module_caller *caller, prop_transport **out,
                         const prop_ssh_opts *opts)
{
    if (out)
        *out = NULL;
    if (!caller || !caller->version || strcmp(caller->version, PROP_VERSION) != 0 ||
        caller->transport_size != sizeof(prop_transport) ||
        caller->ops_size != sizeof(prop_transport_ops) ||
        caller->opts_size != sizeof(prop_ssh_opts))
        return PROP_SSH_MODULE_MISMATCH;
    return prop_transport_ssh(out, opts);
}
