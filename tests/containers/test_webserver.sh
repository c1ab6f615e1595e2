#!/usr/bin/env bash
# examples/webserver.lua for real: its property list (between "web: begin"
# and "web: end", with the test's own key in place of the example's) runs
# in a Docker container made by the test, with NET_ADMIN so that its
# firewall loads in the container's own network namespace (never this
# machine's).  Then, from this machine: nginx serves the deploy account's
# file on the container's address; the deploy account logs in with its
# key, and a password login is refused; port 22 and 80 answer while a
# port nothing declared is dropped; the cron job's command makes its
# archive; unattended upgrades are on.  A second run changes nothing.
# docker.cap_add's arguments are checked before anything runs.  The image
# and container are named prop-test-* and removed on exit.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

EXAMPLE="$(dirname "${BASH_SOURCE[0]}")/../../examples/webserver.lua"

# ---- the example itself, and docker.cap_add's arguments ---------------------------
run_prop "$TMP/lint.out" lint "$EXAMPLE"
same "the example lints clean: exit" "$rc" 0
run_prop "$TMP/show.out" show "$EXAMPLE"
check "the example's host declares ports 22, 80 and 443" grep -q 'props : DebianLike, ports 22 80 443' "$TMP/show.out"

cat >"$TMP/bad.lua" <<'EOF'
local c = docker.container("prop-test-bad", "debian:bookworm", {
  docker.cap_add "ALL",
  docker.cap_add "CAP_NET_ADMIN",
  docker.cap_add(7),
  docker.cap_add "NET_ADMIN",
})
host "localhost" { os.debian("bookworm", "amd64"), docker.running(c) }
EOF
run_prop "$TMP/bad.out" lint "$TMP/bad.lua"
same "bad capabilities: exit" "$rc" 2
check "ALL is refused at its line" grep -q 'bad.lua:2: error\[P012\]: docker.cap_add: capability "ALL" gives the container every capability' "$TMP/bad.out"
check "CAP_ is refused at its line" grep -q 'bad.lua:3: error\[P012\]: docker.cap_add: capability "CAP_NET_ADMIN" is not a capability name' "$TMP/bad.out"
check "a number is refused at its line" grep -q 'bad.lua:4: error\[P012\]: docker.cap_add: capability must be a string' "$TMP/bad.out"
check "a good one is fine" bash -c "! grep -q 'bad.lua:5:' '$TMP/bad.out'"

# ---- Docker -------------------------------------------------------------------------
docker_up
rootfs_cache
docker_test "prop-test-web-img-$$" "prop-test-web-$$"

ssh-keygen -q -t ed25519 -N '' -C deploy@test -f "$TMP/key"
KEY="$(cat "$TMP/key.pub")"
web="$(sed -n '/^-- web: begin$/,/^-- web: end$/p' "$EXAMPLE")"
check "the example has its property list between the markers" grep -q 'firewall.open_declared' <<<"$web"
cat >"$TMP/site.lua" <<EOF
local deploy_key = "$KEY"
$web
local base = docker.image("$IMG", os.debian("$SUITE", "$ARCH"), { cache = "$ROOTFS_CACHE" })
local box = docker.container("$CTR", base, { web, docker.cap_add "NET_ADMIN" })
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  docker.running(box),
}
EOF

PROP_RUN_TIMEOUT=900 prop_run "$TMP/r1.out" "$TMP/site.lua"
same "first run: exit" "$rc" 0
same "first run: nothing failed in the container" "$(host_count "$TMP/r1.out" "localhost/$CTR" failed)" 0
check "first run: something changed in the container" \
  bash -c "[[ \$(grep '\"event\":\"host\"' '$TMP/r1.out' | grep -F 'localhost/$CTR' | sed -n 's/.*\"changed\":\([0-9]*\).*/\1/p') -gt 5 ]]"

prop_run "$TMP/r2.out" "$TMP/site.lua"
same "second run: exit" "$rc" 0
same "second run: nothing changed, nothing failed" "$(changed_inside "$TMP/r2.out")" "0/0"

addr="$(docker inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "$CTR")"
check "the container has an address" test -n "$addr"

# The deploy account puts the site's file in place, as a deploy would.
docker cp "$TMP/key" "$CTR:/root/deploy-key" >/dev/null
inside chmod 600 /root/deploy-key
same "the deploy account logs in with its key" \
  "$(inside ssh -i /root/deploy-key -o BatchMode=yes -o StrictHostKeyChecking=no deploy@127.0.0.1 \
       'echo hello from the site >/srv/www/index.html && id -un' 2>/dev/null)" deploy
check "sshd refuses passwords" bash -c "docker exec $CTR sshd -T | grep -qx 'passwordauthentication no'"
check "a password login is not offered" bash -c "! docker exec $CTR ssh -o BatchMode=yes -o StrictHostKeyChecking=no \
  -o PreferredAuthentications=password -o PubkeyAuthentication=no deploy@127.0.0.1 true 2>/dev/null"
# http_get ADDR : the body of GET / on port 80 (bash's /dev/tcp: no client needed).
http_get() {
  timeout 20 bash -c 'exec 3<>"/dev/tcp/$1/80" && printf "GET / HTTP/1.0\r\nHost: web\r\n\r\n" >&3 && cat <&3' _ "$1" |
    tr -d '\r' | sed '1,/^$/d'
}
same "nginx serves the deploy account's file on the container's address" \
  "$(http_get "$addr" 2>&1)" "hello from the site"
check "the default site is gone" bash -c "! docker exec $CTR test -e /etc/nginx/sites-enabled/default"

# The firewall: loaded in the container's namespace, 22 and 80 answer from
# outside, an undeclared port is dropped.
check "the ruleset is loaded in the container" bash -c "docker exec $CTR nft list ruleset | grep -q 'policy drop'"
for p in 22 80 443; do
  check "port $p is accepted" bash -c "docker exec $CTR nft list ruleset | grep -Eq 'dport ($p|\\{[^}]*\\b$p\\b)'"
done
check "port 22 answers from outside" timeout 20 bash -c "exec 3<>/dev/tcp/$addr/22"
inside sh -c '/usr/sbin/sshd -p 2222 -o PidFile=/run/sshd-2222.pid'
check "an undeclared port answers inside" timeout 20 bash -c "docker exec $CTR bash -c 'exec 3<>/dev/tcp/127.0.0.1/2222'"
check "an undeclared port is dropped from outside" bash -c "! timeout 5 bash -c 'exec 3<>/dev/tcp/$addr/2222'"
check "this machine's ruleset has no prop table" bash -c "! nft list tables 2>/dev/null | grep -q prop"

# The cron job: its command as cron would run it.
line="$(inside grep -v '^#' /etc/cron.d/www-backup | grep 'tar')"
check "the cron job runs at 03:30 as root" grep -q '^30 3 \* \* \* root ' <<<"$line"
inside sh -c "$(sed -E 's/^([^ ]+ ){5}root //' <<<"$line")"
check "its archive holds the site" bash -c "docker exec $CTR tar -tzf /var/backups/www.tar.gz | grep -qx 'www/index.html'"

same "unattended upgrades are on" \
  "$(inside apt-config dump APT::Periodic::Unattended-Upgrade)" 'APT::Periodic::Unattended-Upgrade "1";'
check "unattended-upgrades is installed" inside dpkg-query -W unattended-upgrades

finish
