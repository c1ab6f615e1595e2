#!/usr/bin/env bash
# tor.bridge on this machine: tor installed by apt, the bridge lines in
# /etc/tor/torrc (the rest kept), tor running and restarted only when
# torrc changed; the dry run installs nothing.  What the test installs is
# purged.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

skip_unless_absent tor
# tor's init script raises the open-files limit to 32768 before it starts
# the daemon; where even root may not (a sandbox with a lower hard limit),
# tor cannot start at all.
if ! bash -c 'ulimit -n 32768' 2>/dev/null; then
  skip "this machine does not let root raise the open-files limit to 32768, which tor's init script does"
fi
# shellcheck disable=SC1091
. /etc/os-release
ARCH="$(dpkg --print-architecture)"
installed_packages >"$TMP/before.pkgs"
on_exit "service tor stop; purge_new_packages '$TMP/before.pkgs'; rm -rf /etc/tor /var/lib/tor /var/log/tor"

cat >"$TMP/tor.lua" <<EOF
host "localhost" { os.debian("${VERSION_CODENAME:-bookworm}", "$ARCH"), tor.bridge() }
EOF
# The daemon's pid, from the pid file the init script (or unit) keeps.
tor_pid() { cat /run/tor/tor.pid 2>/dev/null; }

prop_run "$TMP/dry.out" "$TMP/tor.lua" --dry-run
expect_run "dry run: changed" "$TMP/dry.out" 0 1 0 0
same "dry run: nothing installed" "$(installed_packages)" "$(cat "$TMP/before.pkgs")"
check "dry run: no torrc" test ! -e /etc/tor/torrc

prop_run "$TMP/r1.out" "$TMP/tor.lua"
expect_run "first run: changed" "$TMP/r1.out" 0 1 0 0
check "tor installed" bash -c "dpkg-query -W -f '\${db:Status-Abbrev}' tor | grep -q '^ii'"
for l in "BridgeRelay 1" "ORPort 443" "ExitPolicy reject \*:\*"; do
  check "torrc has: $l" grep -q "^$l\$" /etc/tor/torrc
done
check "torrc keeps the package's comments" grep -q '^## ' /etc/tor/torrc
check "tor running" bash -c "service tor status >/dev/null"
pid1="$(tor_pid)"
check "tor has a pid" test -n "$pid1"

prop_run "$TMP/r2.out" "$TMP/tor.lua"
expect_run "second run: ok" "$TMP/r2.out" 0 0 1 0
same "second run: not restarted" "$(tor_pid)" "$pid1"

sed -i '/^ORPort 443$/d' /etc/tor/torrc
prop_run "$TMP/r3.out" "$TMP/tor.lua"
expect_run "torrc edited: changed" "$TMP/r3.out" 0 1 0 0
check "ORPort back" grep -q '^ORPort 443$' /etc/tor/torrc
pid2="$(tor_pid)"
check "restarted: a new pid" test -n "$pid2" -a "$pid2" != "$pid1"

finish
