/*
 * lsys.c - the `sys` handle (see lsys.h and lua/README.md): its userdata
 * and metatable, the notes and warnings it keeps for the running
 * property, sys:note and sys.facts.  Each method checks its arguments,
 * calls one transport function and converts the result; in a dry run (and
 * under --diff) the transport is prop_transport_dry(), whose notes about
 * the files it would change, or changed, lsys_dry_note keeps.  The file
 * methods are in lsys_file.c, sys:run and sys:query in lsys_cmd.c, sys:tcp
 * and sys:http in lsys_net.c.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "buf.h"
#include "lprop.h"
#include "lsys.h"
#include "lsys_methods.h"

typedef struct {
    lsys *s;
} sys_ud;

/*
 * Raise an error from a sys method.  Called from the site's own code, the
 * message starts with the caller's "file:line: "; called from prop's
 * recipes ("=prop/..." chunks), it does not: the place inside a recipe
 * means nothing to the user, whose property's line is reported anyway.
 */
int
lsys_error(lua_State *L, const char *fmt, ...)
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

lsys *
lsys_check_self(lua_State *L)
{
    sys_ud *u = luaL_checkudata(L, 1, LSYS_TYPE);

    if (u->s == NULL)
        lsys_error(L, "sys used after its host's run ended");
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
void
lsys_add_line(lsys *s, char **buf, size_t *len, size_t *cap, const char *text, size_t n)
{
    prop_buf b = {*buf, *len, *cap};

    /* Room for the text and its newline first: all of it or nothing. */
    if (prop_buf_reserve(&b, n + 1) != 0) {
        s->notes_oom = 1;
        return;
    }
    (void)prop_buf_add(&b, text, n);
    if (n == 0 || text[n - 1] != '\n')
        (void)prop_buf_add(&b, "\n", 1);
    *buf = b.p;
    *len = b.len;
    *cap = b.cap;
}

void
lsys_note(lsys *s, const char *text, size_t len)
{
    lsys_add_line(s, &s->notes, &s->notes_len, &s->notes_cap, text, len);
}

void
lsys_dry_note(void *ud, prop_dry_note_kind kind, const char *text, size_t len)
{
    lsys *s = ud;

    lsys_note(s, text, len);
    if (kind == PROP_DRY_NOTE_DIFF && s->keep_diffs)
        lsys_add_line(s, &s->diffs, &s->diffs_len, &s->diffs_cap, text, len);
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

static int
sys_note(lua_State *L)
{
    lsys *s = lsys_check_self(L);
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
    lsys_check_self(L);
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

    return lsys_error(L, "sys.%s cannot be set: keep values in sys.cache (sys.facts is read-only)",
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
    {"run", lsys_cmd_run},
    {"query", lsys_cmd_query},
    {"read", lsys_file_read},
    {"write", lsys_file_write},
    {"has_content", lsys_file_has_content},
    {"stat", lsys_file_stat},
    {"exists", lsys_file_exists},
    {"remove", lsys_file_remove},
    {"mkdir", lsys_file_mkdir},
    {"symlink", lsys_file_symlink},
    {"chattr", lsys_file_chattr},
    {"note", sys_note},
    {"claims", lsys_claims},
    {"tcp", lsys_net_tcp},
    {"http", lsys_net_http},
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
