#!/usr/bin/env bash
# The limits at run time: each property's check and apply get a fresh
# budget and CPU clock.  A property that spends its CPU time in Lua fails
# and the next one still runs; one stuck inside a C function of Lua's
# library ends the run with the line of the site.  Dry runs against a
# directory tree under the scratch directory: nothing else is touched.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

cd "$TMP"
mkdir -p tree/etc
printf 'hello\n' >tree/etc/motd

cat >loop.lua <<LUA
local spin = property {
  desc = "spins in Lua",
  check = function(sys)
    local s, t = string.rep("x", 2 * 1024 * 1024), string.rep("x", 2 * 1024 * 1024)
    while true do local _ = s == t end
  end,
  apply = function(sys) end,
}
local after = property {
  desc = "runs after",
  check = function(sys)
    local n = 0
    for i = 1, 100000 do n = n + i end
    return sys:read("/etc/motd") == "hello\n" and n > 0
  end,
  apply = function(sys) end,
}
host "tree" { connect.dir "$TMP/tree", os.debian("bookworm", "amd64"), spin, after }
LUA
run_prop "$TMP/out" run --dry-run --max-cpu 1 loop.lua
if [[ "$rc" == 1 ]] && grep -Eq 'spins in Lua .*failed' "$TMP/out" &&
   grep -Fq 'loop.lua:5: evaluation used more than 1 s of CPU; raise the limit with --max-cpu' "$TMP/out" &&
   grep -Eq 'runs after .*ok' "$TMP/out"; then
  pass
else
  fail "a property out of CPU time" "exit $rc (want 1), or it did not fail alone" "$TMP/out"
fi

cat >stuck.lua <<LUA
local stuck = property {
  desc = "stuck in C",
  check = function(sys)
    return string.rep("", 1e15) == ""
  end,
  apply = function(sys) end,
}
host "tree" { connect.dir "$TMP/tree", os.debian("bookworm", "amd64"), stuck }
LUA
run_prop "$TMP/out" run --dry-run --max-cpu 1 stuck.lua
if [[ "$rc" == 2 ]] &&
   grep -Fq "stuck.lua:4: error[P000]: evaluation used more than 1 s of CPU inside a function of Lua's library" "$TMP/out"; then
  pass
else
  fail "a property stuck in C" "exit $rc (want 2), or no message with the line" "$TMP/out"
fi

# The evaluation of the site, before anything runs, has its own clock.
printf 'local s = string.rep("a", 100000)\nlocal x = s:find((".-"):rep(30) .. "x")\nhost "tree" { connect.dir "%s/tree" }\n' "$TMP" >eval.lua
run_prop "$TMP/out" run --dry-run --max-cpu 1 eval.lua
if [[ "$rc" == 2 ]] && grep -Fq "eval.lua:2: error[P000]: evaluation used more than 1 s of CPU" "$TMP/out"; then
  pass
else
  fail "prop run: the evaluation out of CPU time" "exit $rc (want 2)" "$TMP/out"
fi

# --max-cpu takes a positive whole number of seconds.
run_prop "$TMP/out" lint --max-cpu 0 loop.lua
if [[ "$rc" == 64 ]] && grep -Fq -- '--max-cpu takes a positive whole number' "$TMP/out"; then pass; else fail "--max-cpu 0" "exit $rc (want 64)" "$TMP/out"; fi

finish
