#!/usr/bin/env bash
# sudo.enabled_for inside a chroot container made from the test rootfs
# cache (this machine's /etc/sudoers.d is never touched): a clear failure
# while sudo is missing; then sudo installed, an account, and its rules
# file written 0440 root:root, accepted by visudo and read by sudo itself
# (sudo -l); a dry run that changes nothing; a second run with no change;
# a mode changed by hand put back; rules visudo refuses, which must fail
# with visudo's message and leave the old file; no check copy left
# behind in any case; sudo.rules_purged, which removes a stale rule and
# directory nobody declares (a dry run lists them and removes nothing)
# and keeps the declared rules and the package's README; cron.purged and
# apt.sources_purged in the same tree (a stale job and source go, the
# declared job, a package's job and the standard sources stay, the
# standard sources go once apt.std_sources_list declares them); and the
# revert, which removes the file.
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

# ---- sudo.rules_purged: a stale rule goes, the declared ones and the package's stay ----
echo "$U ALL=(ALL) NOPASSWD: ALL" >"$B/etc/sudoers.d/stale-rule"
chmod 0440 "$B/etc/sudoers.d/stale-rule"
mkdir -p "$B/etc/sudoers.d/stale-dir/x"
same "purge: setup, sudo reads the stale rule" "$(sudo_l | grep -c 'NOPASSWD: ALL')" 1
write_site "sudo.rules_purged(), $RULES"
prop_run "$TMP/p0.out" "$TMP/site.lua" --dry-run
same "purge, dry run: exit" "$rc" 0
check "purge, dry run: lists the stale rule" grep -qF '"text":"would remove /etc/sudoers.d/stale-rule"' "$TMP/p0.out"
check "purge, dry run: and the stale directory" grep -qF '"text":"would remove /etc/sudoers.d/stale-dir"' "$TMP/p0.out"
check "purge, dry run: nothing removed" test -e "$B/etc/sudoers.d/stale-rule" -a -d "$B/etc/sudoers.d/stale-dir"
prop_run "$TMP/p1.out" "$TMP/site.lua"
same "purge: exit" "$rc" 0
same "purge: the purge alone changed" "$(changed_failed "$TMP/p1.out" localhost/sudobox)" "1/0"
check "purge: the removal is noted" grep -qF '"text":"removed /etc/sudoers.d/stale-rule"' "$TMP/p1.out"
check "purge: no W104" bash -c "! grep -q W104 '$TMP/p1.out'"
same "purge: what is left" "$(ls "$B/etc/sudoers.d" | tr '\n' ' ')" "README prop-$U "
same "purge: sudo reads the declared rules alone" "$(sudo_l)" "(ALL : ALL) NOPASSWD: /usr/bin/id, /usr/bin/ls /tmp"
prop_run "$TMP/p2.out" "$TMP/site.lua"
same "purge, again: nothing changes" "$rc/$(changed_failed "$TMP/p2.out" localhost/sudobox)" "0/0/0"

# ---- cron.purged, apt.sources_purged ------------------------------------------------
echo "* * * * * root /bin/true" >"$B/etc/cron.d/stale-job"
echo "deb http://example.invalid/ stale main" >"$B/etc/apt/sources.list.d/stale.list"
printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: main\n' "$SUITE" \
  >"$B/etc/apt/sources.list.d/debian.sources"
pkg_job=""
if chroot "$B" dpkg-query -S /etc/cron.d/e2scrub_all >/dev/null 2>&1; then pkg_job="e2scrub_all "; fi
write_site "sudo.rules_purged(), $RULES cron.purged(), cron.job(\"prop-job\", \"@daily\", { \"/bin/true\" }),
    apt.sources_purged(),"
prop_run "$TMP/cr1.out" "$TMP/site.lua"
same "cron, sources purged: exit" "$rc" 0
same "cron, sources purged: two purges and the job changed" "$(changed_failed "$TMP/cr1.out" localhost/sudobox)" "3/0"
check "cron purged: the stale job's removal noted" grep -qF '"text":"removed /etc/cron.d/stale-job"' "$TMP/cr1.out"
same "cron purged: the declared job and the package's stay" "$(ls "$B/etc/cron.d" | grep -v '^\.' | tr '\n' ' ')" "${pkg_job}prop-job "
check "sources purged: the stale source's removal noted" grep -qF '"text":"removed /etc/apt/sources.list.d/stale.list"' "$TMP/cr1.out"
same "sources purged: the standard sources stay" "$(ls "$B/etc/apt/sources.list.d" | tr '\n' ' ')" "debian.sources "
write_site "sudo.rules_purged(), $RULES cron.purged(), cron.job(\"prop-job\", \"@daily\", { \"/bin/true\" }),
    apt.sources_purged(), apt.std_sources_list(),"
prop_run "$TMP/cr2.out" "$TMP/site.lua"
same "std sources declared: exit" "$rc" 0
check "std sources declared: debian.sources removed" grep -qF '"text":"removed /etc/apt/sources.list.d/debian.sources"' "$TMP/cr2.out"
same "std sources declared: sources.list.d is empty" "$(ls -A "$B/etc/apt/sources.list.d")" ""
prop_run "$TMP/cr3.out" "$TMP/site.lua"
same "cron, sources purged, again: nothing changes" "$rc/$(changed_failed "$TMP/cr3.out" localhost/sudobox)" "0/0/0"

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
