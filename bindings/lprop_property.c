/*
 * lprop_property.c - the "prop.core" module and its Property userdata:
 * the handle on an engine node, the combinators (requires, before,
 * on_change, fallback, describe, only_if, ...), a Property's fields and
 * tags.  Leaves and recipe entries are in lprop_entry.c, hosts in
 * lprop_host.c.
 *
 * Each function checks its arguments, calls one engine function, and
 * pushes the result or raises.  A Property userdata is a pointer to an
 * engine node; the node lives in the site's arena, which is freed only
 * after the state is closed, so a handle can never outlive its node.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>

#include "lprop_archive.h"
#include "lprop_openpgp.h"
#include "lprop_regex.h"
#include "lprop_property.h"
#include "lprop_require.h"
#include "lprop_secret.h"

#define MAX_FRAMES 8
#define BEHAVIOUR_KEY LPROP_BEHAVIOURS

typedef struct {
    prop_node *node;
} node_ud;

typedef struct {
    prop_host *host;
} host_ud;

/* ---- userdata ---- */

/* The userdata at idx when its metatable is mt, else NULL. */
static void *
to_udata(lua_State *L, int idx, const void *mt)
{
    void *u = lua_touserdata(L, idx);
    int same;

    if (u == NULL || mt == NULL || !lua_getmetatable(L, idx))
        return NULL;
    same = lua_topointer(L, -1) == mt;
    lua_pop(L, 1);
    return same ? u : NULL;
}

void
lprop_push_node(lua_State *L, prop_node *n)
{
    lprop_ctx *ctx = lprop_getctx(L);
    node_ud *u = lua_newuserdatauv(L, sizeof *u, 0);

    u->node = n;
    lua_rawgeti(L, LUA_REGISTRYINDEX, ctx->types.node_mt_ref);
    lua_setmetatable(L, -2);
}

prop_node *
lprop_tonode(lua_State *L, int idx)
{
    node_ud *u = to_udata(L, idx, lprop_getctx(L)->types.node_mt);
    return u ? u->node : NULL;
}

void
lprop_push_host(lua_State *L, prop_host *h)
{
    lprop_ctx *ctx = lprop_getctx(L);
    host_ud *u = lua_newuserdatauv(L, sizeof *u, 0);

    u->host = h;
    lua_rawgeti(L, LUA_REGISTRYINDEX, ctx->types.host_mt_ref);
    lua_setmetatable(L, -2);
}

prop_host *
lprop_tohost(lua_State *L, int idx)
{
    host_ud *u = to_udata(L, idx, lprop_getctx(L)->types.host_mt);
    return u ? u->host : NULL;
}

/* The property at argument arg of function fname, or a raised error. */
static prop_node *
check_node(lua_State *L, int arg, const char *fname)
{
    prop_node *n = lprop_tonode(L, arg);

    if (n == NULL)
        lprop_error(L, "bad argument #%d to '%s' (property expected, got %s)", arg, fname,
                    luaL_typename(L, arg));
    return n;
}

/* Plain tables (no metatable) are lists; anything else is not. */
int
lprop_is_plain_list(lua_State *L, int idx)
{
    int r;
    if (lua_type(L, idx) != LUA_TTABLE)
        return 0;
    r = !lua_getmetatable(L, idx);
    if (!r)
        lua_pop(L, 1);
    return r;
}

/*
 * Append the properties of the list at idx to ptrs (flattening nested
 * plain lists).  `what` names the list in errors ("host \"web1\"").
 * A hole (a nil entry, usually a misspelt name) or a non-property is an
 * error.  ptrs is a Lua-owned buffer userdata grown on the stack.
 */
static void
nodebuf_push(lua_State *L, lprop_nodebuf *b, int bufidx, prop_node *n, const void *list)
{
    if (b->n == b->cap) {
        size_t ncap = b->cap ? b->cap * 2 : 64;
        /* One block: the nodes, then their lists (both pointer-sized). */
        prop_node **nv = lua_newuserdatauv(L, ncap * (sizeof *nv + sizeof *b->lists), 0);
        const void **nl = (const void **)(void *)(nv + ncap);
        if (b->n) {
            memcpy(nv, b->v, b->n * sizeof *nv);
            memcpy(nl, b->lists, b->n * sizeof *nl);
        }
        lua_replace(L, bufidx);
        b->v = nv;
        b->lists = nl;
        b->cap = ncap;
    }
    b->lists[b->n] = list;
    b->v[b->n++] = n;
}

void
lprop_collect_list(lua_State *L, int idx, lprop_nodebuf *b, int bufidx, const char *what, int depth)
{
    lua_Integer i, len, count = 0;

    idx = lua_absindex(L, idx);
    if (depth > 32)
        lprop_error(L, "%s: lists nested too deeply", what);
    len = (lua_Integer)lua_rawlen(L, idx);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1) {
            const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
            if (k)
                lprop_error(L, "%s: unexpected key \"%s\"; expected a list of properties", what, k);
            lprop_error(L, "%s: unexpected %s key; expected a list of properties", what,
                        luaL_typename(L, -1));
        }
        if (lua_tointeger(L, -1) > len)
            len = lua_tointeger(L, -1);
        count++;
    }
    for (i = 1; i <= len; i++) {
        int t = lua_rawgeti(L, idx, i);
        prop_node *n;
        if (t == LUA_TNIL)
            lprop_error(L,
                        "%s: entry %d is nil (a misspelt name, or a function that "
                        "returned nothing?)",
                        what, (int)i);
        n = lprop_tonode(L, -1);
        if (n) {
            nodebuf_push(L, b, bufidx, n, lua_topointer(L, idx));
        } else if (lprop_is_plain_list(L, -1)) {
            lprop_collect_list(L, -1, b, bufidx, what, depth + 1);
        } else if (lprop_is_secret(L, -1)) {
            lprop_error(L,
                        "%s: entry %d is a secret, expected a property (a secret is content "
                        "for a property such as file.has_content)",
                        what, (int)i);
        } else {
            lprop_error(L, "%s: entry %d is a %s, expected a property", what, (int)i,
                        luaL_typename(L, -1));
        }
        lua_pop(L, 1);
    }
    (void)count;
}

/* Turn argument arg into a node: a property, or a plain list -> props {...}. */
static prop_node *
to_node(lua_State *L, int arg, const char *fname)
{
    lprop_ctx *ctx = lprop_getctx(L);
    prop_frame fr[MAX_FRAMES];
    prop_origin o;
    prop_node *n = lprop_tonode(L, arg);
    lprop_nodebuf b = {0};
    int bufidx, rc;

    if (n)
        return n;
    if (!lprop_is_plain_list(L, arg))
        return check_node(L, arg, fname);
    lua_pushnil(L);
    bufidx = lua_gettop(L);
    lua_pushfstring(L, "argument #%d to '%s'", arg, fname);
    lprop_collect_list(L, arg, &b, bufidx, lua_tostring(L, -1), 0);
    lprop_origin(L, &o, fr, MAX_FRAMES);
    rc = prop_list_new(ctx->site, PROP_PROPS, b.v, b.n, &o, &n);
    if (rc != PROP_OK)
        lprop_engine_error(L, rc);
    lua_pop(L, 2);
    return n;
}

/* ---- combinators ---- */

static int
combine(lua_State *L, prop_kind kind, const char *fname)
{
    lprop_ctx *ctx = lprop_getctx(L);
    prop_frame fr[MAX_FRAMES];
    prop_origin o;
    prop_node *a = to_node(L, 1, fname), *b = to_node(L, 2, fname), *out = NULL;
    int rc;

    lprop_origin(L, &o, fr, MAX_FRAMES);
    if (kind == PROP_REVERTABLE)
        rc = prop_revertable_new(ctx->site, a, b, 0, &o, &out);
    else
        rc = prop_combine_new(ctx->site, kind, a, b, &o, &out);
    if (rc != PROP_OK)
        return lprop_engine_error(L, rc);
    lprop_push_node(L, out);
    return 1;
}

static int
l_requires(lua_State *L)
{
    return combine(L, PROP_REQUIRES, "requires");
}

static int
l_before(lua_State *L)
{
    return combine(L, PROP_BEFORE, "before");
}

static int
l_on_change(lua_State *L)
{
    return combine(L, PROP_ON_CHANGE, "on_change");
}

static int
l_fallback(lua_State *L)
{
    return combine(L, PROP_FALLBACK, "fallback");
}

static int
l_revertable(lua_State *L)
{
    return combine(L, PROP_REVERTABLE, "revertable");
}

/* core.pair(a, b): a recipe and its undo, shown as one property. */
static int
l_pair(lua_State *L)
{
    lprop_ctx *ctx = lprop_getctx(L);
    prop_frame fr[MAX_FRAMES];
    prop_origin o;
    prop_node *a = check_node(L, 1, "pair"), *b = check_node(L, 2, "pair"), *out = NULL;
    int rc;

    lprop_origin(L, &o, fr, MAX_FRAMES);
    rc = prop_revertable_new(ctx->site, a, b, 1, &o, &out);
    if (rc != PROP_OK)
        return lprop_engine_error(L, rc);
    lprop_push_node(L, out);
    return 1;
}

static int
l_revert(lua_State *L)
{
    lprop_ctx *ctx = lprop_getctx(L);
    prop_frame fr[MAX_FRAMES];
    prop_origin o;
    prop_node *p = to_node(L, 1, "revert"), *out = NULL;
    int rc;

    lprop_origin(L, &o, fr, MAX_FRAMES);
    rc = prop_revert_new(ctx->site, p, &o, &out);
    if (rc != PROP_OK)
        return lprop_engine_error(L, rc);
    lprop_push_node(L, out);
    return 1;
}

static int
l_describe(lua_State *L)
{
    lprop_ctx *ctx = lprop_getctx(L);
    prop_frame fr[MAX_FRAMES];
    prop_origin o;
    prop_node *p = to_node(L, 1, "describe"), *out = NULL;
    const char *text;
    int rc;

    if (lua_type(L, 2) != LUA_TSTRING)
        return lprop_error(L, "bad argument #2 to 'describe' (string expected, got %s)",
                           luaL_typename(L, 2));
    text = lua_tostring(L, 2);
    lprop_origin(L, &o, fr, MAX_FRAMES);
    rc = prop_describe_new(ctx->site, p, text, &o, &out);
    if (rc != PROP_OK)
        return lprop_engine_error(L, rc);
    lprop_push_node(L, out);
    return 1;
}

/*
 * only_if(test, p) and p:only_if(test): p, ensured only when test(sys)
 * returns true at run time.  The test is kept with the leaves' impl
 * tables, by number (not when the site is only checked).
 */
static int
l_only_if(lua_State *L)
{
    lprop_ctx *ctx = lprop_getctx(L);
    prop_frame fr[MAX_FRAMES];
    prop_origin o;
    int ti = lua_type(L, 1) == LUA_TFUNCTION ? 1 : 2, pi = 3 - ti;
    prop_node *p, *out = NULL;
    long test = -1;
    int rc;

    lua_settop(L, 2);
    if (lua_type(L, ti) != LUA_TFUNCTION)
        return lprop_error(L,
                           "only_if needs a test: a function(sys) that returns true when the "
                           "property should be ensured, got %s",
                           luaL_typename(L, ti));
    p = to_node(L, pi, "only_if");
    if (!ctx->limits.check_only) {
        lua_getfield(L, LUA_REGISTRYINDEX, BEHAVIOUR_KEY);
        test = (long)lua_rawlen(L, -1) + 1;
        lua_pushvalue(L, ti);
        lua_rawseti(L, -2, (lua_Integer)test);
        lua_pop(L, 1);
    }
    lprop_origin(L, &o, fr, MAX_FRAMES);
    rc = prop_only_if_new(ctx->site, p, test, &o, &out);
    if (rc != PROP_OK)
        return lprop_engine_error(L, rc);
    lprop_push_node(L, out);
    return 1;
}

/* pick_os(a, b, ...) and props {...} / props(a, b, ...). */
static int
list_combinator(lua_State *L, prop_kind kind, const char *fname)
{
    lprop_ctx *ctx = lprop_getctx(L);
    prop_frame fr[MAX_FRAMES];
    prop_origin o;
    prop_node *out = NULL;
    lprop_nodebuf b = {0};
    int i, n = lua_gettop(L), bufidx, rc;

    lua_pushnil(L);
    bufidx = lua_gettop(L);
    lua_pushfstring(L, "%s", fname);
    for (i = 1; i <= n; i++) {
        prop_node *p = lprop_tonode(L, i);
        if (p)
            nodebuf_push(L, &b, bufidx, p, NULL);
        else if (lprop_is_plain_list(L, i))
            lprop_collect_list(L, i, &b, bufidx, lua_tostring(L, bufidx + 1), 0);
        else
            check_node(L, i, fname);
    }
    if (kind == PROP_PICK_OS && b.n == 0)
        return lprop_error(L, "pick_os needs at least one alternative");
    lprop_origin(L, &o, fr, MAX_FRAMES);
    rc = prop_list_new(ctx->site, kind, b.v, b.n, &o, &out);
    if (rc != PROP_OK)
        return lprop_engine_error(L, rc);
    lprop_push_node(L, out);
    return 1;
}

static int
l_pick_os(lua_State *L)
{
    return list_combinator(L, PROP_PICK_OS, "pick_os");
}

static int
l_props(lua_State *L)
{
    return list_combinator(L, PROP_PROPS, "props");
}

/* ---- Property fields ---- */

void
lprop_push_origin(lua_State *L, const prop_origin *o)
{
    if (o && o->nframes > 0)
        lua_pushfstring(L, "%s:%d", o->frames[0].file, o->frames[0].line);
    else
        lua_pushliteral(L, "?");
}

static void
push_targets(lua_State *L, prop_os_set set)
{
    static const prop_os_set order[] = {PROP_OS_ARCH,   PROP_OS_BUNTISH, PROP_OS_DEBIAN,
                                        PROP_OS_FEDORA, PROP_OS_FREEBSD, PROP_OS_RHEL};
    size_t i;
    int k = 0;

    lua_createtable(L, (int)(sizeof order / sizeof order[0]), 0);
    for (i = 0; i < sizeof order / sizeof order[0]; i++) {
        if (set & order[i]) {
            lua_pushstring(L, prop_os_family_name(order[i]));
            lua_rawseti(L, -2, ++k);
        }
    }
}

static int
info_visit(void *ud, const prop_node *leaf)
{
    lua_State *L = ud;
    size_t i, n = prop_node_ninfo(leaf);

    for (i = 0; i < n; i++) {
        const prop_info *in = prop_node_info(leaf, i);
        if (lua_getfield(L, -1, in->key) != LUA_TTABLE) {
            lua_pop(L, 1);
            lua_newtable(L);
            lua_pushvalue(L, -1);
            lua_setfield(L, -3, in->key);
        }
        lua_pushstring(L, in->value);
        lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
        lua_pop(L, 1);
    }
    return 0;
}

static int
claims_visit(void *ud, const prop_node *leaf)
{
    lua_State *L = ud;
    size_t i, n = prop_node_nclaims(leaf);

    for (i = 0; i < n; i++) {
        const prop_claim *c = prop_node_claim(leaf, i);
        lua_createtable(L, 0, 4);
        lua_pushstring(L, prop_claim_kind_name(c->kind));
        lua_setfield(L, -2, "kind");
        lua_pushstring(L, c->key);
        lua_setfield(L, -2, "key");
        if (c->flags & PROP_CLAIM_SECRET) {
            lua_pushboolean(L, 1);
            lua_setfield(L, -2, "secret");
        } else if (c->value) {
            lua_pushlstring(L, c->value, c->value_len);
            lua_setfield(L, -2, "value");
        }
        if (c->id >= 0) {
            lua_pushinteger(L, (lua_Integer)c->id);
            lua_setfield(L, -2, "id");
        }
        lprop_push_origin(L, prop_node_origin(leaf));
        lua_setfield(L, -2, "origin");
        lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
    }
    return 0;
}

static int
node_index(lua_State *L)
{
    prop_node *n = check_node(L, 1, "index");
    const char *k = lua_tostring(L, 2);
    char buf[160];
    size_t i, cnt;

    if (k == NULL)
        return lprop_error(L, "a property has no %s field", luaL_typename(L, 2));
    if (strcmp(k, "desc") == 0) {
        lua_pushstring(L, prop_node_desc(n));
    } else if (strcmp(k, "targets") == 0) {
        push_targets(L, prop_node_targets(n));
    } else if (strcmp(k, "revertable") == 0) {
        lua_pushboolean(L, prop_node_revertable(n));
    } else if (strcmp(k, "ports") == 0) {
        cnt = prop_node_nports(n);
        lua_createtable(L, (int)cnt, 0);
        for (i = 0; i < cnt; i++) {
            lua_pushinteger(L, prop_node_port(n, i));
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
    } else if (strcmp(k, "info") == 0) {
        lua_newtable(L);
        lprop_each_leaf(L, n, PROP_OS_NONE, info_visit, L);
    } else if (strcmp(k, "claims") == 0) {
        lua_newtable(L);
        lprop_each_leaf(L, n, PROP_OS_NONE, claims_visit, L);
    } else if (strcmp(k, "origin") == 0) {
        lprop_push_origin(L, prop_node_origin(n));
    } else if (strcmp(k, "kind") == 0) {
        lua_pushstring(L, prop_kind_name(prop_node_kind(n)));
    } else if (strcmp(k, "type") == 0) {
        lua_pushstring(L, prop_node_type(n, buf, sizeof buf));
    } else if (strcmp(k, "paired") == 0) {
        lua_pushboolean(L, prop_node_paired(n));
    } else if (strcmp(k, "children") == 0) {
        cnt = prop_node_nchildren(n);
        lua_createtable(L, (int)cnt, 0);
        for (i = 0; i < cnt; i++) {
            lprop_push_node(L, prop_node_child(n, i));
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
    } else if (strcmp(k, "reverted") == 0) {
        prop_node *r = prop_node_reverted(n);
        if (r)
            lprop_push_node(L, r);
        else
            lua_pushnil(L);
    } else if (strcmp(k, "container") == 0) {
        /* The container a leaf puts on its host (or removes from it). */
        prop_host *c = prop_node_container(n);
        if (c)
            lprop_push_host(L, c);
        else
            lua_pushnil(L);
    } else {
        /* Methods, then a helpful error for anything else. */
        lua_getmetatable(L, 1);
        lua_getfield(L, -1, "methods");
        if (lua_getfield(L, -1, k) != LUA_TNIL)
            return 1;
        lua_pop(L, 3);
        lua_getfield(L, LUA_REGISTRYINDEX, "prop.unknown_field");
        if (lua_isfunction(L, -1)) {
            lua_pushliteral(L, "property");
            lua_pushvalue(L, 2);
            lua_call(L, 2, 1);
            return lprop_error(L, "%s", lua_tostring(L, -1));
        }
        return lprop_error(L, "a property has no field \"%s\"", k);
    }
    return 1;
}

static int
node_tostring(lua_State *L)
{
    prop_node *n = check_node(L, 1, "tostring");
    char buf[160];

    lua_pushfstring(L, "%s : %s", prop_node_desc(n), prop_node_type(n, buf, sizeof buf));
    return 1;
}

static int
node_eq(lua_State *L)
{
    lua_pushboolean(L, lprop_tonode(L, 1) == lprop_tonode(L, 2));
    return 1;
}

static int
node_newindex(lua_State *L)
{
    return lprop_error(L, "properties are immutable: cannot set field \"%s\"",
                       luaL_tolstring(L, 2, NULL));
}

/* ---- the module ---- */

/*
 * p:tag(name, ...) or tag(p, name, ...): p, its tags recorded (they are
 * its parts' too) for prop run --tags and --skip-tags.  A tag is letters,
 * digits, "_", "-" and ".".
 */
static int
l_tag(lua_State *L)
{
    prop_node *p = to_node(L, 1, "tag");
    int i, n = lua_gettop(L), list;

    if (n < 2)
        return lprop_error(L, "tag needs at least one tag name, such as p:tag \"ntp\"");
    for (i = 2; i <= n; i++) {
        const char *s;
        size_t len, k;

        if (lua_type(L, i) != LUA_TSTRING)
            return lprop_error(L, "bad argument #%d to 'tag' (a tag name expected, got %s)", i,
                               luaL_typename(L, i));
        s = lua_tolstring(L, i, &len);
        for (k = 0; k < len; k++)
            if (!isalnum((unsigned char)s[k]) && s[k] != '_' && s[k] != '-' && s[k] != '.')
                break;
        if (len == 0 || len > 64 || k < len)
            return lprop_error(L, "tag %s: a tag is 1 to 64 letters, digits, \"_\", \"-\" or \".\"",
                               lua_pushfstring(L, "\"%s\"", s));
    }
    if (lua_getfield(L, LUA_REGISTRYINDEX, LPROP_TAGS) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, LPROP_TAGS);
    }
    lua_pushlightuserdata(L, p);
    if (lua_rawget(L, -2) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushlightuserdata(L, p);
        lua_pushvalue(L, -2);
        lua_rawset(L, -4);
    }
    list = lua_gettop(L);
    if (lua_getfield(L, LUA_REGISTRYINDEX, LPROP_ALL_TAGS) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, LPROP_ALL_TAGS);
    }
    for (i = 2; i <= n; i++) {
        lua_pushvalue(L, i);
        lua_rawseti(L, list, (lua_Integer)lua_rawlen(L, list) + 1);
        lua_pushvalue(L, i);
        lua_pushboolean(L, 1);
        lua_rawset(L, -3);
    }
    lua_settop(L, 1);
    return 1;
}

/*
 * p:period(every): p ensured at most once every period.  Made in Lua by
 * prop.property's period(), which the prelude has loaded: the schedule
 * is plain properties (an only_if test and a leaf keeping the time of
 * the last run on the target).
 */
static int
l_period(lua_State *L)
{
    lua_settop(L, 2);
    (void)to_node(L, 1, "period");
    /* lprop_require.c's table of the modules require() has loaded. */
    if (lua_getfield(L, LUA_REGISTRYINDEX, "prop.loaded") != LUA_TTABLE ||
        lua_getfield(L, -1, "prop.property") != LUA_TTABLE ||
        lua_getfield(L, -1, "period") != LUA_TFUNCTION)
        return lprop_error(L, "period: the prop.property module is not loaded");
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 2);
    lua_call(L, 2, 1);
    return 1;
}

/* core.now(): the time of this machine, in seconds since the epoch, for
 * run-time code (p:period) that keeps times on the target. */
static int
l_now(lua_State *L)
{
    time_t t = time(NULL);

    if (t == (time_t)-1)
        return lprop_error(L, "the clock of this machine cannot be read");
    lua_pushinteger(L, (lua_Integer)t);
    return 1;
}

static const luaL_Reg node_methods[] = {
    {"requires", l_requires}, {"before", l_before},     {"on_change", l_on_change},
    {"fallback", l_fallback}, {"describe", l_describe}, {"only_if", l_only_if},
    {"tag", l_tag},           {"period", l_period},     {NULL, NULL}};

static const luaL_Reg core_funcs[] = {{"pair", l_pair},
                                      {"requires", l_requires},
                                      {"before", l_before},
                                      {"on_change", l_on_change},
                                      {"fallback", l_fallback},
                                      {"describe", l_describe},
                                      {"only_if", l_only_if},
                                      {"tag", l_tag},
                                      {"revertable", l_revertable},
                                      {"revert", l_revert},
                                      {"pick_os", l_pick_os},
                                      {"props", l_props},
                                      {"site_file", lprop_site_file},
                                      {"now", l_now},
                                      {NULL, NULL}};

int
luaopen_prop_core(lua_State *L)
{
    lprop_ctx *ctx = lprop_getctx(L);

    if (luaL_newmetatable(L, LPROP_PROPERTY)) {
        lua_pushcfunction(L, node_index);
        lua_setfield(L, -2, "__index");
        lua_pushcfunction(L, node_newindex);
        lua_setfield(L, -2, "__newindex");
        lua_pushcfunction(L, node_tostring);
        lua_setfield(L, -2, "__tostring");
        lua_pushcfunction(L, node_eq);
        lua_setfield(L, -2, "__eq");
        lua_pushliteral(L, LPROP_PROPERTY);
        lua_setfield(L, -2, "__name");
        luaL_newlib(L, node_methods);
        lua_setfield(L, -2, "methods");
        lua_pushliteral(L, "a property is immutable");
        lua_setfield(L, -2, "__metatable");
        ctx->types.node_mt = lua_topointer(L, -1);
        ctx->types.node_mt_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    } else {
        lua_pop(L, 1);
    }
    luaL_newlib(L, core_funcs);
    lprop_entry_register(L);
    lprop_host_register(L);
    lprop_secret_register(L);
    lprop_openpgp_register(L);
    lprop_regex_register(L);
    lprop_archive_register(L);
    return 1;
}
