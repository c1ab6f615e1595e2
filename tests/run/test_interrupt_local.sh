#!/usr/bin/env bash
# test_interrupt_local.sh - SIGTERM and SIGINT stop `prop run` on this
# machine promptly: the running command's process group is signalled
# (SIGKILL after the grace period, or at once at a second signal), a Lua
# check/apply is stopped by the instruction hook, the property is reported
# "interrupted", the rest of the host is not run, prop exits 130, no
# process of the command is left, and the next run converges.
#
# The site only touches its scratch directory ($TMP).  Its commands write
# their pids there, so that the test can tell that they are gone.  The
# signal is sent once the command (or the Lua loop) has started, as its
# own pid file or marker says; a watchdog kills prop if it hangs, so a
# prop that does not stop fails the test (exit 137) instead of waiting.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

WATCHDOG=60 # seconds: far more than the grace period, far less than the sleeps

S="$TMP/s"
mkdir -p "$S"

# signal_run (common.sh) keeps this file while prop runs: the command
# sleeps, the Lua loop goes on, while it exists.
HOLD="$S/hold"

# A command that sleeps, with a child in its process group.
cat >"$TMP/sleep.lua" <<EOF
host "me" {
  connect.localhost(),
  file.has_content("$S/before", "before\n"),
  property {
    desc = "sleeps",
    check = function(sys) return sys:exists("$S/slept") end,
    apply = function(sys)
      sys:run({ "sh", "-c", 'echo \$\$ >"\$1.tmp"; mv "\$1.tmp" "\$1"; '
                .. '[ -e "\$3" ] || exit 0; sleep 600 & echo \$! >"\$2"; wait',
                "sh", "$S/sh.pid", "$S/sleep.pid", "$S/hold" })
      sys:write("$S/slept", "yes\n")
    end,
  },
  file.has_content("$S/after", "after\n"),
}
EOF
# The same command, ignoring SIGTERM.
sed 's/sh", "-c", '"'"'/sh", "-c", '"'"'trap "" TERM; /' "$TMP/sleep.lua" >"$TMP/stubborn.lua"
grep -q 'trap "" TERM' "$TMP/stubborn.lua" || fail "stubborn.lua" "sed did not add the trap"
# A Lua loop that never ends (catching every error it can).
cat >"$TMP/loop.lua" <<EOF
host "me" {
  connect.localhost(),
  property {
    desc = "loops",
    check = function(sys) return sys:exists("$S/looped") end,
    apply = function(sys)
      sys:write("$S/looping", "yes\n")
      local n = 0
      while sys:exists("$S/hold") do
        n = n + 1
        pcall(function() n = n + 1 end)
      end
      sys:write("$S/looped", "yes\n")
    end,
  },
  file.has_content("$S/after", "after\n"),
}
EOF

# interrupted NAME SITE : what every interrupted run must show.
interrupted() {
  local name="$1" site="$2" pid
  same "$name: exit 130" "$rc" 130
  check "$name: the running property is reported interrupted" \
    grep -q '"event":"property".*"result":"interrupted"' "$OUT"
  check "$name: the host event says interrupted" \
    grep -q '"event":"host".*"interrupted":true,"skipped":2' "$OUT"
  check "$name: the next property did not run" test ! -e "$S/after"
  check "$name: no crash" bash -c "! grep -Eqi 'segmentation|core dumped|AddressSanitizer|runtime error:' '$OUT'"
  for pid in "$S"/*.pid; do
    [[ -e "$pid" ]] || continue
    check "$name: $(basename "$pid" .pid) is gone" ended "$(cat "$pid")"
  done
  # The lock was released and nothing is half done: the next run converges
  # (its command does not sleep).
  rm -f "$S"/*.pid "$S/hold"
  prop_run "$TMP/$name.again" "$site"
  if [[ "$rc" == 0 ]] && grep -q '"event":"host".*"failed":0' "$TMP/$name.again"; then
    pass
  else
    fail "$name: the next run converges" "exit $rc" "$TMP/$name.again"
  fi
  check "$name: the next run made the rest" test -e "$S/after"
  rm -f "$S/after" "$S/slept" "$S/looped" "$S/looping"
}

echo "---- SIGTERM during a command"
signal_run term "$TMP/sleep.lua" "$S/sh.pid" TERM -- --json --max-instructions 100000000000000
interrupted term "$TMP/sleep.lua"

echo "---- SIGINT during a command"
signal_run int "$TMP/sleep.lua" "$S/sh.pid" INT -- --json --max-instructions 100000000000000
interrupted int "$TMP/sleep.lua"

echo "---- a command that ignores SIGTERM: SIGKILL after the grace period"
signal_run grace "$TMP/stubborn.lua" "$S/sh.pid" TERM -- --json --max-instructions 100000000000000
interrupted grace "$TMP/stubborn.lua"

echo "---- a second signal: SIGKILL at once"
signal_run twice "$TMP/stubborn.lua" "$S/sh.pid" TERM TERM -- --json --max-instructions 100000000000000
interrupted twice "$TMP/stubborn.lua"

echo "---- SIGTERM during a Lua loop"
signal_run loop "$TMP/loop.lua" "$S/looping" TERM -- --json --max-instructions 100000000000000
interrupted loop "$TMP/loop.lua"

echo "---- SIGINT during a Lua loop"
signal_run loopint "$TMP/loop.lua" "$S/looping" INT -- --json --max-instructions 100000000000000
interrupted loopint "$TMP/loop.lua"

echo "---- timeout(1), which signals its whole process group"
OUT="$TMP/timeout.out"
rm -f "$S"/*.pid
touch "$S/hold"
rc=0
timeout -k "$WATCHDOG" --preserve-status -s TERM 3 \
  "$PROP" run "$TMP/sleep.lua" --json >"$OUT" 2>&1 || rc=$?
rm -f "$S/hold"
same "timeout: exit 130" "$rc" 130
for pid in "$S"/*.pid; do
  [[ -e "$pid" ]] || continue
  check "timeout: $(basename "$pid" .pid) is gone" ended "$(cat "$pid")"
done
check "timeout: the next property did not run" test ! -e "$S/after"
prop_run "$TMP/timeout.again" "$TMP/sleep.lua"
same "timeout: the next run converges" "$rc" 0

finish
