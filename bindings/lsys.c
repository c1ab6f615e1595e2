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
    return lua_error(L);
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
    s->in_check = 0;
}

void
lsys_note(lsys *s, const char *text, size_t len)
{
    size_t need = s->notes_len + len + 2;

    if (need > s->notes_cap) {
        size_t cap = s->notes_cap ? s->notes_cap : 256;
        char *p;
        while (cap < need)
            cap *= 2;
        p = realloc(s->notes, cap);
        if (p == NULL) {
            s->notes_oom = 1;
            return;
        }
        s->notes = p;
        s->notes_cap = cap;
    }
    memcpy(s->notes + s->notes_len, text, len);
    s->notes_len += len;
    if (len == 0 || text[len - 1] != '\n')
        s->notes[s->notes_len++] = '\n';
    s->notes[s->notes_len] = '\0';
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

void
lsys_clear(lsys *s)
{
    free(s->notes);
    s->notes = NULL;
    s->notes_len = s->notes_cap = 0;
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

/* A change: refused inside check, counted otherwise. */
static void
changing(lua_State *L, lsys *s, const char *method)
{
    if (s->in_check)
        sys_error(L, "sys:%s in check: check must only look; make changes in apply", method);
    s->changes++;
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
        if (t != LUA_TSTRING && t != LUA_TNUMBER)
            sys_error(L, "argv[%d] must be a string, got a %s", (int)i, luaL_typename(L, -1));
        argv[i - 1] = lua_tostring(L, -1);
        lua_pop(L, 1);
    }
    argv[n] = NULL;
    return argv;
}

/* A readable command line for notes: words with odd characters are quoted. */
static void
note_argv(lsys *s, const char *prefix, const char *const *argv)
{
    char buf[1024];
    size_t n = 0;
    int k;

    n = (size_t)snprintf(buf, sizeof buf, "%s", prefix);
    for (k = 0; argv[k] && n < sizeof buf - 8; k++) {
        const char *w = argv[k];
        int plain = *w != '\0' && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789-_./=:,+@%") == strlen(w);
        int m = snprintf(buf + n, sizeof buf - n, plain ? " %s" : " '%s'", w);
        if (m < 0)
            break;
        n += (size_t)m;
    }
    if (n >= sizeof buf)
        n = sizeof buf - 1;
    lsys_note(s, buf, n);
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

static int
do_run(lua_State *L, int change)
{
    lsys *s;
    const char **argv;
    const char *in = NULL;
    size_t inlen = 0;
    prop_cmd_result r;
    int rc;

    lua_settop(L, 3); /* argv's userdata and the stdin string go above */
    s = check_sys(L);
    argv = check_argv(L, 2);
    if (!lua_isnoneornil(L, 3)) {
        luaL_checktype(L, 3, LUA_TTABLE);
        if (lua_getfield(L, 3, "stdin") != LUA_TNIL) {
            in = luaL_checklstring(L, -1, &inlen); /* stays on the stack */
        } else {
            lua_pop(L, 1);
        }
    }
    if (change && !s->in_check) {
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
    rc = change ? prop_transport_run(s->t, argv, in, inlen, &r)
                : prop_transport_query(s->t, argv, in, inlen, &r);
    if (rc != PROP_OK) {
        prop_cmd_result_clear(&r);
        return sys_error(L, "cannot run %s: %s", argv[0], prop_transport_error(s->t));
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
    else if (d && dlen)
        lsys_note(s, d, dlen);
    free(d);
    free(old);
}

static int
sys_write(lua_State *L)
{
    lsys *s = check_sys(L);
    const char *path = check_path(L, 2);
    size_t len;
    const char *content = luaL_checklstring(L, 3, &len);
    prop_file_attrs a;
    int secret, rc;

    check_attrs(L, 4, &a, &secret);
    changing(L, s, "write");
    if (s->diff)
        note_diff(s, path, content, len, secret);
    if (s->dry) {
        notef(s, "would write %s (%zu bytes)", path, len);
    } else {
        rc = prop_transport_write(s->t, path, content, len, &a);
        if (rc != PROP_OK)
            return transport_error(L, s, "write", path, rc);
    }
    lua_pushboolean(L, 1);
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

/* __index: a method, or a field from the uservalue table (host, os, dry, cache). */
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
    lua_rawget(L, -2);
    return 1;
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
    {"run", sys_run},         {"query", sys_query},   {"read", sys_read},     {"write", sys_write},
    {"stat", sys_stat},       {"exists", sys_exists}, {"remove", sys_remove}, {"mkdir", sys_mkdir},
    {"symlink", sys_symlink}, {"chattr", sys_chattr}, {"note", sys_note},     {NULL, NULL},
};

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
