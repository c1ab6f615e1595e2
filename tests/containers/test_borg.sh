#!/usr/bin/env bash
# borg.backup for real, in a chroot container made from the test rootfs
# cache (nothing on this machine is backed up or scheduled): a dry run that
# changes nothing; a first run that installs borgbackup and cron, makes two
# repositories (one not encrypted, one encrypted with a passphrase from the
# site's secret store, keys in a scratch GNUPGHOME) and their cron jobs;
# the job's script run once makes an archive that borg list shows, and
# prunes; a second run with no change; a repository borg cannot make
# fails the property; the revert removes the job, the script and the
# passphrase file and keeps the repository and its archives.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

PASS='Bk9 pass:phrase$1'
# ---- arguments and claims ------------------------------------------------------
cat >"$TMP/bad.lua" <<'EOF'
host "b" {
  os.debian("bookworm", "amd64"),
  borg.backup("etc", "/srv/borg"),
  borg.backup("/etc", "relative/repo"),
  borg.backup("/etc", "/srv/borg", { keep = { daily = 0 } }),
  borg.backup("/etc", "/srv/borg", { passphrase = "plain text" }),
  borg.backup("/etc", "/srv/borg", { kep = { daily = 1 } }),
  borg.backup("/etc", "/srv/borg", { when = "every day" }),
  borg.backup("/etc", "/srv/borg", { when = "dayly" }),
  borg.backup("/etc", "/srv/borg", { exclude = {} }),
  borg.backup("/etc", "/srv/borg", { env = { BORG_PASSPHRASE = "x" } }),
  borg.backup("/etc", "/srv/borg", { env = { BORG_RSH = secret "k" } }),
}
EOF
run_prop "$TMP/bad.out" lint "$TMP/bad.lua"
same "bad: exit" "$rc" 2
check "a relative directory is P012" grep -q 'bad.lua:3: error\[P012\]: borg.backup: dirs must be an absolute path' "$TMP/bad.out"
check "a relative repository is P012" grep -q 'bad.lua:4: error\[P012\]: borg.backup: repo "relative/repo" must be an absolute path or a remote repository' "$TMP/bad.out"
check "keep 0 is P012" grep -q 'bad.lua:5: error\[P012\]: borg.backup: keep.daily must be a positive integer, got 0' "$TMP/bad.out"
check "a plain passphrase is P012" grep -q 'bad.lua:6: error\[P012\]: borg.backup: passphrase must be a secret' "$TMP/bad.out"
check "an unknown key, with a suggestion" grep -q 'bad.lua:7: error\[P012\]: unknown key "kep" for borg.backup (did you mean "keep"?)' "$TMP/bad.out"
check "a bad schedule is P012" grep -q 'bad.lua:8: error\[P012\]: cron.job: schedule "every day" must have 5 fields' "$TMP/bad.out"
check "a misspelt period, with a suggestion" grep -q 'bad.lua:9: error\[P012\]: borg.backup: when "dayly" must be hourly, daily, weekly, monthly or a cron schedule such as "30 3 \* \* \*" (did you mean "daily"?)' "$TMP/bad.out"
check "an empty exclude list is P012" grep -q 'bad.lua:10: error\[P012\]: borg.backup: exclude must not be an empty list' "$TMP/bad.out"
check "env: BORG_PASSPHRASE refused, P012" grep -q 'bad.lua:11: error\[P012\]: borg.backup: env: BORG_PASSPHRASE is refused' "$TMP/bad.out"
check "env: a secret refused, P012" grep -q 'bad.lua:12: error\[P012\]: borg.backup: env.BORG_RSH is a secret' "$TMP/bad.out"

gpg_test_key 'Prop Borg Test <borg@example.invalid>'

rootfs_cache
T="$TMP/trees"
mkdir -p "$T"
B="$T/backupbox"
write_site() { # PROPERTIES...
  tarball_host "$B" 'file.directory "/srv/data",' 'file.has_content("/srv/data/a.txt", "hello\n"),' \
    'file.has_content("/srv/data/skip.tmp", "not kept\n"),' "$*" >"$TMP/site.lua"
}
PLAIN_P='borg.backup("/srv/data", "/var/backups/plain", { keep = { daily = 1 }, exclude = { "/srv/data/*.tmp" }, name = "prop-test-plain" })'
SECRET_P='borg.backup({ "/srv/data", "/etc/hostname" }, "/var/backups/secret", { passphrase = secret "borg_pass", when = "30 3 * * *", name = "prop-test-secret", env = { BORG_CONFIG_DIR = "/var/lib/prop-test-borgcfg" } })'
PLAIN="$PLAIN_P,"
SECRET="$SECRET_P,"
# The chroot's top-level properties with that result.
count() { # OUT RESULT
  results "$1" "$2" localhost/backupbox
}
write_site "$PLAIN $SECRET"
"$PROP" secret recipients "$TMP/site.lua" add "$FPR" >/dev/null 2>&1
printf %s "$PASS" | "$PROP" secret set "$TMP/site.lua" borg_pass >/dev/null 2>&1

run_prop "$TMP/show.out" show "$TMP/site.lua" localhost/backupbox
check "show: the script is claimed" grep -q 'claims file.content /usr/local/sbin/prop-test-plain' "$TMP/show.out"
check "show: the cron job is claimed" grep -q 'claims file.content /etc/cron.d/prop-test-plain' "$TMP/show.out"
check "show: the repository is claimed" grep -q 'claims file.generated /var/backups/plain "borg init (borg.backup)"' "$TMP/show.out"
check "show: borgbackup is claimed" grep -q 'claims package.installed borgbackup' "$TMP/show.out"
check "show: cron's daemon is claimed running" grep -q 'claims service.running cron' "$TMP/show.out"
check "show: the passphrase file is claimed, not shown" grep -q 'claims file.content /etc/borg/prop-test-secret.passphrase (secret)' "$TMP/show.out"

# ---- dry run (before the tree exists) ------------------------------------------------
prop_run "$TMP/d.out" "$TMP/site.lua" --dry-run
same "dry run: exit" "$rc" 0
check "dry run: no repository" test ! -e "$B/var/backups/plain"
check "dry run: no cron job" test ! -e "$B/etc/cron.d/prop-test-plain"
check "dry run: borg not installed" test ! -e "$B/usr/bin/borg"

# ---- first run -----------------------------------------------------------------
prop_run "$TMP/r1.out" "$TMP/site.lua"
same "first run: exit" "$rc" 0
same "first run: five changed, none failed" \
  "$(count "$TMP/r1.out" changed)/$(count "$TMP/r1.out" failed)" "5/0"
check "first run: no W104" bash -c "! grep -q W104 '$TMP/r1.out'"
check "first run: the passphrase is in no output" bash -c "! grep -qF -- '$PASS' '$TMP/r1.out'"
check "borg is installed" test -x "$B/usr/bin/borg"
check "cron is installed" test -x "$B/usr/sbin/cron"
check "no daemon started in the chroot: said so" grep -q 'service cron not started: no daemon runs in a chroot' "$TMP/r1.out"
check "the plain repository is made" test -f "$B/var/backups/plain/config"
check "the encrypted repository is made" test -f "$B/var/backups/secret/config"
same "the plain job" "$(grep -v '^#\|^SHELL\|^PATH' "$B/etc/cron.d/prop-test-plain")" "@daily root /usr/local/sbin/prop-test-plain"
same "the other job" "$(grep -v '^#\|^SHELL\|^PATH' "$B/etc/cron.d/prop-test-secret")" "30 3 * * * root /usr/local/sbin/prop-test-secret"
same "the script: mode and owner" "$(stat -c '%a %U' "$B/usr/local/sbin/prop-test-plain")" "700 root"
same "the passphrase file: mode" "$(stat -c '%a %U' "$B/etc/borg/prop-test-secret.passphrase")" "600 root"
same "the passphrase file: the store's value" "$(cat "$B/etc/borg/prop-test-secret.passphrase")" "$PASS"
check "env: borg init ran with it (its security directory is there)" test -d "$B/var/lib/prop-test-borgcfg/security"
check "env: the script exports it" grep -qE "^export BORG_CONFIG_DIR='?/var/lib/prop-test-borgcfg'?$" "$B/usr/local/sbin/prop-test-secret"
check "env: not in the other backup's script" bash -c "! grep -q BORG_CONFIG_DIR '$B/usr/local/sbin/prop-test-plain'"
check "the encrypted repository wants the passphrase" bash -c "! BORG_PASSPHRASE=wrong chroot '$B' borg list /var/backups/secret >/dev/null 2>&1"

# ---- the jobs' scripts, run once ---------------------------------------------------
check "the plain job runs" chroot "$B" /usr/local/sbin/prop-test-plain
check "the encrypted job runs" chroot "$B" /usr/local/sbin/prop-test-secret
same "borg list: one archive" "$(chroot "$B" borg list --short /var/backups/plain | wc -l)" 1
ARCHIVE="$(chroot "$B" borg list --short /var/backups/plain | head -1)"
check "the archive has the file" bash -c "chroot '$B' borg list '/var/backups/plain::$ARCHIVE' | grep -q 'srv/data/a.txt'"
check "the archive lacks what exclude names" bash -c "! chroot '$B' borg list '/var/backups/plain::$ARCHIVE' | grep -q 'skip.tmp'"
check "the encrypted archive (no exclude) has it" bash -c "BORG_PASSPHRASE='$PASS' chroot '$B' borg list --format '{path}{NL}' \"/var/backups/secret::\$(BORG_PASSPHRASE='$PASS' chroot '$B' borg list --short /var/backups/secret)\" | grep -q 'srv/data/skip.tmp'"
check "the encrypted archive has both" bash -c "BORG_PASSPHRASE='$PASS' chroot '$B' borg list --format '{path}{NL}' \"/var/backups/secret::\$(BORG_PASSPHRASE='$PASS' chroot '$B' borg list --short /var/backups/secret)\" | sort | tr '\n' ' ' | grep -q 'etc/hostname srv/data srv/data/a.txt'"
check "a second run of the plain job prunes to one a day (keep daily = 1)" chroot "$B" /usr/local/sbin/prop-test-plain
same "borg list: pruned to one" "$(chroot "$B" borg list --short /var/backups/plain | wc -l)" 1

# ---- second run ----------------------------------------------------------------
prop_run "$TMP/r2.out" "$TMP/site.lua"
same "second run: exit" "$rc" 0
same "second run: nothing changes" "$(count "$TMP/r2.out" changed)" 0

# ---- dry run with --diff: another keep ---------------------------------------------
cp "$B/usr/local/sbin/prop-test-plain" "$TMP/script.before"
write_site "${PLAIN/daily = 1/daily = 7, monthly = 6} $SECRET"
prop_run "$TMP/d2.out" "$TMP/site.lua" --dry-run --diff
same "dry run: exit" "$rc" 0
same "dry run: one would change" "$(count "$TMP/d2.out" changed)" 1
check "dry run: the diff has the old prune line" grep -qF -- "-borg prune --glob-archives '{hostname}-*' --keep-daily 1 || exit \$?" "$TMP/d2.out"
check "dry run: and the new one" grep -qF -- "+borg prune --glob-archives '{hostname}-*' --keep-daily 7 --keep-monthly 6 || exit \$?" "$TMP/d2.out"
check "dry run: the script is unchanged" cmp -s "$B/usr/local/sbin/prop-test-plain" "$TMP/script.before"

# ---- a repository borg cannot make ---------------------------------------------------
write_site "$PLAIN"'borg.backup("/srv/data", "/etc/hostname/repo", { name = "prop-test-bad" }),'
prop_run "$TMP/f.out" "$TMP/site.lua"
same "bad repository: exit" "$rc" 1
same "bad repository: the backup fails" "$(count "$TMP/f.out" failed)" 1
check "bad repository: borg's message" grep -q 'borg init' "$TMP/f.out"
check "bad repository: nothing there" test ! -e "$B/etc/hostname/repo"

# ---- revert ---------------------------------------------------------------------
write_site "revert($PLAIN_P), revert($SECRET_P),"
prop_run "$TMP/v1.out" "$TMP/site.lua"
same "revert: exit" "$rc" 0
same "revert: two changed" "$(count "$TMP/v1.out" changed)" 2
check "revert: no cron job" test ! -e "$B/etc/cron.d/prop-test-plain"
check "revert: no script" test ! -e "$B/usr/local/sbin/prop-test-plain"
check "revert: no passphrase file" test ! -e "$B/etc/borg/prop-test-secret.passphrase"
check "revert: the repository stays" test -f "$B/var/backups/plain/config"
same "revert: its archive too" "$(chroot "$B" borg list --short /var/backups/plain | wc -l)" 1
prop_run "$TMP/v2.out" "$TMP/site.lua"
same "revert, again: nothing changes" "$(count "$TMP/v2.out" changed)/$rc" "0/0"

finish
