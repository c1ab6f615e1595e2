#!/usr/bin/env bash
# file.line and file.line_absent in a connect.dir tree: the last matching
# line replaced, lines inserted after/before anchors or at the end, a
# second run that changes nothing, mode and owner kept, a validate
# command that refuses (the file left byte for byte), a dry run that
# changes nothing, a missing file (failure, or create = true), the revert;
# and file.contains_lines' note when it appends "Key value" to a file that
# already sets Key.  Everything is under the test's scratch directory.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

T="$TMP/tree"
mkdir -p "$T/etc"
printf '%s\n' "# sshd" "PermitRootLogin yes" "Port 22" "#PermitRootLogin prohibit-password" \
  "PermitRootLogin without-password" "UsePAM yes" >"$T/etc/sshd"
chown nobody:nogroup "$T/etc/sshd"
chmod 0640 "$T/etc/sshd"
printf 'a=1\nb=2\n' >"$T/etc/app.conf"
printf 'one\ntwo' >"$T/etc/noeol"

# site FILE LINES... : a site for the tree with the given properties.
site() {
  local f="$1"
  shift
  {
    echo 'host "tree" {'
    echo "  connect.dir \"$T\","
    printf '  %s\n' "$@"
    echo '}'
  } >"$f"
}

site "$TMP/set.lua" \
  'file.line("/etc/sshd", "PermitRootLogin no", { match = "^PermitRootLogin%s" }),' \
  'file.line("/etc/sshd", "X11Forwarding no", { after = "^Port%s" }),' \
  'file.line("/etc/sshd", "Banner none", { before = "^UsePAM" }),' \
  'file.line("/etc/app.conf", "c=3", { after = "^nothing" }),' \
  'file.line("/etc/app.conf", "first=0", { before = "^" }),' \
  'file.line("/etc/app.conf", "b=2", { match_plain = "x.y" }),' \
  'file.line("/etc/noeol", "three"),'

before="$(tree_state "$T")"
prop_run "$TMP/dry.out" "$TMP/set.lua" --dry-run --diff
expect_run "dry run: would change" "$TMP/dry.out" 0 6 1 0
same "dry run: the tree is unchanged" "$(tree_state "$T")" "$before"
check "dry run: the diff shows the replaced line" grep -q '"text":"+PermitRootLogin no"' "$TMP/dry.out"
check "dry run: the diff shows the removed line" \
  grep -q '"text":"-PermitRootLogin without-password"' "$TMP/dry.out"

prop_run "$TMP/run1.out" "$TMP/set.lua"
expect_run "first run: changed" "$TMP/run1.out" 0 6 1 0
same "the last match replaced, anchors honoured" "$(cat "$T/etc/sshd")" "# sshd
PermitRootLogin yes
Port 22
X11Forwarding no
#PermitRootLogin prohibit-password
PermitRootLogin no
Banner none
UsePAM yes"
same "mode and owner kept" "$(mode_of "$T/etc/sshd") $(owner_of "$T/etc/sshd")" "0640 nobody:nogroup"
same "an anchor that finds nothing: the end; before ^: the start" "$(cat "$T/etc/app.conf")" "first=0
a=1
b=2
c=3"
same "a file without a final newline" "$(
  cat "$T/etc/noeol"
  echo .
)" "one
two
three
."

prop_run "$TMP/run2.out" "$TMP/set.lua"
expect_run "second run: nothing to do" "$TMP/run2.out" 0 0 7 0

# validate runs a command: on this machine (host "localhost"), on a file
# under the scratch directory.  A command that refuses leaves the file as
# it was, byte for byte, and fails the property with what the command
# said; one that accepts lets the change through.
L="$TMP/local"
mkdir -p "$L"
cp -p "$T/etc/sshd" "$L/sshd"
cp -p "$L/sshd" "$TMP/sshd.before"
site_local() {
  local f="$1"
  shift
  {
    echo 'host "localhost" {'
    printf '  %s\n' "$@"
    echo '}'
  } >"$f"
}
site_local "$TMP/validate.lua" \
  "file.line(\"$L/sshd\", \"PermitRootLogin bad\", { match = \"^PermitRootLogin%s\"," \
  '  validate = { "sh", "-c", "if grep -q bad %s; then echo bad value in %s >&2; exit 1; fi" } }),'
prop_run "$TMP/v1.out" "$TMP/validate.lua"
expect_run "validate refuses: failed" "$TMP/v1.out" 1 0 0 1
check "validate refuses: the file is byte-identical" cmp -s "$L/sshd" "$TMP/sshd.before"
check "validate refuses: the command's message is shown" grep -q "bad value in $L/sshd" "$TMP/v1.out"
check "validate refuses: no check file left" test ! -e "$L/sshd.prop-check"

sed -i 's/PermitRootLogin bad/PermitRootLogin good/' "$TMP/validate.lua"
prop_run "$TMP/v2.out" "$TMP/validate.lua" --dry-run
expect_run "validate, dry run: would change" "$TMP/v2.out" 0 1 0 0
check "validate, dry run: the file is byte-identical" cmp -s "$L/sshd" "$TMP/sshd.before"
check "validate, dry run: the check is said" grep -q 'would check the new content with sh -c' "$TMP/v2.out"
prop_run "$TMP/v3.out" "$TMP/validate.lua"
expect_run "validate accepts: changed" "$TMP/v3.out" 0 1 0 0
check "validate accepts: the line is replaced" grep -qx "PermitRootLogin good" "$L/sshd"
check "validate accepts: no check file left" test ! -e "$L/sshd.prop-check"
same "validate accepts: mode and owner kept" "$(mode_of "$L/sshd") $(owner_of "$L/sshd")" \
  "0640 nobody:nogroup"

# A validator that cannot run: a failure, and no check copy left behind.
site_local "$TMP/novalidator.lua" \
  "file.line(\"$L/sshd\", \"Port 2222\", { validate = { \"prop-test-no-such-validator\", \"%s\" } }),"
cp -p "$L/sshd" "$TMP/sshd.before"
prop_run "$TMP/nv.out" "$TMP/novalidator.lua"
expect_run "validator missing: failed" "$TMP/nv.out" 1 0 0 1
check "validator missing: the file is byte-identical" cmp -s "$L/sshd" "$TMP/sshd.before"
check "validator missing: no check file left" test ! -e "$L/sshd.prop-check"

if command -v visudo >/dev/null; then
  printf 'root ALL=(ALL:ALL) ALL\n' >"$L/sudoers"
  chmod 0440 "$L/sudoers"
  cp -p "$L/sudoers" "$TMP/sudoers.before"
  site_local "$TMP/sudo.lua" \
    "file.line(\"$L/sudoers\", \"Defaults env_reset,,\", { validate = { \"visudo\", \"-cf\", \"%s\" } }),"
  prop_run "$TMP/s.out" "$TMP/sudo.lua"
  expect_run "visudo refuses a broken line" "$TMP/s.out" 1 0 0 1
  check "visudo refuses: the file is byte-identical" cmp -s "$L/sudoers" "$TMP/sudoers.before"
  check "visudo refuses: what visudo said is shown" grep -q 'visudo -cf %s refuses' "$TMP/s.out"
fi

# A missing file fails; create = true makes it (0644).
site "$TMP/missing.lua" 'file.line("/etc/new.conf", "x=1", { match = "^x=" }),'
prop_run "$TMP/m1.out" "$TMP/missing.lua"
expect_run "missing file: failed" "$TMP/m1.out" 1 0 0 1
check "missing file: the message says so" grep -q 'does not exist (create = true makes it)' "$TMP/m1.out"
check "missing file: not made" test ! -e "$T/etc/new.conf"
site "$TMP/missing.lua" 'file.line("/etc/new.conf", "x=1", { match = "^x=", create = true }),'
prop_run "$TMP/m2.out" "$TMP/missing.lua"
expect_run "create = true: changed" "$TMP/m2.out" 0 1 0 0
same "create = true: the file holds the line" \
  "$(cat "$T/etc/new.conf") $(mode_of "$T/etc/new.conf")" "x=1 0644"

# The revert: with a match, every line it finds goes; without, the line.
site "$TMP/revert.lua" \
  'revert(file.line("/etc/sshd", "PermitRootLogin no", { match = "^PermitRootLogin%s" })),' \
  'file.line_absent("/etc/app.conf", "c=3"),'
prop_run "$TMP/r1.out" "$TMP/revert.lua"
expect_run "revert: changed" "$TMP/r1.out" 0 2 0 0
same "revert: every matching line removed" "$(cat "$T/etc/sshd")" "# sshd
Port 22
X11Forwarding no
#PermitRootLogin prohibit-password
Banner none
UsePAM yes"
same "revert: mode and owner kept" "$(mode_of "$T/etc/sshd") $(owner_of "$T/etc/sshd")" \
  "0640 nobody:nogroup"
same "line_absent: the line removed" "$(cat "$T/etc/app.conf")" "first=0
a=1
b=2"
prop_run "$TMP/r2.out" "$TMP/revert.lua"
expect_run "revert again: nothing to do" "$TMP/r2.out" 0 0 2 0

# file.contains_lines appending "Key value" to a file that already sets
# Key to another value: the first value stays in force for sshd; a note
# says so and names file.line.
mkdir -p "$T/etc/ssh"
printf 'PermitRootLogin yes\nUsePAM yes\n' >"$T/etc/ssh/sshd_config"
site "$TMP/contains.lua" \
  'file.contains_lines("/etc/ssh/sshd_config", { "PermitRootLogin no", "UsePAM yes", "Port 2222" }),'
prop_run "$TMP/c1.out" "$TMP/contains.lua"
expect_run "contains_lines: changed" "$TMP/c1.out" 0 1 0 0
check "contains_lines: the shadowed setting is named" \
  grep -q 'already sets PermitRootLogin on line 1.*file.line.*ssh.sshd_config' "$TMP/c1.out"
same "contains_lines: one note only (Port and UsePAM are fine)" \
  "$(grep -c 'already sets' "$TMP/c1.out")" 1
prop_run "$TMP/c2.out" "$TMP/contains.lua"
expect_run "contains_lines again: ok" "$TMP/c2.out" 0 0 1 0
same "contains_lines again: no note" "$(grep -c 'already sets' "$TMP/c2.out")" 0

finish
