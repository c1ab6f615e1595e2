/*
 * check_util.c - the engine's utility layer shared with the bindings:
 * base64 (base64.h), spawn-and-capture (spawn.h), whole reads and
 * writes (fileio.h), the buffer's growth (buf.h), growable arrays
 * (array.h).
 */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "array.h"
#include "base64.h"
#include "fileio.h"
#include "spawn.h"
#include "unit.h"

/* ---- base64 ---- */

START_TEST(test_base64_round_trip)
{
    static const struct {
        const char *plain, *text;
    } known[] = {{"f", "Zg=="},        {"fo", "Zm8="},        {"foo", "Zm9v"},
                 {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}};
    unsigned char all[256], *back;
    size_t i, n;
    char *t;

    for (i = 0; i < sizeof known / sizeof known[0]; i++) {
        t = prop_base64_encode(known[i].plain, strlen(known[i].plain));
        ck_assert_ptr_nonnull(t);
        ck_assert_str_eq(t, known[i].text);
        ck_assert_int_eq(prop_base64_decode(t, &back, &n), 0);
        ck_assert_uint_eq(n, strlen(known[i].plain));
        ck_assert_int_eq(memcmp(back, known[i].plain, n), 0);
        free(back);
        free(t);
    }
    /* Every byte value, at every length up to 256. */
    for (i = 0; i < sizeof all; i++)
        all[i] = (unsigned char)(255 - i);
    for (i = 1; i <= sizeof all; i++) {
        t = prop_base64_encode(all, i);
        ck_assert_ptr_nonnull(t);
        ck_assert_uint_eq(strlen(t), (i + 2) / 3 * 4);
        ck_assert_int_eq(prop_base64_decode(t, &back, &n), 0);
        ck_assert_uint_eq(n, i);
        ck_assert_int_eq(memcmp(back, all, i), 0);
        free(back);
        free(t);
    }
    /* Nothing encodes as nothing. */
    t = prop_base64_encode("", 0);
    ck_assert_str_eq(t, "");
    free(t);
    /* Too much to encode: refused, not wrapped around. */
    ck_assert_ptr_null(prop_base64_encode("x", SIZE_MAX - 2));
}
END_TEST

START_TEST(test_base64_bad_input)
{
    static const char *const bad[] = {"",     "Zg=",      "Zm9",  "Zm9v\n", "Zm 9v",
                                      "Zm-v", "Zg==Zg==", "=Zg=", "Z===",   "Zm9v Zg=="};
    unsigned char *out = (unsigned char *)"not touched";
    size_t i, n = 7;

    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(prop_base64_decode(bad[i], &out, &n) == EINVAL, "\"%s\" accepted", bad[i]);
        ck_assert_ptr_null(out);
        ck_assert_uint_eq(n, 0);
    }
}
END_TEST

/* ---- spawn ---- */

static char **spawn_env;

static void
spawn_opts(prop_spawn_opts *o, const char *script)
{
    static char *argv[4] = {"sh", "-c", NULL, NULL};

    if (spawn_env == NULL)
        spawn_env = prop_spawn_env(NULL);
    ck_assert_ptr_nonnull(spawn_env);
    argv[2] = (char *)script;
    memset(o, 0, sizeof *o);
    o->argv = argv;
    o->envp = spawn_env;
    o->path = prop_spawn_path();
}

static void
spawn_done(prop_spawn_result *r)
{
    prop_buf_free(&r->out);
    prop_buf_free(&r->err);
}

START_TEST(test_spawn_capture)
{
    static const char big[] = "0123456789abcdef";
    prop_spawn_opts o;
    prop_spawn_result r;
    prop_buf in = PROP_BUF_INIT;
    size_t i;

    /* stdin in, stdout and stderr apart, the exit status. */
    spawn_opts(&o, "tr a-z A-Z; echo oops >&2; exit 3");
    o.in = "hello";
    o.in_len = 5;
    ck_assert_int_eq(prop_spawn(&o, &r), PROP_SPAWN_OK);
    ck_assert_int_eq(r.code, 3);
    ck_assert_int_eq(r.termsig, 0);
    ck_assert_str_eq(r.out.p, "HELLO");
    ck_assert_str_eq(r.err.p, "oops\n");
    spawn_done(&r);

    /* Input larger than a pipe holds, all of it through. */
    for (i = 0; i < 100000; i++)
        ck_assert_int_eq(prop_buf_add(&in, big, sizeof big - 1), 0);
    spawn_opts(&o, "wc -c");
    o.in = in.p;
    o.in_len = in.len;
    ck_assert_int_eq(prop_spawn(&o, &r), PROP_SPAWN_OK);
    ck_assert_int_eq(r.code, 0);
    ck_assert_int_eq(atoi(r.out.p), 1600000);
    spawn_done(&r);

    /* A program that does not read its input is no error. */
    spawn_opts(&o, "exit 0");
    o.in = in.p;
    o.in_len = in.len;
    ck_assert_int_eq(prop_spawn(&o, &r), PROP_SPAWN_OK);
    ck_assert_int_eq(r.code, 0);
    spawn_done(&r);
    prop_buf_free(&in);

    /* /dev/null for stdin and stderr; a signal as 128+N. */
    spawn_opts(&o, "cat; echo gone >&2; kill -TERM $$");
    o.stdin_null = 1;
    o.err = PROP_SPAWN_NULL;
    ck_assert_int_eq(prop_spawn(&o, &r), PROP_SPAWN_OK);
    ck_assert_int_eq(r.termsig, SIGTERM);
    ck_assert_int_eq(r.code, 128 + SIGTERM);
    ck_assert_uint_eq(r.out.len, 0);
    ck_assert_uint_eq(r.err.len, 0);
    spawn_done(&r);

    /* Its own working directory. */
    spawn_opts(&o, "pwd");
    o.dir = "/";
    ck_assert_int_eq(prop_spawn(&o, &r), PROP_SPAWN_OK);
    ck_assert_str_eq(r.out.p, "/\n");
    spawn_done(&r);
}
END_TEST

START_TEST(test_spawn_not_run)
{
    static char *argv[] = {"prop-no-such-program", NULL};
    static char *argv2[] = {"/nonexistent/prog", NULL};
    prop_spawn_opts o;
    prop_spawn_result r;

    spawn_opts(&o, "");
    o.argv = argv;
    ck_assert_int_eq(prop_spawn(&o, &r), PROP_SPAWN_NOT_RUN);
    ck_assert_int_eq(r.stage, PROP_SPAWN_STAGE_EXEC);
    ck_assert_int_eq(r.errnum, ENOENT);
    ck_assert_int_eq(r.code, -1);
    spawn_done(&r);
    o.argv = argv2;
    ck_assert_int_eq(prop_spawn(&o, &r), PROP_SPAWN_NOT_RUN);
    ck_assert_int_eq(r.errnum, ENOENT);
    spawn_done(&r);
    spawn_opts(&o, "true");
    o.dir = "/nonexistent";
    ck_assert_int_eq(prop_spawn(&o, &r), PROP_SPAWN_NOT_RUN);
    ck_assert_int_eq(r.stage, PROP_SPAWN_STAGE_CHDIR);
    spawn_done(&r);
}
END_TEST

START_TEST(test_spawn_limits)
{
    prop_spawn_opts o;
    prop_spawn_result r;
    time_t t0;

    /* Past max_output: cut off... */
    spawn_opts(&o, "yes");
    o.max_output = 100000;
    o.group = PROP_SPAWN_SESSION;
    ck_assert_int_eq(prop_spawn(&o, &r), PROP_SPAWN_TOO_MUCH);
    ck_assert_uint_le(r.out.len, 100000);
    spawn_done(&r);
    /* ...or, drained, the first bytes kept and the rest dropped. */
    spawn_opts(&o, "head -c 300000 /dev/zero | tr '\\0' x; echo more >&2");
    o.max_output = 1000;
    o.drain = 1;
    ck_assert_int_eq(prop_spawn(&o, &r), PROP_SPAWN_OK);
    ck_assert_int_eq(r.code, 0);
    ck_assert_int_eq(r.over, 1);
    ck_assert_uint_eq(r.out.len + r.err.len, 1000);
    spawn_done(&r);

    /* The time limit: SIGKILL to its group (the sleep too, which holds
     * the pipe: it did not hang). */
    spawn_opts(&o, "sleep 60; echo late");
    o.group = PROP_SPAWN_SESSION;
    o.timeout_ms = 200;
    t0 = time(NULL);
    ck_assert_int_eq(prop_spawn(&o, &r), PROP_SPAWN_TIMEOUT);
    ck_assert_int_eq(r.termsig, SIGKILL);
    ck_assert_uint_eq(r.out.len, 0);
    ck_assert_int_lt(time(NULL) - t0, 30);
    spawn_done(&r);
    /* With a grace period: SIGTERM first, which it may catch. */
    spawn_opts(&o, "trap 'echo term; exit 5' TERM; sleep 60 & wait");
    o.group = PROP_SPAWN_PGRP;
    o.timeout_ms = 300;
    o.timeout_grace_ms = 20000;
    t0 = time(NULL);
    ck_assert_int_eq(prop_spawn(&o, &r), PROP_SPAWN_TIMEOUT);
    ck_assert_int_eq(r.code, 5);
    ck_assert_str_eq(r.out.p, "term\n");
    ck_assert_int_lt(time(NULL) - t0, 15);
    spawn_done(&r);
}
END_TEST

static int stop_calls;

static int
stop_now(void *ud, int *sig)
{
    (void)ud;
    *sig = SIGINT;
    return ++stop_calls > 2;
}

START_TEST(test_spawn_stop)
{
    prop_spawn_opts o;
    prop_spawn_result r;
    time_t t0;

    /* A stop request: its signal, and SIGKILL after the grace period to
     * a command that ignores it. */
    spawn_opts(&o, "trap '' INT; echo started; sleep 60");
    o.group = PROP_SPAWN_SESSION;
    o.stop = stop_now;
    o.stop_grace_ms = 200;
    stop_calls = 0;
    t0 = time(NULL);
    ck_assert_int_eq(prop_spawn(&o, &r), PROP_SPAWN_OK);
    ck_assert_int_eq(r.stopped, 1);
    ck_assert_int_eq(r.termsig, SIGKILL);
    ck_assert_int_lt(time(NULL) - t0, 30);
    spawn_done(&r);
    /* One that honours it ends by it. */
    spawn_opts(&o, "sleep 60");
    o.group = PROP_SPAWN_SESSION;
    o.stop = stop_now;
    o.stop_grace_ms = 20000;
    stop_calls = 0;
    ck_assert_int_eq(prop_spawn(&o, &r), PROP_SPAWN_OK);
    ck_assert_int_eq(r.stopped, 1);
    ck_assert_int_eq(r.termsig, SIGINT);
    spawn_done(&r);
}
END_TEST

START_TEST(test_spawn_env)
{
    static const char *const set[] = {"PROP_UTIL_A=1", "HOME=/elsewhere", NULL};
    char **env;
    size_t i, home = 0, a = 0;

    ck_assert_int_eq(setenv("HOME", "/home/x", 1), 0);
    env = prop_spawn_env(set);
    ck_assert_ptr_nonnull(env);
    for (i = 0; env[i]; i++) {
        home += strncmp(env[i], "HOME=", 5) == 0;
        a += strcmp(env[i], "PROP_UTIL_A=1") == 0;
        ck_assert_str_ne(env[i], "HOME=/home/x");
    }
    ck_assert_uint_eq(home, 1);
    ck_assert_uint_eq(a, 1);
    free(env);
}
END_TEST

/* ---- buf ---- */

START_TEST(test_buf_reserve)
{
    prop_buf b = PROP_BUF_INIT;
    char *p;

    ck_assert_int_eq(prop_buf_reserve(&b, 1000), 0);
    ck_assert_uint_ge(b.cap, 1001);
    ck_assert_uint_eq(b.len, 0);
    ck_assert_str_eq(b.p, "");
    p = b.p;
    ck_assert_int_eq(prop_buf_add(&b, "abc", 3), 0);
    ck_assert_ptr_eq(b.p, p); /* no growth within what was reserved */
    /* What would overflow is refused, the buffer as it was. */
    ck_assert_int_eq(prop_buf_reserve(&b, SIZE_MAX - 2), -1);
    ck_assert_int_eq(prop_buf_reserve(&b, SIZE_MAX / 2 + 1), -1);
    ck_assert_int_eq(prop_buf_add(&b, "x", SIZE_MAX - 3), -1);
    ck_assert_str_eq(b.p, "abc");
    ck_assert_uint_eq(b.len, 3);
    prop_buf_free(&b);
}
END_TEST

/* ---- fileio ---- */

/* A pipe with n bytes of 'x' written into it (then closed) by a child. */
static int
pipe_of(size_t n)
{
    int p[2];
    pid_t pid;

    ck_assert_int_eq(pipe(p), 0);
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        char x[4096];

        close(p[0]);
        memset(x, 'x', sizeof x);
        while (n > 0) {
            size_t k = n > sizeof x ? sizeof x : n;
            if (prop_write_all(p[1], x, k) != 0)
                _exit(1);
            n -= k;
        }
        _exit(0);
    }
    close(p[1]);
    return p[0];
}

START_TEST(test_read_all)
{
    prop_buf b = PROP_BUF_INIT;
    int fd;

    /* All of it, in many reads. */
    fd = pipe_of(300000);
    ck_assert_int_eq(prop_read_all(fd, &b, 0), 0);
    ck_assert_uint_eq(b.len, 300000);
    ck_assert_uint_eq(strspn(b.p, "x"), 300000);
    ck_assert_int_eq(b.p[b.len], '\0');
    close(fd);
    prop_buf_free(&b);
    /* Exactly the limit is fine; appended to what was there. */
    ck_assert_int_eq(prop_buf_adds(&b, "ab"), 0);
    fd = pipe_of(998);
    ck_assert_int_eq(prop_read_all(fd, &b, 1000), 0);
    ck_assert_uint_eq(b.len, 1000);
    ck_assert_int_eq(memcmp(b.p, "abxx", 4), 0);
    close(fd);
    prop_buf_free(&b);
    /* One byte more is not. */
    fd = pipe_of(1001);
    ck_assert_int_eq(prop_read_all(fd, &b, 1000), EFBIG);
    ck_assert_uint_le(b.len, 1000);
    ck_assert_int_eq(b.p[b.len], '\0');
    close(fd);
    prop_buf_free(&b);
    /* Nothing: an empty text; a bad descriptor: its errno. */
    fd = pipe_of(0);
    ck_assert_int_eq(prop_read_all(fd, &b, 10), 0);
    ck_assert_uint_eq(b.len, 0);
    ck_assert_str_eq(b.p, "");
    close(fd);
    prop_buf_free(&b);
    ck_assert_int_eq(prop_read_all(-1, &b, 0), EBADF);
    prop_buf_free(&b);
}
END_TEST

START_TEST(test_write_all)
{
    char path[] = "/tmp/check_util.XXXXXX";
    prop_buf in = PROP_BUF_INIT, back = PROP_BUF_INIT;
    size_t i;
    int fd;

    for (i = 0; i < 200000; i++)
        ck_assert_int_eq(prop_buf_add(&in, (char[]){(char)('a' + i % 26)}, 1), 0);
    fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(prop_write_all(fd, in.p, in.len), 0);
    ck_assert_int_eq(prop_write_all(fd, "", 0), 0);
    ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
    ck_assert_int_eq(prop_read_all(fd, &back, 0), 0);
    ck_assert_uint_eq(back.len, in.len);
    ck_assert_int_eq(memcmp(back.p, in.p, in.len), 0);
    close(fd);
    ck_assert_int_eq(prop_write_all(-1, "x", 1), EBADF);
    prop_buf_free(&in);
    prop_buf_free(&back);
}
END_TEST

/* ---- array ---- */

typedef struct pair {
    int a;
    double b;
} pair;

START_TEST(test_write_file_atomic)
{
    char dir[] = "/tmp/prop-check-atomic.XXXXXX", path[256], missing[256], buf[64];
    prop_atomic_stage stage;
    struct stat st;
    DIR *d;
    struct dirent *de;
    int n = 0;
    FILE *f;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/out.prom", dir);
    /* A new file, with the mode asked for. */
    ck_assert_int_eq(prop_write_file_atomic(path, "one\n", 4, 0640, (uid_t)-1, (gid_t)-1, &stage),
                     0);
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_uint_eq(st.st_mode & 07777, 0640);
    ck_assert_int_eq(st.st_size, 4);
    /* Over an old one: the new content whole. */
    ck_assert_int_eq(
        prop_write_file_atomic(path, "second\n", 7, 0644, (uid_t)-1, (gid_t)-1, &stage), 0);
    f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(fgets(buf, sizeof buf, f));
    fclose(f);
    ck_assert_str_eq(buf, "second\n");
    /* Nothing left beside it: the file alone. */
    d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    while ((de = readdir(d)) != NULL)
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
            n++;
    closedir(d);
    ck_assert_int_eq(n, 1);
    /* A directory that is not there: no temporary file, said so. */
    snprintf(missing, sizeof missing, "%s/no/such/file", dir);
    ck_assert_int_eq(prop_write_file_atomic(missing, "x", 1, 0644, (uid_t)-1, (gid_t)-1, &stage),
                     ENOENT);
    ck_assert_int_eq(stage, PROP_ATOMIC_TEMP);
    /* A name with no directory part: the current one. */
    ck_assert_int_eq(chdir(dir), 0);
    ck_assert_int_eq(prop_write_file_atomic("here", "h", 1, 0600, (uid_t)-1, (gid_t)-1, &stage), 0);
    ck_assert_int_eq(stat("here", &st), 0);
    ck_assert_int_eq(unlink("here"), 0);
    ck_assert_int_eq(chdir("/"), 0);
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

START_TEST(test_array)
{
    pair *v = NULL;
    const char **names = NULL;
    size_t n = 0, cap = 0, nn = 0, ncap = 0, i;

    /* Nothing asked, nothing made. */
    ck_assert_int_eq(prop_array_reserve(v, cap, n, 0, 4), 0);
    ck_assert_ptr_null(v);
    /* Grown by doubling from first, what was there kept. */
    for (i = 0; i < 1000; i++) {
        ck_assert_int_eq(prop_array_reserve(v, cap, n, 1, 4), 0);
        ck_assert_uint_ge(cap, n + 1);
        v[n].a = (int)i;
        v[n].b = (double)i / 2;
        n++;
    }
    ck_assert_uint_eq(cap, 1024);
    for (i = 0; i < n; i++) {
        ck_assert_int_eq(v[i].a, (int)i);
        ck_assert(v[i].b == (double)i / 2);
    }
    /* Many at once. */
    ck_assert_int_eq(prop_array_reserve(v, cap, n, 5000, 4), 0);
    ck_assert_uint_ge(cap, 6000);
    /* Sizes that would overflow: refused, the array as it was. */
    i = cap;
    ck_assert_int_eq(prop_array_reserve(v, cap, n, SIZE_MAX - n + 1, 4), -1);
    ck_assert_int_eq(prop_array_reserve(v, cap, n, SIZE_MAX / sizeof *v, 4), -1);
    ck_assert_int_eq(prop_array_reserve(v, cap, n, SIZE_MAX / 2, 4), -1);
    ck_assert_uint_eq(cap, i);
    ck_assert_int_eq(v[999].a, 999);
    free(v);
    /* An array of const pointers. */
    ck_assert_int_eq(prop_array_reserve(names, ncap, nn, 1, 1), 0);
    names[nn++] = "one";
    ck_assert_int_eq(prop_array_reserve(names, ncap, nn, 1, 1), 0);
    names[nn++] = "two";
    ck_assert_uint_eq(ncap, 2);
    ck_assert_str_eq(names[0], "one");
    ck_assert_str_eq(names[1], "two");
    free((void *)names);
}
END_TEST

int
main(void)
{
    Suite *s = suite_create("util");
    TCase *tc = tcase_create("util");

    tcase_add_test(tc, test_base64_round_trip);
    tcase_add_test(tc, test_base64_bad_input);
    tcase_add_test(tc, test_spawn_capture);
    tcase_add_test(tc, test_spawn_not_run);
    tcase_add_test(tc, test_spawn_limits);
    tcase_add_test(tc, test_spawn_stop);
    tcase_add_test(tc, test_spawn_env);
    tcase_add_test(tc, test_buf_reserve);
    tcase_add_test(tc, test_read_all);
    tcase_add_test(tc, test_write_all);
    tcase_add_test(tc, test_write_file_atomic);
    tcase_add_test(tc, test_array);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
