/*
 * check_lua_run.c - the run object (bindings/run.h) without the prop
 * command: a site loaded in C, run with run_new and run_hosts on a
 * directory tree, what its observer is told, run_stop, and an observer
 * of another version refused.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run.h"
#include "unit.h"

static char dir[] = "/tmp/prop-check-run.XXXXXX";
static char site[256], root[256];
static lprop_ctx *ctx;
static const prop_host *host;

/* What the observer was told. */
typedef struct seen {
    int hosts, results, failures;
    const char *state; /* the last host's ("" for NULL) */
    unsigned ok, changed, failed;
    char failed_prop[256];
} seen;

static void
on_host(const prop_host *h, const outcome *oc, const char *state, const char *why, void *payload)
{
    seen *s = payload;

    (void)h;
    (void)why;
    s->hosts++;
    s->state = state ? state : "";
    s->ok = oc->ok;
    s->changed = oc->changed;
    s->failed = oc->failed;
}

static void
on_result(const prop_host *h, const prop_node *n, prop_result r, void *payload)
{
    seen *s = payload;

    (void)h;
    (void)n;
    ck_assert(r == PROP_RESULT_OK || r == PROP_RESULT_CHANGED);
    s->results++;
}

static void
on_failure(const prop_host *h, const prop_node *n, const char *msg, void *payload)
{
    seen *s = payload;

    (void)h;
    (void)msg;
    s->failures++;
    snprintf(s->failed_prop, sizeof s->failed_prop, "%s", prop_node_desc(n));
}

static void
setup(void)
{
    cli_site_opts so;
    FILE *f;
    int evaluated;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(site, sizeof site, "%s/site.lua", dir);
    snprintf(root, sizeof root, "%s/root", dir);
    ck_assert_int_eq(sh("mkdir -p '%s' && echo not-a-directory >'%s/blocker'", root, root), 0);
    f = fopen(site, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f,
            "host \"t\" {\n"
            "  connect.dir \"%s\",\n"
            "  file.has_content(\"/a\", \"x\\n\"),\n"
            "  file.has_content(\"/blocker/b\", \"y\\n\"),\n"
            "}\n",
            root);
    ck_assert_int_eq(fclose(f), 0);
    cli_site_opts_init(&so);
    so.color_out = so.color_err = 0;
    ctx = cli_load_site(site, &so, &evaluated);
    ck_assert_ptr_nonnull(ctx);
    ck_assert(evaluated);
    ck_assert_uint_eq(prop_site_nerrors(ctx->site, 0), 0);
    host = prop_site_find_host(ctx->site, "t");
    ck_assert_ptr_nonnull(host);
}

static void
teardown(void)
{
    lprop_close(ctx);
    ctx = NULL;
    ck_assert_int_eq(sh("rm -rf '%s'", dir), 0);
    strcpy(dir, "/tmp/prop-check-run.XXXXXX");
}

static run_opts
opts(void)
{
    run_opts o;

    memset(&o, 0, sizeof o);
    cli_site_opts_init(&o.site);
    o.site.color_out = o.site.color_err = 0;
    o.jobs = 1;
    o.site_path = site;
    return o;
}

START_TEST(test_observer_told)
{
    run_observer obs = RUN_OBSERVER_INIT;
    run_opts o = opts();
    seen s;
    outcome oc;
    run *r;
    char path[300];
    struct stat st;

    memset(&s, 0, sizeof s);
    memset(&oc, 0, sizeof oc);
    obs.host_done = on_host;
    obs.prop_result = on_result;
    obs.failure = on_failure;
    obs.payload = &s;
    r = run_new(ctx, &o, &obs);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(run_hosts(r, &host, 1, &oc), EXIT_FAILED);
    run_free(r);
    ck_assert_int_eq(s.hosts, 1);
    ck_assert_str_eq(s.state, "");
    ck_assert_uint_eq(s.changed, 1);
    ck_assert_uint_eq(s.failed, 1);
    ck_assert_int_eq(s.results, 1);
    ck_assert_int_eq(s.failures, 1);
    ck_assert_ptr_nonnull(strstr(s.failed_prop, "/blocker/b"));
    ck_assert_uint_eq(oc.changed, 1);
    ck_assert_uint_eq(oc.failed, 1);
    snprintf(path, sizeof path, "%s/a", root);
    ck_assert_int_eq(stat(path, &st), 0);
}
END_TEST

START_TEST(test_stopped_before)
{
    run_observer obs = RUN_OBSERVER_INIT;
    run_opts o = opts();
    seen s;
    outcome oc;
    run *r;
    char path[300];

    memset(&s, 0, sizeof s);
    memset(&oc, 0, sizeof oc);
    obs.host_done = on_host;
    obs.payload = &s;
    r = run_new(ctx, &o, &obs);
    ck_assert_ptr_nonnull(r);
    run_stop(r, SIGTERM);
    ck_assert(run_stopping(r));
    ck_assert_int_eq(run_hosts(r, &host, 1, &oc), EXIT_INTERRUPTED);
    run_free(r);
    ck_assert(oc.stopped);
    ck_assert_uint_eq(oc.skipped, prop_host_nprops(host));
    ck_assert_int_eq(s.hosts, 0);
    snprintf(path, sizeof path, "%s/a", root);
    ck_assert_int_ne(access(path, F_OK), 0);
}
END_TEST

START_TEST(test_observer_version)
{
    run_observer obs = RUN_OBSERVER_INIT;
    run_opts o = opts();

    obs.version = RUN_OBSERVER_VERSION + 1;
    ck_assert_ptr_null(run_new(ctx, &o, &obs));
    ck_assert(!run_stopping(NULL));
}
END_TEST

int
main(void)
{
    Suite *s = suite_create("run object");
    TCase *tc = tcase_create("run");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_observer_told);
    tcase_add_test(tc, test_stopped_before);
    tcase_add_test(tc, test_observer_version);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
