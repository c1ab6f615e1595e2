#!/usr/bin/env bash
# user.shell, user.locked, user.has_group and user.system_account on
# localhost, on throw-away accounts (prop-test-*) made here and removed on
# exit: each attribute changed once, then ok; dry runs that leave
# /etc/passwd, /etc/shadow and /etc/group alone; the reverts (unlocked,
# out of the group, account gone); and the failures that must be clear
# (a missing account, a missing shell, unlocking with no password).
# getent, /etc/shadow and id are the witnesses.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

U=prop-test-a$$
S=prop-test-s$$
G=prop-test-m$$
for n in "$U" "$S" "$G"; do
  if getent passwd "$n" >/dev/null || getent group "$n" >/dev/null; then
    skip "$n exists"
  fi
done
on_exit "userdel '$U'; rm -rf '/home/$U'; groupdel '$U'; userdel '$S'; groupdel '$S'; rm -rf '$TMP/shome'; groupdel '$G'"

hash_of() { # the password field of /etc/shadow
  getent shadow "$1" | cut -d: -f2
}
site() { # site FILE PROPERTIES...
  local f="$1"
  shift
  printf 'host "localhost" {\n  %s\n}\n' "$*" >"$f"
}

# The account, with a password (a known hash) and a group to join.
useradd -m -s /bin/sh "$U"
groupadd "$G"
echo "$U:prop-test-pw" | chpasswd
hash="$(hash_of "$U")"
check "setup: the account has a hash" test "${hash:0:1}" = '$'

# ---- shell, lock, group: dry run, run, second run ---------------------------
site "$TMP/a.lua" "user.shell(\"$U\", \"/bin/bash\"), user.locked \"$U\", user.has_group(\"$U\", \"$G\"),"
before="$(db_state)"
prop_run "$TMP/dry.out" "$TMP/a.lua" --dry-run
expect_run "dry run: three would change" "$TMP/dry.out" 0 3 0 0
same "dry run: account files untouched" "$(db_state)" "$before"

prop_run "$TMP/r1.out" "$TMP/a.lua"
expect_run "first run: three changed" "$TMP/r1.out" 0 3 0 0
same "shell set" "$(getent passwd "$U" | cut -d: -f7)" /bin/bash
same "password locked: the hash behind a !" "$(hash_of "$U")" "!$hash"
check "in the group" bash -c "id -nG '$U' | tr ' ' '\n' | grep -qx '$G'"

prop_run "$TMP/r2.out" "$TMP/a.lua"
expect_run "second run: all ok" "$TMP/r2.out" 0 0 3 0
same "second run: hash kept" "$(hash_of "$U")" "!$hash"

# Changed by hand: put back.
usermod -s /bin/sh "$U"
prop_run "$TMP/r3.out" "$TMP/a.lua"
expect_run "shell changed by hand: put back" "$TMP/r3.out" 0 1 2 0
same "shell put back" "$(getent passwd "$U" | cut -d: -f7)" /bin/bash

# ---- reverts: unlocked, out of the group --------------------------------------
# Out of a group that does not exist: ok, nobody is in it.
site "$TMP/b.lua" "revert(user.locked \"$U\"), revert(user.has_group(\"$U\", \"$G\")),
  revert(user.has_group(\"$U\", \"prop-test-none$$\")),"
before="$(db_state)"
prop_run "$TMP/bdry.out" "$TMP/b.lua" --dry-run
expect_run "revert, dry run" "$TMP/bdry.out" 0 2 1 0
same "revert, dry run: untouched" "$(db_state)" "$before"
prop_run "$TMP/b1.out" "$TMP/b.lua"
expect_run "revert: two changed" "$TMP/b1.out" 0 2 1 0
same "unlocked: the old hash back" "$(hash_of "$U")" "$hash"
check "out of the group" bash -c "! id -nG '$U' | tr ' ' '\n' | grep -qx '$G'"
prop_run "$TMP/b2.out" "$TMP/b.lua"
expect_run "revert: second run ok" "$TMP/b2.out" 0 0 3 0

# ---- failures that say why ------------------------------------------------------
site "$TMP/f.lua" "user.shell(\"$U\", \"/bin/prop-test-none\"), user.locked \"prop-test-none$$\","
before="$(db_state)"
prop_run "$TMP/f.out" "$TMP/f.lua"
expect_run "failures: both fail" "$TMP/f.out" 1 0 0 2
check "a missing shell is named" grep -q '/bin/prop-test-none does not exist on the target' "$TMP/f.out"
check "a missing account is named" grep -q "user prop-test-none$$ does not exist" "$TMP/f.out"
same "failures: nothing changed" "$(db_state)" "$before"

# No password behind the "!": nothing to unlock.
usermod -p '!' "$U"
site "$TMP/n.lua" "revert(user.locked \"$U\"),"
prop_run "$TMP/n.out" "$TMP/n.lua"
expect_run "unlock without a password fails" "$TMP/n.out" 1 0 0 1
check "unlock without a password: why" grep -q 'has no password to unlock' "$TMP/n.out"
same "unlock without a password: still locked" "$(hash_of "$U")" '!'

# ---- system account ---------------------------------------------------------------
site "$TMP/s.lua" "user.system_account(\"$S\", { comment = \"prop test\" }),"
before="$(db_state)"
prop_run "$TMP/sdry.out" "$TMP/s.lua" --dry-run
expect_run "system account, dry run" "$TMP/sdry.out" 0 1 0 0
same "system account, dry run: untouched" "$(db_state)" "$before"
prop_run "$TMP/s1.out" "$TMP/s.lua"
expect_run "system account: created" "$TMP/s1.out" 0 1 0 0
same "system account: shell, home, comment" "$(getent passwd "$S" | cut -d: -f5-7)" \
  "prop test:/nonexistent:/usr/sbin/nologin"
uid="$(id -u "$S")"
check "system account: uid from the system range" test "$uid" -lt "$(awk '$1 == "UID_MIN" { print $2 }' /etc/login.defs || echo 1000)"
check "system account: its own group" test "$(id -gn "$S")" = "$S"
check "system account: no home made" test ! -e /nonexistent
prop_run "$TMP/s2.out" "$TMP/s.lua"
expect_run "system account: second run ok" "$TMP/s2.out" 0 0 1 0

# A home given: set (and made for a new account), the shell kept as declared.
site "$TMP/s3.lua" "user.system_account(\"$S\", { comment = \"prop test\", home = \"$TMP/shome\" }),"
prop_run "$TMP/s3.out" "$TMP/s3.lua"
expect_run "system account: home changed" "$TMP/s3.out" 0 1 0 0
same "system account: new home" "$(getent passwd "$S" | cut -d: -f6)" "$TMP/shome"
same "system account: uid kept" "$(id -u "$S")" "$uid"

site "$TMP/s4.lua" "revert(user.system_account(\"$S\")),"
prop_run "$TMP/s4.out" "$TMP/s4.lua"
expect_run "system account: revert removes it" "$TMP/s4.out" 0 1 0 0
check "system account gone" bash -c "! getent passwd '$S' >/dev/null"

# Made new with a home: the directory is made and owned by the account.
prop_run "$TMP/s5.out" "$TMP/s3.lua"
expect_run "system account with a home: created" "$TMP/s5.out" 0 1 0 0
same "system account: home made, its own" "$(stat -c %U "$TMP/shome" 2>&1)" "$S"

finish
