/*
 * check_ssh.c - the SSH transport against a real sshd on loopback (see
 * ssh_fixture.c): connecting, running commands, interruption, the run
 * lock, and failures of the connection.  The other check_ssh_*.c test
 * its other parts: host keys and authentication (_keys), files (_files),
 * the prefetch (_prefetch), the pipelining (_pipeline).
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
 * Connecting.
 */
START_TEST(test_connect_name)
{
    prop_transport *t = connect_default();
    char want[64];

    FMT(want, "ssh:root@127.0.0.1:%d", PORT);
    ck_assert_str_eq(prop_transport_name(t), want);
    prop_transport_close(t);
}
END_TEST

START_TEST(test_closed_port)
{
    prop_ssh_opts o;
    prop_transport *t = NULL;
    double t0 = seconds();
    int rc;

    default_opts(&o);
    o.port = free_port();
    ck_assert_int_gt(o.port, 0);
    rc = prop_transport_ssh(&t, &o);
    ck_assert_int_eq(rc, PROP_EUNREACHABLE);
    ck_assert_ptr_nonnull(t);
    ck_assert_msg(strstr(prop_transport_error(t), "cannot connect to 127.0.0.1:"), "%s",
                  prop_transport_error(t));
    ck_assert_msg(seconds() - t0 < 3.0, "took %.1f s", seconds() - t0);
    prop_transport_close(t);
}
END_TEST

START_TEST(test_connect_timeout)
{
    /* A port that accepts TCP but never says anything. */
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0), rc;
    prop_ssh_opts o;
    prop_transport *t = NULL;
    double t0;

    ck_assert_int_ge(fd, 0);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    ck_assert_int_eq(listen(fd, 4), 0);
    ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    default_opts(&o);
    o.port = ntohs(a.sin_port);
    o.connect_timeout = 1;
    t0 = seconds();
    rc = prop_transport_ssh(&t, &o);
    ck_assert_int_eq(rc, PROP_EUNREACHABLE);
    ck_assert_msg(strstr(prop_transport_error(t), "cannot connect to 127.0.0.1:"), "%s",
                  prop_transport_error(t));
    ck_assert_msg(seconds() - t0 > 0.8 && seconds() - t0 < 4.0, "took %.1f s", seconds() - t0);
    prop_transport_close(t);
    close(fd);
}
END_TEST

START_TEST(test_bad_opts)
{
    prop_ssh_opts o;
    prop_transport *t = NULL;

    memset(&o, 0, sizeof o);
    ck_assert_int_eq(prop_transport_ssh(&t, &o), PROP_EINVAL);
    ck_assert_ptr_nonnull(t);
    ck_assert_msg(strstr(prop_transport_error(t), "no address"), "%s", prop_transport_error(t));
    prop_transport_close(t);
}
END_TEST

/* ---------------------------------------------------------------------
 * Running commands.
 */
START_TEST(test_run_basic)
{
    prop_transport *t = connect_default();
    const char *argv[] = {"sh", "-c", "echo out; echo err >&2; exit 3", NULL};
    const char *argv2[] = {"true", NULL};
    prop_cmd_result r;

    OK(t, prop_transport_run(t, argv, NULL, 0, &r));
    ck_assert_int_eq(r.code, 3);
    ck_assert_str_eq(r.out, "out\n");
    ck_assert_uint_eq(r.out_len, 4);
    ck_assert_str_eq(r.err, "err\n");
    ck_assert_uint_eq(r.err_len, 4);
    prop_cmd_result_clear(&r);
    /* The session is reused. */
    OK(t, prop_transport_run(t, argv2, NULL, 0, &r));
    ck_assert_int_eq(r.code, 0);
    ck_assert_uint_eq(r.out_len, 0);
    ck_assert_ptr_nonnull(r.out);
    prop_cmd_result_clear(&r);
    prop_transport_close(t);
}
END_TEST

START_TEST(test_run_stdin)
{
    prop_transport *t = connect_default();
    const char *argv[] = {"cat", NULL};
    static const char data[] = "hello\0world\n\377";
    prop_cmd_result r;

    OK(t, prop_transport_run(t, argv, data, sizeof data - 1, &r));
    ck_assert_int_eq(r.code, 0);
    ck_assert_uint_eq(r.out_len, sizeof data - 1);
    ck_assert_int_eq(memcmp(r.out, data, sizeof data - 1), 0);
    prop_cmd_result_clear(&r);
    prop_transport_close(t);
}
END_TEST

START_TEST(test_run_quoting)
{
    prop_transport *t = connect_default();
    char dir[512], p1[600], p2[600], p3[600], p4[600], a1[700], a2[700], a3[700], a4[700];
    const char *words[] = {"a b",     "it's",  "'",           "''\\''",    "$(id)", "x;y",
                           "`uname`", "\"q\"", "back\\slash", "new\nline", "",      "*",
                           "$HOME",   "&&",    "|",           "#c",        "~",     NULL};
    const char *argv[64];
    prop_cmd_result r;
    char want[4096] = "";
    size_t i, n = 0;
    struct stat sb;

    test_dir(dir, sizeof dir, "quoting");
    FMT(p1, "%s/pwned1", dir);
    FMT(p2, "%s/pwned2", dir);
    FMT(p3, "%s/pwned3", dir);
    FMT(p4, "%s/pwned4", dir);
    FMT(a1, "; touch %s", p1);
    FMT(a2, "$(touch %s)", p2);
    FMT(a3, "`touch %s`", p3);
    FMT(a4, "' ; touch %s ; '", p4);
    argv[n++] = "printf";
    argv[n++] = "[%s]";
    for (i = 0; words[i]; i++) {
        argv[n++] = words[i];
        strcat(want, "[");
        strcat(want, words[i]);
        strcat(want, "]");
    }
    argv[n++] = a1;
    argv[n++] = a2;
    argv[n++] = a3;
    argv[n++] = a4;
    argv[n] = NULL;
    snprintf(want + strlen(want), sizeof want - strlen(want), "[%s][%s][%s][%s]", a1, a2, a3, a4);
    OK(t, prop_transport_run(t, argv, NULL, 0, &r));
    ck_assert_int_eq(r.code, 0);
    ck_assert_str_eq(r.out, want);
    prop_cmd_result_clear(&r);
    ck_assert_int_ne(stat(p1, &sb), 0);
    ck_assert_int_ne(stat(p2, &sb), 0);
    ck_assert_int_ne(stat(p3, &sb), 0);
    ck_assert_int_ne(stat(p4, &sb), 0);

    /* A program name with a space is one word, not a command and an argument. */
    {
        const char *argv2[] = {"echo hi", NULL};

        OK(t, prop_transport_run(t, argv2, NULL, 0, &r));
        ck_assert_int_eq(r.code, 127);
        ck_assert_uint_eq(r.out_len, 0);
        prop_cmd_result_clear(&r);
    }
    prop_transport_close(t);
}
END_TEST

START_TEST(test_run_large)
{
    prop_transport *t = connect_default();
    /* Lots of stderr before stdin is read, then stdin echoed back. */
    const char *argv[] = {"sh", "-c", "head -c 3000000 /dev/zero | tr '\\0' e >&2; cat", NULL};
    size_t n = 3000000, i;
    char *in = malloc(n);
    prop_cmd_result r;

    ck_assert_ptr_nonnull(in);
    for (i = 0; i < n; i++)
        in[i] = (char)('a' + i % 26);
    OK(t, prop_transport_run(t, argv, in, n, &r));
    ck_assert_int_eq(r.code, 0);
    ck_assert_uint_eq(r.out_len, n);
    ck_assert_int_eq(memcmp(r.out, in, n), 0);
    ck_assert_uint_eq(r.err_len, 3000000);
    ck_assert_int_eq(r.err[0], 'e');
    ck_assert_int_eq(r.err[r.err_len - 1], 'e');
    prop_cmd_result_clear(&r);
    free(in);
    prop_transport_close(t);
}
END_TEST

START_TEST(test_run_status)
{
    prop_transport *t = connect_default();
    const char *sig[] = {"sh", "-c", "kill -TERM $$", NULL};
    const char *missing[] = {"/nonexistent/prop-cmd", NULL};
    const char *ignore_in[] = {"true", NULL};
    prop_cmd_result r;

    OK(t, prop_transport_run(t, sig, NULL, 0, &r));
    ck_assert_int_eq(r.code, 128 + 15);
    prop_cmd_result_clear(&r);
    OK(t, prop_transport_run(t, missing, NULL, 0, &r));
    ck_assert_int_eq(r.code, 127);
    ck_assert_uint_gt(r.err_len, 0);
    prop_cmd_result_clear(&r);
    /* stdin that the command never reads does not hang. */
    {
        size_t n = 4000000;
        char *in = calloc(1, n);

        ck_assert_ptr_nonnull(in);
        OK(t, prop_transport_run(t, ignore_in, in, n, &r));
        ck_assert_int_eq(r.code, 0);
        prop_cmd_result_clear(&r);
        free(in);
    }
    prop_transport_close(t);
}
END_TEST

START_TEST(test_sudo)
{
    prop_ssh_opts o;
    prop_transport *t;
    const char *argv[] = {"id", "-un", NULL};
    char log[512], dir[512], file[600], *text;
    prop_cmd_result r;

    default_opts(&o);
    o.sudo = 1;
    path(log, sizeof log, "sudo.log");
    unlink(log);
    t = connect_ok(&o);
    OK(t, prop_transport_run(t, argv, NULL, 0, &r));
    ck_assert_int_eq(r.code, 0);
    ck_assert_str_eq(r.out, "root\n");
    prop_cmd_result_clear(&r);
    test_dir(dir, sizeof dir, "sudo");
    FMT(file, "%s/f", dir);
    OK(t, prop_transport_write(t, file, "x", 1, NULL));
    prop_transport_close(t);
    text = slurp(log, NULL);
    ck_assert_ptr_nonnull(text);
    /* One shell under sudo for the whole session: commands and file
     * operations both ran in it. */
    ck_assert_str_eq(text, "-n -- sh\n");
    free(text);
    text = slurp(file, NULL);
    ck_assert_ptr_nonnull(text);
    ck_assert_str_eq(text, "x");
    free(text);
}
END_TEST

/* ---------------------------------------------------------------------
 * Interruption (prop_transport_set_interrupt): the remote command's
 * process group is signalled through a second channel.
 */
/* The flag and its alarm (stop_in_a_second, STOPS), pid_in and ended:
 * unit.h. */

/* Run cmd (sh -c, $1 and $2 files for pids) interrupted; checks both pids ended. */
static void
interrupted_run(prop_transport *t, const char *dir, const char *cmd, size_t stdin_len)
{
    char p1[600], p2[600];
    const char *argv[] = {"sh", "-c", cmd, "sh", p1, p2, NULL};
    char *in = stdin_len ? calloc(1, stdin_len) : NULL;
    prop_cmd_result r;
    pid_t a, b;

    FMT(p1, "%s/sh.pid", dir);
    FMT(p2, "%s/sleep.pid", dir);
    unlink(p1);
    unlink(p2);
    ck_assert_int_eq(prop_transport_run(t, argv, in, stdin_len, &r), PROP_ERROR);
    free(in);
    ck_assert_msg(strstr(prop_transport_error(t), "interrupted"), "%s", prop_transport_error(t));
    prop_cmd_result_clear(&r);
    a = pid_in(p1);
    b = pid_in(p2);
    ck_assert_msg(ended(a), "the command %ld still runs", (long)a);
    ck_assert_msg(ended(b), "its child %ld still runs", (long)b);
}

#define SLEEPER "echo $$ >\"$1\"; sleep 600 & echo $! >\"$2\"; wait"
#define STUBBORN "trap '' TERM; echo $$ >\"$1\"; sleep 600 & echo $! >\"$2\"; wait"

START_TEST(test_run_interrupted)
{
    prop_transport *t = connect_default();
    const char *echo[] = {"sh", "-c", "echo ran >\"$1\"", "sh", NULL, NULL};
    char dir[512], ran[600];
    prop_cmd_result r;
    struct stat sb;

    test_dir(dir, sizeof dir, "interrupted");
    prop_transport_set_interrupt(t, &STOPS, NULL);
    stop_in_a_second(1);
    interrupted_run(t, dir, SLEEPER, 0);
    /* Once interrupted, no command starts; files are still written. */
    FMT(ran, "%s/ran", dir);
    echo[4] = ran;
    ck_assert_int_eq(prop_transport_run(t, echo, NULL, 0, &r), PROP_ERROR);
    prop_cmd_result_clear(&r);
    ck_assert_int_ne(stat(ran, &sb), 0);
    OK(t, prop_transport_write(t, ran, "x", 1, NULL));
    prop_transport_close(t);

    /* Through a channel of its own (stdin too large for the shell). */
    t = connect_default();
    prop_transport_set_interrupt(t, &STOPS, NULL);
    stop_in_a_second(1);
    interrupted_run(t, dir, SLEEPER, (5u << 20) + 1);
    prop_transport_close(t);
}
END_TEST

START_TEST(test_run_interrupted_grace)
{
    prop_transport *t = connect_default();
    char dir[512];
    double t0 = seconds();

    test_dir(dir, sizeof dir, "interrupted-grace");
    prop_transport_set_interrupt(t, &STOPS, NULL);
    stop_in_a_second(1);
    interrupted_run(t, dir, STUBBORN, 0);
    ck_assert_double_ge(seconds() - t0, 1.0 + PROP_INTERRUPT_GRACE_MS / 1000.0);
    prop_transport_close(t);
}
END_TEST

START_TEST(test_run_interrupted_twice)
{
    prop_transport *t = connect_default();
    const char *echo[] = {"echo", "the shell", NULL};
    char dir[512];
    double t0 = seconds();
    prop_cmd_result r;

    test_dir(dir, sizeof dir, "interrupted-twice");
    prop_transport_set_interrupt(t, &STOPS, NULL);
    stop_in_a_second(2);
    interrupted_run(t, dir, STUBBORN, 0);
    ck_assert_int_ge(STOPS, 2);
    /* Both requests came within 2 s; the grace period would end at 1 s + grace. */
    ck_assert_double_lt(seconds() - t0, 1.0 + PROP_INTERRUPT_GRACE_MS / 1000.0);
    /* The connection is still usable without the flag. */
    prop_transport_set_interrupt(t, NULL, NULL);
    OK(t, prop_transport_run(t, echo, NULL, 0, &r));
    ck_assert_str_eq(r.out, "the shell\n");
    prop_cmd_result_clear(&r);
    prop_transport_close(t);
}
END_TEST

/* ---------------------------------------------------------------------
 * Lock, failures.
 */
START_TEST(test_lock)
{
    prop_transport *t1 = connect_default(), *t2 = connect_default();
    char want[64], lockfile[512];

    OK(t1, prop_transport_lock(t1));
    ck_assert_int_eq(prop_transport_lock(t1), 0); /* held already */
    ck_assert_int_eq(prop_transport_lock(t2), PROP_ERROR);
    FMT(want, "pid %ld on ", (long)getpid());
    ck_assert_msg(strstr(prop_transport_error(t2), "locked by another run"), "%s",
                  prop_transport_error(t2));
    ck_assert_msg(strstr(prop_transport_error(t2), want), "%s", prop_transport_error(t2));
    path(lockfile, sizeof lockfile, "prop.lock");
    ck_assert_msg(strstr(prop_transport_error(t2), lockfile), "%s", prop_transport_error(t2));
    /* Released at close: no stale lock. */
    prop_transport_close(t1);
    ck_assert_msg(prop_transport_lock(t2) == 0, "%s", prop_transport_error(t2));
    {
        struct stat sb;

        ck_assert_int_eq(stat(lockfile, &sb), 0); /* held by t2 */
        prop_transport_close(t2);
        ck_assert_int_ne(stat(lockfile, &sb), 0); /* removed by its holder */
    }
}
END_TEST

START_TEST(test_lock_local_holder)
{
    prop_transport *t = connect_default();
    char lockfile[512];
    int fd;

    /* Held the way the local transport holds it: the remote run sees it. */
    path(lockfile, sizeof lockfile, "prop.lock");
    unlink(lockfile);
    fd = open(lockfile, O_RDWR | O_CREAT, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(flock(fd, LOCK_EX | LOCK_NB), 0);
    ck_assert_int_eq(write(fd, "pid 999 since 2020-01-01T00:00:00Z\n", 35), 35);
    ck_assert_int_eq(prop_transport_lock(t), PROP_ERROR);
    ck_assert_msg(strstr(prop_transport_error(t), "pid 999 since 2020-01-01T00:00:00Z (lock "),
                  "%s", prop_transport_error(t));
    /* Let go the same way (removed while held): the remote run gets it. */
    ck_assert_int_eq(unlink(lockfile), 0);
    ck_assert_int_eq(close(fd), 0);
    OK(t, prop_transport_lock(t));
    prop_transport_close(t);

    /* A symbolic link is never used as the lock. */
    ck_assert_int_eq(symlink("/etc/passwd", lockfile), 0);
    t = connect_default();
    ck_assert_int_eq(prop_transport_lock(t), PROP_ERROR);
    ck_assert_msg(strstr(prop_transport_error(t), "symbolic link"), "%s", prop_transport_error(t));
    prop_transport_close(t);
    ck_assert_int_eq(unlink(lockfile), 0);
}
END_TEST

START_TEST(test_lock_released_on_drop)
{
    prop_transport *t1 = connect_default(), *t2;
    double t0;
    int ok = 0;

    ck_assert_int_eq(prop_transport_lock(t1), 0);
    ck_assert_int_gt(kill_sessions(), 0);
    /* The remote holder sees its stdin end and lets go. */
    t2 = connect_default();
    t0 = seconds();
    while (seconds() - t0 < 10 && !(ok = prop_transport_lock(t2) == 0))
        msleep(100);
    ck_assert_msg(ok, "%s", prop_transport_error(t2));
    prop_transport_close(t2);
    prop_transport_close(t1);
}
END_TEST

START_TEST(test_dropped_connection)
{
    prop_transport *t = connect_default();
    const char *argv[] = {"true", NULL};
    prop_cmd_result r;
    prop_file_stat st;
    double t0;
    int rc;

    OK(t, prop_transport_run(t, argv, NULL, 0, &r));
    prop_cmd_result_clear(&r);
    ck_assert_int_gt(kill_sessions(), 0);
    msleep(200);
    t0 = seconds();
    rc = prop_transport_run(t, argv, NULL, 0, &r);
    ck_assert_int_eq(rc, PROP_ERROR);
    ck_assert_msg(strstr(prop_transport_error(t), "connection lost"), "%s",
                  prop_transport_error(t));
    ck_assert_msg(seconds() - t0 < 5.0, "took %.1f s", seconds() - t0);
    t0 = seconds();
    ck_assert_int_eq(prop_transport_stat(t, "/", &st), PROP_ERROR);
    ck_assert_msg(strstr(prop_transport_error(t), "connection lost"), "%s",
                  prop_transport_error(t));
    ck_assert_msg(seconds() - t0 < 0.5, "took %.1f s", seconds() - t0);
    prop_transport_close(t);
}
END_TEST

START_TEST(test_dropped_during_command)
{
    prop_transport *t = connect_default();
    const char *argv[] = {"sleep", "30", NULL};
    prop_cmd_result r;
    double t0 = seconds();
    pid_t killer = fork();
    int rc;

    ck_assert_int_ge(killer, 0);
    if (killer == 0) {
        msleep(500);
        kill_sessions();
        _exit(0);
    }
    rc = prop_transport_run(t, argv, NULL, 0, &r);
    waitpid(killer, NULL, 0);
    ck_assert_int_eq(rc, PROP_ERROR);
    ck_assert_msg(strstr(prop_transport_error(t), "connection lost"), "%s",
                  prop_transport_error(t));
    ck_assert_msg(seconds() - t0 < 5.0, "took %.1f s", seconds() - t0);
    prop_transport_close(t);
}
END_TEST

START_TEST(test_op_timeout)
{
    prop_ssh_opts o;
    prop_transport *t;
    const char *argv[] = {"sleep", "5", NULL};
    const char *argv2[] = {"true", NULL};
    prop_cmd_result r;
    double t0;

    default_opts(&o);
    o.op_timeout = 1;
    t = connect_ok(&o);
    t0 = seconds();
    ck_assert_int_eq(prop_transport_run(t, argv, NULL, 0, &r), PROP_ERROR);
    ck_assert_msg(seconds() - t0 < 3.0, "took %.1f s", seconds() - t0);
    ck_assert_msg(strstr(prop_transport_error(t), "timed out after 1 s"), "%s",
                  prop_transport_error(t));
    t0 = seconds();
    ck_assert_int_eq(prop_transport_run(t, argv2, NULL, 0, &r), PROP_ERROR);
    ck_assert_msg(strstr(prop_transport_error(t), "connection lost"), "%s",
                  prop_transport_error(t));
    ck_assert_msg(strstr(prop_transport_error(t), "timed out"), "%s", prop_transport_error(t));
    ck_assert_msg(seconds() - t0 < 0.5, "took %.1f s", seconds() - t0);
    prop_transport_close(t);
}
END_TEST

static Suite *
ssh_suite(void)
{
    Suite *s = suite_create("ssh");
    TCase *tc;

    tc = tcase_create("connect");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_connect_name);
    tcase_add_test(tc, test_closed_port);
    tcase_add_test(tc, test_connect_timeout);
    tcase_add_test(tc, test_bad_opts);
    suite_add_tcase(s, tc);

    tc = tcase_create("run");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_run_basic);
    tcase_add_test(tc, test_run_stdin);
    tcase_add_test(tc, test_run_quoting);
    tcase_add_test(tc, test_run_large);
    tcase_add_test(tc, test_run_status);
    tcase_add_test(tc, test_sudo);
    suite_add_tcase(s, tc);

    tc = tcase_create("interrupt");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_run_interrupted);
    tcase_add_test(tc, test_run_interrupted_grace);
    tcase_add_test(tc, test_run_interrupted_twice);
    suite_add_tcase(s, tc);

    tc = tcase_create("failures");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_lock);
    tcase_add_test(tc, test_lock_local_holder);
    tcase_add_test(tc, test_lock_released_on_drop);
    tcase_add_test(tc, test_dropped_connection);
    tcase_add_test(tc, test_dropped_during_command);
    tcase_add_test(tc, test_op_timeout);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    return ssh_main("check_ssh", ssh_suite);
}
