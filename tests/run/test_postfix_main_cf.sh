#!/usr/bin/env bash
# postfix.main_cf's edits of main.cf, in a connect.dir tree, by a dry run
# with --diff (the run itself, with postfix check and the reload, is
# tested in tests/containers/test_postfix_fail2ban.sh): a parameter with
# continuation lines becomes one line, a second entry of one parameter is
# dropped, a commented-out one is replaced, a missing one appended, one
# with the value already (other spacing) kept byte for byte; nothing is
# written.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

T="$TMP/tree"
mkdir -p "$T/etc/postfix"
cat >"$T/etc/postfix/main.cf" <<'EOF'
# main.cf
smtpd_banner = $myhostname ESMTP
#relayhost = [old.example.org]
mydestination = $myhostname,
    localhost.localdomain,
    localhost
# a comment between
mynetworks = 127.0.0.0/8
inet_interfaces = all
mynetworks = 10.0.0.0/8
message_size_limit   =   10240000
EOF
cp "$T/etc/postfix/main.cf" "$TMP/main.cf.orig"
cat >"$TMP/site.lua" <<EOF
host "mail.example.org" {
  connect.dir "$T",
  os.debian("bookworm", "amd64"),
  postfix.main_cf { relayhost = "[smtp.example.org]:587", mydestination = "",
                    mynetworks = { "127.0.0.0/8", "[::1]/128" }, message_size_limit = 10240000,
                    biff = false },
}
EOF
run_prop "$TMP/d.out" run "$TMP/site.lua" --dry-run --diff
same "dry run: exit" "$rc" 0
check "dry run: four settings would change" grep -q '4 would change' "$TMP/d.out"
check "the continuation lines go" grep -q -- '-    localhost.localdomain,' "$TMP/d.out"
check "the empty value" grep -qx -- 'mail.example.org    +mydestination =' "$TMP/d.out"
check "the first mynetworks replaced" grep -qF -- '+mynetworks = 127.0.0.0/8, [::1]/128' "$TMP/d.out"
check "the second mynetworks dropped" grep -qF -- '-mynetworks = 10.0.0.0/8' "$TMP/d.out"
check "the commented-out relayhost replaced" grep -qF -- '-#relayhost = [old.example.org]' "$TMP/d.out"
check "by the setting" grep -qF -- '+relayhost = [smtp.example.org]:587' "$TMP/d.out"
check "a missing parameter appended (false is no)" grep -qF -- '+biff = no' "$TMP/d.out"
check "the same value, other spacing: kept" bash -c "! grep -q -- '[-+]message_size_limit' '$TMP/d.out'"
check "says it would check with postfix check" grep -q 'would check the new main.cf with postfix check' "$TMP/d.out"
check "says no daemon is reloaded in a tree" grep -q 'no daemon runs in a directory tree' "$TMP/d.out"
check "nothing written" cmp -s "$T/etc/postfix/main.cf" "$TMP/main.cf.orig"
check "no check copy" test ! -e "$T/etc/postfix/prop-check"

finish
