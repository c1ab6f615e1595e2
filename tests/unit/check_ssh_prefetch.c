/*
 * check_ssh_prefetch.c - prop_transport_prefetch() over SSH, against a
 * real sshd on loopback (see ssh_fixture.c).
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
 * Prefetch.
 */

/*
 * What a prefetch fetched answers stat and read (a change made behind the
 * transport's back is not seen) until a run; a query changes nothing, and
 * a file operation makes stale what it touches.  The stat of a link and
 * the content of a large file are always asked for; the content a link
 * names is fetched, and any file operation makes it stale.
 */
START_TEST(test_prefetch)
{
    prop_transport *t = connect_default();
    char dir[512], a[600], b[600], missing[600], link[600], big[600], sub[600], *got, *data;
    const char *paths[6];
    const char *query[] = {"true", NULL}, *run[] = {"true", NULL};
    prop_file_stat st;
    prop_cmd_result r;
    size_t len, bigsize = 300u << 10;

    test_dir(dir, sizeof dir, "prefetch");
    FMT(a, "%s/a", dir);
    FMT(b, "%s/b", dir);
    FMT(missing, "%s/missing", dir);
    FMT(link, "%s/link", dir);
    FMT(big, "%s/big", dir);
    FMT(sub, "%s/sub", dir);
    ck_assert_int_eq(spit(a, "one\n", 4), 0);
    ck_assert_int_eq(spit(b, "b\0b", 3), 0);
    ck_assert_int_eq(chmod(b, 0600), 0);
    ck_assert_int_eq(symlink("a", link), 0);
    ck_assert_int_eq(mkdir(sub, 0751), 0);
    data = calloc(1, bigsize);
    ck_assert_ptr_nonnull(data);
    ck_assert_int_eq(spit(big, data, bigsize), 0);
    paths[0] = a, paths[1] = b, paths[2] = missing, paths[3] = link, paths[4] = big;
    paths[5] = a; /* twice */
    OK(t, prop_transport_prefetch(t, paths, 6));
    OK(t, prop_transport_prefetch(t, paths, 0));
    OK(t, prop_transport_prefetch(t, paths, 6));

    /* Changed here, behind the transport's back. */
    ck_assert_int_eq(spit(a, "two!\n", 5), 0);
    ck_assert_int_eq(spit(missing, "now here", 8), 0);
    ck_assert_int_eq(spit(big, "small", 5), 0);
    ck_assert_int_eq(unlink(link), 0);
    ck_assert_int_eq(symlink("b", link), 0);
    ck_assert_int_eq(chmod(sub, 0700), 0);

    OK(t, prop_transport_read(t, a, &got, &len));
    ck_assert_uint_eq(len, 4);
    ck_assert_str_eq(got, "one\n"); /* fetched before */
    free(got);
    OK(t, prop_transport_read(t, b, &got, &len));
    ck_assert_uint_eq(len, 3);
    ck_assert_int_eq(memcmp(got, "b\0b", 3), 0);
    free(got);
    OK(t, prop_transport_stat(t, b, &st));
    ck_assert_int_eq(st.type, PROP_FT_FILE);
    ck_assert_uint_eq(st.mode, 0600);
    ck_assert_str_eq(st.owner, "root");
    ck_assert_int_eq((int)st.size, 3);
    ck_assert_int_eq(prop_transport_stat(t, missing, &st), PROP_ENOTFOUND);
    ck_assert_int_eq(prop_transport_read(t, missing, &got, &len), PROP_ENOTFOUND);
    OK(t, prop_transport_stat(t, sub, &st)); /* not prefetched: asked for */
    ck_assert_uint_eq(st.mode, 0700);
    OK(t, prop_transport_stat(t, link, &st)); /* a link: asked for */
    ck_assert_int_eq(st.type, PROP_FT_LINK);
    ck_assert_str_eq(st.target, "b");
    OK(t, prop_transport_read(t, big, &got, &len)); /* too large to fetch */
    ck_assert_uint_eq(len, 5);
    free(got);
    OK(t, prop_transport_stat(t, big, &st)); /* but its stat was */
    ck_assert_int_eq((int)st.size, (int)bigsize);

    OK(t, prop_transport_query(t, query, NULL, 0, &r));
    prop_cmd_result_clear(&r);
    OK(t, prop_transport_read(t, a, &got, &len));
    ck_assert_str_eq(got, "one\n"); /* a query changes nothing */
    free(got);
    OK(t, prop_transport_run(t, run, NULL, 0, &r));
    prop_cmd_result_clear(&r);
    OK(t, prop_transport_read(t, a, &got, &len));
    ck_assert_str_eq(got, "two!\n"); /* a run may have changed anything */
    free(got);
    OK(t, prop_transport_stat(t, missing, &st));
    ck_assert_int_eq((int)st.size, 8);

    /* A file operation makes stale the path it touches, and only that one,
     * unless it may reach another file through a link. */
    OK(t, prop_transport_prefetch(t, paths, 3)); /* a, b, missing */
    ck_assert_int_eq(spit(b, "B", 1), 0);
    OK(t, prop_transport_write(t, a, "three\n", 6, NULL));
    OK(t, prop_transport_read(t, a, &got, &len));
    ck_assert_str_eq(got, "three\n");
    free(got);
    OK(t, prop_transport_read(t, b, &got, &len));
    ck_assert_uint_eq(len, 3); /* still what was fetched */
    free(got);
    OK(t, prop_transport_remove(t, missing));
    ck_assert_int_eq(prop_transport_stat(t, missing, &st), PROP_ENOTFOUND);
    {
        prop_file_attrs mode = {0640, NULL, NULL};

        OK(t, prop_transport_chattr(t, b, &mode)); /* b is a file: b only */
        OK(t, prop_transport_stat(t, b, &st));
        ck_assert_uint_eq(st.mode, 0640);
        ck_assert_int_eq((int)st.size, 1);
        OK(t, prop_transport_prefetch(t, paths, 3));
        ck_assert_int_eq(spit(b, "BB", 2), 0);
        OK(t, prop_transport_chattr(t, link, &mode)); /* a link, maybe to b: all */
        OK(t, prop_transport_read(t, b, &got, &len));
        ck_assert_str_eq(got, "BB");
        free(got);
    }
    /* Paths spelt otherwise are not fetched. */
    {
        char odd[700];
        const char *one[1];

        FMT(odd, "%s//a", dir);
        one[0] = odd;
        OK(t, prop_transport_prefetch(t, one, 1));
        ck_assert_int_eq(spit(a, "four\n", 5), 0);
        OK(t, prop_transport_read(t, odd, &got, &len));
        ck_assert_str_eq(got, "four\n");
        free(got);
    }
    /* Through a link, among a directory and a path with a newline. */
    {
        char nl[700];
        const char *four[4];

        ck_assert_int_eq(unlink(link), 0);
        ck_assert_int_eq(symlink("a", link), 0);
        FMT(nl, "%s/new\nline", dir);
        ck_assert_int_eq(spit(nl, "x", 1), 0);
        four[0] = sub, four[1] = link, four[2] = nl, four[3] = b;
        OK(t, prop_transport_prefetch(t, four, 4));
        ck_assert_int_eq(spit(a, "five\n", 5), 0);
        ck_assert_int_eq(spit(b, "bbb", 3), 0);
        ck_assert_int_eq(spit(nl, "y", 1), 0);
        OK(t, prop_transport_read(t, link, &got, &len));
        ck_assert_str_eq(got, "four\n"); /* fetched through the link */
        free(got);
        OK(t, prop_transport_read(t, b, &got, &len));
        ck_assert_str_eq(got, "BB"); /* fetched */
        free(got);
        OK(t, prop_transport_read(t, nl, &got, &len));
        ck_assert_str_eq(got, "y"); /* not fetched */
        free(got);
        OK(t, prop_transport_write(t, a, "six\n", 4, NULL)); /* what the link names */
        OK(t, prop_transport_read(t, link, &got, &len));
        ck_assert_str_eq(got, "six\n");
        free(got);
        OK(t, prop_transport_read(t, b, &got, &len));
        ck_assert_str_eq(got, "BB"); /* b was not touched: still as fetched */
        free(got);
    }
    free(data);
    prop_transport_close(t);
}
END_TEST

static Suite *
ssh_prefetch_suite(void)
{
    Suite *s = suite_create("ssh_prefetch");
    TCase *tc;

    tc = tcase_create("files");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_prefetch);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    return ssh_main("check_ssh_prefetch", ssh_prefetch_suite);
}
