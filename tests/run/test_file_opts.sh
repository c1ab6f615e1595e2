#!/usr/bin/env bash
# The file recipes' options, on real files under the test's scratch
# directory (a connect.dir tree; host "localhost" where a command runs:
# recurse lists with find, validate runs its checker): regex = on
# file.line and file.line_absent (POSIX extended, regcomp), warning W107
# for a match = that is written as a regular expression (a translated
# sshd hardening site), file.touched, recurse = true on file.mode /
# file.owner / file.directory (symlinks not followed), replace = false
# and validate = on file.has_content.  Dry runs change nothing; each
# converged second run changes nothing.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

L="$TMP/local"
T="$TMP/tree"
mkdir -p "$L" "$T/etc"
# site FILE PROPS... : the properties on host "localhost"; tree_site: on
# a host that is the connect.dir tree $T (paths inside it).
site() {
  local f="$1"
  shift
  {
    echo 'host "localhost" {'
    printf '  %s\n' "$@"
    echo '}'
  } >"$f"
}
tree_site() {
  local f="$1"
  shift
  {
    echo 'host "tree" {'
    echo "  connect.dir \"$T\","
    printf '  %s\n' "$@"
    echo '}'
  } >"$f"
}
sshd() {
  printf '%s\n' "# hardening" "#PermitRootLogin prohibit-password" "Port 22" \
    "PermitRootLogin yes" "UsePAM yes" "PasswordAuthentication yes" >"$T/etc/sshd_config"
}

# The trap: a regular expression given as a Lua pattern.  It warns W107
# at the site's line; the run would find no line and append one.
sshd
tree_site "$TMP/trap.lua" \
  "file.line(\"/etc/sshd_config\", \"PermitRootLogin no\", { match = \"^#?PermitRootLogin (yes|no)\" }),"
run_prop "$TMP/trap.out" lint "$TMP/trap.lua"
same "W107: lint exits 0 (a warning)" "$rc" 0
check "W107: said at the site's file and line" \
  grep -q "trap.lua:3: warning\[W107\]: file.line: match \"^#?PermitRootLogin (yes|no)\" is a Lua pattern" "$TMP/trap.out"
check "W107: says to use regex =" grep -q 'give the expression as regex = ' "$TMP/trap.out"
run_prop "$TMP/trapw.out" lint "$TMP/trap.lua" --werror
same "W107: --werror fails the lint" "$rc" 2
run_prop "$TMP/trapx.out" explain W107
check "prop explain W107" grep -q 'W107 (warning)' "$TMP/trapx.out"

# The same with regex =: lints clean, and the run replaces the last line
# the expression finds (as Ansible's lineinfile does).
tree_site "$TMP/regex.lua" \
  "file.line(\"/etc/sshd_config\", \"PermitRootLogin no\", { regex = \"^#?PermitRootLogin (yes|no|prohibit-password)\" }),"
run_prop "$TMP/regexl.out" lint "$TMP/regex.lua"
same "regex: lints clean" "$rc/$(grep -c 'warning\|error' "$TMP/regexl.out")" "0/0"
prop_run "$TMP/regex1.out" "$TMP/regex.lua"
expect_run "regex: first run changes" "$TMP/regex1.out" 0 1 0 0
same "regex: the last matching line replaced" "$(cat "$T/etc/sshd_config")" "# hardening
#PermitRootLogin prohibit-password
Port 22
PermitRootLogin no
UsePAM yes
PasswordAuthentication yes"
prop_run "$TMP/regex2.out" "$TMP/regex.lua"
expect_run "regex: second run ok" "$TMP/regex2.out" 0 0 1 0

# No line matches: the line is appended.
tree_site "$TMP/regexadd.lua" \
  "file.line(\"/etc/sshd_config\", \"X11Forwarding no\", { regex = \"^[[:space:]]*X11Forwarding[[:space:]]\" }),"
prop_run "$TMP/regexadd.out" "$TMP/regexadd.lua"
expect_run "regex: no match, appended" "$TMP/regexadd.out" 0 1 0 0
same "regex: appended at the end" "$(tail -n 1 "$T/etc/sshd_config")" "X11Forwarding no"

# line_absent with regex removes every matching line (with or without a
# line to put back).
tree_site "$TMP/absent.lua" \
  "file.line_absent(\"/etc/sshd_config\", { regex = \"^#?(PermitRootLogin|Port) \" }),"
prop_run "$TMP/absent1.out" "$TMP/absent.lua"
expect_run "line_absent regex: changed" "$TMP/absent1.out" 0 1 0 0
same "line_absent regex: every match removed" "$(cat "$T/etc/sshd_config")" "# hardening
UsePAM yes
PasswordAuthentication yes
X11Forwarding no"
prop_run "$TMP/absent2.out" "$TMP/absent.lua"
expect_run "line_absent regex: second run ok" "$TMP/absent2.out" 0 0 1 0

# A bad expression: a lint error at its line, with regcomp's words; the
# run changes nothing.
cp -p "$T/etc/sshd_config" "$TMP/sshd.before"
tree_site "$TMP/badre.lua" \
  "file.line(\"/etc/sshd_config\", \"UsePAM no\", { regex = \"^UsePAM (yes\" }),"
prop_run "$TMP/badre.out" "$TMP/badre.lua"
same "bad regex: exit 2" "$rc" 2
check "bad regex: P012 at the line" \
  grep -qF 'badre.lua:3: error[P012]: file.line: regex "^UsePAM (yes" is not a POSIX extended regular expression: ' "$TMP/badre.out"
check "bad regex: the file is untouched" cmp -s "$T/etc/sshd_config" "$TMP/sshd.before"

# file.touched: made empty when missing; content never changed; mode and
# owner fixed; a converged touch leaves the times alone.
printf 'keep me\n' >"$T/old.log"
tree_site "$TMP/touch.lua" \
  "file.touched(\"/new.log\", { mode = \"0640\", owner = 65534 })," \
  "file.touched(\"/old.log\", { mode = \"0600\" }),"
prop_run "$TMP/touch0.out" "$TMP/touch.lua" --dry-run
expect_run "touched, dry run: would change" "$TMP/touch0.out" 0 2 0 0
check "touched, dry run: nothing made" test ! -e "$T/new.log"
prop_run "$TMP/touch1.out" "$TMP/touch.lua"
expect_run "touched: first run" "$TMP/touch1.out" 0 2 0 0
same "touched: new file empty, mode and owner" \
  "$(stat -c '%s %a %u' "$T/new.log")" "0 640 65534"
same "touched: old content kept" "$(cat "$T/old.log") $(mode_of "$T/old.log")" "keep me 0600"
touch -d '2001-01-01 00:00:00' "$T/new.log" "$T/old.log"
prop_run "$TMP/touch2.out" "$TMP/touch.lua"
expect_run "touched: second run ok" "$TMP/touch2.out" 0 0 2 0
same "touched: times not updated by a converged run" \
  "$(stat -c '%Y' "$T/new.log" "$T/old.log" | sort -u)" "$(date -d '2001-01-01 00:00:00' +%s)"

# recurse = true: every entry below; symlinks not followed (the file a
# link points to outside the tree keeps its mode and owner).
R="$L/tree"
mkdir -p "$R/a/b"
printf x >"$R/a/f"
printf y >"$R/a/b/g"
printf z >"$L/outside"
chmod 0600 "$L/outside"
ln -s "$L/outside" "$R/a/link"
chmod 0700 "$R/a" "$R/a/b"
site "$TMP/rec.lua" \
  "file.directory(\"$R\", { owner = \"nobody\", recurse = true })," \
  "file.mode(\"$R/a\", \"0640\", { recurse = true }),"
before="$(tree_state "$R" "$L/outside")"
prop_run "$TMP/rec0.out" "$TMP/rec.lua" --dry-run
expect_run "recurse, dry run: would change" "$TMP/rec0.out" 0 2 0 0
same "recurse, dry run: nothing changed" "$(tree_state "$R" "$L/outside")" "$before"
prop_run "$TMP/rec1.out" "$TMP/rec.lua"
expect_run "recurse: first run" "$TMP/rec1.out" 0 2 0 0
same "recurse: owner below" "$(find "$R" ! -type l -printf '%u\n' | sort -u)" "nobody"
same "recurse: modes (directories searchable)" \
  "$(find "$R/a" ! -type l -printf '%P %m\n' | sort)" " 640
b 750
b/g 640
f 640"
same "recurse: the link's target untouched" "$(stat -c '%a %U' "$L/outside")" "600 root"
same "recurse: the link itself untouched" "$(stat -c '%U' "$R/a/link")" "root"
prop_run "$TMP/rec2.out" "$TMP/rec.lua"
expect_run "recurse: second run ok" "$TMP/rec2.out" 0 0 2 0
# file.mode on "$R/a" without recurse would leave a changed entry below alone.
chmod 0666 "$R/a/b/g"
prop_run "$TMP/rec3.out" "$TMP/rec.lua"
expect_run "recurse: a drifted entry below is fixed" "$TMP/rec3.out" 0 1 1 0
same "recurse: drift fixed" "$(stat -c '%a' "$R/a/b/g")" "640"

# A connect.dir tree runs no command: recurse there fails, and says why.
mkdir -p "$T/srv/d"
tree_site "$TMP/rectree.lua" 'file.mode("/srv", "0750", { recurse = true }),'
prop_run "$TMP/rectree.out" "$TMP/rectree.lua"
expect_run "recurse in a tree: failed" "$TMP/rectree.out" 1 0 0 1
check "recurse in a tree: says find could not list it" grep -q 'file.mode: recurse: ' "$TMP/rectree.out"

# replace = false: made when missing, never overwritten.
printf 'local edit\n' >"$T/kept.conf"
tree_site "$TMP/noreplace.lua" \
  "file.has_content(\"/kept.conf\", \"default\", { replace = false, mode = \"0640\" })," \
  "file.has_content(\"/made.conf\", \"default\", { replace = false }),"
prop_run "$TMP/nr1.out" "$TMP/noreplace.lua"
expect_run "replace = false: first run" "$TMP/nr1.out" 0 2 0 0
same "replace = false: existing content kept, mode fixed" \
  "$(cat "$T/kept.conf") $(mode_of "$T/kept.conf")" "local edit 0640"
same "replace = false: a missing file made" "$(cat "$T/made.conf")" "default"
prop_run "$TMP/nr2.out" "$TMP/noreplace.lua"
expect_run "replace = false: second run ok" "$TMP/nr2.out" 0 0 2 0
# replace = false: a link at the path is not the file: a failure, the
# link and what it names left alone.
printf 'target\n' >"$T/target.conf"
ln -s /target.conf "$T/linked.conf"
tree_site "$TMP/nrlink.lua" \
  'file.has_content("/linked.conf", "default", { replace = false }),'
prop_run "$TMP/nrl.out" "$TMP/nrlink.lua"
expect_run "replace = false on a link: failed" "$TMP/nrl.out" 1 0 0 1
check "replace = false on a link: says so" grep -q '/linked.conf is a symbolic link, not a regular file' "$TMP/nrl.out"
same "replace = false on a link: left alone" "$(readlink "$T/linked.conf") $(cat "$T/target.conf")" "/target.conf target"

# validate = on file.has_content: a refusal writes nothing and shows the
# command's output; an acceptance writes the file.
printf 'good\n' >"$L/checked.conf"
cp -p "$L/checked.conf" "$TMP/checked.before"
site "$TMP/val.lua" \
  "file.has_content(\"$L/checked.conf\", \"bad\\n\", { validate = { \"sh\", \"-c\", \"if grep -q bad %s; then echo rejected %s >&2; exit 1; fi\" } }),"
prop_run "$TMP/val1.out" "$TMP/val.lua"
expect_run "validate refuses: failed" "$TMP/val1.out" 1 0 0 1
check "validate refuses: the file is byte-identical" cmp -s "$L/checked.conf" "$TMP/checked.before"
check "validate refuses: the command's output shown" grep -q "rejected $L/checked.conf" "$TMP/val1.out"
check "validate refuses: no check copy left" test ! -e "$L/checked.conf.prop-check"
site "$TMP/val2.lua" \
  "file.has_content(\"$L/checked.conf\", \"fine\\n\", { validate = { \"sh\", \"-c\", \"grep -qx fine %s\" } })," \
  "file.has_content(\"$L/fresh.conf\", \"fine\\n\", { validate = { \"sh\", \"-c\", \"grep -qx fine %s\" } }),"
prop_run "$TMP/val2.out" "$TMP/val2.lua"
expect_run "validate accepts: changed" "$TMP/val2.out" 0 2 0 0
same "validate accepts: written" "$(cat "$L/checked.conf" "$L/fresh.conf")" "fine
fine"
prop_run "$TMP/val3.out" "$TMP/val2.lua"
expect_run "validate: second run ok" "$TMP/val3.out" 0 0 2 0

finish
