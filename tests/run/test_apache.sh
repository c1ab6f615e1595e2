#!/usr/bin/env bash
# apache.installed on this machine: apache2 installed by apt and running
# (answering on port 80), idempotent, started again when stopped; the dry
# run installs and starts nothing.  What the test installs is purged.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

skip_unless_absent apache2
if (exec 3<>/dev/tcp/127.0.0.1/80) 2>/dev/null; then
  skip "something listens on port 80 already"
fi
# shellcheck disable=SC1091
. /etc/os-release
ARCH="$(dpkg --print-architecture)"
installed_packages >"$TMP/before.pkgs"
on_exit "service apache2 stop; purge_new_packages '$TMP/before.pkgs'"

cat >"$TMP/apache.lua" <<EOF
host "localhost" { os.debian("${VERSION_CODENAME:-bookworm}", "$ARCH"), apache.installed() }
EOF
answers() { curl -s -o /dev/null -w '%{http_code}' --max-time 5 http://127.0.0.1/ | grep -q 200; }
not_answering() { ! answers; }

prop_run "$TMP/dry.out" "$TMP/apache.lua" --dry-run
expect_run "dry run: changed" "$TMP/dry.out" 0 1 0 0
same "dry run: nothing installed" "$(installed_packages)" "$(cat "$TMP/before.pkgs")"

prop_run "$TMP/r1.out" "$TMP/apache.lua"
expect_run "first run: changed" "$TMP/r1.out" 0 1 0 0
check "apache2 installed" bash -c "dpkg-query -W -f '\${db:Status-Abbrev}' apache2 | grep -q '^ii'"
check "apache2 running" bash -c "service apache2 status >/dev/null"
check "apache2 answers on port 80" answers

prop_run "$TMP/r2.out" "$TMP/apache.lua"
expect_run "second run: ok" "$TMP/r2.out" 0 0 1 0

service apache2 stop >/dev/null 2>&1
check "stopped by hand" not_answering
prop_run "$TMP/r3.out" "$TMP/apache.lua"
expect_run "stopped: started again" "$TMP/r3.out" 0 1 0 0
check "apache2 answers again" answers

finish
