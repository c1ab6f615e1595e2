/*
 * check_lua_pattern.c - prop's counted pattern functions (lprop_pattern.c)
 * against Lua's own: the same results and the same errors for fixed
 * cases and for many random patterns, subjects and replacements; and the
 * meter: it sees the work, and stops a pattern that backtracks without end.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "lprop.h"

static long long metered;     /* steps the test meter was given */
static long long meter_limit; /* more than this: the meter raises */

static void
test_charge(lua_State *L, long long steps)
{
    metered += steps;
    if (metered > meter_limit)
        luaL_error(L, "meter: limit reached");
}

static const lprop_meter counting_meter = {test_charge};

/* A plain state with Lua's libraries and prop's functions in table P. */
static lua_State *
new_state(void)
{
    lua_State *L = luaL_newstate();

    ck_assert_ptr_nonnull(L);
    luaL_openlibs(L);
    lua_newtable(L);
    lprop_pattern_register(L, &counting_meter);
    lua_pushvalue(L, -1);
    lua_setglobal(L, "P");
    /* Named in argument errors as Lua names its own: "P.gsub". */
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_insert(L, -2);
    lua_setfield(L, -2, "P");
    lua_pop(L, 1);
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
 * Lua helpers: call(f, ...) packs the outcome of a protected call (ok,
 * results or message) as a string, so two outcomes compare as strings;
 * same(what, a, b) fails with both when they differ.
 */
static const char *const helpers =
    "local function show(...)\n"
    "  local t = table.pack(...)\n"
    "  for i = 1, t.n do t[i] = math.type(t[i]) or type(t[i]) .. ':' .. tostring(t[i]) end\n"
    "  return table.concat(t, ',', 1, t.n)\n"
    "end\n"
    "function outcome(f, ...)\n"
    "  local r = table.pack(pcall(f, ...))\n"
    "  -- (later 5.4 releases add ' in pattern' to one message)\n"
    "  if not r[1] then\n"
    "    return 'error ' .. tostring(r[2]):gsub(' in pattern$', ''):gsub(\"'P%.\", \"'string.\")\n"
    "  end\n"
    "  return 'ok ' .. show(table.unpack(r, 2, r.n))\n"
    "end\n"
    "function gm_outcome(gmatch, s, p, init)\n"
    "  return outcome(function()\n"
    "    local out, n = {}, 0\n"
    "    for a, b, c in gmatch(s, p, init) do\n"
    "      n = n + 1\n"
    "      out[#out + 1] = show(a, b, c)\n"
    "      if n > 100 then break end\n"
    "    end\n"
    "    return table.concat(out, ';')\n"
    "  end)\n"
    "end\n"
    "function same(what, a, b)\n"
    "  if a ~= b then\n"
    "    error(what .. '\\n  lua:  ' .. a .. '\\n  prop: ' .. b, 0)\n"
    "  end\n"
    "end\n"
    "function check(s, p, init, plain, repl, max)\n"
    "  local q = string.format('%q %q %s %s', s, p, tostring(init), tostring(plain))\n"
    "  same('find ' .. q, outcome(string.find, s, p, init, plain), outcome(P.find, s, p, init, "
    "plain))\n"
    "  same('match ' .. q, outcome(string.match, s, p, init), outcome(P.match, s, p, init))\n"
    "  same('gmatch ' .. q, gm_outcome(string.gmatch, s, p, init), gm_outcome(P.gmatch, s, p, "
    "init))\n"
    "  same('gsub ' .. q .. ' ' .. tostring(repl), outcome(string.gsub, s, p, repl, max),\n"
    "       outcome(P.gsub, s, p, repl, max))\n"
    "end\n";

START_TEST(test_fixed_cases)
{
    lua_State *L = new_state();

    run_lua(L, helpers);
    run_lua(
        L,
        "local cases = {\n"
        "  {'hello world', 'o w'}, {'hello world', 'l+'}, {'hello', '^h'}, {'hello', 'o$'},\n"
        "  {'a$b', 'a$b'}, {'  trim me  ', '^%s*(.-)%s*$'}, {'key = value', '(%w+)%s*=%s*(%w+)'},\n"
        "  {'THE (quick) fox', '%b()'}, {'THE (quick) fox', '%f[%a]%a+'},\n"
        "  {'hello', '()ll()'}, {'abcabc', '(abc)%1'}, {'x', '%1'}, {'x', '(x'},\n"
        "  {'x', 'x)'}, {'x', '[a'}, {'x', '%'}, {'x', '%b'}, {'x', '%bx'}, {'x', '%f'},\n"
        "  {'x', '%fx'}, {'x', '%0'}, {'', ''}, {'', '.-'}, {'abc', ''}, {'abc', '.-'},\n"
        "  {'a]b', '[]]'}, {'a^b', '[%^]'}, {'a-b', '[a-]'}, {'a-b', '[^-]+'},\n"
        "  {'\\0a\\0', '%z'}, {'a\\0b', 'a\\0b'}, {'a\\0b', '[\\0]'}, {'aaa', 'a-b'},\n"
        "  {'one two three', '%a+'}, {'x=1, y=2', '(%w+)=(%w+)'}, {'abc', '((a)(b))'},\n"
        "  {'abc', '%w?%w?'}, {'abc', 'a?b?c?d?'}, {'[[x]]', '%[%[(.-)%]%]'},\n"
        "  {'$1.50', '%$%d+%.%d+'}, {'ab', '(()a)'}, {'ABC', '%u+'}, {'abc', '%U'},\n"
        "}\n"
        "for _, c in ipairs(cases) do\n"
        "  for _, init in ipairs({1, 2, -1, -100, 0, 3, 20}) do\n"
        "    for _, repl in ipairs({'<%0>', '%1', '%2-%1', '%%', 'x%', '%9', 7,\n"
        "                           {hello = 'HI', a = false, l = 'L'},\n"
        "                           function(a, b) return b or a end,\n"
        "                           function() return {} end}) do\n"
        "      check(c[1], c[2], init, nil, repl, nil)\n"
        "      check(c[1], c[2], init, true, repl, 1)\n"
        "    end\n"
        "  end\n"
        "end\n"
        "-- a bad argument and a bad replacement type give Lua's messages\n"
        "same('gsub repl', outcome(string.gsub, 'x', 'x', true), outcome(P.gsub, 'x', 'x', "
        "true))\n"
        "same('find nil', outcome(string.find, nil, 'x'), outcome(P.find, nil, 'x'))\n"
        "same('numbers', outcome(string.gsub, 12345, 3, 9), outcome(P.gsub, 12345, 3, 9))\n");
    lua_close(L);
}
END_TEST

/* Random patterns from pieces that cover every item, against random
 * subjects; a quantifier or a bracket may land anywhere, so malformed
 * patterns are among them. */
START_TEST(test_random_against_lua)
{
    lua_State *L = new_state();

    run_lua(L, helpers);
    run_lua(L, "math.randomseed(20261204)\n"
               "local pieces = {'a', 'b', '.', '%a', '%d', '%s', '%w', '%S', '%p', '[ab]',\n"
               "  '[^a]', '[a-c]', '[%d%s]', '[]a]', '*', '+', '-', '?', '(', ')', '()',\n"
               "  '%1', '%2', '%b()', '%bab', '%f[%w]', '%f[^a]', '^', '$', '%', '[', ']',\n"
               "  ' ', '1', '%.', '%%', 'x'}\n"
               "local chars = {'a', 'b', '(', ')', ' ', '1', 'x', '.', '%', 'A'}\n"
               "local repls = {'%0', '[%1]', '%2%1', '-', '%%', '%x'}\n"
               "for i = 1, 40000 do\n"
               "  local p = {}\n"
               "  for j = 1, math.random(1, 8) do p[j] = pieces[math.random(#pieces)] end\n"
               "  local s = {}\n"
               "  for j = 1, math.random(0, 14) do s[j] = chars[math.random(#chars)] end\n"
               "  local init = math.random(-3, 16)\n"
               "  if init == 16 then init = nil end\n"
               "  local max = math.random(0, 4)\n"
               "  if max == 4 then max = nil end\n"
               "  check(table.concat(s), table.concat(p), init, math.random(4) == 1,\n"
               "        repls[math.random(#repls)], max)\n"
               "end\n");
    lua_close(L);
}
END_TEST

/* The meter sees each call's work, and stops a runaway match. */
START_TEST(test_meter)
{
    lua_State *L = new_state();
    long long small;

    run_lua(L, "assert(P.find('hello world', 'o%sw') == 5)");
    ck_assert_int_gt(metered, 0);
    small = metered;
    ck_assert_int_lt(small, 1000);

    /* A plain find is charged for the text it searched. */
    metered = 0;
    run_lua(L, "assert(P.find(string.rep('a', 100000), 'b', 1, true) == nil)");
    ck_assert_int_ge(metered, 100000 / LPROP_BYTES_AN_INSTRUCTION);

    /* n^4 ways to split: stopped by the meter, not after hours. */
    metered = 0;
    meter_limit = 10000000;
    ck_assert_int_ne(luaL_dostring(L, "return P.find(string.rep('a', 100000), '.-.-.-.-x')"),
                     LUA_OK);
    ck_assert_ptr_nonnull(strstr(lua_tostring(L, -1), "meter: limit reached"));
    lua_pop(L, 1);
    ck_assert_int_gt(metered, meter_limit);
    ck_assert_int_lt(metered, meter_limit + 2 * 4096 + 100000);

    /* The same for gsub, gmatch and match. */
    metered = 0;
    ck_assert_int_ne(luaL_dostring(L, "return P.gsub(string.rep(' ', 100000) .. 'x', '%s+$', '')"),
                     LUA_OK);
    lua_pop(L, 1);
    metered = 0;
    ck_assert_int_ne(luaL_dostring(L, "for _ in P.gmatch(string.rep('a', 100000), 'a*b') do end"),
                     LUA_OK);
    lua_pop(L, 1);
    metered = 0;
    ck_assert_int_ne(luaL_dostring(L, "return P.match(string.rep('a', 100000), '(a-)(a-)%2b')"),
                     LUA_OK);
    lua_pop(L, 1);

    /* After a stop the functions work as before. */
    metered = 0;
    meter_limit = 1LL << 62;
    run_lua(L, "assert(P.gsub('a.b.c', '%.', '/') == 'a/b/c')");
    ck_assert_int_gt(metered, 0);
    lua_close(L);
}
END_TEST

/* Deep recursion is refused, as Lua refuses it. */
START_TEST(test_too_complex)
{
    lua_State *L = new_state();

    run_lua(L, helpers);
    run_lua(L, "local p = string.rep('a?', 300)\n"
               "local s = string.rep('a', 300)\n"
               "same('deep', outcome(string.find, s, p), outcome(P.find, s, p))\n"
               "assert(outcome(P.find, s, p):find('pattern too complex'))\n"
               "local caps = string.rep('(a)', 33)\n"
               "same('captures', outcome(string.find, s, caps), outcome(P.find, s, caps))\n");
    lua_close(L);
}
END_TEST

static Suite *
pattern_suite(void)
{
    Suite *s = suite_create("pattern");
    TCase *tc = tcase_create("pattern");

    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_fixed_cases);
    tcase_add_test(tc, test_random_against_lua);
    tcase_add_test(tc, test_meter);
    tcase_add_test(tc, test_too_complex);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(pattern_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
