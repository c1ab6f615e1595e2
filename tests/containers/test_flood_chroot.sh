#!/usr/bin/env bash
# test_flood_chroot.sh - what a chroot container sends is bounded, as on
# this machine: a command inside that never stops writing (yes) is killed
# once its output is over --max-output, its property fails with "output
# over N MiB", prop's memory stays near the limit and the next property
# runs; a command inside that hangs is stopped by --timeout; SIGTERM during
# a flood is honoured at once.  No process is left in the tree.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

rootfs_cache
T="$TMP/trees"
mkdir -p "$T"

# site NAME SCRIPT : localhost with a chroot whose property runs sh -c
# SCRIPT inside (its $1 a marker, in the tree's /tmp), then a property that
# writes /after in the tree.
site() {
  cat >"$TMP/$1.lua" <<EOF
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  chroot.provisioned(chroot.from_tarball("$T/c", os.debian("$SUITE", "$ARCH"), "$ROOTFS", {
    property {
      desc = "talks",
      check = function(sys) return false end,
      apply = function(sys) sys:run({ "sh", "-c", '$2', "sh", "/tmp/marker" }) end,
    },
    file.has_content("/after", "after\n"),
  })),
}
EOF
}
site flood 'exec yes'
site hang 'exec sleep 600'
site later '(sleep 1; : >"$1") & exec yes'

nocrash() {
  check "$1: no crash" bash -c "! grep -Eqi 'segmentation|core dumped|AddressSanitizer|runtime error:' '$OUT'"
}

echo "---- a command inside that never stops writing (the tree is made first)"
timed_run "$TMP/flood.out" run "$TMP/flood.lua"
same "flood: exit 1 (a property failed)" "$rc" 1
check "flood: the property fails" grep -q "talks .*failed" "$OUT"
check "flood: the reason" grep -q "run sh: output over 64 MiB" "$OUT"
check "flood: prop's memory stayed bounded (${RSS_MB} MB)" test "$RSS_MB" -lt "$(mem_bound 64)"
check "flood: the next property ran" test -e "$T/c/after"
check "flood: no process is left in the tree" no_process_in "$T/c"
nocrash flood
rm -f "$T/c/after"

echo "---- --max-output"
timed_run "$TMP/small.out" run "$TMP/flood.lua" --max-output 1M
same "small: exit 1" "$rc" 1
check "small: the reason" grep -q "run sh: output over 1 MiB" "$OUT"
check "small: no process is left in the tree" no_process_in "$T/c"
rm -f "$T/c/after"

echo "---- a command inside that hangs: --timeout"
timed_run "$TMP/hang.out" run "$TMP/hang.lua" --timeout 3
same "hang: exit 1" "$rc" 1
check "hang: timed out" grep -q "run sh: timed out after 3 s" "$OUT"
check "hang: the next property ran" test -e "$T/c/after"
check "hang: no process is left in the tree" no_process_in "$T/c"
nocrash hang
rm -f "$T/c/after"

echo "---- SIGTERM during a flood inside"
term_when "$T/c/tmp/marker" "$TMP/term.out" run "$TMP/later.lua" --max-output 16G
same "term: exit 130" "$rc" 130
check "term: prop ended within 10 s of the signal (${STOP_S} s)" test "$STOP_S" -le 10
check "term: the property is interrupted" grep -q "talks \.\.\. interrupted" "$OUT"
check "term: no process is left in the tree" no_process_in "$T/c"
nocrash term

finish
