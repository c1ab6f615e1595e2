#!/usr/bin/env bash
# user.account { password = secret "..." } for real, in a chroot container
# (its own /etc/shadow): the password from the site's store (a real gpg,
# keys in a scratch GNUPGHOME) is set with chpasswd, a second run compares
# it with crypt(3) and changes nothing, a new value in the store changes it
# again, and the value is in no output and no command line; password =
# "*" erases it, locked = true locks it.  A plain string as a password is
# refused by the pre-pass.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

VALUE='Zr9-pw q:x$1'
gpg_test_key 'Prop Password Test <pw@example.invalid>'

rootfs_cache
T="$TMP/trees"
cat >"$TMP/site.lua" <<EOF
local web = chroot.from_tarball("$T/web", os.debian("$SUITE", "$ARCH"), "$ROOTFS", {
  user.account("deploy", { shell = "/bin/bash", password = secret "deploy_password" }),
  user.account("keep", { password = secret "deploy_password", only_if_unset = true }),
})
host "localhost" { os.debian("$SUITE", "$ARCH"), chroot.provisioned(web) }
EOF
"$PROP" secret recipients "$TMP/site.lua" add "$FPR" >/dev/null 2>&1
printf %s "$VALUE" | "$PROP" secret set "$TMP/site.lua" deploy_password >/dev/null 2>&1

# crypt(3) of the value under the salt of the shadow entry, in the tree.
matches() { # VALUE [ACCOUNT]
  local h
  h="$(awk -F: -v u="${2:-deploy}" '$1 == u { print $2 }' "$T/web/etc/shadow")"
  [[ "$h" == \$* ]] || return 1
  [[ "$(printf %s "$1" | chroot "$T/web" perl -e 'local $/; my $p = <STDIN>; print crypt($p, $ARGV[0])' "$h")" == "$h" ]]
}

prop_run "$TMP/r1.out" "$TMP/site.lua"
same "password: exit" "$rc" 0
same "password: the accounts were made" "$(host_count "$TMP/r1.out" localhost/web changed)" 2
check "password: set, and it is the store's value" matches "$VALUE"
check "password: said so" grep -q 'set the password of deploy' "$TMP/r1.out"
check "password: not in the output" bash -c "! grep -qF -- '$VALUE' '$TMP/r1.out'"
check "only_if_unset: a new account (no password) gets it" matches "$VALUE" keep

prop_run "$TMP/r2.out" "$TMP/site.lua"
same "password again: exit" "$rc" 0
same "password again: no change" "$(host_count "$TMP/r2.out" localhost/web changed)" 0

printf %s "other-$VALUE" | "$PROP" secret set "$TMP/site.lua" deploy_password >/dev/null 2>&1
prop_run "$TMP/r3.out" "$TMP/site.lua"
same "new password: changed" "$(host_count "$TMP/r3.out" localhost/web changed)" 1
check "new password: the new value" matches "other-$VALUE"
if matches "$VALUE"; then fail "new password: the old one no longer" "it still matches"; else pass; fi
check "only_if_unset: a password once set is never changed" matches "$VALUE" keep
# A password removed (passwd -d: the field empty, then "!"): set again.
for f in "" "!" "*"; do
  awk -F: -v OFS=: -v f="$f" '$1 == "keep" { $2 = f } { print }' "$T/web/etc/shadow" >"$TMP/shadow"
  cat "$TMP/shadow" >"$T/web/etc/shadow"
  prop_run "$TMP/u.out" "$TMP/site.lua"
  same "only_if_unset: field '$f' is no password: set" "$rc/$(host_count "$TMP/u.out" localhost/web changed)" 0/1
  check "only_if_unset: field '$f': the store's value now" matches "other-$VALUE" keep
done

# password = "*": no password, the account locked, as Puppet's "*": an
# account with a password loses it (the hash erased, so no unlock brings
# it back); locked = true keeps the hash behind "!".  Keys would still
# log in; a second run changes nothing.
field() { awk -F: -v u="$1" '$1 == u { print $2 }' "$T/web/etc/shadow"; }
cat >"$TMP/locked.lua" <<EOF
local web = chroot.from_tarball("$T/web", os.debian("$SUITE", "$ARCH"), "$ROOTFS", {
  user.account("deploy", { shell = "/bin/bash", password = "*" }),
  user.account("keep", { locked = true }),
})
host "localhost" { os.debian("$SUITE", "$ARCH"), chroot.provisioned(web) }
EOF
check "locked: deploy has a password before" matches "other-$VALUE"
prop_run "$TMP/l1.out" "$TMP/locked.lua" --dry-run
check "locked: a dry run says it would remove the password" grep -q 'would remove the password of deploy' "$TMP/l1.out"
check "locked: a dry run leaves it" matches "other-$VALUE"
prop_run "$TMP/l2.out" "$TMP/locked.lua"
same "locked: exit, both changed" "$rc/$(host_count "$TMP/l2.out" localhost/web changed)" 0/2
same 'password "*": the field is "*" (no hash left)' "$(field deploy)" "*"
check 'password "*": said so' grep -q 'removed the password of deploy' "$TMP/l2.out"
h="$(field keep)"
if [[ "$h" == '!$'* ]]; then pass; else fail "locked = true: the hash kept behind !" "got [$h]"; fi
prop_run "$TMP/l3.out" "$TMP/locked.lua"
same "locked again: no change" "$rc/$(host_count "$TMP/l3.out" localhost/web changed)" 0/0

# A password in plain text: refused before anything runs.
cat >"$TMP/plain.lua" <<EOF
host "localhost" { os.debian("$SUITE", "$ARCH"), user.account("deploy", { password = "hunter2" }) }
EOF
run_prop "$TMP/p.out" lint "$TMP/plain.lua"
same "plain password: lint exit" "$rc" 2
check "plain password: P012 at its line" grep -q 'plain.lua:1: error\[P012\].*password must be a secret' "$TMP/p.out"
cat >"$TMP/plain.lua" <<EOF
host "localhost" { os.debian("$SUITE", "$ARCH"),
  user.account("deploy", { only_if_unset = true }) }
EOF
run_prop "$TMP/p.out" lint "$TMP/plain.lua"
same "only_if_unset without a password: lint exit" "$rc" 2
check "only_if_unset without a password: P012 at its line" grep -q 'plain.lua:2: error\[P012\].*only_if_unset is about password=' "$TMP/p.out"

finish
