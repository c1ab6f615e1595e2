/*
 * lsys_file.c - the file methods of the `sys` handle: read, write,
 * has_content, stat, exists, remove, mkdir, symlink and chattr, over the
 * host's transport.  In a dry run, and under --diff, that transport is
 * prop_transport_dry(), which notes what those that change the target
 * would do or did; a write to a path the running property does not claim
 * is warned of (W104).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lprop.h"
#include "lsys_methods.h"

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
        return lsys_error(L, "%s %s: no such file or directory", what, path);
    if (rc == PROP_EINVAL)
        return lsys_error(L, "%s %s: invalid argument", what, path);
    /* The transport's message names the operation and the path itself. */
    if (*prop_transport_error(s->t))
        return lsys_error(L, "%s", prop_transport_error(s->t));
    return lsys_error(L, "%s %s: failed", what, path);
}

/* A change: refused inside check and only_if tests, counted otherwise. */
static void
changing(lua_State *L, lsys *s, const char *method)
{
    if (s->mode == LSYS_CHECK)
        lsys_error(L, "sys:%s in check: check must only look; make changes in apply", method);
    if (s->mode == LSYS_TEST)
        lsys_error(L, "sys:%s in an only_if test: a test must only look", method);
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
    lsys_add_line(s, &s->warnings, &s->warnings_len, &s->warnings_cap, buf,
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

/* A string argument that names a path: one a system call can take (a NUL
 * would cut it there, and the call would reach another file). */
static const char *
check_pathname(lua_State *L, int idx, const char *what)
{
    size_t len;
    const char *p = luaL_checklstring(L, idx, &len);

    if (memchr(p, '\0', len)) {
        luaL_Buffer b;
        size_t i;

        luaL_buffinit(L, &b);
        for (i = 0; i < len; i++) {
            if (p[i] == '\0')
                luaL_addstring(&b, "\\0");
            else
                luaL_addchar(&b, p[i]);
        }
        luaL_pushresult(&b);
        luaL_argerror(
            L, idx,
            lua_pushfstring(L, "%s \"%s\" contains a NUL character", what, lua_tostring(L, -1)));
    }
    return p;
}

static const char *
check_path(lua_State *L, int idx)
{
    const char *p = check_pathname(L, idx, "path");

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
            lsys_error(L, "mode must be an integer in 0..07777 (tonumber(\"0644\", 8))");
        a->mode = (int)lua_tointeger(L, -1);
        break;
    case LUA_TSTRING: {
        const char *m = lua_tostring(L, -1);
        char *end;
        long v;
        errno = 0;
        v = strtol(m, &end, 8);
        if (errno || *m == '\0' || *end != '\0' || v < 0 || v > 07777)
            lsys_error(L, "mode \"%s\" is not an octal mode such as \"0644\"", m);
        a->mode = (int)v;
        break;
    }
    default:
        lsys_error(L, "mode must be an integer or an octal string");
    }
    lua_pop(L, 1);
    if (lua_getfield(L, idx, "owner") != LUA_TNIL) {
        if (lua_isinteger(L, -1))
            lua_tostring(L, -1); /* converts in place */
        if (!lua_isstring(L, -1))
            lsys_error(L, "owner must be a user name or number");
        a->owner = lua_tostring(L, -1);
    }
    /* The strings stay referenced from the table, which outlives the call. */
    lua_pop(L, 1);
    if (lua_getfield(L, idx, "group") != LUA_TNIL) {
        if (lua_isinteger(L, -1))
            lua_tostring(L, -1);
        if (!lua_isstring(L, -1))
            lsys_error(L, "group must be a group name or number");
        a->group = lua_tostring(L, -1);
    }
    lua_pop(L, 1);
    if (secret) {
        lua_getfield(L, idx, "secret");
        *secret = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
}

int
lsys_file_read(lua_State *L)
{
    lsys *s = lsys_check_self(L);
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

int
lsys_file_write(lua_State *L)
{
    lsys *s = lsys_check_self(L);
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
    if (from_store && s->dry) {
        /* A dry run does not decrypt: the transport says "(a secret)". */
        rc = prop_transport_write_secret(s->t, path, NULL, 0, &a);
    } else if (from_store) {
        unsigned char *bytes;
        size_t n;
        char why[512];

        if (lprop_secret_resolve(L, 3, s->reveal, s->reveal_ud, &bytes, &n, why, sizeof why) != 0)
            return lsys_error(L, "write %s: %s", path, why);
        rc = prop_transport_write_secret(s->t, path, (const char *)bytes, n, &a);
        lprop_wipe(bytes, n);
        free(bytes);
    } else if (secret) {
        rc = prop_transport_write_secret(s->t, path, content, len, &a);
    } else {
        rc = prop_transport_write(s->t, path, content, len, &a);
    }
    if (rc != PROP_OK)
        return transport_error(L, s, "write", path, rc);
    lua_pushboolean(L, 1);
    return 1;
}

/*
 * sys:has_content(path, content): whether the file at path holds exactly
 * content (a string or a secret).  The comparison is made here, so that a
 * secret's bytes, and the file's when it is compared with one, never
 * reach Lua.  A missing file has no content (false).
 */
int
lsys_file_has_content(lua_State *L)
{
    lsys *s = lsys_check_self(L);
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
            return lsys_error(L, "read %s: %s", path, why);
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

int
lsys_file_stat(lua_State *L)
{
    lsys *s = lsys_check_self(L);
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

int
lsys_file_exists(lua_State *L)
{
    lsys *s = lsys_check_self(L);
    const char *path = check_path(L, 2);
    prop_file_stat st;
    int rc = prop_transport_stat(s->t, path, &st);

    if (rc != PROP_OK && rc != PROP_ENOTFOUND)
        return transport_error(L, s, "stat", path, rc);
    lua_pushboolean(L, rc == PROP_OK && st.type != PROP_FT_NONE);
    return 1;
}

int
lsys_file_remove(lua_State *L)
{
    lsys *s = lsys_check_self(L);
    const char *path = check_path(L, 2);
    int rc;

    changing(L, s, "remove");
    check_claimed(s, path, "removed", 0);
    if ((rc = prop_transport_remove(s->t, path)) != PROP_OK)
        return transport_error(L, s, "remove", path, rc);
    lua_pushboolean(L, 1);
    return 1;
}

int
lsys_file_mkdir(lua_State *L)
{
    lsys *s = lsys_check_self(L);
    const char *path = check_path(L, 2);
    prop_file_attrs a;
    int rc;

    check_attrs(L, 3, &a, NULL);
    changing(L, s, "mkdir");
    check_claimed_via(L, s, 3, path, "made the directory", 1);
    if ((rc = prop_transport_mkdir(s->t, path, &a)) != PROP_OK)
        return transport_error(L, s, "mkdir", path, rc);
    lua_pushboolean(L, 1);
    return 1;
}

int
lsys_file_symlink(lua_State *L)
{
    lsys *s = lsys_check_self(L);
    const char *target = check_pathname(L, 2, "target");
    const char *link = check_path(L, 3);
    int rc;

    changing(L, s, "symlink");
    check_claimed(s, link, "linked", 0);
    if ((rc = prop_transport_symlink(s->t, target, link)) != PROP_OK)
        return transport_error(L, s, "symlink", link, rc);
    lua_pushboolean(L, 1);
    return 1;
}

int
lsys_file_chattr(lua_State *L)
{
    lsys *s = lsys_check_self(L);
    const char *path = check_path(L, 2);
    prop_file_attrs a;
    int rc, hardlinks;

    luaL_checktype(L, 3, LUA_TTABLE);
    check_attrs(L, 3, &a, NULL);
    /* hardlinks: in a tree, a file with several hard links is changed too. */
    lua_getfield(L, 3, "hardlinks");
    hardlinks = lua_toboolean(L, -1);
    lua_pop(L, 1);
    changing(L, s, "chattr");
    check_claimed_via(L, s, 3, path, "changed the attributes of", 0);
    if ((rc = hardlinks ? prop_transport_chattr_hardlinks(s->t, path, &a)
                        : prop_transport_chattr(s->t, path, &a)) != PROP_OK)
        return transport_error(L, s, "chattr", path, rc);
    lua_pushboolean(L, 1);
    return 1;
}
