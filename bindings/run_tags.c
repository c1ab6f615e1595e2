/*
 * run_tags.c - prop run --tags and --skip-tags: which properties of a
 * host run.  The properties selected are marked in a registry table
 * (SELECTED_KEY) by a walk of the host's tree, in Lua's memory; the
 * executor asks run_selected of each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "run.h"

#define SELECTED_KEY "prop.selected"

static int
tag_in(const char *tag, const char *const *list, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (strcmp(tag, list[i]) == 0)
            return 1;
    return 0;
}

/*
 * Mark in the table at sel every node of n's tree that runs under --tags
 * and --skip-tags: a leaf when one of its tags or its composites' is
 * asked for (or none is asked for) and none is left out; a composite
 * when a part of it runs.  tags: the registry's table of tags by node.
 */
static int
mark_selected(lua_State *L, const run_opts *o, int tags, int sel, const prop_node *n, int want,
              int skip, unsigned depth)
{
    size_t i, nc = prop_node_nchildren(n);
    int any = 0;

    if (depth > 200)
        return 1; /* deeper than any site writes: runs */
    if (tags) {
        lua_pushlightuserdata(L, (void *)n);
        if (lua_rawget(L, tags) == LUA_TTABLE) {
            lua_Integer k, len = (lua_Integer)lua_rawlen(L, -1);

            for (k = 1; k <= len; k++) {
                const char *t;

                lua_rawgeti(L, -1, k);
                t = lua_tostring(L, -1);
                if (t && tag_in(t, o->tags, o->ntags))
                    want = 1;
                if (t && tag_in(t, o->skip_tags, o->nskip))
                    skip = 1;
                lua_pop(L, 1);
            }
        }
        lua_pop(L, 1);
    }
    if (skip)
        return 0;
    if (prop_node_kind(n) == PROP_REVERT) {
        const prop_node *rev = prop_node_reverted(n);

        any = rev ? mark_selected(L, o, tags, sel, rev, want, skip, depth + 1) : 0;
    } else if (nc == 0) {
        any = o->ntags == 0 || want;
    } else {
        for (i = 0; i < nc; i++)
            any |= mark_selected(L, o, tags, sel, prop_node_child(n, i), want, skip, depth + 1);
    }
    if (any) {
        lua_pushlightuserdata(L, (void *)n);
        lua_pushboolean(L, 1);
        lua_rawset(L, sel);
    }
    return any;
}

/* The nodes of h's properties that run: the registry's SELECTED_KEY.
 * In a protected call (lua_pcall): it allocates. */
static int
select_for_host_p(lua_State *L)
{
    const run_opts *o = lua_touserdata(L, 1);
    const prop_host *h = lua_touserdata(L, 2);
    size_t i, n = prop_host_nprops(h);
    int tags = 0, sel;

    lua_newtable(L);
    sel = lua_gettop(L);
    if (lua_getfield(L, LUA_REGISTRYINDEX, LPROP_TAGS) == LUA_TTABLE)
        tags = lua_gettop(L);
    for (i = 0; i < n; i++)
        mark_selected(L, o, tags, sel, prop_host_prop(h, i), 0, 0, 0);
    lua_settop(L, sel);
    lua_setfield(L, LUA_REGISTRYINDEX, SELECTED_KEY);
    return 0;
}

/* 0, or -1 when it could not be done (out of memory): nothing may run. */
int
run_select_for_host(lua_State *L, const run_opts *o, const prop_host *h)
{
    int top = lua_gettop(L), rc;

    lua_pushcfunction(L, select_for_host_p);
    lua_pushlightuserdata(L, (void *)o);
    lua_pushlightuserdata(L, (void *)h);
    rc = lua_pcall(L, 2, 0, 0);
    lua_settop(L, top);
    return rc == LUA_OK ? 0 : -1;
}

int
run_selected(lua_State *L, const prop_node *n)
{
    int yes;

    if (lua_getfield(L, LUA_REGISTRYINDEX, SELECTED_KEY) != LUA_TTABLE) {
        lua_pop(L, 1);
        return 1;
    }
    lua_pushlightuserdata(L, (void *)n);
    yes = lua_rawget(L, -2) != LUA_TNIL;
    lua_pop(L, 2);
    return yes;
}

/* A tag asked for that no property has: a warning naming the site's tags. */
static int
warn_unknown_tags_p(lua_State *L)
{
    const char *const *list = lua_touserdata(L, 1);
    size_t i, n = (size_t)lua_tointeger(L, 2);
    const char *opt = lua_touserdata(L, 3);

    lua_getfield(L, LUA_REGISTRYINDEX, LPROP_ALL_TAGS);
    for (i = 0; i < n; i++) {
        int known = 0;

        if (lua_istable(L, -1)) {
            lua_getfield(L, -1, list[i]);
            known = lua_toboolean(L, -1);
            lua_pop(L, 1);
        }
        if (known)
            continue;
        fprintf(stderr, "prop run: warning: %s %s: no property of the site has that tag", opt,
                list[i]);
        if (lua_istable(L, -1)) {
            const char **names = NULL;
            size_t k = 0, cap = 0;

            lua_pushnil(L);
            while (lua_next(L, -2)) {
                lua_pop(L, 1);
                if (lua_type(L, -1) == LUA_TSTRING && k == cap) {
                    const char **nn = realloc(names, (cap = cap ? 2 * cap : 16) * sizeof *nn);
                    if (!nn)
                        break;
                    names = nn;
                }
                if (lua_type(L, -1) == LUA_TSTRING && k < cap)
                    names[k++] = lua_tostring(L, -1);
            }
            if (k) {
                size_t a, b;

                for (a = 1; a < k; a++)
                    for (b = a; b > 0 && strcmp(names[b - 1], names[b]) > 0; b--) {
                        const char *x = names[b];
                        names[b] = names[b - 1];
                        names[b - 1] = x;
                    }
                fputs(" (its tags:", stderr);
                for (a = 0; a < k; a++)
                    fprintf(stderr, " %s", names[a]);
                fputc(')', stderr);
            }
            free(names);
        } else {
            fputs(" (it has none)", stderr);
        }
        fputc('\n', stderr);
    }
    lua_pop(L, 1);
    return 0;
}

/* In a protected call: it allocates (out of memory, no warning). */
void
run_warn_unknown_tags(lua_State *L, const char *const *list, size_t n, const char *opt)
{
    int top = lua_gettop(L);

    if (n == 0)
        return;
    lua_pushcfunction(L, warn_unknown_tags_p);
    lua_pushlightuserdata(L, (void *)list);
    lua_pushinteger(L, (lua_Integer)n);
    lua_pushlightuserdata(L, (void *)opt);
    if (lua_pcall(L, 3, 0, 0) != LUA_OK)
        fprintf(stderr, "prop run: out of memory checking the tags asked for\n");
    lua_settop(L, top);
}
