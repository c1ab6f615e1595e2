/*
 * check_tree_race.c - a directory tree (prop_transport_dir()) that is
 * changed from inside while prop works on it: a directory swapped back
 * and forth with a link to a directory outside the tree, by another
 * process, while chattr, write, mkdir, symlink, remove, read and stat
 * work under it; and a hard link inside the tree to a file outside it.
 * Each test runs with openat2(2) and with the walk that stands in for it
 * (PROP_NO_OPENAT2=1).  Nothing outside the tree may change.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "prop/transport.h"
#include "unit.h"

static char D[PATH_MAX]; /* the test's directory (its realpath) */

/* D/rel, from a ring of buffers. */
static const char *
P(const char *rel)
{
    static char ring[8][PATH_MAX + 256];
    static unsigned next;
    char *b = ring[next++ % 8];

    ck_assert_uint_lt(strlen(D) + strlen(rel) + 2, sizeof ring[0]);
    snprintf(b, sizeof ring[0], "%s/%s", D, rel);
    return b;
}

static void
put(const char *path, const char *data, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

    ck_assert_msg(fd >= 0, "open %s: %s", path, strerror(errno));
    ck_assert_int_eq(write(fd, data, strlen(data)), (ssize_t)strlen(data));
    ck_assert_int_eq(close(fd), 0);
    ck_assert_int_eq(chmod(path, mode), 0);
}

static int
rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(p);
}

static void
setup(void)
{
    char tmpl[] = "/tmp/prop-tree-race.XXXXXX";

    ck_assert_ptr_nonnull(mkdtemp(tmpl));
    ck_assert_ptr_nonnull(realpath(tmpl, D));
}

static void
teardown(void)
{
    (void)nftw(D, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    (void)unsetenv("PROP_NO_OPENAT2");
}

/* The tree, with openat2 (walk = 0) or the walk that stands in for it. */
static prop_transport *
tree(int walk)
{
    prop_transport *t = NULL;

    if (walk)
        ck_assert_int_eq(setenv("PROP_NO_OPENAT2", "1", 1), 0);
    else
        ck_assert_int_eq(unsetenv("PROP_NO_OPENAT2"), 0);
    ck_assert_int_eq(prop_transport_dir(&t, P("root")), PROP_OK);
    return t;
}

/* What must not change outside the tree: out/f (0600, root's or ours, "outside"), nothing
 * else in out/. */
static void
assert_outside_intact(void)
{
    struct stat st;
    char buf[64] = "";
    int fd, n;

    ck_assert_int_eq(lstat(P("out/f"), &st), 0);
    ck_assert_msg((st.st_mode & 07777) == 0600, "out/f is now mode %o", st.st_mode & 07777);
    ck_assert_msg(st.st_uid == geteuid(), "out/f is now owned by %lu", (unsigned long)st.st_uid);
    ck_assert_int_eq(st.st_nlink, 1);
    fd = open(P("out/f"), O_RDONLY | O_CLOEXEC);
    ck_assert_int_ge(fd, 0);
    n = (int)read(fd, buf, sizeof buf - 1);
    ck_assert_int_eq(close(fd), 0);
    ck_assert_int_ge(n, 0);
    buf[n] = '\0';
    ck_assert_str_eq(buf, "outside file\n");
    /* Only f, and no temporary file beside it. */
    ck_assert_int_eq(sh("test \"$(ls -A '%s')\" = f", P("out")), 0);
}

/*
 * root/d (a directory holding f) and root/dl (a link to out/, outside the
 * tree) trade names, again and again, in another process, while t works
 * on /d/... .  Bounded: 3000 rounds of operations or 5 seconds, whichever
 * comes first; the swapping ends with them (or by itself after 400000
 * swaps).
 */
static void
race(int walk)
{
    prop_transport *t;
    prop_file_attrs mode = {0644, NULL, NULL}, owner = {0604, "1000", "1000"};
    prop_file_stat st;
    pid_t pid;
    int i, status;
    double start;
    char *data;
    size_t len;

    ck_assert_int_eq(mkdir(P("root"), 0755), 0);
    ck_assert_int_eq(mkdir(P("root/d"), 0755), 0);
    ck_assert_int_eq(mkdir(P("out"), 0755), 0);
    put(P("root/d/f"), "inside\n", 0600);
    put(P("out/f"), "outside file\n", 0600);
    ck_assert_int_eq(symlink(P("out"), P("root/dl")), 0);
    t = tree(walk);

    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        unsigned long n;

        for (n = 0; n < 400000; n++)
            if (renameat2(AT_FDCWD, P("root/d"), AT_FDCWD, P("root/dl"), RENAME_EXCHANGE) != 0 &&
                (rename(P("root/d"), P("root/x")) != 0 || rename(P("root/dl"), P("root/d")) != 0 ||
                 rename(P("root/x"), P("root/dl")) != 0))
                _exit(1);
        _exit(0);
    }
    start = seconds();
    for (i = 0; i < 3000 && seconds() - start < 5; i++) {
        /* Each may fail (the directory is a link at that moment): none may reach out/. */
        (void)prop_transport_chattr(t, "/d/f", geteuid() == 0 ? &owner : &mode);
        (void)prop_transport_chattr(t, "/d/f", &mode);
        (void)prop_transport_write(t, "/d/f", "written\n", 8, &mode);
        (void)prop_transport_write(t, "/d/new", "new\n", 4, &owner);
        (void)prop_transport_remove(t, "/d/new");
        (void)prop_transport_mkdir(t, "/d/sub", &mode);
        (void)prop_transport_remove(t, "/d/sub");
        (void)prop_transport_symlink(t, "/etc/passwd", "/d/ln");
        (void)prop_transport_remove(t, "/d/ln");
        (void)prop_transport_remove(t, "/d/f");
        if (prop_transport_read(t, "/d/f", &data, &len) == PROP_OK) {
            ck_assert_str_ne(data, "outside file\n");
            free(data);
        }
        if (prop_transport_stat(t, "/d/f", &st) == PROP_OK)
            ck_assert_int_ne(st.size, 13); /* "outside file\n" */
    }
    /* SIGKILL: the child has the test runner's handler of SIGTERM. */
    (void)kill(pid, SIGKILL);
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) == 0),
                  "the swapping failed");
    prop_transport_close(t);
    assert_outside_intact();
}

START_TEST(test_race_openat2)
{
    race(0);
}
END_TEST

START_TEST(test_race_walk)
{
    race(1);
}
END_TEST

/* root/h is a hard link to out/f: chattr refuses it; chattr_hardlinks changes it. */
static void
hardlink(int walk)
{
    prop_transport *t;
    prop_file_attrs mode = {0644, NULL, NULL}, owner = {-1, "1000", NULL};
    struct stat st;

    ck_assert_int_eq(mkdir(P("root"), 0755), 0);
    ck_assert_int_eq(mkdir(P("out"), 0755), 0);
    put(P("out/f"), "outside file\n", 0600);
    ck_assert_int_eq(link(P("out/f"), P("root/h")), 0);
    ck_assert_int_eq(symlink("/h", P("root/via")), 0);
    t = tree(walk);
    ck_assert_int_eq(prop_transport_chattr(t, "/h", &mode), PROP_ERROR);
    ck_assert_msg(strstr(prop_transport_error(t), "chattr /h: the file has 2 hard links") != NULL,
                  "%s", prop_transport_error(t));
    ck_assert_ptr_nonnull(strstr(prop_transport_error(t), "hardlinks = true"));
    ck_assert_int_eq(prop_transport_chattr(t, "/via", &mode), PROP_ERROR);
    ck_assert_int_eq(prop_transport_chattr(t, "/h", &owner), PROP_ERROR);
    ck_assert_int_eq(lstat(P("out/f"), &st), 0);
    ck_assert_uint_eq(st.st_mode & 07777, 0600);
    ck_assert_uint_eq(st.st_uid, geteuid());
    /* A write replaces the name in the tree: the file outside keeps its bytes. */
    ck_assert_int_eq(prop_transport_write(t, "/h", "inside\n", 7, NULL), PROP_OK);
    ck_assert_int_eq(lstat(P("out/f"), &st), 0);
    ck_assert_uint_eq(st.st_nlink, 1);
    assert_outside_intact();
    /* Linked again; said so, it is changed. */
    ck_assert_int_eq(unlink(P("root/h")), 0);
    ck_assert_int_eq(link(P("out/f"), P("root/h")), 0);
    ck_assert_int_eq(prop_transport_chattr_hardlinks(t, "/h", &mode), PROP_OK);
    ck_assert_int_eq(lstat(P("out/f"), &st), 0);
    ck_assert_uint_eq(st.st_mode & 07777, 0644);
    if (geteuid() == 0) {
        ck_assert_int_eq(prop_transport_chattr_hardlinks(t, "/via", &owner), PROP_OK);
        ck_assert_int_eq(lstat(P("out/f"), &st), 0);
        ck_assert_uint_eq(st.st_uid, 1000);
    }
    /* A file with one link is changed as ever. */
    put(P("root/one"), "one\n", 0600);
    ck_assert_int_eq(prop_transport_chattr(t, "/one", &mode), PROP_OK);
    ck_assert_int_eq(lstat(P("root/one"), &st), 0);
    ck_assert_uint_eq(st.st_mode & 07777, 0644);
    prop_transport_close(t);
}

START_TEST(test_hardlink_openat2)
{
    hardlink(0);
}
END_TEST

START_TEST(test_hardlink_walk)
{
    hardlink(1);
}
END_TEST

/* On this machine a file with several links is changed: every name is on it. */
START_TEST(test_hardlink_local)
{
    prop_transport *t = NULL;
    prop_file_attrs mode = {0644, NULL, NULL};
    struct stat st;

    put(P("f"), "x\n", 0600);
    ck_assert_int_eq(link(P("f"), P("g")), 0);
    ck_assert_int_eq(prop_transport_local(&t), PROP_OK);
    ck_assert_int_eq(prop_transport_chattr(t, P("g"), &mode), PROP_OK);
    ck_assert_int_eq(lstat(P("f"), &st), 0);
    ck_assert_uint_eq(st.st_mode & 07777, 0644);
    prop_transport_close(t);
}
END_TEST

/*
 * Links resolved inside the root the same way by openat2 and by the walk:
 * absolute targets start at the root, ".." stops there, a relative target
 * is taken from the link's own directory, and a link in a link's target.
 */
static void
links(int walk)
{
    prop_transport *t;
    prop_file_attrs mode = {0640, NULL, NULL};
    char *data;
    size_t len;
    struct stat st;

    ck_assert_int_eq(sh("mkdir -p '%s/root/etc/sub' '%s/root/srv/a/b' && echo top >'%s/root/top' "
                        "&& echo c >'%s/root/srv/a/c' && echo outside >'%s/top'",
                        D, D, D, D, D),
                     0);
    ck_assert_int_eq(symlink("../../../../../../../top", P("root/etc/up")), 0);
    ck_assert_int_eq(symlink("/srv/a/b", P("root/etc/abs")), 0);
    ck_assert_int_eq(symlink("../c", P("root/srv/a/b/rel")), 0);
    ck_assert_int_eq(symlink("/etc/abs/rel", P("root/etc/chain")), 0);
    ck_assert_int_eq(symlink("../..", P("root/etc/sub/dotdot")), 0);
    t = tree(walk);
    ck_assert_int_eq(prop_transport_read(t, "/etc/up", &data, &len), PROP_OK);
    ck_assert_str_eq(data, "top\n");
    free(data);
    ck_assert_int_eq(prop_transport_read(t, "/etc/abs/rel", &data, &len), PROP_OK);
    ck_assert_str_eq(data, "c\n");
    free(data);
    ck_assert_int_eq(prop_transport_read(t, "/etc/chain", &data, &len), PROP_OK);
    ck_assert_str_eq(data, "c\n");
    free(data);
    ck_assert_int_eq(prop_transport_read(t, "/etc/sub/dotdot/top", &data, &len), PROP_OK);
    ck_assert_str_eq(data, "top\n");
    free(data);
    ck_assert_int_eq(prop_transport_write(t, "/etc/abs/new", "n\n", 2, NULL), PROP_OK);
    ck_assert_int_eq(lstat(P("root/srv/a/b/new"), &st), 0);
    ck_assert_int_eq(prop_transport_chattr(t, "/etc/chain", &mode), PROP_OK);
    ck_assert_int_eq(lstat(P("root/srv/a/c"), &st), 0);
    ck_assert_uint_eq(st.st_mode & 07777, 0640);
    ck_assert_int_eq(prop_transport_read(t, "/etc/missing/x", &data, &len), PROP_ENOTFOUND);
    ck_assert_int_eq(prop_transport_write(t, "/etc/missing/x", "x", 1, NULL), PROP_ERROR);
    ck_assert_ptr_nonnull(strstr(prop_transport_error(t), "the parent directory /etc/missing"));
    prop_transport_close(t);
    ck_assert_int_eq(sh("grep -qx outside '%s/top' && test ! -e '%s/new'", D, D), 0);
}

START_TEST(test_links_openat2)
{
    links(0);
}
END_TEST

START_TEST(test_links_walk)
{
    links(1);
}
END_TEST

static Suite *
tree_race_suite(void)
{
    Suite *s = suite_create("tree_race");
    TCase *tc = tcase_create("tree");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_race_openat2);
    tcase_add_test(tc, test_race_walk);
    tcase_add_test(tc, test_hardlink_openat2);
    tcase_add_test(tc, test_hardlink_walk);
    tcase_add_test(tc, test_hardlink_local);
    tcase_add_test(tc, test_links_openat2);
    tcase_add_test(tc, test_links_walk);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    return run_suite(tree_race_suite());
}
