/*
 * lprop_core.c - the "prop.core" module: Property and Host userdata, the
 * combinators, host declaration and the constructors recipes build on.
 *
 * Each function checks its arguments, calls one engine function, and
 * pushes the result or raises.  A Property userdata is a pointer to an
 * engine node; the node lives in the site's arena, which is freed only
 * after the state is closed, so a handle can never outlive its node.
 *
 * What a leaf does at run time (its impl table and args) is kept in two
 * registry tables indexed by the leaf's behaviour number, not in C.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>

#include "lprop.h"

#define MAX_FRAMES 8
#define LOCAL_CLAIMS 16 /* claims of one leaf read into a C array up to this many */
#define BEHAVIOUR_KEY LPROP_BEHAVIOURS
#define BEHAVIOUR_ARGS_KEY LPROP_BEHAVIOUR_ARGS
#define HOSTS_KEY "prop.hosts"

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
    lua_rawgeti(L, LUA_REGISTRYINDEX, ctx->node_mt_ref);
    lua_setmetatable(L, -2);
}

prop_node *
lprop_tonode(lua_State *L, int idx)
{
    node_ud *u = to_udata(L, idx, lprop_getctx(L)->node_mt);
    return u ? u->node : NULL;
}

void
lprop_push_host(lua_State *L, prop_host *h)
{
    lprop_ctx *ctx = lprop_getctx(L);
    host_ud *u = lua_newuserdatauv(L, sizeof *u, 0);

    u->host = h;
    lua_rawgeti(L, LUA_REGISTRYINDEX, ctx->host_mt_ref);
    lua_setmetatable(L, -2);
}

prop_host *
lprop_tohost(lua_State *L, int idx)
{
    host_ud *u = to_udata(L, idx, lprop_getctx(L)->host_mt);
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
static int
is_plain_list(lua_State *L, int idx)
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
typedef struct {
    prop_node **v;
    size_t n, cap;
} nodebuf;

static void
nodebuf_push(lua_State *L, nodebuf *b, int bufidx, prop_node *n)
{
    if (b->n == b->cap) {
        size_t ncap = b->cap ? b->cap * 2 : 64;
        prop_node **nv = lua_newuserdatauv(L, ncap * sizeof *nv, 0);
        if (b->n)
            memcpy(nv, b->v, b->n * sizeof *nv);
        lua_replace(L, bufidx);
        b->v = nv;
        b->cap = ncap;
    }
    b->v[b->n++] = n;
}

static void
collect_list(lua_State *L, int idx, nodebuf *b, int bufidx, const char *what, int depth)
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
            nodebuf_push(L, b, bufidx, n);
        } else if (is_plain_list(L, -1)) {
            collect_list(L, -1, b, bufidx, what, depth + 1);
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
    nodebuf b = {0};
    int bufidx, rc;

    if (n)
        return n;
    if (!is_plain_list(L, arg))
        return check_node(L, arg, fname);
    lua_pushnil(L);
    bufidx = lua_gettop(L);
    lua_pushfstring(L, "argument #%d to '%s'", arg, fname);
    collect_list(L, arg, &b, bufidx, lua_tostring(L, -1), 0);
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
    nodebuf b = {0};
    int i, n = lua_gettop(L), bufidx, rc;

    lua_pushnil(L);
    bufidx = lua_gettop(L);
    lua_pushfstring(L, "%s", fname);
    for (i = 1; i <= n; i++) {
        prop_node *p = lprop_tonode(L, i);
        if (p)
            nodebuf_push(L, &b, bufidx, p);
        else if (is_plain_list(L, i))
            collect_list(L, i, &b, bufidx, lua_tostring(L, bufidx + 1), 0);
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

/* ---- leaves ---- */

static prop_os_set
check_targets(lua_State *L, int idx)
{
    prop_os_set set = 0, one;
    lua_Integer i, n;

    if (lua_isnoneornil(L, idx))
        return PROP_OS_UNIXLIKE;
    if (lua_type(L, idx) == LUA_TSTRING) {
        if (prop_os_set_parse(lua_tostring(L, idx), &set) != PROP_OK)
            lprop_error(L,
                        "unknown OS family \"%s\" (expected debian, buntish, rhel, fedora, "
                        "arch, freebsd, DebianLike, RedHatLike, ArchLinux, FreeBSD, Linux or "
                        "UnixLike)",
                        lua_tostring(L, idx));
        return set;
    }
    if (!lua_istable(L, idx))
        lprop_error(L, "targets must be a family name or a list of them, not a %s",
                    luaL_typename(L, idx));
    n = (lua_Integer)lua_rawlen(L, idx);
    for (i = 1; i <= n; i++) {
        lua_rawgeti(L, idx, i);
        if (lua_type(L, -1) != LUA_TSTRING ||
            prop_os_set_parse(lua_tostring(L, -1), &one) != PROP_OK)
            lprop_error(L, "targets entry %d is not an OS family name", (int)i);
        set |= one;
        lua_pop(L, 1);
    }
    if (set == 0)
        lprop_error(L, "targets is an empty list: nothing could run the property");
    return set;
}

/* Scratch arrays for one leaf, freed by the Lua GC (they are userdata).
 * Always pushes exactly one value. */
static void *
scratch(lua_State *L, size_t n, size_t size)
{
    return lua_newuserdatauv(L, (n ? n : 1) * size, 0);
}

/*
 * The secrets a leaf uses (in its args, or captured by the functions of
 * its impl: a property {}'s apply) become info "secret" = NAME, one per
 * name: the pre-pass checks that the store has them for the host (P015)
 * and the run knows what to decrypt.  info is the leaf's info so far;
 * the array returned (a scratch userdata, pushed) replaces it.
 */
static prop_info *
secret_uses(lua_State *L, prop_leaf_spec *spec, prop_info *info)
{
    prop_info *all;
    size_t n = 0, k;

    lua_newtable(L);
    if (lua_istable(L, 4))
        lprop_secret_collect(L, 4, 0);
    if (lua_istable(L, 3)) {
        lua_pushnil(L);
        while (lua_next(L, 3)) {
            if (lua_isfunction(L, -1)) {
                lua_pushvalue(L, -3);
                lprop_secret_collect(L, -2, 1);
                lua_pop(L, 1);
            }
            lua_pop(L, 1);
        }
    }
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        n++;
        lua_pop(L, 1);
    }
    if (n == 0) {
        lua_pop(L, 1);
        return info;
    }
    all = scratch(L, spec->ninfo + n, sizeof *all);
    lua_insert(L, -2); /* the names table on top, kept alive under the array */
    for (k = 0; k < spec->ninfo; k++)
        all[k] = spec->info[k];
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        all[k].key = PROP_INFO_SECRET;
        all[k].value = lua_tostring(L, -2);
        k++;
        lua_pop(L, 1);
    }
    spec->info = all;
    spec->ninfo = k;
    return all;
}

/* core.leaf(desc, targets, impl, args, claims, extra) - see lua/README.md */
static int
l_leaf(lua_State *L)
{
    lprop_ctx *ctx = lprop_getctx(L);
    prop_frame fr[MAX_FRAMES];
    prop_origin o;
    prop_leaf_spec spec;
    prop_node *out = NULL;
    prop_claim local_claims[LOCAL_CLAIMS], *claims = NULL;
    prop_info *info = NULL;
    int *ports = NULL;
    lua_Integer i, n;
    int rc;

    memset(&spec, 0, sizeof spec);
    lua_settop(L, 6);
    spec.desc = luaL_checkstring(L, 1);
    spec.targets = 0;
    if (lua_type(L, 2) == LUA_TSTRING) {
        lua_pushvalue(L, 2);
        if (lua_rawget(L, lua_upvalueindex(3)) == LUA_TNUMBER)
            spec.targets = (prop_os_set)lua_tointeger(L, -1);
        lua_pop(L, 1);
    }
    if (spec.targets == 0)
        spec.targets = check_targets(L, 2);
    spec.behaviour = -1;
    if (lua_istable(L, 5)) {
        n = (lua_Integer)lua_rawlen(L, 5);
        if (n % 3 != 0)
            return luaL_error(L, "claims must be triples (kind, key, value)");
        claims = n / 3 <= LOCAL_CLAIMS ? local_claims : scratch(L, (size_t)(n / 3), sizeof *claims);
        for (i = 0; i < n / 3; i++) {
            prop_claim *c = &claims[i];
            c->value = NULL;
            c->value_len = 0;
            c->flags = 0;
            lua_rawgeti(L, 5, 3 * i + 1);
            if (lua_type(L, -1) != LUA_TSTRING || lua_rawget(L, lua_upvalueindex(4)) != LUA_TNUMBER)
                return luaL_error(L, "claim %d: unknown kind", (int)i + 1);
            c->kind = (prop_claim_kind)lua_tointeger(L, -1);
            lua_rawgeti(L, 5, 3 * i + 2);
            c->key = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
            if (c->key == NULL)
                return luaL_error(L, "claim %d: key must be a string", (int)i + 1);
            lua_rawgeti(L, 5, 3 * i + 3);
            c->id = -1;
            if (lua_isinteger(L, -1)) {
                c->id = lua_tointeger(L, -1);
            } else if (lua_type(L, -1) == LUA_TSTRING) {
                c->value = lua_tolstring(L, -1, &c->value_len);
            }
            /* The strings stay reachable from the claims table until the
             * engine has copied them. */
            lua_pop(L, 3);
        }
        spec.claims = claims;
        spec.nclaims = (size_t)(n / 3);
    }
    if (lua_istable(L, 6)) {
        if (lua_getfield(L, 6, "ports") == LUA_TTABLE) {
            n = (lua_Integer)lua_rawlen(L, -1);
            ports = scratch(L, (size_t)n, sizeof *ports);
            lua_insert(L, -2);
            for (i = 0; i < n; i++) {
                lua_rawgeti(L, -1, i + 1);
                if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 ||
                    lua_tointeger(L, -1) > 65535)
                    return luaL_error(L, "ports must be integers in 1..65535");
                ports[i] = (int)lua_tointeger(L, -1);
                lua_pop(L, 1);
            }
            spec.ports = ports;
            spec.nports = (size_t)n;
        }
        lua_pop(L, 1);
        if (lua_getfield(L, 6, "info") == LUA_TTABLE) {
            n = (lua_Integer)lua_rawlen(L, -1);
            if (n % 2 != 0)
                return luaL_error(L, "info must be pairs (key, value)");
            info = scratch(L, (size_t)(n / 2), sizeof *info);
            lua_insert(L, -2);
            for (i = 0; i < n / 2; i++) {
                lua_rawgeti(L, -1, 2 * i + 1);
                lua_rawgeti(L, -2, 2 * i + 2);
                if (lua_type(L, -2) != LUA_TSTRING || lua_type(L, -1) != LUA_TSTRING)
                    return luaL_error(L, "info keys and values must be strings");
                info[i].key = lua_tostring(L, -2);
                info[i].value = lua_tostring(L, -1);
                if (info[i].key == NULL || info[i].value == NULL)
                    return luaL_error(L, "info keys and values must be strings");
                lua_pop(L, 2);
            }
            spec.info = info;
            spec.ninfo = (size_t)(n / 2);
        }
        lua_pop(L, 1);
        if (lua_getfield(L, 6, "norevert") == LUA_TSTRING)
            spec.norevert = lua_tostring(L, -1); /* extra keeps it alive */
        lua_pop(L, 1);
        lua_getfield(L, 6, "info_only");
        spec.info_only = lua_toboolean(L, -1);
        lua_pop(L, 1);
        /* The values this leaf claims are secret: compared by the pre-pass,
         * never shown (claims is a scratch copy: this changes no Lua value). */
        lua_getfield(L, 6, "secret");
        if (lua_toboolean(L, -1))
            for (i = 0; i < (lua_Integer)spec.nclaims; i++)
                if (claims[i].value)
                    claims[i].flags |= PROP_CLAIM_SECRET;
        lua_pop(L, 1);
        if (lua_getfield(L, 6, "os") == LUA_TSTRING &&
            prop_os_set_parse(lua_tostring(L, -1), &spec.os_family) != PROP_OK)
            return luaL_error(L, "unknown OS family \"%s\"", lua_tostring(L, -1));
        lua_pop(L, 1);
        /* A leaf that puts a container on its host, and whose ports are
         * the container's published ones. */
        lua_getfield(L, 6, "container");
        spec.container = lprop_tohost(L, -1);
        lua_pop(L, 1);
        lua_getfield(L, 6, "publishes");
        spec.publishes = lua_toboolean(L, -1);
        lua_pop(L, 1);
        lua_getfield(L, 6, "detaches");
        spec.detaches = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    if (ctx->secrets_made && (lua_istable(L, 3) || lua_istable(L, 4)))
        info = secret_uses(L, &spec, info);
    if (!ctx->limits.check_only && (!lua_isnil(L, 3) || !lua_isnil(L, 4))) {
        /* The run-time side: impl and args, by behaviour number (not kept
         * when the site is only checked). */
        lua_Integer id;
        lua_pushvalue(L, lua_upvalueindex(1));
        id = (lua_Integer)lua_rawlen(L, -1) + 1;
        lua_pushvalue(L, 3);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            lua_pushboolean(L, 0);
        }
        lua_rawseti(L, -2, id);
        lua_pushvalue(L, lua_upvalueindex(2));
        lua_pushvalue(L, 4);
        lua_rawseti(L, -2, id);
        lua_pop(L, 2);
        spec.behaviour = (long)id;
    }
    lprop_origin(L, &o, fr, MAX_FRAMES);
    rc = prop_leaf_new(ctx->site, &spec, &o, &out);
    if (rc != PROP_OK)
        return lprop_engine_error(L, rc);
    lprop_push_node(L, out);
    return 1;
}

/* core.invalid(desc, message): record P012 and return a do-nothing property. */
static int
l_invalid(lua_State *L)
{
    lprop_ctx *ctx = lprop_getctx(L);
    prop_frame fr[MAX_FRAMES];
    prop_origin o;
    const char *desc = luaL_checkstring(L, 1), *msg = luaL_checkstring(L, 2);
    prop_node *out = NULL;
    int rc;

    lprop_origin(L, &o, fr, MAX_FRAMES);
    rc = prop_invalid_new(ctx->site, desc, msg, &o, &out);
    if (rc != PROP_OK)
        return lprop_engine_error(L, rc);
    lprop_push_node(L, out);
    return 1;
}

/*
 * The key of a recipe call for the memo (lprop_memo.c): the recipe, the
 * number of arguments, then each argument, tagged by type, strings with
 * their length, tables as their entries in traversal order between braces.
 * The encoding is unambiguous, so equal keys are equal calls; equal calls
 * whose tables happen to be traversed in another order only miss.  A call
 * whose key would be longer than KEY_MAX, or that passes a property or a
 * host, is not remembered (ok = 0).
 */
#define KEY_MAX 512

typedef struct key_buf {
    unsigned char b[KEY_MAX];
    size_t n;
    int ok;
} key_buf;

static void
key_put(key_buf *k, const void *p, size_t n)
{
    if (!k->ok)
        return;
    if (n > KEY_MAX - k->n) {
        k->ok = 0;
        return;
    }
    memcpy(k->b + k->n, p, n);
    k->n += n;
}

static void
key_tag(key_buf *k, char tag)
{
    key_put(k, &tag, 1);
}

/* The scalar at idx (nil, boolean, number or string) into k. */
static void
key_scalar(key_buf *k, lua_State *L, int idx)
{
    lua_Integer i;
    lua_Number d;
    const char *str;
    size_t len;

    switch (lua_type(L, idx)) {
    case LUA_TNIL:
        key_tag(k, 'n');
        break;
    case LUA_TBOOLEAN:
        key_tag(k, lua_toboolean(L, idx) ? 't' : 'f');
        break;
    case LUA_TNUMBER:
        if (lua_isinteger(L, idx)) {
            i = lua_tointeger(L, idx);
            key_tag(k, 'i');
            key_put(k, &i, sizeof i);
        } else {
            d = lua_tonumber(L, idx);
            key_tag(k, 'd');
            key_put(k, &d, sizeof d);
        }
        break;
    default: /* LUA_TSTRING */
        str = lua_tolstring(L, idx, &len);
        key_tag(k, 's');
        key_put(k, &len, sizeof len);
        key_put(k, str, len);
        break;
    }
}

/*
 * Whether the value at idx lets no code of the site run when a recipe
 * looks at it: nil, booleans, numbers, strings (their metatable is locked
 * by the prelude), properties and hosts, and plain tables of those (no
 * metatable, at most INERT_DEPTH levels and *left entries in all).
 * Functions are not: a recipe given one might call it.  The value's key
 * goes into k on the way.
 */
#define INERT_DEPTH 4
#define INERT_ENTRIES 64

static int
inert(lua_State *L, int idx, int depth, int *left, key_buf *k)
{
    int ok = 1;

    switch (lua_type(L, idx)) {
    case LUA_TNIL:
    case LUA_TBOOLEAN:
    case LUA_TNUMBER:
    case LUA_TSTRING:
        key_scalar(k, L, idx);
        return 1;
    case LUA_TUSERDATA:
        k->ok = 0;
        return lprop_tonode(L, idx) != NULL || lprop_tohost(L, idx) != NULL;
    case LUA_TTABLE:
        break;
    default:
        return 0;
    }
    if (depth >= INERT_DEPTH || !lua_checkstack(L, 3))
        return 0;
    if (lua_getmetatable(L, idx)) {
        lua_pop(L, 1);
        return 0;
    }
    idx = lua_absindex(L, idx);
    key_tag(k, '{');
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        if (--*left < 0 || !inert(L, -2, depth + 1, left, k) || !inert(L, -1, depth + 1, left, k)) {
            lua_pop(L, 2);
            ok = 0;
            break;
        }
        lua_pop(L, 1);
    }
    key_tag(k, '}');
    return ok;
}

/*
 * Raise again the error a recipe's protected call ended with (on top).  A
 * memory error stays one: only a refused allocation raises it, so ask for
 * more than the limit leaves.
 */
static int
rethrow(lua_State *L, lprop_ctx *ctx, int status)
{
    if (status == LUA_ERRMEM) {
        size_t n = ctx->limits.max_memory;

        lua_pop(L, 1);
        (void)lua_newuserdatauv(L, n < ((size_t)1 << 40) ? n : ((size_t)1 << 40), 0);
        lua_pushliteral(L, "not enough memory"); /* not reached: the limit refused it */
    }
    return lua_error(L);
}

/* The nodes of an earlier equal call made again at the caller's place. */
static int
remake(lua_State *L, lprop_ctx *ctx, size_t mark, size_t count)
{
    prop_frame fr[MAX_FRAMES];
    prop_origin o;
    prop_node *out = NULL;
    int rc;

    lprop_origin(L, &o, fr, MAX_FRAMES);
    rc = prop_node_remake(ctx->site, mark, count, &o, &out);
    if (rc != PROP_OK)
        return lprop_engine_error(L, rc);
    ctx->recipe_remade++;
    lprop_push_node(L, out);
    return 1;
}

/*
 * The recipes' entry points are wrapped in this C trampoline.  A user
 * helper that ends in `return apt.installed {...}` makes a tail call; Lua
 * drops the helper's frame for a tail call into a Lua function but keeps
 * it for a C function, so the helper's line stays in the property's origin.
 *
 * When the arguments cannot lead the recipe into code of the site, the
 * recipe runs without the instruction budget's count hook (see
 * lprop_budget_suspend), in a protected call without a message handler:
 * an error is caught before any code of the site runs (an xpcall handler
 * of the site's would otherwise run where the error is raised, hook off),
 * the hook is put back, and the error raised again.
 *
 * Such a call is also a pure function of its arguments: when the site is
 * only checked, a call equal to an earlier one gets that call's nodes
 * made again at its own place (its origin is the same stack of user
 * frames the recipe's nodes would get, prop's own frames being skipped),
 * and only calls that made nothing but their result's tree and recorded
 * no diagnostic are remembered.
 */
static int
entry_call(lua_State *L)
{
    lprop_ctx *ctx = lprop_getctx(L);
    int n = lua_gettop(L), i, left = INERT_ENTRIES, quiet = 1;
    key_buf k;
    size_t mark = 0, count = 0, ndiags = 0;
    prop_node *root;
    int status;

    k.n = 0;
    k.ok = ctx->memo != NULL && n <= 255;
    if (k.ok) {
        const void *fn = lua_topointer(L, lua_upvalueindex(1));
        unsigned char nargs = (unsigned char)n;

        key_put(&k, &fn, sizeof fn);
        key_put(&k, &nargs, 1);
    }
    for (i = 1; i <= n && quiet; i++)
        quiet = inert(L, i, 0, &left, &k);
    if (!quiet || !lua_checkstack(L, LUA_MINSTACK + 4) || !lprop_budget_suspend(L)) {
        lua_pushvalue(L, lua_upvalueindex(1));
        lua_insert(L, 1);
        lua_call(L, n, LUA_MULTRET);
        return lua_gettop(L);
    }
    ctx->recipe_calls++;
    if (k.ok && lprop_memo_get(ctx->memo, k.b, k.n, &mark, &count)) {
        lprop_budget_resume(L);
        return remake(L, ctx, mark, count);
    }
    if (k.ok) {
        mark = prop_site_mark(ctx->site);
        ndiags = prop_site_ndiags(ctx->site);
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    status = lua_pcall(L, n, LUA_MULTRET, 0);
    lprop_budget_resume(L);
    if (status != LUA_OK)
        return rethrow(L, ctx, status);
    if (k.ok && lua_gettop(L) == 1 && (root = lprop_tonode(L, 1)) != NULL &&
        prop_site_ndiags(ctx->site) == ndiags &&
        (count = prop_node_made_since(ctx->site, root, mark)) > 0)
        lprop_memo_put(ctx->memo, k.b, k.n, mark, count);
    return lua_gettop(L);
}

/* core.entry(fn): fn behind the trampoline above; for prop's own recipes
 * only, as it lets them run without the instruction budget's hook. */
static int
l_entry(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TFUNCTION);
    if (lprop_getctx(L)->in_embedded == 0 || lprop_user_caller(L))
        return lprop_error(L, "core.entry is for prop's own recipe modules");
    lua_settop(L, 1);
    lua_pushcclosure(L, entry_call, 1);
    return 1;
}

/* core.check_targets(v): nil when v is a valid targets value, else why not. */
static int
l_check_targets(lua_State *L)
{
    prop_os_set set = 0, one;
    lua_Integer i, n;

    if (lua_isnoneornil(L, 1))
        return 0;
    if (lua_type(L, 1) == LUA_TSTRING) {
        if (prop_os_set_parse(lua_tostring(L, 1), &set) == PROP_OK)
            return 0;
        lua_pushfstring(L,
                        "unknown OS family \"%s\" (expected debian, buntish, rhel, fedora, "
                        "arch, freebsd, DebianLike, RedHatLike, ArchLinux, FreeBSD, Linux or "
                        "UnixLike)",
                        lua_tostring(L, 1));
        return 1;
    }
    if (!lua_istable(L, 1)) {
        lua_pushfstring(L, "targets must be a family name or a list of them, not a %s",
                        luaL_typename(L, 1));
        return 1;
    }
    n = (lua_Integer)lua_rawlen(L, 1);
    for (i = 1; i <= n; i++) {
        lua_rawgeti(L, 1, i);
        if (lua_type(L, -1) != LUA_TSTRING ||
            prop_os_set_parse(lua_tostring(L, -1), &one) != PROP_OK) {
            lua_pushfstring(L, "targets entry %d is not an OS family name", (int)i);
            return 1;
        }
        set |= one;
        lua_pop(L, 1);
    }
    if (set == 0) {
        lua_pushliteral(L, "targets is an empty list: nothing could run the property");
        return 1;
    }
    return 0;
}

/* core.set_unknown_field(fn): fn(what, key) words the error for a field a
 * property or host does not have (the prelude gives it "did you mean"). */
static int
l_set_unknown_field(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_settop(L, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, "prop.unknown_field");
    return 0;
}

static int
l_is_property(lua_State *L)
{
    lua_pushboolean(L, lprop_tonode(L, 1) != NULL);
    return 1;
}

/*
 * core.defined_at(fn): "FILE:LINE" where the Lua function fn is defined
 * (what a recipe names for content computed at run time), or nil for a
 * C function.
 */
static int
l_defined_at(lua_State *L)
{
    lua_Debug ar;

    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_pushvalue(L, 1);
    if (!lua_getinfo(L, ">S", &ar) || ar.linedefined <= 0) {
        lua_pushnil(L);
        return 1;
    }
    lua_pushfstring(L, "%s:%d", ar.short_src, ar.linedefined);
    return 1;
}

/* ---- hosts ---- */

/*
 * core.container(kind, name, props): a container (a host inside a host)
 * with its own properties, returned as a Host.  The recipe that puts it
 * on a host (chroot.provisioned, ...) passes it as extra.container.
 */
static int
l_container(lua_State *L)
{
    static const char *const kinds[] = {"chroot", "nspawn", "docker", "jail", NULL};
    lprop_ctx *ctx = lprop_getctx(L);
    prop_frame fr[MAX_FRAMES];
    prop_origin o;
    prop_host *h = NULL;
    nodebuf b = {0};
    const char *name;
    size_t i;
    int kind = luaL_checkoption(L, 1, NULL, kinds), bufidx, rc;

    name = luaL_checkstring(L, 2);
    luaL_checktype(L, 3, LUA_TTABLE);
    lua_settop(L, 3);
    lua_pushnil(L);
    bufidx = lua_gettop(L);
    lua_pushfstring(L, "container \"%s\"", name);
    collect_list(L, 3, &b, bufidx, lua_tostring(L, -1), 0);
    lprop_origin(L, &o, fr, MAX_FRAMES);
    rc = prop_container_new(ctx->site, (prop_container_kind)(kind + 1), name, &o, &h);
    for (i = 0; rc == PROP_OK && i < b.n; i++)
        rc = prop_host_add(ctx->site, h, b.v[i]);
    if (rc != PROP_OK)
        return lprop_engine_error(L, rc);
    lprop_push_host(L, h);
    return 1;
}

static int
declare_host(lua_State *L, const char *name, int list)
{
    lprop_ctx *ctx = lprop_getctx(L);
    prop_frame fr[MAX_FRAMES];
    prop_origin o;
    prop_host *h = NULL;
    nodebuf b = {0};
    size_t i;
    int bufidx, rc;

    if (!lua_istable(L, list) || !is_plain_list(L, list))
        return lprop_error(L, "host \"%s\" needs a list of properties, got a %s", name,
                           luaL_typename(L, list));
    lua_pushnil(L);
    bufidx = lua_gettop(L);
    lua_pushfstring(L, "host \"%s\"", name);
    collect_list(L, list, &b, bufidx, lua_tostring(L, -1), 0);
    lprop_origin(L, &o, fr, MAX_FRAMES);
    rc = prop_host_new(ctx->site, name, &o, &h);
    for (i = 0; rc == PROP_OK && i < b.n; i++)
        rc = prop_host_add(ctx->site, h, b.v[i]);
    if (rc != PROP_OK)
        return lprop_engine_error(L, rc);
    lprop_push_host(L, h);
    lua_getfield(L, LUA_REGISTRYINDEX, HOSTS_KEY);
    lua_pushvalue(L, -2);
    lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
    lua_pop(L, 1);
    return 1;
}

/*
 * A host's name is printed on every line of a run and names it on the
 * command line: valid UTF-8 without blanks or control characters, no '/'
 * (it separates a host from its containers).  A bad name is P012 at the
 * host's line; the host is declared anyway, so that evaluation goes on.
 */
static const char *
check_host_name(lua_State *L, int idx)
{
    lprop_ctx *ctx = lprop_getctx(L);
    prop_frame fr[MAX_FRAMES];
    prop_origin o;
    const char *name, *p, *why = NULL;
    size_t len;
    int rc;

    if (lua_type(L, idx) != LUA_TSTRING)
        lprop_error(L, "host needs a name (a string), got a %s", luaL_typename(L, idx));
    name = lua_tolstring(L, idx, &len);
    if (len == 0)
        why = "host name is empty";
    else if (strlen(name) != len || !prop_text_clean(name, len))
        why = "host name %s is not valid UTF-8 or holds a control character";
    for (p = name; why == NULL && *p; p++)
        if (*p == ' ' || *p == '/')
            why = "host name %s contains a space or '/' (it separates a host from its "
                  "containers)";
    if (why == NULL)
        return name;
    lua_pushfstring(L, why, lua_pushfstring(L, "\"%s\"", name));
    lprop_origin(L, &o, fr, MAX_FRAMES);
    rc = prop_site_report(ctx->site, "P012", PROP_SEV_ERROR, &o, lua_tostring(L, -1));
    if (rc != PROP_OK)
        lprop_engine_error(L, rc);
    lua_pop(L, 2);
    return name;
}

static int
host_curried(lua_State *L)
{
    const char *name = lua_tostring(L, lua_upvalueindex(1));
    return declare_host(L, name, 1);
}

/* host "name" { ... }  or  host("name", { ... }) */
static int
l_host(lua_State *L)
{
    const char *name = check_host_name(L, 1);

    if (lua_isnoneornil(L, 2)) {
        lua_pushstring(L, name);
        lua_pushcclosure(L, host_curried, 1);
        return 1;
    }
    return declare_host(L, name, 2);
}

/* site.hosts(): every host declared so far, in order. */
static int
l_hosts(lua_State *L)
{
    lua_Integer i, n;

    lua_getfield(L, LUA_REGISTRYINDEX, HOSTS_KEY);
    n = (lua_Integer)lua_rawlen(L, -1);
    lua_createtable(L, (int)n, 0);
    for (i = 1; i <= n; i++) {
        lua_rawgeti(L, -2, i);
        lua_rawseti(L, -2, i);
    }
    return 1;
}

/* site.host(name): the host of that name declared so far, or nil. */
static int
l_find_host(lua_State *L)
{
    prop_host *h = prop_site_find_host(lprop_getctx(L)->site, luaL_checkstring(L, 1));

    if (h == NULL)
        return 0;
    lprop_push_host(L, h);
    return 1;
}

/* ---- Property fields ---- */

static void
push_origin(lua_State *L, const prop_origin *o)
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
        push_origin(L, prop_node_origin(leaf));
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
        push_origin(L, prop_node_origin(n));
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

/* ---- Host fields ---- */

static int
host_info(lua_State *L)
{
    prop_host *h = lprop_tohost(L, 1);
    const char *key = luaL_checkstring(L, 2), *v;
    size_t i;

    if (h == NULL)
        return lprop_error(L, "bad argument #1 to 'info' (host expected)");
    lua_newtable(L);
    for (i = 0; (v = prop_host_info(h, key, i)) != NULL; i++) {
        lua_pushstring(L, v);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int
host_index(lua_State *L)
{
    prop_host *h = lprop_tohost(L, 1);
    const char *k = lua_tostring(L, 2);
    size_t i, n;

    if (h == NULL || k == NULL)
        return lprop_error(L, "a host has no such field");
    if (strcmp(k, "name") == 0) {
        lua_pushstring(L, prop_host_fullname(h));
    } else if (strcmp(k, "container") == 0) {
        static const char *const kinds[] = {NULL, "chroot", "nspawn", "docker", "jail"};
        prop_container_kind ck = prop_host_container_kind(h);
        if (ck == PROP_CONTAINER_NONE)
            lua_pushnil(L);
        else
            lua_pushstring(L, kinds[ck]);
    } else if (strcmp(k, "short_name") == 0) {
        lua_pushstring(L, prop_host_name(h));
    } else if (strcmp(k, "parent") == 0) {
        prop_host *p = prop_host_parent(h);
        if (p)
            lprop_push_host(L, p);
        else
            lua_pushnil(L);
    } else if (strcmp(k, "attached_by") == 0) {
        /* The leaf that puts a container on its parent (after the check). */
        const prop_node *a = prop_host_attached_by(h);
        if (a)
            lprop_push_node(L, (prop_node *)a);
        else
            lua_pushnil(L);
    } else if (strcmp(k, "containers") == 0) {
        n = prop_host_ncontainers(h);
        lua_createtable(L, (int)n, 0);
        for (i = 0; i < n; i++) {
            lprop_push_host(L, prop_host_container(h, i));
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
    } else if (strcmp(k, "os") == 0) {
        prop_os_set os = prop_host_os(h);
        if (os)
            lua_pushstring(L, prop_os_family_name(os));
        else
            lua_pushnil(L);
    } else if (strcmp(k, "origin") == 0) {
        push_origin(L, prop_host_origin(h));
    } else if (strcmp(k, "properties") == 0) {
        n = prop_host_nprops(h);
        lua_createtable(L, (int)n, 0);
        for (i = 0; i < n; i++) {
            lprop_push_node(L, prop_host_prop(h, i));
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
    } else if (strcmp(k, "info") == 0) {
        lua_pushcfunction(L, host_info);
    } else {
        lua_getfield(L, LUA_REGISTRYINDEX, "prop.unknown_field");
        if (lua_isfunction(L, -1)) {
            lua_pushliteral(L, "host");
            lua_pushvalue(L, 2);
            lua_call(L, 2, 1);
            return lprop_error(L, "%s", lua_tostring(L, -1));
        }
        return lprop_error(L, "a host has no field \"%s\"", k);
    }
    return 1;
}

static int
host_eq(lua_State *L)
{
    prop_host *a = lprop_tohost(L, 1);

    lua_pushboolean(L, a != NULL && a == lprop_tohost(L, 2));
    return 1;
}

static int
host_tostring(lua_State *L)
{
    prop_host *h = lprop_tohost(L, 1);
    prop_os_set os = h ? prop_host_os(h) : 0;

    if (h == NULL)
        return 0;
    if (prop_host_container_kind(h) != PROP_CONTAINER_NONE) {
        static const char *const kinds[] = {NULL, "chroot", "nspawn", "docker", "jail"};

        lua_pushfstring(L, "container %s (%s, %s, %d properties)", prop_host_fullname(h),
                        kinds[prop_host_container_kind(h)], os ? prop_os_family_name(os) : "no OS",
                        (int)prop_host_nprops(h));
        return 1;
    }
    lua_pushfstring(L, "host %s (%s, %d properties)", prop_host_name(h),
                    os ? prop_os_family_name(os) : "no OS", (int)prop_host_nprops(h));
    return 1;
}

/* ---- the module ---- */

/* name -> number: OS family and group names (kinds == 0) or claim kinds. */
static void
push_name_table(lua_State *L, int kinds)
{
    static const char *const os_names[] = {"debian",    "buntish", "freebsd",    "rhel",
                                           "fedora",    "arch",    "DebianLike", "RedHatLike",
                                           "ArchLinux", "FreeBSD", "Linux",      "UnixLike"};
    prop_os_set set;
    int k;

    lua_newtable(L);
    if (kinds) {
        for (k = 0; k < PROP_CLAIM__COUNT; k++) {
            lua_pushinteger(L, k);
            lua_setfield(L, -2, prop_claim_kind_name((prop_claim_kind)k));
        }
        return;
    }
    for (k = 0; k < (int)(sizeof os_names / sizeof os_names[0]); k++) {
        if (prop_os_set_parse(os_names[k], &set) == PROP_OK) {
            lua_pushinteger(L, (lua_Integer)set);
            lua_setfield(L, -2, os_names[k]);
        }
    }
}

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
                                      {"invalid", l_invalid},
                                      {"is_property", l_is_property},
                                      {"defined_at", l_defined_at},
                                      {"set_unknown_field", l_set_unknown_field},
                                      {"entry", l_entry},
                                      {"check_targets", l_check_targets},
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
                                      {"host", l_host},
                                      {"hosts", l_hosts},
                                      {"find_host", l_find_host},
                                      {"container", l_container},
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
        ctx->node_mt = lua_topointer(L, -1);
        ctx->node_mt_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    } else {
        lua_pop(L, 1);
    }
    if (luaL_newmetatable(L, LPROP_HOST)) {
        lua_pushcfunction(L, host_index);
        lua_setfield(L, -2, "__index");
        lua_pushcfunction(L, host_tostring);
        lua_setfield(L, -2, "__tostring");
        lua_pushcfunction(L, host_eq);
        lua_setfield(L, -2, "__eq");
        lua_pushliteral(L, "a host is immutable");
        lua_setfield(L, -2, "__metatable");
        ctx->host_mt = lua_topointer(L, -1);
        ctx->host_mt_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    } else {
        lua_pop(L, 1);
    }
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, HOSTS_KEY);
    luaL_newlib(L, core_funcs);
    /* core.leaf keeps what it looks up on every call in upvalues: the
     * behaviour tables, and name -> number tables for OS sets and claim
     * kinds. */
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, BEHAVIOUR_KEY);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, BEHAVIOUR_ARGS_KEY);
    push_name_table(L, 0);
    push_name_table(L, 1);
    lua_pushcclosure(L, l_leaf, 4);
    lua_setfield(L, -2, "leaf");
    lprop_secret_register(L);
    return 1;
}
