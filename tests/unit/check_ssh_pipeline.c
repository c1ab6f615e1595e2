/*
 * check_ssh_pipeline.c - the SSH transport's pipelining: deferred
 * operations and their batches, staged writes and their commit, and a
 * connection dropped with answers owed, against a real sshd on loopback
 * (see ssh_fixture.c).
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
 * Deferred operations, staged writes.
 */

/* Deferred answers: writes sent without waiting, in batches; a failure
 * stops the rest of its batch on the target and is handed over once. */
START_TEST(test_defer_batches)
{
    prop_transport *t = connect_default();
    char dir[512], file[600], *got, *why;
    prop_file_attrs mode0640 = {0640, NULL, NULL};
    prop_file_stat st;
    struct stat sb;
    size_t len;

    test_dir(dir, sizeof dir, "defer");
    ck_assert_int_eq(prop_transport_defer(t, 1), 1);
    prop_transport_batch(t, 1);
    FMT(file, "%s/a1", dir);
    OK(t, prop_transport_write(t, file, "a1", 2, NULL));
    FMT(file, "%s/nodir/x", dir);
    OK(t, prop_transport_write(t, file, "x", 1, NULL)); /* fails, later */
    FMT(file, "%s/a2", dir);
    OK(t, prop_transport_write(t, file, "a2", 2, NULL)); /* skipped */
    FMT(file, "%s/a3", dir);
    OK(t, prop_transport_mkdir(t, file, NULL)); /* skipped */
    /* The next operation of the batch that waits fails with the failure. */
    ck_assert_int_eq(prop_transport_stat(t, dir, &st), PROP_ERROR);
    ck_assert_msg(strstr(prop_transport_error(t), "no such directory"), "%s",
                  prop_transport_error(t));
    ck_assert_uint_eq(prop_transport_outstanding(t), 0);
    /* Another batch runs; a read sees its write (in order, one wait). */
    prop_transport_batch(t, 2);
    FMT(file, "%s/b1", dir);
    OK(t, prop_transport_write(t, file, "b1", 2, NULL));
    OK(t, prop_transport_read(t, file, &got, &len));
    ck_assert_uint_eq(len, 2);
    ck_assert_int_eq(memcmp(got, "b1", 2), 0);
    free(got);
    FMT(file, "%s/b2", dir);
    OK(t, prop_transport_write(t, file, "b2", 2, &mode0640));
    FMT(file, "%s/a1", dir); /* an existing file keeps its mode */
    ck_assert_int_eq(chmod(file, 0604), 0);
    OK(t, prop_transport_write(t, file, "a1", 2, NULL));
    OK(t, prop_transport_settle(t));
    ck_assert_int_eq(stat(file, &sb), 0);
    ck_assert_int_eq((int)(sb.st_mode & 07777), 0604);
    FMT(file, "%s/b2", dir);
    ck_assert_int_eq(stat(file, &sb), 0);
    ck_assert_int_eq((int)(sb.st_mode & 07777), 0640);
    ck_assert_uint_eq(prop_transport_outstanding(t), 0);
    why = prop_transport_batch_failure(t, 1);
    ck_assert_ptr_nonnull(why);
    ck_assert_msg(strstr(why, "nodir/x") && strstr(why, "no such directory"), "%s", why);
    free(why);
    ck_assert_ptr_null(prop_transport_batch_failure(t, 1)); /* handed over once */
    ck_assert_ptr_null(prop_transport_batch_failure(t, 2));
    /* On the target: a1, b1, b2; nothing after the failure of batch 1. */
    FMT(file, "%s/a1", dir);
    ck_assert_int_eq(access(file, F_OK), 0);
    FMT(file, "%s/a2", dir);
    ck_assert_int_eq(access(file, F_OK), -1);
    FMT(file, "%s/a3", dir);
    ck_assert_int_eq(access(file, F_OK), -1);
    FMT(file, "%s/b2", dir);
    got = slurp(file, &len);
    ck_assert_uint_eq(len, 2);
    free(got);
    ck_assert_int_eq(count_entries(dir), 3);
    prop_transport_close(t);
}
END_TEST

/* Whether name is staged in dir: in its staging directory, .prop-stg-*. */
static int
staged(const char *dir, const char *name)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char sub[1100];
    int found = 0;

    ck_assert_ptr_nonnull(d);
    while (!found && (e = readdir(d)) != NULL)
        if (strncmp(e->d_name, ".prop-stg-", 10) == 0) {
            FMT(sub, "%s/%s/%s", dir, e->d_name, name);
            found = access(sub, F_OK) == 0;
        }
    closedir(d);
    return found;
}

/*
 * Staged writes: many go in place in several commits, a path written twice
 * ends with the second content, and one whose move fails at the commit
 * (its path became a directory after it was staged) fails its own batch
 * only, with the reason; the write of that batch staged after it is
 * dropped, the other batch's writes are in place, no temporary file stays.
 */
START_TEST(test_stage_commit)
{
    prop_transport *t = connect_default();
    char dir[512], file[600], data[64], *got, *why;
    size_t len, i;
    int waited;

    test_dir(dir, sizeof dir, "stage");
    ck_assert_int_eq(prop_transport_defer(t, 1), 1);
    prop_transport_batch(t, 1);
    for (i = 0; i < 300; i++) {
        FMT(file, "%s/f%03zu", dir, i);
        FMT(data, "file %zu\n", i);
        OK(t, prop_transport_write(t, file, data, strlen(data), NULL));
    }
    FMT(file, "%s/f007", dir);
    OK(t, prop_transport_write(t, file, "again\n", 6, NULL));
    ck_assert_uint_gt(prop_transport_outstanding(t), 0);
    OK(t, prop_transport_settle(t));
    ck_assert_uint_eq(prop_transport_outstanding(t), 0);
    ck_assert_ptr_null(prop_transport_batch_failure(t, 1));
    for (i = 0; i < 300; i++) {
        FMT(file, "%s/f%03zu", dir, i);
        FMT(data, "file %zu\n", i);
        got = slurp(file, &len);
        ck_assert_ptr_nonnull(got);
        if (i == 7)
            ck_assert_msg(len == 6 && memcmp(got, "again\n", 6) == 0, "%s", file);
        else
            ck_assert_msg(len == strlen(data) && memcmp(got, data, len) == 0, "%s", file);
        free(got);
    }
    ck_assert_int_eq(count_entries(dir), 300);

    /* A new file with a mode (staged by the shell's builtins), an old one
     * that keeps its mode, one with an owner: each as asked. */
    test_dir(dir, sizeof dir, "stagemodes");
    /* A staging directory whose shell is gone (a run cut off) goes; one
     * whose shell lives (another host of this machine) stays. */
    ck_assert_int_eq(sh("mkdir '%s/.prop-stg-gone' '%s/.prop-stg-live' && "
                        "(sh -c 'echo $$' >'%s/.prop-stg-gone/.pid') && "
                        "echo %ld >'%s/.prop-stg-live/.pid'",
                        dir, dir, dir, (long)getpid(), dir),
                     0);
    FMT(file, "%s/old", dir);
    ck_assert_int_eq(spit(file, "old\n", 4), 0);
    ck_assert_int_eq(chmod(file, 0604), 0);
    OK(t, prop_transport_write(t, file, "kept\n", 5, NULL));
    FMT(file, "%s/new", dir);
    OK(t, prop_transport_write(t, file, "new\n", 4, &(prop_file_attrs){0640, NULL, NULL}));
    FMT(file, "%s/owned", dir);
    OK(t, prop_transport_write(t, file, "owned\n", 6, &(prop_file_attrs){0600, "nobody", NULL}));
    OK(t, prop_transport_settle(t));
    ck_assert_ptr_null(prop_transport_batch_failure(t, 1));
    {
        static const struct {
            const char *name, *data;
            unsigned mode;
        } want[] = {{"old", "kept\n", 0604}, {"new", "new\n", 0640}, {"owned", "owned\n", 0600}};
        struct stat sb;

        for (i = 0; i < 3; i++) {
            FMT(file, "%s/%s", dir, want[i].name);
            got = slurp(file, &len);
            ck_assert_ptr_nonnull(got);
            ck_assert_msg(len == strlen(want[i].data) && memcmp(got, want[i].data, len) == 0, "%s",
                          file);
            free(got);
            ck_assert_int_eq(stat(file, &sb), 0);
            ck_assert_uint_eq(sb.st_mode & 07777, want[i].mode);
        }
        ck_assert_int_eq(stat(file, &sb), 0);
        ck_assert_uint_eq(sb.st_uid, getpwnam("nobody")->pw_uid);
    }
    FMT(file, "%s/.prop-stg-gone", dir);
    ck_assert_int_eq(access(file, F_OK), -1);
    FMT(file, "%s/.prop-stg-live/.pid", dir);
    ck_assert_int_eq(access(file, F_OK), 0);
    ck_assert_int_eq(count_entries(dir), 4);

    test_dir(dir, sizeof dir, "stagefail");
    prop_transport_batch(t, 2);
    FMT(file, "%s/a", dir);
    OK(t, prop_transport_write(t, file, "a\n", 2, NULL));
    prop_transport_batch(t, 3);
    FMT(file, "%s/b", dir);
    OK(t, prop_transport_write(t, file, "b\n", 2, NULL));
    FMT(file, "%s/c", dir);
    OK(t, prop_transport_write(t, file, "c\n", 2, NULL));
    /* Once b is staged (in the staging directory), b becomes a directory. */
    for (waited = 0; !staged(dir, "c") && waited < 1000; waited++)
        msleep(10);
    ck_assert_msg(staged(dir, "b"), "b was not staged");
    FMT(file, "%s/b", dir);
    ck_assert_int_eq(mkdir(file, 0755), 0);
    ck_assert_int_eq(prop_transport_settle(t), PROP_OK);
    /* The failed batch's next lines are skipped, and say why. */
    FMT(file, "%s/d", dir);
    OK(t, prop_transport_write(t, file, "d\n", 2, NULL));
    ck_assert_int_eq(prop_transport_stat(t, dir, &(prop_file_stat){0}), PROP_ERROR);
    ck_assert_msg(strstr(prop_transport_error(t), "is a directory"), "%s", prop_transport_error(t));
    ck_assert_int_eq(access(file, F_OK), -1);
    ck_assert_ptr_null(prop_transport_batch_failure(t, 2));
    why = prop_transport_batch_failure(t, 3);
    ck_assert_ptr_nonnull(why);
    ck_assert_msg(strstr(why, "write ") && strstr(why, "/b: ") && strstr(why, "is a directory"),
                  "%s", why);
    free(why);
    FMT(file, "%s/a", dir);
    got = slurp(file, &len);
    ck_assert_ptr_nonnull(got);
    ck_assert_int_eq(memcmp(got, "a\n", 2), 0);
    free(got);
    FMT(file, "%s/c", dir); /* of the failed batch, after b: dropped */
    ck_assert_int_eq(access(file, F_OK), -1);
    ck_assert_int_eq(count_entries(dir), 2); /* a and the directory b */

    /* An immutable file: its move fails at the commit with the kernel's
     * reason, and fails its own batch only. */
    test_dir(dir, sizeof dir, "stageimm");
    FMT(file, "%s/imm", dir);
    ck_assert_int_eq(spit(file, "old\n", 4), 0);
    if (sh("chattr +i '%s' 2>/dev/null", file) != 0) {
        printf("test_stage_commit: skipped the immutable file: no chattr +i here\n");
    } else {
        int settled;

        prop_transport_batch(t, 4);
        OK(t, prop_transport_write(t, file, "new\n", 4, NULL));
        prop_transport_batch(t, 5);
        FMT(file, "%s/other", dir);
        OK(t, prop_transport_write(t, file, "other\n", 6, NULL));
        settled = prop_transport_settle(t);
        FMT(file, "%s/imm", dir);
        ck_assert_int_eq(sh("chattr -i '%s'", file), 0);
        ck_assert_int_eq(settled, PROP_OK);
        why = prop_transport_batch_failure(t, 4);
        ck_assert_ptr_nonnull(why);
        ck_assert_msg(strstr(why, "/imm") && strstr(why, "not permitted"), "%s", why);
        free(why);
        ck_assert_ptr_null(prop_transport_batch_failure(t, 5));
        got = slurp(file, &len);
        ck_assert_ptr_nonnull(got);
        ck_assert_msg(len == 4 && memcmp(got, "old\n", 4) == 0, "the immutable file changed");
        free(got);
        FMT(file, "%s/other", dir);
        got = slurp(file, &len);
        ck_assert_ptr_nonnull(got);
        ck_assert_msg(len == 6 && memcmp(got, "other\n", 6) == 0, "%s", file);
        free(got);
        ck_assert_int_eq(count_entries(dir), 2);
    }
    prop_transport_close(t);
}
END_TEST

/* The connection dropped while deferred writes are on their way: every
 * file is old or new, never partial, and what was waiting fails. */
START_TEST(test_defer_dropped)
{
    prop_transport *t = connect_default();
    char dir[512], file[600], *data, *got;
    size_t len, size = 64 * 1024, i, whole = 0;
    int rc;

    test_dir(dir, sizeof dir, "deferdrop");
    ck_assert_ptr_nonnull(data = malloc(size));
    memset(data, 'n', size);
    for (i = 0; i < 40; i++) {
        FMT(file, "%s/f%02zu", dir, i);
        ck_assert_int_eq(spit(file, "old", 3), 0);
    }
    ck_assert_int_eq(prop_transport_defer(t, 1), 1);
    prop_transport_batch(t, 1);
    for (i = 0; i < 40; i++) {
        FMT(file, "%s/f%02zu", dir, i);
        rc = prop_transport_write(t, file, data, size, NULL);
        if (rc != PROP_OK) /* the connection went before it was sent */
            break;
        if (i == 5)
            ck_assert_int_gt(kill_sessions(), 0);
    }
    rc = prop_transport_settle(t);
    if (rc != PROP_OK || i < 40) {
        char *why = prop_transport_batch_failure(t, 1);

        ck_assert_msg(why && strstr(why, "connection lost"), "%s", why ? why : "(none)");
        free(why);
    }
    for (i = 0; i < 40; i++) {
        FMT(file, "%s/f%02zu", dir, i);
        got = slurp(file, &len);
        ck_assert_ptr_nonnull(got);
        if (len == size && memcmp(got, data, size) == 0)
            whole++;
        else
            ck_assert_msg(len == 3 && memcmp(got, "old", 3) == 0, "%s: %zu bytes", file, len);
        free(got);
    }
    ck_assert_uint_lt(whole, 40); /* the drop came before the end */
    free(data);
    prop_transport_close(t);
}
END_TEST

static Suite *
ssh_pipeline_suite(void)
{
    Suite *s = suite_create("ssh_pipeline");
    TCase *tc;

    tc = tcase_create("failures");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_defer_batches);
    tcase_add_test(tc, test_defer_dropped);
    tcase_add_test(tc, test_stage_commit);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    return ssh_main("check_ssh_pipeline", ssh_pipeline_suite);
}
