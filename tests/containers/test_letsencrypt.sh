#!/usr/bin/env bash
# letsencrypt.certbot for real against a local ACME server: Debian's
# pebble runs inside a Docker container made by the test, with a TLS
# certificate from a throwaway CA the container trusts, and a web server
# (python3 -m http.server) on the webroot at the port pebble checks
# challenges on; the domains are names in the container's /etc/hosts.
# Nothing of it reaches this machine's network or Let's Encrypt.
# Lint: bad domains, a wildcard, a bad e-mail and URL are P012, one
# certificate name given two domain lists is P007.  Then: a dry run
# changes nothing; a run installs certbot and gets a certificate naming
# every domain (openssl reads it), and its on_change runs; a second run
# changes nothing and asks nothing; a key replaced by hand is seen by the
# probe (a dry run says would fail, prop verify exits 2) and a run renews
# the certificate, with its on_change; a domain added gets a new certificate
# in the same place; a domain the ACME server cannot check, and an ACME
# server that does not answer, fail with certbot's words and leave the
# certificate as it was; a certificate put in place by hand that covers
# the domains is ok without asking any server, one that expires within
# 30 days is renewed (and fails to be, the server not answering).
# Every image and container is named prop-test-* and removed on exit.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# ---- arguments and claims ------------------------------------------------------------
cat >"$TMP/bad.lua" <<'EOF'
host "a" {
  os.debian("bookworm", "amd64"),
  letsencrypt.certbot("*.example.org", "admin@example.org"),
  letsencrypt.certbot({ "example.org", "bad_name.example.org" }, "admin@example.org"),
  letsencrypt.certbot("example.org", "admin"),
  letsencrypt.certbot("example.org", "admin@example.org", { webrot = "/srv/www" }),
  letsencrypt.certbot("example.org", "admin@example.org", { server = "ftp://acme" }),
  letsencrypt.certbot({}, "admin@example.org"),
  letsencrypt.certbot({ "example.org", "Example.org" }, "admin@example.org"),
}
host "b" {
  os.debian("bookworm", "amd64"),
  letsencrypt.certbot("example.org", "admin@example.org"),
  letsencrypt.certbot({ "example.org", "www.example.org" }, "admin@example.org"),
}
host "c" {
  os.debian("bookworm", "amd64"),
  letsencrypt.certbot({ "example.org", "www.example.org" }, "admin@example.org",
                      { webroot = "/srv/www", server = "https://acme.example.net/dir" }),
}
EOF
run_prop "$TMP/bad.out" lint "$TMP/bad.lua"
OUT="$TMP/bad.out"
same "lint: exit" "$rc" 2
check "a wildcard is refused, with why" grep -q 'bad.lua:3: error\[P012\]: letsencrypt.certbot: domains\[1\] "\*.example.org" is a wildcard' "$TMP/bad.out"
check "a bad domain name" grep -q 'bad.lua:4: error\[P012\]: letsencrypt.certbot: domains\[2\] "bad_name.example.org" is not a domain name' "$TMP/bad.out"
check "a bad e-mail" grep -q 'bad.lua:5: error\[P012\]: letsencrypt.certbot: email "admin" is not an e-mail address' "$TMP/bad.out"
check "a misspelt option" grep -q 'bad.lua:6: error\[P012\]: unknown key "webrot" for letsencrypt.certbot (did you mean "webroot"?)' "$TMP/bad.out"
check "a bad server URL" grep -q 'bad.lua:7: error\[P012\]: letsencrypt.certbot: server "ftp://acme" is not valid' "$TMP/bad.out"
check "no domains" grep -q 'bad.lua:8: error\[P012\]: letsencrypt.certbot: domains is empty' "$TMP/bad.out"
check "a domain twice" grep -q 'bad.lua:9: error\[P012\]: letsencrypt.certbot: domains names example.org twice' "$TMP/bad.out"
check "one certificate, two domain lists: P007" grep -q 'bad.lua:14: error\[P007\]: "/etc/letsencrypt/live/example.org"' "$TMP/bad.out"
same "lint: eight errors" "$(grep -c 'error\[P' "$TMP/bad.out")" 8
sed -n '16,20p' "$TMP/bad.lua" >"$TMP/c.lua"
run_prop "$TMP/show.out" show "$TMP/c.lua" c
OUT="$TMP/show.out"
check "show: the live directory" grep -q 'claims file.generated /etc/letsencrypt/live/example.org "certbot example.org www.example.org"' "$TMP/show.out"
check "show: certbot and openssl" bash -c "grep -q 'claims package.installed certbot' '$TMP/show.out' && grep -q 'claims package.installed openssl' '$TMP/show.out'"

# ---- Docker, pebble -------------------------------------------------------------
docker_up
rootfs_cache
docker_test "prop-test-le-img-$$" "prop-test-le-$$"

ACME="https://127.0.0.1:14000/dir"
write_site() { # PROPERTIES...
  local extra=""
  if [[ $# -gt 0 ]]; then extra="$(printf '  %s,\n' "$@")"; fi
  cat >"$TMP/site.lua" <<EOF
local base = docker.image("$IMG", os.debian("$SUITE", "$ARCH"), { cache = "$ROOTFS_CACHE" })
local box = docker.container("$CTR", base, {
  apt.installed { "pebble", "python3", "ca-certificates", "openssl" },
  file.directory "/var/www/html",
$extra
})
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  docker.running(box),
}
EOF
}
sans() { docker exec "$CTR" openssl x509 -in "/etc/letsencrypt/live/$1/cert.pem" -noout -ext subjectAltName | tail -n +2 | tr -d ' '; }
cert_sum() { docker exec "$CTR" sha256sum "/etc/letsencrypt/live/$1/cert.pem" | cut -d' ' -f1; }

docker image rm -f "$IMG" >/dev/null 2>&1 || true
write_site
PROP_RUN_TIMEOUT=900 prop_run "$TMP/r0.out" "$TMP/site.lua"
same "container made, pebble installed: exit" "$rc" 0

# A CA of the test's own, made and trusted inside the container; pebble's
# TLS certificate from it; the domains in /etc/hosts.
pebble_start 5002 www.prop.test prop.test api.prop.test
docker exec -d "$CTR" sh -c 'python3 -m http.server 5002 --directory /var/www/html >/var/log/http.log 2>&1'
up=no
for _ in $(seq 120); do
  if docker exec "$CTR" bash -c '</dev/tcp/127.0.0.1/14000 && </dev/tcp/127.0.0.1/5002' 2>/dev/null; then up=yes; break; fi
  sleep 0.5
done
same "pebble and the web server answer" "$up" yes

CERT='letsencrypt.certbot({ "www.prop.test", "prop.test" }, "admin@prop.test", { server = "'$ACME'" })'
CERT3='letsencrypt.certbot({ "www.prop.test", "prop.test", "api.prop.test" }, "admin@prop.test", { server = "'$ACME'" })'
MARK='file.has_content("/srv/reloaded", "yes\n")'

# ---- dry run -------------------------------------------------------------------------
write_site "$CERT"
prop_run "$TMP/d.out" "$TMP/site.lua" --dry-run
same "dry run: exit" "$rc" 0
same "dry run: one would change" "$(changed_inside "$TMP/d.out")" "1/0"
check "dry run: says what it would do" grep -q 'would request a certificate for www.prop.test prop.test once certbot is installed' "$TMP/d.out"
check "dry run: certbot not installed" bash -c "! docker exec $CTR test -e /usr/bin/certbot"

# ---- first run, with on_change ----------------------------------------------------------
write_site "$CERT:on_change($MARK)"
prop_run "$TMP/r1.out" "$TMP/site.lua"
same "first run: exit" "$rc" 0
same "first run: the certificate and its on_change changed" "$(changed_inside "$TMP/r1.out")" "2/0"
check "first run: no W104" bash -c "! grep -q W104 '$TMP/r1.out'"
same "the certificate names both domains" "$(sans www.prop.test)" "DNS:www.prop.test,DNS:prop.test"
check "it is pebble's" bash -c "docker exec $CTR openssl x509 -in /etc/letsencrypt/live/www.prop.test/cert.pem -noout -issuer | grep -q Pebble"
check "the note says so" grep -q 'certificate obtained for www.prop.test prop.test' "$TMP/r1.out"
same "on_change ran" "$(inside cat /srv/reloaded)" "yes"
SUM1="$(cert_sum www.prop.test)"

# ---- second run: nothing asked, on_change not run -----------------------------------------
inside rm /srv/reloaded
orders_before="$(inside grep -c 'POST /order-plz' /var/log/pebble.log || true)"
prop_run "$TMP/r2.out" "$TMP/site.lua"
same "second run: exit" "$rc" 0
same "second run: nothing changes" "$(changed_inside "$TMP/r2.out")" "0/0"
check "second run: on_change not run" bash -c "! docker exec $CTR test -e /srv/reloaded"
same "second run: no order sent to pebble" "$(inside grep -c 'POST /order-plz' /var/log/pebble.log || true)" "$orders_before"
same "second run: the same certificate" "$(cert_sum www.prop.test)" "$SUM1"

# ---- the key replaced behind prop's back: only the probe sees it ---------------------------
LIVE=/etc/letsencrypt/live/www.prop.test
keys_match() { [[ "$(inside openssl x509 -in $LIVE/fullchain.pem -noout -pubkey)" == "$(inside openssl pkey -in $LIVE/privkey.pem -pubout)" ]]; }
inside sh -c "openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out \"\$(readlink -f $LIVE/privkey.pem)\"" >/dev/null 2>&1
same "wrong key: the key is another" "$(keys_match && echo same || echo other)" other
prop_run "$TMP/k1.out" "$TMP/site.lua" --dry-run
same "wrong key, dry run: exit 1" "$rc" 1
same "wrong key, dry run: the certificate would fail" "$(changed_inside "$TMP/k1.out")" "0/1"
check "wrong key, dry run: with what the probe saw" grep -q "would fail: verify: $LIVE/privkey.pem is not the key of the certificate in $LIVE/fullchain.pem" "$TMP/k1.out"
same "wrong key, dry run: the same certificate" "$(cert_sum www.prop.test)" "$SUM1"
prop_verify "$TMP/kv.out" "$TMP/site.lua"
same "wrong key, prop verify: exit 2" "$rc" 2
same "wrong key, prop verify: the certificate failed" "$(host_count "$TMP/kv.out" "localhost/$CTR" failed)" 1
check "wrong key, prop verify: with what the probe saw" grep -q "would fail: verify: $LIVE/privkey.pem is not the key of the certificate in $LIVE/fullchain.pem" "$TMP/kv.out"
same "wrong key, prop verify: the same certificate" "$(cert_sum www.prop.test)" "$SUM1"
prop_run "$TMP/k2.out" "$TMP/site.lua"
same "wrong key: renewed (changed, with its on_change)" "$(changed_inside "$TMP/k2.out")/$rc" "2/0/0"
check "wrong key: says so" grep -q 'certificate renewed for www.prop.test prop.test (its files were broken)' "$TMP/k2.out"
check "wrong key: another certificate" test "$(cert_sum www.prop.test)" != "$SUM1"
same "wrong key: the key is the certificate's again" "$(keys_match && echo same || echo other)" same
same "wrong key: on_change ran" "$(inside cat /srv/reloaded)" "yes"
prop_run "$TMP/k3.out" "$TMP/site.lua"
same "wrong key: the next run changes nothing" "$(changed_inside "$TMP/k3.out")/$rc" "0/0/0"
prop_verify "$TMP/kv3.out" "$TMP/site.lua"
same "wrong key, repaired: prop verify: all hold" "$rc" 0

# ---- a domain added -------------------------------------------------------------------
write_site "$CERT3"
prop_run "$TMP/r3.out" "$TMP/site.lua"
same "domain added: changed" "$(changed_inside "$TMP/r3.out")/$rc" "1/0/0"
check "domain added: says why" grep -q 'the certificate does not cover api.prop.test' "$TMP/r3.out"
same "domain added: the certificate names all three" "$(sans www.prop.test)" "DNS:www.prop.test,DNS:prop.test,DNS:api.prop.test"
SUM3="$(cert_sum www.prop.test)"

# ---- a domain pebble cannot check: fails, the certificate stays ----------------------------
write_site 'letsencrypt.certbot({ "www.prop.test", "prop.test", "api.prop.test", "nowhere.prop.test" }, "admin@prop.test", { server = "'$ACME'" })'
prop_run "$TMP/f1.out" "$TMP/site.lua"
same "unchecked domain: exit" "$rc" 1
same "unchecked domain: fails" "$(changed_inside "$TMP/f1.out")" "0/1"
check "unchecked domain: certbot's words" grep -q 'nowhere.prop.test' "$TMP/f1.out"
check "unchecked domain: says the certificate was kept" grep -q 'the certificate in /etc/letsencrypt/live/www.prop.test is left as it was' "$TMP/f1.out"
same "unchecked domain: the certificate is the previous one" "$(cert_sum www.prop.test)" "$SUM3"

# ---- the ACME server does not answer -----------------------------------------------------
DEAD="https://127.0.0.1:1/dir"
write_site 'letsencrypt.certbot({ "www.prop.test", "prop.test", "api.prop.test", "x.prop.test" }, "admin@prop.test", { server = "'$DEAD'" })'
prop_run "$TMP/f2.out" "$TMP/site.lua"
same "no server: fails" "$(changed_inside "$TMP/f2.out")/$rc" "0/1/1"
check "no server: certbot's words" grep -qi 'connection refused\|Max retries\|Failed to establish' "$TMP/f2.out"
same "no server: the certificate is the previous one" "$(cert_sum www.prop.test)" "$SUM3"

# ---- certificates put there by hand -----------------------------------------------------
selfmade() { # NAME DAYS
  inside sh -c "mkdir -p /etc/letsencrypt/live/$1 && openssl req -x509 -newkey rsa:2048 -nodes \
    -keyout /etc/letsencrypt/live/$1/privkey.pem -out /etc/letsencrypt/live/$1/cert.pem \
    -days $2 -subj /CN=$1 -addext subjectAltName=DNS:$1 >/dev/null 2>&1 &&
    cp /etc/letsencrypt/live/$1/cert.pem /etc/letsencrypt/live/$1/fullchain.pem"
}
selfmade self.prop.test 90
write_site 'letsencrypt.certbot("self.prop.test", "admin@prop.test", { server = "'$DEAD'" })'
prop_run "$TMP/s1.out" "$TMP/site.lua"
same "a covering certificate: ok, no server asked" "$(changed_inside "$TMP/s1.out")/$rc" "0/0/0"
selfmade old.prop.test 10
write_site 'letsencrypt.certbot("old.prop.test", "admin@prop.test", { server = "'$DEAD'" })'
prop_run "$TMP/s2.out" "$TMP/site.lua"
same "an expiring certificate: renewal tried, and fails" "$(changed_inside "$TMP/s2.out")/$rc" "0/1/1"
check "an expiring certificate: says why" grep -q 'the certificate expires within 30 days' "$TMP/s2.out"

finish
