/*
 * lprop_secret.c - `secret "name"`: a value that stands for a secret kept
 * in the site's encrypted store, usable wherever content, a password or a
 * key is taken.
 *
 * The value itself is never in the Lua state: a Secret is a list of parts,
 * each a literal string or the name of a secret, so concatenating it with
 * strings gives another Secret and nothing a site does while it is
 * evaluated can read, print, measure or compare the secret's bytes.  At
 * run time the `sys` handle turns a Secret into bytes in C memory, just
 * for the write or the command's standard input that needs them
 * (lprop_secret_resolve), and wipes them after.
 */
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lprop_secret.h"

#define MAX_FRAMES 8
#define MAX_PARTS 256

/* Parts are kept in the userdata's user value: a string is a literal; a
 * table { name } stands for the secret of that name. */

int
lprop_is_secret(lua_State *L, int idx)
{
    return luaL_testudata(L, idx, LPROP_SECRET) != NULL;
}

/* A new Secret from the parts table on top of the stack (popped). */
static void
push_secret(lua_State *L)
{
    lua_newuserdatauv(L, 1, 1);
    lua_insert(L, -2);
    lua_setiuservalue(L, -2, 1);
    luaL_setmetatable(L, LPROP_SECRET);
}

/* Append the parts of the value at idx (a Secret, a string or a number)
 * to the table on top of the stack. */
static void
append_parts(lua_State *L, int idx)
{
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1), i, m;

    idx = lua_absindex(L, idx);
    if (lprop_is_secret(L, idx)) {
        lua_getiuservalue(L, idx, 1);
        m = (lua_Integer)lua_rawlen(L, -1);
        if (n + m > MAX_PARTS)
            lprop_error(L, "a secret made of more than %d parts", MAX_PARTS);
        for (i = 1; i <= m; i++) {
            lua_rawgeti(L, -1, i);
            lua_rawseti(L, -3, ++n);
        }
        lua_pop(L, 1);
        return;
    }
    if (lua_type(L, idx) == LUA_TSTRING || lua_type(L, idx) == LUA_TNUMBER) {
        if (n + 1 > MAX_PARTS)
            lprop_error(L, "a secret made of more than %d parts", MAX_PARTS);
        lua_pushvalue(L, idx);
        lua_tostring(L, -1); /* a number becomes its text */
        lua_rawseti(L, -2, n + 1);
        return;
    }
    lprop_error(L, "cannot join a %s to a secret (only strings and numbers can be)",
                luaL_typename(L, idx));
}

static int
is_identifier(const char *s, size_t len)
{
    size_t i;

    if (len == 0 || len > 128 ||
        !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
        return 0;
    for (i = 1; i < len; i++) {
        char c = s[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-'))
            return 0;
    }
    return 1;
}

/* secret "name": a name that is not a plain identifier is P012 at the
 * caller's line; a Secret is made anyway, so evaluation goes on. */
static int
l_secret(lua_State *L)
{
    lprop_ctx *ctx = lprop_getctx(L);
    size_t len;
    const char *name;

    if (lua_type(L, 1) != LUA_TSTRING)
        return lprop_error(L, "secret needs a name (a string such as \"db_password\"), got %s",
                           luaL_typename(L, 1));
    name = lua_tolstring(L, 1, &len);
    if (!is_identifier(name, len)) {
        prop_frame fr[MAX_FRAMES];
        prop_origin o;
        int rc;

        lprop_origin(L, &o, fr, MAX_FRAMES);
        lua_pushfstring(L,
                        "secret: the name \"%s\" is not a plain name: use letters, digits, \"_\", "
                        "\".\" and \"-\", starting with a letter or \"_\" (such as "
                        "\"db_password\")",
                        name);
        rc = prop_site_report(ctx->site, "P012", PROP_SEV_ERROR, &o, lua_tostring(L, -1));
        if (rc != PROP_OK)
            return lprop_engine_error(L, rc);
        lua_pop(L, 1);
    }
    ctx->secrets_made = 1;
    lua_createtable(L, 1, 0);
    lua_createtable(L, 1, 0);
    lua_pushvalue(L, 1);
    lua_rawseti(L, -2, 1);
    lua_rawseti(L, -2, 1);
    push_secret(L);
    return 1;
}

/* a .. b, where one of them is a Secret. */
static int
secret_concat(lua_State *L)
{
    lua_newtable(L);
    append_parts(L, 1);
    append_parts(L, 2);
    push_secret(L);
    return 1;
}

/* The names of the secrets in the Secret at idx, as a new list. */
static void
push_names(lua_State *L, int idx)
{
    lua_Integer i, n, k = 0;

    idx = lua_absindex(L, idx);
    lua_newtable(L);
    lua_getiuservalue(L, idx, 1);
    n = (lua_Integer)lua_rawlen(L, -1);
    for (i = 1; i <= n; i++) {
        if (lua_rawgeti(L, -1, i) == LUA_TTABLE) {
            lua_rawgeti(L, -1, 1);
            lua_rawseti(L, -4, ++k);
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

static int
secret_tostring(lua_State *L)
{
    lua_Integer i, n;
    int names;

    luaL_checkudata(L, 1, LPROP_SECRET);
    push_names(L, 1);
    names = lua_gettop(L);
    n = (lua_Integer)lua_rawlen(L, names);
    lua_pushliteral(L, "<secret ");
    for (i = 1; i <= n && i <= 16; i++) {
        if (i > 1)
            lua_pushliteral(L, "+");
        lua_rawgeti(L, names, i);
    }
    lua_pushliteral(L, ">");
    lua_concat(L, lua_gettop(L) - names);
    return 1;
}

static int
secret_len(lua_State *L)
{
    return lprop_error(L, "the length of a secret is not known while the site is evaluated "
                          "(its value is read only at run time)");
}

static int
secret_compare(lua_State *L)
{
    return lprop_error(L, "a secret cannot be ordered: its value is not known while the site "
                          "is evaluated");
}

/* The claim key of a Secret: its parts, encoded so that equal Secrets
 * have equal tokens and different ones different tokens (the pre-pass
 * compares them; nothing shows them). */
static void
push_token(lua_State *L, int idx)
{
    lua_Integer i, n;
    int parts, base;

    idx = lua_absindex(L, idx);
    lua_getiuservalue(L, idx, 1);
    parts = lua_gettop(L);
    n = (lua_Integer)lua_rawlen(L, parts);
    lua_pushliteral(L, "\001prop-secret\001");
    base = lua_gettop(L);
    for (i = 1; i <= n; i++) {
        size_t len;
        int name = lua_rawgeti(L, parts, i) == LUA_TTABLE;

        if (name) {
            lua_rawgeti(L, -1, 1);
            lua_remove(L, -2);
        }
        lua_tolstring(L, -1, &len);
        lua_pushfstring(L, "%c%d:", name ? 'S' : 'L', (int)len);
        lua_insert(L, -2);
        /* Keep the stack short: join as we go. */
        lua_concat(L, lua_gettop(L) - base + 1);
    }
    lua_remove(L, parts);
}

static int
secret_eq(lua_State *L)
{
    if (!lprop_is_secret(L, 1) || !lprop_is_secret(L, 2)) {
        lua_pushboolean(L, 0);
        return 1;
    }
    push_token(L, 1);
    push_token(L, 2);
    lua_pushboolean(L, lua_rawequal(L, -1, -2));
    return 1;
}

static int
secret_index(lua_State *L)
{
    const char *k = lua_tostring(L, 2);

    if (k && strcmp(k, "names") == 0) {
        push_names(L, 1);
        return 1;
    }
    return lprop_error(L,
                       "a secret has no field \"%s\" (its value is read only at run time; "
                       "names lists the secrets it is made of)",
                       k ? k : luaL_typename(L, 2));
}

static int
l_is_secret(lua_State *L)
{
    lua_pushboolean(L, lprop_is_secret(L, 1));
    return 1;
}

/* core.secret_token(v): the claim value standing for v, or nil. */
static int
l_secret_token(lua_State *L)
{
    if (!lprop_is_secret(L, 1))
        return 0;
    push_token(L, 1);
    return 1;
}

/* core.secret_names(v): the names a Secret is made of, or nil. */
static int
l_secret_names(lua_State *L)
{
    if (!lprop_is_secret(L, 1))
        return 0;
    push_names(L, 1);
    return 1;
}

/*
 * Add to the table on top of the stack (name -> true) the names of the
 * secrets found in the value at idx: a Secret, or inside tables (depth
 * limited) and, for functions, their upvalues (one level: a property's
 * apply that captured a secret uses it).
 */
void
lprop_secret_collect(lua_State *L, int idx, int depth)
{
    int t, res, count = 0, i;

    if (depth > 4 || !lua_checkstack(L, 8))
        return;
    idx = lua_absindex(L, idx);
    res = lua_gettop(L);
    t = lua_type(L, idx);
    if (lprop_is_secret(L, idx)) {
        lua_Integer k, n;

        push_names(L, idx);
        n = (lua_Integer)lua_rawlen(L, -1);
        for (k = 1; k <= n; k++) {
            lua_rawgeti(L, -1, k);
            lua_pushboolean(L, 1);
            lua_rawset(L, res);
        }
        lua_pop(L, 1);
    } else if (t == LUA_TTABLE && !lua_getmetatable(L, idx)) {
        lua_pushnil(L);
        while (lua_next(L, idx)) {
            if (++count > 256) {
                lua_pop(L, 2);
                break;
            }
            lua_pushvalue(L, res);
            lprop_secret_collect(L, -2, depth + 1);
            lua_pop(L, 2);
        }
    } else if (t == LUA_TTABLE) {
        lua_pop(L, 1); /* the metatable: a table with one is not walked */
    } else if (t == LUA_TFUNCTION && depth < 2) {
        for (i = 1; i <= 64 && lua_getupvalue(L, idx, i) != NULL; i++) {
            lua_pushvalue(L, res);
            lprop_secret_collect(L, -2, depth + 1);
            lua_pop(L, 2);
        }
    }
}

int
lprop_secret_resolve(lua_State *L, int idx, lprop_reveal_fn reveal, void *ud, unsigned char **out,
                     size_t *outlen, char *why, size_t whysize)
{
    lua_Integer i, n;
    size_t len = 0, cap = 0;
    unsigned char *buf = NULL;
    int rc = 0;

    *out = NULL;
    *outlen = 0;
    idx = lua_absindex(L, idx);
    lua_getiuservalue(L, idx, 1);
    n = (lua_Integer)lua_rawlen(L, -1);
    for (i = 1; i <= n && rc == 0; i++) {
        const unsigned char *part;
        size_t plen;

        if (lua_rawgeti(L, -1, i) == LUA_TTABLE) {
            const char *name;

            lua_rawgeti(L, -1, 1);
            name = lua_tostring(L, -1);
            if (reveal == NULL) {
                snprintf(why, whysize, "secret \"%s\": no secret store here", name);
                rc = -1;
            } else if (reveal(ud, name, &part, &plen, why, whysize) != 0) {
                rc = -1;
            }
            lua_pop(L, 1);
        } else {
            part = (const unsigned char *)lua_tolstring(L, -1, &plen);
        }
        if (rc == 0 && len + plen + 1 > cap) {
            size_t ncap = (len + plen + 1) * 2;
            unsigned char *nb = malloc(ncap);

            if (nb == NULL) {
                snprintf(why, whysize, "out of memory");
                rc = -1;
            } else {
                if (buf) {
                    memcpy(nb, buf, len);
                    lprop_wipe(buf, cap);
                    free(buf);
                }
                buf = nb;
                cap = ncap;
            }
        }
        if (rc == 0) {
            memcpy(buf + len, part, plen);
            len += plen;
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    if (rc != 0) {
        if (buf) {
            lprop_wipe(buf, cap);
            free(buf);
        }
        return -1;
    }
    if (buf == NULL && (buf = malloc(1)) == NULL) {
        snprintf(why, whysize, "out of memory");
        return -1;
    }
    buf[len] = '\0';
    *out = buf;
    *outlen = len;
    return 0;
}

void
lprop_wipe(void *p, size_t n)
{
    volatile unsigned char *v = p;

    while (n--)
        *v++ = 0;
}

static const luaL_Reg secret_funcs[] = {
    {"secret", l_secret},
    {"is_secret", l_is_secret},
    {"secret_token", l_secret_token},
    {"secret_names", l_secret_names},
    {NULL, NULL},
};

void
lprop_secret_register(lua_State *L)
{
    if (luaL_newmetatable(L, LPROP_SECRET)) {
        lua_pushcfunction(L, secret_concat);
        lua_setfield(L, -2, "__concat");
        lua_pushcfunction(L, secret_tostring);
        lua_setfield(L, -2, "__tostring");
        lua_pushcfunction(L, secret_len);
        lua_setfield(L, -2, "__len");
        lua_pushcfunction(L, secret_eq);
        lua_setfield(L, -2, "__eq");
        lua_pushcfunction(L, secret_compare);
        lua_setfield(L, -2, "__lt");
        lua_pushcfunction(L, secret_compare);
        lua_setfield(L, -2, "__le");
        lua_pushcfunction(L, secret_index);
        lua_setfield(L, -2, "__index");
        lua_pushliteral(L, LPROP_SECRET);
        lua_setfield(L, -2, "__name");
        lua_pushliteral(L, "a secret is opaque");
        lua_setfield(L, -2, "__metatable");
    }
    lua_pop(L, 1);
    luaL_setfuncs(L, secret_funcs, 0);
}
