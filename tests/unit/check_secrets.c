/*
 * check_secrets.c - the secret store (secrets.c, secrets_pgp.c,
 * secmem.c) with the real gpg: keys made for the test in a GNUPGHOME of
 * its own under a scratch directory (never ~/.gnupg), two recipients A
 * and B without passphrase, and C with the passphrase "right".  What is
 * encrypted is checked with the gpg command as well, so that "B cannot
 * decrypt" is gpg's word and not the store's.
 *
 * The keys are made once in main(); each test runs in its own process
 * (Check's fork mode), which is what lets a test point GNUPGHOME at
 * another keyring.  The gpg-agents are stopped at the end.
 */
#define _DEFAULT_SOURCE /* setenv, mkdtemp */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "prop/secrets.h"
#include "unit.h"

static char scratch[256];  /* the test's directory */
static char home[300];     /* GNUPGHOME: secret keys of A, B and C */
static char home_a[300];   /* A's secret key alone, and the public keys */
static char home_b[300];   /* B's secret key alone, and the public keys */
static char home_pub[300]; /* public keys only */
static char fpr_a[80], fpr_b[80], fpr_c[80];

/* ---- helpers ---- */

/* sh(): unit.h; the command lines are made of the test's own paths: no
 * quoting needed. */

/* scratch/rel, from a ring of buffers. */
static const char *
P(const char *rel)
{
    static char ring[8][600];
    static unsigned next;
    char *b = ring[next++ % 8];

    snprintf(b, sizeof ring[0], "%s/%s", scratch, rel);
    return b;
}

static char *
slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    size_t n = 0, cap = 1 << 16, r;

    ck_assert_msg(f != NULL, "fopen %s: %s", path, strerror(errno));
    buf = malloc(cap + 1);
    ck_assert_ptr_nonnull(buf);
    while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            cap *= 2;
            char *nb = realloc(buf, cap + 1);
            ck_assert_ptr_nonnull(nb);
            buf = nb;
        }
    }
    ck_assert_int_eq(fclose(f), 0);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

static void
spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");

    ck_assert_msg(f != NULL, "fopen %s: %s", path, strerror(errno));
    ck_assert_uint_eq(fwrite(text, 1, strlen(text), f), strlen(text));
    ck_assert_int_eq(fclose(f), 0);
}

/* The first line of a command's output (static). */
static const char *
first_line(const char *cmd)
{
    static char buf[512];
    FILE *p = popen(cmd, "r");

    buf[0] = '\0';
    if (p == NULL)
        return buf;
    if (fgets(buf, sizeof buf, p) == NULL)
        buf[0] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    (void)pclose(p);
    return buf;
}

/* The message (last word) of the line of the store that starts with
 * "secret " words (malloc). */
static char *
message_of(const char *store, const char *words)
{
    char cmd[1024];

    snprintf(cmd, sizeof cmd, "grep '^secret %s ' %s | awk '{ print $NF }'", words, store);
    return strdup(first_line(cmd));
}

static prop_secrets *
open_ok(const char *path)
{
    prop_secrets *s = NULL;
    int rc = prop_secrets_open(&s, path);

    ck_assert_msg(rc == PROP_OK, "open %s: %d %s", path, rc, prop_secrets_error(s));
    return s;
}

static void
set_ok(prop_secrets *s, const char *name, const char *host, const void *v, size_t len)
{
    int rc = prop_secrets_set(s, name, host, v, len);

    ck_assert_msg(rc == PROP_OK, "set %s: %d %s", name, rc, prop_secrets_error(s));
}

static void
add_ok(prop_secrets *s, const char *keyid)
{
    int rc = prop_secrets_recipient_add(s, keyid);

    ck_assert_msg(rc == PROP_OK, "add %s: %d %s", keyid, rc, prop_secrets_error(s));
}

/* Reveal name on host and compare with want[0..len). */
static void
expect_value(prop_secrets *s, const char *name, const char *host, const void *want, size_t len)
{
    const unsigned char *d = NULL;
    size_t n = 0;
    int rc = prop_secrets_reveal(s, name, host, &d, &n);

    ck_assert_msg(rc == PROP_OK, "reveal %s: %d %s", name, rc, prop_secrets_error(s));
    ck_assert_uint_eq(n, len);
    ck_assert(memcmp(d, want, len) == 0);
}

/* A new store at scratch/name with recipient A (and B when both). */
static prop_secrets *
new_store(const char *name, int both)
{
    prop_secrets *s;

    unlink(P(name));
    s = open_ok(P(name));
    add_ok(s, fpr_a);
    if (both)
        add_ok(s, fpr_b);
    return s;
}

/* Decrypt the message on the line of name (site-wide) with the gpg
 * command and the keyring gnupghome; its exit status.  The plaintext
 * goes to scratch/out.txt. */
static int
gpg_decrypts(const char *store, const char *name, const char *gnupghome)
{
    return sh("grep '^secret %s ' %s | awk '{ print $NF }' | base64 -d >%s && "
              "GNUPGHOME=%s gpg --batch --quiet --pinentry-mode loopback --passphrase '' "
              "--decrypt %s >%s 2>%s",
              name, store, P("msg.bin"), gnupghome, P("msg.bin"), P("out.txt"), P("gpg.err"));
}

static void
assert_error_has(prop_secrets *s, const char *text)
{
    ck_assert_msg(strstr(prop_secrets_error(s), text) != NULL, "error \"%s\" lacks \"%s\"",
                  prop_secrets_error(s), text);
}

/* Whether the store's directory holds anything but the expected files. */
static int
temp_files_left(void)
{
    DIR *d = opendir(scratch);
    struct dirent *e;
    int n = 0;

    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] == '.' && strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

/* ---- names and paths ---- */

START_TEST(test_store_path)
{
    static const char *const cases[][2] = {
        {"site.lua", "site.secrets"},
        {"site", "site.secrets"},
        {"/etc/prop/site.lua", "/etc/prop/site.secrets"},
        {"conf.d/site", "conf.d/site.secrets"},
        {"a.b.lua", "a.b.secrets"},
        {".site", ".site.secrets"},
        {"site.", "site.secrets"},
    };
    char *p = NULL;
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ck_assert_int_eq(prop_secrets_store_path(&p, cases[i][0]), PROP_OK);
        ck_assert_str_eq(p, cases[i][1]);
        free(p);
    }
    ck_assert_int_eq(prop_secrets_store_path(&p, ""), PROP_EINVAL);
    ck_assert_int_eq(prop_secrets_store_path(&p, "dir/"), PROP_EINVAL);
    ck_assert_int_eq(prop_secrets_store_path(&p, "site.secrets"), PROP_EINVAL);
    ck_assert_ptr_null(p);
}
END_TEST

START_TEST(test_names_and_hosts)
{
    ck_assert(prop_secrets_name_valid("db_password"));
    ck_assert(prop_secrets_name_valid("_x"));
    ck_assert(prop_secrets_name_valid("tls.key-2"));
    ck_assert(!prop_secrets_name_valid(""));
    ck_assert(!prop_secrets_name_valid("2fa"));
    ck_assert(!prop_secrets_name_valid(".x"));
    ck_assert(!prop_secrets_name_valid("a b"));
    ck_assert(!prop_secrets_name_valid("a/b"));
    ck_assert(!prop_secrets_name_valid("caf\xc3\xa9"));
    ck_assert(!prop_secrets_name_valid(NULL));

    ck_assert(prop_secrets_host_valid("web1.example.com"));
    ck_assert(prop_secrets_host_valid("caf\xc3\xa9.example"));
    ck_assert(!prop_secrets_host_valid(""));
    ck_assert(!prop_secrets_host_valid("a b"));
    ck_assert(!prop_secrets_host_valid("a\tb"));
    ck_assert(!prop_secrets_host_valid("a\nb"));
    ck_assert(!prop_secrets_host_valid("a\xc2\xa0z"));     /* no-break space */
    ck_assert(!prop_secrets_host_valid("a\xe3\x80\x80z")); /* ideographic space */
    ck_assert(!prop_secrets_host_valid("a\xffz"));         /* not UTF-8 */
    ck_assert(!prop_secrets_host_valid("\033[2J"));
    ck_assert(!prop_secrets_host_valid("*"));
    ck_assert(prop_secrets_host_valid("*.example"));
}
END_TEST

/* ---- a store that does not exist ---- */

START_TEST(test_missing_store_is_empty)
{
    prop_secrets *s = open_ok(P("none.secrets"));
    const unsigned char *d;
    size_t n;

    ck_assert_uint_eq(prop_secrets_count(s), 0);
    ck_assert_uint_eq(prop_secrets_nrecipients(s), 0);
    ck_assert_int_eq(prop_secrets_has(s, "x", NULL), 0);
    ck_assert_int_eq(prop_secrets_reveal(s, "x", NULL, &d, &n), PROP_ENOTFOUND);
    /* Nobody to encrypt to: refused, and no file appears. */
    ck_assert_int_eq(prop_secrets_set(s, "x", NULL, (const unsigned char *)"v", 1), PROP_ERROR);
    assert_error_has(s, "no recipient");
    ck_assert_int_eq(access(P("none.secrets"), F_OK), -1);
    prop_secrets_free(s);
    prop_secrets_free(NULL);
}
END_TEST

/* ---- values ---- */

START_TEST(test_set_reveal_remove)
{
    prop_secrets *s = new_store("basic.secrets", 0);
    const char *name, *host;
    struct stat st;
    char *text;

    ck_assert_int_eq(stat(P("basic.secrets"), &st), 0);
    ck_assert_int_eq(st.st_mode & 07777, 0644);
    set_ok(s, "db_password", NULL, "hunter2", 7);
    set_ok(s, "api_token", NULL, "tok", 3);
    ck_assert_int_eq(prop_secrets_has(s, "db_password", NULL), 1);
    ck_assert_int_eq(prop_secrets_has(s, "db_password", "web1"), 1);
    ck_assert_int_eq(prop_secrets_has(s, "nope", NULL), 0);
    prop_secrets_free(s);

    /* A fresh object decrypts what the file holds. */
    s = open_ok(P("basic.secrets"));
    ck_assert_uint_eq(prop_secrets_count(s), 2);
    ck_assert_uint_eq(prop_secrets_nrecipients(s), 1);
    ck_assert_str_eq(prop_secrets_recipient(s, 0), fpr_a);
    ck_assert_str_eq(prop_secrets_recipient_uid(s, 0), "Prop Test A <a@example.invalid>");
    /* New values go in order of name. */
    ck_assert_int_eq(prop_secrets_entry(s, 0, &name, &host), PROP_OK);
    ck_assert_str_eq(name, "api_token");
    ck_assert_ptr_null(host);
    ck_assert_int_eq(prop_secrets_entry(s, 1, &name, &host), PROP_OK);
    ck_assert_str_eq(name, "db_password");
    ck_assert_int_eq(prop_secrets_entry(s, 2, &name, &host), PROP_EINVAL);
    expect_value(s, "db_password", NULL, "hunter2", 7);
    expect_value(s, "db_password", "web9", "hunter2", 7);
    expect_value(s, "api_token", NULL, "tok", 3);

    /* Changing a value; removing one. */
    set_ok(s, "db_password", NULL, "correct horse", 13);
    ck_assert_int_eq(prop_secrets_remove(s, "api_token", NULL), PROP_OK);
    ck_assert_int_eq(prop_secrets_remove(s, "api_token", NULL), PROP_ENOTFOUND);
    ck_assert_int_eq(prop_secrets_remove(s, "db_password", "web1"), PROP_ENOTFOUND);
    prop_secrets_free(s);

    s = open_ok(P("basic.secrets"));
    ck_assert_uint_eq(prop_secrets_count(s), 1);
    expect_value(s, "db_password", NULL, "correct horse", 13);
    prop_secrets_free(s);

    /* The file: readable without a key, the plaintext nowhere in it. */
    text = slurp(P("basic.secrets"), NULL);
    ck_assert_ptr_nonnull(strstr(text, "\nprop-secrets 1\n"));
    ck_assert_ptr_nonnull(strstr(text, "\nsecret db_password "));
    ck_assert_ptr_null(strstr(text, "api_token"));
    ck_assert_ptr_null(strstr(text, "correct horse"));
    free(text);

    /* gpg itself decrypts a value: "prop-secret NAME" then the bytes. */
    ck_assert_int_eq(gpg_decrypts(P("basic.secrets"), "db_password", home), 0);
    text = slurp(P("out.txt"), NULL);
    ck_assert_str_eq(text, "prop-secret db_password\ncorrect horse");
    free(text);
}
END_TEST

START_TEST(test_bad_arguments)
{
    prop_secrets *s = new_store("args.secrets", 0);

    ck_assert_int_eq(prop_secrets_set(s, "2x", NULL, (const unsigned char *)"v", 1), PROP_EINVAL);
    ck_assert_int_eq(prop_secrets_set(s, "x", "a b", (const unsigned char *)"v", 1), PROP_EINVAL);
    ck_assert_int_eq(prop_secrets_set(s, "x", "", (const unsigned char *)"v", 1), PROP_EINVAL);
    ck_assert_int_eq(prop_secrets_remove(s, "x y", NULL), PROP_EINVAL);
    ck_assert_int_eq(prop_secrets_set(s, "x", NULL, NULL, 1), PROP_EINVAL);
    ck_assert_int_eq(prop_secrets_recipient_add(s, ""), PROP_EINVAL);
    ck_assert_int_eq(prop_secrets_recipient_add(s, "nobody@example.invalid"), PROP_ERROR);
    assert_error_has(s, "no public key");
    ck_assert_int_eq(prop_secrets_count(s), 0);
    prop_secrets_free(s);
}
END_TEST

START_TEST(test_host_value_wins)
{
    prop_secrets *s = new_store("hosts.secrets", 0);
    const char *name, *host;

    set_ok(s, "db", "web1", "for web1", 8);
    set_ok(s, "only_web2", "web2", "w2", 2);
    set_ok(s, "db", NULL, "site-wide", 9);
    prop_secrets_free(s);

    s = open_ok(P("hosts.secrets"));
    /* File order: the site-wide value is put before the host's. */
    ck_assert_int_eq(prop_secrets_entry(s, 0, &name, &host), PROP_OK);
    ck_assert_str_eq(name, "db");
    ck_assert_ptr_null(host);
    ck_assert_int_eq(prop_secrets_entry(s, 1, &name, &host), PROP_OK);
    ck_assert_str_eq(host, "web1");
    expect_value(s, "db", "web1", "for web1", 8);
    expect_value(s, "db", "web2", "site-wide", 9);
    expect_value(s, "db", NULL, "site-wide", 9);
    expect_value(s, "only_web2", "web2", "w2", 2);
    ck_assert_int_eq(prop_secrets_has(s, "only_web2", "web2"), 1);
    ck_assert_int_eq(prop_secrets_has(s, "only_web2", "web1"), 0);
    ck_assert_int_eq(prop_secrets_has(s, "only_web2", NULL), 0);
    /* Removing the host's value uncovers the site-wide one. */
    ck_assert_int_eq(prop_secrets_remove(s, "db", "web1"), PROP_OK);
    prop_secrets_free(s);
    s = open_ok(P("hosts.secrets"));
    expect_value(s, "db", "web1", "site-wide", 9);
    prop_secrets_free(s);
}
END_TEST

START_TEST(test_values_byte_exact)
{
    static const unsigned char nul[] = {'a', 0, 'b', 0, 0};
    unsigned char all[256], *big;
    prop_secrets *s = new_store("bytes.secrets", 0);
    size_t i, bign = 300000;

    for (i = 0; i < 256; i++)
        all[i] = (unsigned char)i;
    big = malloc(bign);
    ck_assert_ptr_nonnull(big);
    for (i = 0; i < bign; i++)
        big[i] = (unsigned char)(i * 7 + i / 251);
    set_ok(s, "newline", NULL, "line\n", 5);
    set_ok(s, "crlf", NULL, "line\r\n\r\n", 8);
    set_ok(s, "nul", NULL, nul, sizeof nul);
    set_ok(s, "empty", NULL, "", 0);
    set_ok(s, "all", NULL, all, sizeof all);
    set_ok(s, "big", NULL, big, bign);
    /* The object that set them gives them back as set... */
    expect_value(s, "newline", NULL, "line\n", 5);
    prop_secrets_free(s);

    /* ... and so does the file. */
    s = open_ok(P("bytes.secrets"));
    expect_value(s, "newline", NULL, "line\n", 5);
    expect_value(s, "crlf", NULL, "line\r\n\r\n", 8);
    expect_value(s, "nul", NULL, nul, sizeof nul);
    expect_value(s, "empty", NULL, "", 0);
    expect_value(s, "all", NULL, all, sizeof all);
    expect_value(s, "big", NULL, big, bign);
    prop_secrets_free(s);
    free(big);
}
END_TEST

START_TEST(test_set_from_fd)
{
    prop_secrets *s = new_store("fd.secrets", 0);
    int fds[2];

    ck_assert_int_eq(pipe(fds), 0);
    ck_assert_int_eq(write(fds[1], "piped\n\0x", 8), 8);
    ck_assert_int_eq(close(fds[1]), 0);
    ck_assert_int_eq(prop_secrets_set_fd(s, "piped", "h1", fds[0]), PROP_OK);
    ck_assert_int_eq(close(fds[0]), 0);
    prop_secrets_free(s);
    s = open_ok(P("fd.secrets"));
    expect_value(s, "piped", "h1", "piped\n\0x", 8);
    prop_secrets_free(s);
}
END_TEST

/* Decrypting makes the process non-dumpable, without core files, and
 * keeps the value in locked memory when the limit allows. */
START_TEST(test_memory_hardened)
{
    prop_secrets *s = new_store("mem.secrets", 0);
    struct rlimit rl;
    char line[256];
    long locked = -1;
    FILE *f;

    set_ok(s, "v", NULL, "x", 1);
    prop_secrets_free(s);
    s = open_ok(P("mem.secrets"));
    expect_value(s, "v", NULL, "x", 1);
    ck_assert_int_eq(getrlimit(RLIMIT_CORE, &rl), 0);
    ck_assert_uint_eq(rl.rlim_cur, 0);
#ifdef __linux__
    ck_assert_int_eq(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), 0);
    ck_assert_int_eq(getrlimit(RLIMIT_MEMLOCK, &rl), 0);
    f = fopen("/proc/self/status", "r");
    ck_assert_ptr_nonnull(f);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmLck:", 6) == 0)
            locked = strtol(line + 6, NULL, 10);
    fclose(f);
    /* AddressSanitizer makes mlock a no-op that succeeds. */
#ifndef __SANITIZE_ADDRESS__
    if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= 65536)
        ck_assert_int_gt(locked, 0);
#else
    (void)locked;
#endif
#else
    (void)f;
    (void)line;
    (void)locked;
#endif
    prop_secrets_free(s);
}
END_TEST

/* ---- the file ---- */

/* A file written by hand: comments, spaces, order kept; a change
 * rewrites only what it changes. */
START_TEST(test_hand_written_file)
{
    prop_secrets *s = new_store("hand.secrets", 0);
    char *text, *b64_z, *b64_a, *want;
    const char *name, *host;
    size_t n;

    set_ok(s, "zeta", NULL, "z", 1);
    set_ok(s, "alpha", "h1", "a", 1);
    prop_secrets_free(s);
    b64_z = message_of(P("hand.secrets"), "zeta");
    b64_a = message_of(P("hand.secrets"), "alpha h1");
    ck_assert_uint_gt(strlen(b64_z), 40);
    n = strlen(b64_z) + strlen(b64_a) + strlen(fpr_a) + 1000;
    text = malloc(n);
    want = malloc(n);
    ck_assert_ptr_nonnull(text);
    ck_assert_ptr_nonnull(want);
    snprintf(text, n,
             "# ours\n\nprop-secrets   1\n  # indented comment\nrecipient %s   Someone Else  \n"
             "secret  zeta   %s\n# between\nsecret alpha h1 %s\r\n",
             fpr_a, b64_z, b64_a);
    spit(P("hand.secrets"), text);

    s = open_ok(P("hand.secrets"));
    ck_assert_uint_eq(prop_secrets_count(s), 2);
    ck_assert_int_eq(prop_secrets_entry(s, 0, &name, &host), PROP_OK);
    ck_assert_str_eq(name, "zeta"); /* file order, not sorted */
    ck_assert_str_eq(prop_secrets_recipient_uid(s, 0), "Someone Else");
    expect_value(s, "alpha", "h1", "a", 1);
    /* A change writes the lines back, comments and all, in one form. */
    set_ok(s, "zeta", NULL, "z", 1);
    prop_secrets_free(s);
    free(text);
    text = slurp(P("hand.secrets"), NULL);
    free(b64_z);
    b64_z = message_of(P("hand.secrets"), "zeta");
    snprintf(want, n,
             "# ours\n\nprop-secrets 1\n  # indented comment\nrecipient %s Someone Else\n"
             "secret zeta %s\n# between\nsecret alpha h1 %s\n",
             fpr_a, b64_z, b64_a);
    ck_assert_str_eq(text, want);
    free(text);
    free(want);
    free(b64_z);
    free(b64_a);
}
END_TEST

/* open path, which must fail with PROP_ERROR and a message containing each of want. */
static void
expect_broken(const char *file, const char *content, const char *want1, const char *want2)
{
    prop_secrets *s = NULL;
    char *before;

    spit(P(file), content);
    ck_assert_int_eq(prop_secrets_open(&s, P(file)), PROP_ERROR);
    ck_assert_ptr_nonnull(s);
    assert_error_has(s, want1);
    if (want2)
        assert_error_has(s, want2);
    /* Nothing changes a store that cannot be read whole. */
    ck_assert_int_eq(prop_secrets_set(s, "x", NULL, (const unsigned char *)"v", 1), PROP_ERROR);
    ck_assert_int_eq(prop_secrets_remove(s, "x", NULL), PROP_ERROR);
    ck_assert_int_eq(prop_secrets_recipient_add(s, fpr_a), PROP_ERROR);
    before = slurp(P(file), NULL);
    ck_assert_str_eq(before, content);
    free(before);
    prop_secrets_free(s);
}

START_TEST(test_corrupt_stores)
{
    prop_secrets *s = new_store("good.secrets", 0);
    char *good, *p, *bad, *q, err[800];
    size_t len;

    set_ok(s, "db", NULL, "value", 5);
    prop_secrets_free(s);
    good = slurp(P("good.secrets"), &len);
    bad = malloc(2 * len + 200);
    ck_assert_ptr_nonnull(bad);

    expect_broken("c1.secrets", "", "is empty", NULL);
    expect_broken("c2.secrets", "hello\n", "c2.secrets:1: not a prop secret store", NULL);
    expect_broken("c3.secrets", "# c\nprop-secrets 2\n", "c3.secrets:2: format version 2", NULL);
    expect_broken("c4.secrets", "prop-secrets 1\nrecipient 1234\n",
                  "c4.secrets:2: a recipient line", NULL);
    expect_broken("c5.secrets", "prop-secrets 1\nfrobnicate x\n",
                  "c5.secrets:2: unknown line \"frobnicate\"", NULL);
    expect_broken("c6.secrets", "prop-secrets 1\nprop-secrets 1\n", "c6.secrets:2: a second", NULL);
    expect_broken("c7.secrets", "prop-secrets 1\n# a\x01\n", "c7.secrets:2: the line holds", NULL);

    /* Cut off in the middle of the last line. */
    memcpy(bad, good, len - 20);
    bad[len - 20] = '\0';
    snprintf(err, sizeof err, "c8.secrets:%d: the last line has no newline", 4);
    expect_broken("c8.secrets", bad, err, NULL);

    /* Cut at a multiple of four characters: valid base64, half a message. */
    p = strstr(good, "\nsecret db ");
    ck_assert_ptr_nonnull(p);
    q = strchr(p + 1, '\n');
    memcpy(bad, good, (size_t)(q - good) - 40);
    strcpy(bad + (q - good) - 40, "\n");
    expect_broken("c9.secrets", bad, "c9.secrets:4: the value of db is damaged", "cut short");

    /* A character that is not base64. */
    strcpy(bad, good);
    bad[(q - good) - 10] = '*';
    expect_broken("c10.secrets", bad, "c10.secrets:4: the value of db is damaged", "base64");

    /* The same value twice; values with no recipient. */
    snprintf(bad, 2 * len + 200, "%s%s", good, p + 1);
    expect_broken("c11.secrets", bad, "c11.secrets:5: db is set twice (first on line 4)", NULL);
    snprintf(bad, 2 * len + 200, "prop-secrets 1\n%s", p + 1);
    expect_broken("c12.secrets", bad, "lists no recipient", NULL);

    /* Several errors: all reported, each with its line. */
    expect_broken("c13.secrets", "prop-secrets 1\nsecret 9x AAAA\nsecret a b c d e\n",
                  "c13.secrets:2: \"9x\" is not a secret name", "c13.secrets:3: a secret line is");
    /* Many errors: the first ten, and a count of the others. */
    strcpy(bad, "prop-secrets 1\n");
    for (int i = 0; i < 13; i++)
        strcat(bad, "bogus\n");
    expect_broken("c14.secrets", bad, "c14.secrets:11: unknown line", "c14.secrets: 3 more errors");
    free(bad);
    free(good);
}
END_TEST

/* A message moved to another line is refused, not handed to the wrong host. */
START_TEST(test_moved_value_refused)
{
    prop_secrets *s = new_store("moved.secrets", 0);
    const unsigned char *d = NULL;
    char *site, *web1, *text;
    size_t len = 0, n;

    set_ok(s, "db", NULL, "site", 4);
    set_ok(s, "db", "web1", "web1 only", 9);
    prop_secrets_free(s);
    /* Swap the two messages. */
    site = message_of(P("moved.secrets"), "db");
    web1 = message_of(P("moved.secrets"), "db web1");
    n = strlen(site) + strlen(web1) + strlen(fpr_a) + 200;
    text = malloc(n);
    ck_assert_ptr_nonnull(text);
    snprintf(text, n, "# moved\nprop-secrets 1\nrecipient %s\nsecret db %s\nsecret db web1 %s\n",
             fpr_a, web1, site);
    spit(P("moved.secrets"), text);
    s = open_ok(P("moved.secrets"));
    ck_assert_int_eq(prop_secrets_reveal(s, "db", "web1", &d, &len), PROP_ERROR);
    assert_error_has(s, "moved.secrets:5: db for web1: ");
    assert_error_has(s, "was encrypted as \"prop-secret db\"");
    assert_error_has(s, "copied from another line");
    ck_assert_ptr_null(d);
    ck_assert_int_eq(prop_secrets_reveal(s, "db", NULL, &d, &len), PROP_ERROR);
    assert_error_has(s, "moved.secrets:4: db: ");
    prop_secrets_free(s);
    free(text);
    free(site);
    free(web1);
}
END_TEST

/* A write that fails half-way leaves the old file, and no temporary file. */
START_TEST(test_failed_write_keeps_old)
{
    prop_secrets *s = new_store("atomic.secrets", 0);
    struct rlimit small = {256, RLIM_INFINITY}, rl;
    char *before, *after;

    set_ok(s, "a", NULL, "1", 1);
    before = slurp(P("atomic.secrets"), NULL);
    ck_assert_uint_gt(strlen(before), 256);
    /* The file size limit binds root too: the write fails with EFBIG. */
    ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &rl), 0);
    small.rlim_max = rl.rlim_max;
    signal(SIGXFSZ, SIG_IGN);
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &small), 0);
    ck_assert_int_eq(prop_secrets_set(s, "b", NULL, (const unsigned char *)"2", 1), PROP_ERROR);
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
    assert_error_has(s, "cannot write");
    assert_error_has(s, "atomic.secrets");
    after = slurp(P("atomic.secrets"), NULL);
    ck_assert_str_eq(after, before);
    free(after);
    ck_assert_int_eq(temp_files_left(), 0);
    /* The object is unchanged too, and the next write works. */
    ck_assert_int_eq(prop_secrets_has(s, "b", NULL), 0);
    ck_assert_uint_eq(prop_secrets_count(s), 1);
    set_ok(s, "b", NULL, "2", 1);
    prop_secrets_free(s);

    /* A directory that cannot be written to (root writes anyway). */
    if (geteuid() != 0) {
        ck_assert_int_eq(sh("mkdir -p %s && cp %s %s/ro.secrets && chmod 555 %s", P("ro"),
                            P("atomic.secrets"), P("ro"), P("ro")),
                         0);
        s = open_ok(P("ro/ro.secrets"));
        ck_assert_int_eq(prop_secrets_set(s, "c", NULL, (const unsigned char *)"3", 1), PROP_ERROR);
        assert_error_has(s, "cannot make a file in");
        prop_secrets_free(s);
        ck_assert_int_eq(sh("chmod 755 %s", P("ro")), 0);
    }
    /* A store in a directory that does not exist. */
    s = open_ok(P("no/such/dir.secrets"));
    ck_assert_int_eq(prop_secrets_recipient_add(s, fpr_a), PROP_ERROR);
    assert_error_has(s, "cannot make a file in");
    prop_secrets_free(s);
    free(before);
}
END_TEST

/* Two changes at once: the second is refused rather than losing the first. */
START_TEST(test_changed_since_read)
{
    prop_secrets *s1 = new_store("race.secrets", 0), *s2;
    char *text;

    prop_secrets_free(s1);
    s1 = open_ok(P("race.secrets"));
    s2 = open_ok(P("race.secrets"));
    set_ok(s1, "one", NULL, "1", 1);
    ck_assert_int_eq(prop_secrets_set(s2, "two", NULL, (const unsigned char *)"2", 1), PROP_ERROR);
    assert_error_has(s2, "changed since it was read");
    prop_secrets_free(s2);
    prop_secrets_free(s1);
    text = slurp(P("race.secrets"), NULL);
    ck_assert_ptr_nonnull(strstr(text, "secret one "));
    ck_assert_ptr_null(strstr(text, "secret two "));
    free(text);
}
END_TEST

/* A store that is a symbolic link: its target is replaced, the link kept. */
START_TEST(test_store_behind_link)
{
    prop_secrets *s;
    struct stat st;

    ck_assert_int_eq(sh("rm -rf %s && mkdir %s && ln -sf real/linked.secrets %s", P("real"),
                        P("real"), P("link.secrets")),
                     0);
    s = open_ok(P("link.secrets"));
    add_ok(s, fpr_a);
    set_ok(s, "v", NULL, "x", 1);
    prop_secrets_free(s);
    ck_assert_int_eq(lstat(P("link.secrets"), &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    ck_assert_int_eq(stat(P("real/linked.secrets"), &st), 0);
    s = open_ok(P("link.secrets"));
    expect_value(s, "v", NULL, "x", 1);
    prop_secrets_free(s);
    ck_assert_int_eq(sh("rm -rf %s %s", P("real"), P("link.secrets")), 0);
}
END_TEST

/* A store named relative to the working directory, without a directory part. */
START_TEST(test_relative_path)
{
    prop_secrets *s;

    ck_assert_int_eq(chdir(scratch), 0);
    unlink("rel.secrets");
    s = open_ok("rel.secrets");
    add_ok(s, fpr_a);
    set_ok(s, "v", NULL, "x", 1);
    ck_assert_str_eq(prop_secrets_path(s), "rel.secrets");
    prop_secrets_free(s);
    s = open_ok(P("rel.secrets"));
    expect_value(s, "v", NULL, "x", 1);
    prop_secrets_free(s);
    ck_assert_int_eq(temp_files_left(), 0);
}
END_TEST

/* ---- recipients ---- */

START_TEST(test_recipients_reencrypt)
{
    prop_secrets *s = new_store("rcpt.secrets", 0);
    char *before, *after, keyid[17];

    set_ok(s, "db", NULL, "s3cret", 6);
    /* Only A so far: B's key alone cannot decrypt. */
    ck_assert_int_eq(gpg_decrypts(P("rcpt.secrets"), "db", home_b), 2);
    ck_assert_int_eq(gpg_decrypts(P("rcpt.secrets"), "db", home_a), 0);

    /* Adding B (by its e-mail address) encrypts every value to both. */
    add_ok(s, "b@example.invalid");
    ck_assert_uint_eq(prop_secrets_nrecipients(s), 2);
    ck_assert_str_eq(prop_secrets_recipient(s, 1), fpr_b);
    ck_assert_int_eq(gpg_decrypts(P("rcpt.secrets"), "db", home_b), 0);
    ck_assert_int_eq(gpg_decrypts(P("rcpt.secrets"), "db", home_a), 0);

    /* Adding B again changes nothing. */
    before = slurp(P("rcpt.secrets"), NULL);
    add_ok(s, fpr_b);
    after = slurp(P("rcpt.secrets"), NULL);
    ck_assert_str_eq(after, before);
    free(after);
    free(before);

    /* Removing B by its long key id: B's key alone no longer decrypts. */
    memcpy(keyid, fpr_b + strlen(fpr_b) - 16, 16);
    keyid[16] = '\0';
    ck_assert_int_eq(prop_secrets_recipient_remove(s, keyid), PROP_OK);
    ck_assert_uint_eq(prop_secrets_nrecipients(s), 1);
    ck_assert_int_eq(gpg_decrypts(P("rcpt.secrets"), "db", home_b), 2);
    ck_assert_int_eq(gpg_decrypts(P("rcpt.secrets"), "db", home_a), 0);
    ck_assert_int_eq(prop_secrets_recipient_remove(s, fpr_b), PROP_ENOTFOUND);

    /* The last recipient stays. */
    before = slurp(P("rcpt.secrets"), NULL);
    ck_assert_int_eq(prop_secrets_recipient_remove(s, fpr_a), PROP_ERROR);
    assert_error_has(s, "last recipient");
    after = slurp(P("rcpt.secrets"), NULL);
    ck_assert_str_eq(after, before);
    free(after);
    free(before);
    prop_secrets_free(s);

    s = open_ok(P("rcpt.secrets"));
    expect_value(s, "db", NULL, "s3cret", 6);
    prop_secrets_free(s);
}
END_TEST

/* A recipient whose key left the keyring can still be removed by the
 * fingerprint the store lists. */
START_TEST(test_remove_recipient_without_key)
{
    prop_secrets *s = new_store("gone.secrets", 1);

    set_ok(s, "db", NULL, "v", 1);
    prop_secrets_free(s);
    /* A's keyring has B's public key; one that never had it: */
    ck_assert_int_eq(sh("rm -rf %s && mkdir -m 700 %s && GNUPGHOME=%s gpg --batch --quiet "
                        "--pinentry-mode loopback --passphrase '' --import %s %s 2>/dev/null",
                        P("gnupg-aonly"), P("gnupg-aonly"), P("gnupg-aonly"), P("pub-a.asc"),
                        P("sec-a.asc")),
                     0);
    ck_assert_int_eq(setenv("GNUPGHOME", P("gnupg-aonly"), 1), 0);
    s = open_ok(P("gone.secrets"));
    ck_assert_int_eq(prop_secrets_recipient_remove(s, fpr_b), PROP_OK);
    ck_assert_uint_eq(prop_secrets_nrecipients(s), 1);
    prop_secrets_free(s);
    s = open_ok(P("gone.secrets"));
    expect_value(s, "db", NULL, "v", 1);
    prop_secrets_free(s);
    ck_assert_int_eq(sh("GNUPGHOME=%s gpgconf --kill all", P("gnupg-aonly")), 0);
}
END_TEST

/* Without the secret key: a clear error, and the store is unchanged. */
START_TEST(test_no_secret_key)
{
    prop_secrets *s = new_store("nokey.secrets", 0);
    const unsigned char *d;
    char *before, *after;
    size_t n;

    set_ok(s, "db", NULL, "v", 1);
    prop_secrets_free(s);
    before = slurp(P("nokey.secrets"), NULL);
    ck_assert_int_eq(setenv("GNUPGHOME", home_pub, 1), 0);
    s = open_ok(P("nokey.secrets"));
    /* Listing needs no key. */
    ck_assert_uint_eq(prop_secrets_count(s), 1);
    ck_assert_int_eq(prop_secrets_has(s, "db", "any"), 1);
    ck_assert_int_eq(prop_secrets_reveal(s, "db", NULL, &d, &n), PROP_ERROR);
    assert_error_has(s, "nokey.secrets:4: db: no secret key");
    /* Adding a recipient needs every value decrypted: refused. */
    ck_assert_int_eq(prop_secrets_recipient_add(s, fpr_b), PROP_ERROR);
    assert_error_has(s, "no secret key");
    ck_assert_uint_eq(prop_secrets_nrecipients(s), 1);
    /* Setting a value needs the public keys only. */
    set_ok(s, "other", NULL, "w", 1);
    prop_secrets_free(s);
    after = slurp(P("nokey.secrets"), NULL);
    ck_assert_ptr_nonnull(strstr(after, "secret other "));
    free(after);
    free(before);
}
END_TEST

static int
give_passphrase(void *ud, const char *uid_hint, int attempt, char *buf, size_t size)
{
    const char *pw = ud;

    (void)uid_hint;
    if (attempt > 1)
        return -1;
    snprintf(buf, size, "%s", pw);
    return 0;
}

START_TEST(test_wrong_passphrase)
{
    prop_secrets *s;
    const unsigned char *d;
    char *before, *after;
    size_t n;

    unlink(P("pass.secrets"));
    s = open_ok(P("pass.secrets"));
    add_ok(s, fpr_c);
    set_ok(s, "db", NULL, "v", 1);
    prop_secrets_free(s);
    before = slurp(P("pass.secrets"), NULL);

    s = open_ok(P("pass.secrets"));
    prop_secrets_set_passphrase_cb(s, give_passphrase, "wrong");
    ck_assert_int_eq(prop_secrets_reveal(s, "db", NULL, &d, &n), PROP_ERROR);
    assert_error_has(s, "pass.secrets:4: db: wrong passphrase");
    ck_assert_int_eq(prop_secrets_recipient_add(s, fpr_a), PROP_ERROR);
    assert_error_has(s, "wrong passphrase");
    after = slurp(P("pass.secrets"), NULL);
    ck_assert_str_eq(after, before);
    free(after);
    prop_secrets_free(s);

    s = open_ok(P("pass.secrets"));
    prop_secrets_set_passphrase_cb(s, give_passphrase, "right");
    expect_value(s, "db", NULL, "v", 1);
    prop_secrets_free(s);
    free(before);
}
END_TEST

/* ---- set-up: keys ---- */

/* Make a key pair: ed25519 for signing, a cv25519 subkey to encrypt. */
static void
make_key(const char *who, const char *pass, char *fpr)
{
    char cmd[1024];
    const char *f;

    if (sh("GNUPGHOME=%s gpg --batch --quiet --pinentry-mode loopback --passphrase '%s' "
           "--quick-gen-key 'Prop Test %s <%c@example.invalid>' ed25519 cert,sign never "
           "2>/dev/null",
           home, pass, who, who[0] + 32) != 0) {
        fprintf(stderr, "check_secrets: gpg cannot make a key\n");
        exit(EXIT_FAILURE);
    }
    snprintf(
        cmd, sizeof cmd,
        "GNUPGHOME=%s gpg --batch --with-colons --list-keys '%c@example.invalid' 2>/dev/null | "
        "awk -F: '/^fpr/ { print $10; exit }'",
        home, who[0] + 32);
    f = first_line(cmd);
    snprintf(fpr, 80, "%s", f);
    if (strlen(fpr) != 40 ||
        sh("GNUPGHOME=%s gpg --batch --quiet --pinentry-mode loopback --passphrase '%s' "
           "--quick-add-key %s cv25519 encr never 2>/dev/null",
           home, pass, fpr) != 0) {
        fprintf(stderr, "check_secrets: gpg cannot add an encryption subkey\n");
        exit(EXIT_FAILURE);
    }
}

/* A keyring with every public key and the secret keys in secret_files. */
static void
make_home(char *dir, const char *name, const char *secret_files)
{
    snprintf(dir, 300, "%s/%s", scratch, name);
    if (sh("mkdir -m 700 %s && GNUPGHOME=%s gpg --batch --quiet --pinentry-mode loopback "
           "--passphrase '' --import %s %s 2>/dev/null",
           dir, dir, P("pub.asc"), secret_files) != 0) {
        fprintf(stderr, "check_secrets: gpg cannot import keys\n");
        exit(EXIT_FAILURE);
    }
}

static void
setup_keys(void)
{
    const char *tmp = getenv("TMPDIR");

    snprintf(scratch, sizeof scratch, "%s/prop-secrets.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(scratch) == NULL) {
        perror("mkdtemp");
        exit(EXIT_FAILURE);
    }
    snprintf(home, sizeof home, "%s/gnupg", scratch);
    /* No passphrase cache: a test of a wrong passphrase must not find the right
     * one; and a cheap passphrase hash, for speed (these keys protect nothing). */
    if (sh("mkdir -m 700 %s && printf 'default-cache-ttl 0\\nmax-cache-ttl 0\\ns2k-count 65536\\n' "
           ">%s/gpg-agent.conf",
           home, home) != 0)
        exit(EXIT_FAILURE);
    make_key("A", "", fpr_a);
    make_key("B", "", fpr_b);
    make_key("C", "right", fpr_c);
    if (sh("GNUPGHOME=%s gpg --batch --armor --export >%s && "
           "GNUPGHOME=%s gpg --batch --armor --export %s >%s && "
           "GNUPGHOME=%s gpg --batch --pinentry-mode loopback --passphrase '' --armor "
           "--export-secret-keys %s >%s && "
           "GNUPGHOME=%s gpg --batch --pinentry-mode loopback --passphrase '' --armor "
           "--export-secret-keys %s >%s",
           home, P("pub.asc"), home, fpr_a, P("pub-a.asc"), home, fpr_a, P("sec-a.asc"), home,
           fpr_b, P("sec-b.asc")) != 0) {
        fprintf(stderr, "check_secrets: gpg cannot export keys\n");
        exit(EXIT_FAILURE);
    }
    make_home(home_a, "gnupg-a", P("sec-a.asc"));
    make_home(home_b, "gnupg-b", P("sec-b.asc"));
    make_home(home_pub, "gnupg-pub", "");
    if (setenv("GNUPGHOME", home, 1) != 0)
        exit(EXIT_FAILURE);
}

static void
teardown_keys(void)
{
    const char *const homes[] = {home, home_a, home_b, home_pub};
    size_t i;

    for (i = 0; i < sizeof homes / sizeof homes[0]; i++)
        (void)sh("GNUPGHOME=%s gpgconf --kill all 2>/dev/null", homes[i]);
    (void)sh("rm -rf %s", scratch);
}

/* Each test starts in the main keyring (a test may have moved away). */
static void
setup(void)
{
    ck_assert_int_eq(setenv("GNUPGHOME", home, 1), 0);
}

static Suite *
secrets_suite(void)
{
    Suite *s = suite_create("secrets");
    TCase *tc;

    tc = tcase_create("names");
    tcase_add_test(tc, test_store_path);
    tcase_add_test(tc, test_names_and_hosts);
    suite_add_tcase(s, tc);

    tc = tcase_create("values");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_missing_store_is_empty);
    tcase_add_test(tc, test_set_reveal_remove);
    tcase_add_test(tc, test_bad_arguments);
    tcase_add_test(tc, test_host_value_wins);
    tcase_add_test(tc, test_values_byte_exact);
    tcase_add_test(tc, test_set_from_fd);
    tcase_add_test(tc, test_memory_hardened);
    suite_add_tcase(s, tc);

    tc = tcase_create("file");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_hand_written_file);
    tcase_add_test(tc, test_corrupt_stores);
    tcase_add_test(tc, test_moved_value_refused);
    tcase_add_test(tc, test_failed_write_keeps_old);
    tcase_add_test(tc, test_changed_since_read);
    tcase_add_test(tc, test_store_behind_link);
    tcase_add_test(tc, test_relative_path);
    suite_add_tcase(s, tc);

    tc = tcase_create("recipients");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_recipients_reencrypt);
    tcase_add_test(tc, test_remove_recipient_without_key);
    tcase_add_test(tc, test_no_secret_key);
    tcase_add_test(tc, test_wrong_passphrase);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    int status;

    if (system("gpg --version >/dev/null 2>&1") != 0) {
        fprintf(stderr, "check_secrets: gpg is not installed (apt-get install gnupg)\n");
        return EXIT_FAILURE;
    }
    setup_keys();
    status = run_suite(secrets_suite());
    teardown_keys();
    return status;
}
