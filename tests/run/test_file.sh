#!/usr/bin/env bash
# file.* for real: in a connect.dir tree and on localhost under a scratch
# directory.  For each: a dry run changes nothing on disk and reports
# changed; the first run makes the effect (checked with cat and stat); the
# second changes nothing.  Then the failures: a non-empty directory for
# file.absent, a file where a link should be, a missing path for file.mode.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# ---------------------------------------------------------------------
# A connect.dir tree: paths in the site are inside the tree.
T="$TMP/tree"
mkdir -p "$T/etc" "$T/srv" "$T/var/old-empty" "$T/var/old-full"
printf 'keep me\nsecure=0\n' >"$T/etc/foo.conf"
chmod 600 "$T/etc/foo.conf"
printf 'a\nbad\nb\nbad\n' >"$T/etc/lacks"
printf 'no final newline' >"$T/etc/nonl"
echo old >"$T/etc/to-remove"
ln -s /nowhere "$T/etc/dead-link"
echo x >"$T/var/old-full/x"
ln -s /etc/old-target "$T/etc/repoint"
echo data >"$T/srv/data"
printf 'orig\n' >"$T/etc/real.conf"
chmod 640 "$T/etc/real.conf"
ln -s real.conf "$T/etc/linked"
chmod 644 "$T/srv/data"
echo owned >"$T/srv/owned"

cat >"$TMP/tree.lua" <<EOF
host "tree" {
  connect.dir "$T",
  file.has_content("/etc/motd", { "Welcome", "Managed by prop" }),
  file.has_content("/etc/secret", "s3cr3t-value\n", { mode = "0600", secret = true }),
  file.contains_lines("/etc/foo.conf", { "secure=1", "log=syslog" }),
  file.contains_lines("/etc/new.conf", "created=1"),
  file.contains_lines("/etc/nonl", "added"),
  file.contains_lines("/etc/linked", "via=link"),
  file.lacks_lines("/etc/lacks", "bad"),
  file.lacks_lines("/etc/never-there", "bad"),
  file.directory("/srv/www/site/htdocs", { mode = "0750", owner = 1234, group = 1235 }),
  file.absent("/etc/to-remove"),
  file.absent("/etc/dead-link"),
  file.absent("/var/old-empty"),
  file.absent("/etc/never-existed"),
  file.symlink("/etc/link", "../srv/data"),
  file.symlink("/etc/repoint", "/etc/new-target"),
  file.mode("/srv/data", "0640"),
  file.owner("/srv/owned", 4321, 4322),
}
EOF
NPROPS=17

before="$(tree_state "$T")"
prop_run "$TMP/dry.out" "$TMP/tree.lua" --dry-run
expect_run "tree: dry run reports every property but two as changed" "$TMP/dry.out" 0 15 2 0
same "tree: dry run left the tree alone" "$(tree_state "$T")" "$before"
same "tree: dry run 'ok' for a file that lacks the lines" \
  "$(result_of "$TMP/dry.out" "never-there")" ok

run_prop "$TMP/diff.out" run "$TMP/tree.lua" --dry-run --diff
if grep -q 's3cr3t-value' "$TMP/diff.out"; then
  fail "tree: --diff hides secret content" "the secret was printed" "$TMP/diff.out"
else
  pass
fi
check "tree: --diff shows ordinary content" grep -q 'Managed by prop' "$TMP/diff.out"

prop_run "$TMP/run1.out" "$TMP/tree.lua"
expect_run "tree: first run" "$TMP/run1.out" 0 15 2 0
same "tree: host summary counts the changes" "$(host_count "$TMP/run1.out" tree changed)" 15
same "has_content: list of lines" "$(cat "$T/etc/motd")" $'Welcome\nManaged by prop'
same "has_content: new file mode 0644" "$(mode_of "$T/etc/motd")" 0644
same "has_content: secret content" "$(cat "$T/etc/secret")" "s3cr3t-value"
same "has_content: mode 0600" "$(mode_of "$T/etc/secret")" 0600
same "contains_lines: appended, rest kept" "$(cat "$T/etc/foo.conf")" \
  $'keep me\nsecure=0\nsecure=1\nlog=syslog'
same "contains_lines: mode kept" "$(mode_of "$T/etc/foo.conf")" 0600
same "contains_lines: missing file created" "$(cat "$T/etc/new.conf")" "created=1"
same "contains_lines: newline added before the line" "$(cat "$T/etc/nonl")" $'no final newline\nadded'
check "contains_lines: the link stays a link" test -L "$T/etc/linked"
same "contains_lines: the file it points to edited" "$(cat "$T/etc/real.conf")" $'orig\nvia=link'
same "contains_lines: its mode kept" "$(mode_of "$T/etc/real.conf")" 0640
same "lacks_lines: every occurrence removed" "$(cat "$T/etc/lacks")" $'a\nb'
check "lacks_lines: missing file stays missing" test ! -e "$T/etc/never-there"
check "directory: made with its parents" test -d "$T/srv/www/site/htdocs"
same "directory: mode" "$(mode_of "$T/srv/www/site/htdocs")" 0750
same "directory: owner" "$(stat -c '%u:%g' "$T/srv/www/site/htdocs")" 1234:1235
same "directory: parents 0755 root" "$(stat -c '%a %u' "$T/srv/www" "$T/srv/www/site" | tr '\n' ' ')" \
  "755 0 755 0 "
check "absent: file removed" test ! -e "$T/etc/to-remove"
check "absent: dangling link removed" test ! -L "$T/etc/dead-link"
check "absent: empty directory removed" test ! -e "$T/var/old-empty"
same "symlink: made" "$(readlink "$T/etc/link")" "../srv/data"
same "symlink: repointed" "$(readlink "$T/etc/repoint")" "/etc/new-target"
same "mode: set" "$(mode_of "$T/srv/data")" 0640
same "owner: set" "$(stat -c '%u:%g' "$T/srv/owned")" 4321:4322

after1="$(tree_state "$T")"
prop_run "$TMP/run2.out" "$TMP/tree.lua"
expect_run "tree: second run changes nothing" "$TMP/run2.out" 0 0 "$NPROPS" 0
same "tree: second run left the tree as it was" "$(tree_state "$T")" "$after1"

# Drift is corrected, and only what drifted.
echo tampered >"$T/etc/motd"
chmod 0644 "$T/etc/secret"
echo "bad" >>"$T/etc/lacks"
chmod 0700 "$T/srv/www/site/htdocs"
prop_run "$TMP/run3.out" "$TMP/tree.lua"
expect_run "tree: drift corrected" "$TMP/run3.out" 0 4 13 0
same "drift: content back" "$(cat "$T/etc/motd")" $'Welcome\nManaged by prop'
same "drift: secret mode back" "$(mode_of "$T/etc/secret")" 0600
same "drift: line removed again" "$(cat "$T/etc/lacks")" $'a\nb'
same "drift: directory mode back" "$(mode_of "$T/srv/www/site/htdocs")" 0750

# ---------------------------------------------------------------------
# Failures are failures of their property, with a clear message; the
# other properties still run.
F="$TMP/fails"
mkdir -p "$F/etc/full" "$F/etc/dir-at-link"
echo x >"$F/etc/full/x"
echo regular >"$F/etc/regular"
cat >"$TMP/fails.lua" <<EOF
host "fails" {
  connect.dir "$F",
  file.absent("/etc/full"),
  file.symlink("/etc/regular", "/elsewhere"),
  file.mode("/etc/missing", "0644"),
  file.has_content("/etc/no-such-dir/file", "x"),
  file.has_content("/etc/dir-at-link", "x"),
  file.directory("/etc/regular/sub"),
  file.has_content("/etc/fine", "fine\n"),
}
EOF
prop_run "$TMP/fails.out" "$TMP/fails.lua"
expect_run "failures: six fail, the last still runs" "$TMP/fails.out" 1 1 0 6
check "failures: non-empty directory named" grep -q 'not empty' "$TMP/fails.out"
check "failures: non-empty directory kept" test -e "$F/etc/full/x"
check "failures: a file is not replaced by a link" grep -q 'replaces only a link' "$TMP/fails.out"
same "failures: the regular file is intact" "$(cat "$F/etc/regular")" regular
check "failures: file.mode on a missing path" grep -q '/etc/missing does not exist' "$TMP/fails.out"
check "failures: a directory is not a file" grep -q 'is a directory, not a file' "$TMP/fails.out"
check "failures: no directory under a file" grep -q 'is a file, not a directory' "$TMP/fails.out"
same "failures: the last property ran" "$(cat "$F/etc/fine")" fine

# ---------------------------------------------------------------------
# localhost: the same recipes on this machine, under a scratch directory,
# with owners by name.
L="$TMP/local"
mkdir -p "$L"
echo 'line one' >"$L/lines"
echo gone >"$L/gone"
echo m >"$L/m"
chmod 600 "$L/m"
cat >"$TMP/local.lua" <<EOF
host "localhost" {
  file.has_content("$L/a/content", "hello\n", { mode = "0640", owner = "nobody", group = "nogroup" }),
  file.contains_lines("$L/lines", { "line two" }),
  file.lacks_lines("$L/lines", { "line one" }),
  file.directory("$L/a", { mode = "0711" }),
  file.symlink("$L/link", "$L/lines"),
  file.absent("$L/gone"),
  file.mode("$L/m", "0604"),
  file.owner("$L/m", "daemon", "daemon"),
}
EOF
mkdir -p "$L/a"
chmod 755 "$L/a"
before="$(tree_state "$L")"
prop_run "$TMP/ldry.out" "$TMP/local.lua" --dry-run
expect_run "localhost: dry run" "$TMP/ldry.out" 0 8 0 0
same "localhost: dry run left the files alone" "$(tree_state "$L")" "$before"

prop_run "$TMP/l1.out" "$TMP/local.lua"
expect_run "localhost: first run" "$TMP/l1.out" 0 8 0 0
same "localhost: content" "$(cat "$L/a/content")" hello
same "localhost: owner by name" "$(owner_of "$L/a/content") $(mode_of "$L/a/content")" \
  "nobody:nogroup 0640"
same "localhost: lines" "$(cat "$L/lines")" "line two"
same "localhost: directory mode fixed" "$(mode_of "$L/a")" 0711
same "localhost: link" "$(readlink "$L/link")" "$L/lines"
check "localhost: absent" test ! -e "$L/gone"
same "localhost: mode and owner" "$(mode_of "$L/m") $(owner_of "$L/m")" "0604 daemon:daemon"

after1="$(tree_state "$L")"
prop_run "$TMP/l2.out" "$TMP/local.lua"
expect_run "localhost: second run changes nothing" "$TMP/l2.out" 0 0 8 0
same "localhost: second run left the files as they were" "$(tree_state "$L")" "$after1"

finish
