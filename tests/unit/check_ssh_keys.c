/*
 * check_ssh_keys.c - the SSH transport's host keys (the known_hosts file:
 * unknown, changed, hashed, cut lines, markers) and its authentication,
 * against a real sshd on loopback (see ssh_fixture.c).
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
 * Host keys, authentication.
 */

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

static Suite *
ssh_keys_suite(void)
{
    Suite *s = suite_create("ssh_keys");
    TCase *tc;

    tc = tcase_create("connect");
    tcase_set_timeout(tc, 60);
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
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    return ssh_main("check_ssh_keys", ssh_keys_suite);
}
