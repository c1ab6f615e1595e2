#!/usr/bin/env bash
# user.account, user.absent and group.exists on localhost: accounts and
# groups created, changed (gid, shell, uid, groups), removed, with getent
# and id as witnesses, and dry runs that leave /etc/passwd and /etc/group
# alone.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

U=prop-test-u$$
G=prop-test-g$$
G2=prop-test-h$$
# Ids unlikely to be taken; checked below.
UID1=47101
UID2=47102
GID1=47201
GID2=47150
GID3=47160
for id in $UID1 $UID2; do
  if getent passwd "$id" >/dev/null; then skip "uid $id is taken"; fi
done
for id in $GID1 $GID2 $GID3; do
  if getent group "$id" >/dev/null; then skip "gid $id is taken"; fi
done
on_exit "userdel '$U'; rm -rf '/home/$U'; groupdel '$U'; groupdel '$G'; groupdel '$G2'"


site() { # site FILE UID SHELL GID-OF-G
  cat >"$1" <<EOF
host "localhost" {
  group.exists("$G", { gid = $4 }),
  group.exists("$G2"),
  user.account("$U", { uid = $2, shell = "$3", groups = { "$G", "$G2" }, comment = "prop test" }),
}
EOF
}
site "$TMP/a.lua" $UID1 /bin/sh $GID1

before="$(db_state)"
prop_run "$TMP/dry.out" "$TMP/a.lua" --dry-run
expect_run "dry run: all changed" "$TMP/dry.out" 0 3 0 0
same "dry run: account files untouched" "$(db_state)" "$before"
check "dry run: no account" bash -c "! getent passwd '$U' >/dev/null"

prop_run "$TMP/run1.out" "$TMP/a.lua"
expect_run "first run: created" "$TMP/run1.out" 0 3 0 0
same "group with gid" "$(getent group "$G" | cut -d: -f1,3)" "$G:$GID1"
check "group without gid" bash -c "getent group '$G2' >/dev/null"
same "account" "$(getent passwd "$U" | cut -d: -f1,3,5,6,7)" "$U:$UID1:prop test:/home/$U:/bin/sh"
check "home directory made" test -d "/home/$U"
same "supplementary groups" "$(id -nG "$U" | tr ' ' '\n' | grep -c "^prop-test-")" 3

prop_run "$TMP/run2.out" "$TMP/a.lua"
expect_run "second run: ok" "$TMP/run2.out" 0 0 3 0

# Change the shell, the uid and the gid of the group.
site "$TMP/b.lua" $UID2 /bin/bash $GID2
before="$(db_state)"
prop_run "$TMP/bdry.out" "$TMP/b.lua" --dry-run
expect_run "change, dry run" "$TMP/bdry.out" 0 2 1 0
same "change, dry run: untouched" "$(db_state)" "$before"
prop_run "$TMP/b1.out" "$TMP/b.lua"
expect_run "change: group and account changed" "$TMP/b1.out" 0 2 1 0
same "gid changed" "$(getent group "$G" | cut -d: -f3)" $GID2
same "uid and shell changed" "$(getent passwd "$U" | cut -d: -f3,7)" "$UID2:/bin/bash"
same "home follows the uid" "$(stat -c %u "/home/$U")" $UID2
prop_run "$TMP/b2.out" "$TMP/b.lua"
expect_run "change: second run ok" "$TMP/b2.out" 0 0 3 0

# Removed from a group by hand: added back, other memberships kept.
gpasswd -d "$U" "$G2" >/dev/null
groupadd -g $GID3 prop-test-x$$ && on_exit "groupdel prop-test-x$$"
usermod -a -G prop-test-x$$ "$U"
prop_run "$TMP/c1.out" "$TMP/b.lua"
expect_run "membership restored" "$TMP/c1.out" 0 1 2 0
check "back in $G2" bash -c "id -nG '$U' | grep -qw '$G2'"
check "other group kept" bash -c "id -nG '$U' | grep -qw 'prop-test-x$$'"

# A group that does not exist: a clear failure.
cat >"$TMP/nogroup.lua" <<EOF
host "localhost" { user.account("$U", { groups = { "prop-test-none$$" } }) }
EOF
prop_run "$TMP/ng.out" "$TMP/nogroup.lua"
expect_run "missing group fails" "$TMP/ng.out" 1 0 0 1
check "missing group named" grep -q "prop-test-none$$ does not exist" "$TMP/ng.out"

# user.absent, and user.account's revert.
cat >"$TMP/gone.lua" <<EOF
host "localhost" { user.absent "$U" }
EOF
before="$(db_state)"
prop_run "$TMP/gdry.out" "$TMP/gone.lua" --dry-run
expect_run "absent, dry run" "$TMP/gdry.out" 0 1 0 0
same "absent, dry run: untouched" "$(db_state)" "$before"
prop_run "$TMP/g1.out" "$TMP/gone.lua"
expect_run "absent: removed" "$TMP/g1.out" 0 1 0 0
check "account gone" bash -c "! getent passwd '$U' >/dev/null"
check "home kept" test -d "/home/$U"
prop_run "$TMP/g2.out" "$TMP/gone.lua"
expect_run "absent: second run ok" "$TMP/g2.out" 0 0 1 0

# The account again, now that a group of its name may exist or not.
prop_run "$TMP/again.out" "$TMP/b.lua"
expect_run "account made again" "$TMP/again.out" 0 1 2 0
same "account again" "$(getent passwd "$U" | cut -d: -f3,7)" "$UID2:/bin/bash"

finish
