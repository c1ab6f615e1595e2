/*
 * check_transport.c - the local and directory-tree transports
 * (transport_local.c) on real files in a temporary directory: commands
 * (output, input, exit codes, signals, missing programs, big streams),
 * files (atomic writes, attributes, owners by name and number, links),
 * confinement of the tree transport, its user database, and the run lock.
 *
 * Some tests need root (chown, chroot); run as another user they check
 * what they can and say so.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "prop/transport.h"
#include "unit.h"

static prop_transport *T; /* local */
static char D[PATH_MAX];  /* the test's directory (its realpath) */

/* ---- helpers ---- */

/* D/rel, from a ring of buffers. */
static const char *
P(const char *rel)
{
    static char ring[8][PATH_MAX + 256];
    static unsigned next;
    char *b = ring[next++ % 8];

    ck_assert_uint_lt(strlen(D) + strlen(rel) + 2, sizeof ring[0]);
    strcpy(b, D);
    strcat(b, "/");
    strcat(b, rel);
    return b;
}

/* Write a file directly (not through a transport). */
static void
put(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");

    ck_assert_msg(f != NULL, "fopen %s: %s", path, strerror(errno));
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

static void
puts_file(const char *path, const char *s)
{
    put(path, s, strlen(s));
}

/* Read a file directly; "" and len 0 for a missing one is an error. */
static char *
get(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0, r;

    ck_assert_msg(f != NULL, "fopen %s: %s", path, strerror(errno));
    for (;;) {
        if (cap - n < 65536) {
            cap = cap * 2 + 65536;
            char *nb = realloc(buf, cap + 1);
            ck_assert_ptr_nonnull(nb);
            buf = nb;
        }
        r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0)
            break;
    }
    ck_assert_int_eq(ferror(f), 0);
    ck_assert_int_eq(fclose(f), 0);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

/* The file at path holds exactly want. */
static void
expect_file(const char *path, const char *want)
{
    size_t len;
    char *data = get(path, &len);

    ck_assert_uint_eq(len, strlen(want));
    ck_assert_str_eq(data, want);
    free(data);
}

static void
mkdirs(const char *path)
{
    char buf[PATH_MAX], *p;

    ck_assert_uint_lt(strlen(path), sizeof buf);
    strcpy(buf, path);
    for (p = buf + 1;; p++) {
        if (*p == '/' || !*p) {
            char c = *p;

            *p = '\0';
            ck_assert_msg(mkdir(buf, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", buf,
                          strerror(errno));
            *p = c;
            if (!c)
                break;
        }
    }
}

static int
exists(const char *path)
{
    struct stat st;

    return lstat(path, &st) == 0;
}

/* Temporary files a write or a symlink left in dir. */
static int
leftovers(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".prop-"))
            n++;
    ck_assert_int_eq(closedir(d), 0);
    return n;
}

/* Entries of dir, "." and ".." aside. */
static int
entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    ck_assert_int_eq(closedir(d), 0);
    return n;
}

static int
rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/*
 * Each test works in its own directory D below BASE.  BASE is made and
 * removed by the runner (unchecked fixtures), so that a test that fails,
 * which ends its process at once without teardown(), leaves nothing.
 */
static char BASE[PATH_MAX];

static void
base_setup(void)
{
    char tmpl[] = "/tmp/prop-check-transport-XXXXXX";

    if (!mkdtemp(tmpl) || !realpath(tmpl, BASE)) {
        perror("check_transport: mkdtemp");
        abort();
    }
}

static void
base_teardown(void)
{
    if (BASE[0] && nftw(BASE, rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
        fprintf(stderr, "check_transport: cannot remove %s: %s\n", BASE, strerror(errno));
    BASE[0] = '\0';
}

static void
setup(void)
{
    char tmpl[PATH_MAX];

    ck_assert_int_lt(snprintf(tmpl, sizeof tmpl, "%s/t-XXXXXX", BASE), (int)sizeof tmpl);
    ck_assert_ptr_nonnull(mkdtemp(tmpl));
    ck_assert_ptr_nonnull(realpath(tmpl, D));
    ck_assert_int_eq(prop_transport_local(&T), PROP_OK);
    ck_assert_ptr_nonnull(T);
}

static void
teardown(void)
{
    prop_transport_close(T);
    T = NULL;
    if (D[0])
        ck_assert_int_eq(nftw(D, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
    D[0] = '\0';
}

static int
is_root(void)
{
    return geteuid() == 0;
}

/* Run argv on t; returns the transport's return code. */
static int
run(prop_transport *t, prop_cmd_result *r, const char *stdin_data, size_t len, ...)
{
    const char *argv[32];
    va_list ap;
    int n = 0;

    va_start(ap, len);
    while ((argv[n] = va_arg(ap, const char *)) != NULL) {
        n++;
        ck_assert_int_lt(n, 31);
    }
    va_end(ap);
    return prop_transport_run(t, argv, stdin_data, len, r);
}

#define RUN(t, r, ...) run(t, r, NULL, 0, __VA_ARGS__, (const char *)NULL)

/* ---- interruption (prop_transport_set_interrupt) ---- */

/* The flag and its alarm (stop_in_a_second, STOPS), pid_in, ended and
 * seconds: unit.h. */

/* ---- commands ---- */

START_TEST(test_names)
{
    prop_transport *d = NULL;
    char want[PATH_MAX + 8];

    ck_assert_str_eq(prop_transport_name(T), "local");
    ck_assert_str_eq(prop_transport_error(T), "");
    mkdirs(P("root"));
    /* Given with a trailing slash and a "." it is named by its realpath. */
    ck_assert_int_eq(prop_transport_dir(&d, P("root/./")), PROP_OK);
    snprintf(want, sizeof want, "dir:%s", P("root"));
    ck_assert_str_eq(prop_transport_name(d), want);
    prop_transport_close(d);
    ck_assert_int_eq(prop_transport_local(NULL), PROP_EINVAL);
    ck_assert_int_eq(prop_transport_dir(&d, NULL), PROP_EINVAL);
    ck_assert_ptr_null(d);
}
END_TEST

START_TEST(test_run_output_and_code)
{
    prop_cmd_result r;

    ck_assert_int_eq(RUN(T, &r, "sh", "-c", "echo out; echo err >&2; exit 3"), PROP_OK);
    ck_assert_int_eq(r.code, 3);
    ck_assert_uint_eq(r.out_len, 4);
    ck_assert_str_eq(r.out, "out\n");
    ck_assert_uint_eq(r.err_len, 4);
    ck_assert_str_eq(r.err, "err\n");
    prop_cmd_result_clear(&r);
    ck_assert_ptr_null(r.out);

    /* Nothing printed: empty strings, not NULL. */
    ck_assert_int_eq(RUN(T, &r, "true"), PROP_OK);
    ck_assert_int_eq(r.code, 0);
    ck_assert_ptr_nonnull(r.out);
    ck_assert_ptr_nonnull(r.err);
    ck_assert_str_eq(r.out, "");
    ck_assert_uint_eq(r.err_len, 0);
    prop_cmd_result_clear(&r);

    ck_assert_int_eq(RUN(T, &r, "false"), PROP_OK);
    ck_assert_int_eq(r.code, 1);
    prop_cmd_result_clear(&r);
}
END_TEST

START_TEST(test_run_no_shell)
{
    prop_cmd_result r;

    /* Arguments reach the program as they are: no expansion, no splitting. */
    ck_assert_int_eq(RUN(T, &r, "printf", "%s|", "a b", "$HOME", "*", "`id`", ";x"), PROP_OK);
    ck_assert_int_eq(r.code, 0);
    ck_assert_str_eq(r.out, "a b|$HOME|*|`id`|;x|");
    prop_cmd_result_clear(&r);
    /* The working directory is "/". */
    ck_assert_int_eq(RUN(T, &r, "pwd"), PROP_OK);
    ck_assert_str_eq(r.out, "/\n");
    prop_cmd_result_clear(&r);
}
END_TEST

START_TEST(test_run_stdin)
{
    static const char data[] = "line one\nbinary\0zero\n";
    prop_cmd_result r;

    ck_assert_int_eq(run(T, &r, data, sizeof data - 1, "cat", (const char *)NULL), PROP_OK);
    ck_assert_int_eq(r.code, 0);
    ck_assert_uint_eq(r.out_len, sizeof data - 1);
    ck_assert_mem_eq(r.out, data, sizeof data - 1);
    prop_cmd_result_clear(&r);
    /* No input: end of file at once. */
    ck_assert_int_eq(run(T, &r, NULL, 0, "wc", "-c", (const char *)NULL), PROP_OK);
    ck_assert_int_eq(r.code, 0);
    ck_assert_int_eq(atoi(r.out), 0);
    prop_cmd_result_clear(&r);
}
END_TEST

START_TEST(test_run_signals)
{
    prop_cmd_result r;

    ck_assert_int_eq(RUN(T, &r, "sh", "-c", "kill -TERM $$"), PROP_OK);
    ck_assert_int_eq(r.code, 128 + SIGTERM);
    prop_cmd_result_clear(&r);
    ck_assert_int_eq(RUN(T, &r, "sh", "-c", "echo partial; kill -KILL $$"), PROP_OK);
    ck_assert_int_eq(r.code, 128 + SIGKILL);
    ck_assert_str_eq(r.out, "partial\n");
    prop_cmd_result_clear(&r);
}
END_TEST

START_TEST(test_run_missing_program)
{
    prop_cmd_result r;

    ck_assert_int_eq(RUN(T, &r, "prop-no-such-program"), PROP_ERROR);
    ck_assert_int_eq(r.code, -1);
    ck_assert_str_eq(prop_transport_error(T), "prop-no-such-program: command not found");
    ck_assert_ptr_nonnull(r.err);
    ck_assert_str_eq(r.err, "prop-no-such-program: command not found\n");
    prop_cmd_result_clear(&r);

    ck_assert_int_eq(RUN(T, &r, "/nonexistent/prog"), PROP_ERROR);
    ck_assert_int_eq(r.code, -1);
    ck_assert_str_eq(prop_transport_error(T), "/nonexistent/prog: command not found");
    prop_cmd_result_clear(&r);

    /* A file without the execute bit. */
    puts_file(P("noexec"), "#!/bin/sh\necho no\n");
    ck_assert_int_eq(chmod(P("noexec"), 0644), 0);
    ck_assert_int_eq(RUN(T, &r, P("noexec")), PROP_ERROR);
    ck_assert_int_eq(r.code, -1);
    ck_assert_ptr_nonnull(strstr(prop_transport_error(T), "permission denied"));
    prop_cmd_result_clear(&r);

    /* A script whose interpreter is missing. */
    puts_file(P("badinterp"), "#!/nonexistent/interpreter\n");
    ck_assert_int_eq(chmod(P("badinterp"), 0755), 0);
    ck_assert_int_eq(RUN(T, &r, P("badinterp")), PROP_ERROR);
    ck_assert_int_eq(r.code, -1);
    ck_assert_ptr_nonnull(strstr(prop_transport_error(T), "interpreter"));
    prop_cmd_result_clear(&r);

    /* A program that exits 127 itself is not "missing". */
    ck_assert_int_eq(RUN(T, &r, "sh", "-c", "exit 127"), PROP_OK);
    ck_assert_int_eq(r.code, 127);
    prop_cmd_result_clear(&r);
}
END_TEST

/* 3 MiB in, the same 3 MiB out on both stdout and stderr at once. */
START_TEST(test_run_big_streams)
{
    size_t n = 3u << 20, i;
    char *in = malloc(n);
    prop_cmd_result r;

    ck_assert_ptr_nonnull(in);
    for (i = 0; i < n; i++)
        in[i] = (char)('a' + (i * 7 + i / 4096) % 26);
    ck_assert_int_eq(run(T, &r, in, n, "tee", "/dev/stderr", (const char *)NULL), PROP_OK);
    ck_assert_int_eq(r.code, 0);
    ck_assert_uint_eq(r.out_len, n);
    ck_assert_uint_eq(r.err_len, n);
    ck_assert(memcmp(r.out, in, n) == 0);
    ck_assert(memcmp(r.err, in, n) == 0);
    ck_assert_int_eq(r.out[n], '\0');
    prop_cmd_result_clear(&r);

    /* Output on both streams without input, 2 MiB each. */
    ck_assert_int_eq(RUN(T, &r, "sh", "-c",
                         "i=0; while [ $i -lt 16 ]; do head -c 131072 /dev/zero; "
                         "head -c 131072 /dev/zero >&2; i=$((i+1)); done"),
                     PROP_OK);
    ck_assert_int_eq(r.code, 0);
    ck_assert_uint_eq(r.out_len, 2u << 20);
    ck_assert_uint_eq(r.err_len, 2u << 20);
    prop_cmd_result_clear(&r);

    /* A program that reads none of a big input: no SIGPIPE for us. */
    ck_assert_int_eq(run(T, &r, in, n, "true", (const char *)NULL), PROP_OK);
    ck_assert_int_eq(r.code, 0);
    prop_cmd_result_clear(&r);
    ck_assert_int_eq(run(T, &r, in, n, "head", "-c", "10", (const char *)NULL), PROP_OK);
    ck_assert_int_eq(r.code, 0);
    ck_assert_uint_eq(r.out_len, 10);
    ck_assert_mem_eq(r.out, in, 10);
    prop_cmd_result_clear(&r);
    free(in);
}
END_TEST

START_TEST(test_run_environment)
{
    prop_cmd_result r;
    const char *old_path = getenv("PATH");
    char *saved = old_path ? strdup(old_path) : NULL;

    ck_assert_int_eq(setenv("LC_ALL", "fr_FR.UTF-8", 1), 0);
    ck_assert_int_eq(setenv("PROP_CHECK_VAR", "kept", 1), 0);
    ck_assert_int_eq(RUN(T, &r, "sh", "-c", "echo \"$LC_ALL $PROP_CHECK_VAR\""), PROP_OK);
    ck_assert_str_eq(r.out, "C kept\n");
    prop_cmd_result_clear(&r);
    /* No PATH: a sane one. */
    ck_assert_int_eq(unsetenv("PATH"), 0);
    ck_assert_int_eq(RUN(T, &r, "sh", "-c", "echo \"$PATH\""), PROP_OK);
    ck_assert_int_eq(r.code, 0);
    ck_assert_str_eq(r.out, "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n");
    prop_cmd_result_clear(&r);
    /* For CK_FORK=no runs. */
    ck_assert_int_eq(unsetenv("LC_ALL"), 0);
    ck_assert_int_eq(unsetenv("PROP_CHECK_VAR"), 0);
    if (saved)
        ck_assert_int_eq(setenv("PATH", saved, 1), 0);
    free(saved);
}
END_TEST

START_TEST(test_run_closes_fds)
{
    prop_cmd_result r;
    int fd = open("/dev/null", O_RDONLY);

    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(dup2(fd, 57), 57); /* not close-on-exec */
    ck_assert_int_eq(RUN(T, &r, "sh", "-c",
                         "if [ -e /proc/self/fd/57 ]; then echo open; else echo closed; fi; "
                         "ls /proc/self/fd | wc -l"),
                     PROP_OK);
    /* 0, 1, 2 and the directory ls reads. */
    ck_assert_str_eq(r.out, "closed\n4\n");
    prop_cmd_result_clear(&r);
    ck_assert_int_eq(close(57), 0);
    ck_assert_int_eq(close(fd), 0);
}
END_TEST

/*
 * A run interrupted (the flag raised a second after the command started):
 * the command's whole process group gets SIGTERM, the call fails with
 * "interrupted", and nothing of it is left running.
 */
START_TEST(test_run_interrupted)
{
    prop_cmd_result r;
    pid_t sh, sl;
    int rc;

    prop_transport_set_interrupt(T, &STOPS, NULL);
    stop_in_a_second(1);
    rc = RUN(T, &r, "sh", "-c", "echo $$ >\"$1\"; sleep 600 & echo $! >\"$2\"; wait", "sh",
             P("sh.pid"), P("sleep.pid"));
    ck_assert_int_eq(rc, PROP_ERROR);
    ck_assert_msg(strstr(prop_transport_error(T), "interrupted"), "%s", prop_transport_error(T));
    ck_assert_int_eq(r.code, -1);
    prop_cmd_result_clear(&r);
    sh = pid_in(P("sh.pid"));
    sl = pid_in(P("sleep.pid"));
    ck_assert_msg(ended(sh), "the command %ld still runs", (long)sh);
    ck_assert_msg(ended(sl), "its child %ld still runs", (long)sl);
    /* Once interrupted, no command starts. */
    ck_assert_int_eq(RUN(T, &r, "sh", "-c", "echo ran >\"$1\"", "sh", P("ran")), PROP_ERROR);
    ck_assert_msg(strstr(prop_transport_error(T), "interrupted"), "%s", prop_transport_error(T));
    prop_cmd_result_clear(&r);
    ck_assert_int_ne(access(P("ran"), F_OK), 0);
    /* Files are still written. */
    ck_assert_int_eq(prop_transport_write(T, P("f"), "x", 1, NULL), PROP_OK);
}
END_TEST

/* A command that ignores SIGTERM gets SIGKILL after the grace period. */
START_TEST(test_run_interrupted_grace)
{
    prop_cmd_result r;
    double t0 = seconds();
    pid_t sh, sl;

    prop_transport_set_interrupt(T, &STOPS, NULL);
    stop_in_a_second(1);
    ck_assert_int_eq(RUN(T, &r, "sh", "-c",
                         "trap '' TERM; echo $$ >\"$1\"; sleep 600 & echo $! >\"$2\"; wait", "sh",
                         P("sh.pid"), P("sleep.pid")),
                     PROP_ERROR);
    ck_assert_msg(strstr(prop_transport_error(T), "interrupted"), "%s", prop_transport_error(T));
    prop_cmd_result_clear(&r);
    ck_assert_double_ge(seconds() - t0, 1.0 + PROP_INTERRUPT_GRACE_MS / 1000.0);
    sh = pid_in(P("sh.pid"));
    sl = pid_in(P("sleep.pid"));
    ck_assert(ended(sh));
    ck_assert(ended(sl));
}
END_TEST

/* A second request does not wait for the grace period: SIGKILL at once. */
START_TEST(test_run_interrupted_twice)
{
    prop_cmd_result r;
    double t0 = seconds();
    pid_t sh, sl;

    prop_transport_set_interrupt(T, &STOPS, NULL);
    stop_in_a_second(2);
    ck_assert_int_eq(RUN(T, &r, "sh", "-c",
                         "trap '' TERM; echo $$ >\"$1\"; sleep 600 & echo $! >\"$2\"; wait", "sh",
                         P("sh.pid"), P("sleep.pid")),
                     PROP_ERROR);
    prop_cmd_result_clear(&r);
    ck_assert_int_ge(STOPS, 2);
    /* Both requests came within 2 s; the grace period would end at 1 s + grace. */
    ck_assert_double_lt(seconds() - t0, 1.0 + PROP_INTERRUPT_GRACE_MS / 1000.0);
    sh = pid_in(P("sh.pid"));
    sl = pid_in(P("sleep.pid"));
    ck_assert(ended(sh));
    ck_assert(ended(sl));
}
END_TEST

/*
 * What is left of the command's process group when the command ends (here
 * a child that ignores SIGTERM and holds none of its pipes) is killed too.
 */
START_TEST(test_run_interrupted_group_left)
{
    prop_cmd_result r;
    pid_t sl;

    prop_transport_set_interrupt(T, &STOPS, NULL);
    stop_in_a_second(1);
    ck_assert_int_eq(RUN(T, &r, "sh", "-c",
                         "(trap '' TERM; exec sleep 600) >/dev/null 2>&1 & echo $! >\"$1\"; wait",
                         "sh", P("sleep.pid")),
                     PROP_ERROR);
    prop_cmd_result_clear(&r);
    sl = pid_in(P("sleep.pid"));
    ck_assert_msg(ended(sl), "%ld still runs", (long)sl);
}
END_TEST

/*
 * The signal prop got is the one passed on.  The command ends on it, but
 * its background child ignores SIGINT (as sh makes it) and holds the
 * output pipes: it goes at once too, not at the end of the grace period.
 */
START_TEST(test_run_interrupted_signal)
{
    static volatile sig_atomic_t sig = SIGINT;
    double t0 = seconds();
    prop_cmd_result r;
    char *got;

    prop_transport_set_interrupt(T, &STOPS, &sig);
    stop_in_a_second(1);
    ck_assert_int_eq(RUN(T, &r, "sh", "-c",
                         "trap 'echo INT >\"$1\"; exit 3' INT; sleep 600 & wait; wait", "sh",
                         P("got")),
                     PROP_ERROR);
    prop_cmd_result_clear(&r);
    ck_assert_double_lt(seconds() - t0, 1.0 + PROP_INTERRUPT_GRACE_MS / 1000.0);
    got = get(P("got"), NULL);
    ck_assert_str_eq(got, "INT\n");
    free(got);
}
END_TEST

START_TEST(test_run_bad_args)
{
    prop_cmd_result r;
    const char *empty[] = {NULL};

    ck_assert_int_eq(prop_transport_run(T, empty, NULL, 0, &r), PROP_EINVAL);
    ck_assert_int_eq(prop_transport_run(NULL, empty, NULL, 0, &r), PROP_EINVAL);
}
END_TEST

/* ---- files ---- */

START_TEST(test_read_write)
{
    prop_file_stat st;
    char *data = (char *)1;
    size_t len = 9;
    struct passwd *pw = getpwuid(geteuid());

    ck_assert_int_eq(prop_transport_write(T, P("f"), "hello\n", 6, NULL), PROP_OK);
    expect_file(P("f"), "hello\n");
    ck_assert_int_eq(prop_transport_read(T, P("f"), &data, &len), PROP_OK);
    ck_assert_uint_eq(len, 6);
    ck_assert_str_eq(data, "hello\n");
    free(data);
    ck_assert_int_eq(prop_transport_stat(T, P("f"), &st), PROP_OK);
    ck_assert_int_eq(st.type, PROP_FT_FILE);
    ck_assert_uint_eq(st.mode, 0644);
    ck_assert_int_eq(st.size, 6);
    ck_assert_uint_eq(st.uid, geteuid());
    ck_assert_ptr_nonnull(pw);
    ck_assert_str_eq(st.owner, pw->pw_name);

    /* Replace; then empty. */
    ck_assert_int_eq(prop_transport_write(T, P("f"), "second", 6, NULL), PROP_OK);
    expect_file(P("f"), "second");
    ck_assert_int_eq(prop_transport_write(T, P("f"), NULL, 0, NULL), PROP_OK);
    ck_assert_int_eq(prop_transport_read(T, P("f"), &data, &len), PROP_OK);
    ck_assert_uint_eq(len, 0);
    ck_assert_ptr_nonnull(data);
    ck_assert_int_eq(data[0], '\0');
    free(data);

    /* Missing; a directory. */
    ck_assert_int_eq(prop_transport_read(T, P("missing"), &data, &len), PROP_ENOTFOUND);
    ck_assert_ptr_null(data);
    ck_assert_ptr_nonnull(strstr(prop_transport_error(T), "missing"));
    ck_assert_int_eq(prop_transport_read(T, P("f/below"), &data, &len), PROP_ENOTFOUND);
    ck_assert_int_eq(prop_transport_read(T, D, &data, &len), PROP_ERROR);
    ck_assert_ptr_nonnull(strstr(prop_transport_error(T), "directory"));
    ck_assert_int_eq(leftovers(D), 0);
}
END_TEST

START_TEST(test_read_write_big)
{
    size_t n = (5u << 20) + 17, i, len = 0;
    char *in = malloc(n), *back = NULL;

    ck_assert_ptr_nonnull(in);
    for (i = 0; i < n; i++)
        in[i] = (char)(i * 2654435761u >> 13);
    ck_assert_int_eq(prop_transport_write(T, P("big"), in, n, NULL), PROP_OK);
    ck_assert_int_eq(prop_transport_read(T, P("big"), &back, &len), PROP_OK);
    ck_assert_uint_eq(len, n);
    ck_assert(memcmp(back, in, n) == 0);
    ck_assert_int_eq(back[n], '\0');
    free(back);
    free(in);
}
END_TEST

START_TEST(test_write_keeps_mode_and_owner)
{
    prop_file_attrs a = {0600, NULL, NULL}, keep = {-1, NULL, NULL};
    prop_file_stat st;

    ck_assert_int_eq(prop_transport_write(T, P("m"), "1", 1, &a), PROP_OK);
    ck_assert_int_eq(prop_transport_stat(T, P("m"), &st), PROP_OK);
    ck_assert_uint_eq(st.mode, 0600);
    ck_assert_int_eq(prop_transport_write(T, P("m"), "2", 1, NULL), PROP_OK);
    ck_assert_int_eq(prop_transport_stat(T, P("m"), &st), PROP_OK);
    ck_assert_uint_eq(st.mode, 0600);
    ck_assert_int_eq(prop_transport_write(T, P("m"), "3", 1, &keep), PROP_OK);
    ck_assert_int_eq(prop_transport_stat(T, P("m"), &st), PROP_OK);
    ck_assert_uint_eq(st.mode, 0600);
    expect_file(P("m"), "3");
    /* Set-id bits survive too (they are set after the owner). */
    ck_assert_int_eq(chmod(P("m"), 04750), 0);
    ck_assert_int_eq(prop_transport_write(T, P("m"), "4", 1, NULL), PROP_OK);
    ck_assert_int_eq(prop_transport_stat(T, P("m"), &st), PROP_OK);
    ck_assert_uint_eq(st.mode, 04750);
    if (!is_root())
        return;
    ck_assert_int_eq(chown(P("m"), 1234, 2345), 0);
    ck_assert_int_eq(chmod(P("m"), 04750), 0); /* chown cleared it */
    ck_assert_int_eq(prop_transport_write(T, P("m"), "5", 1, NULL), PROP_OK);
    ck_assert_int_eq(prop_transport_stat(T, P("m"), &st), PROP_OK);
    ck_assert_uint_eq(st.uid, 1234);
    ck_assert_uint_eq(st.gid, 2345);
    ck_assert_uint_eq(st.mode, 04750);
}
END_TEST

START_TEST(test_write_owner_by_name_and_number)
{
    prop_file_attrs byname = {0640, "root", "root"}, bynum = {-1, "4321", "4322"};
    prop_file_attrs unknown = {-1, "prop-no-such-user", NULL};
    prop_file_attrs unknown_group = {-1, NULL, "prop-no-such-group"};
    prop_file_stat st;
    char want[32];

    if (!is_root()) {
        /* Another user cannot give files away. */
        ck_assert_int_eq(prop_transport_write(T, P("o"), "x", 1, &bynum), PROP_ERROR);
        return;
    }
    ck_assert_int_eq(prop_transport_write(T, P("o"), "x", 1, &byname), PROP_OK);
    ck_assert_int_eq(prop_transport_stat(T, P("o"), &st), PROP_OK);
    ck_assert_uint_eq(st.uid, 0);
    ck_assert_uint_eq(st.gid, 0);
    ck_assert_uint_eq(st.mode, 0640);
    ck_assert_str_eq(st.owner, "root");
    ck_assert_str_eq(st.group, "root");

    ck_assert_int_eq(prop_transport_write(T, P("o"), "y", 1, &bynum), PROP_OK);
    ck_assert_int_eq(prop_transport_stat(T, P("o"), &st), PROP_OK);
    ck_assert_uint_eq(st.uid, 4321);
    ck_assert_uint_eq(st.gid, 4322);
    ck_assert_uint_eq(st.mode, 0640);
    snprintf(want, sizeof want, "%s", getpwuid(4321) ? getpwuid(4321)->pw_name : "4321");
    ck_assert_str_eq(st.owner, want);
    snprintf(want, sizeof want, "%s", getgrgid(4322) ? getgrgid(4322)->gr_name : "4322");
    ck_assert_str_eq(st.group, want);

    /* Unknown names fail, naming them, and change nothing. */
    ck_assert_int_eq(prop_transport_write(T, P("o"), "z", 1, &unknown), PROP_ERROR);
    ck_assert_ptr_nonnull(strstr(prop_transport_error(T), "\"prop-no-such-user\""));
    ck_assert_int_eq(prop_transport_write(T, P("o"), "z", 1, &unknown_group), PROP_ERROR);
    ck_assert_ptr_nonnull(strstr(prop_transport_error(T), "group \"prop-no-such-group\""));
    ck_assert_int_eq(prop_transport_write(T, P("new"), "z", 1, &unknown), PROP_ERROR);
    ck_assert(!exists(P("new")));
    expect_file(P("o"), "y");
    ck_assert_int_eq(leftovers(D), 0);
}
END_TEST

START_TEST(test_write_failures_keep_old)
{
    prop_file_attrs badmode = {010000, NULL, NULL};
    prop_file_stat st;

    puts_file(P("keep"), "old content");
    /* The parent does not exist / is not a directory. */
    ck_assert_int_eq(prop_transport_write(T, P("nodir/f"), "x", 1, NULL), PROP_ERROR);
    ck_assert_ptr_nonnull(strstr(prop_transport_error(T), "does not exist"));
    ck_assert_ptr_nonnull(strstr(prop_transport_error(T), P("nodir")));
    ck_assert_int_eq(prop_transport_write(T, P("keep/f"), "x", 1, NULL), PROP_ERROR);
    ck_assert_ptr_nonnull(strstr(prop_transport_error(T), "not a directory"));
    /* The path is a directory: it stays one. */
    mkdirs(P("adir"));
    ck_assert_int_eq(prop_transport_write(T, P("adir"), "x", 1, NULL), PROP_ERROR);
    ck_assert_ptr_nonnull(strstr(prop_transport_error(T), "directory"));
    ck_assert_int_eq(prop_transport_stat(T, P("adir"), &st), PROP_OK);
    ck_assert_int_eq(st.type, PROP_FT_DIR);
    /* A bad mode: nothing changes. */
    ck_assert_int_eq(prop_transport_write(T, P("keep"), "new", 3, &badmode), PROP_ERROR);
    ck_assert_ptr_nonnull(strstr(prop_transport_error(T), "mode"));
    expect_file(P("keep"), "old content");
    /* Not a file name. */
    ck_assert_int_eq(prop_transport_write(T, "", "x", 1, NULL), PROP_ERROR);
    ck_assert_int_eq(prop_transport_write(T, P("adir/.."), "x", 1, NULL), PROP_ERROR);
    ck_assert_int_eq(leftovers(D), 0);
    ck_assert_int_eq(leftovers(P("adir")), 0);
}
END_TEST

START_TEST(test_write_replaces_link)
{
    prop_file_stat st;

    /* A link is replaced by the file; what it pointed at is untouched. */
    puts_file(P("target"), "target");
    ck_assert_int_eq(symlink("target", P("link")), 0);
    ck_assert_int_eq(prop_transport_write(T, P("link"), "file", 4, NULL), PROP_OK);
    ck_assert_int_eq(prop_transport_stat(T, P("link"), &st), PROP_OK);
    ck_assert_int_eq(st.type, PROP_FT_FILE);
    ck_assert_uint_eq(st.mode, 0644);
    expect_file(P("target"), "target");
}
END_TEST

/*
 * A child writes two large contents in turn while we read the file and
 * then kill -9 it: every read sees one content or the other, whole.
 */
/* Entries of D named as a write's temporary files for "name". */
static int
temp_files(const char *name)
{
    char prefix[300];
    struct dirent *e;
    DIR *d = opendir(D);
    int n = 0;

    ck_assert_ptr_nonnull(d);
    snprintf(prefix, sizeof prefix, ".%s.prop-", name);
    while ((e = readdir(d)) != NULL)
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

START_TEST(test_write_atomic_under_kill)
{
    size_t n = 1u << 20, len;
    char *a = malloc(n), *b = malloc(n), *data;
    int round, reads = 0, sawb = 0;

    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    memset(a, 'a', n);
    memset(b, 'b', n);
    ck_assert_int_eq(prop_transport_write(T, P("atomic"), a, n, NULL), PROP_OK);
    for (round = 0; round < 6; round++) {
        struct timespec start, now;
        int status;
        pid_t pid = fork();

        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
            prop_transport *w;

            if (prop_transport_local(&w) != PROP_OK)
                _exit(1);
            for (;;)
                if (prop_transport_write(w, P("atomic"), b, n, NULL) != PROP_OK ||
                    prop_transport_write(w, P("atomic"), a, n, NULL) != PROP_OK)
                    _exit(2);
        }
        ck_assert_int_eq(clock_gettime(CLOCK_MONOTONIC, &start), 0);
        do {
            ck_assert_int_eq(prop_transport_read(T, P("atomic"), &data, &len), PROP_OK);
            ck_assert_uint_eq(len, n);
            ck_assert(memcmp(data, a, n) == 0 || memcmp(data, b, n) == 0);
            sawb += data[0] == 'b';
            free(data);
            reads++;
            ck_assert_int_eq(clock_gettime(CLOCK_MONOTONIC, &now), 0);
        } while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) <
                 (30 + 25 * round) * 1000000L);
        ck_assert_int_eq(kill(pid, SIGKILL), 0);
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        ck_assert_int_eq(prop_transport_read(T, P("atomic"), &data, &len), PROP_OK);
        ck_assert_uint_eq(len, n);
        ck_assert(memcmp(data, a, n) == 0 || memcmp(data, b, n) == 0);
        free(data);
        /* The temporary file has no name while it is written, and a name
         * left by a kill between its link and its rename is removed by the
         * next write: at most the last one is there. */
        ck_assert_int_le(temp_files("atomic"), 1);
    }
    ck_assert_int_eq(prop_transport_write(T, P("atomic"), a, n, NULL), PROP_OK);
    ck_assert_int_eq(temp_files("atomic"), 0);
    ck_assert_int_gt(reads, 6);
    ck_assert_int_gt(sawb, 0); /* the writer did replace the file */
    free(a);
    free(b);
}
END_TEST

/*
 * Stale temporary files of a path (left by a process killed outright) are
 * removed by the next write of that path, and nothing else is: not other
 * names, not a directory or a link of that name, not another user's file.
 */
START_TEST(test_write_removes_stale)
{
    static const char *const stale[] = {".f.prop-abc123", ".f.prop-XYZ789", ".f.prop-000000"};
    static const char *const kept[] = {".f.prop-abc12",   ".f.prop-abc1234", ".f.prop-ab_123",
                                       ".g.prop-abc123",  "f.prop-abc123",   ".f.prop-",
                                       ".f.prop-abc12\n", ".ff.prop-abc123"};
    struct stat sb;
    size_t i;

    for (i = 0; i < sizeof stale / sizeof stale[0]; i++)
        puts_file(P(stale[i]), "a stale copy");
    for (i = 0; i < sizeof kept / sizeof kept[0]; i++)
        puts_file(P(kept[i]), "not prop's");
    ck_assert_int_eq(mkdir(P(".f.prop-dir000"), 0755), 0);
    ck_assert_int_eq(symlink("f", P(".f.prop-lnk000")), 0);
    if (is_root()) {
        puts_file(P(".f.prop-other0"), "another user's");
        ck_assert_int_eq(chown(P(".f.prop-other0"), 1, 1), 0);
    }
    ck_assert_int_eq(prop_transport_write(T, P("f"), "new", 3, NULL), PROP_OK);
    for (i = 0; i < sizeof stale / sizeof stale[0]; i++)
        ck_assert_msg(lstat(P(stale[i]), &sb) != 0 && errno == ENOENT, "%s is still there",
                      stale[i]);
    for (i = 0; i < sizeof kept / sizeof kept[0]; i++)
        ck_assert_msg(lstat(P(kept[i]), &sb) == 0, "%s was removed", kept[i]);
    ck_assert_int_eq(lstat(P(".f.prop-dir000"), &sb), 0);
    ck_assert_int_eq(lstat(P(".f.prop-lnk000"), &sb), 0);
    if (is_root()) {
        ck_assert_int_eq(lstat(P(".f.prop-other0"), &sb), 0);
        /* The owner the file is given may own its stale copies (left
         * before the run: a new transport, which reads the directory anew). */
        puts_file(P(".f.prop-daemon"), "stale, the owner's");
        ck_assert_int_eq(chown(P(".f.prop-daemon"), 1, 1), 0);
        prop_transport_close(T);
        ck_assert_int_eq(prop_transport_local(&T), PROP_OK);
        {
            prop_file_attrs a = {-1, "1", NULL};

            ck_assert_int_eq(prop_transport_write(T, P("f"), "newer", 5, &a), PROP_OK);
        }
        ck_assert_int_ne(lstat(P(".f.prop-daemon"), &sb), 0);
    }
    /* A symlink removes stale links of its own naming, and only those. */
    ck_assert_int_eq(symlink("x", P(".l.prop-old000")), 0);
    puts_file(P(".l.prop-file00"), "a file");
    prop_transport_close(T);
    ck_assert_int_eq(prop_transport_local(&T), PROP_OK);
    ck_assert_int_eq(prop_transport_symlink(T, "g", P("l")), PROP_OK);
    ck_assert_int_ne(lstat(P(".l.prop-old000"), &sb), 0);
    ck_assert_int_eq(lstat(P(".l.prop-file00"), &sb), 0);
}
END_TEST

START_TEST(test_stat)
{
    prop_file_stat st;

    mkdirs(P("d"));
    ck_assert_int_eq(chmod(P("d"), 0710), 0);
    puts_file(P("d/f"), "12345");
    ck_assert_int_eq(symlink("d", P("ln")), 0);
    ck_assert_int_eq(mkfifo(P("fifo"), 0600), 0);

    ck_assert_int_eq(prop_transport_stat(T, P("d"), &st), PROP_OK);
    ck_assert_int_eq(st.type, PROP_FT_DIR);
    ck_assert_uint_eq(st.mode, 0710);
    ck_assert_int_eq(prop_transport_stat(T, P("d/f"), &st), PROP_OK);
    ck_assert_int_eq(st.type, PROP_FT_FILE);
    ck_assert_int_eq(st.size, 5);
    /* The link itself, not what it points to. */
    ck_assert_int_eq(prop_transport_stat(T, P("ln"), &st), PROP_OK);
    ck_assert_int_eq(st.type, PROP_FT_LINK);
    ck_assert_str_eq(st.target, "d");
    ck_assert_int_eq(prop_transport_stat(T, P("fifo"), &st), PROP_OK);
    ck_assert_int_eq(st.type, PROP_FT_OTHER);
    ck_assert_uint_eq(st.mode, 0600);
    ck_assert_int_eq(prop_transport_stat(T, P("missing"), &st), PROP_ENOTFOUND);
    ck_assert_int_eq(st.type, PROP_FT_NONE);
    ck_assert_int_eq(prop_transport_stat(T, P("d/f/x"), &st), PROP_ENOTFOUND);
    if (is_root()) {
        ck_assert_int_eq(prop_transport_stat(T, "/", &st), PROP_OK);
        ck_assert_str_eq(st.owner, "root");
        ck_assert_str_eq(st.group, "root");
    }
}
END_TEST

START_TEST(test_remove)
{
    mkdirs(P("full/sub"));
    mkdirs(P("empty"));
    puts_file(P("f"), "x");
    ck_assert_int_eq(symlink("f", P("ln")), 0);

    ck_assert_int_eq(prop_transport_remove(T, P("ln")), PROP_OK);
    ck_assert(!exists(P("ln")));
    ck_assert(exists(P("f")));
    ck_assert_int_eq(prop_transport_remove(T, P("f")), PROP_OK);
    ck_assert(!exists(P("f")));
    ck_assert_int_eq(prop_transport_remove(T, P("empty")), PROP_OK);
    ck_assert(!exists(P("empty")));
    ck_assert_int_eq(prop_transport_remove(T, P("full")), PROP_ERROR);
    ck_assert_ptr_nonnull(strstr(prop_transport_error(T), "not empty"));
    ck_assert(exists(P("full/sub")));
    ck_assert_int_eq(prop_transport_remove(T, P("f")), PROP_ENOTFOUND);
    ck_assert_int_eq(prop_transport_remove(T, P("nodir/f")), PROP_ENOTFOUND);
}
END_TEST

START_TEST(test_mkdir)
{
    prop_file_attrs a = {0750, NULL, NULL}, owned = {-1, "1234", "root"};
    prop_file_stat st;

    ck_assert_int_eq(prop_transport_mkdir(T, P("d1"), NULL), PROP_OK);
    ck_assert_int_eq(prop_transport_stat(T, P("d1"), &st), PROP_OK);
    ck_assert_int_eq(st.type, PROP_FT_DIR);
    ck_assert_uint_eq(st.mode, 0755);
    ck_assert_int_eq(prop_transport_mkdir(T, P("d2"), &a), PROP_OK);
    ck_assert_int_eq(prop_transport_stat(T, P("d2"), &st), PROP_OK);
    ck_assert_uint_eq(st.mode, 0750);
    /* Existing, missing parent, one level only. */
    ck_assert_int_eq(prop_transport_mkdir(T, P("d1"), NULL), PROP_ERROR);
    ck_assert_ptr_nonnull(strstr(prop_transport_error(T), "exists"));
    ck_assert_int_eq(prop_transport_mkdir(T, P("no/such"), NULL), PROP_ERROR);
    ck_assert_ptr_nonnull(strstr(prop_transport_error(T), "does not exist"));
    ck_assert(!exists(P("no")));
    if (is_root()) {
        ck_assert_int_eq(prop_transport_mkdir(T, P("d3"), &owned), PROP_OK);
        ck_assert_int_eq(prop_transport_stat(T, P("d3"), &st), PROP_OK);
        ck_assert_uint_eq(st.uid, 1234);
        ck_assert_uint_eq(st.gid, 0);
        ck_assert_uint_eq(st.mode, 0755);
    }
    owned.owner = "prop-no-such-user";
    ck_assert_int_eq(prop_transport_mkdir(T, P("d4"), &owned), PROP_ERROR);
    ck_assert(!exists(P("d4")));
}
END_TEST

START_TEST(test_symlink)
{
    prop_file_stat st;

    ck_assert_int_eq(prop_transport_symlink(T, "/etc/hostname", P("l")), PROP_OK);
    ck_assert_int_eq(prop_transport_stat(T, P("l"), &st), PROP_OK);
    ck_assert_int_eq(st.type, PROP_FT_LINK);
    ck_assert_str_eq(st.target, "/etc/hostname");
    /* Replaced in place. */
    ck_assert_int_eq(prop_transport_symlink(T, "other", P("l")), PROP_OK);
    ck_assert_int_eq(prop_transport_stat(T, P("l"), &st), PROP_OK);
    ck_assert_str_eq(st.target, "other");
    /* A file becomes a link. */
    puts_file(P("f"), "x");
    ck_assert_int_eq(prop_transport_symlink(T, "l", P("f")), PROP_OK);
    ck_assert_int_eq(prop_transport_stat(T, P("f"), &st), PROP_OK);
    ck_assert_int_eq(st.type, PROP_FT_LINK);
    /* Not over a directory; not without a parent. */
    mkdirs(P("dir"));
    ck_assert_int_eq(prop_transport_symlink(T, "x", P("dir")), PROP_ERROR);
    ck_assert_int_eq(prop_transport_stat(T, P("dir"), &st), PROP_OK);
    ck_assert_int_eq(st.type, PROP_FT_DIR);
    ck_assert_int_eq(prop_transport_symlink(T, "x", P("nodir/l")), PROP_ERROR);
    ck_assert_ptr_nonnull(strstr(prop_transport_error(T), "does not exist"));
    ck_assert_int_eq(prop_transport_symlink(T, "", P("l2")), PROP_ERROR);
    ck_assert_int_eq(leftovers(D), 0);
}
END_TEST

START_TEST(test_chattr)
{
    prop_file_attrs mode = {0700, NULL, NULL}, owner = {-1, "1234", NULL};
    prop_file_attrs group = {-1, NULL, "2345"}, unknown = {0600, "prop-no-such-user", NULL};
    prop_file_attrs bad = {-5, NULL, NULL};
    prop_file_stat st;

    puts_file(P("f"), "x");
    ck_assert_int_eq(chmod(P("f"), 0644), 0);
    ck_assert_int_eq(prop_transport_chattr(T, P("f"), &mode), PROP_OK);
    ck_assert_int_eq(prop_transport_stat(T, P("f"), &st), PROP_OK);
    ck_assert_uint_eq(st.mode, 0700);
    ck_assert_int_eq(prop_transport_chattr(T, P("f"), &unknown), PROP_ERROR);
    ck_assert_ptr_nonnull(strstr(prop_transport_error(T), "prop-no-such-user"));
    ck_assert_int_eq(prop_transport_stat(T, P("f"), &st), PROP_OK);
    ck_assert_uint_eq(st.mode, 0700); /* unchanged */
    ck_assert_int_eq(prop_transport_chattr(T, P("f"), &bad), PROP_ERROR);
    ck_assert_int_eq(prop_transport_chattr(T, P("missing"), &mode), PROP_ENOTFOUND);
    if (!is_root())
        return;
    ck_assert_int_eq(prop_transport_chattr(T, P("f"), &owner), PROP_OK);
    ck_assert_int_eq(prop_transport_stat(T, P("f"), &st), PROP_OK);
    ck_assert_uint_eq(st.uid, 1234);
    ck_assert_uint_eq(st.gid, 0);
    ck_assert_uint_eq(st.mode, 0700);
    ck_assert_int_eq(prop_transport_chattr(T, P("f"), &group), PROP_OK);
    ck_assert_int_eq(prop_transport_stat(T, P("f"), &st), PROP_OK);
    ck_assert_uint_eq(st.uid, 1234);
    ck_assert_uint_eq(st.gid, 2345);
}
END_TEST

/* ---- the tree transport ---- */

static prop_transport *
open_dir(const char *root)
{
    prop_transport *t = NULL;

    ck_assert_int_eq(prop_transport_dir(&t, root), PROP_OK);
    ck_assert_ptr_nonnull(t);
    return t;
}

START_TEST(test_dir_bad_root)
{
    prop_transport *t = NULL;
    prop_cmd_result r;
    char *data = NULL;
    size_t len;

    ck_assert_int_eq(prop_transport_dir(&t, P("missing")), PROP_ERROR);
    ck_assert_ptr_nonnull(t); /* for the message */
    ck_assert_ptr_nonnull(strstr(prop_transport_error(t), P("missing")));
    /* Every call fails; nothing happens on this machine. */
    ck_assert_int_eq(prop_transport_write(t, P("x"), "x", 1, NULL), PROP_ERROR);
    ck_assert(!exists(P("x")));
    ck_assert_int_eq(prop_transport_read(t, "/etc/hostname", &data, &len), PROP_ERROR);
    ck_assert_int_eq(RUN(t, &r, "true"), PROP_ERROR);
    ck_assert_int_eq(prop_transport_lock(t), PROP_ERROR);
    prop_transport_close(t);

    puts_file(P("file"), "x");
    ck_assert_int_eq(prop_transport_dir(&t, P("file")), PROP_ERROR);
    ck_assert_ptr_nonnull(strstr(prop_transport_error(t), "not a directory"));
    prop_transport_close(t);
}
END_TEST

START_TEST(test_dir_paths)
{
    prop_transport *t;
    prop_file_stat st;
    char *data = NULL;
    size_t len;

    mkdirs(P("root"));
    t = open_dir(P("root"));
    ck_assert_int_eq(prop_transport_mkdir(t, "/etc", NULL), PROP_OK);
    ck_assert_int_eq(prop_transport_write(t, "/etc/motd", "hi\n", 3, NULL), PROP_OK);
    expect_file(P("root/etc/motd"), "hi\n");
    ck_assert_int_eq(prop_transport_read(t, "//etc/./motd", &data, &len), PROP_OK);
    ck_assert_str_eq(data, "hi\n");
    free(data);
    ck_assert_int_eq(prop_transport_stat(t, "/", &st), PROP_OK);
    ck_assert_int_eq(st.type, PROP_FT_DIR);

    /* Relative paths, "..", the root itself. */
    ck_assert_int_eq(prop_transport_write(t, "etc/x", "x", 1, NULL), PROP_ERROR);
    ck_assert_ptr_nonnull(strstr(prop_transport_error(t), "absolute"));
    ck_assert_int_eq(prop_transport_write(t, "/../x", "x", 1, NULL), PROP_ERROR);
    ck_assert_ptr_nonnull(strstr(prop_transport_error(t), ".."));
    ck_assert_int_eq(prop_transport_write(t, "/etc/../../x", "x", 1, NULL), PROP_ERROR);
    ck_assert_int_eq(prop_transport_read(t, "/etc/..", &data, &len), PROP_ERROR);
    ck_assert(!exists(P("x")));
    ck_assert_int_eq(prop_transport_write(t, "/", "x", 1, NULL), PROP_ERROR);
    ck_assert_int_eq(prop_transport_remove(t, "/"), PROP_ERROR);
    ck_assert_ptr_nonnull(strstr(prop_transport_error(t), "root"));
    ck_assert_int_eq(prop_transport_symlink(t, "x", "/"), PROP_ERROR);
    ck_assert_int_eq(prop_transport_stat(t, "/", &st), PROP_OK);
    ck_assert_int_eq(prop_transport_remove(t, "/etc/motd"), PROP_OK);
    ck_assert(!exists(P("root/etc/motd")));
    ck_assert_int_eq(prop_transport_remove(t, "/etc/motd"), PROP_ENOTFOUND);
    prop_transport_close(t);
}
END_TEST

/*
 * Directory syncs are grouped: each changed directory is synced once, by
 * prop_transport_sync() or before a command; a failure names it.
 */
START_TEST(test_sync_groups_dirs)
{
    prop_transport *t;
    prop_cmd_result r;

    ck_assert_int_eq(prop_transport_sync(NULL), PROP_EINVAL);
    mkdirs(P("root"));
    t = open_dir(P("root"));
    ck_assert_int_eq(prop_transport_sync(t), PROP_OK); /* nothing yet */
    ck_assert_int_eq(prop_transport_mkdir(t, "/a", NULL), PROP_OK);
    ck_assert_int_eq(prop_transport_mkdir(t, "/b", NULL), PROP_OK);
    ck_assert_int_eq(prop_transport_write(t, "/a/1", "1", 1, NULL), PROP_OK);
    ck_assert_int_eq(prop_transport_write(t, "/a/2", "2", 1, NULL), PROP_OK);
    ck_assert_int_eq(prop_transport_symlink(t, "1", "/b/l"), PROP_OK);
    ck_assert_int_eq(prop_transport_sync(t), PROP_OK);
    expect_file(P("root/a/2"), "2");

    /* A directory gone before its sync: the sync says which, once. */
    ck_assert_int_eq(prop_transport_write(t, "/a/3", "3", 1, NULL), PROP_OK);
    ck_assert_int_eq(prop_transport_remove(t, "/b/l"), PROP_OK);
    ck_assert_int_eq(rename(P("root/a"), P("root/moved")), 0);
    ck_assert_int_eq(prop_transport_sync(t), PROP_ERROR);
    ck_assert_ptr_nonnull(strstr(prop_transport_error(t), "sync /a: "));
    ck_assert_int_eq(prop_transport_sync(t), PROP_OK);
    expect_file(P("root/moved/3"), "3");

    /* Directories removed through the transport, nested: nothing to say. */
    ck_assert_int_eq(prop_transport_mkdir(t, "/d", NULL), PROP_OK);
    ck_assert_int_eq(prop_transport_mkdir(t, "/d/e", NULL), PROP_OK);
    ck_assert_int_eq(prop_transport_write(t, "/d/e/f", "f", 1, NULL), PROP_OK);
    ck_assert_int_eq(prop_transport_sync(t), PROP_OK);
    ck_assert_int_eq(prop_transport_remove(t, "/d/e/f"), PROP_OK);
    ck_assert_int_eq(prop_transport_remove(t, "/d/e"), PROP_OK);
    ck_assert_int_eq(prop_transport_remove(t, "/d"), PROP_OK);
    ck_assert_int_eq(prop_transport_sync(t), PROP_OK);
    ck_assert_int_eq(access(P("root/d"), F_OK), -1);

    /* A directory replaced by a file through the transport: the same. */
    ck_assert_int_eq(prop_transport_mkdir(t, "/r", NULL), PROP_OK);
    ck_assert_int_eq(prop_transport_sync(t), PROP_OK);
    ck_assert_int_eq(prop_transport_write(t, "/r/x", "x", 1, NULL), PROP_OK);
    ck_assert_int_eq(prop_transport_remove(t, "/r/x"), PROP_OK);
    ck_assert_int_eq(prop_transport_remove(t, "/r"), PROP_OK);
    ck_assert_int_eq(prop_transport_write(t, "/r", "file", 4, NULL), PROP_OK);
    ck_assert_int_eq(prop_transport_sync(t), PROP_OK);
    expect_file(P("root/r"), "file");

    /* Written through a link to a directory: the directory is synced. */
    ck_assert_int_eq(prop_transport_mkdir(t, "/real", NULL), PROP_OK);
    ck_assert_int_eq(prop_transport_symlink(t, "real", "/lnk"), PROP_OK);
    ck_assert_int_eq(prop_transport_sync(t), PROP_OK);
    ck_assert_int_eq(prop_transport_write(t, "/lnk/f", "f", 1, NULL), PROP_OK);
    ck_assert_int_eq(prop_transport_sync(t), PROP_OK);
    expect_file(P("root/real/f"), "f");

    /* Gone behind prop's back under a directory prop did not touch, though
     * one further up is in the set: a failure naming it. */
    ck_assert_int_eq(prop_transport_mkdir(t, "/p", NULL), PROP_OK);
    ck_assert_int_eq(prop_transport_mkdir(t, "/p/q", NULL), PROP_OK);
    ck_assert_int_eq(prop_transport_mkdir(t, "/p/q/s", NULL), PROP_OK);
    ck_assert_int_eq(prop_transport_sync(t), PROP_OK);
    ck_assert_int_eq(prop_transport_write(t, "/p/q/s/x", "x", 1, NULL), PROP_OK);
    ck_assert_int_eq(prop_transport_write(t, "/p/y", "y", 1, NULL), PROP_OK);
    ck_assert_int_eq(rename(P("root/p/q/s"), P("root/moved-s")), 0);
    ck_assert_int_eq(prop_transport_sync(t), PROP_ERROR);
    ck_assert_ptr_nonnull(strstr(prop_transport_error(t), "sync /p/q/s: "));
    expect_file(P("root/moved-s/x"), "x");
    prop_transport_close(t);

    /* This machine: a command does not start before the sync. */
    mkdirs(P("s"));
    ck_assert_int_eq(prop_transport_write(T, P("s/f"), "f", 1, NULL), PROP_OK);
    ck_assert_int_eq(rename(P("s"), P("s2")), 0);
    ck_assert_int_eq(RUN(T, &r, "true"), PROP_ERROR);
    ck_assert_ptr_nonnull(strstr(prop_transport_error(T), "run true: not started: sync "));
    ck_assert_ptr_nonnull(strstr(prop_transport_error(T), P("s")));
    prop_cmd_result_clear(&r);
    ck_assert_int_eq(RUN(T, &r, "true"), PROP_OK);
    ck_assert_int_eq(r.code, 0);
    prop_cmd_result_clear(&r);
    /* Closing with a directory to sync is quiet. */
    ck_assert_int_eq(prop_transport_write(T, P("s2/g"), "g", 1, NULL), PROP_OK);
}
END_TEST

START_TEST(test_dir_links_stay_inside)
{
    prop_transport *t;
    prop_file_attrs mode = {0600, NULL, NULL};
    prop_file_stat st;
    char *data = NULL;
    size_t len;
    struct stat hs;

    mkdirs(P("root/etc"));
    mkdirs(P("outside"));
    puts_file(P("outside/secret"), "secret");
    ck_assert_int_eq(chmod(P("outside/secret"), 0644), 0);
    /* Absolute links into the host, a relative one climbing out. */
    ck_assert_int_eq(symlink(P("outside"), P("root/abs")), 0);
    ck_assert_int_eq(symlink(P("outside/secret"), P("root/s")), 0);
    ck_assert_int_eq(symlink("../../outside", P("root/etc/rel")), 0);
    t = open_dir(P("root"));

    ck_assert_int_eq(prop_transport_write(t, "/abs/x", "x", 1, NULL), PROP_ERROR);
    ck_assert(!exists(P("outside/x")));
    ck_assert_int_eq(prop_transport_write(t, "/etc/rel/x", "x", 1, NULL), PROP_ERROR);
    ck_assert(!exists(P("outside/x")));
    ck_assert_int_eq(prop_transport_read(t, "/abs/secret", &data, &len), PROP_ENOTFOUND);
    ck_assert_int_eq(prop_transport_read(t, "/s", &data, &len), PROP_ENOTFOUND);
    ck_assert_ptr_null(data);
    ck_assert_int_eq(prop_transport_chattr(t, "/s", &mode), PROP_ENOTFOUND);
    ck_assert_int_eq(prop_transport_mkdir(t, "/abs/d", NULL), PROP_ERROR);
    ck_assert(!exists(P("outside/d")));
    ck_assert_int_eq(prop_transport_symlink(t, "x", "/abs/l"), PROP_ERROR);
    ck_assert(!exists(P("outside/l")));
    ck_assert_int_eq(stat(P("outside/secret"), &hs), 0);
    ck_assert_uint_eq(hs.st_mode & 07777, 0644);

    /* The same links resolve inside the tree, as in a chroot. */
    mkdirs(P("root/outside"));
    ck_assert_int_eq(prop_transport_write(t, "/etc/rel/x", "in", 2, NULL), PROP_OK);
    expect_file(P("root/outside/x"), "in");
    ck_assert(!exists(P("outside/x")));
    {
        /* root/<D>/outside: what the absolute link names inside the tree */
        char inside[PATH_MAX + 300];

        snprintf(inside, sizeof inside, "%s%s", P("root"), P("outside"));
        mkdirs(inside);
        ck_assert_int_eq(prop_transport_write(t, "/abs/y", "y", 1, NULL), PROP_OK);
        strcat(inside, "/y");
        expect_file(inside, "y");
        ck_assert(!exists(P("outside/y")));
    }
    puts_file(P("root/etc/real"), "real");
    ck_assert_int_eq(symlink("/etc/real", P("root/etc/alt")), 0);
    ck_assert_int_eq(prop_transport_read(t, "/etc/alt", &data, &len), PROP_OK);
    ck_assert_str_eq(data, "real");
    free(data);
    /* Writing through a link name replaces the link, inside the tree. */
    ck_assert_int_eq(prop_transport_write(t, "/s", "new", 3, NULL), PROP_OK);
    expect_file(P("outside/secret"), "secret");
    ck_assert_int_eq(prop_transport_stat(t, "/s", &st), PROP_OK);
    ck_assert_int_eq(st.type, PROP_FT_FILE);
    /* Links the tree's own symlink() makes are stored as given. */
    ck_assert_int_eq(prop_transport_symlink(t, "/etc/passwd", "/pw"), PROP_OK);
    ck_assert_int_eq(prop_transport_stat(t, "/pw", &st), PROP_OK);
    ck_assert_str_eq(st.target, "/etc/passwd");
    /* A loop. */
    ck_assert_int_eq(symlink("loop", P("root/loop")), 0);
    ck_assert_int_eq(prop_transport_read(t, "/loop", &data, &len), PROP_ERROR);
    ck_assert_ptr_nonnull(strstr(prop_transport_error(t), "symbolic links"));
    prop_transport_close(t);
}
END_TEST

START_TEST(test_dir_user_database)
{
    prop_transport *t;
    prop_file_attrs alice = {0640, "alice", "staff"}, host_only = {-1, "daemon", NULL};
    prop_file_attrs num = {-1, "1501", "1601"};
    prop_file_stat st;

    mkdirs(P("root/etc"));
    puts_file(P("root/etc/passwd"), "root:x:0:0:root:/root:/bin/sh\n"
                                    "# comment\n"
                                    "broken line\n"
                                    "alice:x:1500:1600:Alice:/home/alice:/bin/sh\n");
    puts_file(P("root/etc/group"), "root:x:0:\nstaff:x:1600:alice\n");
    t = open_dir(P("root"));
    /* A name only the host knows is unknown in the tree. */
    ck_assert_int_eq(prop_transport_write(t, "/f", "x", 1, &host_only), PROP_ERROR);
    ck_assert_ptr_nonnull(strstr(prop_transport_error(t), "unknown user \"daemon\""));
    ck_assert(!exists(P("root/f")));
    if (is_root()) {
        ck_assert_int_eq(prop_transport_write(t, "/f", "x", 1, &alice), PROP_OK);
        ck_assert_int_eq(prop_transport_stat(t, "/f", &st), PROP_OK);
        ck_assert_uint_eq(st.uid, 1500);
        ck_assert_uint_eq(st.gid, 1600);
        ck_assert_str_eq(st.owner, "alice");
        ck_assert_str_eq(st.group, "staff");
        ck_assert_uint_eq(st.mode, 0640);
        ck_assert_int_eq(prop_transport_chattr(t, "/f", &num), PROP_OK);
        ck_assert_int_eq(prop_transport_stat(t, "/f", &st), PROP_OK);
        ck_assert_str_eq(st.owner, "1501");
        ck_assert_str_eq(st.group, "1601");
        ck_assert_int_eq(prop_transport_stat(t, "/etc", &st), PROP_OK);
        ck_assert_str_eq(st.owner, "root");
    }
    /* Without an /etc/passwd, ids show as numbers. */
    ck_assert_int_eq(unlink(P("root/etc/passwd")), 0);
    ck_assert_int_eq(prop_transport_stat(t, "/etc", &st), PROP_OK);
    {
        char want[32];

        snprintf(want, sizeof want, "%lu", (unsigned long)geteuid());
        ck_assert_str_eq(st.owner, want);
    }
    prop_transport_close(t);
}
END_TEST

/* Copy a host file into the tree at the same path, executable. */
static void
copy_in(const char *root, const char *path)
{
    char *data = NULL, dst[PATH_MAX + 300], dir[PATH_MAX + 300], *slash;
    size_t len = 0;
    prop_file_attrs x = {0755, NULL, NULL};

    ck_assert_int_eq(prop_transport_read(T, path, &data, &len), PROP_OK);
    snprintf(dst, sizeof dst, "%s%s", root, path);
    strcpy(dir, dst);
    slash = strrchr(dir, '/');
    *slash = '\0';
    mkdirs(dir);
    ck_assert_int_eq(prop_transport_write(T, dst, data, len, &x), PROP_OK);
    free(data);
}

START_TEST(test_dir_refuses_commands)
{
    prop_transport *t;
    prop_cmd_result r;
    char *p, *line;

    /* A tiny system: /bin/sh and the libraries it needs.  Even so, a tree
     * is files only: a command there would share this machine's kernel,
     * network and processes. */
    mkdirs(P("sys"));
    ck_assert_int_eq(RUN(T, &r, "ldd", "/bin/sh"), PROP_OK);
    ck_assert_int_eq(r.code, 0);
    copy_in(P("sys"), "/bin/sh");
    for (line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
        p = strchr(line, '/');
        if (p && strchr(p, ' ')) {
            *strchr(p, ' ') = '\0';
            copy_in(P("sys"), p);
        }
    }
    prop_cmd_result_clear(&r);

    t = open_dir(P("sys"));
    ck_assert_int_eq(RUN(t, &r, "sh", "-c", "echo ran >/ran"), PROP_ERROR);
    ck_assert_int_eq(r.code, -1);
    ck_assert_ptr_nonnull(strstr(prop_transport_error(t), "files only"));
    ck_assert_ptr_nonnull(strstr(prop_transport_error(t), "chroot.debootstrapped"));
    ck_assert_int_ne(access(P("sys/ran"), F_OK), 0);
    prop_cmd_result_clear(&r);
    {
        const char *argv[] = {"true", NULL};

        ck_assert_int_eq(prop_transport_query(t, argv, NULL, 0, &r), PROP_ERROR);
        prop_cmd_result_clear(&r);
    }
    prop_transport_close(t);
}
END_TEST

/* ---- the run lock ---- */

START_TEST(test_lock_dir)
{
    prop_transport *a, *b, *c;
    char pid[64];

    mkdirs(P("root"));
    mkdirs(P("other"));
    a = open_dir(P("root"));
    b = open_dir(P("root"));
    c = open_dir(P("other"));
    ck_assert_int_eq(prop_transport_lock(a), PROP_OK);
    ck_assert_int_eq(prop_transport_lock(a), PROP_OK); /* held already */
    ck_assert_int_eq(prop_transport_lock(b), PROP_ERROR);
    snprintf(pid, sizeof pid, "(pid %ld since 20", (long)getpid());
    ck_assert_ptr_nonnull(strstr(prop_transport_error(b), "another prop run holds the lock "));
    ck_assert_ptr_nonnull(strstr(prop_transport_error(b), pid));
    ck_assert_ptr_nonnull(strstr(prop_transport_error(b), "prop-dir-"));
    ck_assert_ptr_null(strstr(prop_transport_error(b), D)); /* not in the tree */
    ck_assert_int_eq(entries(P("root")), 0);
    /* Another tree has its own lock. */
    ck_assert_int_eq(prop_transport_lock(c), PROP_OK);
    prop_transport_close(a);
    ck_assert_int_eq(prop_transport_lock(b), PROP_OK);
    prop_transport_close(b);
    prop_transport_close(c);
}
END_TEST

START_TEST(test_lock_other_process)
{
    prop_transport *t;
    int p[2], status;
    char c, want[64];
    pid_t pid;

    mkdirs(P("root"));
    ck_assert_int_eq(pipe(p), 0);
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        prop_transport *held;

        if (prop_transport_dir(&held, P("root")) != PROP_OK || prop_transport_lock(held) != 0 ||
            write(p[1], "x", 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    ck_assert_int_eq(read(p[0], &c, 1), 1);
    t = open_dir(P("root"));
    ck_assert_int_eq(prop_transport_lock(t), PROP_ERROR);
    snprintf(want, sizeof want, "(pid %ld since ", (long)pid);
    ck_assert_ptr_nonnull(strstr(prop_transport_error(t), want));
    ck_assert_int_eq(kill(pid, SIGKILL), 0);
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    /* Gone with its process. */
    ck_assert_int_eq(prop_transport_lock(t), PROP_OK);
    prop_transport_close(t);
    ck_assert_int_eq(close(p[0]), 0);
    ck_assert_int_eq(close(p[1]), 0);
}
END_TEST

START_TEST(test_lock_local)
{
    prop_transport *a, *b;
    char pid[64];

    ck_assert_int_eq(prop_transport_local(&a), PROP_OK);
    ck_assert_int_eq(prop_transport_local(&b), PROP_OK);
    if (prop_transport_lock(a) != PROP_OK) {
        /* A real prop run holds this machine's lock now: say so and check the message. */
        ck_assert_ptr_nonnull(strstr(prop_transport_error(a), "another prop run holds the lock"));
        fprintf(stderr, "test_lock_local: %s\n", prop_transport_error(a));
    } else {
        ck_assert_int_eq(prop_transport_lock(b), PROP_ERROR);
        snprintf(pid, sizeof pid, "(pid %ld since ", (long)getpid());
        ck_assert_ptr_nonnull(strstr(prop_transport_error(b), pid));
        if (is_root())
            ck_assert_ptr_nonnull(strstr(prop_transport_error(b), "/run/lock/prop.lock"));
    }
    prop_transport_close(a);
    prop_transport_close(b);
}
END_TEST

static Suite *
transport_suite(void)
{
    Suite *s = suite_create("transport");
    TCase *tc;

    tc = tcase_create("run");
    tcase_add_unchecked_fixture(tc, base_setup, base_teardown);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_names);
    tcase_add_test(tc, test_run_output_and_code);
    tcase_add_test(tc, test_run_no_shell);
    tcase_add_test(tc, test_run_stdin);
    tcase_add_test(tc, test_run_signals);
    tcase_add_test(tc, test_run_missing_program);
    tcase_add_test(tc, test_run_big_streams);
    tcase_add_test(tc, test_run_environment);
    tcase_add_test(tc, test_run_closes_fds);
    tcase_add_test(tc, test_run_bad_args);
    tcase_add_test(tc, test_run_interrupted);
    tcase_add_test(tc, test_run_interrupted_grace);
    tcase_add_test(tc, test_run_interrupted_twice);
    tcase_add_test(tc, test_run_interrupted_signal);
    tcase_add_test(tc, test_run_interrupted_group_left);
    suite_add_tcase(s, tc);

    tc = tcase_create("files");
    tcase_add_unchecked_fixture(tc, base_setup, base_teardown);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_read_write);
    tcase_add_test(tc, test_read_write_big);
    tcase_add_test(tc, test_write_keeps_mode_and_owner);
    tcase_add_test(tc, test_write_owner_by_name_and_number);
    tcase_add_test(tc, test_write_failures_keep_old);
    tcase_add_test(tc, test_write_replaces_link);
    tcase_add_test(tc, test_write_atomic_under_kill);
    tcase_add_test(tc, test_write_removes_stale);
    tcase_add_test(tc, test_stat);
    tcase_add_test(tc, test_remove);
    tcase_add_test(tc, test_mkdir);
    tcase_add_test(tc, test_symlink);
    tcase_add_test(tc, test_chattr);
    suite_add_tcase(s, tc);

    tc = tcase_create("dir");
    tcase_add_unchecked_fixture(tc, base_setup, base_teardown);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_dir_bad_root);
    tcase_add_test(tc, test_dir_paths);
    tcase_add_test(tc, test_sync_groups_dirs);
    tcase_add_test(tc, test_dir_links_stay_inside);
    tcase_add_test(tc, test_dir_user_database);
    tcase_add_test(tc, test_dir_refuses_commands);
    suite_add_tcase(s, tc);

    tc = tcase_create("lock");
    tcase_add_unchecked_fixture(tc, base_setup, base_teardown);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_lock_dir);
    tcase_add_test(tc, test_lock_other_process);
    tcase_add_test(tc, test_lock_local);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    return run_suite(transport_suite());
}
