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
# Beside the example's list, two profiles each add a firewall port, a
# sudoers rule and a vhost (file.fragment, firewall.allow) and purge
# sudoers.d and cron.d: the rules are assembled and accepted by visudo,
# the status vhost answers on the port its profile allowed, and stale
# files nobody declares are removed by the next run.
# docker.cap_add's arguments are checked before anything runs.  The image
# and container are named prop-test-* and removed on exit.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

EXAMPLE="$(dirname "${BASH_SOURCE[0]}")/../../examples/webserver.lua"

# ---- the example itself, and docker.cap_add's arguments ---------------------------
run_prop "$TMP/lint.out" lint "$EXAMPLE"
same "the example lints clean: exit" "$rc" 0
run_prop "$TMP/show.out" show "$EXAMPLE"
check "the example's host declares ports 22 and 80 (no TLS site: no 443)" grep -q 'props : DebianLike, ports 22 80  (' "$TMP/show.out"

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
# Two more profiles beside the example's list, as a roles-and-profiles
# site composes them: each adds its own firewall port, sudoers rule and
# vhost to what one property owns (the firewall, file.fragments), and
# sudoers.d and cron.d hold exactly what the site declares.
cat >"$TMP/site.lua" <<EOF
local deploy_key = "$KEY"
$web
local function profile_admin(h)
  return {
    apt.installed { "sudo", "cron" },
    file.fragments("/etc/sudoers.d/site", { header = "# the site's sudoers rules", mode = "0440",
                                            validate = { "visudo", "-c", "-f", "%s" } }),
    file.fragment("/etc/sudoers.d/site", "deploy", "deploy ALL=(root) NOPASSWD: /usr/sbin/service nginx reload",
                  { order = 10 }),
    sudo.rules_purged(),
    cron.purged(),
  }
end
local function profile_status(h)
  return {
    file.directory "/srv/status",
    file.has_content("/srv/status/index.html", "status ok\n"),
    nginx.site("status", "server {\n\tlisten 8090;\n\troot /srv/status;\n}\n"),
    firewall.allow { port = 8090 },
    file.fragment("/etc/sudoers.d/site", "status", "deploy ALL=(root) NOPASSWD: /usr/sbin/nginx -t"),
  }
end
local base = docker.image("$IMG", os.debian("$SUITE", "$ARCH"), { cache = "$ROOTFS_CACHE" })
local box = docker.container("$CTR", base, { web, profile_admin, profile_status, docker.cap_add "NET_ADMIN" })
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

run_prop "$TMP/lint.out" lint "$TMP/site.lua"
same "the profiles lint clean (no W101 for what two lists both say)" "$rc/$(grep -c 'warning\|error' "$TMP/lint.out")" "0/0"

prop_run "$TMP/r2.out" "$TMP/site.lua"
same "second run: exit" "$rc" 0
same "second run: nothing changed, nothing failed" "$(changed_inside "$TMP/r2.out")" "0/0"

# The profiles' parts, assembled: one sudoers file visudo accepts, with
# both profiles' rules in order after the header; port 8090 of the
# status profile's vhost accepted by the firewall the example owns.
same "sudoers: both profiles' rules, in order" "$(inside cat /etc/sudoers.d/site)" \
  "# the site's sudoers rules
deploy ALL=(root) NOPASSWD: /usr/sbin/service nginx reload
deploy ALL=(root) NOPASSWD: /usr/sbin/nginx -t"
check "sudoers: visudo accepts the whole configuration" inside visudo -c
same "sudoers: what it lets deploy do" "$(inside sudo -l -U deploy | grep -c NOPASSWD)" 2
check "the firewall accepts the status profile's port" \
  bash -c "docker exec $CTR nft list ruleset | grep -Eq 'dport (8090|\\{[^}]*\\b8090\\b)'"
# A stale sudoers rule and cron file nobody declares: the next run removes
# exactly those, and names them; the cron package's own file stays.
inside sh -c 'echo "deploy ALL=(ALL) NOPASSWD: ALL" >/etc/sudoers.d/stale && chmod 0440 /etc/sudoers.d/stale'
inside sh -c 'echo "* * * * * root true" >/etc/cron.d/stale'
cron_own="$(inside sh -c 'ls /etc/cron.d | grep -vx stale | grep -vx www-backup | tr "\n" " "')"
prop_run "$TMP/r3.out" "$TMP/site.lua"
same "purge: exit, two changed" "$rc/$(changed_inside "$TMP/r3.out")" "0/2/0"
check "purge: the stale sudoers rule is gone" bash -c "! docker exec $CTR test -e /etc/sudoers.d/stale"
check "purge: the stale cron file is gone" bash -c "! docker exec $CTR test -e /etc/cron.d/stale"
check "purge: named in the output" grep -q 'removed /etc/sudoers.d/stale' "$TMP/r3.out"
same "purge: the packages' cron files and the site's job stay" \
  "$(inside sh -c 'ls /etc/cron.d | grep -vx www-backup | tr "\n" " "')" "$cron_own"
same "purge: deploy may no longer do everything" "$(inside sudo -l -U deploy | grep -c '(ALL) NOPASSWD: ALL')" 0

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
same "the status profile's vhost answers from outside on the port it allowed" \
  "$(timeout 20 bash -c 'exec 3<>"/dev/tcp/$1/8090" && printf "GET / HTTP/1.0\r\n\r\n" >&3 && cat <&3' _ "$addr" |
     tr -d '\r' | sed '1,/^$/d')" "status ok"
check "the default site is gone" bash -c "! docker exec $CTR test -e /etc/nginx/sites-enabled/default"

# The firewall: loaded in the container's namespace, 22 and 80 answer from
# outside, an undeclared port is dropped.
check "the ruleset is loaded in the container" bash -c "docker exec $CTR nft list ruleset | grep -q 'policy drop'"
for p in 22 80; do
  check "port $p is accepted" bash -c "docker exec $CTR nft list ruleset | grep -Eq 'dport ($p|\\{[^}]*\\b$p\\b)'"
done
# No site of the example listens on 443, so nothing declares it.
check "port 443 is not" bash -c "! docker exec $CTR nft list ruleset | grep -Eq 'dport (443|\\{[^}]*\\b443\\b)'"
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
