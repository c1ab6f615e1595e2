/*
 * transport_local_paths.c - paths of the local and directory-tree
 * transport: a tree's paths mapped below its root, links resolved the way
 * the kernel would inside a chroot (see transport_local.c), and the
 * checks that what is changed stays below the root.
 */
#define _GNU_SOURCE /* O_PATH, AT_EMPTY_PATH */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/openat2.h>
#endif

#include "transport_local_impl.h"

#define MAX_LINKS 40

/* Does path hold a ".." component? */
static int
has_dotdot(const char *path)
{
    const char *p = path;

    while (*p) {
        size_t n;

        while (*p == '/')
            p++;
        n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return 1;
        p += n;
    }
    return 0;
}

/*
 * Map path (absolute, without "..") to the host path below the root in
 * out (PATH_MAX bytes), following links as a chroot would.  The last
 * component is followed only when follow_last.  Components that do not
 * exist are kept as they are: the operation then fails on them.
 */
int
prop_local_tree_path(local_transport *lt, const char *op, const char *path, int follow_last,
                     char *out)
{
    char rest[2 * PATH_MAX], tgt[PATH_MAX];
    size_t olen = lt->plen, prev, clen, n, restn;
    const char *p;
    int links = 0;
    struct stat st;
    ssize_t r;

    memcpy(out, lt->root, lt->plen);
    out[olen] = '\0';
    n = strlen(path);
    if (n >= sizeof rest)
        return prop_transport_fail(&lt->base, "%s %s: %s", op, path, strerror(ENAMETOOLONG));
    memcpy(rest, path, n + 1);
    p = rest;
    for (;;) {
        while (*p == '/')
            p++;
        if (!*p)
            break;
        clen = strcspn(p, "/");
        if (clen == 1 && p[0] == '.') {
            p += clen;
            continue;
        }
        if (clen == 2 && p[0] == '.' && p[1] == '.') {
            /* Lexical: what is in out is already free of links. */
            while (olen > lt->plen && out[olen - 1] != '/')
                olen--;
            if (olen > lt->plen)
                olen--;
            out[olen] = '\0';
            p += clen;
            continue;
        }
        if (olen + 1 + clen >= PATH_MAX)
            return prop_transport_fail(&lt->base, "%s %s: %s", op, path, strerror(ENAMETOOLONG));
        prev = olen;
        out[olen++] = '/';
        memcpy(out + olen, p, clen);
        olen += clen;
        out[olen] = '\0';
        p += clen;
        while (*p == '/')
            p++;
        if (!*p && !follow_last)
            break;
        if (lstat(out, &st) != 0 || !S_ISLNK(st.st_mode))
            continue;
        if (++links > MAX_LINKS)
            return prop_transport_fail(&lt->base, "%s %s: too many levels of symbolic links", op,
                                       path);
        r = readlink(out, tgt, sizeof tgt);
        if (r < 0)
            return fail_errno(lt, op, path, errno);
        if ((size_t)r >= sizeof tgt)
            return prop_transport_fail(&lt->base, "%s %s: symbolic link target too long", op, path);
        tgt[r] = '\0';
        /* The rest of the path now starts with the link's target. */
        restn = strlen(p);
        if ((size_t)r + 1 + restn >= sizeof rest)
            return prop_transport_fail(&lt->base, "%s %s: %s", op, path, strerror(ENAMETOOLONG));
        memmove(rest + r + 1, p, restn + 1);
        memcpy(rest, tgt, (size_t)r);
        rest[r] = '/';
        p = rest;
        olen = tgt[0] == '/' ? lt->plen : prev;
        out[olen] = '\0';
    }
    if (olen == 0) {
        out[0] = '/';
        out[1] = '\0';
    }
    return PROP_OK;
}

/* The host path (PATH_MAX bytes) for a path given to the transport. */
int
prop_local_host_path(local_transport *lt, const char *op, const char *path, int follow_last,
                     char *out)
{
    size_t n = strlen(path);

    if (n == 0)
        return prop_transport_fail(&lt->base, "%s: empty path", op);
    if (lt->root) {
        if (path[0] != '/')
            return prop_transport_fail(&lt->base, "%s %s: the path must be absolute", op, path);
        if (has_dotdot(path))
            return prop_transport_fail(&lt->base, "%s %s: \"..\" is not allowed in a path", op,
                                       path);
        return prop_local_tree_path(lt, op, path, follow_last, out);
    }
    if (n >= PATH_MAX)
        return prop_transport_fail(&lt->base, "%s %s: %s", op, path, strerror(ENAMETOOLONG));
    memcpy(out, path, n + 1);
    while (n > 1 && out[n - 1] == '/')
        out[--n] = '\0';
    return PROP_OK;
}

/* The directory holding p, in dir (PATH_MAX bytes). */
static void
parent_of(const char *p, char *dir)
{
    const char *s = strrchr(p, '/');

    if (!s)
        strcpy(dir, ".");
    else if (s == p)
        strcpy(dir, "/");
    else {
        memcpy(dir, p, (size_t)(s - p));
        dir[s - p] = '\0';
    }
}

/*
 * Split host path hp into its directory (PATH_MAX bytes) and last
 * component, refusing the root itself and names that are no file name.
 */
int
prop_local_split_path(local_transport *lt, const char *op, const char *path, const char *hp,
                      char *dir, const char **base)
{
    const char *s;

    if (lt->root && strlen(hp) <= lt->plen)
        return prop_transport_fail(&lt->base, "%s %s: that is the root of the tree", op, path);
    parent_of(hp, dir);
    s = strrchr(hp, '/');
    *base = s ? s + 1 : hp;
    if (!**base || strcmp(*base, ".") == 0 || strcmp(*base, "..") == 0)
        return prop_transport_fail(&lt->base, "%s %s: not a file name", op, path);
    return PROP_OK;
}

/* A path given to the transport is one it can take: 0, or PROP_ERROR with the reason set. */
int
prop_local_tree_check(local_transport *lt, const char *op, const char *path)
{
    size_t n = strlen(path);

    if (n == 0)
        return prop_transport_fail(&lt->base, "%s: empty path", op);
    if (n >= PATH_MAX)
        return prop_transport_fail(&lt->base, "%s %s: %s", op, path, strerror(ENAMETOOLONG));
    if (lt->root) {
        if (path[0] != '/')
            return prop_transport_fail(&lt->base, "%s %s: the path must be absolute", op, path);
        if (has_dotdot(path))
            return prop_transport_fail(&lt->base, "%s %s: \"..\" is not allowed in a path", op,
                                       path);
    }
    return PROP_OK;
}

#if defined(SYS_openat2) && defined(RESOLVE_IN_ROOT)
/* openat2(2) from the root, inside it: the fd, -errno, or -ENOSYS when it cannot be used. */
static int
open_in_root(local_transport *lt, const char *path)
{
    struct open_how how;
    int tries;

    memset(&how, 0, sizeof how);
    how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
    how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
    for (tries = 0;; tries++) {
        long fd = syscall(SYS_openat2, lt->root_fd, path, &how, sizeof how);

        if (fd >= 0)
            return (int)fd;
        /* EAGAIN: a rename elsewhere raced a "..": the kernel asks to look again. */
        if (errno == EINTR || (errno == EAGAIN && tries < 100))
            continue;
        if (errno == ENOSYS || errno == E2BIG || errno == EPERM) /* EPERM: a seccomp filter */
            return -ENOSYS;
        return -errno;
    }
}
#endif

/*
 * Where openat2(2) is missing: walk path from the root one component at a
 * time, each opened with O_NOFOLLOW from the descriptor of the directory
 * before it.  A symbolic link met on the way is read and its target put
 * in front of the rest of the path, an absolute one starting again at the
 * root; ".." goes back along the directories this walk went through (cur),
 * never above the root.  *links counts the links followed.  The fd of the
 * directory (O_PATH) or -errno.
 */
static int
walk_in_root(local_transport *lt, const char *path, int *links)
{
    char rest[2 * PATH_MAX], cur[PATH_MAX], tgt[PATH_MAX];
    size_t curlen = 0, clen, restn, n = strlen(path);
    const char *p;
    int fd, nfd, e;
    ssize_t r;
    struct stat st;

    if (n >= sizeof rest)
        return -ENAMETOOLONG;
    memcpy(rest, path, n + 1);
    cur[0] = '\0';
    if ((fd = openat(lt->root_fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
        return -errno;
    p = rest;
    for (;;) {
        char comp[NAME_MAX + 1];

        while (*p == '/')
            p++;
        if (!*p)
            break;
        clen = strcspn(p, "/");
        if (clen > NAME_MAX) {
            (void)close(fd);
            return -ENAMETOOLONG;
        }
        memcpy(comp, p, clen);
        comp[clen] = '\0';
        p += clen;
        if (strcmp(comp, ".") == 0)
            continue;
        if (strcmp(comp, "..") == 0) {
            /* cur holds no link and no "..": walked again, it is where this walk was. */
            while (curlen > 0 && cur[curlen - 1] != '/')
                curlen--;
            if (curlen > 0)
                curlen--;
            cur[curlen] = '\0';
            (void)close(fd);
            if (*links > 40)
                return -ELOOP;
            if (curlen)
                fd = walk_in_root(lt, cur, links);
            else if ((fd = openat(lt->root_fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
                fd = -errno;
            if (fd < 0)
                return fd;
            continue;
        }
        do
            nfd = openat(fd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        while (nfd < 0 && errno == EINTR);
        if (nfd < 0 || fstat(nfd, &st) != 0) {
            e = errno;
            if (nfd >= 0)
                (void)close(nfd);
            (void)close(fd);
            return -e;
        }
        if (S_ISDIR(st.st_mode)) {
            (void)close(fd);
            fd = nfd;
            if (curlen + 1 + clen >= sizeof cur) {
                (void)close(fd);
                return -ENAMETOOLONG;
            }
            cur[curlen++] = '/';
            memcpy(cur + curlen, comp, clen + 1);
            curlen += clen;
            continue;
        }
        if (!S_ISLNK(st.st_mode)) {
            (void)close(nfd);
            (void)close(fd);
            return -ENOTDIR;
        }
        r = ++*links > 40 ? (errno = ELOOP, -1) : readlinkat(nfd, "", tgt, sizeof tgt);
        e = errno;
        (void)close(nfd);
        if (r < 0 || (size_t)r >= sizeof tgt) {
            (void)close(fd);
            return r < 0 ? -e : -ENAMETOOLONG;
        }
        /* The rest of the path now starts with the link's target. */
        restn = strlen(p);
        if ((size_t)r + 1 + restn >= sizeof rest) {
            (void)close(fd);
            return -ENAMETOOLONG;
        }
        memmove(rest + r + 1, p, restn + 1);
        memcpy(rest, tgt, (size_t)r);
        rest[r] = '/';
        p = rest;
        if (tgt[0] == '/') {
            (void)close(fd);
            if ((fd = openat(lt->root_fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
                return -errno;
            curlen = 0;
            cur[0] = '\0';
        }
    }
    return fd;
}

/* The directory dir (a path of the tree, or of this machine) opened O_PATH: fd or -errno. */
static int
open_dir(local_transport *lt, const char *dir)
{
    int fd, links = 0;

    if (lt->root_fd < 0) {
        do
            fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        while (fd < 0 && errno == EINTR);
        return fd < 0 ? -errno : fd;
    }
#if defined(SYS_openat2) && defined(RESOLVE_IN_ROOT)
    if (!lt->no_openat2) {
        fd = open_in_root(lt, dir);
        if (fd != -ENOSYS)
            return fd;
        lt->no_openat2 = 1;
    }
#endif
    return walk_in_root(lt, dir, &links);
}

int
prop_local_at_path(local_transport *lt, const char *path, int follow_last, int *dirfd, char *name)
{
    char p[PATH_MAX], dir[PATH_MAX], tgt[PATH_MAX];
    size_t n = strlen(path), dn;
    const char *slash, *base;
    struct stat st;
    int fd, links = 0;
    ssize_t r;

    *dirfd = -1;
    if (n >= sizeof p)
        return ENAMETOOLONG;
    memcpy(p, path, n + 1);
    for (;;) {
        while (n > 1 && p[n - 1] == '/')
            p[--n] = '\0';
        slash = strrchr(p, '/');
        base = slash ? slash + 1 : p;
        if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
            /* A directory named by itself. */
            if ((fd = open_dir(lt, p)) < 0)
                return -fd;
            *dirfd = fd;
            strcpy(name, ".");
            return 0;
        }
        if (strlen(base) > NAME_MAX)
            return ENAMETOOLONG;
        dn = slash ? (slash == p ? 1 : (size_t)(slash - p)) : 0;
        memcpy(dir, slash ? p : ".", slash ? dn : 1);
        dir[slash ? dn : 1] = '\0';
        if ((fd = open_dir(lt, dir)) < 0)
            return -fd;
        strcpy(name, base);
        if (!follow_last || fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISLNK(st.st_mode)) {
            *dirfd = fd;
            return 0;
        }
        /* A final link: its target, from the directory that holds it. */
        r = ++links > MAX_LINKS ? (errno = ELOOP, -1) : readlinkat(fd, name, tgt, sizeof tgt);
        (void)close(fd);
        if (r < 0)
            return errno == EINVAL ? EAGAIN : errno; /* EINVAL: no link any more */
        if ((size_t)r >= sizeof tgt)
            return ENAMETOOLONG;
        tgt[r] = '\0';
        if (tgt[0] == '/')
            n = (size_t)snprintf(p, sizeof p, "%s", tgt);
        else
            n = (size_t)snprintf(p, sizeof p, "%s/%s", strcmp(dir, "/") ? dir : "", tgt);
        if (n >= sizeof p)
            return ENAMETOOLONG;
    }
}

/* The message for a failure on the parent directory of path. */
int
prop_local_parent_error(local_transport *lt, const char *op, const char *path, int err)
{
    char dir[PATH_MAX];

    if (strlen(path) >= sizeof dir)
        return fail_errno(lt, op, path, err);
    parent_of(path, dir);
    if (err == ENOENT)
        return prop_transport_fail(&lt->base, "%s %s: the parent directory %s does not exist", op,
                                   path, dir);
    if (err == ENOTDIR)
        return prop_transport_fail(&lt->base, "%s %s: %s is not a directory", op, path, dir);
    return fail_errno(lt, op, path, err);
}
