#!/usr/bin/env bash
# hostname.set: in a connect.dir tree (/etc/hostname and /etc/hosts; the
# running name is not touched), then on this machine, renamed for a moment
# and renamed back.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

T="$TMP/tree"
mkdir -p "$T/etc"
echo old >"$T/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\told.example.org old\n::1\tlocalhost ip6-localhost\n' >"$T/etc/hosts"
cat >"$TMP/tree.lua" <<EOF
host "tree" { connect.dir "$T", hostname.set "web1.example.com" }
EOF
running="$(hostname)"

before="$(tree_state "$T")"
prop_run "$TMP/dry.out" "$TMP/tree.lua" --dry-run
expect_run "tree, dry run: changed" "$TMP/dry.out" 0 1 0 0
same "tree, dry run: untouched" "$(tree_state "$T")" "$before"

prop_run "$TMP/t1.out" "$TMP/tree.lua"
expect_run "tree: changed" "$TMP/t1.out" 0 1 0 0
same "tree: /etc/hostname has the short name" "$(cat "$T/etc/hostname")" web1
same "tree: /etc/hosts" "$(cat "$T/etc/hosts")" \
  $'127.0.0.1\tlocalhost\n127.0.1.1\tweb1.example.com web1\n::1\tlocalhost ip6-localhost'
same "tree: the machine's name is untouched" "$(hostname)" "$running"
prop_run "$TMP/t2.out" "$TMP/tree.lua"
expect_run "tree: second run ok" "$TMP/t2.out" 0 0 1 0

# A hosts file without a 127.0.1.1 line gets one after 127.0.0.1.
printf '127.0.0.1 localhost\n10.0.0.1 gw\n' >"$T/etc/hosts"
prop_run "$TMP/t3.out" "$TMP/tree.lua"
expect_run "tree: line added" "$TMP/t3.out" 0 1 0 0
same "tree: added after localhost" "$(cat "$T/etc/hosts")" \
  $'127.0.0.1 localhost\n127.0.1.1\tweb1.example.com web1\n10.0.0.1 gw'

# hostname.sane's mailname: the full name, the domain part, or left alone.
S="$TMP/sane"
mkdir -p "$S/etc"
cat >"$TMP/sane.lua" <<EOF
host "mx1.example.com" { connect.dir "$S", hostname.sane { mailname = "domain" } }
EOF
prop_run "$TMP/s1.out" "$TMP/sane.lua"
expect_run "sane, mailname domain: changed" "$TMP/s1.out" 0 1 0 0
same "sane, mailname domain: /etc/mailname" "$(cat "$S/etc/mailname")" example.com
same "sane, mailname domain: /etc/hostname" "$(cat "$S/etc/hostname")" mx1
prop_run "$TMP/s2.out" "$TMP/sane.lua"
expect_run "sane, mailname domain: second run ok" "$TMP/s2.out" 0 0 1 0
sed -i 's/mailname = "domain"/mailname = "fqdn"/' "$TMP/sane.lua"
prop_run "$TMP/s3.out" "$TMP/sane.lua"
same "sane, mailname fqdn: the full name" "$rc/$(cat "$S/etc/mailname")" 0/mx1.example.com
echo hand.example.org >"$S/etc/mailname"
sed -i 's/mailname = "fqdn"/mailname = false/' "$TMP/sane.lua"
prop_run "$TMP/s4.out" "$TMP/sane.lua"
expect_run "sane, mailname false: ok" "$TMP/s4.out" 0 0 1 0
same "sane, mailname false: /etc/mailname left alone" "$(cat "$S/etc/mailname")" hand.example.org
cat >"$TMP/sane1.lua" <<EOF
host "mx1" { connect.dir "$S", hostname.sane { mailname = "domain" } }
EOF
prop_run "$TMP/s5.out" "$TMP/sane1.lua"
expect_run "sane, mailname domain of a name without one: fails" "$TMP/s5.out" 1 0 0 1
check "sane, no domain: said" grep -q 'has no domain part' "$TMP/s5.out"
same "sane, no domain: /etc/mailname untouched" "$(cat "$S/etc/mailname")" hand.example.org
cat >"$TMP/sane2.lua" <<EOF
host "mx1.example.com" { hostname.sane { mailname = "domian" } }
EOF
run_prop "$TMP/s6.out" lint "$TMP/sane2.lua"
check "sane, bad mailname: P012 at its line" grep -q 'sane2.lua:1: error\[P012\].*mailname must be' "$TMP/s6.out"

# This machine: renamed, then back.
if ! hostname "$running" 2>/dev/null; then
  skip_part "this machine's part: cannot set the host name here"
  finish
  exit
fi
cp -p /etc/hosts "$TMP/hosts.saved"
cp -p /etc/hostname "$TMP/hostname.saved" 2>/dev/null
on_exit "hostname '$running'; cp -p '$TMP/hosts.saved' /etc/hosts; [[ -f '$TMP/hostname.saved' ]] && cp -p '$TMP/hostname.saved' /etc/hostname"
NEW=prop-test-$$
cat >"$TMP/local.lua" <<EOF
host "localhost" { hostname.set "$NEW.example.net" }
EOF
prop_run "$TMP/ldry.out" "$TMP/local.lua" --dry-run
expect_run "localhost, dry run: changed" "$TMP/ldry.out" 0 1 0 0
same "localhost, dry run: name untouched" "$(hostname)" "$running"
prop_run "$TMP/l1.out" "$TMP/local.lua"
expect_run "localhost: changed" "$TMP/l1.out" 0 1 0 0
same "localhost: running name" "$(hostname)" "$NEW"
same "localhost: /etc/hostname" "$(cat /etc/hostname)" "$NEW"
check "localhost: /etc/hosts line" grep -qP "^127\\.0\\.1\\.1\\t$NEW\\.example\\.net $NEW\$" /etc/hosts
prop_run "$TMP/l2.out" "$TMP/local.lua"
expect_run "localhost: second run ok" "$TMP/l2.out" 0 0 1 0

finish
