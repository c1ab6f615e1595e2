/*
 * transport_local_paths.c - paths of the local and directory-tree
 * transport: a tree's paths mapped below its root, links resolved the way
 * the kernel would inside a chroot (see transport_local.c), and the
 * checks that what is changed stays below the root.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
tree_path(local_transport *lt, const char *op, const char *path, int follow_last, char *out)
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
host_path(local_transport *lt, const char *op, const char *path, int follow_last, char *out)
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
        return tree_path(lt, op, path, follow_last, out);
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
split_path(local_transport *lt, const char *op, const char *path, const char *hp, char *dir,
           const char **base)
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

/*
 * For a tree: the directory that holds host path hp must be below the
 * root once every link in it is resolved.  A directory that does not
 * exist passes: the operation then fails on it.
 */
int
confine(local_transport *lt, const char *op, const char *path, const char *hp)
{
    char dir[PATH_MAX], real[PATH_MAX];

    if (!lt->root || lt->plen == 0)
        return PROP_OK;
    parent_of(hp, dir);
    if (!realpath(dir, real)) {
        if (errno == ENOENT || errno == ENOTDIR)
            return PROP_OK;
        return fail_errno(lt, op, path, errno);
    }
    if (strncmp(real, lt->root, lt->plen) != 0 || (real[lt->plen] && real[lt->plen] != '/'))
        return prop_transport_fail(&lt->base, "%s %s: the path leads outside the tree %s", op, path,
                                   lt->root);
    return PROP_OK;
}

/* The message for a failure on the parent directory of path. */
int
parent_error(local_transport *lt, const char *op, const char *path, int err)
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
