#!/usr/bin/env bash
# ssh.authorized_keys on this machine: an account whose home is not under
# /home (found in /etc/passwd at run time), its ~/.ssh and authorized_keys
# made with the right modes and owner, other lines kept, drift corrected,
# revert removing exactly its keys, exact = true (two roles each listing
# a key for the user, one of them exact: the file ends with exactly their
# union, stale keys removed and named by comment and fingerprint, never
# by the key), and the failures (no such user, a symlink planted in the
# home) that must change nothing.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

U=prop-test-k$$
H="$TMP/home-$U"
useradd -d "$H" -m -s /bin/sh "$U" || { echo "FAIL: useradd"; exit 1; }
on_exit "userdel '$U'; groupdel '$U'"

ssh-keygen -q -t ed25519 -N "" -C "one@prop-test" -f "$TMP/k1"
ssh-keygen -q -t rsa -b 2048 -N "" -C "two@prop-test" -f "$TMP/k2"
K1="$(cat "$TMP/k1.pub")"
K2="$(cat "$TMP/k2.pub")"
AK="$H/.ssh/authorized_keys"

cat >"$TMP/a.lua" <<SITE
host "localhost" {
  ssh.authorized_keys("$U", { "$K1", "  $K2  " }),
}
SITE

before="$(tree_state "$H")"
prop_run "$TMP/dry.out" "$TMP/a.lua" --dry-run
expect_run "dry run: would change" "$TMP/dry.out" 0 1 0 0
same "dry run: home untouched" "$(tree_state "$H")" "$before"
check "dry run: says what it would do" grep -q 'would add 2 key' "$TMP/dry.out"

prop_run "$TMP/run1.out" "$TMP/a.lua"
expect_run "first run: changed" "$TMP/run1.out" 0 1 0 0
same "keys written, trimmed, in order" "$(cat "$AK")" "$K1
$K2"
same "~/.ssh is 0700" "$(mode_of "$H/.ssh")" 0700
same "~/.ssh owned by the user" "$(owner_of "$H/.ssh")" "$U:$U"
same "authorized_keys is 0600" "$(mode_of "$AK")" 0600
same "authorized_keys owned by the user" "$(owner_of "$AK")" "$U:$U"
same "ssh-keygen reads both keys back" "$(ssh-keygen -l -f "$AK" | grep -c prop-test)" 2

prop_run "$TMP/run2.out" "$TMP/a.lua"
expect_run "second run: nothing to do" "$TMP/run2.out" 0 0 1 0

# Lines added by hand are kept; a loosened mode is put back.
echo "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHandAddedKeyHandAddedKeyHandAddedKeyAAA hand" >>"$AK"
chmod 0644 "$AK"
prop_run "$TMP/run3.out" "$TMP/a.lua"
expect_run "drift: mode corrected" "$TMP/run3.out" 0 1 0 0
same "drift: mode 0600 again" "$(mode_of "$AK")" 0600
check "drift: the hand-added line is kept" grep -q ' hand$' "$AK"
same "drift: three lines" "$(wc -l <"$AK")" 3
# A key removed by hand comes back, appended; the others stay in place.
grep -v 'one@prop-test' "$AK" >"$TMP/ak" && cat "$TMP/ak" >"$AK"
prop_run "$TMP/run4.out" "$TMP/a.lua"
expect_run "drift: key restored" "$TMP/run4.out" 0 1 0 0
same "drift: restored key appended" "$(tail -1 "$AK")" "$K1"

# Revert of one key: exactly that line goes.
cat >"$TMP/r.lua" <<SITE
host "localhost" {
  revert(ssh.authorized_keys("$U", "$K1")),
}
SITE
prop_run "$TMP/rdry.out" "$TMP/r.lua" --dry-run
expect_run "revert dry run" "$TMP/rdry.out" 0 1 0 0
same "revert dry run: key still there" "$(grep -c 'one@prop-test' "$AK")" 1
prop_run "$TMP/r1.out" "$TMP/r.lua"
expect_run "revert: changed" "$TMP/r1.out" 0 1 0 0
same "revert: only the other key and the hand line left" "$(cut -d' ' -f3 "$AK")" "two@prop-test
hand"
same "revert: mode kept" "$(mode_of "$AK")" 0600
prop_run "$TMP/r2.out" "$TMP/r.lua"
expect_run "revert: second run ok" "$TMP/r2.out" 0 0 1 0

# exact = true on one of two roles: the file holds exactly the union of
# the keys the host lists for the user; comment lines stay.
ssh-keygen -q -t ed25519 -N "" -C "three@prop-test" -f "$TMP/k3"
K3="$(cat "$TMP/k3.pub")"
ssh-keygen -q -t ed25519 -N "" -C "" -f "$TMP/k4"
K4="$(cat "$TMP/k4.pub")"
printf '%s\n# kept comment\nno-pty %s\n' "$K3" "$K4" >>"$AK"
cat >"$TMP/x.lua" <<SITE
local function admins(h) return { ssh.authorized_keys("$U", "$K1", { exact = true }) } end
local function deployers(h) return { ssh.authorized_keys("$U", "$K2") } end
host "localhost" { admins, deployers }
SITE
cp -p "$AK" "$TMP/ak.before"
fp3="$(ssh-keygen -l -f "$TMP/k3.pub" | cut -d' ' -f2)"
fp4="$(ssh-keygen -l -f "$TMP/k4.pub" | cut -d' ' -f2)"
prop_run "$TMP/xdry.out" "$TMP/x.lua" --dry-run
expect_run "exact, dry run: would change" "$TMP/xdry.out" 0 1 1 0
check "exact, dry run: the file is untouched" cmp -s "$AK" "$TMP/ak.before"
same "exact, dry run: names each stale key by comment and fingerprint" \
  "$(grep '"event":"note"' "$TMP/xdry.out" | sed -n 's/.*"text":"would remove key \([^"]*\) from .*/\1/p' |
    sed 's/^hand (ssh-ed25519 SHA256:[A-Za-z0-9+\/]\{43\})$/hand/')" \
  "hand
three@prop-test (ssh-ed25519 $fp3)
ssh-ed25519 $fp4"
prop_run "$TMP/x1.out" "$TMP/x.lua"
expect_run "exact: changed" "$TMP/x1.out" 0 1 1 0
same "exact: the listed keys of both roles and the comment, nothing else" "$(cat "$AK")" "$K2
# kept comment
$K1"
check "exact: a removed key named by its fingerprint" grep -qF "removed key three@prop-test (ssh-ed25519 $fp3) from $AK" "$TMP/x1.out"
check "exact: the whole key is never shown" bash -c "! grep -qF '$(cut -d' ' -f2 "$TMP/k3.pub")' '$TMP/x1.out'"
same "exact: mode kept" "$(mode_of "$AK")" 0600
prop_run "$TMP/x2.out" "$TMP/x.lua"
expect_run "exact: second run ok" "$TMP/x2.out" 0 0 2 0
# Without exact, the same keys leave a stale one alone (appending stays
# the default).
echo "$K3" >>"$AK"
sed -i 's/{ exact = true }/{ exact = false }/' "$TMP/x.lua"
prop_run "$TMP/x3.out" "$TMP/x.lua"
expect_run "exact = false: nothing removed" "$TMP/x3.out" 0 0 2 0
check "exact = false: the stale key stays" grep -qF "$K3" "$AK"

# Failures: an account that does not exist; a symlink planted where
# authorized_keys goes (root would otherwise write through it).
echo "precious" >"$TMP/target"
rm -f "$AK"
ln -s "$TMP/target" "$AK"
cat >"$TMP/f.lua" <<SITE
host "localhost" {
  ssh.authorized_keys("prop-test-none$$", "$K1"),
  ssh.authorized_keys("$U", "$K1"),
}
SITE
prop_run "$TMP/f1.out" "$TMP/f.lua"
expect_run "failures: both fail" "$TMP/f1.out" 1 0 0 2
check "failures: missing user named" grep -q "user prop-test-none$$ does not exist" "$TMP/f1.out"
check "failures: symlink refused" grep -q 'is a symbolic link' "$TMP/f1.out"
same "failures: symlink target untouched" "$(cat "$TMP/target")" precious
check "failures: still a symlink" test -L "$AK"

finish
