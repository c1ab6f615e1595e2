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

# ---- grub.setting, grub.cmdline_word(_absent) on a fresh copy -----------------
cp "$TMP/orig" "$F"
sed -i 's/^GRUB_CMDLINE_LINUX=""$/GRUB_CMDLINE_LINUX="quiet root=\/dev\/sda1 console=tty0"/' "$F"
cat >"$TMP/words.lua" <<EOF
host "tree" { connect.dir "$T", os.debian("bookworm", "amd64"),
  grub.setting("GRUB_TIMEOUT", 3),
  grub.setting("GRUB_TERMINAL", "console serial"),
  grub.cmdline_word "console=ttyS0,115200",
  grub.cmdline_word "console=tty0",
  grub.cmdline_word_absent "quiet" }
EOF
prop_run "$TMP/w1.out" "$TMP/words.lua"
same "words: exit" "$rc" 0
same "words: GRUB_TIMEOUT in place, bare" "$(sed -n 3p "$F")" 'GRUB_TIMEOUT=3'
check "words: GRUB_TERMINAL added, quoted" grep -qx 'GRUB_TERMINAL="console serial"' "$F"
same "words: the word added, quiet removed, the others kept in order" \
  "$(grep '^GRUB_CMDLINE_LINUX=' "$F")" 'GRUB_CMDLINE_LINUX="root=/dev/sda1 console=tty0 console=ttyS0,115200"'
same "words: the default command line untouched" "$(grep '^GRUB_CMDLINE_LINUX_DEFAULT=' "$F")" 'GRUB_CMDLINE_LINUX_DEFAULT="quiet"'
check "words: update-grub owed (not run in a tree, said)" grep -q "update-grub not run: a directory tree" "$TMP/w1.out"
prop_run "$TMP/w2.out" "$TMP/words.lua"
expect_run "words again: nothing changes" "$TMP/w2.out" 0 0 5 0
# Reverted: the word goes, quiet comes back at the end, the setting's line goes.
cat >"$TMP/wrev.lua" <<EOF
host "tree" { connect.dir "$T", os.debian("bookworm", "amd64"),
  revert(grub.setting("GRUB_TIMEOUT", 3)),
  revert(grub.cmdline_word "console=ttyS0,115200"),
  revert(grub.cmdline_word_absent "quiet") }
EOF
prop_run "$TMP/w3.out" "$TMP/wrev.lua"
same "words revert: exit" "$rc" 0
same "words revert: the line" "$(grep '^GRUB_CMDLINE_LINUX=' "$F")" 'GRUB_CMDLINE_LINUX="root=/dev/sda1 console=tty0 quiet"'
check "words revert: GRUB_TIMEOUT=3 gone" test "$(grep -c '^GRUB_TIMEOUT' "$F")" = 0
# No GRUB_CMDLINE_LINUX line at all: one is added; a value prop cannot
# read as words fails and leaves the file alone.
sed -i '/^GRUB_CMDLINE_LINUX=/d' "$F"
prop_run "$TMP/w4.out" "$TMP/words.lua"
same "words, no line: exit" "$rc" 0
same "words, no line: added" "$(grep '^GRUB_CMDLINE_LINUX=' "$F")" 'GRUB_CMDLINE_LINUX="console=ttyS0,115200 console=tty0"'
sed -i 's/^GRUB_CMDLINE_LINUX=.*/GRUB_CMDLINE_LINUX="$EXTRA quiet"/' "$F"
cp "$F" "$TMP/shelly"
prop_run "$TMP/w5.out" "$TMP/words.lua"
same "words, shell in the value: exit" "$rc" 1
check "words, shell in the value: said" grep -q 'is not a quoted list of words prop can edit' "$TMP/w5.out"
same "words, shell in the value: the line kept" "$(grep '^GRUB_CMDLINE_LINUX=' "$F")" "$(grep '^GRUB_CMDLINE_LINUX=' "$TMP/shelly")"

# This machine, dry run: a word would trigger update-grub.
cat >"$TMP/local2.lua" <<EOF
host "localhost" { grub.cmdline_word "prop-test-word" }
EOF
before="$(tree_state /etc/default 2>/dev/null)"
prop_run "$TMP/ldry2.out" "$TMP/local2.lua" --dry-run
check "localhost word, dry run: update-grub would run" grep -q 'would run: /usr/sbin/update-grub' "$TMP/ldry2.out"
same "localhost word, dry run: /etc/default unchanged" "$(tree_state /etc/default 2>/dev/null)" "$before"

# Bad arguments; one word present and absent on one host.
cat >"$TMP/bad2.lua" <<EOF
host "a" { grub.setting("TIMEOUT", 3) }
host "b" { grub.setting("GRUB_CMDLINE_LINUX_DEFAULT", "quiet") }
host "c" { grub.setting("GRUB_TIMEOUT", '\$(reboot)') }
host "d" { grub.cmdline_word "quiet splash" }
host "e" { grub.cmdline_word_absent "" }
host "f" { grub.cmdline_word "quiet", grub.cmdline_word_absent "quiet" }
host "g" { grub.setting("GRUB_TIMEOUT", 3), grub.setting("GRUB_TIMEOUT", 5) }
EOF
run_prop "$TMP/bad2.out" lint "$TMP/bad2.lua"
for l in 1 2 3 4 5; do
  check "bad argument at line $l: P012" grep -q "bad2.lua:$l: error\[P012\]" "$TMP/bad2.out"
done
check "a word present and absent: P007" grep -q "bad2.lua:6: error\[P007\]" "$TMP/bad2.out"
check "two timeouts: P007" grep -q "bad2.lua:7: error\[P007\]" "$TMP/bad2.out"

finish
