/*
 * check_ssh_files.c - the SSH transport's file operations (read, write,
 * stat, remove, mkdir, symlink, chattr) and the remote shell they go
 * through, against a real sshd on loopback (see ssh_fixture.c).
 */
#define _DEFAULT_SOURCE /* flock */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "prop/transport.h"
#include "ssh_fixture.h"
#include "unit.h"

/* ---------------------------------------------------------------------
 * Files.
 */
START_TEST(test_read)
{
    prop_transport *t = connect_default();
    char dir[512], file[600], odd[600];
    static const char data[] = "line 1\n\0binary\377\n";
    char *got = NULL;
    size_t len = 0;

    test_dir(dir, sizeof dir, "read");
    FMT(file, "%s/f", dir);
    ck_assert_int_eq(spit(file, data, sizeof data - 1), 0);
    OK(t, prop_transport_read(t, file, &got, &len));
    ck_assert_uint_eq(len, sizeof data - 1);
    ck_assert_int_eq(memcmp(got, data, len), 0);
    ck_assert_int_eq(got[len], '\0');
    free(got);

    /* A name the shell would like to interpret. */
    FMT(odd, "%s/-n $(x) 'q' *", dir);
    ck_assert_int_eq(spit(odd, "odd", 3), 0);
    OK(t, prop_transport_read(t, odd, &got, &len));
    ck_assert_str_eq(got, "odd");
    free(got);

    FMT(file, "%s/missing", dir);
    ck_assert_int_eq(prop_transport_read(t, file, &got, &len), PROP_ENOTFOUND);
    ck_assert_ptr_null(got);
    ck_assert_int_eq(prop_transport_read(t, dir, &got, &len), PROP_ERROR);
    ck_assert_msg(strstr(prop_transport_error(t), "read "), "%s", prop_transport_error(t));
    ck_assert_msg(strstr(prop_transport_error(t), "directory"), "%s", prop_transport_error(t));
    prop_transport_close(t);
}
END_TEST

START_TEST(test_write)
{
    prop_transport *t = connect_default();
    char dir[512], file[600], *got;
    prop_file_attrs a = {0640, NULL, NULL}, keep = {-1, NULL, NULL};
    prop_file_attrs own = {0604, "nobody", "nogroup"};
    static const char data[] = "new\0content\n";
    struct stat sb;
    size_t len;

    test_dir(dir, sizeof dir, "write");
    FMT(file, "%s/f", dir);
    /* New file, with a mode. */
    OK(t, prop_transport_write(t, file, data, sizeof data - 1, &a));
    ck_assert_int_eq(stat(file, &sb), 0);
    ck_assert_int_eq((int)(sb.st_mode & 07777), 0640);
    ck_assert_int_eq((int)sb.st_uid, 0);
    got = slurp(file, &len);
    ck_assert_uint_eq(len, sizeof data - 1);
    ck_assert_int_eq(memcmp(got, data, len), 0);
    free(got);
    /* New file, no attributes: 0644. */
    FMT(file, "%s/g", dir);
    OK(t, prop_transport_write(t, file, "g", 1, NULL));
    ck_assert_int_eq(stat(file, &sb), 0);
    ck_assert_int_eq((int)(sb.st_mode & 07777), 0644);
    /* Existing file: its mode and owner are kept when attrs leave them. */
    ck_assert_int_eq(chmod(file, 0600), 0);
    ck_assert_int_eq(chown(file, 1, 1), 0);
    OK(t, prop_transport_write(t, file, "gg", 2, &keep));
    ck_assert_int_eq(stat(file, &sb), 0);
    ck_assert_int_eq((int)(sb.st_mode & 07777), 0600);
    ck_assert_int_eq((int)sb.st_uid, 1);
    ck_assert_int_eq((int)sb.st_gid, 1);
    ck_assert_int_eq((int)sb.st_size, 2);
    /* Owner and group by name. */
    OK(t, prop_transport_write(t, file, "", 0, &own));
    ck_assert_int_eq(stat(file, &sb), 0);
    ck_assert_int_eq((int)(sb.st_mode & 07777), 0604);
    ck_assert_int_eq((int)sb.st_uid, 65534);
    ck_assert_int_eq((int)sb.st_gid, 65534);
    ck_assert_int_eq((int)sb.st_size, 0);
    /* Nothing left behind: f and g only. */
    ck_assert_int_eq(count_entries(dir), 2);

    /* Failures leave nothing behind either. */
    FMT(file, "%s/nodir/f", dir);
    ck_assert_int_eq(prop_transport_write(t, file, "x", 1, NULL), PROP_ERROR);
    ck_assert_msg(strstr(prop_transport_error(t), "no such directory"), "%s",
                  prop_transport_error(t));
    ck_assert_int_eq(prop_transport_write(t, dir, "x", 1, NULL), PROP_ERROR);
    ck_assert_msg(strstr(prop_transport_error(t), "is a directory"), "%s", prop_transport_error(t));
    {
        prop_file_attrs bad = {-1, "no-such-user-prop", NULL};

        FMT(file, "%s/f", dir);
        ck_assert_int_eq(prop_transport_write(t, file, "zz", 2, &bad), PROP_ERROR);
        ck_assert_msg(strstr(prop_transport_error(t), "no-such-user-prop"), "%s",
                      prop_transport_error(t));
        got = slurp(file, &len);
        ck_assert_uint_eq(len, sizeof data - 1); /* unchanged */
        free(got);
    }
    ck_assert_int_eq(count_entries(dir), 2);
    prop_transport_close(t);
}
END_TEST

/* Every byte value, through the remote shell (small) and a channel of its own (large). */
START_TEST(test_write_bytes)
{
    prop_transport *t = connect_default();
    size_t sizes[] = {256 * 3 + 1, (5u << 20) + 7}, i, k, len;
    char dir[512], file[600], *data, *got;
    const char *cat[] = {"cat", NULL};
    prop_cmd_result r;

    test_dir(dir, sizeof dir, "bytes");
    FMT(file, "%s/f", dir);
    for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        data = malloc(sizes[k]);
        ck_assert_ptr_nonnull(data);
        for (i = 0; i < sizes[k]; i++)
            data[i] = (char)(i * 7 + i / 256);
        OK(t, prop_transport_write(t, file, data, sizes[k], NULL));
        got = slurp(file, &len);
        ck_assert_uint_eq(len, sizes[k]);
        ck_assert_int_eq(memcmp(got, data, len), 0);
        free(got);
        OK(t, prop_transport_run(t, cat, data, sizes[k], &r));
        ck_assert_int_eq(r.code, 0);
        ck_assert_uint_eq(r.out_len, sizes[k]);
        ck_assert_int_eq(memcmp(r.out, data, sizes[k]), 0);
        prop_cmd_result_clear(&r);
        free(data);
    }
    /* Text a printf format or an option could be made of. */
    {
        static const char *const odd[] = {"-n x", "--", "%s%d\\n\\", "'", "", "\\0101"};

        for (i = 0; i < sizeof odd / sizeof odd[0]; i++) {
            OK(t, prop_transport_write(t, file, odd[i], strlen(odd[i]), NULL));
            got = slurp(file, &len);
            ck_assert_uint_eq(len, strlen(odd[i]));
            ck_assert_int_eq(memcmp(got, odd[i], len), 0);
            free(got);
        }
    }
    ck_assert_int_eq(count_entries(dir), 1);
    prop_transport_close(t);
}
END_TEST

/* The remote shell ends (killed): that operation fails, the next starts another. */
START_TEST(test_shell_restart)
{
    prop_transport *t = connect_default();
    const char *kill_shell[] = {"sh", "-c", "kill -9 $PPID; sleep 5", NULL};
    const char *echo[] = {"echo", "again", NULL};
    prop_cmd_result r;

    ck_assert_int_eq(prop_transport_run(t, kill_shell, NULL, 0, &r), PROP_ERROR);
    ck_assert_msg(strstr(prop_transport_error(t), "run sh"), "%s", prop_transport_error(t));
    prop_cmd_result_clear(&r);
    OK(t, prop_transport_run(t, echo, NULL, 0, &r));
    ck_assert_int_eq(r.code, 0);
    ck_assert_str_eq(r.out, "again\n");
    prop_cmd_result_clear(&r);
    prop_transport_close(t);
}
END_TEST

START_TEST(test_write_atomic)
{
    prop_transport *t = connect_default();
    char dir[512], file[600], old[600], *got;
    struct stat before, after;
    size_t n = 1 << 20, i;
    char *big = malloc(n);

    ck_assert_ptr_nonnull(big);
    for (i = 0; i < n; i++)
        big[i] = (char)('0' + i % 10);
    test_dir(dir, sizeof dir, "atomic");
    FMT(file, "%s/f", dir);
    FMT(old, "%s/old", dir);
    ck_assert_int_eq(spit(file, "old content", 11), 0);
    ck_assert_int_eq(link(file, old), 0); /* keeps the old inode visible */
    ck_assert_int_eq(stat(file, &before), 0);
    OK(t, prop_transport_write(t, file, big, n, NULL));
    ck_assert_int_eq(stat(file, &after), 0);
    /* Replaced by rename, not rewritten in place. */
    ck_assert_uint_ne((unsigned long)before.st_ino, (unsigned long)after.st_ino);
    got = slurp(old, NULL);
    ck_assert_str_eq(got, "old content");
    free(got);
    got = slurp(file, &i);
    ck_assert_uint_eq(i, n);
    ck_assert_int_eq(memcmp(got, big, n), 0);
    free(got);
    free(big);
    ck_assert_int_eq(count_entries(dir), 2);
    prop_transport_close(t);
}
END_TEST

START_TEST(test_stat)
{
    prop_transport *t = connect_default();
    char dir[512], file[600], sub[600], lnk[600], fifo[600], odd[600];
    prop_file_stat st;

    test_dir(dir, sizeof dir, "stat");
    FMT(file, "%s/f", dir);
    ck_assert_int_eq(spit(file, "12345", 5), 0);
    ck_assert_int_eq(chmod(file, 04754), 0);
    ck_assert_int_eq(chown(file, 1, 65534), 0);
    ck_assert_int_eq(chmod(file, 04754), 0); /* chown cleared setuid */
    OK(t, prop_transport_stat(t, file, &st));
    ck_assert_int_eq(st.type, PROP_FT_FILE);
    ck_assert_uint_eq(st.mode, 04754);
    ck_assert_int_eq((int)st.uid, 1);
    ck_assert_int_eq((int)st.gid, 65534);
    ck_assert_str_eq(st.owner, "daemon");
    ck_assert_str_eq(st.group, "nogroup");
    ck_assert_int_eq((int)st.size, 5);

    FMT(sub, "%s/d", dir);
    ck_assert_int_eq(mkdir(sub, 0711), 0);
    ck_assert_int_eq(chmod(sub, 01711), 0);
    OK(t, prop_transport_stat(t, sub, &st));
    ck_assert_int_eq(st.type, PROP_FT_DIR);
    ck_assert_uint_eq(st.mode, 01711);
    ck_assert_str_eq(st.owner, "root");

    FMT(lnk, "%s/l", dir);
    ck_assert_int_eq(symlink("target with space\nand newline", lnk), 0);
    OK(t, prop_transport_stat(t, lnk, &st));
    ck_assert_int_eq(st.type, PROP_FT_LINK);
    ck_assert_str_eq(st.target, "target with space\nand newline");

    FMT(fifo, "%s/p", dir);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    OK(t, prop_transport_stat(t, fifo, &st));
    ck_assert_int_eq(st.type, PROP_FT_OTHER);
    ck_assert_uint_eq(st.mode, 0600);

    /* Ids without names read as numbers. */
    FMT(odd, "%s/$(id) 'x'", dir);
    ck_assert_int_eq(spit(odd, "", 0), 0);
    ck_assert_int_eq(chown(odd, 54321, 54322), 0);
    OK(t, prop_transport_stat(t, odd, &st));
    ck_assert_str_eq(st.owner, "54321");
    ck_assert_str_eq(st.group, "54322");
    ck_assert_int_eq((int)st.size, 0);

    FMT(file, "%s/missing", dir);
    ck_assert_int_eq(prop_transport_stat(t, file, &st), PROP_ENOTFOUND);
    ck_assert_int_eq(st.type, PROP_FT_NONE);
    prop_transport_close(t);
}
END_TEST

START_TEST(test_remove)
{
    prop_transport *t = connect_default();
    char dir[512], file[600], sub[600], lnk[600], full[600], inner[700];
    struct stat sb;

    test_dir(dir, sizeof dir, "remove");
    FMT(file, "%s/f", dir);
    FMT(sub, "%s/d", dir);
    FMT(lnk, "%s/l", dir);
    FMT(full, "%s/full", dir);
    FMT(inner, "%s/full/x", dir);
    ck_assert_int_eq(spit(file, "x", 1), 0);
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    ck_assert_int_eq(symlink(sub, lnk), 0);
    ck_assert_int_eq(mkdir(full, 0755), 0);
    ck_assert_int_eq(spit(inner, "x", 1), 0);

    OK(t, prop_transport_remove(t, lnk)); /* the link, not the directory */
    ck_assert_int_ne(lstat(lnk, &sb), 0);
    ck_assert_int_eq(stat(sub, &sb), 0);
    OK(t, prop_transport_remove(t, file));
    ck_assert_int_ne(lstat(file, &sb), 0);
    OK(t, prop_transport_remove(t, sub));
    ck_assert_int_ne(lstat(sub, &sb), 0);
    ck_assert_int_eq(prop_transport_remove(t, file), PROP_ENOTFOUND);
    ck_assert_int_eq(prop_transport_remove(t, full), PROP_ERROR);
    ck_assert_msg(strstr(prop_transport_error(t), "remove "), "%s", prop_transport_error(t));
    ck_assert_int_eq(stat(inner, &sb), 0);
    prop_transport_close(t);
}
END_TEST

START_TEST(test_mkdir)
{
    prop_transport *t = connect_default();
    char dir[512], sub[600], sub2[600], file[600];
    prop_file_attrs a = {0700, NULL, "nogroup"}, b = {0750, "daemon", NULL};
    struct stat sb;

    test_dir(dir, sizeof dir, "mkdir");
    FMT(sub, "%s/new", dir);
    OK(t, prop_transport_mkdir(t, sub, &a));
    ck_assert_int_eq(stat(sub, &sb), 0);
    ck_assert(S_ISDIR(sb.st_mode));
    ck_assert_int_eq((int)(sb.st_mode & 07777), 0700);
    ck_assert_int_eq((int)sb.st_gid, 65534);
    /* Existing: gets the attributes. */
    OK(t, prop_transport_mkdir(t, sub, &b));
    ck_assert_int_eq(stat(sub, &sb), 0);
    ck_assert_int_eq((int)(sb.st_mode & 07777), 0750);
    ck_assert_int_eq((int)sb.st_uid, 1);
    ck_assert_int_eq((int)sb.st_gid, 65534);
    /* No attributes: 0755. */
    FMT(sub2, "%s/plain", dir);
    OK(t, prop_transport_mkdir(t, sub2, NULL));
    ck_assert_int_eq(stat(sub2, &sb), 0);
    ck_assert_int_eq((int)(sb.st_mode & 07777), 0755);
    /* A file in the way, a missing parent. */
    FMT(file, "%s/f", dir);
    ck_assert_int_eq(spit(file, "x", 1), 0);
    ck_assert_int_eq(prop_transport_mkdir(t, file, NULL), PROP_ERROR);
    ck_assert_msg(strstr(prop_transport_error(t), "not a directory"), "%s",
                  prop_transport_error(t));
    FMT(file, "%s/no/such", dir);
    ck_assert_int_eq(prop_transport_mkdir(t, file, NULL), PROP_ERROR);
    prop_transport_close(t);
}
END_TEST

START_TEST(test_symlink)
{
    prop_transport *t = connect_default();
    char dir[512], lnk[600], file[600], sub[600], buf[600];
    struct stat sb;
    ssize_t n;

    test_dir(dir, sizeof dir, "symlink");
    FMT(lnk, "%s/l", dir);
    OK(t, prop_transport_symlink(t, "/etc/hostname", lnk));
    n = readlink(lnk, buf, sizeof buf - 1);
    ck_assert_int_gt(n, 0);
    buf[n] = '\0';
    ck_assert_str_eq(buf, "/etc/hostname");
    /* Replace a link (to a directory: the link is replaced, not entered). */
    FMT(sub, "%s/d", dir);
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    ck_assert_int_eq(unlink(lnk), 0);
    ck_assert_int_eq(symlink(sub, lnk), 0);
    OK(t, prop_transport_symlink(t, "rel target", lnk));
    n = readlink(lnk, buf, sizeof buf - 1);
    ck_assert_int_gt(n, 0);
    buf[n] = '\0';
    ck_assert_str_eq(buf, "rel target");
    ck_assert_int_eq(count_entries(sub), 0);
    /* Replace a file. */
    FMT(file, "%s/f", dir);
    ck_assert_int_eq(spit(file, "x", 1), 0);
    OK(t, prop_transport_symlink(t, "elsewhere", file));
    ck_assert_int_eq(lstat(file, &sb), 0);
    ck_assert(S_ISLNK(sb.st_mode));
    /* A real directory is not replaced. */
    ck_assert_int_eq(prop_transport_symlink(t, "x", sub), PROP_ERROR);
    ck_assert_int_eq(lstat(sub, &sb), 0);
    ck_assert(S_ISDIR(sb.st_mode));
    ck_assert_int_eq(count_entries(dir), 3); /* l, d, f: no temporary left */
    prop_transport_close(t);
}
END_TEST

/* A directory whose attributes cannot be set is not left behind. */
START_TEST(test_mkdir_failure_removes_it)
{
    prop_transport *t = connect_default();
    char dir[512], sub[600];
    prop_file_attrs bad_owner = {0750, "no-such-user-prop", NULL};
    prop_file_attrs bad_mode = {-1, NULL, "no-such-group-prop"};
    struct stat sb;

    test_dir(dir, sizeof dir, "mkdir-fail");
    FMT(sub, "%s/new", dir);
    ck_assert_int_eq(prop_transport_mkdir(t, sub, &bad_owner), PROP_ERROR);
    ck_assert_msg(strstr(prop_transport_error(t), "no-such-user-prop"), "%s",
                  prop_transport_error(t));
    ck_assert_msg(stat(sub, &sb) != 0 && errno == ENOENT, "%s was left behind", sub);
    ck_assert_int_eq(prop_transport_mkdir(t, sub, &bad_mode), PROP_ERROR);
    ck_assert_int_ne(stat(sub, &sb), 0);
    /* One that was there before stays. */
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    ck_assert_int_eq(prop_transport_mkdir(t, sub, &bad_owner), PROP_ERROR);
    ck_assert_int_eq(stat(sub, &sb), 0);
    ck_assert(S_ISDIR(sb.st_mode));
    prop_transport_close(t);
}
END_TEST

/*
 * Stale temporary files of a path (a write cut short) are removed by the
 * next write of that path over SSH, and only those; a symlink does the
 * same for stale links of its naming.
 */
START_TEST(test_write_removes_stale)
{
    static const char *const stale[] = {".f.prop-abc123", ".f.prop-XYZ789"};
    static const char *const kept[] = {".f.prop-abc12",  ".f.prop-abc1234", ".f.prop-ab_123",
                                       ".g.prop-abc123", "f.prop-abc123",   ".f.prop-ab$123"};
    prop_transport *t = connect_default();
    char dir[512], p[700], *big;
    struct stat sb;
    size_t i, k, n = (5u << 20) + 3;

    test_dir(dir, sizeof dir, "stale");
    for (k = 0; k < 2; k++) { /* through the shell, then through a channel of its own */
        for (i = 0; i < sizeof stale / sizeof stale[0]; i++) {
            FMT(p, "%s/%s", dir, stale[i]);
            ck_assert_int_eq(spit(p, "stale", 5), 0);
        }
        for (i = 0; i < sizeof kept / sizeof kept[0]; i++) {
            FMT(p, "%s/%s", dir, kept[i]);
            ck_assert_int_eq(spit(p, "kept", 4), 0);
        }
        FMT(p, "%s/.f.prop-dir000", dir);
        ck_assert_int_eq(mkdir(p, 0755) == 0 || errno == EEXIST, 1);
        FMT(p, "%s/.f.prop-lnk000", dir);
        ck_assert_int_eq(symlink("f", p) == 0 || errno == EEXIST, 1);
        FMT(p, "%s/.f.prop-other0", dir);
        ck_assert_int_eq(spit(p, "another user's", 14), 0);
        ck_assert_int_eq(chown(p, 1, 1), 0);
        FMT(p, "%s/f", dir);
        if (k == 0) {
            OK(t, prop_transport_write(t, p, "new\n", 4, NULL));
        } else {
            big = calloc(1, n);
            ck_assert_ptr_nonnull(big);
            OK(t, prop_transport_write(t, p, big, n, NULL));
            free(big);
        }
        for (i = 0; i < sizeof stale / sizeof stale[0]; i++) {
            FMT(p, "%s/%s", dir, stale[i]);
            ck_assert_msg(lstat(p, &sb) != 0, "%s is still there", p);
        }
        for (i = 0; i < sizeof kept / sizeof kept[0]; i++) {
            FMT(p, "%s/%s", dir, kept[i]);
            ck_assert_msg(lstat(p, &sb) == 0, "%s was removed", p);
        }
        FMT(p, "%s/.f.prop-dir000", dir);
        ck_assert_int_eq(lstat(p, &sb), 0);
        FMT(p, "%s/.f.prop-lnk000", dir);
        ck_assert_int_eq(lstat(p, &sb), 0);
        FMT(p, "%s/.f.prop-other0", dir);
        ck_assert_int_eq(lstat(p, &sb), 0);
    }
    /* Files the new file's owner owns are its stale copies too. */
    {
        prop_file_attrs a = {-1, "daemon", NULL};

        FMT(p, "%s/.f.prop-daemon", dir);
        ck_assert_int_eq(spit(p, "stale", 5), 0);
        ck_assert_int_eq(chown(p, 1, 1), 0);
        FMT(p, "%s/f", dir);
        OK(t, prop_transport_write(t, p, "x", 1, &a));
        FMT(p, "%s/.f.prop-daemon", dir);
        ck_assert_int_ne(lstat(p, &sb), 0);
    }
    /* Links. */
    FMT(p, "%s/.l.prop-old000", dir);
    ck_assert_int_eq(symlink("x", p), 0);
    FMT(p, "%s/.l.prop-file00", dir);
    ck_assert_int_eq(spit(p, "a file", 6), 0);
    FMT(p, "%s/l", dir);
    OK(t, prop_transport_symlink(t, "f", p));
    FMT(p, "%s/.l.prop-old000", dir);
    ck_assert_int_ne(lstat(p, &sb), 0);
    FMT(p, "%s/.l.prop-file00", dir);
    ck_assert_int_eq(lstat(p, &sb), 0);
    prop_transport_close(t);
}
END_TEST

START_TEST(test_chattr)
{
    prop_transport *t = connect_default();
    char dir[512], file[600];
    prop_file_attrs mode = {0600, NULL, NULL}, owner = {-1, "daemon", NULL};
    prop_file_attrs group = {-1, NULL, "nogroup"}, bad = {-1, "no-such-user-prop", NULL};
    struct stat sb;

    test_dir(dir, sizeof dir, "chattr");
    FMT(file, "%s/f", dir);
    ck_assert_int_eq(spit(file, "x", 1), 0);
    ck_assert_int_eq(chmod(file, 0644), 0);
    OK(t, prop_transport_chattr(t, file, &mode));
    ck_assert_int_eq(stat(file, &sb), 0);
    ck_assert_int_eq((int)(sb.st_mode & 07777), 0600);
    ck_assert_int_eq((int)sb.st_uid, 0);
    OK(t, prop_transport_chattr(t, file, &owner));
    ck_assert_int_eq(stat(file, &sb), 0);
    ck_assert_int_eq((int)sb.st_uid, 1);
    ck_assert_int_eq((int)sb.st_gid, 0);
    ck_assert_int_eq((int)(sb.st_mode & 07777), 0600);
    OK(t, prop_transport_chattr(t, file, &group));
    ck_assert_int_eq(stat(file, &sb), 0);
    ck_assert_int_eq((int)sb.st_uid, 1);
    ck_assert_int_eq((int)sb.st_gid, 65534);
    ck_assert_int_eq(prop_transport_chattr(t, file, &bad), PROP_ERROR);
    ck_assert_msg(strstr(prop_transport_error(t), "no-such-user-prop"), "%s",
                  prop_transport_error(t));
    FMT(file, "%s/missing", dir);
    ck_assert_int_eq(prop_transport_chattr(t, file, &mode), PROP_ERROR);
    ck_assert_msg(strstr(prop_transport_error(t), "no such file"), "%s", prop_transport_error(t));
    prop_transport_close(t);
}
END_TEST

static Suite *
ssh_files_suite(void)
{
    Suite *s = suite_create("ssh_files");
    TCase *tc;

    tc = tcase_create("files");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_read);
    tcase_add_test(tc, test_write);
    tcase_add_test(tc, test_write_bytes);
    tcase_add_test(tc, test_shell_restart);
    tcase_add_test(tc, test_write_atomic);
    tcase_add_test(tc, test_stat);
    tcase_add_test(tc, test_remove);
    tcase_add_test(tc, test_mkdir);
    tcase_add_test(tc, test_symlink);
    tcase_add_test(tc, test_chattr);
    tcase_add_test(tc, test_mkdir_failure_removes_it);
    tcase_add_test(tc, test_write_removes_stale);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    return ssh_main("check_ssh_files", ssh_files_suite);
}
