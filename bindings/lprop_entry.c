/*
 * lprop_entry.c - what recipes build on: core.leaf (a leaf property and
 * what it does at run time), core.entry (a recipe's entry point, with the
 * memo of equal calls of a check-only state), core.invalid, core.warn
 * and the checks of targets and definition places.
 *
 * What a leaf does at run time (its impl table and args) is kept in two
 * registry tables indexed by the leaf's behaviour number, not in C.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>

#include "lprop_budget.h"
#include "lprop_memo.h"
#include "lprop_property.h"
#include "lprop_require.h"
#include "lprop_secret.h"

#define MAX_FRAMES 8
#define LOCAL_CLAIMS 16 /* claims of one leaf read into a C array up to this many */
#define BEHAVIOUR_KEY LPROP_BEHAVIOURS
#define BEHAVIOUR_ARGS_KEY LPROP_BEHAVIOUR_ARGS

typedef struct {
    prop_node *node;
} node_ud;

typedef struct {
    prop_host *host;
} host_ud;

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

/*
 * extra.uses = { services = { NAME... }, ports = { PORT... } } (at idx) into
 * spec, in scratch arrays (pushed, with the strings reachable from the
 * table at idx).  NULL, or what is wrong with it (pushed too): the leaf
 * is then a P012.
 */
static const char *
read_uses(lua_State *L, int idx, prop_leaf_spec *spec)
{
    const char **names, *key;
    int *ports;
    lua_Integer i, n;

    if (lua_isnil(L, idx))
        return NULL;
    if (!lua_istable(L, idx))
        return lua_pushfstring(L,
                               "uses must be a table such as { services = { \"mariadb\" }, "
                               "ports = { 3306 } }, not a %s",
                               luaL_typename(L, idx));
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING)
            return lua_pushfstring(L, "uses: a key is a %s, not services or ports",
                                   luaL_typename(L, -1));
        key = lua_tostring(L, -1);
        if (strcmp(key, "services") != 0 && strcmp(key, "ports") != 0)
            return lua_pushfstring(
                L, "uses: unknown kind \"%s\": a property uses services or ports%s", key,
                strncmp(key, "serv", 4) == 0   ? " (did you mean \"services\"?)"
                : strncmp(key, "port", 4) == 0 ? " (did you mean \"ports\"?)"
                                               : "");
    }
    if (lua_getfield(L, idx, "services") != LUA_TNIL) {
        if (!lua_istable(L, -1))
            return lua_pushliteral(L, "uses.services must be a list of service names");
        n = (lua_Integer)lua_rawlen(L, -1);
        names = scratch(L, (size_t)n, sizeof *names);
        for (i = 0; i < n; i++) {
            if (lua_rawgeti(L, -2, i + 1) != LUA_TSTRING || lua_rawlen(L, -1) == 0)
                return lua_pushfstring(L, "uses.services entry %d is not a service name",
                                       (int)i + 1);
            names[i] = lua_tostring(L, -1); /* reachable from the uses table */
            lua_pop(L, 1);
        }
        spec->uses_services = names;
        spec->nuses_services = (size_t)n;
        lua_remove(L, -2);
    } else {
        lua_pop(L, 1);
    }
    if (lua_getfield(L, idx, "ports") != LUA_TNIL) {
        if (!lua_istable(L, -1))
            return lua_pushliteral(L, "uses.ports must be a list of port numbers");
        n = (lua_Integer)lua_rawlen(L, -1);
        ports = scratch(L, (size_t)n, sizeof *ports);
        for (i = 0; i < n; i++) {
            lua_rawgeti(L, -2, i + 1);
            if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 || lua_tointeger(L, -1) > 65535)
                return lua_pushfstring(L, "uses.ports entry %d is not a port in 1..65535",
                                       (int)i + 1);
            ports[i] = (int)lua_tointeger(L, -1);
            lua_pop(L, 1);
        }
        spec->uses_ports = ports;
        spec->nuses_ports = (size_t)n;
        lua_remove(L, -2);
    } else {
        lua_pop(L, 1);
    }
    return NULL;
}

/* One claim from the three values on top of the stack (kind, key,
 * value), which it pops; n is its place in the list, for messages.  The
 * strings stay reachable from the claims table until the engine has
 * copied them. */
static void
read_claim(lua_State *L, prop_claim *c, lua_Integer n)
{
    c->value = NULL;
    c->value_len = 0;
    c->flags = 0;
    c->id = -1;
    if (lua_isinteger(L, -1))
        c->id = lua_tointeger(L, -1);
    else if (lua_type(L, -1) == LUA_TSTRING)
        c->value = lua_tolstring(L, -1, &c->value_len);
    c->key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
    if (c->key == NULL)
        luaL_error(L, "claim %d: key must be a string", (int)n);
    lua_pushvalue(L, -3);
    if (lua_type(L, -1) != LUA_TSTRING || lua_rawget(L, lua_upvalueindex(4)) != LUA_TNUMBER)
        luaL_error(L, "claim %d: unknown kind", (int)n);
    c->kind = (prop_claim_kind)lua_tointeger(L, -1);
    lua_pop(L, 4);
}

/*
 * The claims at idx: a list of claims made by core.claim (each a table
 * {kind, key, value}).  Into local when they fit, else into a scratch
 * array it pushes.
 */
static void
leaf_claims(lua_State *L, int idx, prop_leaf_spec *spec, prop_claim *local)
{
    prop_claim *claims;
    lua_Integer i, n;

    if (lua_isnil(L, idx))
        return;
    if (!lua_istable(L, idx))
        luaL_error(L, "claims must be a list of claims (made by core.claim), not a %s",
                   luaL_typename(L, idx));
    n = (lua_Integer)lua_rawlen(L, idx);
    claims = n <= LOCAL_CLAIMS ? local : scratch(L, (size_t)n, sizeof *claims);
    for (i = 0; i < n; i++) {
        if (lua_rawgeti(L, idx, i + 1) != LUA_TTABLE)
            luaL_error(L, "claim %d is not a claim (make it with core.claim)", (int)i + 1);
        lua_rawgeti(L, -1, 1);
        lua_rawgeti(L, -2, 2);
        lua_rawgeti(L, -3, 3);
        read_claim(L, &claims[i], i + 1);
        lua_pop(L, 1);
    }
    spec->claims = claims;
    spec->nclaims = (size_t)n;
}

/* The ports at the top of the stack, a list of integers 1..65535, into a
 * scratch array pushed below it. */
static void
leaf_ports(lua_State *L, prop_leaf_spec *spec)
{
    lua_Integer i, n = (lua_Integer)lua_rawlen(L, -1);
    int *ports = scratch(L, (size_t)n, sizeof *ports);

    lua_insert(L, -2);
    for (i = 0; i < n; i++) {
        lua_rawgeti(L, -1, i + 1);
        if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 || lua_tointeger(L, -1) > 65535)
            luaL_error(L, "ports must be integers in 1..65535");
        ports[i] = (int)lua_tointeger(L, -1);
        lua_pop(L, 1);
    }
    spec->ports = ports;
    spec->nports = (size_t)n;
}

/* The info at the top of the stack, a flat list key, value, ... of
 * strings, into a scratch array pushed below it. */
static prop_info *
leaf_info(lua_State *L, prop_leaf_spec *spec)
{
    lua_Integer i, n = (lua_Integer)lua_rawlen(L, -1);
    prop_info *info;

    if (n % 2 != 0)
        luaL_error(L, "info must be pairs (key, value)");
    info = scratch(L, (size_t)(n / 2), sizeof *info);
    lua_insert(L, -2);
    for (i = 0; i < n / 2; i++) {
        lua_rawgeti(L, -1, 2 * i + 1);
        lua_rawgeti(L, -2, 2 * i + 2);
        if (lua_type(L, -2) != LUA_TSTRING || lua_type(L, -1) != LUA_TSTRING)
            luaL_error(L, "info keys and values must be strings");
        info[i].key = lua_tostring(L, -2);
        info[i].value = lua_tostring(L, -1);
        lua_pop(L, 2);
    }
    spec->info = info;
    spec->ninfo = (size_t)(n / 2);
    return info;
}

/* The rest of what a leaf says, from the leaf's table at idx: ports,
 * info, norevert, info_only, secret, os, container, publishes, detaches,
 * shares_ports.
 * Returns the leaf's info array (NULL: none). */
static prop_info *
leaf_extra(lua_State *L, int idx, prop_leaf_spec *spec)
{
    prop_info *info = NULL;
    size_t i;

    if (lua_getfield(L, idx, "ports") == LUA_TTABLE)
        leaf_ports(L, spec);
    lua_pop(L, 1);
    if (lua_getfield(L, idx, "info") == LUA_TTABLE)
        info = leaf_info(L, spec);
    lua_pop(L, 1);
    if (lua_getfield(L, idx, "norevert") == LUA_TSTRING)
        spec->norevert = lua_tostring(L, -1); /* the table keeps it alive */
    lua_pop(L, 1);
    lua_getfield(L, idx, "info_only");
    spec->info_only = lua_toboolean(L, -1);
    lua_pop(L, 1);
    /* The values this leaf claims are secret: compared by the pre-pass,
     * never shown (the claims are a C copy: this changes no Lua value). */
    lua_getfield(L, idx, "secret");
    if (lua_toboolean(L, -1))
        for (i = 0; i < spec->nclaims; i++)
            if (spec->claims[i].value)
                ((prop_claim *)spec->claims)[i].flags |= PROP_CLAIM_SECRET;
    lua_pop(L, 1);
    if (lua_getfield(L, idx, "os") == LUA_TSTRING &&
        prop_os_set_parse(lua_tostring(L, -1), &spec->os_family) != PROP_OK)
        luaL_error(L, "unknown OS family \"%s\"", lua_tostring(L, -1));
    lua_pop(L, 1);
    /* A leaf that puts a container on its host, and whose ports are the
     * container's published ones. */
    lua_getfield(L, idx, "container");
    spec->container = lprop_tohost(L, -1);
    lua_pop(L, 1);
    lua_getfield(L, idx, "publishes");
    spec->publishes = lua_toboolean(L, -1);
    lua_pop(L, 1);
    lua_getfield(L, idx, "detaches");
    spec->detaches = lua_toboolean(L, -1);
    lua_pop(L, 1);
    /* The web server whose sites share these ports (the table keeps the
     * string alive until prop_leaf_new has copied it). */
    switch (lua_getfield(L, idx, "shares_ports")) {
    case LUA_TNIL:
        break;
    case LUA_TSTRING:
        if (lua_rawlen(L, -1) == 0 || strlen(lua_tostring(L, -1)) != lua_rawlen(L, -1))
            luaL_error(L, "shares_ports must name a server (\"nginx\"), got an empty or "
                          "binary string");
        spec->shares_ports = lua_tostring(L, -1);
        break;
    default:
        luaL_error(L, "shares_ports must be a string naming a server (\"nginx\"), got %s",
                   luaL_typename(L, -1));
    }
    lua_pop(L, 1);
    return info;
}

/* The run-time side of a leaf: its impl (at 3) and args (at 4), kept by
 * behaviour number in the registry tables (upvalues 1 and 2). */
static void
leaf_behaviour(lua_State *L, prop_leaf_spec *spec)
{
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
    spec->behaviour = (long)id;
}

/* The keys of core.leaf's named form. */
static const char *const leaf_keys[] = {
    "desc",      "targets",  "impl",      "args",         "claims", "ports",
    "info",      "norevert", "info_only", "secret",       "os",     "container",
    "publishes", "detaches", "uses",      "shares_ports", NULL};

/*
 * core.leaf{desc =, targets =, impl =, args =, claims =, ...}: the named
 * fields are put at 1..5 (desc, targets, impl, args, claims) and the table
 * itself, for the rest, at 6.  An unknown key is an error: a misspelt
 * field would otherwise vanish.
 */
static void
leaf_named(lua_State *L)
{
    static const char *const fields[] = {"desc", "targets", "impl", "args", "claims"};
    size_t k;

    lua_settop(L, 1);
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
        for (k = 0; key && leaf_keys[k] && strcmp(leaf_keys[k], key) != 0; k++)
            ;
        if (!key || !leaf_keys[k])
            luaL_error(L, "core.leaf: unknown field %s%s%s", key ? "\"" : "",
                       key ? key : luaL_typename(L, -2), key ? "\"" : " key");
        lua_pop(L, 1);
    }
    for (k = 0; k < sizeof fields / sizeof fields[0]; k++)
        lua_getfield(L, 1, fields[k]);
    lua_pushvalue(L, 1);
    lua_remove(L, 1);
}

/* core.leaf{desc =, targets =, impl =, args =, claims = {core.claim...},
 * ...} - see lua/README.md. */
static int
l_leaf(lua_State *L)
{
    lprop_ctx *ctx = lprop_getctx(L);
    prop_frame fr[MAX_FRAMES];
    prop_origin o;
    prop_leaf_spec spec;
    prop_node *out = NULL;
    prop_claim local_claims[LOCAL_CLAIMS];
    prop_info *info = NULL;
    const char *bad_uses;
    int rc;

    memset(&spec, 0, sizeof spec);
    if (!lua_istable(L, 1) || lua_gettop(L) != 1)
        return luaL_error(L, "core.leaf takes one table of named fields: core.leaf{ desc = ..., "
                             "impl = ..., claims = { core.claim... } }");
    leaf_named(L);
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
    leaf_claims(L, 5, &spec, local_claims);
    if (lua_istable(L, 6)) {
        info = leaf_extra(L, 6, &spec);
        lua_getfield(L, 6, "uses");
        if ((bad_uses = read_uses(L, lua_gettop(L), &spec)) != NULL) {
            /* A bad uses: P012 at the caller's place, as core.invalid. */
            lprop_origin(L, &o, fr, MAX_FRAMES);
            rc = prop_invalid_new(ctx->site, spec.desc, bad_uses, &o, &out);
            if (rc != PROP_OK)
                return lprop_engine_error(L, rc);
            lprop_push_node(L, out);
            return 1;
        }
    }
    if (ctx->secrets_made && (lua_istable(L, 3) || lua_istable(L, 4)))
        info = secret_uses(L, &spec, info);
    /* The run-time side is not kept when the site is only checked. */
    if (!ctx->limits.check_only && (!lua_isnil(L, 3) || !lua_isnil(L, 4)))
        leaf_behaviour(L, &spec);
    lprop_origin(L, &o, fr, MAX_FRAMES);
    rc = prop_leaf_new(ctx->site, &spec, &o, &out);
    if (rc != PROP_OK)
        return lprop_engine_error(L, rc);
    lprop_push_node(L, out);
    return 1;
}

/*
 * core.claim.KIND(key, value): one claim for core.leaf's claims list,
 * {kind, key, value}.  KIND is the claim kind with "_" for "."
 * (file_content, package_installed, user_setting...); value is a string,
 * an integer id, false or nil.
 */
static int
l_claim(lua_State *L)
{
    lua_settop(L, 2);
    luaL_checkstring(L, 1);
    if (!lua_isnil(L, 2) && !(lua_isboolean(L, 2) && !lua_toboolean(L, 2)) &&
        !lua_isinteger(L, 2) && lua_type(L, 2) != LUA_TSTRING)
        return luaL_error(L, "core.claim.%s: value must be a string, an integer or false, not a %s",
                          lua_tostring(L, lua_upvalueindex(2)), luaL_typename(L, 2));
    lua_createtable(L, 3, 0);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_rawseti(L, -2, 1);
    lua_pushvalue(L, 1);
    lua_rawseti(L, -2, 2);
    if (lua_isnoneornil(L, 2))
        lua_pushboolean(L, 0);
    else
        lua_pushvalue(L, 2);
    lua_rawseti(L, -2, 3);
    return 1;
}

/* core.claim: a constructor for each claim kind. */
static void
push_claim_table(lua_State *L)
{
    char name[64];
    size_t i;
    int k;

    lua_createtable(L, 0, PROP_CLAIM__COUNT);
    for (k = 0; k < PROP_CLAIM__COUNT; k++) {
        const char *kind = prop_claim_kind_name((prop_claim_kind)k);
        for (i = 0; kind[i] && i + 1 < sizeof name; i++)
            name[i] = kind[i] == '.' ? '_' : kind[i];
        name[i] = '\0';
        lua_pushstring(L, kind);
        lua_pushstring(L, name);
        lua_pushcclosure(L, l_claim, 2);
        lua_setfield(L, -2, name);
    }
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

/* core.warn(code, message): record warning code ("W109") with message at
 * the user's line.  The recipe returns its property as it would without. */
static int
l_warn(lua_State *L)
{
    lprop_ctx *ctx = lprop_getctx(L);
    prop_frame fr[MAX_FRAMES];
    prop_origin o;
    const char *code = luaL_checkstring(L, 1), *msg = luaL_checkstring(L, 2);
    int rc;

    if (code[0] != 'W' || !isdigit((unsigned char)code[1]) || !isdigit((unsigned char)code[2]) ||
        !isdigit((unsigned char)code[3]) || code[4] != '\0')
        return lprop_error(L, "core.warn: \"%s\" is not a warning code such as \"W101\"", code);
    lprop_origin(L, &o, fr, MAX_FRAMES);
    rc = prop_site_report(ctx->site, code, PROP_SEV_WARNING, &o, msg);
    if (rc != PROP_OK)
        return lprop_engine_error(L, rc);
    return 0;
}

/* core.error_at(property, code, message): record error code ("P002") with
 * message at the property's own place (prop's checks of a host's list). */
static int
l_error_at(lua_State *L)
{
    lprop_ctx *ctx = lprop_getctx(L);
    const prop_node *n = lprop_tonode(L, 1);
    const char *code = luaL_checkstring(L, 2), *msg = luaL_checkstring(L, 3);
    int rc;

    if (n == NULL)
        return luaL_argerror(L, 1, "a property");
    if (code[0] != 'P' || !isdigit((unsigned char)code[1]) || !isdigit((unsigned char)code[2]) ||
        !isdigit((unsigned char)code[3]) || code[4] != '\0')
        return lprop_error(L, "core.error_at: \"%s\" is not an error code such as \"P002\"", code);
    rc = prop_site_report(ctx->site, code, PROP_SEV_ERROR, prop_node_origin(n), msg);
    if (rc != PROP_OK)
        return lprop_engine_error(L, rc);
    return 0;
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
LPROP_NORETURN static int rethrow(lua_State *L, lprop_ctx *ctx, int status);
static int
rethrow(lua_State *L, lprop_ctx *ctx, int status)
{
    if (status == LUA_ERRMEM) {
        size_t n = ctx->limits.max_memory;

        lua_pop(L, 1);
        (void)lua_newuserdatauv(L, n < ((size_t)1 << 40) ? n : ((size_t)1 << 40), 0);
        lua_pushliteral(L, "not enough memory"); /* not reached: the limit refused it */
    }
    lua_error(L);
    abort(); /* not reached: lua_error does not return */
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
    ctx->memo.recipe_remade++;
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
    k.ok = ctx->memo.table != NULL && n <= 255;
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
    ctx->memo.recipe_calls++;
    if (k.ok && lprop_memo_get(ctx->memo.table, k.b, k.n, &mark, &count)) {
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
        lprop_memo_put(ctx->memo.table, k.b, k.n, mark, count);
    return lua_gettop(L);
}

/* core.entry(fn): fn behind the trampoline above; for prop's own recipes
 * only, as it lets them run without the instruction budget's hook. */
static int
l_entry(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TFUNCTION);
    if (lprop_getctx(L)->paths.in_embedded == 0 || lprop_user_caller(L))
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

/*
 * core.inet_pton(s): "inet" or "inet6" and the address's bytes (a list of
 * 4 or 16 integers), as inet_pton(3) reads it; nil when s is neither.
 */
static int
l_inet_pton(lua_State *L)
{
    unsigned char b[16];
    const char *s = luaL_checkstring(L, 1);
    int n, i;

    if (inet_pton(AF_INET, s, b) == 1) {
        lua_pushliteral(L, "inet");
        n = 4;
    } else if (inet_pton(AF_INET6, s, b) == 1) {
        lua_pushliteral(L, "inet6");
        n = 16;
    } else {
        lua_pushnil(L);
        return 1;
    }
    lua_createtable(L, n, 0);
    for (i = 0; i < n; i++) {
        lua_pushinteger(L, b[i]);
        lua_rawseti(L, -2, i + 1);
    }
    return 2;
}

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

static const luaL_Reg entry_funcs[] = {{"invalid", l_invalid},
                                       {"warn", l_warn},
                                       {"error_at", l_error_at},
                                       {"is_property", l_is_property},
                                       {"defined_at", l_defined_at},
                                       {"inet_pton", l_inet_pton},
                                       {"set_unknown_field", l_set_unknown_field},
                                       {"entry", l_entry},
                                       {"check_targets", l_check_targets},
                                       {NULL, NULL}};

void
lprop_entry_register(lua_State *L)
{
    luaL_setfuncs(L, entry_funcs, 0);
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
    push_claim_table(L);
    lua_setfield(L, -2, "claim");
}
