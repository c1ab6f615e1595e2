#!/usr/bin/env bash
# examples/web_sites.lua, the port clash Propellor's port types were made
# to catch, and virtual hosts checked from their types: the example lints
# clean; with the Tor bridge back on 443 lint names both it and the HTTPS
# site (P006) and nothing runs; a second site answering a name of the host
# on 443, and a second default site of a port, are P017 at the second
# site's line with a note at the first; prop claims lists each name on
# each port and the two sites sharing one certificate.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

cp -r "$PROP_SOURCE_DIR/examples/web_sites.lua" "$PROP_SOURCE_DIR/examples/web_sites.secrets" \
  "$PROP_SOURCE_DIR/examples/certs" "$TMP/"
cd "$TMP"

run_prop lint.out lint web_sites.lua
check "the example lints clean" test "$rc" = 0
check "without a warning" bash -c "! grep -q 'warning' lint.out"

# The bridge back on 443: P006 names both, at the site's line, with a note
# at the bridge's.
sed 's/tor.bridge { port = 9001 },/tor.bridge(),/' web_sites.lua >bridge443.lua
cp web_sites.secrets bridge443.secrets
grep -q '^  tor.bridge(),$' bridge443.lua || fail "sed" "the bridge line was not found"
run_prop p006.out lint bridge443.lua
same "bridge on 443: lint exits 2" "$rc" 2
site_line="$(grep -n 'web.site("bridge.example.org",' bridge443.lua | cut -d: -f1)"
bridge_line="$(grep -n 'tor.bridge(),' bridge443.lua | cut -d: -f1)"
check "P006 at the site, naming the bridge and port 443" \
  grep -q "^bridge443.lua:$site_line: error\[P006\]: port 443 is used by both \"web site bridge.example.org.*\" and \"tor bridge\"" p006.out
check "a note at the bridge's line" grep -q "^bridge443.lua:$bridge_line: note: \"tor bridge\" uses port 443" p006.out
same "only that error" "$(grep -c 'error\[' p006.out)" 1
run_prop p006run.out run bridge443.lua --dry-run
same "prop run refuses it before anything runs" "$rc" 2

# A second site for www.example.org on 443, and a second default site on
# 80: P017 each, at the second's line (the first clashes on 80 too: a
# TLS site's plain-HTTP site answers its names there).
cat >p017.lua <<'LUA'
host "www.example.org" {
  os.debian("bookworm", "amd64"),
  nginx.installed(),
  web.site({ "example.org", "www.example.org" },
           { root = "/srv/www/example.org", tls = "letsencrypt", email = "h@example.org" }),
  web.site("www.example.org", { redirect = "https://example.org", port = 443,
                                tls = "letsencrypt", email = "h@example.org" }),
  web.site("a.example.org", { root = "/srv/a", default = true }),
  web.site("b.example.org", { root = "/srv/b", default = true }),
}
LUA
run_prop p017.out lint p017.lua
same "clashing sites: lint exits 2" "$rc" 2
check "P017: www.example.org on 443, at the second site" \
  grep -q '^p017.lua:6: error\[P017\]: .*www.example.org on port 443' p017.out
check "P017: and on 80, where its plain-HTTP site answers" \
  grep -q '^p017.lua:6: error\[P017\]: .*www.example.org on port 80' p017.out
check "a note at the first" grep -q '^p017.lua:4: note: ' p017.out
check "P017: two default sites of port 80, at the second" \
  grep -q '^p017.lua:9: error\[P017\]: .*default.*80' p017.out
same "three errors" "$(grep -c 'error\[' p017.out)" 3

# What the checker sees comes from the same value the configuration is
# made from.
run_prop claims.out claims web_sites.lua port:443
same "prop claims port:443: exit" "$rc" 0
for n in bridge.example.org example.org www.example.org shop.example.org blog.example.org; do
  check "$n answers on 443" grep -q " web.name $n:443 " claims.out
done
check "the redirect is not on 443" bash -c "! grep -q 'old.example.org:443' claims.out"
run_prop show.out show web_sites.lua www.example.org
check "shop and blog: one certificate's files, each its own copy" \
  bash -c "grep -q 'file.content /etc/ssl/prop/shop.example.org.pem' show.out &&
           grep -q 'file.content /etc/ssl/prop/blog.example.org.pem' show.out"
check "the key a secret" grep -q 'file.content /etc/ssl/prop/shop.example.org.key (secret)' show.out
check "certbot's renewals reload nginx" grep -q 'renewal-hooks/deploy/prop-reload-nginx' show.out

finish
