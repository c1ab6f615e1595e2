/*
 * lprop_stdlib.c - the functions of Lua's string, table and utf8 libraries
 * whose work in C is not bounded by what they allocate, charged to a meter.
 *
 * table.move({}, 1, math.maxinteger - 1, 1, {}) walks 2^63 absent keys in
 * C, allocating nothing: neither the count hook nor the memory limit sees
 * it.  So:
 *   - table.insert, remove, concat and move are prop's own, with Lua
 *     5.4's behaviour and messages, and charge each element as they walk: an argument error raised
 * before the walk costs nothing, and an error in the middle (a nil in concat) costs what was
 * walked;
 *   - table.sort is Lua's, charged n log n for n elements beforehand;
 *   - table.unpack, string.byte and utf8.codepoint are Lua's, charged one
 *     step a value they return (up to a million each);
 *   - utf8.len and utf8.offset are Lua's, charged for the bytes they
 *     scanned, one step every LPROP_BYTES_AN_INSTRUCTION;
 *   - string.rep of empty strings returns "" at once (Lua's loops n times).
 * Each replaced function keeps Lua's as upvalue 1 and the meter as upvalue
 * 2.  Only tables are walked here: anything else goes to Lua's function,
 * which raises its error.
 */
#include <limits.h>

#include <lauxlib.h>
#include <lualib.h>

#include "lprop.h"

#define CHARGE_EVERY 1024 /* elements walked between two calls of the meter */

static void
charge(lua_State *L, long long steps)
{
    const lprop_meter *meter = lua_touserdata(L, lua_upvalueindex(2));

    if (meter != NULL && steps > 0)
        meter->charge(L, steps);
}

/*
 * Steps of one walk, given to the meter every CHARGE_EVERY.  An element
 * costs ELEMENT_STEPS (a read and a write through the C API take about
 * as long as that many VM instructions); in a table with a metatable,
 * whose __index or __newindex may be a C function (table.concat itself,
 * say) that no hook counts, METAMETHOD_STEPS.
 */
#define ELEMENT_STEPS 4
#define METAMETHOD_STEPS 16

typedef struct walk {
    lua_State *L;
    long long n;
    int each;
} walk;

static walk
walk_start(lua_State *L, int t1, int t2)
{
    walk w = {L, 0, ELEMENT_STEPS};

    if (lua_getmetatable(L, t1)) {
        lua_pop(L, 1);
        w.each = METAMETHOD_STEPS;
    } else if (t2 != t1 && lua_getmetatable(L, t2)) {
        lua_pop(L, 1);
        w.each = METAMETHOD_STEPS;
    }
    return w;
}

static void
walk_step(walk *w)
{
    w->n += w->each;
    if (w->n >= CHARGE_EVERY) {
        charge(w->L, w->n);
        w->n = 0;
    }
}

static void
walk_end(walk *w)
{
    charge(w->L, w->n);
    w->n = 0;
}

/* Lua's own function, called in this frame, so that its argument errors
 * name the function as before. */
static int
call_original(lua_State *L)
{
    return lua_tocfunction(L, lua_upvalueindex(1))(L);
}

/* table.insert(list, [pos,] value) */
static int
l_insert(lua_State *L)
{
    walk w;
    lua_Integer end, pos, i;

    if (!lua_istable(L, 1))
        return call_original(L);
    w = walk_start(L, 1, 1);
    end = (lua_Integer)((lua_Unsigned)luaL_len(L, 1) + 1u); /* first free place */
    switch (lua_gettop(L)) {
    case 2:
        pos = end;
        break;
    case 3:
        pos = luaL_checkinteger(L, 2);
        luaL_argcheck(L, (lua_Unsigned)pos - 1u < (lua_Unsigned)end, 2, "position out of bounds");
        for (i = end; i > pos; i--) {
            walk_step(&w);
            lua_geti(L, 1, i - 1);
            lua_seti(L, 1, i);
        }
        walk_end(&w);
        break;
    default:
        return luaL_error(L, "wrong number of arguments to 'insert'");
    }
    lua_seti(L, 1, pos); /* the value, on top */
    return 0;
}

/* table.remove(list [, pos]) */
static int
l_remove(lua_State *L)
{
    walk w;
    lua_Integer size, pos;

    if (!lua_istable(L, 1))
        return call_original(L);
    w = walk_start(L, 1, 1);
    size = luaL_len(L, 1);
    pos = luaL_optinteger(L, 2, size);
    if (pos != size) /* a pos given must be in [1, size + 1] */
        luaL_argcheck(L, (lua_Unsigned)pos - 1u <= (lua_Unsigned)size, 1, /* as Lua 5.4.4 */
                      "position out of bounds");
    lua_geti(L, 1, pos); /* the result */
    for (; pos < size; pos++) {
        walk_step(&w);
        lua_geti(L, 1, pos + 1);
        lua_seti(L, 1, pos);
    }
    walk_end(&w);
    lua_pushnil(L);
    lua_seti(L, 1, pos);
    return 1;
}

static void
concat_field(lua_State *L, luaL_Buffer *b, lua_Integer i)
{
    lua_geti(L, 1, i);
    if (!lua_isstring(L, -1))
        luaL_error(L, "invalid value (%s) at index %I in table for 'concat'", luaL_typename(L, -1),
                   (LUAI_UACINT)i);
    luaL_addvalue(b);
}

/* table.concat(list [, sep [, i [, j]]]) */
static int
l_concat(lua_State *L)
{
    walk w;
    luaL_Buffer b;
    lua_Integer i, last;
    const char *sep;
    size_t lsep;

    if (!lua_istable(L, 1))
        return call_original(L);
    w = walk_start(L, 1, 1);
    last = luaL_len(L, 1);
    sep = luaL_optlstring(L, 2, "", &lsep);
    i = luaL_optinteger(L, 3, 1);
    last = luaL_optinteger(L, 4, last);
    luaL_buffinit(L, &b);
    for (; i < last; i++) {
        walk_step(&w);
        concat_field(L, &b, i);
        luaL_addlstring(&b, sep, lsep);
    }
    if (i == last) /* the range was not empty */
        concat_field(L, &b, i);
    walk_end(&w);
    luaL_pushresult(&b);
    return 1;
}

/* table.move(a1, f, e, t [, a2]) */
static int
l_move(lua_State *L)
{
    walk w;
    lua_Integer f = luaL_checkinteger(L, 2), e = luaL_checkinteger(L, 3);
    lua_Integer t = luaL_checkinteger(L, 4), n, i;
    int to = lua_isnoneornil(L, 5) ? 1 : 5;

    if (!lua_istable(L, 1) || !lua_istable(L, to))
        return call_original(L);
    w = walk_start(L, 1, to);
    if (e >= f) {
        luaL_argcheck(L, f > 0 || e < LUA_MAXINTEGER + f, 3, "too many elements to move");
        n = e - f + 1;
        luaL_argcheck(L, t <= LUA_MAXINTEGER - n + 1, 4, "destination wrap around");
        /* Front to back unless the ranges overlap with the destination
         * after the source, in the same table. */
        if (t > e || t <= f || (to != 1 && !lua_compare(L, 1, to, LUA_OPEQ))) {
            for (i = 0; i < n; i++) {
                walk_step(&w);
                lua_geti(L, 1, f + i);
                lua_seti(L, to, t + i);
            }
        } else {
            for (i = n - 1; i >= 0; i--) {
                walk_step(&w);
                lua_geti(L, 1, f + i);
                lua_seti(L, to, t + i);
            }
        }
        walk_end(&w);
    }
    lua_pushvalue(L, to);
    return 1;
}

/* table.sort(list [, comp]): Lua's, charged n log n first when it will
 * sort (1 < n < INT_MAX).  A __len of the list is called twice.  (The
 * site's comp is counted as it runs; this is the sort's own work.) */
static int
l_sort(lua_State *L)
{
    lua_Integer n;
    long long cost;

    if (!lua_istable(L, 1))
        return call_original(L);
    n = luaL_len(L, 1);
    if (n > 1 && n < INT_MAX) {
        cost = n;
        for (lua_Integer m = n; m > 1; m >>= 1)
            cost += n;
        charge(L, cost);
    }
    return call_original(L);
}

/* table.unpack, string.byte, utf8.codepoint: a step a value returned. */
static int
l_per_result(lua_State *L)
{
    int n = call_original(L);

    charge(L, n);
    return n;
}

/* A byte position of utf8's functions: negative counts from the end. */
static lua_Integer
utf8_pos(lua_Integer pos, size_t len)
{
    if (pos >= 0)
        return pos;
    if (0u - (lua_Unsigned)pos > len)
        return 0;
    return (lua_Integer)len + pos + 1;
}

static void
charge_bytes(lua_State *L, lua_Unsigned n)
{
    charge(L, (long long)(n / LPROP_BYTES_AN_INSTRUCTION));
}

/* utf8.len(s [, i [, j [, lax]]]): the bytes from i to j. */
static int
l_utf8_len(lua_State *L)
{
    size_t len;
    lua_Integer i, j;
    int r;

    if (lua_type(L, 1) != LUA_TSTRING)
        return call_original(L);
    lua_tolstring(L, 1, &len);
    i = utf8_pos(luaL_optinteger(L, 2, 1), len);
    j = utf8_pos(luaL_optinteger(L, 3, -1), len);
    r = call_original(L);
    if (j >= i)
        charge_bytes(L, (lua_Unsigned)(j - i) + 1u);
    return r;
}

/* utf8.offset(s, n [, i]): the bytes between i and the answer. */
static int
l_utf8_offset(lua_State *L)
{
    size_t len;
    lua_Integer n, i, at;
    int r;

    if (lua_type(L, 1) != LUA_TSTRING)
        return call_original(L);
    lua_tolstring(L, 1, &len);
    n = luaL_checkinteger(L, 2);
    i = utf8_pos(luaL_optinteger(L, 3, n >= 0 ? 1 : (lua_Integer)len + 1), len);
    r = call_original(L);
    if (r >= 1 && lua_isinteger(L, -r)) {
        at = lua_tointeger(L, -r);
        charge_bytes(L, at >= i ? (lua_Unsigned)(at - i) : (lua_Unsigned)(i - at));
    } else {
        charge_bytes(L, len); /* not found: scanned to an end */
    }
    return r;
}

/* string.rep(s, n [, sep]) */
static int
l_rep(lua_State *L)
{
    size_t l, lsep;

    luaL_checklstring(L, 1, &l);
    luaL_checkinteger(L, 2);
    luaL_optlstring(L, 3, "", &lsep);
    if (l == 0 && lsep == 0) {
        lua_pushliteral(L, "");
        return 1;
    }
    return call_original(L); /* any other result is allocated first */
}

/* Replace field name of the table on top of the stack by fn. */
static void
wrap(lua_State *L, const lprop_meter *meter, const char *name, lua_CFunction fn)
{
    lua_getfield(L, -1, name);
    if (lua_tocfunction(L, -1) == NULL)
        luaL_error(L, "the library has no C function %s", name);
    lua_pushlightuserdata(L, (void *)meter);
    lua_pushcclosure(L, fn, 2);
    lua_setfield(L, -2, name);
}

void
lprop_stdlib_count(lua_State *L, const lprop_meter *meter)
{
    lua_getglobal(L, LUA_STRLIBNAME);
    lprop_pattern_register(L, meter);
    wrap(L, meter, "rep", l_rep);
    wrap(L, meter, "byte", l_per_result);
    lua_getglobal(L, LUA_TABLIBNAME);
    wrap(L, meter, "insert", l_insert);
    wrap(L, meter, "remove", l_remove);
    wrap(L, meter, "concat", l_concat);
    wrap(L, meter, "move", l_move);
    wrap(L, meter, "sort", l_sort);
    wrap(L, meter, "unpack", l_per_result);
    lua_getglobal(L, LUA_UTF8LIBNAME);
    wrap(L, meter, "len", l_utf8_len);
    wrap(L, meter, "offset", l_utf8_offset);
    wrap(L, meter, "codepoint", l_per_result);
    lua_pop(L, 3);
}
