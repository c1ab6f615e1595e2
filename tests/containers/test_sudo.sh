#!/usr/bin/env bash
# sudo.enabled_for inside a chroot container made from the test rootfs
# cache (this machine's /etc/sudoers.d is never touched): a clear failure
# while sudo is missing; then sudo installed, an account, and its rules
# file written 0440 root:root, accepted by visudo and read by sudo itself
# (sudo -l); a dry run that changes nothing; a second run with no change;
# a mode changed by hand put back; rules visudo refuses, which must fail
# with visudo's message and leave the old file; no check copy left
# behind in any case; and the revert, which removes the file.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

rootfs_cache
T="$TMP/trees"
mkdir -p "$T"
B="$T/sudobox"
U=prop-test-sudo
F="$B/etc/sudoers.d/prop-$U"

write_site() { # PROPERTIES...
  tarball_host "$B" "$*" >"$TMP/site.lua"
}
# The sudo -l lines of the account, as sudo itself reads the rules.
sudo_l() {
  chroot "$B" sudo -l -U "$U" 2>&1 | sed -n '/may run the following/,$p' | sed 1d | sed 's/^ *//'
}
no_check_copy() {
  [[ -z "$(find "$B/etc/sudoers.d" -name '*prop-check*' 2>/dev/null)" ]]
}

# ---- sudo missing: a clear failure ---------------------------------------------
write_site "sudo.enabled_for(\"$U\"),"
prop_run "$TMP/m.out" "$TMP/site.lua"
same "sudo missing: exit" "$rc" 1
same "sudo missing: the property fails" "$(host_count "$TMP/m.out" localhost/sudobox failed)" 1
check "sudo missing: says so" grep -q 'sudo is not installed' "$TMP/m.out"
check "sudo missing: no file written" test ! -e "$F"

# ---- rules: dry run, run, second run --------------------------------------------
RULES="apt.installed_min { \"sudo\" },
    user.account(\"$U\"),
    sudo.enabled_for(\"$U\", { nopasswd = true, commands = { \"/usr/bin/id\", \"/usr/bin/ls /tmp\" } }),"
write_site "$RULES"
prop_run "$TMP/d.out" "$TMP/site.lua" --dry-run
same "dry run: exit" "$rc" 0
same "dry run: three would change" "$(host_count "$TMP/d.out" localhost/sudobox changed)" 3
check "dry run: no file" test ! -e "$F"
check "dry run: sudo not installed" test ! -e "$B/usr/sbin/visudo"

prop_run "$TMP/r1.out" "$TMP/site.lua"
same "first run: exit" "$rc" 0
same "first run: three changed, none failed" \
  "$(changed_failed "$TMP/r1.out" localhost/sudobox)" "3/0"
check "first run: no W104" bash -c "! grep -q W104 '$TMP/r1.out'"
same "the file: mode and owner" "$(stat -c '%a %U:%G' "$F")" "440 root:root"
same "the rule line" "$(grep -v '^#' "$F")" "$U ALL=(ALL:ALL) NOPASSWD: /usr/bin/id, /usr/bin/ls /tmp"
check "visudo accepts the whole configuration" bash -c "chroot '$B' visudo -c >/dev/null"
same "sudo reads the rules" "$(sudo_l)" "(ALL : ALL) NOPASSWD: /usr/bin/id, /usr/bin/ls /tmp"
check "no check copy left" no_check_copy

prop_run "$TMP/r2.out" "$TMP/site.lua"
same "second run: exit" "$rc" 0
same "second run: nothing changes" "$(host_count "$TMP/r2.out" localhost/sudobox changed)" 0

# ---- other rules, dry run: the file stays ------------------------------------------
cp "$F" "$TMP/good"
write_site "apt.installed_min { \"sudo\" }, user.account(\"$U\"), sudo.enabled_for(\"$U\"),"
prop_run "$TMP/o.out" "$TMP/site.lua" --dry-run
same "new rules, dry run: exit" "$rc" 0
same "new rules, dry run: one would change" "$(host_count "$TMP/o.out" localhost/sudobox changed)" 1
same "new rules, dry run: the file is unchanged" "$(cat "$F")" "$(cat "$TMP/good")"
check "new rules, dry run: no check copy" no_check_copy

# ---- a mode changed by hand ------------------------------------------------------
write_site "$RULES"
chmod 0644 "$F"
prop_run "$TMP/c.out" "$TMP/site.lua"
same "mode by hand: one change" "$(host_count "$TMP/c.out" localhost/sudobox changed)" 1
same "mode by hand: put back" "$(stat -c '%a' "$F")" 440
same "mode by hand: content kept" "$(cat "$F")" "$(cat "$TMP/good")"

# ---- rules visudo refuses ----------------------------------------------------------
# A backslash before an ordinary character is a syntax error in sudoers.
write_site "apt.installed_min { \"sudo\" }, user.account(\"$U\"),
    sudo.enabled_for(\"$U\", { commands = { \"/usr/bin/ls \\\\q\" } }),"
check "refused: the site gives one backslash" grep -qF '/usr/bin/ls \\q' "$TMP/site.lua"
prop_run "$TMP/f.out" "$TMP/site.lua"
same "refused: exit" "$rc" 1
same "refused: the property fails" "$(host_count "$TMP/f.out" localhost/sudobox failed)" 1
check "refused: visudo's message" grep -q 'syntax error' "$TMP/f.out"
check "refused: the message names the file, not the copy" grep -q "/etc/sudoers.d/prop-$U" "$TMP/f.out"
check "refused: says the file was kept" grep -q 'is left as it was' "$TMP/f.out"
same "refused: the old file is in place" "$(cat "$F")" "$(cat "$TMP/good")"
check "refused: no check copy left" no_check_copy
same "refused: sudo still reads the old rules" "$(sudo_l)" "(ALL : ALL) NOPASSWD: /usr/bin/id, /usr/bin/ls /tmp"

# ---- the revert ---------------------------------------------------------------------
write_site "revert(sudo.enabled_for(\"$U\")),"
prop_run "$TMP/v1.out" "$TMP/site.lua"
same "revert: exit" "$rc" 0
same "revert: one change" "$(host_count "$TMP/v1.out" localhost/sudobox changed)" 1
check "revert: the file is gone" test ! -e "$F"
check "revert: sudo allows nothing" bash -c "chroot '$B' sudo -l -U '$U' 2>&1 | grep -q 'not allowed to run sudo'"
prop_run "$TMP/v2.out" "$TMP/site.lua"
same "revert: second run ok" "$(host_count "$TMP/v2.out" localhost/sudobox changed)/$rc" "0/0"

finish
