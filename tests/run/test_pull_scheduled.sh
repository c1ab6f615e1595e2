#!/usr/bin/env bash
# pull.scheduled in connect.dir trees (nothing is enabled on this
# machine): the systemd units, checked with `systemd-analyze verify`,
# enabled by their link in timers.target.wants; the cron job with its
# schedule of the host's own, its sleep and its lock, checked with sh -n;
# idempotence, moving from cron to systemd, the revert, a dry run that
# leaves the tree alone, and options the pre-pass refuses.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

SD="$TMP/sd"   # a tree given via = "systemd"
CR="$TMP/cron" # a tree left to choose: a tree never runs systemd, so cron
mkdir -p "$SD" "$CR"
UNITS="$SD/etc/systemd/system"
REPO="https://git.example.org/ops/site%1.git"

site() { # site FILE VIA-OF-SD EVERY [WRAP]
  cat >"$1" <<EOF
local function sched(via)
  return pull.scheduled("$REPO", {
    every = "$3", jitter = "2m", branch = "production", host = "web1.example.org",
    keyring = { "/etc/prop/ops key.asc" }, prop = "$PROP", via = via,
  })
end
host "sd" { connect.dir "$SD", ${4:-}sched($2)${4:+)} }
host "cr" { connect.dir "$CR", ${4:-}sched()${4:+)} }
EOF
}

site "$TMP/s.lua" '"systemd"' 15m

prop_run "$TMP/dry.out" "$TMP/s.lua" --dry-run
expect_run "dry run: would change" "$TMP/dry.out" 0 2 0 0
same "dry run: the trees are untouched" "$(find "$SD" "$CR" -mindepth 1 | wc -l)" 0

prop_run "$TMP/run1.out" "$TMP/s.lua"
expect_run "first run: changed" "$TMP/run1.out" 0 2 0 0
check "the service is written" test -f "$UNITS/prop-pull.service"
check "the timer is written" test -f "$UNITS/prop-pull.timer"
same "the timer is enabled" "$(readlink "$UNITS/timers.target.wants/prop-pull.timer")" "../prop-pull.timer"
same "unit mode and owner" "$(mode_of "$UNITS/prop-pull.timer") $(owner_of "$UNITS/prop-pull.timer")" "0644 root:root"
check "no cron job beside the units" test ! -e "$SD/etc/cron.d/prop-pull"
same "ExecStart" "$(grep '^ExecStart=' "$UNITS/prop-pull.service")" \
  "ExecStart=\"$PROP\" \"pull\" \"https://git.example.org/ops/site%%1.git\" \"--every\" \"900s\" \"--branch\" \"production\" \"--host\" \"web1.example.org\" \"--keyring\" \"/etc/prop/ops key.asc\""
check "a oneshot service" grep -qx 'Type=oneshot' "$UNITS/prop-pull.service"
check "a pull that stalls is stopped (1h by default)" grep -qx 'TimeoutStartSec=3600s' "$UNITS/prop-pull.service"
check "every 15 minutes after the last run" grep -qx 'OnUnitInactiveSec=900s' "$UNITS/prop-pull.timer"
check "jitter" grep -qx 'RandomizedDelaySec=120s' "$UNITS/prop-pull.timer"
if command -v systemd-analyze >/dev/null 2>&1; then
  # The units as systemd reads them: every key known, the command there.
  rc=0
  systemd-analyze verify --man=no "$UNITS/prop-pull.service" "$UNITS/prop-pull.timer" >"$TMP/verify.out" 2>&1 || rc=$?
  if [[ $rc == 0 && ! -s "$TMP/verify.out" ]]; then pass; else fail "systemd-analyze verify" "exit $rc" "$TMP/verify.out"; fi
  # The check can fail: a unit with a mistake in it is caught.
  mkdir -p "$TMP/bad"
  sed 's/^OnUnitInactiveSec=/OnUnitInactivSec=/' "$UNITS/prop-pull.timer" >"$TMP/bad/prop-pull.timer"
  cp "$UNITS/prop-pull.service" "$TMP/bad/"
  systemd-analyze verify --man=no "$TMP/bad/prop-pull.service" "$TMP/bad/prop-pull.timer" >"$TMP/bad.out" 2>&1
  check "systemd-analyze verify catches a bad key" grep -q 'Unknown key' "$TMP/bad.out"
else
  skip_part "systemd-analyze is not installed; the units are not verified"
fi

CJ="$CR/etc/cron.d/prop-pull"
check "the cron job is written" test -f "$CJ"
check "no units beside the cron job" test ! -e "$CR/etc/systemd/system/prop-pull.timer"
same "cron job mode and owner" "$(mode_of "$CJ") $(owner_of "$CJ")" "0644 root:root"
line="$(grep -v '^#' "$CJ" | grep -v '^[A-Z]*=')"
# Every 15 minutes from a minute of the host's own (0 to 14), as root.
if [[ "$line" =~ ^([0-9]|1[0-4])-59/15\ \*\ \*\ \*\ \*\ root\ flock\ -n\ -E\ 75\ /run/lock/prop-pull.lock\ /bin/sh\ -c\ \':\ \>/run/lock/prop-pull.lock\;\ sleep\ ([0-9]+)\;\ exec\ (.*)\ \>/var/log/prop-pull.log\ 2\>\&1\'\;\ r=.*$ ]]; then
  pass
  sleep_s="${BASH_REMATCH[2]}"
  cmd="${BASH_REMATCH[3]}"
  check "the sleep is under the jitter" test "$sleep_s" -le 120
  same "the command" "$cmd" \
    "$PROP pull https://git.example.org/ops/site\\%1.git --every 900s --branch production --host web1.example.org --keyring '\\''/etc/prop/ops key.asc'\\''"
  # What cron runs (with \% back to %), as sh reads it.
  check "the cron command is valid sh" sh -n -c "$(sed 's/\\%/%/g' <<<"${line#* root }")"
  # A run that finds the lock held skips; held for more than `timeout`
  # (1h by default), it says so on stderr and to syslog and exits 1.  Run
  # with the lock in scratch, logger(1) a stub that notes what it got.
  held_cmd="$(sed 's/\\%/%/g' <<<"${line#* root }" | sed "s|/run/lock/prop-pull.lock|$TMP/pull.lock|g")"
  mkdir -p "$TMP/bin"
  printf '#!/bin/sh\necho "$*" >>%s/logger.out\n' "$TMP" >"$TMP/bin/logger"
  chmod +x "$TMP/bin/logger"
  : >"$TMP/pull.lock"
  # The holder is the sleep itself (the lock on its fd 8), so that killing
  # it frees the lock; it closes the run tests' lock (fd 9, common.sh) and
  # the output ctest reads, which it would otherwise hold after the test.
  (exec 9>&- 8>>"$TMP/pull.lock" >/dev/null 2>&1 && flock 8 && exec sleep 120) &
  holder=$!
  on_exit "kill $holder 2>/dev/null"
  for _ in $(seq 100); do flock -n "$TMP/pull.lock" true || break; sleep 0.05; done
  rc=0
  PATH="$TMP/bin:$PATH" sh -c "$held_cmd" >"$TMP/held.out" 2>&1 || rc=$?
  same "cron: a lock held briefly: skipped quietly" "$rc/$(cat "$TMP/held.out")" "0/"
  touch -d '2 hours ago' "$TMP/pull.lock"
  rc=0
  PATH="$TMP/bin:$PATH" sh -c "$held_cmd" >"$TMP/held.out" 2>&1 || rc=$?
  same "cron: a lock held too long: exit 1" "$rc" 1
  check "cron: ... says so on stderr" \
    grep -q "prop pull: the previous pull has held $TMP/pull.lock for more than 60 minutes: it is stalled" "$TMP/held.out"
  check "cron: ... and to syslog" grep -q -- "-t prop-pull prop pull: the previous pull has held" "$TMP/logger.out"
  kill "$holder" 2>/dev/null
else
  fail "the cron line" "not the expected schedule and command: $line" "$CJ"
fi

prop_run "$TMP/run2.out" "$TMP/s.lua"
expect_run "second run: ok" "$TMP/run2.out" 0 0 2 0

# The cron tree moves to systemd: the cron job goes.
sed -i 's/sched())/sched("systemd"))/; s/sched() }/sched("systemd") }/' "$TMP/s.lua"
prop_run "$TMP/run3.out" "$TMP/s.lua"
expect_run "cron to systemd: changed" "$TMP/run3.out" 0 1 1 0
check "cron job removed" test ! -e "$CJ"
check "units written instead" test -f "$CR/etc/systemd/system/prop-pull.timer"

# Reverted: every file goes.
site "$TMP/r.lua" '"systemd"' 15m 'revert('
prop_run "$TMP/rev.out" "$TMP/r.lua"
expect_run "revert: changed" "$TMP/rev.out" 0 2 0 0
same "revert: no file left" "$(find "$SD" "$CR" -type f -o -type l | wc -l)" 0
prop_run "$TMP/rev2.out" "$TMP/r.lua"
expect_run "revert again: ok" "$TMP/rev2.out" 0 0 2 0

# Options the pre-pass refuses, every one named.
cat >"$TMP/bad.lua" <<'EOF'
host "x" {
  pull.scheduled("https://git.example.org/site.git", { every = "90m" }),
}
host "y" {
  pull.scheduled("-x", { every = "soon", jitter = "1w", via = "upstart", site = "../s.lua" }),
}
host "z" {
  pull.scheduled("a", { prop = "prop" }),
  pull.scheduled("b"),
}
EOF
run_prop "$TMP/bad.out" lint "$TMP/bad.lua"
check "lint: refused" test "$rc" = 2
check "lint: 90 minutes is no cron schedule" grep -q 'bad.lua:2: error.*every = "90m" cannot be a cron schedule' "$TMP/bad.out"
check "lint: repo" grep -q 'repo must not start with "-"' "$TMP/bad.out"
check "lint: every" grep -q 'every must be a duration such as "30m"' "$TMP/bad.out"
check "lint: via" grep -q 'via must be "systemd" or "cron"' "$TMP/bad.out"
check "lint: site" grep -q 'site must be relative to the repository' "$TMP/bad.out"
check "lint: prop" grep -q 'prop must be an absolute path' "$TMP/bad.out"
cat >"$TMP/two.lua" <<'EOF'
host "z" {
  pull.scheduled("a"),
  pull.scheduled("b"),
}
EOF
run_prop "$TMP/two.out" lint "$TMP/two.lua"
check "lint: two schedules on one host conflict" grep -q 'two.lua:3: error' "$TMP/two.out"

finish
