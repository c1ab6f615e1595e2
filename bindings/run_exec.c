/*
 * run_exec.c - prop run's callbacks for the executor (engine/src/exec.c),
 * which ensures a host's properties in order: each leaf's
 * check/apply/ensure runs here, in Lua, with the host's `sys` handle;
 * only_if tests; secrets revealed for `sys`; which properties --tags
 * selects; and, as each property ends, its count, its line (text or
 * JSON), the notes and warnings under it, and its --report entry.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>

#include "run.h"

static const char *
result_color(prop_result r)
{
    switch (r) {
    case PROP_RESULT_OK:
        return "\033[32m";
    case PROP_RESULT_CHANGED:
        return "\033[33m";
    case PROP_RESULT_FAILED:
        return "\033[1;31m";
    case PROP_RESULT_INTERRUPTED:
        return "\033[1;35m";
    }
    return "";
}

/* Message handler: the error's text, bounded (errors may be any value). */
static int
leaf_msgh(lua_State *L)
{
    return lprop_msgh(L);
}

/*
 * The message handler, fn (at fn_idx), sys and args (at args_idx; 0:
 * nil) pushed for lua_pcall(L, 2, ...) with a fresh instruction budget:
 * the handler's index, or 0 with *msg "interrupted" (nothing pushed) when
 * the run is stopping, so that nothing more starts.
 */
static int
push_call(host_run *hr, int fn_idx, int args_idx, char **msg)
{
    lua_State *L = hr->ctx->L;
    int base;

    if (run_want_stop(hr)) {
        *msg = strdup("interrupted");
        return 0;
    }
    lua_pushcfunction(L, leaf_msgh);
    base = lua_gettop(L);
    lua_pushvalue(L, fn_idx);
    lua_pushvalue(L, hr->sys_idx);
    if (args_idx)
        lua_pushvalue(L, args_idx);
    else
        lua_pushnil(L);
    lprop_budget_reset(hr->ctx);
    return base;
}

/*
 * Call fn(sys, args) protected, with a fresh instruction budget; fn is at
 * fn_idx, args at args_idx (0: none).  0 with the result's type and truth
 * ("ok" is false, "changed" true), or -1 with *msg set to the error
 * (malloc'd).
 */
static int
call_lua(host_run *hr, int fn_idx, int args_idx, int *ret_type, int *ret_true, char **msg)
{
    lua_State *L = hr->ctx->L;
    int base;

    if ((base = push_call(hr, fn_idx, args_idx, msg)) == 0)
        return -1;
    if (lua_pcall(L, 2, 1, base) != LUA_OK) {
        const char *e = lua_tostring(L, -1);
        *msg = strdup(e ? e : "error");
        lua_settop(L, base - 1);
        return -1;
    }
    *ret_type = lua_type(L, -1);
    *ret_true = lua_toboolean(L, -1);
    if (*ret_type == LUA_TSTRING && strcmp(lua_tostring(L, -1), "ok") == 0)
        *ret_true = 0, *ret_type = LUA_TBOOLEAN;
    else if (*ret_type == LUA_TSTRING && strcmp(lua_tostring(L, -1), "changed") == 0)
        *ret_true = 1, *ret_type = LUA_TBOOLEAN;
    lua_settop(L, base - 1);
    return 0;
}

/* impl[field] pushed when it is a function: 1; else nothing pushed, 0. */
static int
get_fn(lua_State *L, int impl, const char *field)
{
    if (lua_getfield(L, impl, field) == LUA_TFUNCTION)
        return 1;
    lua_pop(L, 1);
    return 0;
}

/*
 * One call of the probe verify(sys, args, changed) at fn_idx, read-only
 * (the mode of a check; changed: the property's apply changed something
 * in this run, so its on_change hooks are still to come): 0 when the effect holds, 1 when it does
 * not (*msg: what it saw, malloc'd), -1 when it could not run (*msg set).  A probe that raises an
 * error, or returns false (with what it saw as a second value), fails; anything else holds.
 */
static int
probe_once(host_run *hr, int fn_idx, int args_idx, int changed, char **msg)
{
    lua_State *L = hr->ctx->L;
    int base, rc = 0;

    if ((base = push_call(hr, fn_idx, args_idx, msg)) == 0)
        return -1;
    lua_pushboolean(L, changed);
    hr->sys.mode = LSYS_TEST;
    if (lua_pcall(L, 3, 2, base) != LUA_OK) {
        const char *e = lua_tostring(L, -1);
        *msg = strdup(e ? e : "error");
        rc = 1;
    } else if (lua_type(L, -2) == LUA_TBOOLEAN && !lua_toboolean(L, -2)) {
        const char *seen = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        *msg = strdup(seen ? seen : "the effect is not there");
        rc = 1;
    }
    hr->sys.mode = LSYS_APPLY;
    lua_settop(L, base - 1);
    if (rc == 1 && *msg == NULL)
        rc = -1;
    return rc;
}

/* The probe's bounded wait, in seconds: args.probe_timeout, else
 * impl.probe_timeout, else PROBE_TIMEOUT. */
#define PROBE_TIMEOUT 5.0
static double
probe_timeout(lua_State *L, int impl, int args)
{
    double t = PROBE_TIMEOUT;
    int found = 0;

    if (lua_istable(L, args)) {
        if (lua_getfield(L, args, "probe_timeout") == LUA_TNUMBER) {
            t = lua_tonumber(L, -1);
            found = 1;
        }
        lua_pop(L, 1);
    }
    if (!found) {
        if (lua_getfield(L, impl, "probe_timeout") == LUA_TNUMBER)
            t = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    /* NaN and anything below 0 is 0. */
    return !(t >= 0) ? 0 : t > 600 ? 600 : t;
}

static double
now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * The probe at fn_idx, asked again every 200 ms until it holds or its
 * time is up (a daemon that starts or reloads asynchronously).  0 holds;
 * 1 does not, *msg what it saw last; -1 could not run.
 */
static int
probe(host_run *hr, int fn_idx, int impl, int args, int changed, char **msg)
{
    double until = now_s() + probe_timeout(hr->ctx->L, impl, args);
    int rc;

    for (;;) {
        rc = probe_once(hr, fn_idx, args, changed, msg);
        if (rc <= 0 || now_s() >= until || run_want_stop(hr))
            return rc;
        free(*msg);
        *msg = NULL;
        nanosleep(&(struct timespec){0, 200 * 1000 * 1000}, NULL);
    }
}

/*
 * verify, when the leaf has one, after its check said ok or its apply
 * ran: the result r stands when the effect holds.  When it does not and
 * the leaf knows the repair (impl.repair), the repair runs and the probe
 * again: changed.  Else failed, with what the probe saw.  A dry run
 * probes only what would not change, and says what it saw as "would fail".
 */
static prop_result
verify_leaf(host_run *hr, int impl, int args, prop_result r, char **msg)
{
    lua_State *L = hr->ctx->L;
    int rt = 0, rv = 0, rc, fn;
    char *seen = NULL;
    const char *what;

    if (r == PROP_RESULT_FAILED || (hr->o->dry && r != PROP_RESULT_OK) ||
        !get_fn(L, impl, "verify"))
        return r;
    fn = lua_gettop(L);
    rc = probe(hr, fn, impl, args, r == PROP_RESULT_CHANGED, &seen);
    if (rc == 0)
        return r;
    if (rc > 0 && !hr->o->dry && get_fn(L, impl, "repair")) {
        free(seen);
        seen = NULL;
        lsys_begin(&hr->sys);
        if (call_lua(hr, lua_gettop(L), args, &rt, &rv, msg) != 0)
            return PROP_RESULT_FAILED;
        lua_pop(L, 1);
        rc = probe(hr, fn, impl, args, r == PROP_RESULT_CHANGED, &seen);
        if (rc == 0)
            return PROP_RESULT_CHANGED;
    }
    what = hr->o->dry ? "would fail: verify" : rc < 0 ? "verify could not run" : "verify";
    free(*msg);
    *msg = NULL;
    if (seen) {
        size_t len = strlen(what) + strlen(seen) + 16;
        *msg = malloc(len);
        if (*msg)
            snprintf(*msg, len, "%s: %s", what, seen);
    }
    free(seen);
    return PROP_RESULT_FAILED;
}

/*
 * The result rules (prop-site(5), "Results"):
 * - ensure(sys, args), the recipes' form, returns "changed" or "ok"
 *   (true/false); when it returns something else, the changes it made say.
 * - else check(sys, args): true means ok, nothing more runs;
 * - then apply(sys, args): "ok" or false means it changed nothing, even
 *   when it ran commands (Propellor's assume NoChange); anything else,
 *   nil included, is changed.
 * An error anywhere is a failure.  In a dry run, a check that asked for
 * sys:run was stopped there: the property would change.
 */
prop_result
run_ensure_leaf(void *ud, const prop_node *leaf, char **msg)
{
    host_run *hr = ud;
    lua_State *L = hr->ctx->L;
    long id = prop_node_behaviour(leaf);
    int top = lua_gettop(L), impl, args, rt = 0, rv = 0;
    prop_result r = PROP_RESULT_FAILED;

    if (id < 0)
        return PROP_RESULT_OK;
    lua_getfield(L, LUA_REGISTRYINDEX, LPROP_BEHAVIOURS);
    lua_rawgeti(L, -1, id);
    impl = lua_gettop(L);
    lua_getfield(L, LUA_REGISTRYINDEX, LPROP_BEHAVIOUR_ARGS);
    lua_rawgeti(L, -1, id);
    args = lua_gettop(L);
    if (!lua_istable(L, impl)) {
        r = PROP_RESULT_OK; /* carries facts only */
        goto done;
    }
    lsys_begin(&hr->sys);
    /* Claims are kept true: a property {} that declared them, and every
     * recipe that claims something, is warned of a write it does not
     * claim (W104). */
    lua_getfield(L, impl, "declared");
    if (lua_toboolean(L, -1) || prop_node_nclaims(leaf) > 0)
        hr->sys.claims_of = leaf;
    lua_pop(L, 1);
    if (get_fn(L, impl, "ensure")) {
        if (call_lua(hr, lua_gettop(L), args, &rt, &rv, msg) != 0)
            goto done;
        if (rt == LUA_TBOOLEAN)
            r = rv ? PROP_RESULT_CHANGED : PROP_RESULT_OK;
        else
            r = hr->sys.changes ? PROP_RESULT_CHANGED : PROP_RESULT_OK;
        goto verify;
    }
    if (get_fn(L, impl, "check")) {
        int failed;

        hr->sys.mode = LSYS_CHECK;
        failed = call_lua(hr, lua_gettop(L), args, &rt, &rv, msg) != 0;
        hr->sys.mode = LSYS_APPLY;
        if (failed && hr->sys.dry_check_ran) {
            /* Not a failure: a dry run cannot tell, so it says what a run
             * would at least do. */
            free(*msg);
            *msg = NULL;
            static const char why[] = "its check runs a command (sys:run), which a dry run "
                                      "does not do: counted as a change (sys:query runs "
                                      "commands that only look)";
            lsys_note(&hr->sys, why, sizeof why - 1);
            r = PROP_RESULT_CHANGED;
            goto done;
        }
        if (failed)
            goto done;
        lua_pop(L, 1);
        if (rv) {
            r = PROP_RESULT_OK;
            goto verify;
        }
    }
    if (!get_fn(L, impl, "apply")) {
        r = PROP_RESULT_OK;
        goto verify;
    }
    if (call_lua(hr, lua_gettop(L), args, &rt, &rv, msg) != 0)
        goto done;
    r = rt == LUA_TBOOLEAN && !rv ? PROP_RESULT_OK : PROP_RESULT_CHANGED;
verify:
    r = verify_leaf(hr, impl, args, r, msg);
done:
    hr->sys.mode = LSYS_APPLY;
    hr->sys.claims_of = NULL;
    if (r == PROP_RESULT_FAILED && run_want_stop(hr))
        r = PROP_RESULT_INTERRUPTED; /* stopped by a signal: not done */
    lua_settop(L, top);
    return r;
}

/*
 * The bytes of a secret the host uses (lsys's reveal): the store beside
 * the site is opened at the first one, and only what is asked for is
 * decrypted, for this host (a value set for it wins over the site-wide
 * one).
 */
int
run_reveal_secret(void *ud, const char *name, const unsigned char **data, size_t *len, char *why,
                  size_t whysize)
{
    host_run *hr = ud;
    const char *host = prop_host_fullname(hr->h);
    int rc;

    if (hr->store == NULL) {
        char *path = NULL;

        if (hr->o->site_path == NULL ||
            prop_secrets_store_path(&path, hr->o->site_path) != PROP_OK) {
            snprintf(why, whysize, "secret \"%s\": no secret store for this site", name);
            return -1;
        }
        rc = prop_secrets_open(&hr->store, path);
        free(path);
        if (rc != PROP_OK) {
            snprintf(why, whysize, "secret \"%s\": %s", name, prop_secrets_error(hr->store));
            prop_secrets_free(hr->store);
            hr->store = NULL;
            return -1;
        }
    }
    rc = prop_secrets_reveal(hr->store, name, host, data, len);
    if (rc == PROP_ENOTFOUND) {
        snprintf(why, whysize, "secret \"%s\" has no value for host %s in %s", name, host,
                 prop_secrets_path(hr->store));
        return -1;
    }
    if (rc != PROP_OK) {
        snprintf(why, whysize, "secret \"%s\": %s", name, prop_secrets_error(hr->store));
        return -1;
    }
    return 0;
}

/* The test of an only_if: 1 holds, 0 not, -1 failed (*msg set). */
int
run_test_only_if(void *ud, const prop_node *n, char **msg)
{
    host_run *hr = ud;
    lua_State *L = hr->ctx->L;
    long id = prop_node_behaviour(n);
    int top = lua_gettop(L), rt = 0, rv = 0, rc;

    if (id < 0)
        return 0;
    lua_getfield(L, LUA_REGISTRYINDEX, LPROP_BEHAVIOURS);
    if (lua_rawgeti(L, -1, id) != LUA_TFUNCTION) {
        lua_settop(L, top);
        return 0;
    }
    hr->sys.mode = LSYS_TEST;
    rc = call_lua(hr, lua_gettop(L), 0, &rt, &rv, msg);
    hr->sys.mode = LSYS_APPLY;
    lua_settop(L, top);
    if (rc != 0) {
        char *m = *msg;
        size_t len = m ? strlen(m) + 32 : 0;

        *msg = m ? malloc(len) : NULL;
        if (*msg)
            snprintf(*msg, len, "its only_if test failed: %s", m);
        free(m);
        return -1;
    }
    return rv != 0;
}

void
run_on_start(void *ud, const prop_node *n, unsigned depth)
{
    host_run *hr = ud;

    if (depth == 0) {
        if (hr->deferring && run_defer_start(hr, n) != 0)
            lsys_note(&hr->sys, "out of memory: notes may show under another property", 52);
        hr->top = n;
        if (hr->progress) {
            if (hr->ntops > 1) /* the last one's line waits for its answers */
                fputs("\r\033[K", stdout);
            printf("%s  ", hr->name);
            run_text(prop_node_desc(n));
            fputs(" ...", stdout);
            fflush(stdout);
        }
    }
}

static void
print_lines(host_run *hr, const char *event, const char *parent, char *lines)
{
    char *line, *save = NULL;

    if (lines == NULL)
        return;
    for (line = strtok_r(lines, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (hr->o->json) {
            run_json_event(stdout, event);
            run_json_host(hr->h);
            if (strcmp(event, "warning") == 0)
                fputs(",\"code\":\"W104\"", stdout);
            fputs(",\"parent\":", stdout);
            run_json_str(parent);
            fputs(",\"text\":", stdout);
            run_json_str(line);
            fputs("}\n", stdout);
        } else if (strcmp(event, "warning") == 0) {
            printf("%s    %swarning[W104]%s: ", hr->name, hr->color ? "\033[1;35m" : "",
                   hr->color ? "\033[0m" : "");
            run_text(line);
            putchar('\n');
        } else {
            printf("%s    ", hr->name);
            run_text(line);
            putchar('\n');
        }
    }
}

const char *
run_result_word(const run_opts *o, prop_result r)
{
    if (o->verify && r == PROP_RESULT_CHANGED)
        return "drift";
    return prop_result_name(r);
}

/* What a result is called in text: a dry run never says it did something. */
static const char *
result_text(const host_run *hr, prop_result r)
{
    if (hr->o->dry && !hr->o->verify && r == PROP_RESULT_CHANGED)
        return "would change";
    return run_result_word(hr->o, r);
}

/*
 * ,"result":"R","ms":MS and what a dry run or prop verify adds, on
 * stdout.  prop verify's "message" is the failure's, or what a drift
 * would change (the property's notes, a line each, joined by "; ").
 */
static void
json_result(const host_run *hr, prop_result r, double ms, const char *msg, const char *notes)
{
    printf(",\"result\":\"%s\"", run_result_word(hr->o, r));
    if (hr->o->verify) {
        fputs(",\"message\":", stdout);
        if ((msg == NULL || *msg == '\0') && r == PROP_RESULT_CHANGED && notes && *notes) {
            size_t len = strlen(notes), i, k = 0;
            char *m = malloc(2 * len + 1);

            while (len && notes[len - 1] == '\n')
                len--;
            for (i = 0; m && i < len; i++) {
                if (notes[i] == '\n') {
                    m[k++] = ';';
                    m[k++] = ' ';
                } else {
                    m[k++] = notes[i];
                }
            }
            if (m)
                m[k] = '\0';
            run_json_str(m ? m : "");
            free(m);
        } else {
            run_json_str(msg);
        }
    }
    printf(",\"ms\":%.1f%s", ms, hr->o->dry && !hr->o->verify ? ",\"dry_run\":true" : "");
}

/*
 * Counting: every property that does something counts once, wherever it
 * is in the tree (a leaf, or a composite that failed on its own: a
 * pick_os without an alternative for the OS, a failed only_if test, a
 * revert of what cannot be reverted).  A composite that failed because a
 * part did is that part's failure.
 */
static void
count_result(host_run *hr, const prop_node *n, prop_result r, const char *msg)
{
    prop_kind k = prop_node_kind(n);

    /* An interrupted property is counted with those not run. */
    if (k == PROP_INFO || r == PROP_RESULT_INTERRUPTED)
        return;
    /* A composite counts when it decided on its own (msg is its reason):
     * a failure of its own, an only_if that ensured nothing. */
    if (k != PROP_LEAF && k != PROP_INVALID && !(msg && *msg && k != PROP_REQUIRES))
        return;
    if (r == PROP_RESULT_OK)
        hr->oc->ok++;
    else if (r == PROP_RESULT_CHANGED)
        hr->oc->changed++, run_record_again(hr, n);
    else
        hr->oc->failed++;
    run_observe_result(hr, n, r, msg);
}

void
run_on_triggered(void *ud, const prop_node *n, unsigned depth, const prop_node *const *sources,
                 size_t nsources)
{
    host_run *hr = ud;

    (void)depth;
    hr->trig = n;
    hr->trig_sources = sources;
    hr->trig_n = nsources;
}

/* " (triggered by: a, b)" into buf (cut short when long); returns buf. */
static const char *
triggered_text(const host_run *hr, char *buf, size_t size)
{
    size_t i, len;
    int k;

    k = snprintf(buf, size, " (triggered by: ");
    len = k > 0 ? (size_t)k : 0;
    for (i = 0; i < hr->trig_n && len < size; i++) {
        k = snprintf(buf + len, size - len, "%s%s", i ? ", " : "",
                     hr->trig_sources[i] ? prop_node_desc(hr->trig_sources[i]) : PENDING_TEXT);
        len += k > 0 ? (size_t)k : 0;
    }
    if (len < size)
        snprintf(buf + len, size - len, ")");
    return buf;
}

/* ,"triggered_by":[...] (and "pending":true when owed from the last run) */
static void
json_triggered(const host_run *hr)
{
    size_t i;
    int any = 0, owed = 0;

    fputs(",\"triggered_by\":[", stdout);
    for (i = 0; i < hr->trig_n; i++) {
        if (!hr->trig_sources[i]) {
            owed = 1;
            continue;
        }
        if (any++)
            putchar(',');
        run_json_str(prop_node_desc(hr->trig_sources[i]));
    }
    putchar(']');
    if (owed)
        fputs(",\"pending\":true", stdout);
}

/* A property's entry of --report; notes and diffs: its lines (top level). */
static void
report_property(const host_run *hr, const prop_node *n, unsigned depth, prop_result r, double ms,
                const char *msg, int trig, const char *notes, const char *diffs)
{
    char *buf = NULL, where[1200];
    size_t len = 0, i;
    int any = 0, owed = 0;
    FILE *m = run_report_begin(&buf, &len, 'P', hr->h);

    if (m == NULL)
        return;
    if (depth > 0)
        run_report_str(m, "parent", prop_node_desc(hr->top));
    run_report_str(m, "desc", prop_node_desc(n));
    run_report_str(m, "origin", run_origin_of(n, where, sizeof where));
    fprintf(m, ",\"result\":\"%s\",\"ms\":%.1f", run_result_word(hr->o, r), ms);
    if (msg && *msg)
        run_report_str(m, "message", msg);
    if (trig) {
        fputs(",\"triggered_by\":[", m);
        for (i = 0; i < hr->trig_n; i++) {
            if (!hr->trig_sources[i]) {
                owed = 1;
                continue;
            }
            if (any++)
                fputc(',', m);
            prop_json_write_string(m, prop_node_desc(hr->trig_sources[i]),
                                   strlen(prop_node_desc(hr->trig_sources[i])));
        }
        fputc(']', m);
        if (owed)
            fputs(",\"pending\":true", m);
    }
    if (notes)
        run_report_lines(m, "notes", notes);
    if (diffs)
        run_report_str(m, "diff", diffs);
    run_report_end(m, &buf, &len);
}

static void on_done(host_run *hr, const prop_node *n, unsigned depth, prop_result r, double ms,
                    const char *msg);

void
run_on_done(void *ud, const prop_node *n, unsigned depth, prop_result r, double ms, const char *msg)
{
    host_run *hr = ud;
    const prop_node *newest;
    int swapped;

    if (!hr->deferring) {
        on_done(hr, n, depth, r, ms, msg);
        return;
    }
    /* Reported once its answers are in: under its own top-level property,
     * with that property's notes. */
    newest = run_defer_done_begin(hr, &swapped);
    on_done(hr, n, depth, r, ms, msg);
    run_defer_done_end(hr, depth, swapped, newest);
}

static void
on_done(host_run *hr, const prop_node *n, unsigned depth, prop_result r, double ms, const char *msg)
{
    char where[1200], by[1200], *notes;
    const prop_host *c = prop_node_container(n);
    int trig = hr->trig == n;

    if (c && prop_node_kind(n) == PROP_LEAF && hr->attach) {
        size_t i;

        for (i = 0; i < prop_host_ncontainers(hr->h); i++)
            if (prop_host_container(hr->h, i) == c)
                hr->attach[i] = (int)r;
    }
    count_result(hr, n, r, msg);
    if (trig && depth > 0) {
        /* A shared trigger target: one line, with what triggered it. */
        char line[2400];
        int len = snprintf(line, sizeof line, "%s: %s%s%s%s", result_text(hr, r), prop_node_desc(n),
                           triggered_text(hr, by, sizeof by),
                           r == PROP_RESULT_FAILED && msg && *msg ? ": " : "",
                           r == PROP_RESULT_FAILED && msg && *msg ? msg : "");
        if (len > 0)
            lsys_note(&hr->sys, line, (size_t)len < sizeof line ? (size_t)len : sizeof line - 1);
    } else if (r == PROP_RESULT_OK && msg && *msg && hr->o->dry) {
        /* In a dry run, say why nothing would be done. */
        lsys_note(&hr->sys, msg, strlen(msg));
    } else if (r == PROP_RESULT_FAILED && msg && *msg && !(hr->o->verify && depth == 0)) {
        /* Every failure's reason, innermost first, shown under its property
         * (prop verify: a top-level property's is on its own line). */
        char line[2400];
        int len;
        if (depth > 0 && strcmp(prop_node_desc(n), prop_node_desc(hr->top)) != 0)
            len = snprintf(line, sizeof line, "failed: %s: %s", prop_node_desc(n), msg);
        else
            len = snprintf(line, sizeof line, "failed: %s", msg);
        if (len > 0)
            lsys_note(&hr->sys, line, (size_t)len < sizeof line ? (size_t)len : sizeof line - 1);
    } else if (r == PROP_RESULT_CHANGED && depth > 0 && prop_node_kind(n) == PROP_LEAF &&
               strcmp(prop_node_desc(n), prop_node_desc(hr->top)) != 0) {
        /* A change inside a composite is shown under it, whatever the
         * composite's own result. */
        char line[1200];
        int len = snprintf(line, sizeof line, "%s: %s", result_text(hr, r), prop_node_desc(n));
        if (len > 0)
            lsys_note(&hr->sys, line, (size_t)len < sizeof line ? (size_t)len : sizeof line - 1);
    }
    if (depth > 0) {
        /* A recipe's own pair says the same as its first side: one event.
         * A shared trigger target has its event whatever it is. */
        int event = trig || (prop_node_kind(n) == PROP_LEAF &&
                             strcmp(prop_node_desc(n), prop_node_desc(hr->top)) != 0);

        if (event)
            report_property(hr, n, depth, r, ms, msg, trig, NULL, NULL);
        if (hr->o->json && event) {
            run_json_event(stdout, "property");
            run_json_host(hr->h);
            fputs(",\"parent\":", stdout);
            run_json_str(prop_node_desc(hr->top));
            fputs(",\"desc\":", stdout);
            run_json_str(prop_node_desc(n));
            fputs(",\"origin\":", stdout);
            run_json_str(run_origin_of(n, where, sizeof where));
            json_result(hr, r, ms, msg, NULL);
            if (trig)
                json_triggered(hr);
            fputs("}\n", stdout);
        }
        if (trig)
            hr->trig = NULL;
        return;
    }
    notes = lsys_take_notes(&hr->sys);
    if (hr->o->json) {
        run_json_event(stdout, "property");
        run_json_host(hr->h);
        fputs(",\"desc\":", stdout);
        run_json_str(prop_node_desc(n));
        fputs(",\"origin\":", stdout);
        run_json_str(run_origin_of(n, where, sizeof where));
        json_result(hr, r, ms, msg, notes);
        if (trig)
            json_triggered(hr);
        fputs("}\n", stdout);
    } else {
        if (hr->progress)
            fputs("\r\033[K", stdout);
        printf("%s  ", hr->name);
        run_text(prop_node_desc(n));
        printf(" ... %s%s%s", hr->color ? result_color(r) : "", result_text(hr, r),
               hr->color ? "\033[0m" : "");
        if (ms >= 1000)
            printf(" (%.1f s)", ms / 1000);
        if (trig)
            run_text(triggered_text(hr, by, sizeof by));
        if (hr->o->verify && r == PROP_RESULT_FAILED && msg && *msg) {
            fputs(": ", stdout);
            run_text(msg);
        }
        putchar('\n');
    }
    if (trig)
        hr->trig = NULL;
    {
        char *warnings = lsys_take_warnings(&hr->sys), *diffs = lsys_take_diffs(&hr->sys);

        report_property(hr, n, depth, r, ms, msg, trig, notes, diffs);
        free(diffs);
        print_lines(hr, "warning", prop_node_desc(n), warnings);
        print_lines(hr, "note", prop_node_desc(n), notes);
        free(warnings);
        free(notes);
    }
    fflush(stdout);
}

int
run_select_node(void *ud, const prop_node *n)
{
    host_run *hr = ud;

    return run_selected(hr->ctx->L, n);
}
