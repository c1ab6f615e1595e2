#!/usr/bin/env bash
# examples/fleet.lua, a real fleet translated (Propellor's author's own
# configuration, host for host): it lints clean with its secret store;
# every hand-written property is in its "Site-specific" section, and there
# are few; prop claims and prop show answer on it (the recipes' claims, the
# containers nested, the secrets hidden); and the conflict the translation
# had to resolve (a whole /etc/resolv.conf beside hostname.search_domain's
# line in it, which in the original rewrite each other at every run) is
# P007 when put back.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

cp "$PROP_SOURCE_DIR/examples/fleet.lua" "$PROP_SOURCE_DIR/examples/fleet.secrets" "$TMP/"
cd "$TMP"

run_prop lint.out lint fleet.lua
check "the fleet lints clean" test "$rc" = 0
check "without a warning" bash -c "! grep -q 'warning' lint.out"

# Hand-written properties only where the site says its own things are.
site_line="$(grep -n '^-- Site-specific' fleet.lua | cut -d: -f1)"
roles_line="$(grep -n '^-- Roles' fleet.lua | cut -d: -f1)"
total="$(grep -c 'property {' fleet.lua)"
inside="$(sed -n "${site_line},${roles_line}p" fleet.lua | grep -c 'property {')"
check "every hand-written property is site-specific ($inside of $total)" test "$inside" = "$total"
check "and there are few of them ($total)" test "$total" -le 3
hosts="$(grep -c '^host "' fleet.lua)"
check "all the fleet's 14 hosts are there ($hosts)" test "$hosts" = 14

run_prop claims.out claims fleet.lua /etc/postfix/main.cf
check "prop claims main.cf: exit" test "$rc" = 0
check "kite's main.cf settings are postfix.main_cf's" grep -q '^kite.kitenet.net .*main.cf "myhostname=kitenet.net"' claims.out
check "the satellites' relayhost" grep -q '^orca.kitenet.net .*main.cf "relayhost=' claims.out

run_prop port.out claims fleet.lua port:993
check "the site-specific IMAP server declares its port" grep -q '^kite.kitenet.net .*dovecot listens on imaps only' port.out

run_prop show.out show fleet.lua kite.kitenet.net
check "prop show kite: exit" test "$rc" = 0
check "the container is nested under kite" grep -q 'ancient-kitenet' show.out
check "the borg passphrase is a secret, not shown" grep -q 'passphrase (secret)' show.out
check "no secret value is printed" bash -c "! grep -qi 'BEGIN OPENSSH PRIVATE KEY' show.out"

# The original's conflict, put back: kite gets the search domain too.
sed 's/standard_system_unhardened("testing", "amd64", "Welcome to kite!", true)/standard_system_unhardened("testing", "amd64", "Welcome to kite!")/' \
  fleet.lua >conflict.lua
cp fleet.secrets conflict.secrets
OUT=conflict.lua
check "the conflict was put back" bash -c "! cmp -s fleet.lua conflict.lua"
run_prop conflict.out lint conflict.lua
check "resolv.conf twice: exit 2" test "$rc" = 2
check "resolv.conf twice: P007 naming the file" grep -q 'error\[P007\]: "/etc/resolv.conf"' conflict.out

finish
