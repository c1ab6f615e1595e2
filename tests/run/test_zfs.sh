#!/usr/bin/env bash
# zfs.dataset: its argument checks (P012 at their lines; a revert without
# destroy_on_revert is P001), and on a machine without zfs (this one, as a
# rule) the commands a dry run says it would run, and a real run that
# fails saying zfs is missing, changing nothing.  The live part (a pool on
# a file of the scratch directory, the dataset made, a property set back,
# a second run ok, the revert destroying it) runs only where zfs and
# zpool work; elsewhere it is skipped, said so.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

cat >"$TMP/bad.lua" <<'SITE'
host "a" { zfs.dataset("tank") }
host "b" { zfs.dataset("tank/data", { mountpoint = "srv" }) }
host "c" { zfs.dataset("tank/data", { compression = "lz4 fast" }) }
host "d" { zfs.dataset("tank/data", { properties = { Atime = "off" } }) }
host "e" { zfs.dataset("tank/data", { properties = { mountpoint = "/x" } }) }
host "f" { zfs.dataset("tank/data", { destroy = true }) }
host "g" { revert(zfs.dataset("tank/data")) }
SITE
run_prop "$TMP/bad.out" lint "$TMP/bad.lua"
same "bad arguments: lint exit" "$rc" 2
for l in 1 2 3 4 5 6; do
  check "bad argument at line $l: P012" grep -q "bad.lua:$l: error\[P012\]" "$TMP/bad.out"
done
check "revert without destroy_on_revert: P001" grep -q "bad.lua:7: error\[P001\]" "$TMP/bad.out"
check "revert without destroy_on_revert: says why" grep -q "bad.lua:7: note: .*destroy_on_revert = true" "$TMP/bad.out"

cat >"$TMP/ok.lua" <<'SITE'
host "h" { revert(zfs.dataset("tank/data", { destroy_on_revert = true })) }
SITE
run_prop "$TMP/ok.out" lint "$TMP/ok.lua"
same "revert with destroy_on_revert: lint ok" "$rc" 0

if ! command -v zfs >/dev/null 2>&1; then
  P="prop-test-nozfs$$"
  cat >"$TMP/site.lua" <<SITE
host "localhost" {
  zfs.dataset("$P/backups", { mountpoint = "$TMP/mnt", compression = "lz4",
                              properties = { atime = false, recordsize = 1048576 }, parents = true }),
}
SITE
  prop_run "$TMP/d.out" "$TMP/site.lua" --dry-run
  expect_run "no zfs, dry run: would change" "$TMP/d.out" 0 1 0 0
  check "no zfs, dry run: the command it would run" \
    grep -q "would run: zfs create -p -o mountpoint=$TMP/mnt -o compression=lz4 -o atime=off -o recordsize=1048576 $P/backups" "$TMP/d.out"
  check "no zfs, dry run: says zfs is missing" grep -q "zfs is not on the target" "$TMP/d.out"
  prop_run "$TMP/r.out" "$TMP/site.lua"
  expect_run "no zfs, run: fails" "$TMP/r.out" 1 0 0 1
  check "no zfs, run: says so" grep -q "zfs is not installed on the target" "$TMP/r.out"
  check "no zfs, run: no mount point made" test ! -e "$TMP/mnt"
  skip_part "zfs is not installed here: the live part (a pool on a file) is not run"
  finish
  exit
fi

# Live: a pool of the test's own on a sparse file, destroyed on exit.
POOL="proptest$$"
truncate -s 128M "$TMP/pool.img"
if ! zpool create -m none "$POOL" "$TMP/pool.img" 2>"$TMP/zpool.err"; then
  skip_part "zpool create fails here: $(cat "$TMP/zpool.err")"
  finish
  exit
fi
on_exit "zpool destroy -f '$POOL'"
cat >"$TMP/live.lua" <<SITE
host "localhost" {
  zfs.dataset("$POOL/a/b", { mountpoint = "$TMP/mnt", compression = "lz4",
                             properties = { atime = false }, parents = true, destroy_on_revert = true }),
}
SITE
prop_run "$TMP/l1.out" "$TMP/live.lua"
expect_run "live: made" "$TMP/l1.out" 0 1 0 0
same "live: compression" "$(zfs get -H -o value compression "$POOL/a/b")" lz4
same "live: atime" "$(zfs get -H -o value atime "$POOL/a/b")" off
same "live: mountpoint" "$(zfs get -H -o value mountpoint "$POOL/a/b")" "$TMP/mnt"
prop_run "$TMP/l2.out" "$TMP/live.lua"
expect_run "live: second run ok" "$TMP/l2.out" 0 0 1 0
zfs set compression=off "$POOL/a/b"
prop_run "$TMP/l3.out" "$TMP/live.lua"
expect_run "live: drift set back" "$TMP/l3.out" 0 1 0 0
same "live: compression again" "$(zfs get -H -o value compression "$POOL/a/b")" lz4
sed -i 's/^  zfs.dataset/  revert(zfs.dataset/; s/destroy_on_revert = true }),/destroy_on_revert = true })),/' "$TMP/live.lua"
prop_run "$TMP/l4.out" "$TMP/live.lua"
expect_run "live: reverted" "$TMP/l4.out" 0 1 0 0
if zfs list "$POOL/a/b" >/dev/null 2>&1; then fail "live: destroyed" "it is still there"; else pass; fi

finish
