/*
 * transport_local.c - the local transport (this machine) and the
 * directory-tree transport (a tree used as a root, files only: commands
 * are refused, as a chroot would share this machine's kernel, network
 * and processes).
 *
 * Both share every operation, and both make every change through file
 * descriptors: the directory that holds a path's last component is opened
 * first (prop_local_at_path() in transport_local_paths.c), then the file is
 * read, written, made, removed or changed relative to that directory's
 * descriptor, without following a link in its place.  For a tree the
 * directory is opened inside the root: with openat2(2) and RESOLVE_IN_ROOT,
 * or where that is missing (or PROP_NO_OPENAT2 is set in the environment)
 * by a walk one component at a time with O_NOFOLLOW, resolving each link
 * itself; links are followed the way the kernel would inside a chroot (an
 * absolute target starts again at the root and ".." stops there).  A tree
 * that someone rewrites while prop works on it (a directory swapped for a
 * link to elsewhere between two calls) can make an operation fail, never
 * reach outside the tree.
 *
 * A regular file of a tree with more than one hard link is not chmod'ed
 * or chown'ed unless the caller says so (prop_transport_chattr_hardlinks()): its
 * other names may be outside the tree.  On this machine every name of a
 * file is on the machine being configured, and the rule does not apply.
 *
 * Commands are run by transport_local_run.c.
 */
#define _GNU_SOURCE /* flock, O_TMPFILE, AT_EMPTY_PATH */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "array.h"
#include "fileio.h"
#include "transport_local_impl.h"

/* Read a whole open file into a malloc'd buffer, NUL-terminated. 0 or errno. */
int
prop_local_read_fd(int fd, char **data, size_t *len)
{
    prop_buf b = PROP_BUF_INIT;
    int e = prop_read_all(fd, &b, 0);

    if (e != 0) {
        prop_buf_free(&b);
        return e;
    }
    if ((*data = prop_buf_take(&b, len)) == NULL)
        return ENOMEM;
    return 0;
}

/* ---- files ---- */

/* ".<base>.prop-" into tmp (NAME_MAX + 1 bytes), with room for a suffix of 6. */
static void
temp_prefix(const char *base, char *tmp)
{
    snprintf(tmp, NAME_MAX + 1 - 6, ".%.200s.prop-", base);
}

/* Six letters that make a temporary name unlikely to be taken. */
static void random_suffix(char *s);

/* Six letters or digits after "X.prop-", a name a temporary file of any path may have. */
static int
is_temp_name(const char *name)
{
    size_t n = strlen(name), i;

    if (n < 1 + 1 + 6 + 6 || name[0] != '.' || memcmp(name + n - 12, ".prop-", 6) != 0)
        return 0;
    for (i = n - 6; i < n; i++) {
        char c = name[i];

        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
            return 0;
    }
    return 1;
}

static void
stale_forget(local_transport *lt)
{
    size_t i;

    for (i = 0; i < lt->nstale; i++)
        free(lt->stale[i].name);
    free(lt->stale);
    free(lt->stale_dir);
    lt->stale = NULL;
    lt->stale_dir = NULL;
    lt->nstale = 0;
}

/* Read the temporary-looking entries of directory dfd (named dir) into lt->stale (on failure:
 * none). */
static void
stale_scan(local_transport *lt, int dfd_at, const char *dir)
{
    struct dirent *e;
    size_t cap = 0;
    DIR *d;
    int dfd;

    stale_forget(lt);
    if (!(lt->stale_dir = prop_strdup(dir)))
        return;
    lt->stale_changes = lt->base.changes;
    do
        dfd = openat(dfd_at, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    while (dfd < 0 && errno == EINTR);
    if (dfd < 0)
        return;
    if (!(d = fdopendir(dfd))) {
        (void)close(dfd);
        return;
    }
    while ((e = readdir(d)) != NULL) {
        struct stat st;

        if (!is_temp_name(e->d_name) || fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !(S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
            continue;
        if (prop_array_reserve(lt->stale, cap, lt->nstale, 1, 8) != 0)
            break;
        if (!(lt->stale[lt->nstale].name = prop_strdup(e->d_name)))
            break;
        lt->stale[lt->nstale].link = S_ISLNK(st.st_mode);
        lt->stale[lt->nstale].uid = st.st_uid;
        lt->nstale++;
    }
    (void)closedir(d);
}

/*
 * Remove what a write (links = 0: regular files) or a symlink (links = 1:
 * symbolic links) of base in directory dfd (named dir) left behind when
 * the process was killed: entries named as temp_prefix() names them,
 * owned by the user prop runs as or by uid.  The directory is read once
 * for all the writes in it (see local_transport); each entry is checked
 * again before it goes.  Best effort: nothing here fails the operation.
 */
static void
remove_stale(local_transport *lt, int dfd, const char *dir, const char *base, int links, uid_t uid)
{
    char prefix[220];
    size_t i, plen;
    int n;

    n = snprintf(prefix, sizeof prefix, ".%.200s.prop-", base);
    if (n < 0 || (size_t)n >= sizeof prefix)
        return;
    plen = (size_t)n;
    if (!lt->stale_dir || strcmp(lt->stale_dir, dir) != 0 || lt->stale_changes != lt->base.changes)
        stale_scan(lt, dfd, dir);
    for (i = 0; i < lt->nstale; i++) {
        struct stale_entry *e = &lt->stale[i];
        struct stat st;

        if (strlen(e->name) != plen + 6 || strncmp(e->name, prefix, plen) != 0 ||
            e->link != links || (e->uid != geteuid() && e->uid != uid))
            continue;
        /* Still that entry? */
        if (fstatat(dfd, e->name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            (links ? S_ISLNK(st.st_mode) : S_ISREG(st.st_mode)) && st.st_uid == e->uid)
            (void)unlinkat(dfd, e->name, 0);
        free(e->name);
        *e = lt->stale[--lt->nstale];
        i--;
    }
}

/*
 * A file without a name in directory dfd, for writing (Linux's
 * O_TMPFILE): the fd, -1 when the system or the file system cannot make
 * one (then a named temporary file is used), or -2 with errno set on
 * another failure.
 */
static int
open_unnamed(int dfd)
{
#ifdef O_TMPFILE
    int fd;

    do
        fd = openat(dfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    while (fd < 0 && errno == EINTR);
    if (fd >= 0)
        return fd;
    if (errno == EISDIR || errno == EOPNOTSUPP || errno == EINVAL)
        return -1;
    return -2;
#else
    (void)dfd;
    return -1;
#endif
}

/*
 * Give the unnamed file fd the name tmp + a random suffix in directory
 * dfd (tmp ends in the prefix; the suffix is written after it).  0 or
 * errno.
 */
static int
link_unnamed(int fd, int dfd, char *tmp)
{
#if defined(AT_EMPTY_PATH) && defined(O_TMPFILE)
    size_t n = strlen(tmp);
    char proc[64];
    int tries, e;

    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    for (tries = 0; tries < 100; tries++) {
        random_suffix(tmp + n);
        /* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; /proc does not. */
        if (linkat(fd, "", dfd, tmp, AT_EMPTY_PATH) == 0)
            return 0;
        e = errno;
        if (e != EEXIST) {
            if (linkat(AT_FDCWD, proc, dfd, tmp, AT_SYMLINK_FOLLOW) == 0)
                return 0;
            e = errno;
        }
        if (e != EEXIST)
            return e;
    }
    return EEXIST;
#else
    (void)fd;
    (void)dfd;
    (void)tmp;
    return ENOSYS;
#endif
}

/* A named temporary file tmp + a random suffix in directory dfd: the fd, or -1 and errno. */
static int
open_named(int dfd, char *tmp)
{
    size_t n = strlen(tmp);
    int fd, tries;

    for (tries = 0; tries < 100; tries++) {
        random_suffix(tmp + n);
        do
            fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        while (fd < 0 && errno == EINTR);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

/*
 * Open the directory holding path's last component (prop_local_at_path()):
 * 0, or the failure told as parent_msg says: 0 "no such file" (not_found),
 * 1 "the parent directory ..." (prop_local_parent_error).
 */
static int
open_at(local_transport *lt, const char *op, const char *path, int follow_last, int parent_msg,
        int *dfd, char *name)
{
    int e = prop_local_at_path(lt, path, follow_last, dfd, name);

    if (e == 0)
        return PROP_OK;
    if (e == ENOENT || e == ENOTDIR)
        return parent_msg ? prop_local_parent_error(lt, op, path, e) : not_found(lt, op, path);
    if (e == EAGAIN)
        return prop_transport_fail(&lt->base, "%s %s: it changed while it was being looked up", op,
                                   path);
    return fail_errno(lt, op, path, e);
}

static int
lt_read(prop_transport *t, const char *path, char **data, size_t *len)
{
    local_transport *lt = lt_of(t);
    char name[NAME_MAX + 1];
    struct stat st;
    int dfd, fd, rc, e;

    if (lt->broken)
        return PROP_ERROR;
    if ((rc = prop_local_tree_check(lt, "read", path)) != PROP_OK ||
        (rc = open_at(lt, "read", path, 1, 0, &dfd, name)) != PROP_OK)
        return rc;
    /* The final link is followed already: a link here is a race. */
    do
        fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK);
    while (fd < 0 && errno == EINTR);
    e = errno;
    (void)close(dfd);
    if (fd < 0) {
        if (e == ENOENT || e == ENOTDIR)
            return not_found(lt, "read", path);
        return fail_errno(lt, "read", path, e);
    }
    if (fstat(fd, &st) != 0) {
        e = errno;
        (void)close(fd);
        return fail_errno(lt, "read", path, e);
    }
    if (S_ISDIR(st.st_mode)) {
        (void)close(fd);
        return prop_transport_fail(t, "read %s: it is a directory", path);
    }
    /* Opened without waiting (a FIFO would wait for a writer), and read
     * only when it is a regular file: a pipe or a device (/dev/zero)
     * could answer forever. */
    if (!S_ISREG(st.st_mode)) {
        (void)close(fd);
        return prop_transport_fail(t, "read %s: not a regular file (%s)", path,
                                   S_ISFIFO(st.st_mode)   ? "a named pipe"
                                   : S_ISCHR(st.st_mode)  ? "a character device"
                                   : S_ISBLK(st.st_mode)  ? "a block device"
                                   : S_ISSOCK(st.st_mode) ? "a socket"
                                                          : "not a file");
    }
    e = prop_local_read_fd(fd, data, len);
    if (close(fd) != 0 && !e && errno != EINTR) {
        e = errno;
        free(*data);
        *data = NULL;
        *len = 0;
    }
    if (e)
        return fail_errno(lt, "read", path, e);
    return PROP_OK;
}

/*
 * What a change of path needs: the checks, the host path of the directory
 * that holds it (dir, PATH_MAX bytes: the one synced afterwards) and that
 * directory opened (*dfd) with the last component in name.
 */
static int
change_at(local_transport *lt, const char *op, const char *path, int parent_msg, char *dir,
          int *dfd, char *name)
{
    char hp[PATH_MAX];
    const char *base;
    int rc;

    *dfd = -1;
    if ((rc = prop_local_tree_check(lt, op, path)) != PROP_OK ||
        (rc = prop_local_host_path(lt, op, path, 0, hp)) != PROP_OK ||
        (rc = prop_local_split_path(lt, op, path, hp, dir, &base)) != PROP_OK)
        return rc;
    return open_at(lt, op, path, 0, parent_msg, dfd, name);
}

static int
lt_write(prop_transport *t, const char *path, const char *data, size_t len,
         const prop_file_attrs *a)
{
    local_transport *lt = lt_of(t);
    char dir[PATH_MAX], name[NAME_MAX + 1], tmp[NAME_MAX + 1];
    struct stat st, tst;
    uid_t uid;
    gid_t gid;
    mode_t mode = 0644;
    int dfd, fd = -1, rc, e, unnamed = 0;

    prop_local_forget_names(lt); /* it may be writing an account database */
    if (lt->broken)
        return PROP_ERROR;
    if ((rc = prop_local_attr_ids(lt, "write", path, a, &uid, &gid)) != PROP_OK ||
        (rc = change_at(lt, "write", path, 1, dir, &dfd, name)) != PROP_OK)
        return rc;
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        if (S_ISDIR(st.st_mode)) {
            (void)close(dfd);
            return prop_transport_fail(t, "write %s: it is a directory", path);
        }
        /* A link or a special file is replaced by a new file. */
        if (S_ISREG(st.st_mode)) {
            mode = st.st_mode & 07777;
            if (uid == (uid_t)-1)
                uid = st.st_uid;
            if (gid == (gid_t)-1)
                gid = st.st_gid;
        }
    } else if (errno != ENOENT) {
        e = errno;
        (void)close(dfd);
        return prop_local_parent_error(lt, "write", path, e);
    }
    if (a && a->mode != -1)
        mode = (mode_t)a->mode;

    temp_prefix(name, tmp);
    remove_stale(lt, dfd, dir, name, 0, uid != (uid_t)-1 ? uid : geteuid());
    /*
     * Unnamed while it is written (nothing is left if prop is killed), and
     * linked under the temporary name only once it is complete, just before
     * the rename.  Elsewhere, a named temporary file from the start.
     */
    fd = open_unnamed(dfd);
    unnamed = fd >= 0;
    if (fd == -1)
        fd = open_named(dfd, tmp);
    if (fd < 0) {
        e = errno;
        (void)close(dfd);
        return prop_local_parent_error(lt, "write", path, e);
    }
    if ((e = prop_write_all(fd, data, len)) != 0 || fstat(fd, &tst) != 0)
        goto fail;
    if (uid == tst.st_uid)
        uid = (uid_t)-1;
    if (gid == tst.st_gid)
        gid = (gid_t)-1;
    /* Owner first: chown clears set-id bits. */
    if ((uid != (uid_t)-1 || gid != (gid_t)-1) && fchown(fd, uid, gid) != 0)
        goto fail;
    if (fchmod(fd, mode) != 0 || fsync(fd) != 0)
        goto fail;
    if (unnamed) {
        if ((e = link_unnamed(fd, dfd, tmp)) != 0) {
            (void)close(fd);
            (void)close(dfd);
            return fail_errno(lt, "write", path, e);
        }
        unnamed = 0; /* named now: removed on failure */
    }
    rc = close(fd);
    fd = -1;
    if (rc != 0 && errno != EINTR)
        goto fail;
    if (renameat(dfd, tmp, dfd, name) != 0)
        goto fail;
    (void)close(dfd);
    if ((e = prop_local_dirty_add(lt, dir)) != 0)
        return prop_transport_fail(t, "write %s: written, but syncing its directory failed: %s",
                                   path, strerror(e));
    return PROP_OK;

fail:
    e = errno;
    if (fd >= 0)
        (void)close(fd);
    if (!unnamed)
        (void)unlinkat(dfd, tmp, 0);
    (void)close(dfd);
    return fail_errno(lt, "write", path, e);
}

static int
lt_stat(prop_transport *t, const char *path, prop_file_stat *st)
{
    local_transport *lt = lt_of(t);
    char name[NAME_MAX + 1];
    struct stat s;
    ssize_t r;
    int rc, dfd;

    memset(st, 0, sizeof *st);
    st->type = PROP_FT_NONE;
    if (lt->broken)
        return PROP_ERROR;
    if ((rc = prop_local_tree_check(lt, "stat", path)) != PROP_OK ||
        (rc = open_at(lt, "stat", path, 0, 0, &dfd, name)) != PROP_OK)
        return rc;
    if (fstatat(dfd, name, &s, AT_SYMLINK_NOFOLLOW) != 0) {
        rc = errno;
        (void)close(dfd);
        if (rc == ENOENT || rc == ENOTDIR)
            return not_found(lt, "stat", path);
        return fail_errno(lt, "stat", path, rc);
    }
    if (S_ISREG(s.st_mode))
        st->type = PROP_FT_FILE;
    else if (S_ISDIR(s.st_mode))
        st->type = PROP_FT_DIR;
    else if (S_ISLNK(s.st_mode))
        st->type = PROP_FT_LINK;
    else
        st->type = PROP_FT_OTHER;
    st->mode = (unsigned)(s.st_mode & 07777);
    st->uid = s.st_uid;
    st->gid = s.st_gid;
    st->size = (long long)s.st_size;
    if (st->type == PROP_FT_LINK) {
        r = readlinkat(dfd, name, st->target, sizeof st->target);
        if (r < 0) {
            rc = errno;
            (void)close(dfd);
            memset(st, 0, sizeof *st);
            return fail_errno(lt, "stat", path, rc);
        }
        if ((size_t)r >= sizeof st->target) {
            (void)close(dfd);
            memset(st, 0, sizeof *st);
            return prop_transport_fail(t, "stat %s: link target too long", path);
        }
        st->target[r] = '\0';
    }
    (void)close(dfd);
    prop_local_id_name(lt, 0, (unsigned long)s.st_uid, st->owner, sizeof st->owner);
    prop_local_id_name(lt, 1, (unsigned long)s.st_gid, st->group, sizeof st->group);
    return PROP_OK;
}

static int
lt_remove(prop_transport *t, const char *path)
{
    local_transport *lt = lt_of(t);
    char dir[PATH_MAX], name[NAME_MAX + 1];
    struct stat s;
    int rc, dfd, e;

    if (lt->broken)
        return PROP_ERROR;
    if ((rc = change_at(lt, "remove", path, 0, dir, &dfd, name)) != PROP_OK)
        return rc;
    if (fstatat(dfd, name, &s, AT_SYMLINK_NOFOLLOW) != 0) {
        e = errno;
        (void)close(dfd);
        if (e == ENOENT || e == ENOTDIR)
            return not_found(lt, "remove", path);
        return fail_errno(lt, "remove", path, e);
    }
    rc = unlinkat(dfd, name, S_ISDIR(s.st_mode) ? AT_REMOVEDIR : 0);
    e = errno;
    (void)close(dfd);
    if (rc != 0) {
        if (e == ENOENT)
            return not_found(lt, "remove", path);
        if (e == ENOTEMPTY || e == EEXIST)
            return prop_transport_fail(t, "remove %s: the directory is not empty", path);
        return fail_errno(lt, "remove", path, e);
    }
    if ((e = prop_local_dirty_add(lt, dir)) != 0)
        return prop_transport_fail(t, "remove %s: removed, but syncing its directory failed: %s",
                                   path, strerror(e));
    return PROP_OK;
}

static int
lt_mkdir(prop_transport *t, const char *path, const prop_file_attrs *a)
{
    local_transport *lt = lt_of(t);
    char dir[PATH_MAX], name[NAME_MAX + 1];
    uid_t uid;
    gid_t gid;
    int rc, e, dfd, fd;

    if (lt->broken)
        return PROP_ERROR;
    if ((rc = prop_local_attr_ids(lt, "mkdir", path, a, &uid, &gid)) != PROP_OK ||
        (rc = change_at(lt, "mkdir", path, 1, dir, &dfd, name)) != PROP_OK)
        return rc;
    if (mkdirat(dfd, name, 0700) != 0) {
        e = errno;
        (void)close(dfd);
        if (e == EEXIST)
            return prop_transport_fail(t, "mkdir %s: it already exists", path);
        return prop_local_parent_error(lt, "mkdir", path, e);
    }
    /* Through the new directory itself: its name may be another's by now. */
    do
        fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0 || ((uid != (uid_t)-1 || gid != (gid_t)-1) && fchown(fd, uid, gid) != 0) ||
        fchmod(fd, a && a->mode != -1 ? (mode_t)a->mode : 0755) != 0) {
        e = errno;
        if (fd >= 0)
            (void)close(fd);
        (void)unlinkat(dfd, name, AT_REMOVEDIR);
        (void)close(dfd);
        return fail_errno(lt, "mkdir", path, e);
    }
    (void)close(fd);
    (void)close(dfd);
    if ((e = prop_local_dirty_add(lt, dir)) != 0)
        return prop_transport_fail(t, "mkdir %s: made, but syncing its parent failed: %s", path,
                                   strerror(e));
    return PROP_OK;
}

static void
random_suffix(char *s)
{
    static const char abc[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    static unsigned long counter;
    struct timespec ts;
    uint64_t x;
    int i;

    if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
        ts.tv_sec = ts.tv_nsec = 0;
    x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 16) ^
        (uint64_t)++counter * 0x9e3779b97f4a7c15ULL;
    /* splitmix64's finaliser */
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    x ^= x >> 31;
    for (i = 0; i < 6; i++) {
        s[i] = abc[x % (sizeof abc - 1)];
        x /= sizeof abc - 1;
    }
    s[6] = '\0';
}

static int
lt_symlink(prop_transport *t, const char *target, const char *link)
{
    local_transport *lt = lt_of(t);
    char dir[PATH_MAX], name[NAME_MAX + 1], tmp[NAME_MAX + 1];
    struct stat s;
    size_t n;
    int rc, e, tries, dfd;

    if (lt->broken)
        return PROP_ERROR;
    if (!*target)
        return prop_transport_fail(t, "symlink %s: empty target", link);
    if ((rc = change_at(lt, "symlink", link, 1, dir, &dfd, name)) != PROP_OK)
        return rc;
    if (fstatat(dfd, name, &s, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(s.st_mode)) {
        (void)close(dfd);
        return prop_transport_fail(t, "symlink %s: it is a directory", link);
    }
    temp_prefix(name, tmp);
    remove_stale(lt, dfd, dir, name, 1, geteuid());
    n = strlen(tmp);
    for (tries = 0;; tries++) {
        random_suffix(tmp + n);
        if (symlinkat(target, dfd, tmp) == 0)
            break;
        if (errno != EEXIST || tries >= 100) {
            e = errno;
            (void)close(dfd);
            return prop_local_parent_error(lt, "symlink", link, e);
        }
    }
    if (renameat(dfd, tmp, dfd, name) != 0) {
        e = errno;
        (void)unlinkat(dfd, tmp, 0);
        (void)close(dfd);
        if (e == EISDIR)
            return prop_transport_fail(t, "symlink %s: it is a directory", link);
        return fail_errno(lt, "symlink", link, e);
    }
    (void)close(dfd);
    if ((e = prop_local_dirty_add(lt, dir)) != 0)
        return prop_transport_fail(t, "symlink %s: made, but syncing its directory failed: %s",
                                   link, strerror(e));
    return PROP_OK;
}

/*
 * chmod the file fd (O_PATH) is open on, st its stat, named name in
 * directory dfd: through /proc/self/fd, or where /proc is missing through
 * the file opened again (a regular file or a directory, still that one).
 * 0 or errno.
 */
static int
fd_chmod(int fd, const struct stat *st, int dfd, const char *name, mode_t mode)
{
    char proc[64];
    struct stat again;
    int rfd, e = 0;

    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    if (chmod(proc, mode) == 0)
        return 0;
    if (errno != ENOENT)
        return errno;
    if (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode))
        return EOPNOTSUPP;
    do
        rfd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    while (rfd < 0 && errno == EINTR);
    if (rfd < 0)
        return errno;
    if (fstat(rfd, &again) != 0)
        e = errno;
    else if (again.st_dev != st->st_dev || again.st_ino != st->st_ino)
        e = EAGAIN;
    else if (fchmod(rfd, mode) != 0)
        e = errno;
    (void)close(rfd);
    return e;
}

/* chattr follows a final link (within the tree for a tree). */
static int
lt_chattr(prop_transport *t, const char *path, const prop_file_attrs *a)
{
    local_transport *lt = lt_of(t);
    char name[NAME_MAX + 1];
    struct stat s;
    uid_t uid;
    gid_t gid;
    int rc, e, dfd, fd;

    if (lt->broken)
        return PROP_ERROR;
    if ((rc = prop_local_tree_check(lt, "chattr", path)) != PROP_OK ||
        (rc = prop_local_attr_ids(lt, "chattr", path, a, &uid, &gid)) != PROP_OK ||
        (rc = open_at(lt, "chattr", path, 1, 0, &dfd, name)) != PROP_OK)
        return rc;
    /* The final link is followed already: a link here is a dangling one, or a race. */
    do
        fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0 || fstat(fd, &s) != 0) {
        e = errno;
        if (fd >= 0)
            (void)close(fd);
        (void)close(dfd);
        if (e == ENOENT || e == ENOTDIR)
            return not_found(lt, "chattr", path);
        return fail_errno(lt, "chattr", path, e);
    }
    rc = PROP_OK;
    if (S_ISLNK(s.st_mode))
        rc = not_found(lt, "chattr", path);
    else if (lt->root && S_ISREG(s.st_mode) && s.st_nlink > 1 &&
             !prop_transport_hardlinks_allowed())
        rc = prop_transport_fail(t,
                                 "chattr %s: the file has %lu hard links, and its other names may "
                                 "be outside the tree: its mode and owner are left alone (say "
                                 "hardlinks = true to change them all the same)",
                                 path, (unsigned long)s.st_nlink);
    else if ((uid != (uid_t)-1 || gid != (gid_t)-1) &&
             fchownat(fd, "", uid, gid, AT_EMPTY_PATH) != 0)
        rc = fail_errno(lt, "chattr", path, errno);
    else if (a->mode != -1 && (e = fd_chmod(fd, &s, dfd, name, (mode_t)a->mode)) != 0)
        rc = e == EAGAIN
                 ? prop_transport_fail(t, "chattr %s: it changed while it was changed", path)
                 : fail_errno(lt, "chattr", path, e);
    (void)close(fd);
    (void)close(dfd);
    return rc;
}

/* ---- the run lock ---- */

/* The lock file's path, malloc'd (NULL: out of memory). */
static char *
lock_file_path(const local_transport *lt)
{
    const char *dir = "/run/lock", *tmpdir;
    struct stat st;
    char buf[PATH_MAX];
    int n, run_lock = 1;

    /* /run/lock is open to all (1777), but its locks are root's. */
    if (geteuid() != 0 || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) ||
        access(dir, W_OK | X_OK) != 0) {
        tmpdir = getenv("TMPDIR");
        dir = tmpdir && *tmpdir ? tmpdir : "/tmp";
        run_lock = 0;
    }
    if (lt->root)
        n = snprintf(buf, sizeof buf, "%s/prop-dir-%016llx.lock", dir,
                     (unsigned long long)prop_local_fnv1a64(lt->root));
    else if (run_lock)
        n = snprintf(buf, sizeof buf, "%s/prop.lock", dir);
    else
        n = snprintf(buf, sizeof buf, "%s/prop-%lu.lock", dir, (unsigned long)geteuid());
    if (n < 0 || (size_t)n >= sizeof buf)
        return NULL;
    return prop_strdup(buf);
}

static int
lt_lock(prop_transport *t)
{
    local_transport *lt = lt_of(t);
    char *path, holder[256], stamp[32], line[128];
    struct tm tm;
    time_t now;
    ssize_t r;
    int fd, e, n, tries;

    if (lt->broken)
        return PROP_ERROR;
    if (lt->lock_fd >= 0)
        return PROP_OK;
    if (!(path = lock_file_path(lt)))
        return prop_transport_fail(t, "lock: out of memory or lock directory path too long");
    /*
     * The holder removes the file when it is done, so that lock files of
     * trees do not pile up.  Whoever locks a file that was removed (or
     * replaced) meanwhile has locked nothing: it checks and tries again.
     */
    for (tries = 0;; tries++) {
        struct stat fst, pst;

        do
            fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0644);
        while (fd < 0 && errno == EINTR);
        if (fd < 0) {
            e = errno;
            prop_transport_fail(t, "cannot open the lock %s: %s", path, strerror(e));
            free(path);
            return PROP_ERROR;
        }
        while ((e = flock(fd, LOCK_EX | LOCK_NB)) != 0 && errno == EINTR)
            ;
        if (e != 0 || tries >= 100)
            break;
        if (fstat(fd, &fst) == 0 && stat(path, &pst) == 0 && fst.st_dev == pst.st_dev &&
            fst.st_ino == pst.st_ino)
            break;
        (void)close(fd);
    }
    if (e != 0) {
        e = errno;
        if (e == EWOULDBLOCK) {
            do
                r = pread(fd, holder, sizeof holder - 1, 0);
            while (r < 0 && errno == EINTR);
            if (r < 0)
                r = 0;
            holder[r] = '\0';
            while (r > 0 && (holder[r - 1] == '\n' || holder[r - 1] == ' '))
                holder[--r] = '\0';
            prop_transport_fail(t, "another prop run holds the lock %s (%s)", path,
                                r > 0 ? holder : "holder unknown");
        } else
            prop_transport_fail(t, "cannot lock %s: %s", path, strerror(e));
        (void)close(fd);
        free(path);
        return PROP_ERROR;
    }
    now = time(NULL);
    if (!gmtime_r(&now, &tm) || strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        strcpy(stamp, "?");
    n = snprintf(line, sizeof line, "pid %ld since %s\n", (long)getpid(), stamp);
    if (n < 0 || (size_t)n >= sizeof line)
        n = 0;
    if (ftruncate(fd, 0) != 0 || pwrite(fd, line, (size_t)n, 0) != n) {
        e = errno;
        (void)close(fd);
        prop_transport_fail(t, "cannot write the lock %s: %s", path, strerror(e));
        free(path);
        return PROP_ERROR;
    }
    lt->lock_fd = fd;
    lt->lock_path = path;
    return PROP_OK;
}

/* ---- making and closing ---- */

static int
lt_sync(prop_transport *t)
{
    local_transport *lt = lt_of(t);

    return lt->ndirty ? prop_local_sync_dirty(lt) : PROP_OK;
}

static void
lt_close(prop_transport *t)
{
    local_transport *lt = lt_of(t);

    if (lt->ndirty && prop_local_sync_dirty(lt) != PROP_OK) {
        /* nothing more to do: the caller did not ask, and cannot be told */
    }
    free(lt->dirty);

    if (lt->lock_fd >= 0) {
        /* Removed while held (see lt_lock); closing releases the lock. */
        if (unlink(lt->lock_path) != 0 && ftruncate(lt->lock_fd, 0) != 0) {
            /* nothing more to do: a stale text names a process that is gone */
        }
        (void)close(lt->lock_fd);
    }
    stale_forget(lt);
    if (lt->root_fd >= 0)
        (void)close(lt->root_fd);
    free(lt->lock_path);
    free(lt->root);
    free(lt);
}

/* This machine: a plain connect.  A tree has no network of its own. */
static int
lt_tcp(prop_transport *t, const prop_tcp_req *req, char **out, size_t *out_len)
{
    if (((local_transport *)t)->root)
        return prop_transport_fail(t,
                                   "connect to %s:%d: %s is a directory tree, which has no network "
                                   "of its own to reach",
                                   req->host, req->port, t->name);
    return prop_tcp_exchange(t, req, 0, out, out_len);
}

static const prop_transport_ops local_ops = {
    .run = prop_local_lt_run,
    .read = lt_read,
    .write = lt_write,
    .stat = lt_stat,
    .remove = lt_remove,
    .mkdir = lt_mkdir,
    .symlink = lt_symlink,
    .chattr = lt_chattr,
    .lock = lt_lock,
    .close = lt_close,
    .sync = lt_sync,
    .tcp = lt_tcp,
};

static local_transport *
lt_new(void)
{
    local_transport *lt = prop_calloc(1, sizeof *lt);

    if (!lt)
        return NULL;
    lt->base.ops = &local_ops;
    lt->lock_fd = -1;
    lt->root_fd = -1;
    return lt;
}

int
prop_transport_is_this_machine(const prop_transport *t)
{
    return t && t->ops == &local_ops && !((const local_transport *)t)->root;
}

int
prop_transport_local(prop_transport **out)
{
    local_transport *lt;

    if (!out)
        return PROP_EINVAL;
    *out = NULL;
    if (!(lt = lt_new()))
        return PROP_ENOMEM;
    strcpy(lt->base.name, "local");
    *out = &lt->base;
    return PROP_OK;
}

int
prop_transport_dir(prop_transport **out, const char *root)
{
    local_transport *lt;
    char real[PATH_MAX];
    struct stat st;

    if (!out)
        return PROP_EINVAL;
    *out = NULL;
    if (!root || !*root)
        return PROP_EINVAL;
    if (!(lt = lt_new()))
        return PROP_ENOMEM;
    *out = &lt->base;
    snprintf(lt->base.name, sizeof lt->base.name, "dir:%s", root);
    if (!realpath(root, real) || stat(real, &st) != 0) {
        lt->broken = 1;
        return prop_transport_fail(&lt->base, "%s: cannot use it as a root: %s", lt->base.name,
                                   strerror(errno));
    }
    if (!S_ISDIR(st.st_mode)) {
        lt->broken = 1;
        return prop_transport_fail(&lt->base, "%s: cannot use it as a root: not a directory",
                                   lt->base.name);
    }
    if (strlen(real) + 5 > sizeof lt->base.name) {
        lt->broken = 1;
        return prop_transport_fail(&lt->base, "%s: cannot use it as a root: path too long",
                                   lt->base.name);
    }
    if (!(lt->root = prop_strdup(real))) {
        lt_close(&lt->base);
        *out = NULL;
        return PROP_ENOMEM;
    }
    lt->plen = strcmp(real, "/") == 0 ? 0 : strlen(real);
    memcpy(lt->base.name + 4, real, strlen(real) + 1); /* fits: checked above */
    do
        lt->root_fd = open(real, O_PATH | O_DIRECTORY | O_CLOEXEC);
    while (lt->root_fd < 0 && errno == EINTR);
    if (lt->root_fd < 0) {
        lt->broken = 1;
        return prop_transport_fail(&lt->base, "%s: cannot use it as a root: %s", lt->base.name,
                                   strerror(errno));
    }
    {
        const char *no = getenv("PROP_NO_OPENAT2");

        lt->no_openat2 = no && *no && strcmp(no, "0") != 0;
    }
    return PROP_OK;
}
