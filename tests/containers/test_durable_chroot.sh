#!/usr/bin/env bash
# Durable triggers inside a container: in a chroot made from the cached
# bookworm tree, a trigger target (a command run inside) that fails is
# recorded inside the container (its PROP_STATE_DIR, below the tree),
# not on this machine; the next run runs it although its trigger is then
# ok, and the record is removed once it succeeds; a third run runs
# nothing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

rootfs_cache
T="$TMP/trees"
mkdir -p "$T"
cat >"$TMP/site.lua" <<LUA
local web = chroot.debootstrapped("$T/web", os.debian("$SUITE", "$ARCH"), {
  file.has_content("/etc/app.conf", "v1\n"):on_change(
    cmd.run { "sh", "-c", "test -e /ready && echo ran >> /count" }),
}, { cache = "$ROOTFS_CACHE" })
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  chroot.provisioned(web),
}
LUA
INSIDE="$T/web$PROP_STATE_DIR/pending"

prop_run "$TMP/r1.out" "$TMP/site.lua"
same "first: exit (the target fails)" "$rc" 1
same "first: the file was written" "$(cat "$T/web/etc/app.conf")" v1
check "first: recorded inside the container" grep -q "$(printf '^localhost/web\trun sh -c')" "$INSIDE"
check "first: not on this machine's side" test ! -e "$PROP_STATE_DIR/pending"
same "first: the target did not count" "$(lines "$T/web/count")" 0

touch "$T/web/ready"
prop_run "$TMP/r2.out" "$TMP/site.lua"
same "second: exit" "$rc" 0
same "second: the owed target ran inside" "$(lines "$T/web/count")" 1
check "second: a pending event for the container" \
  grep -q '"event":"pending",.*"host":"localhost/web","container":"web"' "$TMP/r2.out"
check "second: the record is removed" test ! -e "$INSIDE"

prop_run "$TMP/r3.out" "$TMP/site.lua"
same "third: exit" "$rc" 0
same "third: nothing ran" "$(lines "$T/web/count")" 1
check "no process is left running in the tree" no_process_in "$T/web"
check "nothing stays mounted below the tree" bash -c "! grep -qF ' $T/' /proc/self/mounts"

finish
