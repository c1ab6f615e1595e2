#!/usr/bin/env bash
# systemd.unit, systemd.enabled, systemd.started, systemd.masked,
# systemd.journald_persistent and systemd.journald_configured inside a
# chroot container made from the test rootfs cache, with systemd
# installed in it: systemctl works there on the files alone, and nothing
# is ever started, enabled or masked on this machine.  A dry run that
# writes nothing; a first run (the unit checked by the tree's own
# systemd-analyze verify, enabled and masked as systemctl sees them); a
# second run with no change; a unit that systemd-analyze rejects, which
# fails and leaves the old one; the site check refusing a unit both
# written and masked; the reverts, then nothing more to revert; and a
# connect.dir tree, where unit files, masks and drop-ins are written and
# enabling (a command) fails cleanly.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

rootfs_cache
T="$TMP/trees"
mkdir -p "$T"
R="$T/unitbox"
H=localhost/unitbox
U="$R/etc/systemd/system"

write_site() { # PROPERTIES...
  cat >"$TMP/site.lua" <<EOF
local unit = [[
[Unit]
Description=prop test service

[Service]
Type=oneshot
ExecStart=/bin/true

[Install]
WantedBy=multi-user.target
]]
local timer = [[
[Unit]
Description=prop test timer

[Timer]
OnCalendar=daily

[Install]
WantedBy=timers.target
]]
EOF
  tarball_host "$R" 'apt.installed_min { "systemd" },' "$*" >>"$TMP/site.lua"
}
is_enabled() { chroot "$R" systemctl is-enabled "$1" 2>/dev/null || true; }

# ---- the tree, with systemd --------------------------------------------------------
write_site ""
PROP_RUN_TIMEOUT=900 prop_run "$TMP/r0.out" "$TMP/site.lua"
same "setup: exit" "$rc" 0
check "setup: systemd in the tree" test -x "$R/usr/bin/systemd-analyze"
host_units="$(ls -R /etc/systemd/system 2>/dev/null | md5sum)"

PROPS='systemd.unit("prop-test.service", unit),
    systemd.unit("prop-test.timer", timer),
    systemd.enabled "prop-test.service",
    systemd.enabled "prop-test.timer",
    systemd.started "prop-test.timer",
    systemd.masked "systemd-networkd",
    systemd.journald_persistent(),
    systemd.journald_configured { SystemMaxUse = "200M", Compress = true },'
write_site "$PROPS"
etc_before="$(tree_state "$R/etc/systemd")"

# ---- dry run -----------------------------------------------------------------------
prop_run "$TMP/d.out" "$TMP/site.lua" --dry-run
same "dry run: exit" "$rc" 0
run_prop "$TMP/dd.out" run "$TMP/site.lua" --dry-run --diff
check "dry run: --diff shows the new unit" grep -qE '^[^ ]* +[+]ExecStart=/bin/true$' "$TMP/dd.out"
check "dry run: --diff shows the journald setting" grep -qE '^[^ ]* +[+]SystemMaxUse=200M$' "$TMP/dd.out"
same "dry run: nothing failed" "$(host_count "$TMP/d.out" $H failed)" 0
same "dry run: would change the seven that write" "$(results "$TMP/d.out" changed $H)" 7
same "dry run: /etc/systemd untouched" "$(tree_state "$R/etc/systemd")" "$etc_before"
check "dry run: says the unit would be verified" grep -q 'would check the new unit with systemd-analyze verify' "$TMP/d.out"

# ---- first run -----------------------------------------------------------------------
prop_run "$TMP/r1.out" "$TMP/site.lua"
same "first run: exit" "$rc" 0
same "first run: nothing failed" "$(host_count "$TMP/r1.out" $H failed)" 0
same "first run: seven changed (started has nothing to start)" "$(results "$TMP/r1.out" changed $H)" 7
check "first run: no W104" bash -c "! grep -q W104 '$TMP/r1.out'"
check "unit: the file" grep -qx 'ExecStart=/bin/true' "$U/prop-test.service"
same "unit: mode" "$(stat -c %a "$U/prop-test.service")" 644
check "unit: no check copy left" test ! -e "$R/run/prop-unit-check"
same "enabled: systemctl says so" "$(is_enabled prop-test.service) $(is_enabled prop-test.timer)" "enabled enabled"
same "enabled: the wants link" "$(readlink "$U/multi-user.target.wants/prop-test.service")" \
  /etc/systemd/system/prop-test.service
same "masked: the link" "$(readlink "$U/systemd-networkd.service")" /dev/null
same "masked: systemctl says so" "$(is_enabled systemd-networkd.service)" masked
check "started: no daemon in a chroot, said so" \
  grep -q 'prop-test.timer not started: no daemon runs in a chroot' "$TMP/r1.out"
same "journald: persistent" "$(grep -v '^#' "$R/etc/systemd/journald.conf.d/50-prop-persistent.conf")" \
  "$(printf '[Journal]\nStorage=persistent')"
same "journald: settings" "$(grep -v '^#' "$R/etc/systemd/journald.conf.d/60-prop.conf")" \
  "$(printf '[Journal]\nCompress=yes\nSystemMaxUse=200M')"
check "journald: systemd reads the settings" \
  bash -c "chroot '$R' systemd-analyze cat-config systemd/journald.conf | grep -qx 'SystemMaxUse=200M'"
check "journald: not restarted in a chroot, said so" grep -q 'systemd-journald not restarted' "$TMP/r1.out"
same "this machine's units untouched" "$(ls -R /etc/systemd/system 2>/dev/null | md5sum)" "$host_units"

# ---- second run -----------------------------------------------------------------------
prop_run "$TMP/r2.out" "$TMP/site.lua"
same "second run: exit" "$rc" 0
same "second run: nothing changes" "$(changed_failed "$TMP/r2.out" "$H")" "0/0"

# ---- a unit systemd-analyze rejects leaves the old one --------------------------------
cp "$U/prop-test.service" "$TMP/good.service"
write_site 'systemd.unit("prop-test.service", "[Unit]\nDescription=broken\n[Service]\nType=oneshot\n"),'
prop_run "$TMP/b.out" "$TMP/site.lua"
same "broken unit: exit" "$rc" 1
same "broken unit: fails" "$(changed_failed "$TMP/b.out" "$H")" "0/1"
check "broken unit: systemd-analyze's reason" grep -q 'has no ExecStart=' "$TMP/b.out"
check "broken unit: says the file was kept" grep -q 'is left as it was' "$TMP/b.out"
check "broken unit: the message names the unit's file, not the copy" \
  bash -c "grep 'systemd-analyze verify refuses' '$TMP/b.out' | grep -q /etc/systemd/system/prop-test.service"
same "broken unit: the old file is in place" "$(cat "$U/prop-test.service")" "$(cat "$TMP/good.service")"
check "broken unit: no check copy left" test ! -e "$R/run/prop-unit-check"
write_site 'systemd.unit("prop-test.service", "[Service]\nExecStart=/nonexistent/prop-test\n"),'
prop_run "$TMP/b2.out" "$TMP/site.lua"
same "missing command: exit" "$rc" 1
check "missing command: named" grep -q 'Command /nonexistent/prop-test is not executable' "$TMP/b2.out"
same "missing command: the old file is in place" "$(cat "$U/prop-test.service")" "$(cat "$TMP/good.service")"

# ---- the site check: a unit written and masked, enabled and masked ------------------------
write_site 'systemd.unit("prop-test.service", unit), systemd.masked "prop-test.service",
    systemd.enabled "prop-test.timer", systemd.masked "prop-test.timer",
    systemd.started "prop-test.service", service.stopped "prop-test",'
run_prop "$TMP/p.out" lint "$TMP/site.lua"
check "conflicts: lint fails" test "$rc" -ne 0
check "conflicts: written and masked is P007" \
  grep -q 'P007.*"/etc/systemd/system/prop-test.service" must be a symlink' "$TMP/p.out"
check "conflicts: enabled and masked is P007" \
  grep -q 'P007.*prop-test.timer must be "masked" here but "enabled"' "$TMP/p.out"
run_prop "$TMP/c2.out" claims "$TMP/site.lua" /etc/systemd/system/prop-test.service
check "claims: the unit file is claimed" grep -q 'systemd unit prop-test.service' "$TMP/c2.out"
check "conflicts: started and service.stopped of one service" \
  grep -q 'P009.*service "prop-test" must be stopped here but running' "$TMP/p.out"

write_site 'systemd.journald_configured { SystemMaxUze = "1G" }, systemd.unit("prop-test", unit),'
run_prop "$TMP/q.out" lint "$TMP/site.lua"
check "unknown journald key: P012 with the nearest" \
  grep -q 'P012.*unknown key "SystemMaxUze" for systemd.journald_configured (did you mean "SystemMaxUse"?)' "$TMP/q.out"
check "a unit name without its type: P012" grep -q 'P012.*name "prop-test" has no unit type' "$TMP/q.out"

# ---- reverts ------------------------------------------------------------------------------
write_site 'revert(systemd.enabled "prop-test.service"),
    revert(systemd.enabled "prop-test.timer"),
    revert(systemd.unit("prop-test.service", unit)),
    revert(systemd.unit("prop-test.timer", timer)),
    revert(systemd.masked "systemd-networkd"),
    revert(systemd.journald_persistent()),
    revert(systemd.journald_configured { SystemMaxUse = "200M", Compress = true }),'
prop_run "$TMP/v1.out" "$TMP/site.lua"
same "revert: exit" "$rc" 0
same "revert: seven changed" "$(results "$TMP/v1.out" changed $H)" 7
check "revert: the wants link is gone" test ! -e "$U/multi-user.target.wants/prop-test.service"
check "revert: the unit files are gone" test ! -e "$U/prop-test.service" -a ! -e "$U/prop-test.timer"
check "revert: unmasked" test ! -L "$U/systemd-networkd.service"
check "revert: systemctl no longer says masked" test "$(is_enabled systemd-networkd.service)" != masked
check "revert: journald drop-ins gone" test ! -e "$R/etc/systemd/journald.conf.d/50-prop-persistent.conf" \
  -a ! -e "$R/etc/systemd/journald.conf.d/60-prop.conf"
prop_run "$TMP/v2.out" "$TMP/site.lua"
same "revert again: nothing changes" "$(changed_failed "$TMP/v2.out" "$H")" "0/0"

# ---- a connect.dir tree: files and links only, never this machine ------------------------
cat >"$TMP/dir.lua" <<EOF
local unit = [[
[Service]
ExecStart=/bin/true
[Install]
WantedBy=multi-user.target
]]
host "treehost" {
  connect.dir("$R"),
  os.debian("$SUITE", "$ARCH"),
  systemd.unit("prop-test-dir.service", unit),
  systemd.masked "prop-test-gone.service",
  systemd.journald_persistent(),
}
EOF
prop_run "$TMP/t1.out" "$TMP/dir.lua"
same "dir tree: exit" "$rc" 0
same "dir tree: three changed" "$(results "$TMP/t1.out" changed treehost)" 3
check "dir tree: the unit in the tree" grep -qx 'ExecStart=/bin/true' "$U/prop-test-dir.service"
check "dir tree: says the unit was not verified, and why" \
  grep -q 'not checked with systemd-analyze verify: a directory tree runs no command' "$TMP/t1.out"
same "dir tree: masked in the tree" "$(readlink "$U/prop-test-gone.service")" /dev/null
check "dir tree: journald's drop-in in the tree" test -f "$R/etc/systemd/journald.conf.d/50-prop-persistent.conf"
same "dir tree: this machine's units untouched" "$(ls -R /etc/systemd/system 2>/dev/null | md5sum)" "$host_units"
prop_run "$TMP/t2.out" "$TMP/dir.lua"
same "dir tree: second run changes nothing" "$(results "$TMP/t2.out" changed treehost)" 0
sed -i 's|systemd.masked "prop-test-gone.service",|systemd.enabled "prop-test-dir.service",|' "$TMP/dir.lua"
prop_run "$TMP/t3.out" "$TMP/dir.lua"
same "dir tree: enabling fails" "$(results "$TMP/t3.out" failed treehost)" 1
check "dir tree: saying commands do not run there" grep -q 'commands do not run in a directory tree' "$TMP/t3.out"
check "dir tree: nothing enabled" test ! -e "$U/multi-user.target.wants/prop-test-dir.service"
same "dir tree: this machine's units still untouched" "$(ls -R /etc/systemd/system 2>/dev/null | md5sum)" "$host_units"

finish
