#!/usr/bin/env bash
# test_flood_local.sh - what a command on this machine sends is bounded:
# a command that writes without end (yes) is killed once its output is
# over --max-output, its property fails with "output over N MiB", prop's
# memory stays near the limit and the next property runs; a command that
# hangs is killed by --timeout, also once it has closed its output; SIGTERM during a flood is honoured at once.
# Every command's pid goes to the scratch directory, to check it is gone.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

S="$TMP/s"
mkdir -p "$S"

# site NAME SCRIPT : a host whose property runs sh -c SCRIPT (its $1 the
# pid file, $2 a marker), then a property that writes $S/after.
site() {
  cat >"$TMP/$1.lua" <<EOF
host "me" {
  connect.localhost(),
  property {
    desc = "talks",
    check = function(sys) return false end,
    apply = function(sys) sys:run({ "sh", "-c", '$2', "sh", "$S/$1.pid", "$S/$1.marker" }) end,
  },
  file.has_content("$S/after", "after\n"),
}
EOF
}
site flood 'echo $$ >"$1"; exec yes'
site hang 'echo $$ >"$1"; exec sleep 600'
site quiet 'echo $$ >"$1"; exec >/dev/null 2>&1 </dev/null; exec sleep 600'
site later '(sleep 1; : >"$2") & echo $$ >"$1"; exec yes'

# bounded NAME LIMIT-MIB : what a run past the limit must show.
bounded() {
  local name="$1" mib="$2"
  same "$name: exit 1 (a property failed)" "$rc" 1
  check "$name: the property fails with the limit" grep -q "talks .*failed" "$OUT"
  check "$name: the reason" grep -q "output over $mib MiB" "$OUT"
  check "$name: prop's memory stayed bounded (${RSS_MB} MB)" test "$RSS_MB" -lt "$(mem_bound "$mib")"
  check "$name: the command is gone" ended "$(cat "$S/flood.pid")"
  check "$name: the next property ran" test -e "$S/after"
  check "$name: no crash" bash -c "! grep -Eqi 'segmentation|core dumped|AddressSanitizer|runtime error:' '$OUT'"
  rm -f "$S/after" "$S/flood.pid"
}

echo "---- a command that never stops writing: the default limit"
timed_run "$TMP/flood.out" run "$TMP/flood.lua"
bounded default 64

echo "---- --max-output"
timed_run "$TMP/small.out" run "$TMP/flood.lua" --max-output 2M
bounded small 2

echo "---- --max-output that is not a size"
for bad in 0 abc 1T 17G 1023B; do
  run_prop "$TMP/bad.out" run "$TMP/flood.lua" --max-output "$bad"
  same "--max-output $bad: a usage error" "$rc" 64
  check "--max-output $bad: says what it wants" grep -q -- "--max-output wants a size" "$OUT"
done
check "nothing ran" test ! -e "$S/flood.pid"

echo "---- a command that hangs: --timeout"
timed_run "$TMP/hang.out" run "$TMP/hang.lua" --timeout 2
same "hang: exit 1" "$rc" 1
check "hang: timed out" grep -q "timed out after 2 s" "$OUT"
check "hang: the command is gone" ended "$(cat "$S/hang.pid")"
check "hang: the next property ran" test -e "$S/after"
rm -f "$S/after"

echo "---- a command that closes its output and runs on: --timeout still holds"
timed_run "$TMP/quiet.out" run "$TMP/quiet.lua" --timeout 2
same "quiet: exit 1" "$rc" 1
check "quiet: timed out" grep -q "timed out after 2 s" "$OUT"
check "quiet: the command is gone" ended "$(cat "$S/quiet.pid")"
check "quiet: the next property ran" test -e "$S/after"
rm -f "$S/after"

echo "---- SIGTERM during a flood"
term_when "$S/later.marker" "$TMP/term.out" run "$TMP/later.lua" --max-output 16G
same "term: exit 130" "$rc" 130
check "term: prop ended within 10 s of the signal (${STOP_S} s)" test "$STOP_S" -le 10
check "term: the property is interrupted" grep -q "talks \.\.\. interrupted" "$OUT"
check "term: the command is gone" ended "$(cat "$S/later.pid")"
check "term: the next property did not run" test ! -e "$S/after"

finish
