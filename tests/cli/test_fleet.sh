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
PROP="${PROP:?PROP must name the prop executable}"
SRC="${PROP_SOURCE_DIR:?PROP_SOURCE_DIR must name the source tree}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() {
  failed=$((failed + 1))
  echo "FAIL: $1"
  [[ -n "${2:-}" && -f "$2" ]] && sed 's/^/    | /' "$2" | head -40
  return 0
}
check() { # NAME OUT COMMAND...
  local name="$1" out="$2"
  shift 2
  if "$@"; then ok; else bad "$name" "$out"; fi
}

cp "$SRC/examples/fleet.lua" "$SRC/examples/fleet.secrets" "$TMP/"
cd "$TMP"

rc=0
"$PROP" lint fleet.lua >lint.out 2>&1 || rc=$?
check "the fleet lints clean" lint.out test "$rc" = 0
check "without a warning" lint.out bash -c "! grep -q 'warning' lint.out"

# Hand-written properties only where the site says its own things are.
site_line="$(grep -n '^-- Site-specific' fleet.lua | cut -d: -f1)"
roles_line="$(grep -n '^-- Roles' fleet.lua | cut -d: -f1)"
total="$(grep -c 'property {' fleet.lua)"
inside="$(sed -n "${site_line},${roles_line}p" fleet.lua | grep -c 'property {')"
check "every hand-written property is site-specific ($inside of $total)" lint.out test "$inside" = "$total"
check "and there are few of them ($total)" lint.out test "$total" -le 3
hosts="$(grep -c '^host "' fleet.lua)"
check "all the fleet's 14 hosts are there ($hosts)" lint.out test "$hosts" = 14

rc=0
"$PROP" claims fleet.lua /etc/postfix/main.cf >claims.out 2>&1 || rc=$?
check "prop claims main.cf: exit" claims.out test "$rc" = 0
check "kite's main.cf settings are postfix.main_cf's" claims.out grep -q '^kite.kitenet.net .*main.cf "myhostname=kitenet.net"' claims.out
check "the satellites' relayhost" claims.out grep -q '^orca.kitenet.net .*main.cf "relayhost=' claims.out

rc=0
"$PROP" claims fleet.lua port:993 >port.out 2>&1 || rc=$?
check "the site-specific IMAP server declares its port" port.out grep -q '^kite.kitenet.net .*dovecot listens on imaps only' port.out

rc=0
"$PROP" show fleet.lua kite.kitenet.net >show.out 2>&1 || rc=$?
check "prop show kite: exit" show.out test "$rc" = 0
check "the container is nested under kite" show.out grep -q 'ancient-kitenet' show.out
check "the borg passphrase is a secret, not shown" show.out grep -q 'passphrase (secret)' show.out
check "no secret value is printed" show.out bash -c "! grep -qi 'BEGIN OPENSSH PRIVATE KEY' show.out"

# The original's conflict, put back: kite gets the search domain too.
sed 's/standard_system_unhardened("testing", "amd64", "Welcome to kite!", true)/standard_system_unhardened("testing", "amd64", "Welcome to kite!")/' \
  fleet.lua >conflict.lua
cp fleet.secrets conflict.secrets
check "the conflict was put back" conflict.lua bash -c "! cmp -s fleet.lua conflict.lua"
rc=0
"$PROP" lint conflict.lua >conflict.out 2>&1 || rc=$?
check "resolv.conf twice: exit 2" conflict.out test "$rc" = 2
check "resolv.conf twice: P007 naming the file" conflict.out grep -q 'error\[P007\]: "/etc/resolv.conf"' conflict.out

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
