/*
 * transport_local_names.c - users and groups of the local and
 * directory-tree transport: names looked up in this machine's account
 * databases, or in the tree's own /etc/passwd and /etc/group, and the
 * cache of the names stat() met lately.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "transport_local_impl.h"

/* All digits: a numeric id. */
static int
numeric_id(const char *s, unsigned long *id)
{
    unsigned long v = 0;

    if (!*s)
        return 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return 0;
        if (v > (0xfffffffeUL - (unsigned long)(*s - '0')) / 10)
            return 0;
        v = v * 10 + (unsigned long)(*s - '0');
    }
    *id = v;
    return 1;
}

/*
 * Look up the tree's /etc/passwd (group = 0) or /etc/group (group = 1):
 * by name when name is set (id into *id), else by *id (name into
 * name_out).  1: found, 0: not found or no such file, PROP_ERROR.
 */
static int
tree_db(local_transport *lt, int group, const char *name, unsigned long *id, char *name_out,
        size_t name_size)
{
    char last[NAME_MAX + 1], *data = NULL, *line, *next;
    const char *file = group ? "/etc/group" : "/etc/passwd";
    struct stat st;
    size_t len;
    int dfd, fd, e, found = 0;

    if ((e = prop_local_at_path(lt, file, 1, &dfd, last)) != 0) {
        if (e == ENOENT || e == ENOTDIR)
            return 0;
        return fail_errno(lt, "read", file, e);
    }
    do
        fd = openat(dfd, last, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
    while (fd < 0 && errno == EINTR);
    e = errno;
    (void)close(dfd);
    if (fd < 0) {
        if (e == ENOENT || e == ENOTDIR)
            return 0;
        return fail_errno(lt, "read", file, e);
    }
    /* The tree's account database is read only when it is a regular file
     * (a pipe there would wait for a writer, a device answer forever). */
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        (void)close(fd);
        return prop_transport_fail(&lt->base, "read %s: not a regular file", file);
    }
    e = prop_local_read_fd(fd, &data, &len);
    if (close(fd) != 0 && !e)
        e = errno;
    if (e) {
        free(data);
        return fail_errno(lt, "read", file, e);
    }
    for (line = data; line && *line && !found; line = next) {
        char *f[3], *p;
        unsigned long v;
        int i;

        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        /* name:password:id:... */
        p = line;
        for (i = 0; i < 3 && p; i++) {
            f[i] = p;
            p = strchr(p, ':');
            if (p)
                *p++ = '\0';
        }
        if (i < 3 || !f[0][0] || !numeric_id(f[2], &v))
            continue;
        if (name && strcmp(f[0], name) == 0) {
            *id = v;
            found = 1;
        } else if (!name && v == *id) {
            snprintf(name_out, name_size, "%s", f[0]);
            found = 1;
        }
    }
    free(data);
    return found;
}

/* getpw*_r / getgr*_r: the buffer they want. */
static long
db_buf_size(int group)
{
    long n = sysconf(group ? _SC_GETGR_R_SIZE_MAX : _SC_GETPW_R_SIZE_MAX);

    return n > 0 ? n : 16384;
}

/* This machine's user or group database; same contract as tree_db(). */
static int
local_db(local_transport *lt, int group, const char *name, unsigned long *id, char *name_out,
         size_t name_size)
{
    size_t size = (size_t)db_buf_size(group);
    char *buf = NULL, *nb;
    int e, found = 0;

    for (;;) {
        struct passwd pw, *pwp = NULL;
        struct group gr, *grp = NULL;

        nb = prop_realloc(buf, size);
        if (!nb) {
            free(buf);
            return prop_transport_fail(&lt->base, "out of memory");
        }
        buf = nb;
        if (group && name)
            e = getgrnam_r(name, &gr, buf, size, &grp);
        else if (group)
            e = getgrgid_r((gid_t)*id, &gr, buf, size, &grp);
        else if (name)
            e = getpwnam_r(name, &pw, buf, size, &pwp);
        else
            e = getpwuid_r((uid_t)*id, &pw, buf, size, &pwp);
        if (e == EINTR)
            continue;
        if (e == ERANGE && size < (1u << 24)) {
            size *= 2;
            continue;
        }
        if (e == 0 && grp) {
            found = 1;
            if (name)
                *id = (unsigned long)grp->gr_gid;
            else
                snprintf(name_out, name_size, "%s", grp->gr_name);
        } else if (e == 0 && pwp) {
            found = 1;
            if (name)
                *id = (unsigned long)pwp->pw_uid;
            else
                snprintf(name_out, name_size, "%s", pwp->pw_name);
        }
        /* Other errors (no database, ...) count as "not found". */
        break;
    }
    free(buf);
    return found;
}

static int
db_lookup(local_transport *lt, int group, const char *name, unsigned long *id, char *name_out,
          size_t name_size)
{
    if (lt->root)
        return tree_db(lt, group, name, id, name_out, name_size);
    return local_db(lt, group, name, id, name_out, name_size);
}

/*
 * Empty the name cache when the database file changed since it was
 * filled.  Looked at by path, below the root for a tree: a stat that
 * reads nothing and changes nothing, done for every name asked (a path
 * raced to elsewhere only empties the cache once more); the database
 * itself is read through prop_local_at_path() (tree_db).
 */
static void
check_db_file(local_transport *lt, int group)
{
    char p[PATH_MAX];
    struct stat st;

    snprintf(p, sizeof p, "%s%s", lt->root ? lt->root : "", group ? "/etc/group" : "/etc/passwd");
    if (stat(p, &st) != 0)
        memset(&st, 0, sizeof st);
    if (st.st_ino != lt->db_seen[group].st_ino || st.st_size != lt->db_seen[group].st_size ||
        st.st_mtim.tv_sec != lt->db_seen[group].st_mtim.tv_sec ||
        st.st_mtim.tv_nsec != lt->db_seen[group].st_mtim.tv_nsec) {
        for (unsigned i = 0; i < sizeof lt->names / sizeof lt->names[0]; i++)
            if (lt->names[i].group == group)
                lt->names[i].used = 0;
        lt->db_seen[group] = st;
    }
}

/* The name of a uid or gid on the target, or the id in decimal. */
void
prop_local_id_name(local_transport *lt, int group, unsigned long id, char *out, size_t size)
{
    unsigned i;

    group = group != 0;
    check_db_file(lt, group);
    for (i = 0; i < sizeof lt->names / sizeof lt->names[0]; i++) {
        if (lt->names[i].used && lt->names[i].group == group && lt->names[i].id == id) {
            snprintf(out, size, "%s", lt->names[i].name);
            return;
        }
    }
    if (db_lookup(lt, group, NULL, &id, out, size) != 1) {
        snprintf(out, size, "%lu", id);
        return;
    }
    i = lt->next_name++ % (sizeof lt->names / sizeof lt->names[0]);
    lt->names[i].used = 1;
    lt->names[i].group = group;
    lt->names[i].id = id;
    snprintf(lt->names[i].name, sizeof lt->names[i].name, "%s", out);
}

/* Forget the cached names (the account databases may have changed). */
void
prop_local_forget_names(local_transport *lt)
{
    memset(lt->names, 0, sizeof lt->names);
    memset(lt->db_seen, 0, sizeof lt->db_seen);
}

/* The id of a user or group name ("123" is the id 123). */
static int
name_id(local_transport *lt, const char *op, const char *path, int group, const char *name,
        unsigned long *id)
{
    int rc;

    if (numeric_id(name, id))
        return PROP_OK;
    rc = db_lookup(lt, group, name, id, NULL, 0);
    if (rc < 0)
        return rc;
    if (rc == 0)
        return prop_transport_fail(&lt->base, "%s %s: unknown %s \"%s\" on %s", op, path,
                                   group ? "group" : "user", name, lt->base.name);
    return PROP_OK;
}

/* attrs' owner and group as ids, (uid_t)-1 / (gid_t)-1 when not given; the mode checked. */
int
prop_local_attr_ids(local_transport *lt, const char *op, const char *path, const prop_file_attrs *a,
                    uid_t *uid, gid_t *gid)
{
    unsigned long id;
    int rc;

    *uid = (uid_t)-1;
    *gid = (gid_t)-1;
    if (!a)
        return PROP_OK;
    if (a->mode != -1 && (a->mode < 0 || a->mode > 07777))
        return prop_transport_fail(&lt->base, "%s %s: invalid mode %o", op, path,
                                   (unsigned)a->mode);
    if (a->owner) {
        if ((rc = name_id(lt, op, path, 0, a->owner, &id)) != PROP_OK)
            return rc;
        *uid = (uid_t)id;
    }
    if (a->group) {
        if ((rc = name_id(lt, op, path, 1, a->group, &id)) != PROP_OK)
            return rc;
        *gid = (gid_t)id;
    }
    return PROP_OK;
}
