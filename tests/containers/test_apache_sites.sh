#!/usr/bin/env bash
# Apache sites, modules and ports for real, inside a Docker container made
# by the test (from the cached bookworm tree, with this machine's
# dockerd; nothing listens on this machine): apache.listen_ports makes it
# listen on a new port, apache.module enables headers, apache.site adds a
# virtual host that curl inside the container is served by (with the
# module's header); a second run changes nothing; the sites' probes (an
# HTTP request from prop) find Apache stopped, or a site on disk that it
# has not loaded, say so in a dry run and have it repaired by a run; a
# broken site is
# refused by apachectl configtest, put back, the old one still served;
# disabling a module the site needs is refused and the module put back;
# revert(apache.site) and apache.site_disabled take sites out and
# revert(apache.module) disables it; bad arguments are P012 at their
# line.  Every image and container is named prop-test-* and removed on
# exit.  A dry run first makes nothing: no image, no container.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# ---- arguments, checked before anything runs ---------------------------------
cat >"$TMP/bad.lua" <<'EOF'
host "web" {
  os.debian("bookworm", "amd64"),
  apache.installed(),
  apache.site("a.conf", "x"),
  apache.module "../x",
  apache.listen_ports(8080),
  apache.listen_ports { 80, 70000 },
  apache.site_disabled "",
}
EOF
run_prop "$TMP/bad.out" lint "$TMP/bad.lua"
same "bad arguments: exit" "$rc" 2
check "a site name with .conf is P012" grep -q 'bad.lua:4: error\[P012\]: apache.site: name "a.conf" must be given without ".conf"' "$TMP/bad.out"
check "a module name with a slash" grep -q 'bad.lua:5: error\[P012\]: apache.module: name "../x" is not valid' "$TMP/bad.out"
check "ports must be a list" grep -q 'bad.lua:6: error\[P012\]: apache.listen_ports: ports must be a list of port numbers' "$TMP/bad.out"
check "a port out of range" grep -q 'bad.lua:7: error\[P012\]: apache.listen_ports: ports\[2\] 70000 is outside 1..65535' "$TMP/bad.out"
check "an empty site name" grep -q 'bad.lua:8: error\[P012\]: apache.site_disabled: name must not be empty' "$TMP/bad.out"

cat >"$TMP/ports.lua" <<'EOF'
host "web" {
  os.debian("bookworm", "amd64"),
  apache.installed(),
  apache.listen_ports { 80, 443, 8080 },
  property { desc = "metrics", ports = { 8080 }, apply = function() end },
}
EOF
run_prop "$TMP/ports.out" lint "$TMP/ports.lua"
same "ports: exit" "$rc" 2
check "listen_ports beside apache.installed: 80 is no clash" bash -c "! grep -q 'port 80 ' '$TMP/ports.out'"
check "another service on a listened port is P006" grep -q 'error\[P006\]: port 8080 is used by both' "$TMP/ports.out"
run_prop "$TMP/claims.out" claims "$TMP/ports.lua" port:8080
check "prop claims port:8080 names listen_ports" grep -q 'apache listens on 80 443 8080' "$TMP/claims.out"

# ---- Docker -------------------------------------------------------------------
docker_up

rootfs_cache
docker_test "prop-test-apache-img-$$" "prop-test-apache-$$"

VHOST_A='<VirtualHost *:8081>\n  DocumentRoot /var/www/prop-a\n  Header set X-Prop-Test yes\n</VirtualHost>\n'
VHOST_B='<VirtualHost *:8081>\n  DocumentRoot /var/www/prop-b\n  Header set X-Prop-Test yes\n</VirtualHost>\n'
BROKEN='<VirtualHost *:8081>\n  DocumentRoot /var/www/prop-b\n  NoSuchDirective on\n</VirtualHost>\n'

write_site() { # PROPERTIES...
  local extra
  extra="$(printf '  %s,\n' "$@")"
  cat >"$TMP/site.lua" <<EOF
local base = docker.image("$IMG", os.debian("$SUITE", "$ARCH"), { cache = "$ROOTFS_CACHE" })
local web = docker.container("$CTR", base, {
  apache.installed(),
  apt.installed { "curl" },
  file.directory "/var/www/prop-a",
  file.directory "/var/www/prop-b",
  file.has_content("/var/www/prop-a/index.html", "site a\n"),
  file.has_content("/var/www/prop-b/index.html", "site b\n"),
  apache.listen_ports { 80, 8081 },
$extra
})
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  docker.running(web),
}
EOF
}

# ---- installed, a port, a module, a site ---------------------------------------
docker image rm -f "$IMG" >/dev/null 2>&1 || true
write_site 'apache.module "headers"' "apache.site(\"prop-a\", \"$VHOST_A\")"
prop_run "$TMP/d1.out" "$TMP/site.lua" --dry-run
same "dry run: exit" "$rc" 0
check "dry run: no container made" bash -c "! docker container inspect $CTR >/dev/null 2>&1"
check "dry run: no image made" bash -c "! docker image inspect $IMG >/dev/null 2>&1"
PROP_RUN_TIMEOUT=900 prop_run "$TMP/r1.out" "$TMP/site.lua"
same "first run: exit" "$rc" 0
same "first run: the container's changes" "$(changed_inside "$TMP/r1.out")" "9/0"
check "apache2 runs" inside service apache2 status
same "ports.conf" "$(inside cat /etc/apache2/ports.conf)" \
  "# Written by prop (apache.listen_ports): the ports Apache listens on.
Listen 80
Listen 8081"
same "the module is enabled" "$(inside readlink /etc/apache2/mods-enabled/headers.load)" \
  "../mods-available/headers.load"
same "the site is linked as a2ensite does" "$(inside readlink /etc/apache2/sites-enabled/prop-a.conf)" \
  "../sites-available/prop-a.conf"
same "the site is served on the new port" "$(fetch 8081)" "site a"
check "with the module's header" bash -c "docker exec $CTR curl -sI --max-time 5 http://127.0.0.1:8081/ | grep -qi '^X-Prop-Test: yes'"

prop_run "$TMP/r2.out" "$TMP/site.lua"
same "second run: nothing changed" "$rc/$(changed_inside "$TMP/r2.out")" "0/0/0"

# ---- the probes: a site is served, by Apache, from the site itself ------------------
ctr_result() {
  grep '"event":"property"' "$1" | grep -F "\"host\":\"localhost/$CTR\"" |
    grep -F "\"desc\":\"$2\"" | head -1 | sed -n 's/.*"result":"\([a-z]*\)".*/\1/p'
}
named() { docker exec "$CTR" curl -sS --max-time 5 -H 'Host: named.example' http://127.0.0.1/ 2>&1 || true; }
NAMED='<VirtualHost *:80>\n  ServerName named.example\n  DocumentRoot /var/www/prop-b\n</VirtualHost>\n'
write_site 'apache.module "headers"' "apache.site(\"prop-a\", \"$VHOST_A\")" "apache.site(\"prop-n\", \"$NAMED\")"
prop_run "$TMP/p1.out" "$TMP/site.lua"
same "probes: the named site added, its probe holds" "$rc/$(changed_inside "$TMP/p1.out")" "0/1/0"
same "probes: it is served for its name" "$(named)" "site b"
# Apache stopped behind prop's back: a dry run says what would fail, a run
# starts it.
inside service apache2 stop >/dev/null
prop_run "$TMP/p2.out" "$TMP/site.lua" --dry-run
same "stopped, dry run: exit" "$rc" 1
same "stopped, dry run: apache installed would start it" "$(ctr_result "$TMP/p2.out" "apache installed")" changed
check "stopped, dry run: site prop-a would fail, saying what it saw" grep -q 'would fail: verify: GET http://127.0.0.1:8081/ with Host localhost: connect to 127.0.0.1:8081: Connection refused' "$TMP/p2.out"
prop_verify "$TMP/pv2.out" "$TMP/site.lua"
same "stopped, prop verify: exit" "$rc" 2
same "stopped, prop verify: site prop-a failed" "$(ctr_result "$TMP/pv2.out" "apache site prop-a")" failed
check "stopped, prop verify: apache still stopped" bash -c "! docker exec $CTR service apache2 status"
prop_run "$TMP/p3.out" "$TMP/site.lua"
same "stopped: exit" "$rc" 0
same "stopped: apache installed started it" "$(ctr_result "$TMP/p3.out" "apache installed")" changed
same "stopped: the sites are served again" "$(fetch 8081)/$(named)" "site a/site b"
# The named site not loaded, its files all right (the link taken away,
# Apache reloaded, the link put back): its name gets the default site's
# answer.  A run reloads Apache.
inside sh -c 'mv /etc/apache2/sites-enabled/prop-n.conf /tmp/ && apache2ctl graceful && sleep 1 && mv /tmp/prop-n.conf /etc/apache2/sites-enabled/'
for _ in $(seq 50); do [[ "$(named)" != "site b" ]] && break; sleep 0.2; done
check "not loaded: its name gets the default site" bash -c "[[ \"\$(docker exec $CTR curl -sS -H 'Host: named.example' http://127.0.0.1/)\" != 'site b' ]]"
prop_run "$TMP/p4.out" "$TMP/site.lua" --dry-run
same "not loaded, dry run: exit" "$rc" 1
check "not loaded, dry run: the probe's words" grep -q 'would fail: verify: GET http://127.0.0.1:80/ with Host named.example: answered 200 with [0-9]* bytes, as a name no site has is answered' "$TMP/p4.out"
prop_verify "$TMP/pv4.out" "$TMP/site.lua"
same "not loaded, prop verify: exit" "$rc" 2
same "not loaded, prop verify: site prop-n failed" "$(ctr_result "$TMP/pv4.out" "apache site prop-n")" failed
prop_run "$TMP/p5.out" "$TMP/site.lua"
same "not loaded: exit" "$rc" 0
same "not loaded: site prop-n repaired" "$(ctr_result "$TMP/p5.out" "apache site prop-n")" changed
same "not loaded: served for its name again" "$(named)" "site b"
prop_verify "$TMP/pv5.out" "$TMP/site.lua"
same "after the repair, prop verify: all hold" "$rc" 0
write_site 'apache.module "headers"' "apache.site(\"prop-a\", \"$VHOST_A\")" "revert(apache.site(\"prop-n\", \"$NAMED\"))"
prop_run "$TMP/p6.out" "$TMP/site.lua"
same "the named site taken out" "$rc/$(changed_inside "$TMP/p6.out")" "0/1/0"

# ---- new content, then a broken one -------------------------------------------------
write_site 'apache.module "headers"' "apache.site(\"prop-a\", \"$VHOST_B\")"
prop_run "$TMP/r3.out" "$TMP/site.lua"
same "new content: changed" "$rc/$(changed_inside "$TMP/r3.out")" "0/1/0"
check "new content: apache2 reloaded" grep -q 'apache2 reloaded' "$TMP/r3.out"
same "new content: served" "$(fetch 8081)" "site b"

write_site 'apache.module "headers"' "apache.site(\"prop-a\", \"$BROKEN\")"
prop_run "$TMP/r4.out" "$TMP/site.lua"
same "broken: refused" "$rc/$(changed_inside "$TMP/r4.out")" "1/0/1"
check "broken: Apache's message is shown" grep -q 'NoSuchDirective' "$TMP/r4.out"
check "broken: says it was put back" grep -q 'apache2ctl configtest refused the configuration with the new content, so it was put back' "$TMP/r4.out"
check "broken: the previous file is back" inside grep -q 'DocumentRoot /var/www/prop-b' /etc/apache2/sites-available/prop-a.conf
check "broken: configtest passes" inside apache2ctl configtest
same "broken: the previous site is still served" "$(fetch 8081)" "site b"

# ---- a module the site needs cannot go ---------------------------------------------
write_site 'revert(apache.module "headers")' "apache.site(\"prop-a\", \"$VHOST_B\")"
prop_run "$TMP/r5.out" "$TMP/site.lua"
same "module needed: refused" "$rc/$(changed_inside "$TMP/r5.out")" "1/0/1"
check "module needed: the module is back" inside test -L /etc/apache2/mods-enabled/headers.load
same "module needed: still served" "$(fetch 8081)" "site b"

# ---- sites out, then the module ---------------------------------------------------
write_site 'apache.module "headers"' "revert(apache.site(\"prop-a\", \"$VHOST_B\"))" 'apache.site_disabled "000-default"'
prop_run "$TMP/r6.out" "$TMP/site.lua"
same "disabled: both changed" "$rc/$(changed_inside "$TMP/r6.out")" "0/2/0"
check "disabled: the link is gone" bash -c "! docker exec $CTR test -e /etc/apache2/sites-enabled/prop-a.conf"
check "disabled: the file is kept" inside test -f /etc/apache2/sites-available/prop-a.conf
check "disabled: the default site is gone" bash -c "! docker exec $CTR test -e /etc/apache2/sites-enabled/000-default.conf"
write_site 'revert(apache.module "headers")' "revert(apache.site(\"prop-a\", \"$VHOST_B\"))" 'apache.site_disabled "000-default"'
prop_run "$TMP/r7.out" "$TMP/site.lua"
same "module reverted: changed" "$rc/$(changed_inside "$TMP/r7.out")" "0/1/0"
check "module reverted: disabled" bash -c "! docker exec $CTR test -e /etc/apache2/mods-enabled/headers.load"
check "module reverted: apache2 still runs" inside service apache2 status
prop_run "$TMP/r8.out" "$TMP/site.lua"
same "again: nothing changed" "$rc/$(changed_inside "$TMP/r8.out")" "0/0/0"

finish
