#!/usr/bin/env bash
# test_flood_ssh.sh - what a target sends over SSH is bounded, against an
# sshd this test starts on loopback (tests/ssh/common.sh):
#   1. a remote command that never stops writing (yes) is killed once its
#      output is over --max-output, its property fails with "output over N
#      MiB", prop's memory stays near the limit, the next property runs;
#   2. an answer to prop's own operation that never ends (a read of
#      /dev/zero) closes the connection: the host fails, the run ends;
#   3. SIGTERM during a flood is honoured at once (exit 130, interrupted).
set -u
unset SSH_AUTH_SOCK
# shellcheck source=tests/run/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../run/common.sh"
# shellcheck source=tests/ssh/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ssh_start main || { echo "FAIL: ssh_start main"; exit 1; }
R="$TMP/remote"
mkdir -p "$R"
chmod 755 "$R"

# site NAME APPLY : host web whose property's apply is APPLY, then a
# property that writes $R/after.
site() {
  cat >"$TMP/$1.lua" <<EOF
host "web" {
  $(ssh_connect),
  property {
    desc = "talks",
    check = function(sys) return false end,
    apply = function(sys) $2 end,
  },
  file.has_content("$R/after", "after\n"),
}
EOF
}
site flood "sys:run({ 'sh', '-c', 'echo \$\$ >\"\$1\"; exec yes', 'sh', '$R/flood.pid' })"
site zero "sys:read('/dev/zero')"
site later "sys:run({ 'sh', '-c', '(sleep 1; : >\"\$2\") & echo \$\$ >\"\$1\"; exec yes', 'sh', '$R/later.pid', '$R/later.marker' })"

nocrash() {
  check "$1: no crash" bash -c "! grep -Eqi 'segmentation|core dumped|AddressSanitizer|runtime error:' '$OUT'"
}

# bounded NAME LIMIT-MIB : what a run past the limit must show.
bounded() {
  local name="$1" mib="$2"
  same "$name: exit 1 (a property failed)" "$rc" 1
  check "$name: the property fails" grep -q "talks .*failed" "$OUT"
  check "$name: the reason" grep -q "output over $mib MiB" "$OUT"
  check "$name: prop's memory stayed bounded (${RSS_MB} MB)" test "$RSS_MB" -lt "$(mem_bound "$mib")"
  check "$name: the command is gone on the target" ended "$(cat "$R/flood.pid")"
  check "$name: the next property ran" test -e "$R/after"
  nocrash "$name"
  rm -f "$R/after" "$R/flood.pid"
}

echo "---- 1. a remote command that never stops writing"
timed_run "$TMP/flood.out" run "$TMP/flood.lua"
bounded default 64
timed_run "$TMP/small.out" run "$TMP/flood.lua" --max-output 4M
bounded small 4

echo "---- 2. an answer that never ends"
timed_run "$TMP/zero.out" run "$TMP/zero.lua" --max-output 8M
same "zero: exit 1" "$rc" 1
check "zero: the read fails with the limit" grep -q "read /dev/zero: output over 8 MiB" "$OUT"
check "zero: the connection is closed" grep -q "connection to root@127.0.0.1:$SSH_PORT is closed" "$OUT"
check "zero: prop's memory stayed bounded (${RSS_MB} MB)" test "$RSS_MB" -lt "$(mem_bound 8)"
nocrash zero

echo "---- 3. SIGTERM during a flood"
term_when "$R/later.marker" "$TMP/term.out" run "$TMP/later.lua" --max-output 16G
same "term: exit 130" "$rc" 130
check "term: prop ended within 10 s of the signal (${STOP_S} s)" test "$STOP_S" -le 10
check "term: the property is interrupted" grep -q "talks \.\.\. interrupted" "$OUT"
check "term: the command is gone on the target" ended "$(cat "$R/later.pid")"
check "term: the next property did not run" test ! -e "$R/after"
nocrash term

finish
