/*
 * lsys_claims.c - sys:claims(thing): what the running host's properties
 * claim, for a recipe that assembles or keeps what its siblings declare
 * (file.fragments, a purged directory, firewall.allow).  The walk is
 * prop_host_find_claims(); its matches are counted, then written into a
 * userdata of that size (owned by Lua, so an error while pushing leaks
 * nothing), then pushed as tables.
 */
#include <string.h>

#include <lauxlib.h>

#include "lprop_property.h"
#include "lsys_methods.h"

typedef struct {
    const prop_node *leaf;
    const prop_claim *claim; /* NULL: a port or an info match */
    const prop_info *info;
    int port;
} match;

typedef struct {
    match *v; /* NULL while counting */
    size_t n, cap;
} matches;

static int
take(void *ud, const prop_claim_match *m)
{
    matches *ms = ud;

    if (ms->v != NULL && ms->n < ms->cap) {
        ms->v[ms->n].leaf = m->leaf;
        ms->v[ms->n].claim = m->claim;
        ms->v[ms->n].info = m->info;
        ms->v[ms->n].port = m->port;
    }
    ms->n++;
    return 0;
}

static void
set_string(lua_State *L, const char *field, const char *value, size_t len)
{
    lua_pushlstring(L, value, len);
    lua_setfield(L, -2, field);
}

/* The args table its recipe gave leaf, or nil. */
static void
push_args(lua_State *L, const prop_node *leaf)
{
    long id = prop_node_behaviour(leaf);

    if (id < 0) {
        lua_pushnil(L);
        return;
    }
    lua_getfield(L, LUA_REGISTRYINDEX, LPROP_BEHAVIOUR_ARGS);
    if (lua_istable(L, -1))
        lua_rawgeti(L, -1, id);
    else
        lua_pushnil(L);
    lua_remove(L, -2);
}

static void
push_match(lua_State *L, const match *m)
{
    const char *desc = prop_node_desc(m->leaf);

    lua_createtable(L, 0, 6);
    if (m->claim != NULL) {
        const prop_claim *c = m->claim;

        lua_pushstring(L, prop_claim_kind_name(c->kind));
        lua_setfield(L, -2, "kind");
        lua_pushstring(L, c->key);
        lua_setfield(L, -2, "key");
        if (c->value != NULL && !(c->flags & PROP_CLAIM_SECRET))
            set_string(L, "value", c->value, c->value_len ? c->value_len : strlen(c->value));
        if (c->id >= 0) {
            lua_pushinteger(L, (lua_Integer)c->id);
            lua_setfield(L, -2, "id");
        }
    } else if (m->info != NULL) {
        lua_pushliteral(L, "info");
        lua_setfield(L, -2, "kind");
        lua_pushstring(L, m->info->key);
        lua_setfield(L, -2, "key");
        lua_pushstring(L, m->info->value);
        lua_setfield(L, -2, "value");
    } else {
        lua_pushliteral(L, "port");
        lua_setfield(L, -2, "kind");
        lua_pushfstring(L, "%d", m->port);
        lua_setfield(L, -2, "key");
        lua_pushinteger(L, m->port);
        lua_setfield(L, -2, "id");
    }
    lua_pushstring(L, desc ? desc : "");
    lua_setfield(L, -2, "desc");
    push_args(L, m->leaf);
    lua_setfield(L, -2, "args");
}

/*
 * sys:claims(thing) -> { {kind=, key=, value=, id=, desc=, args=}, ... }:
 * what the host's properties that take effect claim about thing ("/path"
 * and below, "package:NAME", "service:NAME", "user:NAME", "group:NAME",
 * "port:N" or a bare word, as prop claims reads it), in execution order.
 * A secret claim's value is left out.
 */
int
lsys_claims(lua_State *L)
{
    lsys *s = lsys_check_self(L);
    const char *thing = luaL_checkstring(L, 2);
    matches ms = {NULL, 0, 0};
    size_t i;
    int rc;

    if (s->site == NULL || s->declared == NULL) {
        lua_newtable(L);
        return 1;
    }
    rc = prop_host_find_claims(s->site, s->declared, thing, take, &ms);
    if (rc == PROP_EINVAL)
        lsys_error(L,
                   "sys:claims: \"%s\" is not a path, package:, service:, user:, group:, "
                   "port: or a word",
                   thing);
    if (rc != PROP_OK)
        lsys_error(L, "sys:claims: out of memory");
    ms.cap = ms.n;
    ms.n = 0;
    ms.v = ms.cap ? lua_newuserdatauv(L, ms.cap * sizeof *ms.v, 0) : NULL;
    if (ms.cap && prop_host_find_claims(s->site, s->declared, thing, take, &ms) != PROP_OK)
        lsys_error(L, "sys:claims: out of memory");
    if (ms.n > ms.cap)
        ms.n = ms.cap;
    lua_createtable(L, (int)ms.n, 0);
    for (i = 0; i < ms.n; i++) {
        push_match(L, &ms.v[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}
