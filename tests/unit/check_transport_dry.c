/*
 * check_transport_dry.c - the dry-run transport (transport_dry.c) over
 * the local one, on a scratch directory: under PROP_DRY_RUN nothing in it
 * changes and every change is said; under PROP_DRY_DIFF alone the changes
 * are made and said, writes with their diff; what only looks, commands
 * (a run still counted as one, a query not) and failures go through.
 */
#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prop/diff.h"
#include "prop/transport.h"
#include "transport_impl.h"

static prop_transport *T; /* local */
static char D[PATH_MAX];  /* the scratch directory (its realpath) */

/* What the wrapper said: "L " and a line, or "D " and a diff. */
static char *notes;
static size_t notes_len;

static void
record(void *ud, prop_dry_note_kind kind, const char *text, size_t len)
{
    char *p = realloc(notes, notes_len + len + 4);

    ck_assert_ptr_eq(ud, &notes);
    ck_assert_ptr_nonnull(p);
    notes = p;
    memcpy(notes + notes_len, kind == PROP_DRY_NOTE_DIFF ? "D " : "L ", 2);
    memcpy(notes + notes_len + 2, text, len);
    notes_len += len + 2;
    if (kind == PROP_DRY_NOTE_LINE)
        notes[notes_len++] = '\n';
    notes[notes_len] = '\0';
}

/* D/rel, from a ring of buffers. */
static const char *
P(const char *rel)
{
    static char ring[8][PATH_MAX + 256];
    static unsigned next;
    char *b = ring[next++ % 8];

    ck_assert_int_lt(snprintf(b, sizeof ring[0], "%s/%s", D, rel), (int)sizeof ring[0]);
    return b;
}

static void
put(const char *rel, const char *s)
{
    FILE *f = fopen(P(rel), "wb");

    ck_assert_msg(f != NULL, "fopen %s: %s", P(rel), strerror(errno));
    ck_assert_uint_eq(fwrite(s, 1, strlen(s), f), strlen(s));
    ck_assert_int_eq(fclose(f), 0);
}

/* The file's content ("" when missing). */
static const char *
get(const char *rel)
{
    static char buf[4096];
    FILE *f = fopen(P(rel), "rb");
    size_t n = 0;

    if (f) {
        n = fread(buf, 1, sizeof buf - 1, f);
        ck_assert_int_eq(fclose(f), 0);
    }
    buf[n] = '\0';
    return buf;
}

static int
there(const char *rel)
{
    struct stat st;

    return lstat(P(rel), &st) == 0;
}

static unsigned
mode_of(const char *rel)
{
    struct stat st;

    ck_assert_int_eq(lstat(P(rel), &st), 0);
    return (unsigned)st.st_mode & 07777;
}

/* Every entry below D: its name, type, mode, size and content, in a string. */
static char snap[65536];
static size_t snap_len;

static int
snap_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    char target[256] = "";
    const char *content = "";

    (void)flag;
    (void)ftw;
    if (S_ISLNK(st->st_mode))
        ck_assert_int_ge(readlink(path, target, sizeof target - 1), 0);
    if (S_ISREG(st->st_mode))
        content = get(path + strlen(D) + 1);
    snap_len +=
        (size_t)snprintf(snap + snap_len, sizeof snap - snap_len, "%s %o %lld %s [%s]\n", path,
                         (unsigned)st->st_mode, (long long)st->st_size, target, content);
    ck_assert_uint_lt(snap_len, sizeof snap);
    return 0;
}

static char *
snapshot(void)
{
    snap_len = 0;
    snap[0] = '\0';
    ck_assert_int_eq(nftw(D, snap_one, 16, FTW_PHYS), 0);
    return strdup(snap);
}

/* The note of a diff of old against new_ at rel, as the wrapper makes it. */
static void
want_diff(char *buf, size_t size, const char *rel, const char *old, const char *new_)
{
    char a[PATH_MAX + 8], b[PATH_MAX + 8], *d = NULL;
    size_t dlen = 0;

    snprintf(a, sizeof a, "%s%s", old ? "a" : "/dev/null", old ? P(rel) : "");
    snprintf(b, sizeof b, "b%s", P(rel));
    ck_assert_int_eq(prop_diff_unified(old ? old : "", old ? strlen(old) : 0, new_, strlen(new_), a,
                                       b, 3, &d, &dlen),
                     PROP_OK);
    ck_assert_ptr_nonnull(d);
    ck_assert_uint_lt(strlen(buf) + dlen + 3, size);
    strcat(buf, "D ");
    strcat(buf, d);
    free(d);
}

static void
want_line(char *buf, size_t size, const char *line)
{
    ck_assert_uint_lt(strlen(buf) + strlen(line) + 4, size);
    strcat(buf, "L ");
    strcat(buf, line);
    strcat(buf, "\n");
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void
setup(void)
{
    const char *tmp = getenv("TMPDIR");
    char tmpl[PATH_MAX];

    ck_assert_int_lt(snprintf(tmpl, sizeof tmpl, "%s/prop-check-dry-XXXXXX", tmp ? tmp : "/tmp"),
                     (int)sizeof tmpl);
    ck_assert_ptr_nonnull(mkdtemp(tmpl));
    ck_assert_ptr_nonnull(realpath(tmpl, D));
    ck_assert_int_eq(prop_transport_local(&T), PROP_OK);
    notes = NULL;
    notes_len = 0;
}

static void
teardown(void)
{
    prop_transport_close(T);
    T = NULL;
    free(notes);
    notes = NULL;
    if (D[0])
        ck_assert_int_eq(nftw(D, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
    D[0] = '\0';
}

/* f, gone and the directory d, as every test starts. */
static void
scratch(void)
{
    put("f", "one\ntwo\n");
    put("gone", "bye\n");
    ck_assert_int_eq(mkdir(P("d"), 0755), 0);
    ck_assert_int_eq(chmod(P("f"), 0644), 0);
}

START_TEST(test_dry_run_changes_nothing)
{
    prop_transport *w = NULL;
    prop_file_attrs mode = {0600, NULL, NULL}, owner = {-1, "root", "0"};
    char *before, *after, want[16384] = "", line[PATH_MAX + 1200], *data = NULL;
    prop_file_stat st;
    size_t len = 0;

    scratch();
    before = snapshot();
    ck_assert_int_eq(prop_transport_dry(&w, T, PROP_DRY_RUN | PROP_DRY_DIFF, record, &notes),
                     PROP_OK);
    ck_assert_str_eq(prop_transport_name(w), prop_transport_name(T));

    ck_assert_int_eq(prop_transport_write(w, P("f"), "one\nthree\n", 10, &mode), PROP_OK);
    want_diff(want, sizeof want, "f", "one\ntwo\n", "one\nthree\n");
    snprintf(line, sizeof line, "would write %s (10 bytes)", P("f"));
    want_line(want, sizeof want, line);

    ck_assert_int_eq(prop_transport_write(w, P("new"), "x\n", 2, NULL), PROP_OK);
    want_diff(want, sizeof want, "new", NULL, "x\n");
    snprintf(line, sizeof line, "would write %s (2 bytes)", P("new"));
    want_line(want, sizeof want, line);

    /* The same content: no diff. */
    ck_assert_int_eq(prop_transport_write(w, P("f"), "one\ntwo\n", 8, NULL), PROP_OK);
    snprintf(line, sizeof line, "would write %s (8 bytes)", P("f"));
    want_line(want, sizeof want, line);

    ck_assert_int_eq(prop_transport_write_secret(w, P("f"), "s3cret", 6, NULL), PROP_OK);
    snprintf(line, sizeof line, "%s: secret content, diff not shown", P("f"));
    want_line(want, sizeof want, line);
    snprintf(line, sizeof line, "would write %s (6 bytes)", P("f"));
    want_line(want, sizeof want, line);

    ck_assert_int_eq(prop_transport_write_secret(w, P("sec"), NULL, 0, NULL), PROP_OK);
    snprintf(line, sizeof line, "%s: secret content, diff not shown", P("sec"));
    want_line(want, sizeof want, line);
    snprintf(line, sizeof line, "would write %s (a secret)", P("sec"));
    want_line(want, sizeof want, line);

    /* A directory cannot be read for a diff. */
    ck_assert_int_eq(prop_transport_write(w, P("d"), "x", 1, NULL), PROP_OK);
    ck_assert_str_ne(prop_transport_error(T), "");
    snprintf(line, sizeof line, "%s: cannot read the old content for a diff: %s", P("d"),
             prop_transport_error(T));
    want_line(want, sizeof want, line);
    snprintf(line, sizeof line, "would write %s (1 bytes)", P("d"));
    want_line(want, sizeof want, line);

    ck_assert_int_eq(prop_transport_remove(w, P("gone")), PROP_OK);
    ck_assert_int_eq(prop_transport_mkdir(w, P("made"), &mode), PROP_OK);
    ck_assert_int_eq(prop_transport_symlink(w, "f", P("link")), PROP_OK);
    ck_assert_int_eq(prop_transport_chattr(w, P("f"), &mode), PROP_OK);
    ck_assert_int_eq(prop_transport_chattr(w, P("f"), &owner), PROP_OK);
    after = snapshot();
    ck_assert_str_eq(after, before);

    /* What only looks goes through. */
    ck_assert_int_eq(prop_transport_read(w, P("f"), &data, &len), PROP_OK);
    ck_assert_str_eq(data, "one\ntwo\n");
    free(data);
    ck_assert_int_eq(prop_transport_stat(w, P("d"), &st), PROP_OK);
    ck_assert_int_eq(st.type, PROP_FT_DIR);
    ck_assert_int_eq(prop_transport_stat(w, P("new"), &st), PROP_ENOTFOUND);

    snprintf(line, sizeof line, "would remove %s", P("gone"));
    want_line(want, sizeof want, line);
    snprintf(line, sizeof line, "would make directory %s", P("made"));
    want_line(want, sizeof want, line);
    snprintf(line, sizeof line, "would link %s -> f", P("link"));
    want_line(want, sizeof want, line);
    snprintf(line, sizeof line, "would set %s mode 0600", P("f"));
    want_line(want, sizeof want, line);
    snprintf(line, sizeof line, "would set %s owner root group 0", P("f"));
    want_line(want, sizeof want, line);
    ck_assert_str_eq(notes, want);
    free(before);
    free(after);
    prop_transport_close(w);
}
END_TEST

START_TEST(test_diff_makes_changes)
{
    prop_transport *w = NULL;
    prop_file_attrs mode = {0600, NULL, NULL};
    char want[16384] = "", line[PATH_MAX + 1200];

    scratch();
    ck_assert_int_eq(prop_transport_dry(&w, T, PROP_DRY_DIFF, record, &notes), PROP_OK);

    ck_assert_int_eq(prop_transport_write(w, P("f"), "one\nthree\n", 10, NULL), PROP_OK);
    ck_assert_str_eq(get("f"), "one\nthree\n");
    want_diff(want, sizeof want, "f", "one\ntwo\n", "one\nthree\n");

    ck_assert_int_eq(prop_transport_write_secret(w, P("f"), "s3cret", 6, NULL), PROP_OK);
    ck_assert_str_eq(get("f"), "s3cret");
    snprintf(line, sizeof line, "%s: secret content, diff not shown", P("f"));
    want_line(want, sizeof want, line);

    /* A secret without its bytes is for a dry run only. */
    ck_assert_int_eq(prop_transport_write_secret(w, P("sec"), NULL, 0, NULL), PROP_EINVAL);
    ck_assert(!there("sec"));

    ck_assert_int_eq(prop_transport_remove(w, P("gone")), PROP_OK);
    ck_assert(!there("gone"));
    snprintf(line, sizeof line, "removed %s", P("gone"));
    want_line(want, sizeof want, line);

    ck_assert_int_eq(prop_transport_mkdir(w, P("made"), &mode), PROP_OK);
    ck_assert_uint_eq(mode_of("made"), 0600);

    ck_assert_int_eq(prop_transport_symlink(w, "f", P("link")), PROP_OK);
    ck_assert_str_eq(get("link"), "s3cret");
    snprintf(line, sizeof line, "linked %s -> f", P("link"));
    want_line(want, sizeof want, line);

    ck_assert_int_eq(prop_transport_chattr(w, P("f"), &mode), PROP_OK);
    ck_assert_uint_eq(mode_of("f"), 0600);
    snprintf(line, sizeof line, "set %s mode 0600", P("f"));
    want_line(want, sizeof want, line);

    /* A chattr is said before it is made; a failed remove is not said. */
    ck_assert_int_eq(prop_transport_chattr(w, P("nothere"), &mode), PROP_ENOTFOUND);
    snprintf(line, sizeof line, "set %s mode 0600", P("nothere"));
    want_line(want, sizeof want, line);
    ck_assert_int_eq(prop_transport_remove(w, P("gone")), PROP_ENOTFOUND);
    ck_assert_int_eq(prop_transport_sync(w), PROP_OK);
    ck_assert_str_eq(notes, want);
    prop_transport_close(w);
}
END_TEST

START_TEST(test_through)
{
    prop_transport *w = NULL;
    const char *echo[] = {"sh", "-c", "echo hi", NULL};
    prop_cmd_result r;
    unsigned long changes;

    ck_assert_int_eq(prop_transport_dry(&w, T, 0, record, &notes), PROP_OK);
    ck_assert_int_eq(prop_transport_write(w, P("f"), "x\n", 2, NULL), PROP_OK);
    ck_assert_str_eq(get("f"), "x\n");
    ck_assert_ptr_null(notes);

    /* A run is a run for the inner transport, a query a query. */
    changes = T->changes;
    ck_assert_int_eq(prop_transport_query(w, echo, NULL, 0, &r), PROP_OK);
    ck_assert_str_eq(r.out, "hi\n");
    prop_cmd_result_clear(&r);
    ck_assert_uint_eq(T->changes, changes);
    ck_assert_int_eq(prop_transport_run(w, echo, NULL, 0, &r), PROP_OK);
    ck_assert_str_eq(r.out, "hi\n");
    prop_cmd_result_clear(&r);
    ck_assert_uint_eq(T->changes, changes + 1);
    ck_assert_int_eq(prop_transport_query(w, echo, NULL, 0, &r), PROP_OK);
    prop_cmd_result_clear(&r);
    ck_assert_uint_eq(T->changes, changes + 1);

    /* A failure: the inner transport's code and reason. */
    ck_assert_int_eq(prop_transport_write(w, P("no/such/dir"), "x", 1, NULL), PROP_ERROR);
    ck_assert_str_ne(prop_transport_error(w), "");
    ck_assert_str_eq(prop_transport_error(w), prop_transport_error(T));
    ck_assert_int_eq(prop_transport_remove(w, P("nothere")), PROP_ENOTFOUND);
    ck_assert_ptr_null(notes);
    prop_transport_close(w);
}
END_TEST

START_TEST(test_arguments)
{
    prop_transport *w = T;

    ck_assert_int_eq(prop_transport_dry(NULL, T, PROP_DRY_RUN, record, &notes), PROP_EINVAL);
    ck_assert_int_eq(prop_transport_dry(&w, NULL, PROP_DRY_RUN, record, &notes), PROP_EINVAL);
    ck_assert_ptr_null(w);
    ck_assert_int_eq(prop_transport_dry(&w, T, PROP_DRY_RUN, NULL, NULL), PROP_EINVAL);
    ck_assert_int_eq(prop_transport_dry(&w, T, 4, record, &notes), PROP_EINVAL);
    ck_assert_ptr_null(w);
    /* Elsewhere a secret needs its bytes. */
    ck_assert_int_eq(prop_transport_write_secret(T, P("f"), NULL, 0, NULL), PROP_EINVAL);
    ck_assert_int_eq(prop_transport_write_secret(T, P("f"), "s", 1, NULL), PROP_OK);
    ck_assert_str_eq(get("f"), "s");
}
END_TEST

static Suite *
dry_suite(void)
{
    Suite *s = suite_create("transport_dry");
    TCase *tc = tcase_create("dry");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_dry_run_changes_nothing);
    tcase_add_test(tc, test_diff_makes_changes);
    tcase_add_test(tc, test_through);
    tcase_add_test(tc, test_arguments);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(dry_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
