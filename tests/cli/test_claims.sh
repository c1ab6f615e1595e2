#!/usr/bin/env bash
# prop claims SITE THING: what manages a path, a package, a service, a
# port, an account, in text and in JSON (checked with jq, a real JSON
# parser), on the real-sized fleet of tests/sites/valid (hand-written
# properties with claims beside recipes); a secret's value never shown,
# not by prop claims, prop show, prop graph nor the REPL; prop show and
# prop graph list what a property claims.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

if ! command -v jq >/dev/null 2>&1; then
  echo "FAIL: jq is not installed (apt-get install jq); JSON output not checked"
  exit 1
fi

cd "$SITES/valid"
fleet=real_fleet.lua

# ---- text ------------------------------------------------------------------
run_prop "$TMP/out" claims "$fleet" /etc/ssh/sshd_config
[[ "$rc" == 0 ]] && pass || fail "claims: exit" "got $rc" "$TMP/out"
# kite edits it twice by hand (yes and GatewayPorts); oyster, orca and
# honeybee once each through the hardened role.
n="$(grep -c '  file.line /etc/ssh/sshd_config ' "$TMP/out" || true)"
[[ "$n" == 5 ]] && pass || fail "claims: five line edits" "got $n" "$TMP/out"
grep -qF 'kite.kitenet.net  file.line /etc/ssh/sshd_config "GatewayPorts clientspecified"  by "sshd GatewayPorts clientspecified" (real_fleet.lua:18), called from real_fleet.lua:' "$TMP/out" &&
  pass || fail "claims: a hand-written line edit, with its value and lines" "missing" "$TMP/out"
grep -qF 'oyster.kitenet.net  file.line /etc/ssh/sshd_config "PasswordAuthentication no"' "$TMP/out" &&
  pass || fail "claims: the role's edit" "missing" "$TMP/out"

# A directory: everything below it.  Hand-written lines and recipe lines.
run_prop "$TMP/out" claims "$fleet" /etc/tor
n="$(grep -c '  file.line /etc/tor/torrc "HiddenService' "$TMP/out" || true)"
[[ "$n" == 8 ]] && pass || fail "claims: torrc lines on four relays" "got $n" "$TMP/out"

run_prop "$TMP/out" claims "$fleet" /etc/hosts
grep -qF 'darkstar.kitenet.net  file.line /etc/hosts "127.0.1.1\tdarkstar.kitenet.net darkstar"  by "hostname darkstar.kitenet.net"' "$TMP/out" &&
  pass || fail "claims: hostname.set claims its /etc/hosts line" "missing" "$TMP/out"

run_prop "$TMP/out" claims "$fleet" package:tor
n="$(grep -c 'package.installed tor' "$TMP/out" || true)"
[[ "$n" == 8 ]] && pass || fail "claims: package:tor (recipe and hand-written, four hosts)" "got $n" "$TMP/out"

run_prop "$TMP/out" claims "$fleet" port:25
grep -qF 'kite.kitenet.net  port 25  by "postfix main.cf"' "$TMP/out" && grep -qF 'in "mail server"' "$TMP/out" &&
  pass || fail "claims: port:25 with its composite" "missing" "$TMP/out"

run_prop "$TMP/out" claims "$fleet" group:dialout
grep -qF 'darkstar.kitenet.net  group dialout  by "joey in group dialout"' "$TMP/out" &&
  pass || fail "claims: group:dialout" "missing" "$TMP/out"

run_prop "$TMP/out" claims "$fleet" user:joey
n="$(grep -c '  user joey' "$TMP/out" || true)"
[[ "$n" -ge 5 ]] && pass || fail "claims: user:joey" "got $n" "$TMP/out"

run_prop "$TMP/out" claims "$fleet" service:tor
n="$(grep -c 'service.running tor' "$TMP/out" || true)"
[[ "$n" == 4 ]] && pass || fail "claims: service:tor" "got $n" "$TMP/out"

run_prop "$TMP/out" claims "$fleet" 192.0.2.95
grep -qF 'kite.kitenet.net  info ipv4 192.0.2.95' "$TMP/out" && pass ||
  fail "claims: a bare word finds an address" "missing" "$TMP/out"

run_prop "$TMP/out" claims "$fleet" /nowhere
[[ "$rc" == 1 ]] && grep -q 'nothing on any host of real_fleet.lua claims /nowhere' "$TMP/out" &&
  pass || fail "claims: nothing claims it: exit 1" "got $rc" "$TMP/out"
run_prop "$TMP/out" claims "$fleet" port:0
[[ "$rc" == 64 ]] && pass || fail "claims: port:0 is a usage error" "got $rc" "$TMP/out"
run_prop "$TMP/out" claims "$fleet"
[[ "$rc" == 64 ]] && pass || fail "claims: no thing is a usage error" "got $rc" "$TMP/out"

# ---- JSON --------------------------------------------------------------------
"$PROP" claims "$fleet" /etc/ssh/sshd_config --json >"$TMP/json" 2>"$TMP/err"
if jq -e 'type == "array" and length == 5' "$TMP/json" >/dev/null; then pass; else
  fail "json: an array of five" "jq says no" "$TMP/json"
fi
if jq -e '[.[] | select(.host == "kite.kitenet.net" and .kind == "file.line"
            and .key == "/etc/ssh/sshd_config" and .value == "GatewayPorts clientspecified"
            and .property == "sshd GatewayPorts clientspecified"
            and (.origin | test("^real_fleet.lua:18$")) and (.trace | length) >= 2)] | length == 1' \
     "$TMP/json" >/dev/null; then pass; else
  fail "json: the fields of a claim" "not as expected" "$TMP/json"
fi
"$PROP" claims "$fleet" port:25 --json >"$TMP/json"
if jq -e '.[0].kind == "port" and .[0].port == 25 and .[0].chain[0].desc == "mail server"
          and .[0].chain[0].kind == "describe"' "$TMP/json" >/dev/null; then pass; else
  fail "json: a port and its chain" "not as expected" "$TMP/json"
fi
"$PROP" claims "$fleet" /nowhere --json >"$TMP/json" || true
if jq -e '. == []' "$TMP/json" >/dev/null; then pass; else
  fail "json: nothing is []" "not as expected" "$TMP/json"
fi

# ---- secrets never shown -------------------------------------------------------
cat >"$TMP/secret.lua" <<'EOF'
host "vault.example.com" {
  os.debian("bookworm", "amd64"),
  file.has_content("/etc/app/token", "tok-SECRET-VALUE-42\n", { secret = true }),
}
EOF
run_prop "$TMP/out" claims "$TMP/secret.lua" /etc/app
grep -qF 'file.content /etc/app/token (secret)' "$TMP/out" && pass ||
  fail "secret: text says (secret)" "missing" "$TMP/out"
"$PROP" claims "$TMP/secret.lua" /etc/app --json >"$TMP/json"
jq -e '.[0].secret == true and (.[0] | has("value") | not)' "$TMP/json" >/dev/null && pass ||
  fail "secret: json has no value" "not as expected" "$TMP/json"
run_prop "$TMP/show" show "$TMP/secret.lua"
run_prop "$TMP/graph" graph "$TMP/secret.lua" vault.example.com
printf '%s\n' 'print(site.hosts()[1].properties[2].claims[1].value)' \
  'print(site.hosts()[1].properties[2].claims[1].secret)' ':claims /etc/app/token' \
  ':type site.hosts()[1].properties[2]' | "$PROP" repl "$TMP/secret.lua" >"$TMP/repl" 2>&1 || true
grep -q '^true$' "$TMP/repl" && pass || fail "secret: the REPL says it is secret" "missing" "$TMP/repl"
for f in out json show graph repl; do
  if grep -q 'SECRET-VALUE' "$TMP/$f"; then
    fail "secret: never shown ($f)" "the value is there" "$TMP/$f"
  else
    pass
  fi
done

# ---- show and graph list claims ---------------------------------------------------
run_prop "$TMP/show" show "$fleet" kite.kitenet.net
grep -qF 'claims file.line /etc/ssh/sshd_config "GatewayPorts clientspecified"' "$TMP/show" &&
  pass || fail "show: a hand-written property's claims" "missing" "$TMP/show"
grep -qF 'claims file.owned /etc/postfix/main.cf' "$TMP/show" &&
  pass || fail "show: a file owned whole" "missing" "$TMP/show"
run_prop "$TMP/graph" graph "$fleet" kite.kitenet.net
grep -qF 'file.owned /etc/postfix/main.cf' "$TMP/graph" &&
  pass || fail "graph: claims in a leaf's label" "missing" "$TMP/graph"

# ---- a site with errors still answers ------------------------------------------------
cat >"$TMP/clash.lua" <<'EOF'
host "web1" {
  os.debian("bookworm", "amd64"),
  property { desc = "app config by hand", claims = { files = { "/etc/app.conf" } },
             apply = function(sys) end },
  file.has_content("/etc/app.conf", "x=1\n"),
}
EOF
run_prop "$TMP/out" claims "$TMP/clash.lua" /etc/app.conf
[[ "$rc" == 0 ]] && grep -q 'has 1 error (prop lint shows them)' "$TMP/out" &&
  grep -qF 'web1  file.owned /etc/app.conf  by "app config by hand"' "$TMP/out" &&
  grep -qF 'web1  file.content /etc/app.conf "x=1\n"' "$TMP/out" && pass ||
  fail "clash: both sides shown, the error counted" "not as expected" "$TMP/out"

# ---- containers: named host/container; a reverted one claims nothing -------------
cat >"$TMP/ctr.lua" <<'EOF'
local web = systemd.container("web", os.debian("bookworm", "amd64"), { nginx.installed() })
local old = systemd.container("old", os.debian("bookworm", "amd64"), { apache.installed() })
host "box.example.com" {
  os.debian("bookworm", "amd64"),
  systemd.nspawned(web),
  revert(systemd.nspawned(old)),
}
EOF
run_prop "$TMP/out" claims "$TMP/ctr.lua" port:80
[[ "$rc" == 0 ]] && grep -qF 'box.example.com/web  port 80  by "nginx installed"' "$TMP/out" &&
  ! grep -q 'apache\|old' "$TMP/out" && pass ||
  fail "containers: a reverted container's port is not in use, names are host/container" \
    "not as expected" "$TMP/out"
run_prop "$TMP/out" claims "$TMP/ctr.lua" package:apache2
[[ "$rc" == 1 ]] && grep -q 'nothing on any host' "$TMP/out" && pass ||
  fail "containers: a reverted container claims no package" "exit $rc" "$TMP/out"
run_prop "$TMP/out" claims --json "$TMP/ctr.lua" package:nginx
grep -qF '"host":"box.example.com/web"' "$TMP/out" && pass ||
  fail "containers: --json names the container host/container" "not as expected" "$TMP/out"

# ---- web sites: by name, by name and port, by port -------------------------
run_prop "$TMP/out" claims near_p017.lua WWW.example.com
[[ "$rc" == 0 ]] && grep -qF 'web1.example.com  web.name www.example.com:80 "nginx"  by "nginx site www" (near_p017.lua:21)' "$TMP/out" &&
  grep -qF 'web1.example.com  web.name www.example.com:443 "nginx"  by "nginx site www-tls"' "$TMP/out" &&
  grep -qF 'web2.example.com  web.name www.example.com:80 "nginx"' "$TMP/out" &&
  grep -qF 'web1.example.com/batch  web.name www.example.com:80 "apache"' "$TMP/out" &&
  ! grep -q 'site old' "$TMP/out" && pass ||
  fail "web: a name finds its sites on every port and host, not a reverted one" "not as expected" "$TMP/out"
run_prop "$TMP/out" claims near_p017.lua www.example.com:443
[[ "$rc" == 0 && "$(wc -l <"$TMP/out")" == 1 ]] && pass ||
  fail "web: NAME:PORT finds the sites on that port" "exit $rc" "$TMP/out"
run_prop "$TMP/out" claims --json near_p017.lua port:443
[[ "$rc" == 0 ]] && jq -e 'map(select(.kind == "web.default" and .key == "443")) | length == 1' "$TMP/out" >/dev/null &&
  jq -e 'map(select(.kind == "port" and .port == 443)) | length == 1' "$TMP/out" >/dev/null && pass ||
  fail "web: port:N finds the default site and the site's port" "not as expected" "$TMP/out"

finish
