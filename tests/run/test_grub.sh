#!/usr/bin/env bash
# grub.cmdline_default: /etc/default/grub of a connect.dir tree edited in
# place (dry run with its diff, first run, second run ok, revert), and
# update-grub as the change's on_change trigger, shown by a dry run on
# this machine (nothing runs or is written here).
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

T="$TMP/tree"
mkdir -p "$T/etc/default"
F="$T/etc/default/grub"
cat >"$F" <<'EOF'
# If you change this file, run 'update-grub' afterwards.
GRUB_DEFAULT=0
GRUB_TIMEOUT=5
GRUB_CMDLINE_LINUX_DEFAULT="quiet"
GRUB_CMDLINE_LINUX=""
EOF
cp "$F" "$TMP/orig"
cat >"$TMP/set.lua" <<EOF
host "tree" { connect.dir "$T", os.debian("bookworm", "amd64"),
  grub.cmdline_default { "quiet", "console=ttyS0,115200" } }
EOF
cat >"$TMP/unset.lua" <<EOF
host "tree" { connect.dir "$T", os.debian("bookworm", "amd64"),
  revert(grub.cmdline_default { "quiet", "console=ttyS0,115200" }) }
EOF

prop_run "$TMP/dry.out" "$TMP/set.lua" --dry-run --diff
expect_run "dry run: would change" "$TMP/dry.out" 0 1 0 0
check "dry run: the diff" grep -q '+GRUB_CMDLINE_LINUX_DEFAULT=\\"quiet console=ttyS0,115200\\"' "$TMP/dry.out"
check "dry run: file unchanged" cmp -s "$F" "$TMP/orig"

prop_run "$TMP/run1.out" "$TMP/set.lua"
expect_run "first run: changed" "$TMP/run1.out" 0 1 0 0
same "the line, in place" "$(sed -n 4p "$F")" 'GRUB_CMDLINE_LINUX_DEFAULT="quiet console=ttyS0,115200"'
same "other lines kept" "$(sed '4d' "$F")" "$(sed '4d' "$TMP/orig")"
check "tree: update-grub not run, said" grep -q "update-grub not run: a directory tree" "$TMP/run1.out"
prop_run "$TMP/run2.out" "$TMP/set.lua"
expect_run "second run: ok" "$TMP/run2.out" 0 0 1 0
check "second run: no update-grub" test "$(grep -c 'update-grub' "$TMP/run2.out")" = 0

prop_run "$TMP/r1.out" "$TMP/unset.lua"
expect_run "revert: changed" "$TMP/r1.out" 0 1 0 0
check "revert: the line is gone" test "$(grep -c '^GRUB_CMDLINE_LINUX_DEFAULT' "$F")" = 0
check "revert: other lines kept" grep -q '^GRUB_TIMEOUT=5$' "$F"
prop_run "$TMP/r2.out" "$TMP/unset.lua"
expect_run "revert again: ok" "$TMP/r2.out" 0 0 1 0

# This machine, dry run: the edit would trigger update-grub.
cat >"$TMP/local.lua" <<EOF
host "localhost" { grub.cmdline_default "quiet splash" }
EOF
before="$(tree_state /etc/default 2>/dev/null)"
prop_run "$TMP/ldry.out" "$TMP/local.lua" --dry-run
expect_run "localhost, dry run: would change" "$TMP/ldry.out" 0 1 0 0
check "localhost, dry run: update-grub would run" grep -q 'would run: /usr/sbin/update-grub' "$TMP/ldry.out"
same "localhost, dry run: /etc/default unchanged" "$(tree_state /etc/default 2>/dev/null)" "$before"

# Bad arguments and two values on one host.
cat >"$TMP/bad.lua" <<EOF
host "localhost" { grub.cmdline_default 'init=\$(reboot)' }
host "two" { grub.cmdline_default "quiet", grub.cmdline_default "splash" }
EOF
run_prop "$TMP/bad.out" lint "$TMP/bad.lua"
check "shell characters: P012" grep -q "bad.lua:1: error\[P012\]" "$TMP/bad.out"
check "two values: P007" grep -q "bad.lua:2: error\[P007\]" "$TMP/bad.out"

finish
