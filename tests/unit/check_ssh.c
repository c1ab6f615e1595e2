/*
 * check_ssh.c - the SSH transport against a real sshd on loopback.
 *
 * main() starts /usr/sbin/sshd -D on a free 127.0.0.1 port with a host
 * key, a user key and an AuthorizedKeysFile made in a scratch directory,
 * and stops it (and removes the directory) at exit.  The remote side is
 * this machine, so tests check the remote files directly.  sshd's
 * environment puts a fake sudo first in PATH (it records its arguments and
 * runs the command) and points PROP_LOCK_FILE at the scratch directory;
 * SHLVL=1 keeps Debian's bash from reading root's ~/.bashrc for each
 * command (it does so for ssh commands only as the first shell level), so
 * the tests neither depend on it nor kill it half-way (test_dropped_*).
 * Needs root and openssh-server; skipped (exit 77, with a message) without,
 * and failed without openssh-server under CI (CI=true), which installs it.
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
#include "unit.h"

#define SSHD "/usr/sbin/sshd"

static char T[256];    /* scratch directory */
static int PORT;       /* sshd's port */
static pid_t SSHD_PID; /* the listening sshd */
static pid_t OWNER;    /* the process that started it */
static char KH[512];   /* known_hosts holding sshd's key */
static char KEY[512];  /* the authorized user key */

/* ---------------------------------------------------------------------
 * Helpers.
 */
/* snprintf into an array, which must be large enough. */
#define FMT(buf, ...) ck_assert_int_lt(snprintf(buf, sizeof buf, __VA_ARGS__), (int)sizeof buf)

/* A transport call that must succeed; the failure's reason otherwise. */
#define OK(t, call)                                                                                \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        ck_assert_msg(rc_ == 0, "%s: %d: %s", #call, rc_, prop_transport_error(t));                \
    } while (0)

static void
path(char *buf, size_t n, const char *name)
{
    if (snprintf(buf, n, "%s/%s", T, name) >= (int)n)
        buf[0] = '\0';
}

static char *
slurp(const char *file, size_t *len)
{
    FILE *f = fopen(file, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0, k;

    if (!f)
        return NULL;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            char *p;

            cap = cap ? cap * 2 : 8192;
            p = realloc(buf, cap);
            if (!p) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = p;
        }
        k = fread(buf + n, 1, 4096, f);
        n += k;
        if (k == 0)
            break;
    }
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

static int
spit(const char *file, const char *data, size_t len)
{
    FILE *f = fopen(file, "wb");

    if (!f)
        return -1;
    if (fwrite(data, 1, len, f) != len) {
        fclose(f);
        return -1;
    }
    return fclose(f);
}

static void
default_opts(prop_ssh_opts *o)
{
    memset(o, 0, sizeof *o);
    o->address = "127.0.0.1";
    o->port = PORT;
    o->user = "root";
    o->identity = KEY;
    o->known_hosts = KH;
    o->connect_timeout = 5;
    o->op_timeout = 30;
}

static prop_transport *
connect_ok(const prop_ssh_opts *o)
{
    prop_transport *t = NULL;
    int rc = prop_transport_ssh(&t, o);

    ck_assert_msg(rc == 0, "connect: %d %s", rc, prop_transport_error(t));
    ck_assert_ptr_nonnull(t);
    return t;
}

static prop_transport *
connect_default(void)
{
    prop_ssh_opts o;

    default_opts(&o);
    return connect_ok(&o);
}

/* A fresh directory T/files/name for one test. */
static void
test_dir(char *buf, size_t n, const char *name)
{
    char files[512];

    path(files, sizeof files, "files");
    mkdir(files, 0755);
    ck_assert_int_lt(snprintf(buf, n, "%s/%s", files, name), (int)n);
    ck_assert_int_eq(sh("rm -rf '%s' && mkdir -p '%s'", buf, buf), 0);
}

/* Entries of dir (other than . and ..). */
static int
count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    if (!d)
        return -1;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

/* SIGKILL every process below the listening sshd: drops all sessions. */
static int
kill_sessions(void)
{
    pid_t pids[4096], ppids[4096];
    int n = 0, killed = 0, i, changed;
    char mark[4096];
    DIR *d = opendir("/proc");
    struct dirent *e;

    if (!d)
        return -1;
    while ((e = readdir(d)) != NULL && n < 4096) {
        char file[300], buf[1024], *p;
        FILE *f;

        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(file, sizeof file, "/proc/%s/stat", e->d_name);
        f = fopen(file, "r");
        if (!f)
            continue;
        if (!fgets(buf, sizeof buf, f)) {
            fclose(f);
            continue;
        }
        fclose(f);
        p = strrchr(buf, ')');
        if (!p)
            continue;
        pids[n] = (pid_t)atoi(e->d_name);
        ppids[n] = (pid_t)atoi(p + 4); /* ") S ppid" */
        n++;
    }
    closedir(d);
    memset(mark, 0, sizeof mark);
    do {
        changed = 0;
        for (i = 0; i < n; i++) {
            int j, below = ppids[i] == SSHD_PID;

            for (j = 0; !below && j < n; j++)
                below = mark[j] && pids[j] == ppids[i];
            if (below && !mark[i]) {
                mark[i] = 1;
                changed = 1;
            }
        }
    } while (changed);
    for (i = 0; i < n; i++)
        if (mark[i] && kill(pids[i], SIGKILL) == 0)
            killed++;
    return killed;
}

/* ---------------------------------------------------------------------
 * The sshd.
 */
/* Stop the ssh-agent that test_auth_agent started, if any. */
static void
stop_agent(void)
{
    char file[512], *text;

    path(file, sizeof file, "agent.pid");
    text = slurp(file, NULL);
    if (text && atoi(text) > 0)
        kill((pid_t)atoi(text), SIGTERM);
    free(text);
    unlink(file);
}

static void
stop_sshd(void)
{
    if (getpid() != OWNER)
        return; /* a forked test */
    stop_agent();
    if (SSHD_PID > 0) {
        kill(SSHD_PID, SIGTERM);
        waitpid(SSHD_PID, NULL, 0);
        SSHD_PID = 0;
    }
    if (T[0] && !getenv("PROP_KEEP_SSH_TMP"))
        sh("rm -rf '%s'", T);
}

static int
free_port(void)
{
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

    if (fd < 0)
        return -1;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    close(fd);
    return port;
}

static int
port_open(int port)
{
    struct sockaddr_in a;
    int fd = socket(AF_INET, SOCK_STREAM, 0), ok;

    if (fd < 0)
        return 0;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ok = connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
    close(fd);
    return ok;
}

static int
keygen(const char *type, const char *name, const char *pass)
{
    return sh("ssh-keygen -q -t %s -N '%s' -C %s -f '%s/%s' </dev/null", type, pass, name, T, name);
}

static int
start_sshd(void)
{
    char cfg[512], log[512], kh_line[2048], *pub;
    size_t n;
    int i, fd;

    if (mkdir("/run/sshd", 0755) != 0 && errno != EEXIST)
        return -1;
    snprintf(T, sizeof T, "%s/prop-check-ssh.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(T))
        return -1;
    if (keygen("ed25519", "hostkey", "") || keygen("ed25519", "userkey", "") ||
        keygen("ed25519", "otherkey", "") || keygen("ecdsa", "ecdsakey", "") ||
        keygen("ed25519", "wrongkey", "") || keygen("ed25519", "enckey", "secret"))
        return -1;
    if (sh("cat '%s/userkey.pub' '%s/enckey.pub' >'%s/authorized_keys'", T, T, T))
        return -1;
    /* A fake sudo that records how it was called, then runs the command. */
    if (sh("mkdir -p '%s/bin' && printf '%%s\\n' '#!/bin/sh' "
           "'echo \"$*\" >>%s/sudo.log' "
           "'[ \"$1\" = -n ] && [ \"$2\" = -- ] || { echo fake sudo: bad usage >&2; exit 1; }' "
           "'shift 2' 'exec \"$@\"' >'%s/bin/sudo' && chmod 755 '%s/bin/sudo'",
           T, T, T, T))
        return -1;
    PORT = free_port();
    if (PORT <= 0)
        return -1;
    path(cfg, sizeof cfg, "sshd_config");
    {
        FILE *f = fopen(cfg, "w");

        if (!f)
            return -1;
        fprintf(f,
                "Port %d\nListenAddress 127.0.0.1\nHostKey %s/hostkey\nPidFile %s/sshd.pid\n"
                "AuthorizedKeysFile %s/authorized_keys\nStrictModes no\nUsePAM no\n"
                "PermitRootLogin prohibit-password\nPasswordAuthentication no\n"
                "KbdInteractiveAuthentication no\nPubkeyAuthentication yes\n"
                "LogLevel VERBOSE\nMaxSessions 20\n"
                "SetEnv PATH=%s/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "
                "PROP_LOCK_FILE=%s/prop.lock SHLVL=1\n",
                PORT, T, T, T, T, T);
        if (fclose(f) != 0)
            return -1;
    }
    path(log, sizeof log, "sshd.log");
    SSHD_PID = fork();
    if (SSHD_PID < 0)
        return -1;
    if (SSHD_PID == 0) {
        /* Dies with this process even when it is killed outright. */
        if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != OWNER)
            _exit(1);
        fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        execl(SSHD, SSHD, "-D", "-e", "-f", cfg, (char *)NULL);
        _exit(127);
    }
    for (i = 0; i < 200; i++) {
        if (port_open(PORT))
            break;
        if (waitpid(SSHD_PID, NULL, WNOHANG) == SSHD_PID) {
            SSHD_PID = 0;
            sh("cat '%s' >&2", log);
            return -1;
        }
        msleep(50);
    }
    if (i == 200)
        return -1;
    path(kh_line, sizeof kh_line, "hostkey.pub");
    pub = slurp(kh_line, &n);
    if (!pub)
        return -1;
    path(KH, sizeof KH, "known_hosts");
    snprintf(kh_line, sizeof kh_line, "[127.0.0.1]:%d %s", PORT, pub);
    free(pub);
    if (spit(KH, kh_line, strlen(kh_line)) != 0)
        return -1;
    path(KEY, sizeof KEY, "userkey");
    return 0;
}

/* ---------------------------------------------------------------------
 * Connecting, host keys, authentication.
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

START_TEST(test_unknown_host_key)
{
    prop_ssh_opts o;
    prop_transport *t = NULL;
    char kh[512], missing[512];
    struct stat sb;
    int rc;

    default_opts(&o);
    path(kh, sizeof kh, "kh-empty");
    ck_assert_int_eq(spit(kh, "", 0), 0);
    o.known_hosts = kh;
    rc = prop_transport_ssh(&t, &o);
    ck_assert_int_eq(rc, PROP_EUNREACHABLE);
    ck_assert_ptr_nonnull(t);
    ck_assert_msg(strstr(prop_transport_error(t), "is not known (ssh-ed25519 SHA256:"), "%s",
                  prop_transport_error(t));
    ck_assert_msg(strstr(prop_transport_error(t), "--accept-new-host-keys"), "%s",
                  prop_transport_error(t));
    ck_assert_msg(strstr(prop_transport_error(t), kh), "%s", prop_transport_error(t));
    prop_transport_close(t);
    ck_assert_int_eq(stat(kh, &sb), 0);
    ck_assert_int_eq((int)sb.st_size, 0);

    /* No file at all: refused too, and nothing is made. */
    path(missing, sizeof missing, "kh-missing/sub/known_hosts");
    o.known_hosts = missing;
    t = NULL;
    rc = prop_transport_ssh(&t, &o);
    ck_assert_int_eq(rc, PROP_EUNREACHABLE);
    ck_assert_msg(strstr(prop_transport_error(t), "is not known"), "%s", prop_transport_error(t));
    prop_transport_close(t);
    path(missing, sizeof missing, "kh-missing");
    ck_assert_int_ne(stat(missing, &sb), 0);
}
END_TEST

START_TEST(test_accept_new)
{
    prop_ssh_opts o;
    prop_transport *t;
    char kh[512], dir[512], head[64], *text, *pub, hostpub[512];
    struct stat sb;
    size_t len1, len2;
    prop_cmd_result r;
    const char *argv[] = {"true", NULL};

    default_opts(&o);
    /* '%' in the path: libssh must not expand it (%d is its home directory). */
    path(kh, sizeof kh, "kh-new%d/sub/known_hosts");
    path(dir, sizeof dir, "kh-new%d/sub");
    sh("rm -rf '%s/kh-new%%d'", T);
    o.known_hosts = kh;
    o.accept_new = 1;
    t = connect_ok(&o);
    OK(t, prop_transport_run(t, argv, NULL, 0, &r));
    ck_assert_int_eq(r.code, 0);
    prop_cmd_result_clear(&r);
    prop_transport_close(t);

    ck_assert_int_eq(stat(kh, &sb), 0);
    ck_assert_int_eq((int)(sb.st_mode & 07777), 0600);
    ck_assert_int_eq(stat(dir, &sb), 0);
    ck_assert_int_eq((int)(sb.st_mode & 07777), 0700);
    text = slurp(kh, &len1);
    ck_assert_ptr_nonnull(text);
    FMT(head, "[127.0.0.1]:%d ssh-ed25519 ", PORT);
    ck_assert_msg(strncmp(text, head, strlen(head)) == 0, "%s", text);
    path(hostpub, sizeof hostpub, "hostkey.pub");
    pub = slurp(hostpub, NULL);
    ck_assert_ptr_nonnull(pub);
    *strchr(pub + strlen("ssh-ed25519 "), ' ') = '\0'; /* drop the comment */
    ck_assert_msg(strstr(text, pub + strlen("ssh-ed25519 ")), "%s", text);
    ck_assert_int_eq(text[len1 - 1], '\n');
    free(pub);
    free(text);

    /* Known now: accepted without accept_new, and not recorded twice. */
    o.accept_new = 0;
    t = connect_ok(&o);
    prop_transport_close(t);
    o.accept_new = 1;
    t = connect_ok(&o);
    prop_transport_close(t);
    text = slurp(kh, &len2);
    ck_assert_ptr_nonnull(text);
    ck_assert_uint_eq(len1, len2);
    free(text);
}
END_TEST

/* known_hosts: a comment, another host, then sshd's address with another key. */
static void
write_changed_kh(const char *kh, const char *keytype_line)
{
    char other[512], *pub, buf[4096];

    path(other, sizeof other, "otherkey.pub");
    pub = slurp(other, NULL);
    ck_assert_ptr_nonnull(pub);
    FMT(buf, "# test\nelsewhere.example %s[127.0.0.1]:%d %s", pub, PORT,
        keytype_line ? keytype_line : pub);
    free(pub);
    ck_assert_int_eq(spit(kh, buf, strlen(buf)), 0);
}

START_TEST(test_changed_host_key)
{
    prop_ssh_opts o;
    prop_transport *t = NULL;
    char kh[512], want[600], *before, *after;
    int rc;

    default_opts(&o);
    path(kh, sizeof kh, "kh-changed");
    write_changed_kh(kh, NULL);
    before = slurp(kh, NULL);
    ck_assert_ptr_nonnull(before);
    o.known_hosts = kh;
    o.accept_new = 1; /* never overrides a changed key */
    rc = prop_transport_ssh(&t, &o);
    ck_assert_int_eq(rc, PROP_EUNREACHABLE);
    ck_assert_msg(strstr(prop_transport_error(t), "CHANGED"), "%s", prop_transport_error(t));
    ck_assert_msg(strstr(prop_transport_error(t), "man-in-the-middle"), "%s",
                  prop_transport_error(t));
    FMT(want, "remove the old key at %s:3", kh);
    ck_assert_msg(strstr(prop_transport_error(t), want), "%s", prop_transport_error(t));
    prop_transport_close(t);
    after = slurp(kh, NULL);
    ck_assert_ptr_nonnull(after);
    ck_assert_str_eq(before, after);
    free(before);
    free(after);
}
END_TEST

START_TEST(test_changed_host_key_hashed)
{
    prop_ssh_opts o;
    prop_transport *t = NULL;
    char kh[512], want[600], *text;
    int rc;

    default_opts(&o);
    path(kh, sizeof kh, "kh-hashed");
    write_changed_kh(kh, NULL);
    ck_assert_int_eq(sh("ssh-keygen -q -H -f '%s' >/dev/null 2>&1", kh), 0);
    text = slurp(kh, NULL);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(strstr(text, "\n|1|") && !strstr(text, "127.0.0.1"), "%s", text);
    free(text);
    o.known_hosts = kh;
    rc = prop_transport_ssh(&t, &o);
    ck_assert_int_eq(rc, PROP_EUNREACHABLE);
    FMT(want, "remove the old key at %s:3", kh);
    ck_assert_msg(strstr(prop_transport_error(t), want), "%s", prop_transport_error(t));
    prop_transport_close(t);
}
END_TEST

START_TEST(test_other_key_type)
{
    prop_ssh_opts o;
    prop_transport *t = NULL;
    char kh[512], want[600], pubfile[512], *ecdsa;
    int rc;

    /* An ECDSA key recorded for the host, which only has an Ed25519 key. */
    default_opts(&o);
    path(pubfile, sizeof pubfile, "ecdsakey.pub");
    ecdsa = slurp(pubfile, NULL);
    ck_assert_ptr_nonnull(ecdsa);
    path(kh, sizeof kh, "kh-other");
    write_changed_kh(kh, ecdsa);
    free(ecdsa);
    o.known_hosts = kh;
    rc = prop_transport_ssh(&t, &o);
    ck_assert_int_eq(rc, PROP_EUNREACHABLE);
    FMT(want, "%s:3", kh);
    ck_assert_msg(strstr(prop_transport_error(t), want), "%s", prop_transport_error(t));
    prop_transport_close(t);
}
END_TEST

/*
 * A line libssh cannot read (cut short, as an interrupted append leaves
 * it) beside the old key makes libssh answer "unknown" where the key
 * changed: the key must still be refused, with or without accept_new,
 * naming the line, and known_hosts left alone.  kh_text's "%s" is where
 * sshd's name goes, "@K" the old key (another one than the server's).
 */
static void
expect_refused(const char *name, const char *text, int want_line)
{
    prop_ssh_opts o;
    prop_transport *t;
    char kh[512], want[700], *before, *after;
    int accept, rc;

    path(kh, sizeof kh, name);
    ck_assert_int_eq(spit(kh, text, strlen(text)), 0);
    before = slurp(kh, NULL);
    ck_assert_ptr_nonnull(before);
    for (accept = 0; accept < 2; accept++) {
        default_opts(&o);
        o.known_hosts = kh;
        o.accept_new = accept;
        t = NULL;
        rc = prop_transport_ssh(&t, &o);
        ck_assert_msg(rc == PROP_EUNREACHABLE, "%s, accept_new %d: %d %s", name, accept, rc,
                      prop_transport_error(t));
        FMT(want, "%s:%d", kh, want_line);
        ck_assert_msg(strstr(prop_transport_error(t), want), "%s: no %s in: %s", name, want,
                      prop_transport_error(t));
        prop_transport_close(t);
        after = slurp(kh, NULL);
        ck_assert_ptr_nonnull(after);
        ck_assert_msg(strcmp(before, after) == 0, "%s: known_hosts changed:\n%s", name, after);
        free(after);
    }
    free(before);
}

/* The old key's "type base64" (another key than the server's), without its comment. */
static char *
old_key(void)
{
    char file[512], *pub, *sp;

    path(file, sizeof file, "otherkey.pub");
    pub = slurp(file, NULL);
    ck_assert_ptr_nonnull(pub);
    sp = strchr(pub, ' ');
    ck_assert_ptr_nonnull(sp);
    sp = strchr(sp + 1, ' ');
    if (sp)
        *sp = '\0';
    return pub;
}

START_TEST(test_cut_line_changed_key)
{
    char text[4096], host[64], *old = old_key();

    FMT(host, "[127.0.0.1]:%d", PORT);
    /* The cut line first, then the old key. */
    FMT(text, "# test\n%s ssh-ed25519 AAAAC3NzaC1lZDI1\n%s %s\n", host, host, old);
    expect_refused("kh-cut1", text, 2);
    /* The old key, then a cut line at the end (no newline). */
    FMT(text, "%s %s\nelsewhere.example %s\n%s ssh-ed25519 AAAAC3Nz", host, old, old, host);
    expect_refused("kh-cut2", text, 3);
    /* Cut in the middle of the key type. */
    FMT(text, "%s ssh-ed2\n%s %s\n", host, host, old);
    expect_refused("kh-cut3", text, 1);
    /* Names in a comma list and a pattern. */
    FMT(text, "a.example,%s,b.example ssh-ed25519 AAAAC3\n", host);
    expect_refused("kh-cut4", text, 1);
    FMT(text, "# x\n[127.0.0.?]:%d ssh-ed25519 AAAAC3\n", PORT);
    expect_refused("kh-cut5", text, 2);
    /* A cut line alone names the host too. */
    FMT(text, "%s\n", host);
    expect_refused("kh-cut6", text, 1);
    free(old);
}
END_TEST

START_TEST(test_cut_line_hashed)
{
    char kh[512], text[4096], *hashed, *cut, *old = old_key();

    /* ssh-keygen -H hashes the name; then the line is cut short. */
    path(kh, sizeof kh, "kh-hashcut");
    FMT(text, "[127.0.0.1]:%d %s\n", PORT, old);
    ck_assert_int_eq(spit(kh, text, strlen(text)), 0);
    ck_assert_int_eq(sh("ssh-keygen -q -H -f '%s' >/dev/null 2>&1", kh), 0);
    hashed = slurp(kh, NULL);
    ck_assert_ptr_nonnull(hashed);
    ck_assert_msg(strncmp(hashed, "|1|", 3) == 0, "%s", hashed);
    cut = strstr(hashed, "AAAA");
    ck_assert_ptr_nonnull(cut);
    cut[8] = '\0';
    FMT(text, "# hashed\n%s\n", hashed);
    expect_refused("kh-hashcut", text, 2);
    free(hashed);
    free(old);
}
END_TEST

/* A revoked key for the host: libssh does not read the marker. */
START_TEST(test_revoked_marker)
{
    char text[4096], file[512], *pub;

    path(file, sizeof file, "hostkey.pub");
    pub = slurp(file, NULL);
    ck_assert_ptr_nonnull(pub);
    FMT(text, "@revoked [127.0.0.1]:%d %s", PORT, pub);
    expect_refused("kh-revoked", text, 1);
    free(pub);
}
END_TEST

/* A cut line of another host does not stop a new key from being recorded. */
START_TEST(test_cut_line_other_host)
{
    prop_ssh_opts o;
    prop_transport *t;
    char kh[512], text[1024], head[64], *after;

    path(kh, sizeof kh, "kh-cut-other");
    FMT(text, "other.example ssh-ed25519 AAAAC3NzaC1l\n[127.0.0.1]:%d ssh-ed25519 AAAA\n",
        PORT + 1);
    ck_assert_int_eq(spit(kh, text, strlen(text)), 0);
    default_opts(&o);
    o.known_hosts = kh;
    o.accept_new = 1;
    t = connect_ok(&o);
    prop_transport_close(t);
    after = slurp(kh, NULL);
    ck_assert_ptr_nonnull(after);
    FMT(head, "\n[127.0.0.1]:%d ssh-ed25519 AAAAC3", PORT);
    ck_assert_msg(strncmp(after, text, strlen(text)) == 0 && strstr(after, head), "%s", after);
    free(after);
    /* And the recorded key is accepted afterwards. */
    o.accept_new = 0;
    t = connect_ok(&o);
    prop_transport_close(t);
}
END_TEST

START_TEST(test_auth_wrong_identity)
{
    prop_ssh_opts o;
    prop_transport *t = NULL;
    char key[512];
    int rc;

    default_opts(&o);
    path(key, sizeof key, "wrongkey");
    o.identity = key;
    rc = prop_transport_ssh(&t, &o);
    ck_assert_int_eq(rc, PROP_EUNREACHABLE);
    ck_assert_msg(strstr(prop_transport_error(t), "root@127.0.0.1:"), "%s",
                  prop_transport_error(t));
    ck_assert_msg(strstr(prop_transport_error(t), "authentication rejected (tried: "), "%s",
                  prop_transport_error(t));
    ck_assert_msg(strstr(prop_transport_error(t), key), "%s", prop_transport_error(t));
    prop_transport_close(t);
}
END_TEST

START_TEST(test_auth_missing_identity)
{
    prop_ssh_opts o;
    prop_transport *t = NULL;
    char key[512], want[600];
    int rc;

    default_opts(&o);
    path(key, sizeof key, "nosuchkey");
    o.identity = key;
    rc = prop_transport_ssh(&t, &o);
    ck_assert_int_eq(rc, PROP_EUNREACHABLE);
    FMT(want, "identity file %s: no such file", key);
    ck_assert_str_eq(prop_transport_error(t), want);
    prop_transport_close(t);
}
END_TEST

START_TEST(test_auth_encrypted_identity)
{
    prop_ssh_opts o;
    prop_transport *t = NULL;
    char key[512];
    int rc;

    default_opts(&o);
    path(key, sizeof key, "enckey");
    o.identity = key;
    rc = prop_transport_ssh(&t, &o);
    ck_assert_int_eq(rc, PROP_EUNREACHABLE);
    ck_assert_msg(strstr(prop_transport_error(t), "needs a passphrase"), "%s",
                  prop_transport_error(t));
    ck_assert_msg(strstr(prop_transport_error(t), "ssh-agent"), "%s", prop_transport_error(t));
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

START_TEST(test_auth_agent)
{
    prop_ssh_opts o;
    prop_transport *t = NULL;
    const char *argv[] = {"true", NULL};
    char sock[512];
    prop_cmd_result r;
    int rc;

    path(sock, sizeof sock, "agent.sock");
    unlink(sock);
    ck_assert_int_eq(sh("eval \"$(ssh-agent -a '%s' -s)\" >/dev/null && "
                        "echo \"$SSH_AGENT_PID\" >'%s/agent.pid'",
                        sock, T),
                     0);
    ck_assert_int_eq(sh("SSH_AUTH_SOCK='%s' ssh-add -q '%s/userkey' 2>/dev/null", sock, T), 0);
    ck_assert_int_eq(setenv("SSH_AUTH_SOCK", sock, 1), 0);
    default_opts(&o);
    o.identity = NULL; /* the agent, then the default keys */
    t = connect_ok(&o);
    OK(t, prop_transport_run(t, argv, NULL, 0, &r));
    ck_assert_int_eq(r.code, 0);
    prop_cmd_result_clear(&r);
    prop_transport_close(t);

    /* The agent only holds a key the server refuses. */
    ck_assert_int_eq(sh("SSH_AUTH_SOCK='%s' ssh-add -q -D 2>/dev/null && "
                        "SSH_AUTH_SOCK='%s' ssh-add -q '%s/wrongkey' 2>/dev/null",
                        sock, sock, T),
                     0);
    t = NULL;
    rc = prop_transport_ssh(&t, &o);
    ck_assert_int_eq(rc, PROP_EUNREACHABLE);
    ck_assert_msg(strstr(prop_transport_error(t), "authentication rejected (tried: agent"), "%s",
                  prop_transport_error(t));
    prop_transport_close(t);
    unsetenv("SSH_AUTH_SOCK");
    stop_agent();
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
    tcase_add_test(tc, test_unknown_host_key);
    tcase_add_test(tc, test_accept_new);
    tcase_add_test(tc, test_changed_host_key);
    tcase_add_test(tc, test_changed_host_key_hashed);
    tcase_add_test(tc, test_other_key_type);
    tcase_add_test(tc, test_cut_line_changed_key);
    tcase_add_test(tc, test_cut_line_hashed);
    tcase_add_test(tc, test_revoked_marker);
    tcase_add_test(tc, test_cut_line_other_host);
    tcase_add_test(tc, test_auth_wrong_identity);
    tcase_add_test(tc, test_auth_missing_identity);
    tcase_add_test(tc, test_auth_encrypted_identity);
    tcase_add_test(tc, test_auth_agent);
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

    tc = tcase_create("files");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_read);
    tcase_add_test(tc, test_write);
    tcase_add_test(tc, test_write_bytes);
    tcase_add_test(tc, test_prefetch);
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
    tcase_add_test(tc, test_defer_batches);
    tcase_add_test(tc, test_defer_dropped);
    tcase_add_test(tc, test_stage_commit);
    tcase_add_test(tc, test_dropped_during_command);
    tcase_add_test(tc, test_op_timeout);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    if (geteuid() != 0) {
        printf("check_ssh: skipped: needs root (to run sshd)\n");
        return 77;
    }
    if (access(SSHD, X_OK) != 0 || sh("command -v ssh-keygen >/dev/null") != 0) {
        const char *ci = getenv("CI");
        if (ci != NULL && strcmp(ci, "true") == 0) {
            printf("check_ssh: CI must provide openssh-server (%s) and ssh-keygen\n", SSHD);
            return 1;
        }
        printf("check_ssh: skipped: needs openssh-server (%s) and ssh-keygen\n", SSHD);
        return 77;
    }
    OWNER = getpid();
    atexit(stop_sshd);
    if (start_sshd() != 0) {
        fprintf(stderr, "check_ssh: cannot start sshd (scratch directory %s)\n", T);
        return 1;
    }
    return run_suite(ssh_suite());
}
