#!/usr/bin/env bash
# hostname.search_domain on connect.dir trees: the search line of
# /etc/resolv.conf replaced in place, the domain line dropped, the
# nameservers kept (dry run, first run, second run ok, revert); a tree
# whose resolv.conf is systemd-resolved's link fails and is left alone;
# two domains on a host is P007.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

T="$TMP/tree"
mkdir -p "$T/etc"
F="$T/etc/resolv.conf"
printf 'domain old.example\nsearch a.example b.example\nnameserver 192.0.2.1\n' >"$F"
cp "$F" "$TMP/orig"
cat >"$TMP/set.lua" <<EOF
host "tree" { connect.dir "$T", hostname.search_domain "corp.example.com" }
EOF
cat >"$TMP/unset.lua" <<EOF
host "tree" { connect.dir "$T", revert(hostname.search_domain "corp.example.com") }
EOF
prop_run "$TMP/dry.out" "$TMP/set.lua" --dry-run
expect_run "dry run: would change" "$TMP/dry.out" 0 1 0 0
check "dry run: file unchanged" cmp -s "$F" "$TMP/orig"
prop_run "$TMP/run1.out" "$TMP/set.lua"
expect_run "first run: changed" "$TMP/run1.out" 0 1 0 0
same "the search line replaces the others" "$(cat "$F")" "search corp.example.com
nameserver 192.0.2.1"
check "says the domain line went" grep -q "the domain line goes" "$TMP/run1.out"
prop_run "$TMP/run2.out" "$TMP/set.lua"
expect_run "second run: ok" "$TMP/run2.out" 0 0 1 0
prop_run "$TMP/r1.out" "$TMP/unset.lua"
expect_run "revert: changed" "$TMP/r1.out" 0 1 0 0
same "revert: only the nameserver left" "$(cat "$F")" "nameserver 192.0.2.1"
prop_run "$TMP/r2.out" "$TMP/unset.lua"
expect_run "revert again: ok" "$TMP/r2.out" 0 0 1 0

# A tree without the file: made.
U="$TMP/bare"
mkdir -p "$U/etc"
cat >"$TMP/bare.lua" <<EOF
host "bare" { connect.dir "$U", hostname.search_domain "corp.example.com" }
EOF
prop_run "$TMP/b1.out" "$TMP/bare.lua"
expect_run "no file: changed" "$TMP/b1.out" 0 1 0 0
same "no file: made" "$(cat "$U/etc/resolv.conf")" "search corp.example.com"

# systemd-resolved's link: a failure, left alone.
V="$TMP/resolved"
mkdir -p "$V/etc" "$V/run/systemd/resolve"
echo "nameserver 127.0.0.53" >"$V/run/systemd/resolve/stub-resolv.conf"
ln -s ../run/systemd/resolve/stub-resolv.conf "$V/etc/resolv.conf"
cat >"$TMP/resolved.lua" <<EOF
host "resolved" { connect.dir "$V", hostname.search_domain "corp.example.com" }
EOF
before="$(tree_state "$V")"
prop_run "$TMP/v1.out" "$TMP/resolved.lua"
expect_run "systemd-resolved: failed" "$TMP/v1.out" 1 0 0 1
check "systemd-resolved: says why" grep -q "which systemd-resolved or resolvconf writes" "$TMP/v1.out"
same "systemd-resolved: left alone" "$(tree_state "$V")" "$before"

cat >"$TMP/bad.lua" <<EOF
host "h" { hostname.search_domain "a.example", hostname.search_domain "b.example" }
host "g" { hostname.search_domain "not a domain" }
EOF
run_prop "$TMP/bad.out" lint "$TMP/bad.lua"
check "two domains: P007" grep -q "bad.lua:1: error\[P007\]" "$TMP/bad.out"
check "bad domain: P012" grep -q "bad.lua:2: error\[P012\]" "$TMP/bad.out"

finish
