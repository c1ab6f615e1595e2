/*
 * transport_ssh_load.c - prop_transport_ssh() in libprop: loads the SSH
 * module (libprop-ssh.so, see transport_ssh_module.h) on first use and
 * hands the call to it.  A program that reaches no host over SSH never
 * loads libssh.
 *
 * Where the module is looked for: first where dlopen(3) would look for a
 * bare file name called from the object libprop is in, which for prop
 * and libprop.so means their run path first ($ORIGIN/../lib/prop and
 * $ORIGIN/prop once installed, the build tree before), then in
 * PROP_MODULE_DIR, the directory it is installed in (for a program
 * linked with the static libprop.a).
 *
 * The module stays loaded until the process ends: the transports it made
 * point into it.
 */
#define _GNU_SOURCE /* dladdr1, dlinfo */

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "transport_ssh_module.h"

#ifndef PROP_MODULE_DIR
#define PROP_MODULE_DIR "/usr/local/lib/prop"
#endif

#ifdef PROP_SANITIZE
/*
 * A PROP_SANITIZE build only.  The module is opened with dlopen(), so the
 * thread-local storage of libssh and libcrypto is dynamic TLS, which
 * LeakSanitizer tracks by intercepting __tls_get_addr.  Against Debian
 * 12's glibc that tracking can take glibc's TLS header for an older
 * layout and record a range that is not memory; the leak check at exit
 * then dies scanning it ("Tracer caught signal 11"), a fault of the
 * runtime, not of prop.  The static TLS and the heap are still scanned.
 * ASAN_OPTIONS given in the environment take precedence.
 */
__attribute__((visibility("default"))) const char *__asan_default_options(void);

__attribute__((visibility("default"))) const char *
__asan_default_options(void)
{
    return "intercept_tls_get_addr=0";
}
#endif

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static prop_ssh_module_entry entry;
static char load_error[768];
/* Why a module that is there did not load (its libssh missing, say). */
static char found_error[512];

/* dlopen(path), keeping the reason when path exists but will not load. */
static void *
open_path(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    const char *why;

    if (!h && !found_error[0] && access(path, F_OK) == 0 && (why = dlerror()) != NULL)
        snprintf(found_error, sizeof found_error, "%s", why);
    return h;
}

#ifdef __GLIBC__
/* An address inside the object this code is linked into. */
static const char anchor;

/*
 * dlopen() of the bare name, as if called from the object that holds
 * libprop (prop, libprop.so or a program linked with libprop.a): its run
 * path ($ORIGIN expanded), LD_LIBRARY_PATH, the system's directories.
 * dlopen() itself would search the caller's path, but the caller may be
 * an interposer (a sanitizer's runtime), so every directory is tried with
 * the full name.  NULL when none has the module.
 */
static void *
open_from_search_path(void)
{
    Dl_serinfo size, *si;
    struct link_map *map = NULL;
    Dl_info info;
    void *h = NULL;
    unsigned i;

    if (!dladdr1(&anchor, &info, (void **)&map, RTLD_DL_LINKMAP) || !map ||
        dlinfo(map, RTLD_DI_SERINFOSIZE, &size) != 0 || !(si = prop_malloc(size.dls_size)))
        return NULL;
    if (dlinfo(map, RTLD_DI_SERINFOSIZE, si) == 0 && dlinfo(map, RTLD_DI_SERINFO, si) == 0) {
        for (i = 0; i < si->dls_cnt && !h; i++) {
            char path[4096];
            int n = snprintf(path, sizeof path, "%s/%s", si->dls_serpath[i].dls_name,
                             PROP_SSH_MODULE_FILE);

            if (n > 0 && (size_t)n < sizeof path && si->dls_serpath[i].dls_name[0] == '/')
                h = open_path(path);
        }
    }
    free(si);
    return h;
}
#else
static void *
open_from_search_path(void)
{
    return dlopen(PROP_SSH_MODULE_FILE, RTLD_NOW | RTLD_LOCAL);
}
#endif

static void
load_module(void)
{
    const char *why;
    void *h;

    h = open_from_search_path();
    if (!h)
        h = open_path(PROP_MODULE_DIR "/" PROP_SSH_MODULE_FILE);
    if (!h && found_error[0]) {
        snprintf(load_error, sizeof load_error, "ssh: the SSH transport cannot be loaded: %s",
                 found_error);
        return;
    }
    if (!h) {
        why = dlerror();
        snprintf(load_error, sizeof load_error,
                 "ssh: the SSH transport is not installed: cannot load " PROP_SSH_MODULE_FILE
                 " from the library path nor from " PROP_MODULE_DIR " (%s)",
                 why ? why : "not found");
        return;
    }
    /* POSIX's way from an object pointer to a function pointer. */
    *(void **)&entry = dlsym(h, PROP_SSH_MODULE_ENTRY);
    if (!entry) {
        why = dlerror();
        snprintf(load_error, sizeof load_error,
                 "ssh: " PROP_SSH_MODULE_FILE " is not this prop's SSH module: %s",
                 why ? why : "no " PROP_SSH_MODULE_ENTRY);
        (void)dlclose(h);
    }
}

/* ---- a transport that only says why there is none (t->err) ---- */

static int
nt_run(prop_transport *t, const char *const *argv, const char *stdin_data, size_t stdin_len,
       prop_cmd_result *r)
{
    (void)t;
    (void)argv;
    (void)stdin_data;
    (void)stdin_len;
    (void)r;
    return PROP_ERROR;
}

static int
nt_read(prop_transport *t, const char *path, char **data, size_t *len)
{
    (void)t;
    (void)path;
    (void)data;
    (void)len;
    return PROP_ERROR;
}

static int
nt_write(prop_transport *t, const char *path, const char *data, size_t len,
         const prop_file_attrs *attrs)
{
    (void)t;
    (void)path;
    (void)data;
    (void)len;
    (void)attrs;
    return PROP_ERROR;
}

static int
nt_stat(prop_transport *t, const char *path, prop_file_stat *st)
{
    (void)t;
    (void)path;
    (void)st;
    return PROP_ERROR;
}

static int
nt_path(prop_transport *t, const char *path)
{
    (void)t;
    (void)path;
    return PROP_ERROR;
}

static int
nt_path_attrs(prop_transport *t, const char *path, const prop_file_attrs *attrs)
{
    (void)t;
    (void)path;
    (void)attrs;
    return PROP_ERROR;
}

static int
nt_symlink(prop_transport *t, const char *target, const char *link)
{
    (void)t;
    (void)target;
    (void)link;
    return PROP_ERROR;
}

static int
nt_lock(prop_transport *t)
{
    (void)t;
    return PROP_ERROR;
}

static void
nt_close(prop_transport *t)
{
    free(t);
}

static const prop_transport_ops no_transport_ops = {
    .run = nt_run,
    .read = nt_read,
    .write = nt_write,
    .stat = nt_stat,
    .remove = nt_path,
    .mkdir = nt_path_attrs,
    .symlink = nt_symlink,
    .chattr = nt_path_attrs,
    .lock = nt_lock,
    .close = nt_close,
};

/*
 * A transport named as the module would name it, whose every call fails:
 * PROP_ERROR with why as its error (PROP_EINVAL without an address).
 */
static int
no_transport(prop_transport **out, const prop_ssh_opts *opts, const char *why)
{
    prop_transport *t = prop_calloc(1, sizeof *t);
    const char *user = opts && opts->user && *opts->user ? opts->user : "root";
    int port = opts && opts->port ? opts->port : 22;

    if (!t)
        return PROP_ENOMEM;
    t->ops = &no_transport_ops;
    snprintf(t->err, sizeof t->err, "%s", why);
    *out = t;
    if (!opts || !opts->address || !*opts->address) {
        snprintf(t->name, sizeof t->name, "ssh");
        return PROP_EINVAL;
    }
    if (strchr(opts->address, ':'))
        snprintf(t->name, sizeof t->name, "ssh:%s@[%s]:%d", user, opts->address, port);
    else
        snprintf(t->name, sizeof t->name, "ssh:%s@%s:%d", user, opts->address, port);
    return PROP_ERROR;
}

int
prop_transport_ssh(prop_transport **out, const prop_ssh_opts *opts)
{
    static const prop_ssh_module_caller caller = {
        PROP_VERSION,
        sizeof(prop_transport),
        sizeof(prop_transport_ops),
        sizeof(prop_ssh_opts),
    };
    int rc;

    if (!out)
        return PROP_EINVAL;
    *out = NULL;
    if (pthread_once(&load_once, load_module) != 0)
        return no_transport(out, opts, "ssh: cannot load the SSH transport");
    if (!entry)
        return no_transport(out, opts, load_error);
    rc = entry(&caller, out, opts);
    if (rc != PROP_SSH_MODULE_MISMATCH)
        return rc;
    return no_transport(out, opts,
                        "ssh: " PROP_SSH_MODULE_FILE " comes from another build of prop: "
                        "install prop again");
}
