/*
 * lprop_state.c - the context of a state, and the helpers every part of
 * the bindings uses: the place of user code on the call stack, raising an
 * error with it, and making Lua values while C holds malloc'd memory
 * (lprop_cpcall, lprop_push_and_free, lprop_each_leaf).
 */
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <lauxlib.h>

#include "lprop_state.h"

lprop_ctx *
lprop_getctx(lua_State *L)
{
    return *(lprop_ctx **)lua_getextraspace(L);
}

void
lprop_origin(lua_State *L, prop_origin *o, prop_frame *buf, unsigned nbuf)
{
    lua_Debug ar;
    int level;

    o->frames = buf;
    o->nframes = 0;
    for (level = 1; o->nframes < nbuf && lua_getstack(L, level, &ar); level++) {
        /* The current line costs a walk of the function's line table:
         * ask for it only for the user's own frames. */
        if (!lua_getinfo(L, "S", &ar))
            break;
        if (ar.source[0] != '@' || !lua_getinfo(L, "l", &ar) || ar.currentline <= 0)
            continue;
        buf[o->nframes].file = ar.source + 1;
        buf[o->nframes].line = ar.currentline;
        o->nframes++;
    }
}

int
lprop_error(lua_State *L, const char *fmt, ...)
{
    prop_frame buf[1];
    prop_origin o;
    va_list ap;

    lprop_origin(L, &o, buf, 1);
    if (o.nframes > 0)
        lua_pushfstring(L, "%s:%d: ", buf[0].file, buf[0].line);
    else
        lua_pushliteral(L, "");
    va_start(ap, fmt);
    lua_pushvfstring(L, fmt, ap);
    va_end(ap);
    lua_concat(L, 2);
    lua_error(L);
    abort(); /* not reached: lua_error does not return */
}

int
lprop_engine_error(lua_State *L, int rc)
{
    lprop_ctx *ctx = lprop_getctx(L);

    if (rc == PROP_ENOMEM)
        lprop_error(L, "memory limit of %d MiB exceeded; raise it with --max-memory",
                    (int)(ctx->limits.max_memory >> 20));
    lprop_error(L, "%s", prop_site_error(ctx->site));
}

int
lprop_cpcall(lua_State *L, lua_CFunction fn, void *ud)
{
    lua_pushcfunction(L, fn);
    lua_pushlightuserdata(L, ud);
    return lua_pcall(L, 1, 1, 0);
}

int
lprop_push_bytes(lua_State *L)
{
    const lprop_bytes *b = lua_touserdata(L, 1);

    lua_pushlstring(L, b->len ? b->p : "", b->len);
    return 1;
}

int
lprop_push_and_free(lua_State *L, char *p, size_t len)
{
    lprop_bytes b = {p, len};
    int status = lprop_cpcall(L, lprop_push_bytes, &b);

    free(p);
    if (status != LUA_OK)
        return lua_error(L);
    return 1;
}

typedef struct leaf_list {
    const prop_node **v;
    size_t n, cap;
} leaf_list;

static int
gather_leaf(void *ud, const prop_node *leaf)
{
    leaf_list *l = ud;

    if (l->n == l->cap)
        return 1; /* more visits than the weight said: cannot happen */
    l->v[l->n++] = leaf;
    return 0;
}

void
lprop_each_leaf(lua_State *L, const prop_node *n, prop_os_set os, prop_leaf_visit visit, void *ud)
{
    size_t w = prop_node_weight(n), i;
    leaf_list l;
    int rc;

    if (w >= UINT_MAX || w >= SIZE_MAX / sizeof *l.v)
        lprop_error(L,
                    "\"%s\" has too many leaves to list (the same properties nested in it "
                    "again and again)",
                    prop_node_desc(n));
    l.v = lua_newuserdatauv(L, (w ? w : 1) * sizeof *l.v, 0);
    l.n = 0;
    l.cap = w;
    lua_insert(L, -2);
    rc = prop_node_each_leaf(n, os, gather_leaf, &l);
    if (rc == PROP_ENOMEM)
        lprop_error(L, "out of memory walking %s", prop_node_desc(n));
    for (i = 0; i < l.n; i++)
        if (visit(ud, l.v[i]) != 0)
            break;
    lua_remove(L, -2);
}

int
lprop_print(lua_State *L, FILE *f)
{
    int i, n = lua_gettop(L);

    for (i = 1; i <= n; i++) {
        size_t len;
        const char *s = luaL_tolstring(L, i, &len);
        if (i > 1)
            fputc('\t', f);
        prop_text_write(f, s, len, PROP_TEXT_LINES); /* shown, never obeyed */
        lua_pop(L, 1);
    }
    fputc('\n', f);
    fflush(f);
    return 0;
}
