#!/usr/bin/env bash
# Each site under tests/sites/sandbox/ tries to escape the sandbox or to
# exhaust a limit, or is broken in a way evaluation must survive.  Each
# must fail cleanly: exit 2, a message naming the file and line (see
# check_fatal in common.sh for the "--! fatal" format), no crash, no hang,
# and no effect outside.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# Run from a copy of tests/sites so that "../valid/lib/roles.lua" exists
# (a require escaping the directory would find it) and so that symlinks
# can be made without touching the source tree.
cp -r "$SITES" "$TMP/sites"
dir="$TMP/sites/sandbox"
mkdir -p "$TMP/outside"
printf 'return { escaped = true }\n' >"$TMP/outside/mod.lua"

marker="/tmp/prop-sandbox-escaped"
rm -f "$marker"

shopt -s nullglob
sites=("$dir"/*.lua)
[[ ${#sites[@]} -gt 0 ]] || fail "sandbox sites" "none found"
for site in "${sites[@]}"; do
  name="$(basename "$site")"
  while read -r what link; do
    if [[ "$what" == symlink ]]; then
      ln -sf "$TMP/outside/mod.lua" "$dir/$link"
    fi
  done < <(expect "$site" setup)
  if [[ -z "$(expect "$site" fatal)" ]]; then
    fail "$name" "no --! fatal expectation"
    continue
  fi
  check_fatal "$dir" "$name"
done

if [[ -e "$marker" ]]; then
  fail "os.execute" "$marker was created: a site ran a command"
  rm -f "$marker"
else
  pass
fi

# The budget counts the site's own instructions between recipe calls: at
# about 5,000 of them a round, a budget of 1,000,000 allows about 200
# rounds.  (When a recipe call forgave what ran since the hook's last
# tick, the same site ran 10,000 rounds.)
(cd "$dir" && run_prop "$TMP/budget.out" lint --max-instructions 1000000 budget_between_recipes.lua)
rounds="$(grep -E '^[0-9]+$' "$TMP/budget.out" | tail -n 1)"
if [[ -n "$rounds" && "$rounds" -ge 50 && "$rounds" -le 1000 ]]; then
  pass
else
  fail "budget_between_recipes.lua" "ran ${rounds:-no} rounds, expected 50 to 1000" "$TMP/budget.out"
fi

# A module next to the site that is a real file (not a link) still works,
# so the symlink refusal above is about leaving the directory.
cp "$TMP/outside/mod.lua" "$dir/inside_mod.lua"
cat >"$dir/require_inside.lua" <<'LUA'
local m = require "inside_mod"
assert(m.escaped == true)
host "x" { file.absent "/tmp/x" }
LUA
(cd "$dir" && run_prop "$TMP/out" lint require_inside.lua; echo "$rc" >"$TMP/rc")
if [[ "$(cat "$TMP/rc")" == 0 ]]; then pass; else fail "require_inside.lua" "exit $(cat "$TMP/rc"), expected 0" "$TMP/out"; fi

# An argument error of Lua's library stays an error the site can catch:
# only a spent budget, the CPU clock and Ctrl-C cannot be caught.
cat >"$dir/catchable.lua" <<'LUA'
local ok1 = pcall(table.insert, {}, math.mininteger, 1)
local ok2 = pcall(table.concat, {}, "", 1, 1e15)
local ok3 = pcall(table.move, {}, -5, math.maxinteger, 1)
local ok4 = pcall(string.find, "x", "[a")
assert(not ok1 and not ok2 and not ok3 and not ok4)
host "x" { file.absent "/tmp/x" }
LUA
(cd "$dir" && run_prop "$TMP/out" lint catchable.lua; echo "$rc" >"$TMP/rc")
if [[ "$(cat "$TMP/rc")" == 0 ]]; then pass; else fail "catchable.lua" "exit $(cat "$TMP/rc"), expected 0" "$TMP/out"; fi

finish
