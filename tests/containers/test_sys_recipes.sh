#!/usr/bin/env bash
# sysctl.set, timezone.set, locale.available, locale.selected,
# hostname.sane and hostname.mailname inside a chroot container made from
# the test rootfs cache (this machine's /etc, kernel settings and host
# name are never touched): a dry run that changes nothing; a first run
# that writes every file (the zone link, the locales generated, the
# kernel setting written to its file but not applied, with a note); a
# second run with no change; an unknown zone and an unknown locale that
# fail and write nothing; reverts that take the settings out again, then
# change nothing the second time.  Then sysctl -w for real, in a network
# namespace of the test's own, read back by the probe: a value the kernel
# does not keep as written fails.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

rootfs_cache
T="$TMP/trees"
mkdir -p "$T"
R="$T/sysbox"
SYSCTL="$R/etc/sysctl.d/60-prop.conf"

write_site() { # PROPERTIES...
  tarball_host "$R" "$*" >"$TMP/site.lua"
}

# A value this machine's kernel does not have, so that applying it here
# would show.
host_swappiness="$(cat /proc/sys/vm/swappiness)"
want_swappiness=17
[[ "$host_swappiness" != 17 ]] || want_swappiness=18
host_name="$(hostname)"

# ---- the tree ------------------------------------------------------------------
write_site ""
prop_run "$TMP/r0.out" "$TMP/site.lua"
same "setup: exit" "$rc" 0
check "setup: the tree is there" test -f "$R/etc/os-release"
check "setup: no sysctl file yet" test ! -e "$SYSCTL"
check "setup: no mailname yet" test ! -e "$R/etc/mailname"
etc_before="$(tree_state "$R/etc")"

PROPS="sysctl.set(\"vm.swappiness\", $want_swappiness),
    sysctl.set(\"net.ipv4.ip_local_port_range\", \"20000 60999\"),
    timezone.set \"Europe/Paris\",
    locale.selected \"de_DE.UTF-8\",
    locale.available \"fr_FR.UTF-8\",
    hostname.sane(),"
write_site "$PROPS"

# ---- dry run ---------------------------------------------------------------------
prop_run "$TMP/d.out" "$TMP/site.lua" --dry-run
same "dry run: exit" "$rc" 0
check "dry run: would change in the container" \
  test "$(host_count "$TMP/d.out" localhost/sysbox changed)" -ge 5
same "dry run: nothing failed" "$(host_count "$TMP/d.out" localhost/sysbox failed)" 0
same "dry run: /etc of the tree untouched" "$(tree_state "$R/etc")" "$etc_before"

# ---- first run ---------------------------------------------------------------------
prop_run "$TMP/r1.out" "$TMP/site.lua"
same "first run: exit" "$rc" 0
same "first run: nothing failed" "$(host_count "$TMP/r1.out" localhost/sysbox failed)" 0
# Each top-level property changed (locale.selected counts its
# locale.available too).
same "first run: every property changed" "$(results "$TMP/r1.out" changed localhost/sysbox)" 6
check "first run: no W104" bash -c "! grep -q W104 '$TMP/r1.out'"
same "sysctl: both settings in the file" \
  "$(grep -v '^#' "$SYSCTL")" \
  "$(printf 'vm.swappiness = %s\nnet.ipv4.ip_local_port_range = 20000 60999' "$want_swappiness")"
check "sysctl: the note says it was not applied" \
  grep -q 'vm.swappiness set in the file only, not applied to the running kernel: a chroot shares' "$TMP/r1.out"
same "sysctl: this machine's kernel is untouched" "$(cat /proc/sys/vm/swappiness)" "$host_swappiness"
same "timezone: /etc/timezone" "$(cat "$R/etc/timezone")" "Europe/Paris"
same "timezone: /etc/localtime links to the zone" "$(readlink "$R/etc/localtime")" \
  /usr/share/zoneinfo/Europe/Paris
same "timezone: the tree's date says so" "$(env -u TZ chroot "$R" date -d 2024-01-15T12:00Z +%Z)" CET
check "locale: de_DE uncommented in locale.gen" grep -qx 'de_DE.UTF-8 UTF-8' "$R/etc/locale.gen"
check "locale: fr_FR uncommented in locale.gen" grep -qx 'fr_FR.UTF-8 UTF-8' "$R/etc/locale.gen"
same "locale: both generated" "$(chroot "$R" locale -a | grep -E '^(de_DE|fr_FR)' | LC_ALL=C sort | tr '\n' ' ')" \
  "de_DE.utf8 fr_FR.utf8 "
same "locale: LANG selected" "$(grep '^LANG' "$R/etc/default/locale")" "LANG=de_DE.UTF-8"
same "hostname: /etc/hostname" "$(cat "$R/etc/hostname")" "sysbox"
same "hostname: /etc/mailname" "$(cat "$R/etc/mailname")" "sysbox"
same "hostname: one 127.0.1.1 line in /etc/hosts" "$(grep '^127.0.1.1' "$R/etc/hosts")" \
  "$(printf '127.0.1.1\tsysbox')"
same "hostname: this machine's running name is untouched" "$(hostname)" "$host_name"

# ---- second run ---------------------------------------------------------------------
prop_run "$TMP/r2.out" "$TMP/site.lua"
same "second run: exit" "$rc" 0
same "second run: nothing changes" \
  "$(changed_failed "$TMP/r2.out" localhost/sysbox)" "0/0"

# ---- mailname on its own -------------------------------------------------------------
write_site 'hostname.mailname "mail.example.com",'
prop_run "$TMP/m1.out" "$TMP/site.lua"
same "mailname: exit" "$rc" 0
same "mailname: written" "$(cat "$R/etc/mailname")" "mail.example.com"
prop_run "$TMP/m2.out" "$TMP/site.lua"
same "mailname: second run changes nothing" "$(host_count "$TMP/m2.out" localhost/sysbox changed)" 0

# ---- unknown zone and locale ------------------------------------------------------------
etc_good="$(tree_state "$R/etc")"
write_site 'timezone.set "Mars/Olympus_Mons",
    locale.available "xx_YY.UTF-8",'
prop_run "$TMP/f.out" "$TMP/site.lua"
same "unknown: exit" "$rc" 1
same "unknown: both fail" "$(host_count "$TMP/f.out" localhost/sysbox failed)" 2
check "unknown: the zone is named" grep -q 'unknown time zone Mars/Olympus_Mons' "$TMP/f.out"
check "unknown: the locale is named" grep -q 'unknown locale xx_YY.UTF-8' "$TMP/f.out"
same "unknown: /etc of the tree untouched" "$(tree_state "$R/etc")" "$etc_good"

# ---- reverts ----------------------------------------------------------------------------
write_site "revert(sysctl.set(\"vm.swappiness\", $want_swappiness)),
    sysctl.set(\"net.ipv4.ip_local_port_range\", \"20000 60999\"),
    revert(locale.available \"fr_FR.UTF-8\"),
    revert(locale.selected \"de_DE.UTF-8\"),"
prop_run "$TMP/v1.out" "$TMP/site.lua"
same "revert: exit" "$rc" 0
same "revert: three changed" "$(results "$TMP/v1.out" changed localhost/sysbox)" 3
same "revert: the other sysctl setting stays" "$(grep -v '^#' "$SYSCTL")" \
  "net.ipv4.ip_local_port_range = 20000 60999"
check "revert: fr_FR commented out" grep -qx '# fr_FR.UTF-8 UTF-8' "$R/etc/locale.gen"
same "revert: fr_FR no longer generated, de_DE still" \
  "$(chroot "$R" locale -a | grep -E '^(de_DE|fr_FR)' | tr '\n' ' ')" "de_DE.utf8 "
check "revert: no LANG line" bash -c "! grep -q '^LANG' '$R/etc/default/locale'"
prop_run "$TMP/v2.out" "$TMP/site.lua"
same "revert again: nothing changes" \
  "$(changed_failed "$TMP/v2.out" localhost/sysbox)" "0/0"

write_site "revert(sysctl.set(\"net.ipv4.ip_local_port_range\", \"20000 60999\")),"
prop_run "$TMP/v3.out" "$TMP/site.lua"
same "last setting reverted: exit" "$rc" 0
check "last setting reverted: the file is gone" test ! -e "$SYSCTL"
same "this machine's kernel is still untouched" "$(cat /proc/sys/vm/swappiness)" "$host_swappiness"

# ---- sysctl on a host of its own: a network namespace -----------------------------
# The net.* settings are per network namespace, so sysctl -w can run for
# real in one made for the test, with a scratch directory mounted over
# /etc/sysctl.d in a mount namespace of its own: this machine's settings
# and files stay as they are.
mkdir -p "$TMP/sysctl.d"
cat >"$TMP/netns.lua" <<EOF
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  sysctl.set("net.ipv4.ip_local_port_range", "20000 60999"),
}
EOF
cat >"$TMP/netns-bad.lua" <<EOF
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  sysctl.set("net.ipv4.no_such_setting", 1),
}
EOF
cat >"$TMP/netns-keep.lua" <<EOF
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  sysctl.set("net.ipv4.ping_group_range", "100 50"),
}
EOF
cat >"$TMP/netns.sh" <<'EOF'
set -u
mount --bind "$TMP/sysctl.d" /etc/sysctl.d || exit 99
p() { timeout 300 "$PROP" run "$1" --json >"$2" 2>&1; echo "$?" >"$2.rc"; }
sysctl -n net.ipv4.ip_local_port_range >"$TMP/ns.before"
p "$TMP/netns.lua" "$TMP/n1.out"
sysctl -n net.ipv4.ip_local_port_range >"$TMP/ns.after"
p "$TMP/netns.lua" "$TMP/n2.out"
p "$TMP/netns-bad.lua" "$TMP/n3.out"
cp "$TMP/sysctl.d/60-prop.conf" "$TMP/ns.file"
# The kernel takes a range whose end is below its start, and keeps "1 0".
p "$TMP/netns-keep.lua" "$TMP/n4.out"
sysctl -n net.ipv4.ping_group_range >"$TMP/ns.keep"
EOF
host_range="$(sysctl -n net.ipv4.ip_local_port_range)"
ns_rc=0
TMP="$TMP" PROP="$PROP" unshare --mount --net bash "$TMP/netns.sh" || ns_rc=$?
same "netns: set up" "$ns_rc" 0
same "netns: the namespace started with the default" "$(tr -s '\t ' ' ' <"$TMP/ns.before")" "32768 60999"
same "netns: first run exit" "$(cat "$TMP/n1.out.rc")" 0
same "netns: first run changed" "$(host_count "$TMP/n1.out" localhost changed)" 1
same "netns: applied to the running value" "$(tr -s '\t ' ' ' <"$TMP/ns.after")" "20000 60999"
check "netns: the change is a note" \
  grep -q 'running net.ipv4.ip_local_port_range: 32768 60999 -> 20000 60999' "$TMP/n1.out"
same "netns: the file" "$(grep -v '^#' "$TMP/ns.file")" \
  "net.ipv4.ip_local_port_range = 20000 60999"
same "netns: second run changes nothing" \
  "$(cat "$TMP/n2.out.rc")/$(host_count "$TMP/n2.out" localhost changed)" "0/0"
same "netns: an unknown key fails" \
  "$(cat "$TMP/n3.out.rc")/$(host_count "$TMP/n3.out" localhost failed)" "1/1"
check "netns: the failure names the key" \
  grep -q 'the running kernel has no setting net.ipv4.no_such_setting' "$TMP/n3.out"
check "netns: the unknown key is not written" \
  bash -c "! grep -q no_such_setting '$TMP/ns.file'"
same "netns: a value the kernel does not keep fails" \
  "$(cat "$TMP/n4.out.rc")/$(host_count "$TMP/n4.out" localhost failed)" "1/1"
check "netns: with what the kernel holds" \
  grep -q 'verify: the running kernel holds net.ipv4.ping_group_range = 1 0, want 100 50' "$TMP/n4.out"
same "netns: the kernel holds 1 0" "$(tr -s '\t ' ' ' <"$TMP/ns.keep")" "1 0"
same "netns: this machine's value is untouched" "$(sysctl -n net.ipv4.ip_local_port_range)" "$host_range"
check "netns: this machine's /etc/sysctl.d has no prop file" test ! -e /etc/sysctl.d/60-prop.conf

finish
