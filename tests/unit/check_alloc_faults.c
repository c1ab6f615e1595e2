/*
 * check_alloc_faults.c - out of memory anywhere in the engine's own
 * allocations (alloc.h): whole operations of the local, tree and dry-run
 * transports, and of the secret store (read, looked up, a value removed
 * and written back), run again and again, the Nth allocation refused each time
 * for N = 1, 2, ... until a run makes fewer than N.  Each run must end in
 * a clean result (done, or an error), never a crash; under the sanitizers
 * (CI's second pass) nothing it allocated may leak, and no freed memory be
 * touched.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "prop/prop.h"
#include "prop/secrets.h"
#include "prop/transport.h"
#include "unit.h"

/* Refusals walked at most per operation: far more than any makes. */
#define MAX_WALK 20000

static char scratch[64];
static char last_error[512]; /* the last operation's, for a failure */

/* A result that is no crash: done, or one of the engine's errors. */
static int
clean(int rc)
{
    return rc == PROP_OK || rc == PROP_ERROR || rc == PROP_ENOMEM || rc == PROP_ENOTFOUND ||
           rc == PROP_EINVAL;
}

static void
note(void *ud, prop_dry_note_kind kind, const char *text, size_t len)
{
    (void)kind;
    (void)text;
    *(size_t *)ud += len;
}

/* What each walked operation does on transport t: a command with input
 * and both outputs, a file written, read back, looked at and removed, a
 * directory made and removed.  The first error ends it. */
static int
files_and_commands(prop_transport *t, const char *dir)
{
    static const char *const argv[] = {"sh", "-c", "cat; echo to-stderr >&2", NULL};
    prop_file_attrs attrs = {0640, NULL, NULL};
    prop_cmd_result r;
    prop_file_stat st;
    char path[128], sub[128], *data = NULL;
    size_t len = 0;
    int rc;

    snprintf(path, sizeof path, "%s/file", dir);
    snprintf(sub, sizeof sub, "%s/sub", dir);
    memset(&r, 0, sizeof r);
    if (strncmp(prop_transport_name(t), "dir:", 4) != 0) { /* a tree runs no command */
        rc = prop_transport_run(t, argv, "input\n", 6, &r);
        prop_cmd_result_clear(&r);
        if (rc != PROP_OK)
            return rc;
    }
    if ((rc = prop_transport_write(t, path, "one\ntwo\n", 8, &attrs)) != PROP_OK)
        return rc;
    if ((rc = prop_transport_write(t, path, "one\nthree\n", 10, &attrs)) != PROP_OK)
        return rc;
    rc = prop_transport_read(t, path, &data, &len);
    free(data);
    if (rc != PROP_OK && rc != PROP_ENOTFOUND) /* a dry run wrote nothing */
        return rc;
    if ((rc = prop_transport_stat(t, path, &st)) != PROP_OK && rc != PROP_ENOTFOUND)
        return rc;
    if ((rc = prop_transport_mkdir(t, sub, &attrs)) != PROP_OK)
        return rc;
    if ((rc = prop_transport_remove(t, sub)) != PROP_OK && rc != PROP_ENOTFOUND)
        return rc;
    if ((rc = prop_transport_remove(t, path)) != PROP_OK && rc != PROP_ENOTFOUND)
        return rc;
    return PROP_OK;
}

/* The secret store without gpg: a store read (its lines, each message's
 * OpenPGP framing), looked up, and a value removed (the store written back
 * through the atomic writer).  The messages are framing only: a session
 * key packet and an encrypted data packet, neither ever decrypted. */
static int
secret_store(void)
{
    static const char text[] =
        "# a store\nprop-secrets 1\n"
        "recipient 0123456789ABCDEF0123456789ABCDEF01234567 Someone <s@example.invalid>\n"
        "secret alpha wQED0gEB\nsecret beta web1 wQED0gEB\n";
    prop_secrets *s = NULL;
    char path[128];
    FILE *f;
    int rc;

    snprintf(path, sizeof path, "%s/site.secrets", scratch);
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fputs(text, f) >= 0, 1);
    ck_assert_int_eq(fclose(f), 0);
    rc = prop_secrets_open(&s, path);
    if (rc == PROP_OK && s == NULL)
        rc = PROP_ERROR;
    if (rc == PROP_OK && (prop_secrets_count(s) != 2 || !prop_secrets_has(s, "beta", "web1")))
        ck_abort_msg("the store was read wrong");
    if (rc == PROP_OK)
        rc = prop_secrets_remove(s, "alpha", NULL);
    snprintf(last_error, sizeof last_error, "%s",
             s && prop_secrets_error(s) ? prop_secrets_error(s) : "");
    prop_secrets_free(s);
    return rc;
}

enum { LOCAL, TREE, DRY, SECRETS };

static int
operation(int kind)
{
    prop_transport *t = NULL, *inner = NULL;
    size_t noted = 0;
    int rc;

    if (kind == SECRETS)
        return secret_store();
    switch (kind) {
    case LOCAL:
        rc = prop_transport_local(&t);
        break;
    case TREE: {
        char w[96];

        snprintf(w, sizeof w, "%s/w", scratch);
        (void)mkdir(w, 0755);
        rc = prop_transport_dir(&t, scratch);
        break;
    }
    default:
        rc = prop_transport_local(&inner);
        if (rc == PROP_OK)
            rc = prop_transport_dry(&t, inner, PROP_DRY_RUN | PROP_DRY_DIFF, note, &noted);
        break;
    }
    if (rc == PROP_OK)
        rc = files_and_commands(t, kind == TREE ? "/w" : scratch);
    snprintf(last_error, sizeof last_error, "%s",
             t && prop_transport_error(t) ? prop_transport_error(t) : "");
    prop_transport_close(t);
    if (kind == DRY)
        prop_transport_close(inner);
    return rc;
}

/* Walk the refusals over one operation; returns how many were walked. */
static unsigned long long
walk(int kind)
{
    unsigned long long n;
    char rm[512];
    int rc;

    for (n = 1; n < MAX_WALK; n++) {
        prop_alloc_fail_at(n);
        rc = operation(kind);
        if (prop_alloc_count() < n) { /* nothing refused: the whole of it ran */
            prop_alloc_fail_at(0);
            ck_assert_msg(rc == PROP_OK, "kind %d: without a refusal it fails (%d: %s)", kind, rc,
                          last_error);
            break;
        }
        prop_alloc_fail_at(0);
        ck_assert_msg(clean(rc), "kind %d, allocation %llu refused: result %d", kind, n, rc);
        snprintf(rm, sizeof rm, "rm -rf %s/file %s/sub %s/w/file %s/w/sub", scratch, scratch,
                 scratch, scratch);
        ck_assert_int_eq(system(rm), 0);
    }
    ck_assert_uint_lt(n, MAX_WALK);
    printf("kind %d: %llu allocations, each refused in turn\n", kind, n - 1);
    return n;
}

START_TEST(test_local_transport)
{
    ck_assert_uint_gt(walk(LOCAL), 5);
}
END_TEST

START_TEST(test_tree_transport)
{
    ck_assert_uint_gt(walk(TREE), 5);
}
END_TEST

START_TEST(test_dry_transport)
{
    ck_assert_uint_gt(walk(DRY), 5);
}
END_TEST

START_TEST(test_secret_store)
{
    ck_assert_uint_gt(walk(SECRETS), 5);
}
END_TEST

static void
setup(void)
{
    snprintf(scratch, sizeof scratch, "/tmp/prop-faults.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(scratch));
}

static void
teardown(void)
{
    char rm[512];

    snprintf(rm, sizeof rm, "rm -rf %s", scratch);
    ck_assert_int_eq(system(rm), 0);
}

int
main(void)
{
    Suite *s = suite_create("alloc_faults");
    TCase *tc = tcase_create("alloc_faults");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_local_transport);
    tcase_add_test(tc, test_tree_transport);
    tcase_add_test(tc, test_dry_transport);
    tcase_add_test(tc, test_secret_store);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
