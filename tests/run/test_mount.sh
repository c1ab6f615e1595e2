#!/usr/bin/env bash
# mount.fstab_entry on a connect.dir tree (dry run, first run, second
# run ok, a line for the mount point replaced in place, revert, P007),
# and mount.mounted for real (its probe too: a remount without a flag is
# seen and repaired): the whole test runs in a private mount
# namespace (unshare -m) with a copy of /etc bound over /etc, so neither
# this machine's mount table nor its /etc/fstab is ever touched.
set -u
if [[ -z "${PROP_TEST_MOUNT_NS:-}" && "$(id -u)" == 0 ]]; then
  if ! unshare -m --propagation private true 2>/dev/null; then
    echo "SKIP: unshare -m is not allowed here"
    exit 77
  fi
  PROP_TEST_MOUNT_NS=1 exec unshare -m --propagation private bash "$0" "$@"
fi
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

T="$TMP/tree"
mkdir -p "$T/etc"
F="$T/etc/fstab"
cat >"$F" <<'EOF'
# /etc/fstab: static file system information.
UUID=1111-2222 / ext4 errors=remount-ro 0 1
/dev/sdb1 /srv ext4 defaults 0 2
EOF
cp "$F" "$TMP/orig"
cat >"$TMP/entry.lua" <<EOF
host "tree" { connect.dir "$T",
  mount.fstab_entry("LABEL=data", "/srv", "ext4", { "noatime", "nodev" }, { pass = 2 }),
  mount.fstab_entry("server:/export/home dir", "/mnt/home dir", "nfs", "ro"),
}
EOF
cat >"$TMP/noentry.lua" <<EOF
host "tree" { connect.dir "$T",
  revert(mount.fstab_entry("server:/export/home dir", "/mnt/home dir", "nfs", "ro")) }
EOF
prop_run "$TMP/dry.out" "$TMP/entry.lua" --dry-run
expect_run "dry run: would change" "$TMP/dry.out" 0 2 0 0
check "dry run: fstab unchanged" cmp -s "$F" "$TMP/orig"
prop_run "$TMP/run1.out" "$TMP/entry.lua"
expect_run "first run: changed" "$TMP/run1.out" 0 2 0 0
same "the /srv line replaced in place" "$(sed -n 3p "$F")" "LABEL=data /srv ext4 noatime,nodev 0 2"
same "blanks escaped, appended" "$(sed -n 4p "$F")" 'server:/export/home\040dir /mnt/home\040dir nfs ro 0 0'
same "other lines kept" "$(sed -n 1,2p "$F")" "$(sed -n 1,2p "$TMP/orig")"
prop_run "$TMP/run2.out" "$TMP/entry.lua"
expect_run "second run: ok" "$TMP/run2.out" 0 0 2 0
prop_run "$TMP/r1.out" "$TMP/noentry.lua"
expect_run "revert: changed" "$TMP/r1.out" 0 1 0 0
same "revert: the line is gone, the rest stays" "$(cat "$F")" "$(sed -n 1,2p "$TMP/orig")
LABEL=data /srv ext4 noatime,nodev 0 2"
prop_run "$TMP/r2.out" "$TMP/noentry.lua"
expect_run "revert again: ok" "$TMP/r2.out" 0 0 1 0

cat >"$TMP/two.lua" <<EOF
host "h" {
  mount.fstab_entry("/dev/sdb1", "/srv", "ext4"),
  mount.mounted("/dev/sdc1", "/srv", "ext4"),
  mount.fstab_entry("/dev/sdd1", "/srv/other", "ext4"),
}
host "bad" { mount.fstab_entry("a b", "srv", "ext 4", "", { pass = 12 }) }
EOF
run_prop "$TMP/two.out" lint "$TMP/two.lua"
check "one mount point, two sources: P007" grep -q "two.lua:3: error\[P007\]" "$TMP/two.out"
check "other mount points agree" test "$(grep -c 'P007' "$TMP/two.out")" = 1
check "bad arguments: P012" grep -q "two.lua:6: error\[P012\]" "$TMP/two.out"

# mount.mounted on this machine, inside the private namespace only.
mkdir "$TMP/etc"
cp -a /etc/. "$TMP/etc/"
mount --bind "$TMP/etc" /etc
on_exit "umount /etc"
cp /etc/fstab "$TMP/fstab.orig"
M="$TMP/mnt"
cat >"$TMP/mounted.lua" <<EOF
host "localhost" { mount.mounted("prop-test-tmpfs", "$M", "tmpfs", { "size=1m", "mode=0750", "nodev" }) }
EOF
cat >"$TMP/unmounted.lua" <<EOF
host "localhost" { revert(mount.mounted("prop-test-tmpfs", "$M", "tmpfs", { "size=1m", "mode=0750", "nodev" })) }
EOF
line="prop-test-tmpfs $M tmpfs size=1m,mode=0750,nodev 0 0"
prop_run "$TMP/m0.out" "$TMP/mounted.lua" --dry-run
expect_run "mounted, dry run: would change" "$TMP/m0.out" 0 1 0 0
check "mounted, dry run: would mount" grep -q "would run: mount -t tmpfs" "$TMP/m0.out"
check "mounted, dry run: nothing mounted" test ! -e "$M"
check "mounted, dry run: fstab unchanged" cmp -s /etc/fstab "$TMP/fstab.orig"
prop_run "$TMP/m1.out" "$TMP/mounted.lua"
expect_run "mounted: changed" "$TMP/m1.out" 0 1 0 0
same "mounted: findmnt" "$(findmnt -n -o SOURCE,FSTYPE --mountpoint "$M")" "prop-test-tmpfs tmpfs"
same "mounted: the options" "$(stat -c %a "$M")" 750
same "mounted: the fstab line" "$(tail -1 /etc/fstab)" "$line"
prop_run "$TMP/m2.out" "$TMP/mounted.lua"
expect_run "mounted, again: ok" "$TMP/m2.out" 0 0 1 0
check "mounted: nodev" bash -c "findmnt -n -o OPTIONS --mountpoint '$M' | grep -qw nodev"

# Remounted without nodev behind prop's back: still mounted, so the
# check holds; the probe sees the flag gone, the repair remounts.
mount -o remount,dev "$M"
prop_run "$TMP/m3.out" "$TMP/mounted.lua" --dry-run
expect_run "remounted dev, dry run: would fail" "$TMP/m3.out" 1 0 0 1
check "remounted dev, dry run: with what it saw" grep -q "would fail: verify: $M is mounted with rw[a-z,]*, without nodev" "$TMP/m3.out"
prop_run "$TMP/m4.out" "$TMP/mounted.lua"
expect_run "remounted dev: repaired" "$TMP/m4.out" 0 1 0 0
check "remounted dev: nodev again" bash -c "findmnt -n -o OPTIONS --mountpoint '$M' | grep -qw nodev"
prop_run "$TMP/m5.out" "$TMP/mounted.lua"
expect_run "remounted dev, then a run: ok" "$TMP/m5.out" 0 0 1 0
prop_run "$TMP/u1.out" "$TMP/unmounted.lua"
expect_run "revert: changed" "$TMP/u1.out" 0 1 0 0
check "revert: unmounted" test -z "$(findmnt -n --mountpoint "$M")"
check "revert: line gone" cmp -s /etc/fstab "$TMP/fstab.orig"
prop_run "$TMP/u2.out" "$TMP/unmounted.lua"
expect_run "revert again: ok" "$TMP/u2.out" 0 0 1 0

# Another file system at the mount point: a failure, nothing unmounted.
mkdir "$TMP/busy"
mount -t tmpfs -o size=1m other-tmpfs "$TMP/busy"
cat >"$TMP/busy1.lua" <<EOF
host "localhost" { mount.mounted("/dev/prop-test-none", "$TMP/busy", "ext4") }
EOF
cat >"$TMP/busy2.lua" <<EOF
host "localhost" { mount.mounted("prop-test-tmpfs", "$TMP/busy", "tmpfs") }
EOF
prop_run "$TMP/b1.out" "$TMP/busy1.lua"
expect_run "another type: failed" "$TMP/b1.out" 1 0 0 1
check "another type: says so" grep -q "has a tmpfs file system mounted, not ext4" "$TMP/b1.out"
prop_run "$TMP/b2.out" "$TMP/busy2.lua"
expect_run "another source: failed" "$TMP/b2.out" 1 0 0 1
check "another source: says so" grep -q "has other-tmpfs mounted, not prop-test-tmpfs" "$TMP/b2.out"
check "another file system: fstab untouched" cmp -s /etc/fstab "$TMP/fstab.orig"
same "another file system: still mounted" "$(findmnt -n -o SOURCE --mountpoint "$TMP/busy")" other-tmpfs
umount "$TMP/busy"

finish
