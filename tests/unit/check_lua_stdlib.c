/*
 * check_lua_stdlib.c - the counted library functions (lprop_stdlib.c)
 * against Lua's own: table.insert, remove, concat, move, sort, unpack,
 * string.rep and byte, utf8.len, offset and codepoint give the same
 * results, leave tables in the same state and raise the same errors, for
 * fixed and random arguments; and the meter: a walk is charged as it
 * goes, an argument error costs nothing, a huge range is stopped.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "lprop.h"

static long long metered;
static long long meter_limit;

static void
test_charge(lua_State *L, long long steps)
{
    metered += steps;
    if (metered > meter_limit)
        luaL_error(L, "meter: limit reached");
}

static const lprop_meter counting_meter = {test_charge};

/* Lua's libraries, copies of the originals in O.string, O.table and
 * O.utf8, then the counted functions in the globals. */
static lua_State *
new_state(void)
{
    lua_State *L = luaL_newstate();

    ck_assert_ptr_nonnull(L);
    luaL_openlibs(L);
    if (luaL_dostring(L, "O = {}\n"
                         "for _, lib in ipairs({'string', 'table', 'utf8'}) do\n"
                         "  O[lib] = {}\n"
                         "  for k, v in pairs(_G[lib]) do O[lib][k] = v end\n"
                         "end\n") != LUA_OK)
        ck_abort_msg("%s", lua_tostring(L, -1));
    lprop_stdlib_count(L, &counting_meter);
    metered = 0;
    meter_limit = 1LL << 62;
    return L;
}

static void
run_lua(lua_State *L, const char *code)
{
    if (luaL_dostring(L, code) != LUA_OK)
        ck_abort_msg("%s", lua_tostring(L, -1));
}

/*
 * outcome(f, ...): the results or the error of a protected call, as a
 * string (function names in argument errors left out: Lua finds them by
 * where the function is stored).  dump(t): a table's contents.
 * same(what, f, g, ...) compares f and g called with the same arguments.
 */
static const char *const helpers =
    "function show(...)\n"
    "  local t = table.pack(...)\n"
    "  for i = 1, t.n do\n"
    "    local v = t[i]\n"
    "    t[i] = type(v) == 'table' and 'table' or (math.type(v) or type(v)) .. ':' .. "
    "tostring(v)\n"
    "  end\n"
    "  return table.concat(t, ',', 1, t.n)\n"
    "end\n"
    "function outcome(f, ...)\n"
    "  local r = table.pack(pcall(f, ...))\n"
    "  if not r[1] then\n"
    "    return 'error ' .. tostring(r[2]):gsub(\"to '[^']*'\", \"to 'F'\")\n"
    "  end\n"
    "  return 'ok ' .. show(table.unpack(r, 2, r.n))\n"
    "end\n"
    "function dump(t)\n"
    "  local keys = {}\n"
    "  for k, v in pairs(t) do keys[#keys + 1] = show(k) .. '=' .. show(v) end\n"
    "  table.sort(keys)\n"
    "  return '{' .. table.concat(keys, ' ') .. '}'\n"
    "end\n"
    "function same(what, a, b)\n"
    "  if a ~= b then error(what .. '\\n  lua:  ' .. a .. '\\n  prop: ' .. b, 0) end\n"
    "end\n";

/* The error cases a site may catch with pcall stay catchable errors,
 * with Lua's messages, and cost nothing. */
START_TEST(test_argument_errors)
{
    lua_State *L = new_state();

    run_lua(L, helpers);
    metered = 0;
    meter_limit = 1000000; /* a charge for a range never walked would pass it */
    run_lua(L, "local function try(lib, name, ...)\n"
               "  same(lib .. '.' .. name .. ' ' .. show(...), outcome(O[lib][name], ...),\n"
               "       outcome(_G[lib][name], ...))\n"
               "end\n"
               "local big = setmetatable({}, {__len = function() return math.maxinteger end})\n"
               "try('table', 'insert', {}, math.mininteger, 1)\n"
               "try('table', 'insert', {1, 2}, 4, 1)\n"
               "try('table', 'insert', {1, 2}, 0, 1)\n"
               "try('table', 'insert', {}, 1, 2, 3)\n"
               "try('table', 'insert', {})\n"
               "try('table', 'insert', nil, 1)\n"
               "try('table', 'insert', {}, 'x', 1)\n"
               "try('table', 'insert', {}, 1.5, 1)\n"
               "try('table', 'insert', {}, 1, nil)\n"
               "try('table', 'remove', {1, 2, 3}, -1e15)\n"
               "try('table', 'remove', {1, 2, 3}, 5)\n"
               "try('table', 'remove', 'x')\n"
               "try('table', 'remove', {}, 0)\n"
               "try('table', 'remove', {}, -1)\n"
               "try('table', 'remove', {1}, 'x')\n"
               "try('table', 'concat', {}, '', 1, 1e15)\n"
               "try('table', 'concat', {1, {}, 3})\n"
               "try('table', 'concat', {1}, {})\n"
               "try('table', 'concat', nil)\n"
               "try('table', 'concat', {1, 2}, ',', 'a')\n"
               "try('table', 'concat', {1, 2}, ',', 2, 1.5)\n"
               "try('table', 'move', {}, -5, math.maxinteger, 1)\n"
               "try('table', 'move', {}, 1, 2, math.maxinteger)\n"
               "try('table', 'move', {}, 1)\n"
               "try('table', 'move', {}, 1, 2, 3, 'x')\n"
               "try('table', 'move', nil, 1, 2, 3)\n"
               "try('table', 'move', {}, math.mininteger, -1, 1)\n"
               "try('table', 'sort', big)\n"
               "try('table', 'sort', {3, 'a', 1})\n"
               "try('table', 'sort', {1, 2}, 'x')\n"
               "try('table', 'unpack', {}, 1, 1e8)\n"
               "try('table', 'unpack', {}, math.mininteger, math.maxinteger)\n"
               "try('string', 'rep', 'x', -1)\n"
               "try('string', 'rep', nil, 1)\n"
               "try('string', 'rep', '', 1e15, 'x')\n"
               "try('string', 'rep', 'ab', 3, ',')\n"
               "try('string', 'rep', 'x', 1e15)\n"
               "try('string', 'rep', '', 'x')\n"
               "try('string', 'byte', 'x', 0, 2e6)\n"
               "try('utf8', 'len', 'abc', 5)\n"
               "try('utf8', 'len', nil)\n"
               "try('utf8', 'offset', 'abc', 1, 5)\n"
               "try('utf8', 'offset', '\\x80', 1, 1)\n"
               "try('utf8', 'codepoint', 'abc', 0)\n");
    ck_assert_int_lt(metered, 1000000);
    lua_close(L);
}
END_TEST

/* Random operations on two tables, one through Lua's functions and one
 * through prop's: the same outcomes and the same tables after each. */
START_TEST(test_random_against_lua)
{
    lua_State *L = new_state();

    run_lua(L, helpers);
    run_lua(
        L, "math.randomseed(20261204)\n"
           "local values = {1, 2, 'a', 'b', 2.5, false, {}, nil}\n"
           "local function value() return values[math.random(#values)] end\n"
           "local function int() return math.random(-3, 12) end\n"
           "function rebuild(t)\n"
           "  local keys, n = {}, {}\n"
           "  for k in pairs(t) do keys[#keys + 1] = k end\n"
           "  table.sort(keys, function(x, y) return tostring(x) < tostring(y) end)\n"
           "  for _, k in ipairs(keys) do n[k] = t[k] end\n"
           "  return n\n"
           "end\n"
           "for round = 1, 3000 do\n"
           "  local a, b = {}, {}\n"
           "  local n = math.random(0, 10)\n"
           "  for i = 1, n do local v = math.random(4) > 1 and math.random(9) or 'x'; a[i], b[i] = "
           "v, v end\n"
           "  for step = 1, 20 do\n"
           "    local op = math.random(7)\n"
           "    local ra, rb, what\n"
           "    if op == 1 then\n"
           "      local v = value()\n"
           "      ra, rb, what = outcome(O.table.insert, a, v), outcome(table.insert, b, v), "
           "'insert'\n"
           "    elseif op == 2 then\n"
           "      local p, v = int(), value()\n"
           "      ra, rb, what = outcome(O.table.insert, a, p, v), outcome(table.insert, b, p, v), "
           "'insert at ' .. p\n"
           "    elseif op == 3 then\n"
           "      local p = math.random(3) == 1 and nil or int()\n"
           "      ra, rb, what = outcome(O.table.remove, a, p), outcome(table.remove, b, p), "
           "'remove ' .. tostring(p)\n"
           "    elseif op == 4 then\n"
           "      local s, i, j = math.random(2) == 1 and ',' or nil, int(), math.random(3) == 1 "
           "and nil or int()\n"
           "      ra, rb, what = outcome(O.table.concat, a, s, i, j), outcome(table.concat, b, s, "
           "i, j), 'concat'\n"
           "    elseif op == 5 then\n"
           "      local f, e, t = int(), int(), int()\n"
           "      if math.random(2) == 1 then\n"
           "        ra, rb = outcome(O.table.move, a, f, e, t), outcome(table.move, b, f, e, t)\n"
           "      else\n"
           "        local x, y = {}, {}\n"
           "        ra, rb = outcome(O.table.move, a, f, e, t, x), outcome(table.move, b, f, e, "
           "t, y)\n"
           "        same('move to another table', dump(x), dump(y))\n"
           "      end\n"
           "      what = 'move ' .. f .. ' ' .. e .. ' ' .. t\n"
           "    elseif op == 6 then\n"
           "      local i, j = int(), int()\n"
           "      ra, rb, what = outcome(O.table.unpack, a, i, j), outcome(table.unpack, b, i, "
           "j), 'unpack'\n"
           "    else\n"
           "      local ok = pcall(table.sort, rebuild(a))\n"
           "      if ok then table.sort(a); O.table.sort(b) end\n"
           "      ra, rb, what = dump(a), dump(b), 'sort'\n"
           "    end\n"
           "    same(what, ra, rb)\n"
           "    same(what .. ' (the table after)', dump(a), dump(b))\n"
           "    -- with holes, #t depends on the table's history (Lua 5.4 keeps a\n"
           "    -- hint): build both again alike, so that only the step differs\n"
           "    a, b = rebuild(a), rebuild(a)\n"
           "  end\n"
           "end\n"
           "-- utf8 and string.byte over valid and invalid UTF-8\n"
           "local pieces = {'a', 'é', '€', '𝄞', '\\x80', '\\xff', '\\xe2\\x82', ' '}\n"
           "for round = 1, 20000 do\n"
           "  local s = {}\n"
           "  for i = 1, math.random(0, 6) do s[i] = pieces[math.random(#pieces)] end\n"
           "  s = table.concat(s)\n"
           "  local i, j, n = math.random(-12, 14), math.random(-12, 14), math.random(-5, 5)\n"
           "  local lax = math.random(4) == 1\n"
           "  same('len ' .. ('%q'):format(s), outcome(O.utf8.len, s, i, j, lax), "
           "outcome(utf8.len, s, i, j, lax))\n"
           "  same('len ' .. ('%q'):format(s), outcome(O.utf8.len, s), outcome(utf8.len, s))\n"
           "  same('offset ' .. ('%q'):format(s) .. n .. ' ' .. i, outcome(O.utf8.offset, s, n, "
           "i),\n"
           "       outcome(utf8.offset, s, n, i))\n"
           "  same('offset', outcome(O.utf8.offset, s, n), outcome(utf8.offset, s, n))\n"
           "  same('codepoint', outcome(O.utf8.codepoint, s, i, j, lax), outcome(utf8.codepoint, "
           "s, i, j, lax))\n"
           "  same('byte', outcome(O.string.byte, s, i, j), outcome(string.byte, s, i, j))\n"
           "end\n");
    lua_close(L);
}
END_TEST

/* A walk is charged as it goes; a huge one is stopped. */
START_TEST(test_meter)
{
    lua_State *L = new_state();

    run_lua(L, "local t = {} for i = 1, 100000 do t[i] = i end\n"
               "assert(#table.move(t, 1, 100000, 1, {}) == 100000)\n");
    ck_assert_int_ge(metered, 100000);
    ck_assert_int_le(metered, 100000 * 16 + 1024);

    /* utf8.offset a character on in a long string: a short scan. */
    metered = 0;
    run_lua(L, "local s = string.rep('é', 500000)\n"
               "local i, n = 1, 0\n"
               "while n < 1000 do i = utf8.offset(s, 2, i); n = n + 1 end\n");
    ck_assert_int_lt(metered, 10000);

    metered = 0;
    run_lua(L, "assert(utf8.len(string.rep('a', 160000)) == 160000)");
    ck_assert_int_ge(metered, 160000 / LPROP_BYTES_AN_INSTRUCTION);

    metered = 0;
    run_lua(L, "assert(select('#', table.unpack({}, 1, 5000)) == 5000)");
    ck_assert_int_ge(metered, 5000);

    meter_limit = 10000000;
    metered = 0;
    ck_assert_int_ne(luaL_dostring(L, "table.move({}, 1, math.maxinteger - 1, 1, {})"), LUA_OK);
    ck_assert_ptr_nonnull(strstr(lua_tostring(L, -1), "meter: limit reached"));
    lua_pop(L, 1);
    metered = 0;
    ck_assert_int_ne(luaL_dostring(L, "local t = setmetatable({}, {__index = table.concat})\n"
                                      "return table.concat(t, '', 1, 1e15)"),
                     LUA_OK);
    ck_assert_ptr_nonnull(strstr(lua_tostring(L, -1), "meter: limit reached"));
    lua_pop(L, 1);
    metered = 0;
    ck_assert_int_ne(luaL_dostring(L, "local t = setmetatable({}, {__len = function() return "
                                      "math.maxinteger - 5 end})\n"
                                      "table.insert(t, 1, 'x')"),
                     LUA_OK);
    lua_pop(L, 1);
    metered = 0;
    ck_assert_int_ne(luaL_dostring(L, "table.sort(setmetatable({}, {__len = function() return "
                                      "2^31 - 5 end}))"),
                     LUA_OK);
    ck_assert_ptr_nonnull(strstr(lua_tostring(L, -1), "meter: limit reached"));
    lua_pop(L, 1);

    /* string.rep of nothing is nothing, at once. */
    metered = 0;
    run_lua(L, "assert(string.rep('', 1e15) == '' and string.rep('', 1e15, '') == '')");
    ck_assert_int_eq(metered, 0);
    lua_close(L);
}
END_TEST

static Suite *
stdlib_suite(void)
{
    Suite *s = suite_create("stdlib");
    TCase *tc = tcase_create("stdlib");

    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_argument_errors);
    tcase_add_test(tc, test_random_against_lua);
    tcase_add_test(tc, test_meter);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(stdlib_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
