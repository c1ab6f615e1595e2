#!/usr/bin/env bash
# service.* on localhost with a tiny SysV init script the test installs in
# /etc/init.d (or, when systemd runs this machine, a unit): running,
# stopped, restarted (also as on_change), enabled; dry runs leave the
# service as it was.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

S=prop-test-svc$$
STATE="$TMP/svc"
mkdir -p "$STATE"
PIDF="$STATE/pid"
STARTS="$STATE/starts"

if [[ -d /run/systemd/system ]]; then
  # Under systemd: a simple unit doing the same.
  cat >"/etc/systemd/system/$S.service" <<EOF
[Unit]
Description=prop test service
[Service]
ExecStartPre=/bin/sh -c 'echo start >> $STARTS'
ExecStart=/bin/sh -c 'test -e $STATE/die && exit 1; exec /bin/sleep 100000'
ExecReload=/bin/sh -c 'test -e $STATE/noreload && { echo "cannot reload" >&2; exit 1; }; echo reload >> $STATE/reloads'
[Install]
WantedBy=multi-user.target
EOF
  systemctl daemon-reload
  on_exit "systemctl disable '$S'; systemctl stop '$S'; rm -f '/etc/systemd/system/$S.service'; systemctl daemon-reload"
  is_running() { systemctl is-active --quiet "$S"; }
  is_enabled() { systemctl is-enabled --quiet "$S"; }
else
  cat >"/etc/init.d/$S" <<EOF
#!/bin/sh
### BEGIN INIT INFO
# Provides:          $S
# Required-Start:
# Required-Stop:
# Default-Start:     2 3 4 5
# Default-Stop:      0 1 6
# Short-Description: prop test service
### END INIT INFO
running() { [ -f "$PIDF" ] && kill -0 "\$(cat "$PIDF")" 2>/dev/null; }
case "\$1" in
  start)
    running && exit 0
    echo start >>"$STARTS"
    if [ -e "$STATE/die" ]; then
      sh -c 'echo \$\$ >"$PIDF"; exit 1' # a daemon that ends at once
      exit 0
    fi
    sleep 100000 </dev/null >/dev/null 2>&1 &
    echo \$! >"$PIDF"
    ;;
  stop)
    [ -e "$STATE/stubborn" ] && exit 0
    running && kill "\$(cat "$PIDF")"
    rm -f "$PIDF"
    ;;
  restart)
    "\$0" stop
    "\$0" start
    ;;
  reload)
    [ -e "$STATE/noreload" ] && { echo "cannot reload" >&2; exit 2; }
    echo reload >>"$STATE/reloads"
    ;;
  status)
    if running; then echo running; exit 0; else echo stopped; exit 3; fi
    ;;
  *) echo "usage: \$0 start|stop|restart|status" >&2; exit 2 ;;
esac
exit 0
EOF
  chmod 755 "/etc/init.d/$S"
  on_exit "'/etc/init.d/$S' stop; update-rc.d -f '$S' remove; rm -f '/etc/init.d/$S'"
  is_running() { "/etc/init.d/$S" status >/dev/null; }
  is_enabled() { ls /etc/rc2.d/S[0-9][0-9]"$S" >/dev/null 2>&1; }
fi
not_running() { ! is_running; }
not_enabled() { ! is_enabled; }

site() { # site FILE PROPERTIES...
  local f="$1"
  shift
  printf 'host "localhost" {\n' >"$f"
  printf '  %s,\n' "$@" >>"$f"
  printf '}\n' >>"$f"
}
site "$TMP/running.lua" "service.running \"$S\""
site "$TMP/stopped.lua" "service.stopped \"$S\""
site "$TMP/restarted.lua" "service.restarted \"$S\""
site "$TMP/enabled.lua" "service.enabled \"$S\""
site "$TMP/onchange.lua" \
  "file.has_content(\"$STATE/conf\", \"v=1\\n\"):on_change(service.restarted \"$S\")"

# running
prop_run "$TMP/r0.out" "$TMP/running.lua" --dry-run
expect_run "running, dry run: changed" "$TMP/r0.out" 0 1 0 0
check "running, dry run: still stopped" not_running
prop_run "$TMP/r1.out" "$TMP/running.lua"
expect_run "running: started" "$TMP/r1.out" 0 1 0 0
check "running: it runs" is_running
same "running: started once" "$(lines "$STARTS")" 1
prop_run "$TMP/r2.out" "$TMP/running.lua"
expect_run "running again: ok" "$TMP/r2.out" 0 0 1 0
same "running again: not restarted" "$(lines "$STARTS")" 1

# restarted: always a change when it runs
prop_run "$TMP/x0.out" "$TMP/restarted.lua" --dry-run
expect_run "restarted, dry run: changed" "$TMP/x0.out" 0 1 0 0
same "restarted, dry run: not restarted" "$(lines "$STARTS")" 1
prop_run "$TMP/x1.out" "$TMP/restarted.lua"
expect_run "restarted: changed" "$TMP/x1.out" 0 1 0 0
same "restarted: started again" "$(lines "$STARTS")" 2
check "restarted: runs" is_running

# on_change: restarted only when the file changed
prop_run "$TMP/o1.out" "$TMP/onchange.lua"
expect_run "on_change: file written" "$TMP/o1.out" 0 1 0 0
same "on_change: restarted" "$(lines "$STARTS")" 3
prop_run "$TMP/o2.out" "$TMP/onchange.lua"
expect_run "on_change: nothing to do" "$TMP/o2.out" 0 0 1 0
same "on_change: not restarted" "$(lines "$STARTS")" 3

# reloaded: a running service rereads its files (not restarted); one that
# cannot reload fails, saying so.
site "$TMP/reloaded.lua" "service.reloaded \"$S\""
prop_run "$TMP/rl0.out" "$TMP/reloaded.lua" --dry-run
expect_run "reloaded, dry run: changed" "$TMP/rl0.out" 0 1 0 0
same "reloaded, dry run: not reloaded" "$(lines "$STATE/reloads")" 0
prop_run "$TMP/rl1.out" "$TMP/reloaded.lua"
expect_run "reloaded: changed" "$TMP/rl1.out" 0 1 0 0
same "reloaded: reloaded once" "$(lines "$STATE/reloads")" 1
same "reloaded: not restarted" "$(lines "$STARTS")" 3
touch "$STATE/noreload"
prop_run "$TMP/rl2.out" "$TMP/reloaded.lua"
expect_run "cannot reload: fails" "$TMP/rl2.out" 1 0 0 1
check "cannot reload: with what it said" grep -q 'cannot reload' "$TMP/rl2.out"
rm -f "$STATE/noreload"

# stopped
prop_run "$TMP/s0.out" "$TMP/stopped.lua" --dry-run
expect_run "stopped, dry run: changed" "$TMP/s0.out" 0 1 0 0
check "stopped, dry run: still runs" is_running
prop_run "$TMP/s1.out" "$TMP/stopped.lua"
expect_run "stopped: changed" "$TMP/s1.out" 0 1 0 0
check "stopped: it does not run" not_running
prop_run "$TMP/s2.out" "$TMP/stopped.lua"
expect_run "stopped again: ok" "$TMP/s2.out" 0 0 1 0
prop_run "$TMP/rl3.out" "$TMP/reloaded.lua"
expect_run "reloaded, not running: ok" "$TMP/rl3.out" 0 0 1 0
check "reloaded, not running: said" grep -q 'is not running: nothing to reload' "$TMP/rl3.out"
same "reloaded, not running: not started" "$(lines "$STARTS")" 3

# enabled
prop_run "$TMP/e0.out" "$TMP/enabled.lua" --dry-run
expect_run "enabled, dry run: changed" "$TMP/e0.out" 0 1 0 0
check "enabled, dry run: not enabled" not_enabled
prop_run "$TMP/e1.out" "$TMP/enabled.lua"
expect_run "enabled: changed" "$TMP/e1.out" 0 1 0 0
check "enabled: start links" is_enabled
prop_run "$TMP/e2.out" "$TMP/enabled.lua"
expect_run "enabled again: ok" "$TMP/e2.out" 0 0 1 0
if [[ ! -d /run/systemd/system ]]; then
  update-rc.d "$S" disable >/dev/null 2>&1
  check "disabled by hand" not_enabled
  prop_run "$TMP/e3.out" "$TMP/enabled.lua"
  expect_run "enabled after disable: changed" "$TMP/e3.out" 0 1 0 0
  check "enabled again" is_enabled
fi

# A start that succeeds but a service that does not stay up: the probe
# sees it is not running, the repair (a second start) does not help, and
# the property fails with what the probe saw (a start alone said
# "changed").
: >"$STATE/die"
starts="$(lines "$STARTS")"
prop_run "$TMP/k1.out" "$TMP/running.lua"
expect_run "dies at start: failed" "$TMP/k1.out" 1 0 0 1
check "dies at start: says it is not running" grep -q "verify: service $S is not running" "$TMP/k1.out"
same "dies at start: started, then again by the repair" "$(lines "$STARTS")" "$((starts + 2))"
rm -f "$STATE/die"
prop_run "$TMP/k2.out" "$TMP/running.lua"
expect_run "starts again: changed" "$TMP/k2.out" 0 1 0 0
check "starts again: it runs" is_running
prop_run "$TMP/k3.out" "$TMP/running.lua"
expect_run "starts again, second run: ok" "$TMP/k3.out" 0 0 1 0

if [[ ! -d /run/systemd/system ]]; then
  # A stop that says it worked but leaves the service running: the
  # probe sees it, the repair stops it again, in vain: failed.
  : >"$STATE/stubborn"
  prop_run "$TMP/t1.out" "$TMP/stopped.lua"
  expect_run "stubborn stop: failed" "$TMP/t1.out" 1 0 0 1
  check "stubborn stop: says it still runs" grep -q "verify: service $S is still running" "$TMP/t1.out"
  check "stubborn stop: it runs" is_running
  rm -f "$STATE/stubborn"
  prop_run "$TMP/t2.out" "$TMP/stopped.lua"
  expect_run "stop: changed" "$TMP/t2.out" 0 1 0 0
  check "stop: it does not run" not_running
fi

# A service that does not exist: a failure naming it.
site "$TMP/none.lua" "service.running \"prop-test-none$$\""
prop_run "$TMP/n.out" "$TMP/none.lua"
expect_run "unknown service fails" "$TMP/n.out" 1 0 0 1
check "unknown service named" grep -q "prop-test-none$$" "$TMP/n.out"

finish
