/*
 * ssh_fixture.c - the sshd the SSH unit tests (check_ssh*.c) run against,
 * and their helpers (ssh_fixture.h).
 *
 * ssh_main() starts /usr/sbin/sshd -D on a free 127.0.0.1 port with a
 * host key, a user key and an AuthorizedKeysFile made in a scratch
 * directory, and stops it (and removes the directory) at exit.  The remote
 * side is this machine, so tests check the remote files directly.  sshd's
 * environment puts a fake sudo first in PATH (it records its arguments and
 * runs the command) and points PROP_LOCK_FILE at the scratch directory;
 * SHLVL=1 keeps Debian's bash from reading root's ~/.bashrc for each
 * command (it does so for ssh commands only as the first shell level), so
 * the tests neither depend on it nor kill it half-way (test_dropped_*).
 * Needs root and openssh-server; skipped (exit 77, with a message) without,
 * and failed without openssh-server under CI (CI=true), which installs it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ssh_fixture.h"

char T[256];
int PORT;
static pid_t SSHD_PID; /* the listening sshd */
static pid_t OWNER;    /* the process that started it */
static char KH[512];   /* known_hosts holding sshd's key */
static char KEY[512];  /* the authorized user key */

void
path(char *buf, size_t n, const char *name)
{
    if (snprintf(buf, n, "%s/%s", T, name) >= (int)n)
        buf[0] = '\0';
}

char *
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

int
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

void
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

prop_transport *
connect_ok(const prop_ssh_opts *o)
{
    prop_transport *t = NULL;
    int rc = prop_transport_ssh(&t, o);

    ck_assert_msg(rc == 0, "connect: %d %s", rc, prop_transport_error(t));
    ck_assert_ptr_nonnull(t);
    return t;
}

prop_transport *
connect_default(void)
{
    prop_ssh_opts o;

    default_opts(&o);
    return connect_ok(&o);
}

/* A fresh directory T/files/name for one test. */
void
test_dir(char *buf, size_t n, const char *name)
{
    char files[512];

    path(files, sizeof files, "files");
    mkdir(files, 0755);
    ck_assert_int_lt(snprintf(buf, n, "%s/%s", files, name), (int)n);
    ck_assert_int_eq(sh("rm -rf '%s' && mkdir -p '%s'", buf, buf), 0);
}

/* Entries of dir (other than . and ..). */
int
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
int
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
void
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

int
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

int
ssh_main(const char *name, Suite *(*suite)(void))
{
    if (geteuid() != 0) {
        printf("%s: skipped: needs root (to run sshd)\n", name);
        return 77;
    }
    if (access(SSHD, X_OK) != 0 || sh("command -v ssh-keygen >/dev/null") != 0) {
        const char *ci = getenv("CI");
        if (ci != NULL && strcmp(ci, "true") == 0) {
            printf("%s: CI must provide openssh-server (%s) and ssh-keygen\n", name, SSHD);
            return 1;
        }
        printf("%s: skipped: needs openssh-server (%s) and ssh-keygen\n", name, SSHD);
        return 77;
    }
    OWNER = getpid();
    atexit(stop_sshd);
    if (start_sshd() != 0) {
        fprintf(stderr, "%s: cannot start sshd (scratch directory %s)\n", name, T);
        return 1;
    }
    return run_suite(suite());
}
