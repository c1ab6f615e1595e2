#!/usr/bin/env bash
# conffile.key_value and conffile.ini_setting in a connect.dir tree:
# settings replaced in place (commented-out ones too), appended when
# missing, other lines kept byte for byte, dry runs that change nothing,
# idempotence, the revert, a new section, a missing file, a symlink.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

T="$TMP/tree"
mkdir -p "$T/etc/ssh" "$T/etc/app" "$T/etc/default"
cat >"$T/etc/ssh/sshd_config" <<'EOF'
# sshd configuration
#Port 22
#PermitRootLogin prohibit-password
PasswordAuthentication yes
UsePAM yes
PasswordAuthentication maybe
EOF
cat >"$T/etc/app/app.ini" <<'EOF'
; app settings
[main]
name = demo
;debug = true

[db]
host=localhost
EOF
printf 'A=1\nB=2' >"$T/etc/default/app"
cp "$T/etc/ssh/sshd_config" "$TMP/sshd.orig"

cat >"$TMP/set.lua" <<EOF
host "tree" {
  connect.dir "$T",
  conffile.key_value("/etc/ssh/sshd_config", "PermitRootLogin", "no", { sep = " " }),
  conffile.key_value("/etc/ssh/sshd_config", "PasswordAuthentication", "no", { sep = " " }),
  conffile.key_value("/etc/ssh/sshd_config", "X11Forwarding", "no", { sep = " " }),
  conffile.key_value("/etc/default/app", "B", 3, { sep = "=" }),
  conffile.key_value("/etc/default/new", "ENABLED", "yes", { sep = "=" }),
  conffile.ini_setting("/etc/app/app.ini", "main", "debug", "false"),
  conffile.ini_setting("/etc/app/app.ini", "main", "workers", 4),
  conffile.ini_setting("/etc/app/app.ini", "db", "host", "db1"),
  conffile.ini_setting("/etc/app/app.ini", "cache", "size", "64M"),
}
EOF

before="$(tree_state "$T")"
prop_run "$TMP/dry.out" "$TMP/set.lua" --dry-run --diff
expect_run "dry run: would change" "$TMP/dry.out" 0 9 0 0
same "dry run: the tree is unchanged" "$(tree_state "$T")" "$before"
check "dry run: the diff shows the replaced line" grep -q '"text":"+PermitRootLogin no"' "$TMP/dry.out"

prop_run "$TMP/run1.out" "$TMP/set.lua"
expect_run "first run: changed" "$TMP/run1.out" 0 9 0 0
same "sshd_config edited in place" "$(cat "$T/etc/ssh/sshd_config")" "# sshd configuration
#Port 22
PermitRootLogin no
PasswordAuthentication no
UsePAM yes
X11Forwarding no"
same "a file without a final newline" "$(cat "$T/etc/default/app")" "A=1
B=3"
same "a missing file is made" "$(cat "$T/etc/default/new") $(mode_of "$T/etc/default/new")" \
  "ENABLED=yes 0644"
same "app.ini: settings in their sections, a new section" "$(cat "$T/etc/app/app.ini")" "; app settings
[main]
name = demo
debug = false
workers = 4

[db]
host = db1

[cache]
size = 64M"

prop_run "$TMP/run2.out" "$TMP/set.lua"
expect_run "second run: nothing to do" "$TMP/run2.out" 0 0 9 0

# An existing assignment with the right value but other spacing is kept.
sed -i 's/^UsePAM yes$/UsePAM   yes/' "$T/etc/ssh/sshd_config"
cat >"$TMP/pam.lua" <<EOF
host "tree" { connect.dir "$T",
  conffile.key_value("/etc/ssh/sshd_config", "UsePAM", "yes", { sep = " " }) }
EOF
prop_run "$TMP/pam.out" "$TMP/pam.lua"
expect_run "the same value spelled otherwise: ok" "$TMP/pam.out" 0 0 1 0
check "the line is kept as it was" grep -qx 'UsePAM   yes' "$T/etc/ssh/sshd_config"

# Drift: someone sets another value; the next run puts it back in place.
sed -i 's/^PermitRootLogin no$/PermitRootLogin yes/' "$T/etc/ssh/sshd_config"
prop_run "$TMP/run3.out" "$TMP/set.lua"
expect_run "drift: changed" "$TMP/run3.out" 0 1 8 0
same "drift: third line fixed" "$(sed -n 3p "$T/etc/ssh/sshd_config")" "PermitRootLogin no"

# A symlink is followed: the file it points to is edited.
ln -s app.ini "$T/etc/app/link.ini"
cat >"$TMP/link.lua" <<EOF
host "tree" { connect.dir "$T", conffile.ini_setting("/etc/app/link.ini", "db", "port", "5432") }
EOF
prop_run "$TMP/link.out" "$TMP/link.lua"
expect_run "through a symlink: changed" "$TMP/link.out" 0 1 0 0
check "the link stays a link" test -L "$T/etc/app/link.ini"
same "the target has the setting after db's host" "$(sed -n '/^\[db\]/,/^$/p' "$T/etc/app/app.ini")" "[db]
host = db1
port = 5432"

# The revert removes the lines; other lines stay.
cat >"$TMP/revert.lua" <<EOF
host "tree" {
  connect.dir "$T",
  revert(conffile.key_value("/etc/ssh/sshd_config", "X11Forwarding", "no", { sep = " " })),
  revert(conffile.ini_setting("/etc/app/app.ini", "main", "workers", 4)),
  revert(conffile.key_value("/etc/default/none", "K", "v")),
}
EOF
before="$(tree_state "$T")"
prop_run "$TMP/rdry.out" "$TMP/revert.lua" --dry-run
expect_run "revert, dry run" "$TMP/rdry.out" 0 2 1 0
same "revert, dry run: unchanged" "$(tree_state "$T")" "$before"
prop_run "$TMP/rev1.out" "$TMP/revert.lua"
expect_run "revert: changed" "$TMP/rev1.out" 0 2 1 0
check "revert: X11Forwarding gone" test "$(grep -c X11Forwarding "$T/etc/ssh/sshd_config")" = 0
check "revert: workers gone" test "$(grep -c workers "$T/etc/app/app.ini")" = 0
check "revert: other lines stay" grep -qx 'PermitRootLogin no' "$T/etc/ssh/sshd_config"
check "revert: a missing file is not made" test ! -e "$T/etc/default/none"
prop_run "$TMP/rev2.out" "$TMP/revert.lua"
expect_run "revert again: ok" "$TMP/rev2.out" 0 0 3 0

# A directory where the file should be: the property fails, the run goes on.
mkdir "$T/etc/app/dir.conf"
cat >"$TMP/dir.lua" <<EOF
host "tree" { connect.dir "$T", conffile.key_value("/etc/app/dir.conf", "a", "b") }
EOF
prop_run "$TMP/dir.out" "$TMP/dir.lua"
expect_run "a directory: failed" "$TMP/dir.out" 1 0 0 1
check "a directory: the reason" grep -q 'is a directory, not a file' "$TMP/dir.out"

finish
