/*
 * check_util.c - the engine's utility layer shared with the bindings:
 * base64 (base64.h), spawn-and-capture (spawn.h).
 */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base64.h"
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
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
