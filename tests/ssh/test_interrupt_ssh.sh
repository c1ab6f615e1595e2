#!/usr/bin/env bash
# test_interrupt_ssh.sh - SIGTERM and SIGINT stop `prop run` over SSH
# promptly, and kill -9 leaves no temporary file on the target, against
# sshd servers this test starts on loopback (tests/ssh/common.sh).  The
# "remote" machine is this one: the remote commands write their pids in
# the scratch directory, and the test checks that they are gone.
#
#   1. SIGTERM, SIGINT (and timeout(1)) during a remote command: its
#      process group is signalled through a second channel, the property
#      is "interrupted", prop exits 130, nothing is left running on the
#      target, the lock is released and the next run converges;
#   2. a command that ignores SIGTERM: SIGKILL after the grace period, or
#      at once at a second signal;
#   3. two hosts with -j 2: the parent passes the signal on to its jobs;
#   4. kill -9 of prop, or of the remote shell, in the middle of writing
#      many files: every file is old or new, and after a run that completes
#      no ".NAME.prop-XXXXXX" file is left.
set -u
export PROP_RUN_TIMEOUT="${PROP_RUN_TIMEOUT:-120}"
unset SSH_AUTH_SOCK
# shellcheck source=tests/run/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../run/common.sh"
# shellcheck source=tests/ssh/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

WATCHDOG=60 # seconds: far more than the grace period, far less than the sleeps

ssh_start main || { echo "FAIL: ssh_start main"; exit 1; }
ssh_start second || { echo "FAIL: ssh_start second"; exit 1; }
ssh_use main
R="$TMP/remote"
mkdir -p "$R"
chmod 755 "$R"

# conn NAME : connect.ssh { } for sshd NAME.
conn() {
  ssh_use "$1"
  ssh_connect
  ssh_use main
}

# signal_run (run/common.sh) keeps this file while prop runs: the remote
# commands sleep while it exists.
HOLD="$R/hold"

# sleeper HOST SERVER [TRAP] : a host reached through sshd SERVER whose
# property runs a remote command that sleeps while $R/hold exists, its pids
# in $R/HOST.sh.pid and $R/HOST.sleep.pid.
sleeper() {
  cat <<EOF
host "$1" {
  $(conn "$2"),
  property {
    desc = "sleeps",
    check = function(sys) return sys:exists("$R/$1.slept") end,
    apply = function(sys)
      sys:run({ "sh", "-c", '${3:-}echo \$\$ >"\$1.tmp"; mv "\$1.tmp" "\$1"; '
                .. '[ -e "\$3" ] || exit 0; sleep 600 & echo \$! >"\$2"; wait',
                "sh", "$R/$1.sh.pid", "$R/$1.sleep.pid", "$R/hold" })
      sys:write("$R/$1.slept", "yes\n")
    end,
  },
  file.has_content("$R/$1.after", "after\n"),
}
EOF
}

sleeper web main >"$TMP/sleep.lua"
sleeper web main 'trap "" TERM; ' >"$TMP/stubborn.lua"
{ sleeper web main; sleeper other second; } >"$TMP/two.lua"

# interrupted NAME SITE TAGS... : what an interrupted run must show.
interrupted() {
  local name="$1" site="$2" tag pid
  shift 2
  same "$name: exit 130" "$rc" 130
  for tag in "$@"; do
    check "$name: $tag: the property is interrupted" \
      grep -q "^$tag  sleeps \.\.\. interrupted" "$OUT"
    check "$name: $tag: the rest is not run" \
      grep -q "^$tag: 0 ok, 0 changed, 0 failed, 2 not run (interrupted)" "$OUT"
    check "$name: $tag: the next property did not run" test ! -e "$R/$tag.after"
    for pid in "$R/$tag".*.pid; do
      [[ -e "$pid" ]] || continue
      check "$name: $tag: $(basename "$pid" .pid) is gone on the target" ended "$(cat "$pid")"
    done
  done
  check "$name: no crash" bash -c "! grep -Eqi 'segmentation|core dumped|AddressSanitizer|runtime error:' '$OUT'"
  # The remote lock was released: the next run converges.
  rm -f "$R"/*.pid
  run_prop "$TMP/$name.again" run "$site" -j 2
  same "$name: the next run converges" "$rc" 0
  for tag in "$@"; do
    check "$name: $tag: the next run made the rest" test -e "$R/$tag.after"
    rm -f "$R/$tag.after" "$R/$tag.slept"
  done
}

echo "---- 1. SIGTERM, SIGINT during a remote command"
signal_run term "$TMP/sleep.lua" "$R/web.sleep.pid" TERM
interrupted term "$TMP/sleep.lua" web
signal_run int "$TMP/sleep.lua" "$R/web.sleep.pid" INT
interrupted int "$TMP/sleep.lua" web

# timeout(1) signals prop and then its whole process group: one request.
OUT="$TMP/timeout.out"
rm -f "$R"/*.pid
touch "$R/hold"
rc=0
timeout -k "$WATCHDOG" --preserve-status -s TERM 3 "$PROP" run "$TMP/sleep.lua" >"$OUT" 2>&1 || rc=$?
rm -f "$R/hold"
same "timeout: exit 130" "$rc" 130
for pid in "$R"/web.*.pid; do
  [[ -e "$pid" ]] || continue
  check "timeout: $(basename "$pid" .pid) is gone on the target" ended "$(cat "$pid")"
done
check "timeout: the next property did not run" test ! -e "$R/web.after"
rm -f "$R"/*.pid
run_prop "$TMP/timeout.again" run "$TMP/sleep.lua"
same "timeout: the next run converges" "$rc" 0
rm -f "$R/web.after" "$R/web.slept"

echo "---- 2. a command that ignores SIGTERM"
signal_run grace "$TMP/stubborn.lua" "$R/web.sleep.pid" TERM
interrupted grace "$TMP/stubborn.lua" web
signal_run twice "$TMP/stubborn.lua" "$R/web.sleep.pid" TERM TERM
interrupted twice "$TMP/stubborn.lua" web

echo "---- 3. two hosts in parallel"
signal_run parallel "$TMP/two.lua" "$R/web.sleep.pid $R/other.sleep.pid" TERM -- -j 2
interrupted parallel "$TMP/two.lua" web other

echo "---- 4. kill -9 while writing many files"
N=200
W="$R/many"
mkdir -p "$W"
# many_site VERSION : N files, each "VERSION NAME" and 8 KiB of filler.
many_site() {
  {
    echo "local filler = string.rep(\"x\", 8192)"
    echo "host \"web\" {"
    echo "  $(conn main),"
    for ((i = 0; i < N; i++)); do
      echo "  file.has_content(\"$W/f$i\", \"$1 f$i\\n\" .. filler),"
    done
    echo "}"
  } >"$TMP/many.lua"
}
# whole : every file holds one version ("vK fI" or "final fI", then the
# filler) whole: never a part, never a mix.
whole() {
  local f v bad=0
  for ((i = 0; i < N; i++)); do
    f="$W/f$i"
    v="$(head -c 40 "$f" | head -1)"
    if ! [[ "$v" =~ ^(v[0-9]+|final)\ f$i$ ]] || [[ "$(wc -c <"$f")" != $((${#v} + 1 + 8192)) ]]; then
      bad=$((bad + 1))
    fi
  done
  [[ $bad == 0 ]]
}
# remote_shells : prop's remote shell and its subshells (plain "sh") below
# the server's sshd; not the run lock's holder ("sh -c ...").
remote_shells() {
  local p
  for p in $(_ssh_descendants "$(cat "$SSH_DIR/sshd.pid")"); do
    [[ "$(ps -o args= -p "$p" 2>/dev/null)" == sh ]] && echo "$p"
  done
}
# remote_lock_holder : the pids of the run lock's holder on the target.
remote_lock_holder() {
  local p
  for p in $(_ssh_descendants "$(cat "$SSH_DIR/sshd.pid")"); do
    [[ "$(ps -o args= -p "$p" 2>/dev/null)" == "sh -c"* ]] && echo "$p"
  done
}
# many_run OUT : prop run of many.lua; while the target's lock is still held
# by the run killed just before (its holder ends when sshd sees the
# connection gone), tries again, 10 s at most.
many_run() {
  local tries
  for ((tries = 0; tries < 20; tries++)); do
    run_prop "$1" run "$TMP/many.lua"
    grep -q 'is locked by another run' "$1" || return 0
    sleep 0.5
  done
}
many_site v0
many_run "$TMP/many0.out"
same "kill -9: the first run" "$rc" 0
for round in 1 2 3 4 5 6; do
  many_site "v$round"
  for ((w = 0; w < 20; w++)); do # the killed run's lock (see many_run)
    [[ -z "$(remote_lock_holder)" ]] && break
    sleep 0.5
  done
  "$PROP" run "$TMP/many.lua" >"$TMP/many$round.out" 2>&1 &
  pid=$!
  # Wait until it has written some of the files, then kill at a random
  # point: prop itself (odd rounds) or the shells on the target (even).
  for ((w = 0; w < 300; w++)); do
    grep -q "^v$round" "$W/f0" 2>/dev/null && break
    sleep 0.02
  done
  sleep "0.$((RANDOM % 9))"
  if ((round % 2)); then
    kill -KILL "$pid" 2>/dev/null
  else
    for p in $(remote_shells); do kill -KILL "$p" 2>/dev/null; done
  fi
  wait "$pid" 2>/dev/null
  check "kill -9 round $round: every file whole" whole
done
many_site final
many_run "$TMP/many-final.out"
same "kill -9: a run that completes" "$rc" 0
same "kill -9: no temporary file is left" "$(find "$W" -name '*.prop-*' | wc -l)" 0
check "kill -9: every file is new" bash -c "grep -L ^final $W/f* | grep -q . && exit 1; exit 0"

finish
