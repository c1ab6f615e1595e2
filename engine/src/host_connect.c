/*
 * host_connect.c - how prop reaches a host: the transport its connect.*
 * info asks for (this machine, a directory tree, SSH), a container's
 * through its parent's, and the OS family of a target that does not
 * declare one.  The info keys are prop.h's PROP_INFO_CONNECT* and
 * PROP_INFO_CONTAINER_*; recipes/connect.lua and lua/prop/container.lua
 * write them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "prop/prop.h"
#include "prop/transport.h"

#include "internal.h"

/* fsync the directory holding path (made just now): 0 or errno. */
static int
sync_parent(const char *path)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : 0;

    if (n >= sizeof dir)
        return ENAMETOOLONG;
    if (!slash)
        return prop_sync_dir(".");
    if (n == 0)
        return prop_sync_dir("/");
    memcpy(dir, path, n);
    dir[n] = '\0';
    return prop_sync_dir(dir);
}

/* "~/x" under $HOME; other paths as they are.  Returns buf or path. */
static const char *
expand_home(const char *path, char *buf, size_t size)
{
    const char *home = getenv("HOME");

    if (path == NULL || strncmp(path, "~/", 2) != 0 || home == NULL)
        return path;
    snprintf(buf, size, "%s/%s", home, path + 2);
    return buf;
}

int
prop_host_connect(const prop_host *h, const prop_connect_opts *o, prop_transport **t, char *why,
                  size_t wsize)
{
    const char *how = prop_host_info(h, PROP_INFO_CONNECT, 0);
    const char *name = prop_host_name(h);
    int rc;

    *t = NULL;
    if ((how == NULL && strcmp(name, "localhost") == 0) || (how && strcmp(how, "local") == 0) ||
        (o->this_machine && !(how && strcmp(how, "dir") == 0))) {
        rc = prop_transport_local(t);
    } else if (how && strcmp(how, "dir") == 0) {
        const char *root = prop_host_info(h, PROP_INFO_CONNECT_PATH, 0);
        struct stat st;
        if (root == NULL) {
            snprintf(why, wsize, "connect.dir without a path");
            return PROP_EUNREACHABLE;
        }
        if (stat(root, &st) != 0) {
            if (errno != ENOENT || o->dry) {
                snprintf(why, wsize, "%s: %s%s", root, strerror(errno),
                         o->dry ? " (a real run creates it)" : "");
                return PROP_EUNREACHABLE;
            }
            if (mkdir(root, 0755) != 0 || (errno = sync_parent(root)) != 0) {
                snprintf(why, wsize, "cannot make the tree %s: %s", root, strerror(errno));
                return PROP_EUNREACHABLE;
            }
        }
        rc = prop_transport_dir(t, root);
    } else {
        prop_ssh_opts so;
        char kh[4096], id[4096];
        const char *port = prop_host_info(h, PROP_INFO_CONNECT_PORT, 0);
        const char *sudo = prop_host_info(h, PROP_INFO_CONNECT_SUDO, 0);
        memset(&so, 0, sizeof so);
        so.address = prop_host_info(h, PROP_INFO_CONNECT_ADDRESS, 0);
        if (so.address == NULL)
            so.address = name;
        so.port = port ? atoi(port) : 22;
        so.user = prop_host_info(h, PROP_INFO_CONNECT_USER, 0);
        so.identity = expand_home(prop_host_info(h, PROP_INFO_CONNECT_IDENTITY, 0), id, sizeof id);
        so.known_hosts =
            expand_home(prop_host_info(h, PROP_INFO_CONNECT_KNOWN_HOSTS, 0), kh, sizeof kh);
        so.sudo = sudo && strcmp(sudo, "true") == 0;
        so.accept_new = o->accept_new;
        so.connect_timeout = o->connect_timeout;
        so.op_timeout = o->op_timeout;
        rc = prop_transport_ssh(t, &so);
        if (rc != PROP_OK) {
            snprintf(why, wsize, "%s", *t ? prop_transport_error(*t) : "out of memory");
            return PROP_EUNREACHABLE;
        }
        return PROP_OK;
    }
    if (rc != PROP_OK)
        snprintf(why, wsize, "%s", *t ? prop_transport_error(*t) : "out of memory");
    return rc == PROP_OK ? PROP_OK : PROP_EUNREACHABLE;
}

int
prop_container_connect(const prop_host *c, prop_transport *pt, prop_transport **t, char *why,
                       size_t wsize)
{
    const char *path = prop_host_info(c, PROP_INFO_CONTAINER_PATH, 0);
    const char *cname = prop_host_info(c, PROP_INFO_CONTAINER_NAME, 0);
    int rc = PROP_EINVAL;

    *t = NULL;
    if (!cname)
        cname = prop_host_name(c);
    switch (prop_host_container_kind(c)) {
    case PROP_CONTAINER_CHROOT:
        if (path)
            rc = prop_transport_chroot(t, pt, path, prop_host_fullname(c));
        break;
    case PROP_CONTAINER_NSPAWN:
        if (path)
            rc = prop_transport_nspawn(t, pt, cname, path);
        break;
    case PROP_CONTAINER_DOCKER:
        rc = prop_transport_docker(t, pt, cname);
        break;
    case PROP_CONTAINER_JAIL: {
        const char *enter[] = {"jexec", cname, NULL};
        char name[300];

        snprintf(name, sizeof name, "jail %s", cname);
        rc = prop_transport_container(t, pt, enter, name);
        break;
    }
    default:
        break;
    }
    if (rc == PROP_ENOMEM)
        snprintf(why, wsize, "out of memory");
    else if (rc != PROP_OK)
        snprintf(why, wsize, "container %s: its recipe gave no usable path or name",
                 prop_host_fullname(c));
    return rc == PROP_OK ? PROP_OK : PROP_EUNREACHABLE;
}

prop_os_set
prop_transport_detect_os(prop_transport *t)
{
    char *data = NULL;
    size_t len = 0;
    prop_os_set os = PROP_OS_NONE;
    prop_cmd_result r = {-1, NULL, 0, NULL, 0};
    const char *const uname[] = {"uname", "-s", NULL};

    if (prop_transport_read(t, "/etc/os-release", &data, &len) == PROP_OK)
        os = prop_os_from_os_release(data, len);
    free(data);
    if (os == PROP_OS_NONE && prop_transport_query(t, uname, NULL, 0, &r) == PROP_OK &&
        r.code == 0 && r.out && strncmp(r.out, "FreeBSD", 7) == 0)
        os = PROP_OS_FREEBSD;
    prop_cmd_result_clear(&r);
    return os;
}
