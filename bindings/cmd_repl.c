/*
 * cmd_repl.c - prop repl [SITE]: Lua with the site loaded.
 *
 * Each input runs in the site's config environment (the sandbox `prop
 * lint` evaluates sites in), so the site's globals, prop's API and the
 * recipe modules are in scope.  As in the standalone `lua`, an input is
 * first tried as `return <input>` so that an expression prints its value,
 * and a syntax error ending at <eof> means "read another line".  Inputs
 * starting with ':' are the REPL's commands (:hosts, :show, :claims, ...).
 * What a value looks like and what Tab offers is Lua's (lua/prop/repl.lua).
 *
 * On a terminal, lines are read with libedit (history in ~/.prop_history,
 * Tab completion); otherwise plain lines are read from standard input with
 * no prompt, so that a script can be piped in.  An error is printed and
 * the REPL goes on; every call into Lua is a protected call.
 *
 * Ownership: the repl struct owns the state (ctx, replaced by :reload),
 * the editor and history, the pending input and the line buffer; all are
 * released by repl_free().
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <lauxlib.h>
#include <locale.h>

#include "cli.h"
#include "repl.h"
#include "run.h"

#define CHUNK_NAME "@repl"

/* Set by SIGINT (on a terminal only): stop the running input. */
volatile sig_atomic_t repl_interrupted;
/* The state while an input runs in it, for on_sigint; NULL between inputs. */
static lprop_ctx *volatile running;

/*
 * Ctrl-C: the running input stops at its next instruction or call (the
 * count hook sees ctx->budget.interrupt, which points at `repl_interrupted`).  A
 * second Ctrl-C while it still runs finds it inside a C function of Lua's
 * library, which nothing can stop midway: prop repl ends, as lua(1) does.
 */
static void
on_sigint(int sig)
{
    lprop_ctx *ctx = running;

    (void)sig;
    if (ctx != NULL && repl_interrupted)
        lprop_abandon(ctx, "interrupted twice", NULL, 130);
    repl_interrupted = 1;
    if (ctx != NULL)
        lprop_interrupt_now(ctx);
}

/* Before each input: a fresh budget (instructions and CPU time). */
void
repl_arm(repl *r)
{
    repl_interrupted = 0;
    lprop_budget_reset(r->ctx);
}

/* ---- functions the REPL adds to the state ---- */

/* repl.what(v): "property", "host" or nothing. */
static int
l_what(lua_State *L)
{
    if (lprop_tonode(L, 1))
        lua_pushliteral(L, "property");
    else if (lprop_tohost(L, 1))
        lua_pushliteral(L, "host");
    else
        lua_pushnil(L);
    return 1;
}

/* print(...) at the REPL: to standard output, where results go. */
static int
l_print(lua_State *L)
{
    return lprop_print(L, stdout);
}

void
repl_push_module(lua_State *L, repl *r, const char *field)
{
    lua_rawgeti(L, LUA_REGISTRYINDEX, r->mod_ref);
    lua_getfield(L, -1, field);
    lua_remove(L, -2);
}

void
repl_push_env(lua_State *L, repl *r)
{
    lua_rawgeti(L, LUA_REGISTRYINDEX, r->ctx->env_ref);
}

/* Protected: load prop.repl, give it `what`, and print to stdout. */
static int
p_setup(lua_State *L)
{
    repl *r = lua_touserdata(L, 1);

    lprop_require(L, "prop.repl");
    lua_pushcfunction(L, l_what);
    lua_setfield(L, -2, "what");
    r->mod_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    repl_push_env(L, r);
    lua_pushliteral(L, "print");
    lua_pushcfunction(L, l_print);
    lua_rawset(L, -3);
    return 0;
}

/*
 * Run fn(r, a, b) as a protected call: r, a and b (C strings or NULL) are
 * light userdata, so that nothing is allocated before the call.  On error
 * the message is printed on standard error and r->failed is set.  Returns
 * the status of lua_pcall.
 */
int
repl_protect(repl *r, lua_CFunction fn, const char *a, const char *b)
{
    lua_State *L = r->ctx->L;
    int base = lua_gettop(L), status;
    const char *msg;

    lua_pushcfunction(L, lprop_msgh);
    lua_pushcfunction(L, fn);
    lua_pushlightuserdata(L, r);
    lua_pushlightuserdata(L, (void *)a);
    lua_pushlightuserdata(L, (void *)b);
    r->ctx->evaluating = 1;
    running = r->ctx;
    status = lua_pcall(L, 3, 0, base + 1);
    running = NULL;
    r->ctx->evaluating = 0;
    lprop_budget_stop(r->ctx);
    if (status != LUA_OK) {
        r->failed = 1;
        if (repl_interrupted) { /* past the ^C the terminal echoed */
            repl_interrupted = 0;
            fputc('\n', stderr);
        }
        if (status == LUA_ERRMEM)
            fprintf(stderr, "%smemory limit of %d MiB exceeded; raise it with --max-memory%s\n",
                    r->opts.color_err ? "\033[1;31m" : "", (int)(r->ctx->limits.max_memory >> 20),
                    r->opts.color_err ? "\033[0m" : "");
        else {
            msg = lua_tostring(L, -1);
            fprintf(stderr, "%s%s%s\n", r->opts.color_err ? "\033[1;31m" : "",
                    msg ? msg : "(error)", r->opts.color_err ? "\033[0m" : "");
        }
    }
    lua_settop(L, base);
    fflush(stdout);
    return status;
}

/* ---- the state: loading the site, and :reload ---- */

static void
drop_state(repl *r)
{
    if (r->ctx == NULL)
        return;
    if (r->mod_ref != LUA_NOREF)
        luaL_unref(r->ctx->L, LUA_REGISTRYINDEX, r->mod_ref);
    r->mod_ref = LUA_NOREF;
    lprop_close(r->ctx);
    r->ctx = NULL;
}

/*
 * A REPL without a site still gets a directory for `require "lib.x"`:
 * the current one, as if the site were ./-.lua.
 */
static int
set_site_dir(lprop_ctx *ctx)
{
    ctx->paths.site_dir = strdup(".");
    ctx->paths.site_real = realpath(".", NULL);
    return ctx->paths.site_dir && ctx->paths.site_real ? 0 : -1;
}

/*
 * Make a fresh state with the site evaluated and checked (its findings
 * printed on stderr), then set the REPL up in it.  An evaluation error
 * does not stop the REPL: what ran before it stays loaded.  -1 only when
 * there is no usable state (out of memory).
 */
static int
repl_load(repl *r)
{
    int evaluated = 1;
    lprop_ctx *ctx;

    drop_state(r);
    if (r->site) {
        ctx = cli_load_site(r->site, &r->opts, &evaluated);
    } else {
        ctx = lprop_open(&r->opts.limits);
        if (ctx && set_site_dir(ctx) != 0) {
            fprintf(stderr, "prop repl: the current directory: %s\n", strerror(errno));
            lprop_close(ctx);
            return -1;
        }
    }
    if (ctx == NULL) {
        fprintf(stderr, "prop repl: out of memory\n");
        return -1;
    }
    r->ctx = ctx;
    ctx->budget.interrupt = &repl_interrupted; /* Ctrl-C stops the running input */
    r->rejected = !evaluated || prop_site_nerrors(ctx->site, 0) > 0;
    if (r->site && prop_site_ndiags(ctx->site) > 0) {
        prop_diags_print_text(ctx->site, stderr, r->opts.color_err, 0);
        cli_print_summary(ctx, r->site, stderr, 0);
    }
    repl_arm(r);
    if (repl_protect(r, p_setup, NULL, NULL) != LUA_OK) {
        drop_state(r);
        return -1;
    }
    return 0;
}

/* ---- one input ---- */

static int
chunk_append(repl *r, const char *s, size_t n)
{
    if (prop_buf_reserve(&r->chunk, n + 1) != 0)
        return -1;
    if (r->chunk.len > 0 && prop_buf_add(&r->chunk, "\n", 1) != 0)
        return -1;
    return prop_buf_add(&r->chunk, s, n);
}

static void
chunk_clear(repl *r)
{
    r->chunk.len = 0;
    r->more = 0;
    if (r->chunk.p)
        r->chunk.p[0] = '\0';
}

/* Load text (of length n) as a chunk of the config environment. */
static int
load_in_env(lua_State *L, repl *r, const char *text, size_t n)
{
    int status = luaL_loadbufferx(L, text, n, CHUNK_NAME, "t");

    if (status == LUA_OK) {
        repl_push_env(L, r);
        if (lua_setupvalue(L, -2, 1) == NULL)
            lua_pop(L, 1);
    }
    return status;
}

/* A syntax error that ends at <eof>: the statement is not finished yet. */
static int
incomplete(lua_State *L, int status)
{
    size_t len;
    const char *msg = lua_tolstring(L, -1, &len);
    static const char mark[] = "<eof>";

    return status == LUA_ERRSYNTAX && msg && len >= sizeof mark - 1 &&
           strcmp(msg + len - (sizeof mark - 1), mark) == 0;
}

/* Push "return " .. text and load it; LUA_OK with the function on top. */
static int
load_return(lua_State *L, repl *r, const char *text)
{
    int status;

    lua_pushfstring(L, "return %s;", text);
    status = load_in_env(L, r, lua_tostring(L, -1), lua_rawlen(L, -1));
    lua_remove(L, -2);
    return status;
}

/*
 * Protected: run the pending input.  An expression's values are printed
 * (formatted by repl.format); an unfinished statement sets r->more.
 */
static int
p_eval(lua_State *L)
{
    repl *r = lua_touserdata(L, 1);
    int base, status, nres;
    size_t len;
    const char *out;

    lua_settop(L, 1);
    status = load_return(L, r, r->chunk.p);
    if (status != LUA_OK) {
        lua_pop(L, 1);
        status = load_in_env(L, r, r->chunk.p, r->chunk.len);
        if (status != LUA_OK) {
            if (!r->final && incomplete(L, status)) {
                r->more = 1;
                return 0;
            }
            return lua_error(L);
        }
    }
    base = lua_gettop(L);
    lua_call(L, 0, LUA_MULTRET);
    nres = lua_gettop(L) - base + 1;
    if (nres > 0) {
        luaL_checkstack(L, 2, "too many results to print");
        repl_push_module(L, r, "format");
        lua_insert(L, base);
        lua_call(L, nres, 1);
        out = lua_tolstring(L, -1, &len);
        if (out && len > 0) {
            prop_text_write(stdout, out, len, PROP_TEXT_LINES);
            fputc('\n', stdout);
        }
    }
    return 0;
}

/* The first value of the expression text, left on the stack. */
static void
eval_expr(lua_State *L, repl *r, const char *text, const char *cmd)
{
    if (text == NULL || *text == '\0')
        luaL_error(L, ":%s needs an expression", cmd);
    if (load_return(L, r, text) != LUA_OK)
        lua_error(L);
    lua_call(L, 0, 1);
}

/* ---- commands ---- */

static const char *
origin_text(const prop_origin *o, char *buf, size_t size)
{
    if (o && o->nframes > 0)
        snprintf(buf, size, "%s:%d", o->frames[0].file, o->frames[0].line);
    else
        snprintf(buf, size, "?");
    return buf;
}

/* "3 hosts" or "1 host, 2 containers": the site's hosts and containers. */
static const char *
count_hosts(const prop_site *s, char *buf, size_t size)
{
    size_t i, n = prop_site_nhosts(s), c = 0;

    for (i = 0; i < n; i++)
        if (prop_host_container_kind(prop_site_host(s, i)) != PROP_CONTAINER_NONE)
            c++;
    if (c == 0)
        snprintf(buf, size, "%zu host%s", n, n == 1 ? "" : "s");
    else
        snprintf(buf, size, "%zu host%s, %zu container%s", n - c, n - c == 1 ? "" : "s", c,
                 c == 1 ? "" : "s");
    return buf;
}

/* One line of :hosts: a host or a container, and how deep it is nested. */
typedef struct host_row {
    const prop_host *h;
    size_t depth;
} host_row;

/*
 * The site's hosts in the order :hosts lists them: each host followed by
 * its containers (and theirs), then the containers no host takes.  The
 * rows are a userdata left on the stack (freed by the GC, even when an
 * error is raised); *nrows is their number.  The nesting is kept on a
 * stack, not in C's.  Raises when out of memory.
 */
static host_row *
host_rows(lua_State *L, const prop_site *s, size_t *nrows)
{
    size_t i, n = prop_site_nhosts(s), k = 0, top, pass;
    host_row *rows, *stack;
    size_t *next;

    rows = lua_newuserdatauv(L, (n ? n : 1) * (2 * sizeof *rows + sizeof *next), 0);
    stack = rows + n;
    next = (size_t *)(stack + n);
    /* First the hosts, then the containers on no host: each with the
     * containers put on it, depth first. */
    for (pass = 0; pass < 2; pass++) {
        for (i = 0; i < n && k < n; i++) {
            const prop_host *h = prop_site_host(s, i);
            int container = prop_host_container_kind(h) != PROP_CONTAINER_NONE;

            if (container != (int)pass || prop_host_parent(h) != NULL)
                continue;
            rows[k++] = (host_row){h, 0};
            stack[0] = rows[k - 1];
            next[0] = 0;
            top = 1;
            while (top > 0 && k < n) {
                host_row *t = &stack[top - 1];

                if (next[top - 1] == prop_host_ncontainers(t->h)) {
                    top--;
                    continue;
                }
                rows[k] = (host_row){prop_host_container(t->h, next[top - 1]++), t->depth + 1};
                stack[top] = rows[k++];
                next[top++] = 0;
            }
        }
    }
    *nrows = k;
    return rows;
}

typedef struct removal {
    const prop_host *c;
    int found;
} removal;

static int
removes_visit(void *ud, const prop_node *leaf)
{
    removal *rm = ud;

    if (prop_node_container(leaf) == rm->c) {
        rm->found = 1;
        return 1;
    }
    return 0;
}

/* The host whose properties remove container c (a revert), or NULL. */
static const prop_host *
removed_by(const prop_site *s, const prop_host *c)
{
    removal rm = {c, 0};
    size_t i, j;

    for (i = 0; i < prop_site_nhosts(s); i++) {
        const prop_host *h = prop_site_host(s, i);

        for (j = 0; j < prop_host_nprops(h); j++) {
            const prop_node *p = prop_host_prop(h, j);

            /* A graph too large to walk is not searched (it is rare). */
            if (prop_node_weight(p) > 1000000)
                continue;
            if (prop_node_each_leaf(p, PROP_OS_NONE, removes_visit, &rm) == 1 && rm.found)
                return h;
        }
    }
    return NULL;
}

#define MAX_INDENT 20 /* levels of nesting shown by indentation */

/* The name column of a row: indented, with a container's kind. */
static void
row_name(const host_row *r, char *buf, size_t size)
{
    static const char *const kinds[] = {"", "chroot", "nspawn", "docker", "jail"};
    prop_container_kind k = prop_host_container_kind(r->h);
    int ind = (int)(2 * (r->depth < MAX_INDENT ? r->depth : MAX_INDENT));

    if (k == PROP_CONTAINER_NONE)
        snprintf(buf, size, "%*s%s", ind, "", prop_host_name(r->h));
    else
        snprintf(buf, size, "%*s%s (%s)", ind, "",
                 r->depth ? prop_host_name(r->h) : prop_host_fullname(r->h), kinds[k]);
}

static void
do_hosts(lua_State *L, repl *r)
{
    const prop_site *s = r->ctx->site;
    size_t i, n, w = 4, l;
    char where[300], name[300];
    const prop_host *h, *by;
    host_row *rows;

    if (prop_site_nhosts(s) == 0) {
        printf("no hosts%s\n", r->site ? "" : " (declare one with host \"name\" { ... })");
        return;
    }
    rows = host_rows(L, s, &n);
    for (i = 0; i < n; i++) {
        row_name(&rows[i], name, sizeof name);
        l = strlen(name);
        if (l > w)
            w = l;
    }
    for (i = 0; i < n; i++) {
        h = rows[i].h;
        row_name(&rows[i], name, sizeof name);
        printf("%-*s  %-10s %4zu propert%s  %s", (int)w, name,
               prop_host_os(h) ? prop_os_family_name(prop_host_os(h)) : "no OS",
               prop_host_nprops(h), prop_host_nprops(h) == 1 ? "y" : "ies",
               origin_text(prop_host_origin(h), where, sizeof where));
        if (prop_host_container_kind(h) != PROP_CONTAINER_NONE && prop_host_parent(h) == NULL) {
            by = removed_by(s, h);
            if (by)
                printf("  removed by %s", prop_host_fullname(by));
            else
                printf("  put on no host");
        }
        putchar('\n');
    }
    lua_pop(L, 1);
}

/* show.host(h) printed. */
static void
show_host(lua_State *L, prop_host *h)
{
    lprop_require(L, "prop.show");
    lua_getfield(L, -1, "host");
    lprop_push_host(L, h);
    lua_call(L, 1, 1);
    prop_text_puts(stdout, lua_tostring(L, -1), PROP_TEXT_LINES);
    lua_pop(L, 2);
}

static void
do_show(lua_State *L, repl *r, const char *arg)
{
    prop_site *s = r->ctx->site;
    prop_host *h;
    size_t i;

    if (arg == NULL || *arg == '\0') {
        if (prop_site_nhosts(s) == 0) {
            printf("no hosts\n");
            return;
        }
        /* Every host, each container nested in its parent. */
        lprop_require(L, "prop.show");
        lua_getfield(L, -1, "site");
        lua_createtable(L, (int)(prop_site_nhosts(s) < INT_MAX ? prop_site_nhosts(s) : 0), 0);
        for (i = 0; i < prop_site_nhosts(s); i++) {
            lprop_push_host(L, prop_site_host(s, i));
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        lua_call(L, 1, 1);
        prop_text_puts(stdout, lua_tostring(L, -1), PROP_TEXT_LINES);
        lua_pop(L, 2);
        return;
    }
    h = prop_site_find_host(s, arg);
    if (h) {
        show_host(L, h);
        return;
    }
    /* Not a host's name: perhaps an expression for a property or a host. */
    if (load_return(L, r, arg) != LUA_OK)
        luaL_error(L, "no host \"%s\" in the site (:hosts lists them)", arg);
    if (lua_pcall(L, 0, 1, 0) != LUA_OK)
        luaL_error(L, "no host \"%s\" in the site (:hosts lists them), and as Lua: %s", arg,
                   lua_tostring(L, -1));
    if (lprop_tohost(L, -1)) {
        show_host(L, lprop_tohost(L, -1));
    } else if (lprop_tonode(L, -1)) {
        lprop_require(L, "prop.show");
        lua_getfield(L, -1, "property");
        lua_pushvalue(L, -3);
        lua_call(L, 1, 1);
        prop_text_puts(stdout, lua_tostring(L, -1), PROP_TEXT_LINES);
    } else {
        luaL_error(L, "%s is a %s, not a host or a property", arg, luaL_typename(L, -1));
    }
}

/* :claims THING - what on which host claims a path, package, port, ...
 * (the same lines as prop claims SITE THING). */
static void
do_claims(lua_State *L, repl *r, const char *arg)
{
    size_t found = 0;
    int rc;

    if (arg == NULL || *arg == '\0')
        luaL_error(L, ":claims needs a path, package:NAME, service:NAME, port:N, user:NAME or "
                      "group:NAME");
    rc = cli_claims_print(r->ctx->site, arg, stdout, 0, &found);
    if (rc == PROP_EINVAL)
        luaL_error(L,
                   ":claims: \"%s\" is not a thing to look for: a path, package:NAME, "
                   "service:NAME, port:N, user:NAME or group:NAME",
                   arg);
    if (rc != PROP_OK)
        luaL_error(L, ":claims: out of memory");
    if (found == 0)
        printf("nothing on any host claims %s\n", arg);
}

static void
do_lint(lua_State *L, repl *r)
{
    prop_site *s = r->ctx->site;
    int rc = prop_site_check(s);

    if (rc < 0)
        luaL_error(L, "the pre-pass failed: %s", prop_site_error(s));
    if (prop_site_ndiags(s) == 0) {
        printf("no findings\n");
        return;
    }
    prop_diags_print_text(s, stdout, r->opts.color_out, 0);
    cli_print_summary(r->ctx, r->site ? r->site : "repl", stdout, 0);
}

static void
do_plan(lua_State *L, repl *r, const char *arg)
{
    if (arg == NULL || *arg == '\0')
        luaL_error(L, ":plan needs a host (:hosts lists them)");
    if (prop_site_find_host(r->ctx->site, arg) == NULL)
        luaL_error(L, "no host \"%s\" in the site (:hosts lists them)", arg);
    if (prop_site_nerrors(r->ctx->site, 0) > 0)
        luaL_error(L, "the site has errors (:lint lists them); nothing can run");
    printf("dry run of %s: nothing is changed\n", arg);
    cli_dry_run_host(r->ctx, prop_site_find_host(r->ctx->site, arg), 0);
}

/*
 * Protected: run the command `name` with its argument (may be NULL).
 * :reload and :quit are the caller's, since they replace or end the state.
 */
static int
p_command(lua_State *L)
{
    repl *r = lua_touserdata(L, 1);
    const char *name = lua_touserdata(L, 2), *arg = lua_touserdata(L, 3);
    const char *best;

    if (strcmp(name, "hosts") == 0) {
        do_hosts(L, r);
    } else if (strcmp(name, "show") == 0) {
        do_show(L, r, arg);
    } else if (strcmp(name, "type") == 0) {
        repl_push_module(L, r, "type_of");
        eval_expr(L, r, arg, name);
        lua_call(L, 1, 1);
        printf("%s\n", lua_tostring(L, -1));
    } else if (strcmp(name, "claims") == 0) {
        do_claims(L, r, arg);
    } else if (strcmp(name, "lint") == 0) {
        do_lint(L, r);
    } else if (strcmp(name, "plan") == 0) {
        do_plan(L, r, arg);
    } else if (strcmp(name, "help") == 0) {
        repl_push_module(L, r, "help");
        lua_call(L, 0, 1);
        printf("%s\n", lua_tostring(L, -1));
    } else {
        repl_push_module(L, r, "suggest_command");
        lua_pushstring(L, name);
        lua_call(L, 1, 1);
        best = lua_tostring(L, -1);
        if (best)
            luaL_error(L, "unknown command :%s (did you mean :%s?)", name, best);
        luaL_error(L, "unknown command :%s (:help lists them)", name);
    }
    return 0;
}

/* Split ":name arg" and run it.  Returns 1 when the REPL should end. */
static int
run_command(repl *r, const char *text)
{
    char name[32], what[96];
    size_t n = strcspn(text, " \t");
    const char *arg = text + n;
    char *argcopy;
    size_t alen;

    while (*arg == ' ' || *arg == '\t')
        arg++;
    alen = strlen(arg);
    while (alen > 0 && (arg[alen - 1] == ' ' || arg[alen - 1] == '\t'))
        alen--;
    if (n == 0 || n >= sizeof name) {
        snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), text);
    } else {
        memcpy(name, text, n);
        name[n] = '\0';
    }
    if (strcmp(name, "quit") == 0 || strcmp(name, "q") == 0 || strcmp(name, "exit") == 0)
        return 1;
    if (strcmp(name, "reload") == 0) {
        if (repl_load(r) != 0)
            return 1;
        if (r->site)
            printf("reloaded %s: %s%s\n", r->site, count_hosts(r->ctx->site, what, sizeof what),
                   r->rejected ? " (with errors, printed above)" : "");
        else
            printf("a fresh state (no site)\n");
        return 0;
    }
    argcopy = strndup(arg, alen);
    if (argcopy == NULL) {
        fprintf(stderr, "prop repl: out of memory\n");
        r->failed = 1;
        return 0;
    }
    repl_arm(r);
    repl_protect(r, p_command, name, alen ? argcopy : NULL);
    free(argcopy);
    return 0;
}

/* One line of input; returns 1 when the REPL should end. */
static int
handle_line(repl *r, const char *line, size_t len)
{
    const char *s = line;
    char *cmd;
    int quit;

    if (r->chunk.len == 0) {
        while (s < line + len && (*s == ' ' || *s == '\t'))
            s++;
        if (s == line + len)
            return 0;
        if (*s == ':' && (s + 1 == line + len || s[1] != ':')) {
            cmd = strndup(s, (size_t)(line + len - s));
            if (cmd == NULL) {
                fprintf(stderr, "prop repl: out of memory\n");
                return 1;
            }
            repl_history_add(r, cmd);
            quit = run_command(r, cmd + 1);
            free(cmd);
            return quit;
        }
    }
    if (chunk_append(r, line, len) != 0) {
        fprintf(stderr, "prop repl: out of memory\n");
        chunk_clear(r);
        return 0;
    }
    r->more = 0;
    repl_arm(r);
    repl_protect(r, p_eval, NULL, NULL);
    if (!r->more) {
        repl_history_add(r, r->chunk.p);
        chunk_clear(r);
    }
    return 0;
}

/* ---- the command ---- */

static void
repl_free(repl *r)
{
    repl_editor_close(r);
    drop_state(r);
    free(r->hist_path);
    prop_buf_free(&r->chunk);
    free(r->line);
}

static void
banner(repl *r)
{
    char what[96];

    printf("prop %s, %s", PROP_VERSION, LUA_RELEASE);
    if (r->site)
        printf(", %s: %s", r->site, count_hosts(r->ctx->site, what, sizeof what));
    printf(".  :help lists the commands; Ctrl-D quits.\n");
}

static int
run_repl(int argc, char **argv)
{
    repl r;
    struct sigaction sa, old_sa;
    const char *line;
    size_t len;
    int i, got, rc, handler = 0;

    memset(&r, 0, sizeof r);
    r.mod_ref = LUA_NOREF;
    cli_site_opts_init(&r.opts);
    for (i = 1; i < argc; i++) {
        if (cli_is_help(argv[i]))
            return cli_print_help(&cmd_repl);
        rc = cli_site_opt(&r.opts, argc, argv, &i);
        if (rc < 0)
            return EXIT_USAGE;
        if (rc > 0)
            continue;
        if (argv[i][0] == '-' && argv[i][1] != '\0')
            return cli_usage_error(&cmd_repl, "unknown option \"%s\"", argv[i]);
        if (r.site != NULL)
            return cli_usage_error(&cmd_repl, "one site file at a time");
        r.site = argv[i];
    }
    if (r.site && access(r.site, R_OK) != 0) {
        fprintf(stderr, "prop repl: cannot read %s: %s\n", r.site, strerror(errno));
        return EXIT_USAGE;
    }
    r.tty = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
    if (r.tty) {
        /* libedit reads multibyte characters by the locale's rules. */
        setlocale(LC_CTYPE, "");
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_sigint;
        sigemptyset(&sa.sa_mask);
        handler = sigaction(SIGINT, &sa, &old_sa) == 0;
    }
    if (repl_load(&r) != 0) {
        rc = EXIT_FAILED;
        goto done;
    }
    if (r.tty) {
        if (repl_editor_open(&r) != 0) {
            fprintf(stderr, "prop repl: cannot set up the line editor\n");
            rc = EXIT_FAILED;
            goto done;
        }
        banner(&r);
    }
    for (;;) {
        fflush(stdout);
        got = repl_read_line(&r, &line, &len);
        if (got < 0) {
            chunk_clear(&r);
            fputc('\n', stdout);
            continue;
        }
        if (got == 0)
            break;
        if (handle_line(&r, line, len))
            break;
        if (r.ctx == NULL)
            break;
    }
    if (r.chunk.len > 0 && r.ctx) {
        /* The input ended inside a statement: say what is missing. */
        r.final = 1;
        repl_arm(&r);
        repl_protect(&r, p_eval, NULL, NULL);
    }
    if (r.tty)
        fputc('\n', stdout);
    /* Piped, the status tells a script whether all went well. */
    rc = r.tty ? EXIT_WELL : r.rejected ? EXIT_REJECTED : r.failed ? EXIT_FAILED : EXIT_WELL;
    if (r.ctx == NULL)
        rc = EXIT_FAILED;
done:
    repl_free(&r);
    if (handler)
        sigaction(SIGINT, &old_sa, NULL);
    if (fflush(stdout) != 0 && rc == EXIT_WELL)
        rc = EXIT_FAILED;
    return rc;
}

const cli_command cmd_repl = {
    "repl", run_repl, "interactive Lua with the site loaded",
    "prop repl [SITE] [--max-instructions N] [--max-memory MIB] [--max-cpu S]"};
