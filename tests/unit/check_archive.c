/*
 * check_archive.c - the archive reader (archive.c) on real archives made
 * in a temporary directory: tar with gzip, xz and zstd and zip (made by
 * the tar and zip commands), strip and exclude, and the entries it
 * refuses (made with libarchive's writer, as no tar command writes them):
 * an absolute path, "..", a path below a symbolic link of the archive, a
 * hard link out of it; then a corrupt and a truncated archive.
 */
#include <archive.h>
#include <archive_entry.h>
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "archive_reader.h"
#include "unit.h"

static char dir[64];

static void
setup(void)
{
    strcpy(dir, "/tmp/prop-check-archive-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    /* src/: top/a.txt (0640), top/sub/b.txt, top/link -> a.txt,
     * top/skip.log */
    ck_assert_int_eq(sh("cd %s && mkdir -p src/top/sub && printf 'alpha\\n' >src/top/a.txt && "
                        "chmod 640 src/top/a.txt && printf 'beta' >src/top/sub/b.txt && "
                        "ln -s a.txt src/top/link && echo log >src/top/skip.log",
                        dir),
                     0);
}

static void
teardown(void)
{
    (void)sh("rm -rf %s", dir);
}

/* The entries of archive name in dir as "TYPE PATH MODE [=content|->target]"
 * lines, or "ERROR: why". */
static void
listing(const char *name, const prop_ar_opts *o, char *out, size_t size)
{
    char path[256], err[1024], line[512];
    prop_archive *a = NULL;
    prop_ar_entry e;
    int r;

    out[0] = '\0';
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (prop_archive_open_file(&a, path, o, err, sizeof err) != 0) {
        append(out, size, "ERROR: ", err);
        return;
    }
    while ((r = prop_archive_next(a, &e)) == 1) {
        static const char *const types[] = {"?", "file", "dir", "symlink", "hardlink"};

        snprintf(line, sizeof line, "%s %s %04o", types[e.type], e.path, e.mode);
        append(out, size, line, "");
        if (e.type == PROP_AR_FILE) {
            snprintf(line, sizeof line, " =%.*s", (int)e.len, (const char *)e.data);
            append(out, size, line, "");
        } else if (e.link) {
            append(out, size, " ->", e.link);
        }
        append(out, size, "\n", "");
    }
    if (r < 0)
        append(out, size, "ERROR: ", prop_archive_error(a));
    prop_archive_close(a);
}

static const char want_all[] = "dir top 0755\n"
                               "file top/a.txt 0640 =alpha\n\n"
                               "symlink top/link 0777 ->a.txt\n"
                               "file top/skip.log 0644 =log\n\n"
                               "dir top/sub 0755\n"
                               "file top/sub/b.txt 0644 =beta\n";

START_TEST(test_formats)
{
    static const char *const make[] = {
        "tar -C src --sort=name -czf t.tgz top",
        "tar -C src --sort=name -cJf t.txz top",
        "tar -C src --sort=name --zstd -cf t.tzst top",
        "cd src && zip -qry ../t.zip top/a.txt top/link top/skip.log top/sub top/sub/b.txt",
    };
    static const char *const names[] = {"t.tgz", "t.txz", "t.tzst", "t.zip"};
    char out[4096];
    size_t i;

    (void)sh("chmod 755 %s/src/top %s/src/top/sub; umask 022", dir, dir);
    for (i = 0; i < 4; i++) {
        ck_assert_int_eq(sh("cd %s && umask 022 && %s", dir, make[i]), 0);
        listing(names[i], NULL, out, sizeof out);
        if (i == 3) /* zip: no entry for the top directory itself */
            ck_assert_str_eq(out, want_all + strlen("dir top 0755\n"));
        else
            ck_assert_str_eq(out, want_all);
    }
}
END_TEST

START_TEST(test_strip_exclude)
{
    static const char *const excl[] = {"*.log", "sub"};
    prop_ar_opts o = {1, excl, 2, 0, 0};
    char out[4096];

    ck_assert_int_eq(sh("cd %s && chmod 755 src/top src/top/sub && "
                        "tar -C src --sort=name -czf t.tgz top",
                        dir),
                     0);
    listing("t.tgz", &o, out, sizeof out);
    /* "top" stripped to nothing is skipped; sub/ and what is in it, and
     * skip.log, are excluded. */
    ck_assert_str_eq(out, "file a.txt 0640 =alpha\n\nsymlink link 0777 ->a.txt\n");
    o.strip = 2;
    o.nexclude = 0;
    listing("t.tgz", &o, out, sizeof out);
    ck_assert_str_eq(out, "file b.txt 0644 =beta\n");
    /* A limit on an entry's size. */
    o.strip = 0;
    o.max_entry = 4;
    listing("t.tgz", &o, out, sizeof out);
    ck_assert_ptr_nonnull(strstr(out, "ERROR: "));
    ck_assert_ptr_nonnull(strstr(out, "entry \"top/a.txt\" is 6 bytes, more than the limit"));
}
END_TEST

/* A tar.gz of entries (type, path, target or content) written with
 * libarchive. */
struct spec {
    int type;
    const char *path, *data;
};

static void
write_tar(const char *name, const struct spec *s, size_t n)
{
    char path[256];
    struct archive *w = archive_write_new();
    size_t i;

    snprintf(path, sizeof path, "%s/%s", dir, name);
    ck_assert_ptr_nonnull(w);
    ck_assert_int_eq(archive_write_set_format_pax_restricted(w), ARCHIVE_OK);
    ck_assert_int_eq(archive_write_add_filter_gzip(w), ARCHIVE_OK);
    ck_assert_int_eq(archive_write_open_filename(w, path), ARCHIVE_OK);
    for (i = 0; i < n; i++) {
        struct archive_entry *e = archive_entry_new();

        ck_assert_ptr_nonnull(e);
        archive_entry_set_pathname(e, s[i].path);
        archive_entry_set_perm(e, 0644);
        if (s[i].type == AE_IFLNK) {
            archive_entry_set_filetype(e, AE_IFLNK);
            archive_entry_set_symlink(e, s[i].data);
        } else if (s[i].type == 0) { /* a hard link */
            archive_entry_set_filetype(e, AE_IFREG);
            archive_entry_set_hardlink(e, s[i].data);
        } else {
            archive_entry_set_filetype(e, (unsigned)s[i].type);
            if (s[i].type == AE_IFREG)
                archive_entry_set_size(e, (la_int64_t)strlen(s[i].data));
        }
        ck_assert_int_eq(archive_write_header(w, e), ARCHIVE_OK);
        if (s[i].type == AE_IFREG)
            ck_assert_int_eq(archive_write_data(w, s[i].data, strlen(s[i].data)),
                             (la_ssize_t)strlen(s[i].data));
        archive_entry_free(e);
    }
    ck_assert_int_eq(archive_write_close(w), ARCHIVE_OK);
    ck_assert_int_eq(archive_write_free(w), ARCHIVE_OK);
}

START_TEST(test_unsafe)
{
    static const struct spec abs_[] = {{AE_IFREG, "ok", "1"}, {AE_IFREG, "/etc/evil", "x"}};
    static const struct spec dots[] = {{AE_IFREG, "a/../../evil", "x"}};
    static const struct spec through[] = {{AE_IFLNK, "d", "/etc"}, {AE_IFREG, "d/passwd", "x"}};
    static const struct spec hard[] = {{0, "h", "/etc/shadow"}};
    static const struct spec hard_ok[] = {{AE_IFREG, "./f", "one"}, {0, "g", "f"}};
    char out[4096];

    write_tar("abs.tgz", abs_, 2);
    listing("abs.tgz", NULL, out, sizeof out);
    ck_assert_ptr_nonnull(strstr(out, "file ok 0644 =1\nERROR: "));
    ck_assert_ptr_nonnull(strstr(out, "abs.tgz: entry \"/etc/evil\" is refused: an absolute path"));

    write_tar("dots.tgz", dots, 1);
    listing("dots.tgz", NULL, out, sizeof out);
    ck_assert_ptr_nonnull(
        strstr(out, "dots.tgz: entry \"a/../../evil\" is refused: a \"..\" component"));

    write_tar("through.tgz", through, 2);
    listing("through.tgz", NULL, out, sizeof out);
    ck_assert_ptr_nonnull(strstr(out, "symlink d 0644 ->/etc\nERROR: "));
    ck_assert_ptr_nonnull(strstr(out, "entry \"d/passwd\" is refused: it is below \"d\", a "
                                      "symbolic link of the archive"));

    write_tar("hard.tgz", hard, 1);
    listing("hard.tgz", NULL, out, sizeof out);
    ck_assert_ptr_nonnull(strstr(out, "entry \"h\" is refused: a hard link to \"/etc/shadow\""));

    write_tar("hardok.tgz", hard_ok, 2);
    listing("hardok.tgz", NULL, out, sizeof out);
    ck_assert_str_eq(out, "file f 0644 =one\nhardlink g 0644 ->f\n");
}
END_TEST

START_TEST(test_corrupt)
{
    char out[4096], path[256], err[1024];
    prop_archive *a = NULL;

    /* Cut short inside the second file's content (uncompressed tar: the
     * header of b is at 512, its content at 1024.. ). */
    ck_assert_int_eq(sh("cd %s && head -c 70000 /dev/urandom >src/big && "
                        "tar -C src -cf t.tar top/a.txt big && head -c 20000 t.tar >cut.tar",
                        dir),
                     0);
    listing("cut.tar", NULL, out, sizeof out);
    ck_assert_ptr_nonnull(strstr(out, "file top/a.txt 0640 =alpha\n\nERROR: "));
    ck_assert_ptr_nonnull(strstr(out, "cut.tar: entry \"big\": "));
    /* A gzip stream cut in half; an xz stream with bytes changed in the
     * middle (its blocks carry a checksum). */
    ck_assert_int_eq(sh("cd %s && seq 1 30000 >src/big && tar -C src -cf t.tar top/a.txt big && "
                        "gzip -c t.tar >t.tgz && head -c $(($(stat -c %%s t.tgz) / 2)) t.tgz "
                        ">cut.tgz && xz -c t.tar >t.txz && n=$(stat -c %%s t.txz) && "
                        "printf 'XXXXXXXXXXXXXXXX' | dd of=t.txz bs=1 seek=$((n / 2)) "
                        "conv=notrunc status=none",
                        dir),
                     0);
    listing("cut.tgz", NULL, out, sizeof out);
    ck_assert_ptr_nonnull(strstr(out, "file top/a.txt 0640 =alpha\n\nERROR: "));
    ck_assert_ptr_nonnull(strstr(out, "cut.tgz: entry \"big\": "));
    listing("t.txz", NULL, out, sizeof out);
    ck_assert_ptr_nonnull(strstr(out, "ERROR: "));
    ck_assert_ptr_nonnull(strstr(out, "t.txz: "));
    /* Not an archive at all. */
    ck_assert_int_eq(sh("cd %s && echo 'just text' >plain.txt", dir), 0);
    listing("plain.txt", NULL, out, sizeof out);
    ck_assert_ptr_nonnull(strstr(out, "ERROR: "));
    ck_assert_ptr_nonnull(strstr(out, "plain.txt"));
    /* A file that is not there. */
    snprintf(path, sizeof path, "%s/missing.tgz", dir);
    ck_assert_int_eq(prop_archive_open_file(&a, path, NULL, err, sizeof err), -1);
    ck_assert_ptr_null(a);
    ck_assert_ptr_nonnull(strstr(err, "missing.tgz: cannot open the archive"));
}
END_TEST

START_TEST(test_memory)
{
    static const char junk[] = "not an archive";
    prop_archive *a = NULL;
    prop_ar_entry e;
    char err[1024];
    FILE *f;
    char path[256], *buf;
    long n;

    ck_assert_int_eq(sh("cd %s && tar -C src -cJf t.txz top/sub/b.txt", dir), 0);
    snprintf(path, sizeof path, "%s/t.txz", dir);
    f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    n = ftell(f);
    ck_assert_int_gt(n, 0);
    rewind(f);
    buf = malloc((size_t)n);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    ck_assert_int_eq(prop_archive_open_memory(&a, "mem.txz", buf, (size_t)n, NULL, err, sizeof err),
                     0);
    ck_assert_int_eq(prop_archive_next(a, &e), 1);
    ck_assert_str_eq(e.path, "top/sub/b.txt");
    ck_assert_uint_eq(e.len, 4);
    ck_assert_int_eq(memcmp(e.data, "beta", 4), 0);
    ck_assert_int_eq(prop_archive_next(a, &e), 0);
    prop_archive_close(a);
    free(buf);
    a = NULL;
    if (prop_archive_open_memory(&a, "junk", junk, sizeof junk - 1, NULL, err, sizeof err) == 0) {
        ck_assert_int_eq(prop_archive_next(a, &e), -1);
        ck_assert_ptr_nonnull(strstr(prop_archive_error(a), "junk: "));
        prop_archive_close(a);
    } else {
        ck_assert_ptr_nonnull(strstr(err, "junk: "));
    }
}
END_TEST

/* Every allocation of the reader's own failing in turn: each ends in a
 * clean error (or, past the last, the whole listing), nothing leaked. */
START_TEST(test_alloc_faults)
{
    static const char *const excl[] = {"*.log"};
    prop_ar_opts o = {1, excl, 1, 0, 0};
    char out[4096], whole[4096];
    unsigned long long n;

    ck_assert_int_eq(sh("cd %s && chmod 755 src/top src/top/sub && "
                        "tar -C src --sort=name -czf t.tgz top",
                        dir),
                     0);
    prop_alloc_fail_at(0);
    listing("t.tgz", &o, whole, sizeof whole);
    ck_assert_ptr_null(strstr(whole, "ERROR"));
    for (n = 1; n < 200; n++) {
        prop_alloc_fail_at(n);
        listing("t.tgz", &o, out, sizeof out);
        prop_alloc_fail_at(0);
        if (strcmp(out, whole) == 0)
            break;
        ck_assert_ptr_nonnull(strstr(out, "out of memory"));
    }
    ck_assert_uint_lt(n, 200);
}
END_TEST

int
main(void)
{
    Suite *s = suite_create("archive");
    TCase *tc = tcase_create("archive");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_formats);
    tcase_add_test(tc, test_strip_exclude);
    tcase_add_test(tc, test_unsafe);
    tcase_add_test(tc, test_corrupt);
    tcase_add_test(tc, test_memory);
    tcase_add_test(tc, test_alloc_faults);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
