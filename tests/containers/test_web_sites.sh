#!/usr/bin/env bash
# web.site for real, inside one Docker container made by the test (from
# the cached bookworm tree, with this machine's dockerd; nothing listens
# on this machine).  nginx first: typed sites serving files, proxying to
# a backend and redirecting, beside a raw nginx.site, each answering
# curl for each of its names; a TLS site with a certificate from a
# throwaway CA made by openssl here and its key from the site's secret
# store (a real gpg, keys in a scratch GNUPGHOME) answers https for each
# name while its http site redirects there; the key is 0600 and never in
# prop's output; a default site takes the place of Debian's; a second
# run changes nothing.  Then tls = "letsencrypt"
# against Debian's pebble in the container (an ACME server that checks
# the challenge on the container's port 80, served by nginx): the https
# site comes up, its http site redirects, and a forced renewal (certbot
# renew --force-renewal) reloads nginx through the deploy hook, so the
# served certificate's serial changes.  prop verify asks each site for
# each of its names, and sees one that nginx does not serve.  Then the
# same kinds of sites with Apache, the server picked from the host's
# list (web.site without server=): modules, the port's Listen and the
# default site made as needed.  Every image and container is named prop-test-* and removed
# on exit.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

command -v gpg >/dev/null || skip_missing gnupg "no gpg"
command -v openssl >/dev/null || skip_missing openssl "no openssl command"
docker_up
rootfs_cache
docker_test "prop-test-web-img-$$" "prop-test-web-$$"

# ---- a CA of the test's own, a certificate for two names, its key a secret -------------
mkdir -p "$TMP/ca"
(
  cd "$TMP/ca"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj "/CN=prop test web CA"
  openssl req -newkey rsa:2048 -nodes -keyout tls.key -out tls.csr -subj /CN=tls.test
  printf 'subjectAltName=DNS:tls.test,DNS:*.tls.test\n' >ext
  openssl x509 -req -in tls.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out tls.pem -days 2 -extfile ext
) >/dev/null 2>&1
gpg_test_key 'Prop Web Test <web@example.invalid>'

ACME="https://127.0.0.1:14000/dir"
# write_site PROPERTIES... : the container's list, the common part and these.
write_site() {
  local extra
  extra="$(printf '  %s,\n' "$@")"
  cat >"$TMP/site.lua" <<EOF
local CERT = [[
$(cat "$TMP/ca/tls.pem")
]]
local base = docker.image("$IMG", os.debian("$SUITE", "$ARCH"), { cache = "$ROOTFS_CACHE" })
local box = docker.container("$CTR", base, {
  apt.installed { "curl", "python3", "openssl", "ca-certificates" },
  file.directory "/srv/a",
  file.directory "/srv/backend",
  file.directory "/srv/fallback",
  file.has_content("/srv/a/index.html", "site a\n"),
  file.has_content("/srv/fallback/index.html", "fallback\n"),
  file.has_content("/srv/backend/index.html", "backend\n"),
  property { desc = "backend on 8080", ports = { 8080 },
             check = function(sys) return (sys:tcp { host = "127.0.0.1", port = 8080, framing = "connect", timeout = 2 }) end,
             apply = function(sys) sys:run { "sh", "-c", "setsid python3 -m http.server 8080 --directory /srv/backend >/dev/null 2>&1 </dev/null &" } end },
$extra
})
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  docker.running(box),
}
EOF
}
# get NAME [URL-PATH] : what curl in the container is served for NAME on port 80.
get() { docker exec "$CTR" curl -sS --max-time 5 -H "Host: $1" "http://127.0.0.1${2:-/}" 2>&1 || true; }
# location NAME PATH : the Location of the answer for NAME, PATH on port 80, with its status.
location() {
  docker exec "$CTR" curl -sS -o /dev/null --max-time 5 -w '%{http_code} %{redirect_url}' -H "Host: $1" "http://127.0.0.1$2" 2>&1 || true
}
# gets NAME [PORT] : what curl is served for https://NAME:PORT/, trusting the test's CA.
gets() {
  docker exec "$CTR" curl -sS --max-time 5 --cacert /tmp/test-ca.pem --resolve "$1:${2:-443}:127.0.0.1" "https://$1:${2:-443}/" 2>&1 || true
}
serial() { # NAME : the serial of the certificate served for NAME on 443
  docker exec "$CTR" sh -c "openssl s_client -connect 127.0.0.1:443 -servername $1 </dev/null 2>/dev/null | openssl x509 -noout -serial" 2>&1 || true
}

NGINX_SITES=(
  'nginx.installed()'
  'web.site({ "a.test", "www.a.test" }, { root = "/srv/a", server = "nginx" })'
  'web.site("api.test", { proxy = "http://127.0.0.1:8080", server = "nginx" })'
  'web.site("old.test", { redirect = "http://a.test/", server = "nginx" })'
  'nginx.site("raw", "server { listen 80; server_name raw.test; return 200 \"raw\\n\"; }\n")'
  'web.site({ "tls.test", "www.tls.test" }, { root = "/srv/a", tls = { cert = CERT, key = secret "tls_key" }, server = "nginx" })'
  'web.site("fallback.test", { root = "/srv/fallback", default = true, server = "nginx" })'
)

# ---- nginx ----------------------------------------------------------------------
docker image rm -f "$IMG" >/dev/null 2>&1 || true
write_site "${NGINX_SITES[@]}"
"$PROP" secret recipients "$TMP/site.lua" add "$FPR" >/dev/null 2>&1
"$PROP" secret set "$TMP/site.lua" tls_key <"$TMP/ca/tls.key" >/dev/null 2>&1
run_prop "$TMP/lint.out" lint "$TMP/site.lua"
same "nginx: the site lints clean" "$rc" 0
PROP_RUN_TIMEOUT=900 prop_run "$TMP/n1.out" "$TMP/site.lua"
same "nginx: first run: exit" "$rc" 0
docker cp "$TMP/ca/ca.pem" "$CTR:/tmp/test-ca.pem" >/dev/null
same "nginx: root, first name" "$(get a.test)" "site a"
same "nginx: root, second name" "$(get www.a.test)" "site a"
same "nginx: proxy" "$(get api.test)" "backend"
same "nginx: redirect keeps the path" "$(location old.test /x/y?z=1)" "301 http://a.test/x/y?z=1"
same "nginx: the raw site beside them" "$(get raw.test)" "raw"
same "nginx: https, first name" "$(gets tls.test)" "site a"
same "nginx: https, second name" "$(gets www.tls.test)" "site a"
same "nginx: the http site redirects to https" "$(location www.tls.test /p?q)" "301 https://www.tls.test/p?q"
same "nginx: the default site answers a name no site has" "$(get nobody.test)" "fallback"
check "nginx: Debian's default site is disabled" bash -c "! docker exec $CTR test -e /etc/nginx/sites-enabled/default"
same "nginx: the key is 0600" "$(inside stat -c %a /etc/ssl/prop/tls.test.key)" "600"
check "nginx: the key is in no output" bash -c "! grep -qF '$(sed -n 2p "$TMP/ca/tls.key")' '$TMP/n1.out'"
same "nginx: the site file is named by the first name" "$(inside readlink /etc/nginx/sites-enabled/a.test)" \
  "/etc/nginx/sites-available/a.test"
prop_run "$TMP/n2.out" "$TMP/site.lua"
same "nginx: second run: nothing changed" "$rc/$(changed_inside "$TMP/n2.out")" "0/0/0"
prop_verify "$TMP/v1.out" "$TMP/site.lua"
same "nginx: prop verify: every site holds" "$rc" 0
# The site not loaded (its link taken away, nginx reloaded, the link put
# back): its names get the default site's answer, and verify says so.
inside sh -c 'mv /etc/nginx/sites-enabled/a.test /tmp/ && nginx -s reload && sleep 1 && mv /tmp/a.test /etc/nginx/sites-enabled/'
for _ in $(seq 50); do [[ "$(get www.a.test)" != "site a" ]] && break; sleep 0.2; done
prop_verify "$TMP/v2.out" "$TMP/site.lua"
same "nginx: not loaded: prop verify fails" "$rc" 2
check "nginx: not loaded: verify names what it asked" grep -q 'GET http://127.0.0.1:80/ with Host a.test: answered 200 with [0-9]* bytes, as a name no site has is answered' "$TMP/v2.out"
prop_run "$TMP/n3.out" "$TMP/site.lua"
same "nginx: not loaded: a run repairs it" "$rc/$(get www.a.test)" "0/site a"

# ---- letsencrypt against pebble ---------------------------------------------------
write_site "${NGINX_SITES[@]}" 'apt.installed { "pebble" }'
prop_run "$TMP/p0.out" "$TMP/site.lua"
same "pebble installed" "$rc" 0
pebble_start 80 le.test www.le.test
up=no
for _ in $(seq 120); do
  if docker exec "$CTR" bash -c '</dev/tcp/127.0.0.1/14000' 2>/dev/null; then up=yes; break; fi
  sleep 0.5
done
same "pebble answers" "$up" yes
write_site "${NGINX_SITES[@]}" 'apt.installed { "pebble" }' \
  "web.site({ \"le.test\", \"www.le.test\" }, { root = \"/srv/a\", tls = \"letsencrypt\", email = \"admin@le.test\", acme_server = \"$ACME\", server = \"nginx\" })"
prop_run "$TMP/l1.out" "$TMP/site.lua"
same "letsencrypt: run: exit" "$rc" 0
same "letsencrypt: https, first name" "$(docker exec "$CTR" curl -sSk --max-time 5 https://le.test/ 2>&1)" "site a"
same "letsencrypt: https, second name" "$(docker exec "$CTR" curl -sSk --max-time 5 https://www.le.test/ 2>&1)" "site a"
same "letsencrypt: the http site redirects" "$(location le.test /x)" "301 https://le.test/x"
check "letsencrypt: the deploy hook is installed" inside test -x /etc/letsencrypt/renewal-hooks/deploy/prop-reload-nginx
S1="$(serial le.test)"
check "letsencrypt: a serial is served" grep -q '^serial=' <<<"$S1"
prop_run "$TMP/l2.out" "$TMP/site.lua"
same "letsencrypt: second run: nothing changed" "$rc/$(changed_inside "$TMP/l2.out")" "0/0/0"
inside certbot renew --force-renewal --no-random-sleep-on-renew --cert-name le.test >"$TMP/renew.out" 2>&1 || true
S2=""
for _ in $(seq 50); do
  S2="$(serial le.test)"
  [[ "$S2" != "$S1" ]] && break
  sleep 0.2
done
check "letsencrypt: the renewal reloaded nginx (a new serial is served)" bash -c "[[ '$S2' == serial=* && '$S2' != '$S1' ]]"

# ---- Apache, picked from the host's list ---------------------------------------------
write_site 'service.stopped "nginx"' 'apache.installed()' \
  'web.site({ "a.test", "www.a.test" }, { root = "/srv/a" })' \
  'web.site("api.test", { proxy = "http://127.0.0.1:8080" })' \
  'web.site("old.test", { redirect = "http://a.test/" })' \
  'web.site({ "tls.test", "www.tls.test" }, { root = "/srv/a", tls = { cert = CERT, key = secret "tls_key" } })' \
  'web.site("other.test", { root = "/srv/backend", port = 8081, default = true })'
run_prop "$TMP/alint.out" lint "$TMP/site.lua"
same "apache: the site lints clean" "$rc" 0
prop_run "$TMP/a1.out" "$TMP/site.lua"
same "apache: run: exit" "$rc" 0
same "apache: root, first name" "$(get a.test)" "site a"
same "apache: root, second name" "$(get www.a.test)" "site a"
same "apache: proxy" "$(get api.test)" "backend"
same "apache: redirect keeps the path" "$(location old.test /x/y?z=1)" "301 http://a.test/x/y?z=1"
same "apache: https, first name" "$(gets tls.test)" "site a"
same "apache: https, second name" "$(gets www.tls.test)" "site a"
same "apache: the http site redirects to https" "$(location www.tls.test /p)" "301 https://www.tls.test/p"
same "apache: the default site of a port of its own answers any name" \
  "$(docker exec "$CTR" curl -sS --max-time 5 -H 'Host: nobody.test' http://127.0.0.1:8081/ 2>&1)" "backend"
check "apache: the modules it needs" inside sh -c 'for m in proxy proxy_http ssl rewrite; do test -L /etc/apache2/mods-enabled/$m.load || exit 1; done'
prop_run "$TMP/a2.out" "$TMP/site.lua"
same "apache: second run: nothing changed" "$rc/$(changed_inside "$TMP/a2.out")" "0/0/0"

finish
