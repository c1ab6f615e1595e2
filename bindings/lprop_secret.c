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

/* How the secret of the name part (a table) at idx is to be quoted when
 * revealed (core.secret_json): a string of modes applied in order, 'j'
 * for a JSON string's body, 'y' for a YAML double-quoted scalar's; ""
 * for its bytes as they are.  Pushes nothing. */
static const char *
part_quoted(lua_State *L, int idx)
{
    const char *modes = "";

    if (lua_rawgeti(L, idx, 2) == LUA_TSTRING)
        modes = lua_tostring(L, -1); /* kept alive by the part table */
    lua_pop(L, 1);
    return modes;
}

/*
 * The next code point of the UTF-8 text s (n bytes) at *i, moving *i past
 * it; -1 for a byte sequence that is not UTF-8 (overlong, a surrogate,
 * above U+10FFFF, cut short).
 */
static long
next_code_point(const unsigned char *s, size_t n, size_t *i)
{
    unsigned char c = s[*i];
    size_t need, k;
    long cp, min;

    if (c < 0x80) {
        (*i)++;
        return c;
    }
    if ((c & 0xe0) == 0xc0)
        need = 1, cp = c & 0x1f, min = 0x80;
    else if ((c & 0xf0) == 0xe0)
        need = 2, cp = c & 0x0f, min = 0x800;
    else if ((c & 0xf8) == 0xf0)
        need = 3, cp = c & 0x07, min = 0x10000;
    else
        return -1;
    if (n - *i <= need)
        return -1;
    for (k = 1; k <= need; k++) {
        if ((s[*i + k] & 0xc0) != 0x80)
            return -1;
        cp = (cp << 6) | (s[*i + k] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return -1;
    *i += need + 1;
    return cp;
}

/* Whether YAML must escape code point cp (above ASCII) in a double-quoted
 * scalar: C1 controls, the line and paragraph separators, the byte-order
 * mark, the non-characters U+FFFE and U+FFFF. */
static int
yaml_escapes(long cp)
{
    return (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 || cp == 0xfeff ||
           cp == 0xfffe || cp == 0xffff;
}

/*
 * The body of the quoted string for the UTF-8 text s (n bytes), without
 * its quotes, into out when out is not NULL; its length, or (size_t)-1
 * when s is not UTF-8.  A quote, a backslash, control characters and DEL
 * are escaped.  JSON (yaml 0): every character above ASCII is \\uXXXX (a
 * surrogate pair above U+FFFF), as Python's json.dumps writes them.  YAML
 * (yaml 1): they stay UTF-8, except those YAML does not allow raw.
 */
static size_t
quoted_body(const unsigned char *s, size_t n, char *out, int yaml)
{
    static const char hex[] = "0123456789abcdef";
    static const char shorts[] = "\"\"\\\\\nn\rr\tt\bb\ff";
    size_t i = 0, len = 0;

    while (i < n) {
        size_t start = i, el = 0, k;
        long cp = next_code_point(s, n, &i);
        char e[13];

        if (cp < 0)
            return (size_t)-1;
        for (k = 0; shorts[k] != '\0' && el == 0; k += 2)
            if (cp == (unsigned char)shorts[k]) {
                e[0] = '\\';
                e[1] = shorts[k + 1];
                el = 2;
            }
        if (el == 0 && cp >= 0x20 && cp < 0x7f) {
            e[0] = (char)cp;
            el = 1;
        } else if (el == 0 && yaml && cp >= 0x80 && !yaml_escapes(cp)) {
            if (out != NULL)
                memcpy(out + len, s + start, i - start);
            len += i - start;
            continue;
        } else if (el == 0) {
            long units[2];
            int nu = 1, u;

            units[0] = cp;
            if (cp > 0xffff) {
                units[0] = 0xd800 + ((cp - 0x10000) >> 10);
                units[1] = 0xdc00 + ((cp - 0x10000) & 0x3ff);
                nu = 2;
            }
            for (u = 0; u < nu; u++) {
                e[el++] = '\\';
                e[el++] = 'u';
                e[el++] = hex[(units[u] >> 12) & 0xf];
                e[el++] = hex[(units[u] >> 8) & 0xf];
                e[el++] = hex[(units[u] >> 4) & 0xf];
                e[el++] = hex[units[u] & 0xf];
            }
        }
        if (out != NULL)
            memcpy(out + len, e, el);
        len += el;
    }
    return len;
}

/*
 * core.secret_json(v [, "yaml"]): the Secret v as one JSON string (quotes
 * included), or one YAML double-quoted scalar, escaped when its value is
 * revealed.  Its literal parts are escaped now; one that is not UTF-8
 * raises.
 */
static int
l_secret_json(lua_State *L)
{
    int yaml = lua_toboolean(L, 2) && strcmp(luaL_checkstring(L, 2), "yaml") == 0;
    lua_Integer i, n, k = 0;

    luaL_checkudata(L, 1, LPROP_SECRET);
    lua_settop(L, 1);
    lua_getiuservalue(L, 1, 1);
    n = (lua_Integer)lua_rawlen(L, -1);
    if (n + 2 > MAX_PARTS)
        lprop_error(L, "a secret made of more than %d parts", MAX_PARTS);
    lua_createtable(L, (int)n + 2, 0);
    lua_pushliteral(L, "\"");
    lua_rawseti(L, -2, ++k);
    for (i = 1; i <= n; i++) {
        if (lua_rawgeti(L, -2, i) == LUA_TTABLE) {
            const char *modes = part_quoted(L, -1);

            lua_createtable(L, 2, 0);
            lua_rawgeti(L, -2, 1);
            lua_rawseti(L, -2, 1);
            if (strlen(modes) >= 8)
                lprop_error(L, "a secret quoted more than 8 times");
            lua_pushfstring(L, "%s%c", modes, yaml ? 'y' : 'j');
            lua_rawseti(L, -2, 2);
        } else {
            size_t len;
            const char *lit = lua_tolstring(L, -1, &len);
            size_t blen = quoted_body((const unsigned char *)lit, len, NULL, yaml);
            luaL_Buffer b;

            if (blen == (size_t)-1)
                lprop_error(L, "a string joined to a secret is not UTF-8 text: it cannot be in "
                               "JSON or YAML");
            quoted_body((const unsigned char *)lit, len, luaL_buffinitsize(L, &b, blen), yaml);
            luaL_pushresultsize(&b, blen);
        }
        lua_remove(L, -2);
        lua_rawseti(L, -2, ++k);
    }
    lua_pushliteral(L, "\"");
    lua_rawseti(L, -2, ++k);
    push_secret(L);
    return 1;
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
        const char *quoted = "";

        if (name) {
            quoted = part_quoted(L, -1);
            lua_rawgeti(L, -1, 1);
            lua_remove(L, -2);
        }
        lua_tolstring(L, -1, &len);
        /* quoted is kept alive by the part table until the fstring copies it */
        if (*quoted != '\0')
            lua_pushfstring(L, "Q%s,%d:", quoted, (int)len);
        else
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
    size_t len = 0, cap = 0, quoted_len = 0;
    unsigned char *buf = NULL, *quoted_part = NULL;
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
            const char *quoted = part_quoted(L, -1), *q;
            const char *name;

            lua_rawgeti(L, -1, 1);
            name = lua_tostring(L, -1);
            if (reveal == NULL) {
                snprintf(why, whysize, "secret \"%s\": no secret store here", name);
                rc = -1;
            } else if (reveal(ud, name, &part, &plen, why, whysize) != 0) {
                rc = -1;
            }
            /* Quoted for JSON: into memory of its own, wiped when done. */
            for (q = quoted; rc == 0 && *q != '\0'; q++) {
                size_t qlen = quoted_body(part, plen, NULL, *q == 'y');
                char *qbuf;

                if (qlen == (size_t)-1) {
                    snprintf(why, whysize,
                             "secret \"%s\" is not UTF-8 text: it cannot be in JSON or YAML", name);
                    rc = -1;
                } else if ((qbuf = malloc(qlen + 1)) == NULL) {
                    snprintf(why, whysize, "out of memory");
                    rc = -1;
                } else {
                    quoted_body(part, plen, qbuf, *q == 'y');
                    if (quoted_part != NULL) {
                        lprop_wipe(quoted_part, quoted_len);
                        free(quoted_part);
                    }
                    quoted_part = (unsigned char *)qbuf;
                    quoted_len = qlen;
                    part = quoted_part;
                    plen = qlen;
                }
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
        if (quoted_part != NULL) {
            lprop_wipe(quoted_part, quoted_len);
            free(quoted_part);
            quoted_part = NULL;
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
    {"secret_json", l_secret_json},
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
