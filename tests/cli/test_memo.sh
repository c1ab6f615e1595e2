#!/usr/bin/env bash
# When a site is only checked, a recipe call equal to an earlier one has
# that call's nodes made again at its own place instead of running the
# recipe.  That must change nothing but the time: for every test site,
# lint (text and JSON), show and graph print the same with the memo as
# with PROP_NO_MEMO=1 (every call run).  And the memo must be in use:
# lint --stats counts the calls it served.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# same_memo DIR NAME WHAT ARGS... : prop ARGS prints the same either way.
same_memo() {
  local dir="$1" name="$2" what="$3"
  shift 3
  (cd "$dir" && run_prop "$TMP/memo" "$@"; echo "$rc" >"$TMP/rc.memo")
  (cd "$dir" && PROP_NO_MEMO=1 run_prop "$TMP/nomemo" "$@"; echo "$rc" >"$TMP/rc.nomemo")
  if [[ "$(cat "$TMP/rc.memo")" -gt 2 ]]; then
    fail "$name" "$what: exit $(cat "$TMP/rc.memo")" "$TMP/memo"
  elif [[ "$(cat "$TMP/rc.memo")" != "$(cat "$TMP/rc.nomemo")" ]]; then
    fail "$name" "$what: exit $(cat "$TMP/rc.memo") with the memo, $(cat "$TMP/rc.nomemo") without"
  elif ! diff -u "$TMP/nomemo" "$TMP/memo" >"$TMP/diff"; then
    fail "$name" "$what differs with the memo (- without, + with)" "$TMP/diff"
  else
    pass
  fi
}

shopt -s nullglob
for dir in "$SITES/valid" "$SITES/invalid"; do
  for site in "$dir"/*.lua; do
    name="$(basename "$site")"
    same_memo "$dir" "$name" "lint" lint "$name"
    same_memo "$dir" "$name" "lint --format=json" lint --format=json "$name"
    same_memo "$dir" "$name" "show" show "$name"
    same_memo "$dir" "$name" "graph" graph "$name"
  done
done

# The memo serves the loop's repeated calls; without it, none.
stats="$TMP/stats"
(cd "$SITES/valid" && run_prop "$stats" lint --stats fleet_loop.lua; echo "$rc" >"$TMP/rc")
rc="$(cat "$TMP/rc")"
served="$(sed -n 's/.*, \([0-9][0-9]*\) of them made again from an earlier equal call$/\1/p' "$stats")"
if [[ "$rc" == 0 && -n "$served" && "$served" -gt 50 ]]; then
  pass
else
  fail "fleet_loop.lua" "lint --stats: expected over 50 calls made again (exit $rc)" "$stats"
fi
(cd "$SITES/valid" && PROP_NO_MEMO=1 run_prop "$stats" lint --stats fleet_loop.lua; echo "$rc" >"$TMP/rc")
rc="$(cat "$TMP/rc")"
if [[ "$rc" == 0 ]] && grep -q 'recipe calls with plain-data arguments, each one run$' "$stats"; then
  pass
else
  fail "fleet_loop.lua" "PROP_NO_MEMO=1 lint --stats: expected every call run" "$stats"
fi
if grep -Eq '^fleet_loop\.lua: 12 hosts, [0-9]+ nodes' "$stats" &&
   grep -Eq '^fleet_loop\.lua: evaluated in [0-9.]+ s, pre-pass [0-9.]+ s, peak memory [0-9.]+ MB$' "$stats"; then
  pass
else
  fail "fleet_loop.lua" "lint --stats: hosts, nodes, times and memory not all printed" "$stats"
fi

finish
