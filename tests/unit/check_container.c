/*
 * check_container.c - the container transport (transport_container.c)
 * on a real chroot: a small system made of this machine's own programs
 * and libraries in a temporary directory, entered through the local
 * transport with unshare and chroot.  Commands, missing programs, every
 * file operation (checked from outside the tree), binary and large data,
 * no process outliving its command, an interruption that stops the
 * command at once, nothing mounted left behind, and a container that
 * cannot be entered.  And the same tree as a systemd-nspawn machine whose
 * init is a stand-in: entered when the stand-in is root's and runs in the
 * tree, refused when it is another user's or runs elsewhere.
 *
 * Needs root (unshare, chroot); as another user it checks nothing and
 * says so.
 */
#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prop/transport.h"
#include "unit.h"

static prop_transport *L; /* this machine */
static prop_transport *C; /* the chroot */
static char D[PATH_MAX];  /* the tree */
static int root_ok;

static const char *
P(const char *rel)
{
    static char ring[8][PATH_MAX + 256];
    static unsigned next;
    char *b = ring[next++ % 8];

    snprintf(b, sizeof ring[0], "%s%s", D, rel);
    return b;
}

/* Run argv on this machine; its exit code. */
static int
sh_here(const char *script)
{
    const char *argv[] = {"sh", "-c", script, "sh", D, NULL};
    prop_cmd_result r;
    int code;

    ck_assert_int_eq(prop_transport_run(L, argv, NULL, 0, &r), PROP_OK);
    code = r.code;
    if (code != 0)
        fprintf(stderr, "%s: %s", script, r.err);
    prop_cmd_result_clear(&r);
    return code;
}

/* Copy programs and the libraries they need into the tree ("$1"). */
static const char make_tree[] =
    "set -e\n"
    "t=$1\n"
    "mkdir -p \"$t/bin\" \"$t/etc\" \"$t/proc\" \"$t/dev\" \"$t/tmp\" \"$t/srv\"\n"
    "for p in sh cat stat mktemp mv chmod chown chgrp sync wc id rm rmdir mkdir ln readlink "
    "uname sleep ls true; do\n"
    "  for d in /usr/bin /bin /usr/sbin /sbin; do [ -x \"$d/$p\" ] && f=$d/$p && break; done\n"
    "  cp -L \"$f\" \"$t/bin/$p\"\n"
    "  ldd \"$f\" | grep -oE '/[^ ]+' | while read -r lib; do\n"
    "    mkdir -p \"$t$(dirname \"$lib\")\"; cp -Ln \"$lib\" \"$t$lib\"\n"
    "  done\n"
    "done\n"
    "printf 'root:x:0:0:root:/root:/bin/sh\\nsvc:x:4242:4242::/:/bin/sh\\n' >\"$t/etc/passwd\"\n"
    "printf 'root:x:0:\\nsvc:x:4242:\\n' >\"$t/etc/group\"\n";

static int
rm_entry(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(p);
}

static void
setup(void)
{
    char tmpl[] = "/tmp/prop-check-container.XXXXXX";

    root_ok = geteuid() == 0;
    ck_assert_int_eq(prop_transport_local(&L), PROP_OK);
    ck_assert_ptr_nonnull(mkdtemp(tmpl));
    ck_assert_ptr_nonnull(realpath(tmpl, D));
    ck_assert_int_eq(chmod(D, 0755), 0);
    if (!root_ok) {
        fprintf(stderr, "check_container: not root: the chroot is not tried\n");
        return;
    }
    ck_assert_int_eq(sh_here(make_tree), 0);
    ck_assert_int_eq(prop_transport_chroot(&C, L, D, "test"), PROP_OK);
}

static void
teardown(void)
{
    prop_transport_close(C);
    C = NULL;
    /* Nothing may be mounted below the tree any more. */
    if (root_ok)
        ck_assert_int_eq(sh_here("! grep -qF \" $1/\" /proc/self/mounts"), 0);
    (void)nftw(D, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    prop_transport_close(L);
    L = NULL;
}

static int
run(prop_transport *t, prop_cmd_result *r, const char *in, size_t inlen, const char *a0, ...)
{
    const char *argv[16];
    va_list ap;
    size_t n = 0;

    argv[n++] = a0;
    va_start(ap, a0);
    while (n < 15 && (argv[n] = va_arg(ap, const char *)) != NULL)
        n++;
    va_end(ap);
    argv[n] = NULL;
    return prop_transport_run(t, argv, in, inlen, r);
}
#define RUN(t, r, ...) run(t, r, NULL, 0, __VA_ARGS__, (const char *)NULL)

START_TEST(test_commands)
{
    prop_cmd_result r;

    if (!root_ok)
        return;
    /* Inside: only the tree, in "/", the C locale, a standard PATH. */
    ck_assert_int_eq(RUN(C, &r, "sh", "-c", "pwd; echo \"$LC_ALL\"; ls /; echo err >&2; exit 3"),
                     PROP_OK);
    ck_assert_int_eq(r.code, 3);
    ck_assert_int_eq(strncmp(r.out, "/\nC\nbin\ndev\netc\n", 15), 0);
    ck_assert_ptr_nonnull(strstr(r.out, "\nsrv\ntmp\n"));
    ck_assert_ptr_null(strstr(r.out, "\nhome\n"));
    ck_assert_ptr_null(strstr(r.out, "\nroot\n"));
    ck_assert_str_eq(r.err, "err\n");
    prop_cmd_result_clear(&r);
    /* Words are never parsed by a shell. */
    ck_assert_int_eq(RUN(C, &r, "sh", "-c", "printf '%s|' \"$@\"", "sh", "a b", "$(id)", "'\";"),
                     PROP_OK);
    ck_assert_str_eq(r.out, "a b|$(id)|'\";|");
    prop_cmd_result_clear(&r);
    /* Standard input. */
    ck_assert_int_eq(run(C, &r, "one\ntwo\n", 8, "wc", "-l", (const char *)NULL), PROP_OK);
    ck_assert_str_eq(r.out, "2\n");
    prop_cmd_result_clear(&r);
    /* /proc is the container's own: its shell is PID 1 there. */
    ck_assert_int_eq(RUN(C, &r, "sh", "-c", "cat /proc/1/comm"), PROP_OK);
    ck_assert_int_eq(r.code, 0);
    ck_assert_str_ne(r.out, "");
    prop_cmd_result_clear(&r);
    /* A program the tree does not have: the host's is never used. */
    ck_assert_int_eq(RUN(C, &r, "dpkg-query", "-W"), PROP_ERROR);
    ck_assert_int_eq(r.code, -1);
    ck_assert_str_eq(prop_transport_error(C), "dpkg-query: command not found");
    prop_cmd_result_clear(&r);
}
END_TEST

START_TEST(test_nothing_outlives_a_command)
{
    prop_cmd_result r;

    if (!root_ok)
        return;
    /* A "daemon": started in the background, the command returns. */
    ck_assert_int_eq(RUN(C, &r, "sh", "-c", "sleep 3171 </dev/null >/dev/null 2>&1 & echo started"),
                     PROP_OK);
    ck_assert_str_eq(r.out, "started\n");
    prop_cmd_result_clear(&r);
    /* It ended with the namespace. */
    ck_assert_int_eq(sh_here("sleep 0.2; ! pgrep -f '^sleep 3171$' >/dev/null"), 0);
}
END_TEST

START_TEST(test_files)
{
    prop_file_attrs a = {0600, "svc", "svc"};
    prop_file_stat st;
    char *data;
    size_t len;
    struct stat hs;

    /* _i 0: the chroot as prop opens it on this machine (its files
     * through the tree); 1: the same tree through a shell inside, as
     * through any other parent. */
    const char *enter[] = {"chroot", D, NULL};
    prop_transport *tr = NULL;

    if (!root_ok)
        return;
    if (_i == 0)
        tr = C;
    else
        ck_assert_int_eq(prop_transport_container(&tr, L, enter, "test by shell"), PROP_OK);
    ck_assert_int_eq(prop_transport_mkdir(tr, "/srv/app", NULL), PROP_OK);
    ck_assert_int_eq(stat(P("/srv/app"), &hs), 0);
    ck_assert(S_ISDIR(hs.st_mode));
    ck_assert_uint_eq(hs.st_mode & 07777u, 0755);

    /* Owners are the tree's names: svc is 4242 there (not on the host). */
    ck_assert_int_eq(prop_transport_write(tr, "/srv/app/conf", "x=1\n", 4, &a), PROP_OK);
    ck_assert_int_eq(stat(P("/srv/app/conf"), &hs), 0);
    ck_assert_uint_eq(hs.st_mode & 07777u, 0600);
    ck_assert_uint_eq(hs.st_uid, 4242);
    ck_assert_int_eq(prop_transport_stat(tr, "/srv/app/conf", &st), PROP_OK);
    ck_assert_int_eq(st.type, PROP_FT_FILE);
    ck_assert_uint_eq(st.mode, 0600);
    ck_assert_str_eq(st.owner, "svc");
    ck_assert_int_eq(st.size, 4);
    ck_assert_int_eq(prop_transport_read(tr, "/srv/app/conf", &data, &len), PROP_OK);
    ck_assert_uint_eq(len, 4);
    ck_assert_str_eq(data, "x=1\n");
    free(data);

    /* An existing file keeps its mode and owner. */
    ck_assert_int_eq(prop_transport_write(tr, "/srv/app/conf", "x=2\n", 4, NULL), PROP_OK);
    ck_assert_int_eq(stat(P("/srv/app/conf"), &hs), 0);
    ck_assert_uint_eq(hs.st_mode & 07777u, 0600);
    ck_assert_uint_eq(hs.st_uid, 4242);

    /* Links are the tree's: an absolute target starts at its root. */
    ck_assert_int_eq(prop_transport_symlink(tr, "/srv/app/conf", "/srv/current"), PROP_OK);
    ck_assert_int_eq(prop_transport_stat(tr, "/srv/current", &st), PROP_OK);
    ck_assert_int_eq(st.type, PROP_FT_LINK);
    ck_assert_str_eq(st.target, "/srv/app/conf");
    ck_assert_int_eq(prop_transport_read(tr, "/srv/current", &data, &len), PROP_OK);
    ck_assert_str_eq(data, "x=2\n");
    free(data);

    {
        prop_file_attrs m = {0640, NULL, "root"};

        ck_assert_int_eq(prop_transport_chattr(tr, "/srv/app/conf", &m), PROP_OK);
        ck_assert_int_eq(stat(P("/srv/app/conf"), &hs), 0);
        ck_assert_uint_eq(hs.st_mode & 07777u, 0640);
        ck_assert_uint_eq(hs.st_gid, 0);
    }

    ck_assert_int_eq(prop_transport_remove(tr, "/srv/current"), PROP_OK);
    ck_assert_int_eq(prop_transport_remove(tr, "/srv/current"), PROP_ENOTFOUND);
    ck_assert_int_eq(prop_transport_stat(tr, "/srv/current", &st), PROP_ENOTFOUND);
    ck_assert_int_eq(prop_transport_read(tr, "/srv/nothing", &data, &len), PROP_ENOTFOUND);
    ck_assert_int_eq(prop_transport_write(tr, "/srv/no/such/dir/f", "x", 1, NULL), PROP_ERROR);
    ck_assert_ptr_nonnull(strstr(prop_transport_error(tr), _i == 0
                                                               ? "/srv/no/such/dir does not exist"
                                                               : "no such directory"));
    ck_assert_int_eq(prop_transport_write(tr, "/srv/app", "x", 1, NULL), PROP_ERROR);
    ck_assert_ptr_nonnull(strstr(prop_transport_error(tr), "is a directory"));
    if (_i == 1)
        prop_transport_close(tr);
}
END_TEST

/*
 * A container entered through its parent's commands takes a prefetch: the
 * stats and contents come in one command and answer stat and read (a
 * change made behind its back is not seen) until a file operation
 * touches them, or a command runs inside.
 */
START_TEST(test_prefetch)
{
    const char *enter[] = {"chroot", D, NULL};
    const char *paths[] = {"/srv/a", "/srv/b", "/srv/missing", "/srv/l", "/srv"};
    const char *truth[] = {"true", NULL};
    prop_transport *tr = NULL;
    prop_cmd_result r;
    prop_file_stat st;
    char *data;
    size_t len;

    if (!root_ok)
        return;
    ck_assert_int_eq(prop_transport_container(&tr, L, enter, "test by shell"), PROP_OK);
    ck_assert_int_eq(prop_transport_write(tr, "/srv/a", "one\n", 4, NULL), PROP_OK);
    ck_assert_int_eq(prop_transport_write(tr, "/srv/b", "b\n", 2, NULL), PROP_OK);
    ck_assert_int_eq(prop_transport_symlink(tr, "/srv/a", "/srv/l"), PROP_OK);
    ck_assert_int_eq(prop_transport_prefetch(tr, paths, 5), PROP_OK);
    /* Behind its back. */
    ck_assert_int_eq(sh_here("printf 'two\\n' >\"$1/srv/a\" && : >\"$1/srv/missing\""), 0);
    ck_assert_int_eq(prop_transport_read(tr, "/srv/a", &data, &len), PROP_OK);
    ck_assert_str_eq(data, "one\n");
    free(data);
    ck_assert_int_eq(prop_transport_stat(tr, "/srv/missing", &st), PROP_ENOTFOUND);
    ck_assert_int_eq(prop_transport_read(tr, "/srv/l", &data, &len), PROP_OK);
    ck_assert_str_eq(data, "one\n"); /* through the link */
    free(data);
    ck_assert_int_eq(prop_transport_stat(tr, "/srv", &st), PROP_OK);
    ck_assert_int_eq(st.type, PROP_FT_DIR);
    /* A write makes stale its path and what links name, nothing else. */
    ck_assert_int_eq(prop_transport_write(tr, "/srv/b", "B\n", 2, NULL), PROP_OK);
    ck_assert_int_eq(prop_transport_read(tr, "/srv/b", &data, &len), PROP_OK);
    ck_assert_str_eq(data, "B\n");
    free(data);
    ck_assert_int_eq(prop_transport_read(tr, "/srv/l", &data, &len), PROP_OK);
    ck_assert_str_eq(data, "two\n");
    free(data);
    ck_assert_int_eq(prop_transport_read(tr, "/srv/a", &data, &len), PROP_OK);
    ck_assert_str_eq(data, "one\n");
    free(data);
    /* A command inside may have changed anything. */
    ck_assert_int_eq(prop_transport_run(tr, truth, NULL, 0, &r), PROP_OK);
    prop_cmd_result_clear(&r);
    ck_assert_int_eq(prop_transport_read(tr, "/srv/a", &data, &len), PROP_OK);
    ck_assert_str_eq(data, "two\n");
    free(data);
    ck_assert_int_eq(prop_transport_stat(tr, "/srv/missing", &st), PROP_OK);
    prop_transport_close(tr);
}
END_TEST

/*
 * An interruption (prop run's SIGINT or SIGTERM) while a command runs in
 * the chroot: the command gets the signal at once, not the SIGKILL of the
 * end of the grace period, and nothing it started is left.
 */
START_TEST(test_interrupted)
{
    prop_cmd_result r;
    double t0;
    int rc;

    if (!root_ok)
        return;
    prop_transport_set_interrupt(L, &STOPS, NULL);
    stop_in_a_second(1);
    t0 = seconds();
    rc = RUN(C, &r, "sh", "-c", "sleep 3172 & echo up >/tmp/up; exec sleep 3173");
    prop_transport_set_interrupt(L, NULL, NULL);
    ck_assert_int_eq(rc, PROP_ERROR);
    ck_assert_msg(strstr(prop_transport_error(C), "interrupted"), "%s", prop_transport_error(C));
    prop_cmd_result_clear(&r);
    ck_assert_int_eq(access(P("/tmp/up"), F_OK), 0); /* it did run */
    /* The signal at 1 s; the SIGKILL would come PROP_INTERRUPT_GRACE_MS later. */
    ck_assert_double_lt(seconds() - t0, 1.0 + PROP_INTERRUPT_GRACE_MS / 2000.0);
    ck_assert_int_eq(sh_here("i=0; while pgrep -f '^sleep 317[23]$' >/dev/null; do\n"
                             "  i=$((i + 1)); [ $i -lt 100 ] || exit 1; sleep 0.1\n"
                             "done"),
                     0);
}
END_TEST

START_TEST(test_binary_and_large)
{
    size_t n = 3u << 20, i, len;
    char *big = malloc(n), *data;

    if (!root_ok) {
        free(big);
        return;
    }
    ck_assert_ptr_nonnull(big);
    for (i = 0; i < n; i++)
        big[i] = (char)(i * 131u + (i >> 9));
    ck_assert_int_eq(prop_transport_write(C, "/srv/blob", big, n, NULL), PROP_OK);
    ck_assert_int_eq(prop_transport_read(C, "/srv/blob", &data, &len), PROP_OK);
    ck_assert_uint_eq(len, n);
    ck_assert_int_eq(memcmp(data, big, n), 0);
    free(data);
    /* Empty and NUL-only content. */
    ck_assert_int_eq(prop_transport_write(C, "/srv/empty", "", 0, NULL), PROP_OK);
    ck_assert_int_eq(prop_transport_read(C, "/srv/empty", &data, &len), PROP_OK);
    ck_assert_uint_eq(len, 0);
    free(data);
    ck_assert_int_eq(prop_transport_write(C, "/srv/nul", "\0\0\n", 3, NULL), PROP_OK);
    ck_assert_int_eq(prop_transport_read(C, "/srv/nul", &data, &len), PROP_OK);
    ck_assert_uint_eq(len, 3);
    ck_assert_int_eq(memcmp(data, "\0\0\n", 3), 0);
    free(data);
    free(big);
}
END_TEST

START_TEST(test_cannot_enter)
{
    prop_transport *t;
    prop_cmd_result r;
    char *data;
    size_t len;

    if (!root_ok)
        return;
    ck_assert_int_eq(prop_transport_chroot(&t, L, "/nonexistent/prop-tree", "gone"), PROP_OK);
    ck_assert_int_eq(RUN(t, &r, "true"), PROP_ERROR);
    ck_assert_ptr_nonnull(strstr(prop_transport_error(t), "could not enter chroot gone"));
    prop_cmd_result_clear(&r);
    ck_assert_int_eq(prop_transport_read(t, "/etc/passwd", &data, &len), PROP_ERROR);
    ck_assert_ptr_nonnull(strstr(prop_transport_error(t), "could not enter"));
    prop_transport_close(t);
    /* Bad arguments. */
    ck_assert_int_eq(prop_transport_chroot(&t, L, "relative", "x"), PROP_EINVAL);
    ck_assert_int_eq(prop_transport_docker(&t, L, "-rm"), PROP_EINVAL);
}
END_TEST

/*
 * A stand-in for a machine's systemd-nspawn: a script of that name run
 * with -D and the tree, whose child sleeps as the machine's init would
 * run, in a mount namespace of its own where /run/systemd/system exists
 * (what says a machine is booted).  who: "root" or "nobody" (uid 65534,
 * which no process of prop's is); in_tree: the child runs chrooted in the
 * tree.  Its pid into *pid; stop_stand_in ends it.
 */
static const char stand_in_script[] = "#!/bin/sh\n"
                                      "if [ \"$PROP_IN_TREE\" = 1 ]; then\n"
                                      "  chroot \"$2\" /bin/sleep 3174 &\n"
                                      "else\n"
                                      "  sleep 3174 &\n"
                                      "fi\n"
                                      "wait\n";

static const char start_stand_in[] =
    "d=$1 f=$2 who=$3 in=$4\n"
    "run=/run; [ \"$in\" = 1 ] && run=$d/run && mkdir -p \"$run\"\n"
    "as=; [ \"$who\" = root ] || as='setpriv --reuid=65534 --regid=65534 --clear-groups --'\n"
    "PROP_IN_TREE=$in unshare -m --propagation private sh -c '\n"
    "  mount -t tmpfs tmpfs \"$1\" && mkdir -p \"$1/systemd/system\" &&\n"
    "  echo \"$2\" >\"$1/prop-marker\" || exit 1\n"
    "  shift 2; exec \"$@\"' sh \"$run\" \"$who's\" $as \"$f/systemd-nspawn\" -D \"$d\" \\\n"
    "  </dev/null >/dev/null 2>&1 &\n"
    "p=$!; echo $p >\"$f/pid\"\n"
    "i=0\n"
    "while :; do\n"
    "  for c in $(cat /proc/$p/task/*/children 2>/dev/null); do\n"
    "    [ -e \"/proc/$c/root/run/prop-marker\" ] && exit 0\n"
    "  done\n"
    "  i=$((i + 1)); [ $i -lt 100 ] || exit 1; sleep 0.1\n"
    "done\n";

static char F[PATH_MAX]; /* the stand-in's directory */

static void
stand_in(const char *who, int in_tree)
{
    const char *argv[] = {"sh", "-c", start_stand_in, "sh", D, F, who, in_tree ? "1" : "0", NULL};
    char tmpl[] = "/tmp/prop-check-nspawn.XXXXXX", path[PATH_MAX + 32];
    prop_cmd_result r;
    FILE *f;

    ck_assert_ptr_nonnull(mkdtemp(tmpl));
    snprintf(F, sizeof F, "%s", tmpl);
    ck_assert_int_eq(chmod(F, 0755), 0);
    snprintf(path, sizeof path, "%s/systemd-nspawn", F);
    ck_assert_ptr_nonnull(f = fopen(path, "w"));
    ck_assert_int_eq(fputs(stand_in_script, f) >= 0, 1);
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_int_eq(chmod(path, 0755), 0);
    ck_assert_int_eq(prop_transport_run(L, argv, NULL, 0, &r), PROP_OK);
    ck_assert_msg(r.code == 0, "the stand-in did not start: %s", r.err);
    prop_cmd_result_clear(&r);
}

static void
stop_stand_in(void)
{
    char path[PATH_MAX + 32];
    pid_t p;

    snprintf(path, sizeof path, "%s/pid", F);
    p = pid_in(path);
    (void)sh("kill $(cat /proc/%ld/task/*/children 2>/dev/null) %ld 2>/dev/null", (long)p, (long)p);
    ck_assert_msg(ended(p), "the stand-in %ld still runs", (long)p);
    (void)nftw(F, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* What `cat /run/prop-marker` gives in the machine: its rc, *out its output
 * or the transport's error (malloc'd). */
static int
in_machine(char **out)
{
    const char *argv[] = {"cat", "/run/prop-marker", NULL};
    prop_transport *t;
    prop_cmd_result r;
    int rc;

    ck_assert_int_eq(prop_transport_nspawn(&t, L, "prop-check-nspawn", D), PROP_OK);
    rc = prop_transport_run(t, argv, NULL, 0, &r);
    *out = strdup(rc == PROP_OK ? r.out : prop_transport_error(t));
    ck_assert_ptr_nonnull(*out);
    prop_cmd_result_clear(&r);
    prop_transport_close(t);
    return rc;
}

/* Root's, its init in the tree: the machine, entered. */
START_TEST(test_nspawn_entered)
{
    char *out;
    int rc;

    if (!root_ok)
        return;
    stand_in("root", 1);
    rc = in_machine(&out);
    stop_stand_in();
    ck_assert_msg(rc == PROP_OK, "%s", out);
    ck_assert_str_eq(out, "root's\n");
    free(out);
}
END_TEST

/*
 * Another user's systemd-nspawn naming the tree: not the machine.  The
 * command runs neither in its namespaces nor in a machine started beside
 * it, and the error says which process and why.
 */
START_TEST(test_nspawn_not_roots)
{
    char *out, want[PATH_MAX + 100];
    int rc;

    if (!root_ok)
        return;
    stand_in("nobody", 0);
    rc = in_machine(&out);
    stop_stand_in();
    ck_assert_msg(rc == PROP_ERROR, "ran in nobody's stand-in: %s", out);
    ck_assert_msg(strstr(out, "could not enter systemd-nspawn machine prop-check-nspawn"), "%s",
                  out);
    snprintf(want, sizeof want,
             "runs systemd-nspawn -D %s as user ids 65534 65534 65534 65534, "
             "not root's",
             D);
    ck_assert_msg(strstr(out, want), "%s", out);
    free(out);
}
END_TEST

/* Root's, but its init runs outside the tree: not entered either. */
START_TEST(test_nspawn_elsewhere)
{
    char *out, want[PATH_MAX + 100];
    int rc;

    if (!root_ok)
        return;
    stand_in("root", 0);
    rc = in_machine(&out);
    stop_stand_in();
    ck_assert_msg(rc == PROP_ERROR, "ran outside the tree: %s", out);
    snprintf(want, sizeof want, "is not %s: it is not entered", D);
    ck_assert_msg(strstr(out, want), "%s", out);
    free(out);
}
END_TEST

static Suite *
container_suite(void)
{
    Suite *s = suite_create("container");
    TCase *tc = tcase_create("chroot");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_commands);
    tcase_add_test(tc, test_nothing_outlives_a_command);
    tcase_add_loop_test(tc, test_files, 0, 2);
    tcase_add_test(tc, test_prefetch);
    tcase_add_test(tc, test_interrupted);
    tcase_add_test(tc, test_binary_and_large);
    tcase_add_test(tc, test_cannot_enter);
    suite_add_tcase(s, tc);
    tc = tcase_create("nspawn");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_nspawn_entered);
    tcase_add_test(tc, test_nspawn_not_roots);
    tcase_add_test(tc, test_nspawn_elsewhere);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    return run_suite(container_suite());
}
