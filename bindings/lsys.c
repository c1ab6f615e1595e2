/*
 * lsys.c - the `sys` handle (see lsys.h and lua/README.md).  Each method
 * checks its arguments, calls one transport function and converts the
 * result; in a dry run the methods that change the target record what
 * they would do instead.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lprop.h"
#include "lsys.h"
#include "prop/diff.h"

typedef struct {
    lsys *s;
} sys_ud;

/*
 * Raise an error from a sys method.  Called from the site's own code, the
 * message starts with the caller's "file:line: "; called from prop's
 * recipes ("=prop/..." chunks), it does not: the place inside a recipe
 * means nothing to the user, whose property's line is reported anyway.
 */
LPROP_NORETURN static int sys_error(lua_State *L, const char *fmt, ...);
static int
sys_error(lua_State *L, const char *fmt, ...)
{
    lua_Debug ar;
    va_list ap;
    int own = 0;

    if (lua_getstack(L, 1, &ar) && lua_getinfo(L, "S", &ar))
        own = strncmp(ar.source, "=prop/", 6) == 0;
    va_start(ap, fmt);
    if (own)
        lua_pushvfstring(L, fmt, ap);
    else {
        luaL_where(L, 1);
        lua_pushvfstring(L, fmt, ap);
        lua_concat(L, 2);
    }
    va_end(ap);
    lua_error(L);
    abort(); /* not reached: lua_error does not return */
}

static lsys *
check_sys(lua_State *L)
{
    sys_ud *u = luaL_checkudata(L, 1, LSYS_TYPE);

    if (u->s == NULL)
        sys_error(L, "sys used after its host's run ended");
    return u->s;
}

void
lsys_begin(lsys *s)
{
    s->changes = 0;
    s->mode = LSYS_APPLY;
    s->dry_check_ran = 0;
    s->claims_of = NULL;
}

/* Append a line to a malloc'd buffer of lines (a newline is added). */
static void
add_line(lsys *s, char **buf, size_t *len, size_t *cap, const char *text, size_t n)
{
    size_t need = *len + n + 2;

    if (need > *cap) {
        size_t c = *cap ? *cap : 256;
        char *p;
        while (c < need)
            c *= 2;
        p = realloc(*buf, c);
        if (p == NULL) {
            s->notes_oom = 1;
            return;
        }
        *buf = p;
        *cap = c;
    }
    memcpy(*buf + *len, text, n);
    *len += n;
    if (n == 0 || text[n - 1] != '\n')
        (*buf)[(*len)++] = '\n';
    (*buf)[*len] = '\0';
}

void
lsys_note(lsys *s, const char *text, size_t len)
{
    add_line(s, &s->notes, &s->notes_len, &s->notes_cap, text, len);
}

char *
lsys_take_notes(lsys *s)
{
    char *n = s->notes;

    if (s->notes_len == 0)
        return NULL;
    s->notes = NULL;
    s->notes_len = s->notes_cap = 0;
    return n;
}

char *
lsys_take_diffs(lsys *s)
{
    char *d = s->diffs;

    if (s->diffs_len == 0)
        return NULL;
    s->diffs = NULL;
    s->diffs_len = s->diffs_cap = 0;
    return d;
}

char *
lsys_take_warnings(lsys *s)
{
    char *w = s->warnings;

    if (s->warnings_len == 0)
        return NULL;
    s->warnings = NULL;
    s->warnings_len = s->warnings_cap = 0;
    return w;
}

void
lsys_clear(lsys *s)
{
    free(s->notes);
    s->notes = NULL;
    s->notes_len = s->notes_cap = 0;
    free(s->warnings);
    s->warnings = NULL;
    s->warnings_len = s->warnings_cap = 0;
    free(s->diffs);
    s->diffs = NULL;
    s->diffs_len = s->diffs_cap = 0;
}

static void notef(lsys *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
notef(lsys *s, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    lsys_note(s, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* Raise the transport's error, prefixed with what was being done. */
static int
transport_error(lua_State *L, lsys *s, const char *what, const char *path, int rc)
{
    if (rc == PROP_ENOTFOUND)
        return sys_error(L, "%s %s: no such file or directory", what, path);
    if (rc == PROP_EINVAL)
        return sys_error(L, "%s %s: invalid argument", what, path);
    /* The transport's message names the operation and the path itself. */
    if (*prop_transport_error(s->t))
        return sys_error(L, "%s", prop_transport_error(s->t));
    return sys_error(L, "%s %s: failed", what, path);
}

/* A change: refused inside check and only_if tests, counted otherwise. */
static void
changing(lua_State *L, lsys *s, const char *method)
{
    if (s->mode == LSYS_CHECK)
        sys_error(L, "sys:%s in check: check must only look; make changes in apply", method);
    if (s->mode == LSYS_TEST)
        sys_error(L, "sys:%s in an only_if test: a test must only look", method);
    s->changes++;
}

/* Whether a file claim of the running leaf covers path: the path itself,
 * a path below a claimed one, or (making directories) one above. */
static int
covered(const prop_node *leaf, const char *path, int parent_ok)
{
    size_t i, n = prop_node_nclaims(leaf), pl = strlen(path);

    for (i = 0; i < n; i++) {
        const prop_claim *c = prop_node_claim(leaf, i);
        const char *k = c->key;
        size_t kl = strlen(k);

        if (strncmp(prop_claim_kind_name(c->kind), "file.", 5) != 0)
            continue;
        if (kl == pl && memcmp(k, path, pl) == 0)
            return 1;
        if (kl < pl && memcmp(k, path, kl) == 0 && (path[kl] == '/' || kl == 1))
            return 1;
        if (parent_ok && pl < kl && memcmp(k, path, pl) == 0 && (k[pl] == '/' || pl == 1))
            return 1;
    }
    return 0;
}

/*
 * W104: a property that declared claims changes a path it does not claim.
 * Not the checker's business (it cannot see what Lua code will write),
 * but said at run time, once per path, so that authors keep claims true.
 */
static void
check_claimed(lsys *s, const char *path, const char *what, int parent_ok)
{
    char buf[1400];
    int n;

    if (s->claims_of == NULL || covered(s->claims_of, path, parent_ok))
        return;
    n = snprintf(buf, sizeof buf,
                 "%s %s, which \"%s\" does not claim: add it to its claims so "
                 "that the pre-pass and prop claims see it",
                 what, path, prop_node_desc(s->claims_of));
    if (n < 0)
        return;
    if (s->warnings && strstr(s->warnings, buf) != NULL)
        return;
    add_line(s, &s->warnings, &s->warnings_len, &s->warnings_cap, buf,
             (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/*
 * check_claimed for path, or for the claimed path the attrs table at idx
 * names as via: what the property claims when the path it changes is
 * found at run time (a symlink a line edit follows, a home directory
 * read from /etc/passwd).
 */
static void
check_claimed_via(lua_State *L, lsys *s, int idx, const char *path, const char *what, int parent_ok)
{
    if (lua_istable(L, idx) && lua_getfield(L, idx, "via") == LUA_TSTRING) {
        check_claimed(s, lua_tostring(L, -1), what, parent_ok);
        lua_pop(L, 1);
        return;
    }
    if (lua_istable(L, idx))
        lua_pop(L, 1);
    check_claimed(s, path, what, parent_ok);
}

static const char *
check_path(lua_State *L, int idx)
{
    const char *p = luaL_checkstring(L, idx);

    if (p[0] != '/')
        luaL_argerror(L, idx, lua_pushfstring(L, "path \"%s\" is not absolute", p));
    return p;
}

/* An attrs table at idx (may be nil): mode (integer or octal string), owner, group. */
static void
check_attrs(lua_State *L, int idx, prop_file_attrs *a, int *secret)
{
    a->mode = -1;
    a->owner = a->group = NULL;
    if (secret)
        *secret = 0;
    if (lua_isnoneornil(L, idx))
        return;
    luaL_checktype(L, idx, LUA_TTABLE);
    switch (lua_getfield(L, idx, "mode")) {
    case LUA_TNIL:
        break;
    case LUA_TNUMBER:
        if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 0 || lua_tointeger(L, -1) > 07777)
            sys_error(L, "mode must be an integer in 0..07777 (tonumber(\"0644\", 8))");
        a->mode = (int)lua_tointeger(L, -1);
        break;
    case LUA_TSTRING: {
        const char *m = lua_tostring(L, -1);
        char *end;
        long v;
        errno = 0;
        v = strtol(m, &end, 8);
        if (errno || *m == '\0' || *end != '\0' || v < 0 || v > 07777)
            sys_error(L, "mode \"%s\" is not an octal mode such as \"0644\"", m);
        a->mode = (int)v;
        break;
    }
    default:
        sys_error(L, "mode must be an integer or an octal string");
    }
    lua_pop(L, 1);
    if (lua_getfield(L, idx, "owner") != LUA_TNIL) {
        if (lua_isinteger(L, -1))
            lua_tostring(L, -1); /* converts in place */
        if (!lua_isstring(L, -1))
            sys_error(L, "owner must be a user name or number");
        a->owner = lua_tostring(L, -1);
    }
    /* The strings stay referenced from the table, which outlives the call. */
    lua_pop(L, 1);
    if (lua_getfield(L, idx, "group") != LUA_TNIL) {
        if (lua_isinteger(L, -1))
            lua_tostring(L, -1);
        if (!lua_isstring(L, -1))
            sys_error(L, "group must be a group name or number");
        a->group = lua_tostring(L, -1);
    }
    lua_pop(L, 1);
    if (secret) {
        lua_getfield(L, idx, "secret");
        *secret = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
}

/* argv from a list of strings at idx; the strings are anchored in that table. */
static const char **
check_argv(lua_State *L, int idx)
{
    lua_Integer n, i;
    const char **argv;

    luaL_checktype(L, idx, LUA_TTABLE);
    n = (lua_Integer)lua_rawlen(L, idx);
    if (n < 1)
        luaL_argerror(L, idx, "argv must be a non-empty list of strings");
    argv = lua_newuserdatauv(L, sizeof *argv * (size_t)(n + 1), 0);
    for (i = 1; i <= n; i++) {
        int t = lua_rawgeti(L, idx, i);
        if (lprop_is_secret(L, -1))
            sys_error(L,
                      "argv[%d] is a secret: a secret never goes on a command line (any user "
                      "of the target can read those); give it on standard input (stdin = ...)",
                      (int)i);
        if (t != LUA_TSTRING && t != LUA_TNUMBER)
            sys_error(L, "argv[%d] must be a string, got a %s", (int)i, luaL_typename(L, -1));
        argv[i - 1] = lua_tostring(L, -1);
        lua_pop(L, 1);
    }
    argv[n] = NULL;
    return argv;
}

/* A readable command line: words with odd characters are quoted. */
static size_t
argv_text(const char *const *argv, char *buf, size_t size)
{
    size_t n = strlen(buf);
    int k;

    for (k = 0; argv[k] && n < size - 8; k++) {
        const char *w = argv[k];
        int plain = *w != '\0' && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789-_./=:,+@%") == strlen(w);

        if (n && n < size - 1)
            buf[n++] = ' ';
        if (plain) {
            for (; *w && n < size - 1; w++)
                buf[n++] = *w;
            continue;
        }
        /* Quoted as a POSIX shell would read it back: ' becomes '\''. */
        if (n < size - 1)
            buf[n++] = '\'';
        for (; *w && n < size - 5; w++) {
            if (*w == '\'') {
                memcpy(buf + n, "'\\''", 4);
                n += 4;
            } else {
                buf[n++] = *w;
            }
        }
        if (n < size - 1)
            buf[n++] = '\'';
    }
    buf[n < size ? n : size - 1] = '\0';
    return n < size ? n : size - 1;
}

static void
note_argv(lsys *s, const char *prefix, const char *const *argv)
{
    char buf[1024];

    snprintf(buf, sizeof buf, "%s", prefix);
    lsys_note(s, buf, argv_text(argv, buf, sizeof buf));
}

/* Protected (lprop_cpcall): the table of the result at ud. */
static int
push_cmd_result(lua_State *L)
{
    prop_cmd_result *r = lua_touserdata(L, 1);

    lua_createtable(L, 0, 3);
    lua_pushinteger(L, r->code);
    lua_setfield(L, -2, "code");
    lua_pushlstring(L, r->out ? r->out : "", r->out_len);
    lua_setfield(L, -2, "stdout");
    lua_pushlstring(L, r->err ? r->err : "", r->err_len);
    lua_setfield(L, -2, "stderr");
    return 1;
}

/*
 * The exit codes a command may end with (option ok at idx+field): nil is
 * {0} for run and any for query; "any"; or a list of integers.  Returns 1
 * when every code is accepted, else fills codes[0..*n).
 */
#define MAX_OK_CODES 32
static int
check_ok(lua_State *L, int opts, int change, int *codes, int *n)
{
    lua_Integer i, len;

    *n = 0;
    if (lua_isnoneornil(L, opts) || lua_getfield(L, opts, "ok") == LUA_TNIL) {
        if (!lua_isnoneornil(L, opts))
            lua_pop(L, 1);
        if (!change)
            return 1;
        codes[(*n)++] = 0;
        return 0;
    }
    if (lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), "any") == 0) {
        lua_pop(L, 1);
        return 1;
    }
    if (!lua_istable(L, -1))
        sys_error(L, "ok must be \"any\" or a list of exit codes such as { 0, 1 }");
    len = (lua_Integer)lua_rawlen(L, -1);
    if (len < 1 || len > MAX_OK_CODES)
        sys_error(L, "ok must list 1 to %d exit codes", MAX_OK_CODES);
    for (i = 1; i <= len; i++) {
        lua_rawgeti(L, -1, i);
        if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 0 || lua_tointeger(L, -1) > 255)
            sys_error(L, "ok[%d] must be an exit code (an integer in 0..255)", (int)i);
        codes[(*n)++] = (int)lua_tointeger(L, -1);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return 0;
}

/* The last non-empty lines of out (at most max bytes), for messages. */
static void
tail_of(const char *out, size_t len, char *buf, size_t size)
{
    size_t start, lines = 0;

    while (len > 0 && (out[len - 1] == '\n' || out[len - 1] == ' '))
        len--;
    start = len;
    while (start > 0 && lines < 6 && len - start < size - 1) {
        start--;
        if (out[start] == '\n')
            lines++;
    }
    if (start > 0 || (len > 0 && out[start] == '\n'))
        start++;
    if (len - start > size - 1)
        start = len - (size - 1);
    memcpy(buf, out + start, len - start);
    buf[len - start] = '\0';
}

static int
do_run(lua_State *L, int change)
{
    lsys *s;
    const char **argv;
    const char *in = NULL;
    size_t inlen = 0;
    prop_cmd_result r;
    int rc, any, codes[MAX_OK_CODES], ncodes, i, accepted, secret_in = 0;
    unsigned char *secret = NULL;
    size_t secret_len = 0;

    lua_settop(L, 3); /* argv's userdata and the stdin string go above */
    s = check_sys(L);
    argv = check_argv(L, 2);
    if (!lua_isnoneornil(L, 3)) {
        luaL_checktype(L, 3, LUA_TTABLE);
        if (lua_getfield(L, 3, "stdin") == LUA_TNIL)
            lua_pop(L, 1);
        else if (lprop_is_secret(L, -1))
            secret_in = lua_gettop(L); /* made into bytes just before the command runs */
        else
            in = luaL_checklstring(L, -1, &inlen); /* stays on the stack */
    }
    any = check_ok(L, 3, change, codes, &ncodes);
    if (change && s->mode == LSYS_TEST)
        return sys_error(L, "sys:run in an only_if test: a test must only look (sys:query runs "
                            "a command that only looks)");
    if (change && s->mode == LSYS_CHECK && s->dry) {
        /* What a dry run never does, wherever it is asked for: the check
         * stops here, and the property counts as one that would change. */
        note_argv(s, "would run (in check):", argv);
        s->dry_check_ran = 1;
        return sys_error(L, "a dry run does not run commands that can change the target");
    }
    if (change && s->mode == LSYS_APPLY) {
        s->changes++;
        if (s->dry) {
            note_argv(s, "would run:", argv);
            lua_createtable(L, 0, 3);
            lua_pushinteger(L, 0);
            lua_setfield(L, -2, "code");
            lua_pushliteral(L, "");
            lua_setfield(L, -2, "stdout");
            lua_pushliteral(L, "");
            lua_setfield(L, -2, "stderr");
            return 1;
        }
    }
    if (secret_in) {
        char why[512];

        if (lprop_secret_resolve(L, secret_in, s->reveal, s->reveal_ud, &secret, &secret_len, why,
                                 sizeof why) != 0)
            return sys_error(L, "%s", why);
        in = (const char *)secret;
        inlen = secret_len;
    }
    rc = change ? prop_transport_run(s->t, argv, in, inlen, &r)
                : prop_transport_query(s->t, argv, in, inlen, &r);
    if (secret) {
        /* No malloc'd pointer lives across a call that can raise. */
        lprop_wipe(secret, secret_len);
        free(secret);
        secret = NULL;
    }
    if (rc != PROP_OK) {
        prop_cmd_result_clear(&r);
        return sys_error(L, "cannot run %s: %s", argv[0], prop_transport_error(s->t));
    }
    accepted = any;
    for (i = 0; i < ncodes && !accepted; i++)
        accepted = r.code == codes[i];
    if (!accepted) {
        char shown[1024], tail[1024];
        int code = r.code;

        shown[0] = '\0';
        argv_text(argv, shown, sizeof shown);
        if (r.err_len > 0)
            tail_of(r.err, r.err_len, tail, sizeof tail);
        else
            tail_of(r.out ? r.out : "", r.out_len, tail, sizeof tail);
        prop_cmd_result_clear(&r);
        return sys_error(L, "%s exited with %d%s%s", shown, code, tail[0] ? ":\n" : "", tail);
    }
    rc = lprop_cpcall(L, push_cmd_result, &r);
    prop_cmd_result_clear(&r); /* before an error, if any, goes on */
    return rc == LUA_OK ? 1 : lua_error(L);
}

static int
sys_run(lua_State *L)
{
    return do_run(L, 1);
}

static int
sys_query(lua_State *L)
{
    return do_run(L, 0);
}

static int
sys_read(lua_State *L)
{
    lsys *s = check_sys(L);
    const char *path = check_path(L, 2);
    char *data = NULL;
    size_t len = 0;
    int rc = prop_transport_read(s->t, path, &data, &len);

    if (rc == PROP_ENOTFOUND) {
        lua_pushnil(L);
        return 1;
    }
    if (rc != PROP_OK)
        return transport_error(L, s, "read", path, rc);
    return lprop_push_and_free(L, data, len);
}

/* Diff of what path holds now against content, as a note. */
static void
note_diff(lsys *s, const char *path, const char *content, size_t len, int secret)
{
    char *old = NULL, *d = NULL;
    size_t oldlen = 0, dlen = 0;
    char a[1100], b[1100];
    int rc;

    if (secret) {
        notef(s, "%s: secret content, diff not shown", path);
        return;
    }
    rc = prop_transport_read(s->t, path, &old, &oldlen);
    if (rc != PROP_OK && rc != PROP_ENOTFOUND) {
        notef(s, "%s: cannot read the old content for a diff: %s", path,
              prop_transport_error(s->t));
        return;
    }
    snprintf(a, sizeof a, "%s%s", rc == PROP_ENOTFOUND ? "/dev/null" : "a",
             rc == PROP_ENOTFOUND ? "" : path);
    snprintf(b, sizeof b, "b%s", path);
    if (prop_diff_unified(old ? old : "", oldlen, content, len, a, b, 3, &d, &dlen) != PROP_OK)
        notef(s, "%s: no memory for a diff", path);
    else if (d && dlen) {
        lsys_note(s, d, dlen);
        if (s->keep_diffs)
            add_line(s, &s->diffs, &s->diffs_len, &s->diffs_cap, d, dlen);
    }
    free(d);
    free(old);
}

static int
sys_write(lua_State *L)
{
    lsys *s = check_sys(L);
    const char *path = check_path(L, 2);
    size_t len = 0;
    const char *content = NULL;
    int from_store = lprop_is_secret(L, 3);
    prop_file_attrs a;
    int secret, rc;

    if (!from_store)
        content = luaL_checklstring(L, 3, &len);
    check_attrs(L, 4, &a, &secret);
    secret = secret || from_store;
    changing(L, s, "write");
    check_claimed_via(L, s, 4, path, "wrote", 0);
    if (s->dry) {
        if (s->diff)
            note_diff(s, path, content, len, secret);
        if (from_store)
            notef(s, "would write %s (a secret)", path);
        else
            notef(s, "would write %s (%zu bytes)", path, len);
    } else if (from_store) {
        unsigned char *bytes;
        size_t n;
        char why[512];

        if (lprop_secret_resolve(L, 3, s->reveal, s->reveal_ud, &bytes, &n, why, sizeof why) != 0)
            return sys_error(L, "write %s: %s", path, why);
        if (s->diff)
            note_diff(s, path, (const char *)bytes, n, 1);
        rc = prop_transport_write(s->t, path, (const char *)bytes, n, &a);
        lprop_wipe(bytes, n);
        free(bytes);
        if (rc != PROP_OK)
            return transport_error(L, s, "write", path, rc);
    } else {
        if (s->diff)
            note_diff(s, path, content, len, secret);
        rc = prop_transport_write(s->t, path, content, len, &a);
        if (rc != PROP_OK)
            return transport_error(L, s, "write", path, rc);
    }
    lua_pushboolean(L, 1);
    return 1;
}

/*
 * sys:has_content(path, content): whether the file at path holds exactly
 * content (a string or a secret).  The comparison is made here, so that a
 * secret's bytes, and the file's when it is compared with one, never
 * reach Lua.  A missing file has no content (false).
 */
static int
sys_has_content(lua_State *L)
{
    lsys *s = check_sys(L);
    const char *path = check_path(L, 2);
    int from_store = lprop_is_secret(L, 3);
    const char *want = NULL;
    unsigned char *bytes = NULL;
    size_t wlen = 0, len = 0;
    char *data = NULL, why[512];
    int rc, same;

    if (!from_store)
        want = luaL_checklstring(L, 3, &wlen);
    rc = prop_transport_read(s->t, path, &data, &len);
    if (rc == PROP_ENOTFOUND) {
        lua_pushboolean(L, 0);
        return 1;
    }
    if (rc != PROP_OK)
        return transport_error(L, s, "read", path, rc);
    if (from_store) {
        if (lprop_secret_resolve(L, 3, s->reveal, s->reveal_ud, &bytes, &wlen, why, sizeof why) !=
            0) {
            lprop_wipe(data, len);
            free(data);
            if (s->dry) {
                /* A dry run that cannot decrypt cannot compare: it says
                 * so and counts the file as one that would change. */
                notef(s, "%s: cannot compare with the secret (%s): counted as a change", path, why);
                lua_pushboolean(L, 0);
                return 1;
            }
            return sys_error(L, "read %s: %s", path, why);
        }
        want = (const char *)bytes;
    }
    same = len == wlen && memcmp(data, want, len) == 0;
    if (from_store) {
        lprop_wipe(bytes, wlen);
        free(bytes);
        lprop_wipe(data, len);
    }
    free(data);
    lua_pushboolean(L, same);
    return 1;
}

static const char *
type_name(prop_file_type t)
{
    switch (t) {
    case PROP_FT_FILE:
        return "file";
    case PROP_FT_DIR:
        return "directory";
    case PROP_FT_LINK:
        return "link";
    case PROP_FT_OTHER:
    case PROP_FT_NONE:
        break;
    }
    return "other";
}

static int
sys_stat(lua_State *L)
{
    lsys *s = check_sys(L);
    const char *path = check_path(L, 2);
    prop_file_stat st;
    int rc = prop_transport_stat(s->t, path, &st);

    if (rc == PROP_ENOTFOUND || (rc == PROP_OK && st.type == PROP_FT_NONE)) {
        lua_pushnil(L);
        return 1;
    }
    if (rc != PROP_OK)
        return transport_error(L, s, "stat", path, rc);
    lua_createtable(L, 0, 8);
    lua_pushstring(L, type_name(st.type));
    lua_setfield(L, -2, "type");
    lua_pushinteger(L, st.mode);
    lua_setfield(L, -2, "mode");
    lua_pushinteger(L, (lua_Integer)st.uid);
    lua_setfield(L, -2, "uid");
    lua_pushinteger(L, (lua_Integer)st.gid);
    lua_setfield(L, -2, "gid");
    lua_pushstring(L, st.owner);
    lua_setfield(L, -2, "owner");
    lua_pushstring(L, st.group);
    lua_setfield(L, -2, "group");
    lua_pushinteger(L, st.size);
    lua_setfield(L, -2, "size");
    if (st.type == PROP_FT_LINK) {
        lua_pushstring(L, st.target);
        lua_setfield(L, -2, "target");
    }
    return 1;
}

static int
sys_exists(lua_State *L)
{
    lsys *s = check_sys(L);
    const char *path = check_path(L, 2);
    prop_file_stat st;
    int rc = prop_transport_stat(s->t, path, &st);

    if (rc != PROP_OK && rc != PROP_ENOTFOUND)
        return transport_error(L, s, "stat", path, rc);
    lua_pushboolean(L, rc == PROP_OK && st.type != PROP_FT_NONE);
    return 1;
}

static int
sys_remove(lua_State *L)
{
    lsys *s = check_sys(L);
    const char *path = check_path(L, 2);
    int rc;

    changing(L, s, "remove");
    check_claimed(s, path, "removed", 0);
    if (s->dry) {
        notef(s, "would remove %s", path);
    } else if ((rc = prop_transport_remove(s->t, path)) != PROP_OK) {
        return transport_error(L, s, "remove", path, rc);
    } else if (s->diff) {
        notef(s, "removed %s", path);
    }
    lua_pushboolean(L, 1);
    return 1;
}

static int
sys_mkdir(lua_State *L)
{
    lsys *s = check_sys(L);
    const char *path = check_path(L, 2);
    prop_file_attrs a;
    int rc;

    check_attrs(L, 3, &a, NULL);
    changing(L, s, "mkdir");
    check_claimed_via(L, s, 3, path, "made the directory", 1);
    if (s->dry) {
        notef(s, "would make directory %s", path);
    } else if ((rc = prop_transport_mkdir(s->t, path, &a)) != PROP_OK) {
        return transport_error(L, s, "mkdir", path, rc);
    }
    lua_pushboolean(L, 1);
    return 1;
}

static int
sys_symlink(lua_State *L)
{
    lsys *s = check_sys(L);
    const char *target = luaL_checkstring(L, 2);
    const char *link = check_path(L, 3);
    int rc;

    changing(L, s, "symlink");
    check_claimed(s, link, "linked", 0);
    if (s->dry) {
        notef(s, "would link %s -> %s", link, target);
    } else if ((rc = prop_transport_symlink(s->t, target, link)) != PROP_OK) {
        return transport_error(L, s, "symlink", link, rc);
    } else if (s->diff) {
        notef(s, "linked %s -> %s", link, target);
    }
    lua_pushboolean(L, 1);
    return 1;
}

static int
sys_chattr(lua_State *L)
{
    lsys *s = check_sys(L);
    const char *path = check_path(L, 2);
    prop_file_attrs a;
    int rc;

    luaL_checktype(L, 3, LUA_TTABLE);
    check_attrs(L, 3, &a, NULL);
    changing(L, s, "chattr");
    check_claimed_via(L, s, 3, path, "changed the attributes of", 0);
    if (s->dry || s->diff) {
        char m[24] = "";
        if (a.mode >= 0)
            snprintf(m, sizeof m, " mode %04o", (unsigned)a.mode);
        notef(s, "%s %s%s%s%s%s%s", s->dry ? "would set" : "set", path, m, a.owner ? " owner " : "",
              a.owner ? a.owner : "", a.group ? " group " : "", a.group ? a.group : "");
    }
    if (!s->dry && (rc = prop_transport_chattr(s->t, path, &a)) != PROP_OK)
        return transport_error(L, s, "chattr", path, rc);
    lua_pushboolean(L, 1);
    return 1;
}

static int
sys_note(lua_State *L)
{
    lsys *s = check_sys(L);
    size_t len;
    const char *text = luaL_checklstring(L, 2, &len);

    lsys_note(s, text, len);
    return 0;
}

/*
 * sys.facts, the first time it is asked for on this host: gathered by
 * prop.facts (one command through the transport) and kept in the
 * uservalue table, which lives as long as the host's run.  A failure is
 * not kept: the next use tries again.
 */
static int
gather_facts(lua_State *L)
{
    check_sys(L);
    lprop_require(L, "prop.facts");
    lua_getfield(L, -1, "gather");
    lua_pushvalue(L, 1);
    lua_call(L, 1, 1);
    lua_getiuservalue(L, 1, 1);
    lua_pushvalue(L, -2);
    lua_setfield(L, -2, "facts");
    lua_pop(L, 1);
    return 1;
}

/* __index: a method, or a field from the uservalue table (host, os, dry,
 * cache, facts once gathered). */
static int
sys_index(lua_State *L)
{
    lua_settop(L, 2);
    if (lua_getmetatable(L, 1)) {
        lua_getfield(L, -1, "__methods");
        lua_pushvalue(L, 2);
        if (lua_rawget(L, -2) != LUA_TNIL)
            return 1;
        lua_pop(L, 3);
    }
    lua_getiuservalue(L, 1, 1);
    lua_pushvalue(L, 2);
    if (lua_rawget(L, -2) == LUA_TNIL && lua_type(L, 2) == LUA_TSTRING &&
        strcmp(lua_tostring(L, 2), "facts") == 0) {
        lua_settop(L, 1);
        return gather_facts(L);
    }
    return 1;
}

/* Writing a field of sys: refused, with what to do instead. */
static int
sys_newindex(lua_State *L)
{
    const char *k = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : "?";

    return sys_error(L, "sys.%s cannot be set: keep values in sys.cache (sys.facts is read-only)",
                     k);
}

static int
sys_tostring(lua_State *L)
{
    sys_ud *u = luaL_checkudata(L, 1, LSYS_TYPE);

    if (u->s)
        lua_pushfstring(L, "sys(%s via %s)", u->s->host, prop_transport_name(u->s->t));
    else
        lua_pushliteral(L, "sys(retired)");
    return 1;
}

static const luaL_Reg sys_methods[] = {
    {"run", sys_run},
    {"query", sys_query},
    {"read", sys_read},
    {"write", sys_write},
    {"has_content", sys_has_content},
    {"stat", sys_stat},
    {"exists", sys_exists},
    {"remove", sys_remove},
    {"mkdir", sys_mkdir},
    {"symlink", sys_symlink},
    {"chattr", sys_chattr},
    {"note", sys_note},
    {NULL, NULL},
};

/*
 * The ports the properties of h declare, each once and in increasing
 * order: every top-level property's port set (which holds its parts'
 * ports, a reverted property's being those of its revert action) is
 * sorted, so each round takes the least port above the last one pushed.
 */
static void
push_declared_ports(lua_State *L, const prop_host *h)
{
    size_t i, j, nprops = h ? prop_host_nprops(h) : 0;
    lua_Integer k = 0;
    int last = 0;

    lua_newtable(L);
    for (;;) {
        int next = 0;

        for (i = 0; i < nprops; i++) {
            const prop_node *n = prop_host_prop(h, i);
            size_t cnt = prop_node_nports(n);

            for (j = 0; j < cnt; j++) {
                int p = prop_node_port(n, j);

                if (p > last) {
                    if (next == 0 || p < next)
                        next = p;
                    break;
                }
            }
        }
        if (next == 0)
            return;
        lua_pushinteger(L, next);
        lua_rawseti(L, -2, ++k);
        last = next;
    }
}

/* Protected (lprop_cpcall): the `sys` userdata for the lsys at ud. */
static int
push_sys(lua_State *L)
{
    lsys *s = lua_touserdata(L, 1);
    sys_ud *u = lua_newuserdatauv(L, sizeof *u, 1);

    u->s = s;
    if (luaL_newmetatable(L, LSYS_TYPE)) {
        luaL_newlib(L, sys_methods);
        lua_setfield(L, -2, "__methods");
        lua_pushcfunction(L, sys_index);
        lua_setfield(L, -2, "__index");
        lua_pushcfunction(L, sys_newindex);
        lua_setfield(L, -2, "__newindex");
        lua_pushcfunction(L, sys_tostring);
        lua_setfield(L, -2, "__tostring");
        lua_pushliteral(L, "sys");
        lua_setfield(L, -2, "__name");
        lua_pushboolean(L, 0);
        lua_setfield(L, -2, "__metatable");
    }
    lua_setmetatable(L, -2);
    lua_createtable(L, 0, 5);
    lua_pushstring(L, s->host);
    lua_setfield(L, -2, "host");
    if (s->os) {
        lua_pushstring(L, s->os);
        lua_setfield(L, -2, "os");
    }
    if (s->suite) {
        lua_pushstring(L, s->suite);
        lua_setfield(L, -2, "suite");
    }
    if (s->arch) {
        lua_pushstring(L, s->arch);
        lua_setfield(L, -2, "arch");
    }
    if (s->container) {
        lua_pushstring(L, s->container);
        lua_setfield(L, -2, "container");
    }
    push_declared_ports(L, s->declared);
    lua_setfield(L, -2, "ports");
    lua_pushboolean(L, s->dry);
    lua_setfield(L, -2, "dry");
    lua_pushstring(L, prop_transport_name(s->t));
    lua_setfield(L, -2, "transport");
    lua_newtable(L);
    lua_setfield(L, -2, "cache");
    lua_setiuservalue(L, -2, 1);
    return 1;
}

int
lsys_push(lua_State *L, lsys *s)
{
    return lprop_cpcall(L, push_sys, s) == LUA_OK ? 0 : -1;
}

void
lsys_retire(lua_State *L, int idx)
{
    sys_ud *u = luaL_testudata(L, idx, LSYS_TYPE);

    if (u)
        u->s = NULL;
}
