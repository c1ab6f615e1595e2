/*
 * lprop_host.c - the Host userdata: core.host, core.hosts, core.find_host
 * and core.container declare hosts of the site, and a Host's fields.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>

#include "lprop_property.h"

#define MAX_FRAMES 8
#define HOSTS_KEY "prop.hosts"

typedef struct {
    prop_node *node;
} node_ud;

typedef struct {
    prop_host *host;
} host_ud;

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
    lprop_nodebuf b = {0};
    const char *name;
    size_t i;
    int kind = luaL_checkoption(L, 1, NULL, kinds), bufidx, rc;

    name = luaL_checkstring(L, 2);
    luaL_checktype(L, 3, LUA_TTABLE);
    lua_settop(L, 3);
    lua_pushnil(L);
    bufidx = lua_gettop(L);
    lua_pushfstring(L, "container \"%s\"", name);
    lprop_collect_list(L, 3, &b, bufidx, lua_tostring(L, -1), 0);
    lprop_origin(L, &o, fr, MAX_FRAMES);
    rc = prop_container_new(ctx->site, (prop_container_kind)(kind + 1), name, &o, &h);
    for (i = 0; rc == PROP_OK && i < b.n; i++)
        rc = prop_host_add_in(ctx->site, h, b.v[i], b.lists[i]);
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
    lprop_nodebuf b = {0};
    size_t i;
    int bufidx, rc;

    if (!lua_istable(L, list) || !lprop_is_plain_list(L, list))
        return lprop_error(L, "host \"%s\" needs a list of properties, got a %s", name,
                           luaL_typename(L, list));
    lua_pushnil(L);
    bufidx = lua_gettop(L);
    lua_pushfstring(L, "host \"%s\"", name);
    lprop_collect_list(L, list, &b, bufidx, lua_tostring(L, -1), 0);
    lprop_origin(L, &o, fr, MAX_FRAMES);
    rc = prop_host_new(ctx->site, name, &o, &h);
    for (i = 0; rc == PROP_OK && i < b.n; i++)
        rc = prop_host_add_in(ctx->site, h, b.v[i], b.lists[i]);
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
        lprop_push_origin(L, prop_host_origin(h));
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

/*
 * core.at_site_end(fn): fn runs once the whole site file has been
 * evaluated, before the pre-pass (a recipe's check that needs every host
 * of the site).  Accepted only while one of prop's own modules loads, as
 * core.entry is: a recipe call must make nothing but its tree.
 */
static int
l_at_site_end(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TFUNCTION);
    if (lprop_getctx(L)->paths.in_embedded == 0)
        return lprop_error(L, "core.at_site_end is for prop's own modules, while they load");
    if (lua_getfield(L, LUA_REGISTRYINDEX, LPROP_SITE_END_KEY) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, LPROP_SITE_END_KEY);
    }
    lua_pushvalue(L, 1);
    lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
    return 0;
}

static const luaL_Reg host_funcs[] = {{"host", l_host},           {"hosts", l_hosts},
                                      {"find_host", l_find_host}, {"at_site_end", l_at_site_end},
                                      {"container", l_container}, {NULL, NULL}};

void
lprop_host_register(lua_State *L)
{
    lprop_ctx *ctx = lprop_getctx(L);

    if (luaL_newmetatable(L, LPROP_HOST)) {
        lua_pushcfunction(L, host_index);
        lua_setfield(L, -2, "__index");
        lua_pushcfunction(L, host_tostring);
        lua_setfield(L, -2, "__tostring");
        lua_pushcfunction(L, host_eq);
        lua_setfield(L, -2, "__eq");
        lua_pushliteral(L, "a host is immutable");
        lua_setfield(L, -2, "__metatable");
        ctx->types.host_mt = lua_topointer(L, -1);
        ctx->types.host_mt_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    } else {
        lua_pop(L, 1);
    }
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, HOSTS_KEY);
    luaL_setfuncs(L, host_funcs, 0);
}
