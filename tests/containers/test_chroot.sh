#!/usr/bin/env bash
# chroot containers for real: a bookworm tree made by prop (debootstrap
# once, then the tarball cache), provisioned inside through unshare+chroot
# (a file, an account, a package), twice with no change the second time,
# edited in place; no daemon started inside reaches this machine; a
# half-made tree is made again, never used; a kill -9 while a tree is
# unpacked, then a run that converges; a SIGTERM while a command runs
# inside stops it at once, and nothing it started is left; debootstrap failing leaves nothing;
# from_tarball; revert removes the tree; connect.dir refuses commands.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

rootfs_cache
T="$TMP/trees"
mkdir -p "$T"

# ---- provisioned, twice ----------------------------------------------------
write_site() { # MOTD
  cat >"$TMP/site.lua" <<EOF
local web = chroot.debootstrapped("$T/web", os.debian("$SUITE", "$ARCH"), {
  file.has_content("/etc/motd", "$1\n"),
  user.account "webapp",
  apt.installed { "cron" },
  service.running "cron",
  property {
    desc = "a daemon started by hand",
    apply = function(sys) sys:run { "sh", "-c", "cron; echo started" } return "changed" end,
  },
}, { cache = "$ROOTFS_CACHE" })
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  chroot.provisioned(web),
}
EOF
}
write_site "inside"
before_listen="$(listeners)"
prop_run "$TMP/r1.out" "$TMP/site.lua"
same "first run: exit" "$rc" 0
same "first run: the parent's property changed" "$(host_count "$TMP/r1.out" localhost changed)" 1
same "first run: the container's" "$(changed_failed "$TMP/r1.out" localhost/web)" "4/0"
check "the events name the container" grep -q '"host":"localhost/web","container":"web"' "$TMP/r1.out"
same "the file is in the tree" "$(cat "$T/web/etc/motd")" "inside"
check "the account is in the tree's passwd" grep -q '^webapp:' "$T/web/etc/passwd"
check "not in this machine's" bash -c "! grep -q '^webapp:' /etc/passwd"
check "the package is installed in the tree" chroot "$T/web" dpkg-query -W cron
check "service.running says why cron is not started" grep -q 'service cron not started: no daemon runs in a chroot' "$TMP/r1.out"
check "the cache was unpacked, not debootstrapped" grep -q 'unpacked .*minbase' "$TMP/r1.out"
check "no process is left running in the tree" no_process_in "$T/web"
same "no new listening socket on this machine" "$(listeners)" "$before_listen"
check "nothing stays mounted below the tree" bash -c "! grep -qF ' $T/' /proc/self/mounts"
check "the tree has prop's policy-rc.d" grep -q 'exit 101' "$T/web/usr/sbin/policy-rc.d"

prop_run "$TMP/r2.out" "$TMP/site.lua"
same "second run: exit" "$rc" 0
# The hand-written daemon starter changes on every run; nothing else does.
same "second run: only the hand-written property changes" \
  "$(host_count "$TMP/r2.out" localhost changed)/$(host_count "$TMP/r2.out" localhost/web changed)" "0/1"

# ---- edited in place ---------------------------------------------------------
echo "a file made by hand" >"$T/web/root/kept"
write_site "edited"
prop_run "$TMP/r3.out" "$TMP/site.lua"
same "edit: exit" "$rc" 0
same "edit: the motd and the hand-written property changed" "$(host_count "$TMP/r3.out" localhost/web changed)" 2
same "edit: the tree was not made again" "$(cat "$T/web/root/kept")" "a file made by hand"
same "edit: the new content" "$(cat "$T/web/etc/motd")" "edited"

# ---- one container alone, by its name -------------------------------------------
run_prop "$TMP/r4.out" run "$TMP/site.lua" localhost/web --json
same "box/web alone: exit" "$rc" 0
check "box/web alone: the parent's properties did not run" bash -c "! grep -q '\"host\":\"localhost\",' '$TMP/r4.out'"
check "box/web alone: the container ran" grep -qE '"event":"host","run":"[0-9a-f]{32}",("commit":"[0-9a-f]+","dirty":(true|false),)?"host":"localhost/web"' "$TMP/r4.out"

# ---- dry run of a new container ------------------------------------------------
cat >"$TMP/dry.lua" <<EOF
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  chroot.provisioned(chroot.debootstrapped("$T/new", os.debian("$SUITE", "$ARCH"),
                                           { file.has_content("/etc/x", "x\n") },
                                           { cache = "$ROOTFS_CACHE" })),
}
EOF
prop_run "$TMP/d.out" "$TMP/dry.lua" --dry-run
same "dry run: exit" "$rc" 0
check "dry run: the container would be made" grep -q '"not_made":true' "$TMP/d.out"
check "dry run: nothing was made" test ! -e "$T/new" -a ! -e "$T/new.prop-new"

# ---- a half-made tree is made again --------------------------------------------
mkdir -p "$T/half.prop-new/etc"
echo junk >"$T/half.prop-new/etc/junk"
cat >"$TMP/half.lua" <<EOF
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  chroot.provisioned(chroot.from_tarball("$T/half", os.debian("$SUITE", "$ARCH"), "$ROOTFS",
                                         { file.has_content("/etc/x", "x\n") })),
}
EOF
prop_run "$TMP/h.out" "$TMP/half.lua"
same "half-made: exit" "$rc" 0
check "half-made: the leftover was named" grep -q 'left by an interrupted run' "$TMP/h.out"
check "half-made: the tree is complete" test -x "$T/half/bin/sh" -a ! -e "$T/half/etc/junk"
check "half-made: no staging left" test ! -e "$T/half.prop-new"
same "half-made: provisioned" "$(cat "$T/half/etc/x")" "x"

# ---- kill -9 while a tree is unpacked, then a run that converges ----------------
cat >"$TMP/kill.lua" <<EOF
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  chroot.provisioned(chroot.from_tarball("$T/killed", os.debian("$SUITE", "$ARCH"), "$ROOTFS",
                                         { file.has_content("/etc/x", "y\n") })),
}
EOF
setsid "$PROP" run "$TMP/kill.lua" >"$TMP/k1.out" 2>&1 &
pid=$!
for _ in $(seq 200); do
  [[ -d "$T/killed.prop-new/usr" ]] && break
  sleep 0.05
done
kill -9 -- -"$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
check "killed: no tree at the path (only the staging one)" test ! -e "$T/killed"
prop_run "$TMP/k2.out" "$TMP/kill.lua"
same "killed, then run again: exit" "$rc" 0
check "killed, then run again: complete" test -x "$T/killed/bin/sh"
same "killed, then run again: provisioned" "$(cat "$T/killed/etc/x")" "y"
check "killed, then run again: no staging left" test ! -e "$T/killed.prop-new"

# ---- SIGTERM while a command runs inside: it stops at once --------------------------
# The command gets the signal itself, not the SIGKILL that follows it
# after a grace period of seconds; what it started goes with it.
cat >"$TMP/term.lua" <<EOF
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  chroot.provisioned(chroot.from_tarball("$T/killed", os.debian("$SUITE", "$ARCH"), "$ROOTFS",
                                         { cmd.run { "sh", "-c", "sleep 3179 & exec sleep 3178" } })),
}
EOF
"$PROP" run "$TMP/term.lua" >"$TMP/t.out" 2>&1 &
pid=$!
for _ in $(seq 600); do
  pgrep -f '^sleep 3178$' >/dev/null && break
  sleep 0.1
done
check "SIGTERM: the command runs in the tree" bash -c "pgrep -f '^sleep 3178\$' >/dev/null"
t0="$(date +%s%N)"
kill -TERM "$pid"
trc=0
wait "$pid" || trc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
echo "prop run ended ${ms} ms after its SIGTERM"
check "SIGTERM: prop ends at once, not after the grace period (${ms} ms)" test "$ms" -lt 3000
check "SIGTERM: prop says the run was stopped" test "$trc" -ne 0
check "SIGTERM: the command was interrupted" grep -q 'interrupted' "$TMP/t.out"
check "SIGTERM: nothing runs in the tree any more" no_process_in "$T/killed"

# ---- debootstrap failing leaves nothing ------------------------------------------
cat >"$TMP/bad.lua" <<EOF
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  chroot.provisioned(chroot.debootstrapped("$T/bad", os.debian("$SUITE", "$ARCH"), {},
                                           { mirror = "http://127.0.0.1:9/debian",
                                             cache = "$TMP/empty-cache" })),
}
EOF
prop_run "$TMP/b.out" "$TMP/bad.lua"
same "bad mirror: exit" "$rc" 1
check "bad mirror: debootstrap's own words" grep -q 'debootstrap' "$TMP/b.out"
check "bad mirror: no tree, no staging" test ! -e "$T/bad" -a ! -e "$T/bad.prop-new"
check "bad mirror: the container is refused, not run" grep -q "\"host\":\"localhost/bad\".*\"refused\":true.*not provisioned" "$TMP/b.out"

# ---- revert removes the tree ------------------------------------------------------
cat >"$TMP/revert.lua" <<EOF
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  revert(chroot.provisioned(chroot.from_tarball("$T/half", os.debian("$SUITE", "$ARCH"), "$ROOTFS", {}))),
}
EOF
prop_run "$TMP/v.out" "$TMP/revert.lua"
same "revert: exit" "$rc" 0
check "revert: the tree is gone" test ! -e "$T/half"
check "revert: the container is not run" bash -c "! grep -q 'localhost/half' '$TMP/v.out'"
prop_run "$TMP/v2.out" "$TMP/revert.lua"
same "revert again: nothing to do" "$(host_count "$TMP/v2.out" localhost changed)" 0

# ---- connect.dir is files only ----------------------------------------------------
cat >"$TMP/dir.lua" <<EOF
host "tree" { connect.dir "$T/web", os.debian("$SUITE", "$ARCH"),
              property { desc = "a command", apply = function(sys)
                sys:run { "sh", "-c", "echo ran >/ran" } return "changed" end } }
EOF
prop_run "$TMP/c.out" "$TMP/dir.lua"
same "connect.dir: exit" "$rc" 1
check "connect.dir: says why" grep -q 'files only' "$TMP/c.out"
check "connect.dir: names the containers" grep -q 'chroot.debootstrapped' "$TMP/c.out"
check "connect.dir: nothing ran" test ! -e "$T/web/ran"

finish
