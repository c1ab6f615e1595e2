#!/usr/bin/env bash
# nginx for real, inside a Docker container made by the test (from the
# cached bookworm tree, with this machine's dockerd; nothing listens on
# this machine): nginx.installed installs and starts it; nginx.site adds a
# site that curl inside the container is served by; a second run changes
# nothing; a dry run with --diff shows the new content and changes
# nothing; new content is served once prop run returns, though nginx
# acts on the reload late; without nginx, a dry
# run says the site would be written once it is installed and a run says
# what is missing; a broken site is
# refused by nginx -t, put back, and the old one is still served; a
# broken new site leaves no file behind; revert(nginx.site) and
# nginx.site_disabled take sites out; purge_sites = true removes a stale
# vhost nobody declares (a dry run lists it and removes nothing; nginx is
# reloaded and no longer serves it; a second run neither removes nor
# reloads); bad arguments are P012 at their line.  Every image and container is named prop-test-* and removed on
# exit.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# ---- arguments, checked before anything runs ---------------------------------
cat >"$TMP/bad.lua" <<'EOF'
host "web" {
  os.debian("bookworm", "amd64"),
  nginx.installed(),
  nginx.site("../etc", "server {}\n"),
  nginx.site("ok", 42),
  nginx.site_disabled(""),
  nginx.installed { port = 80 },
  nginx.installed { purge_sites = "yes" },
}
EOF
run_prop "$TMP/bad.out" lint "$TMP/bad.lua"
same "bad arguments: exit" "$rc" 2
check "a name with a slash is P012 at its line" grep -q 'bad.lua:4: error\[P012\]: nginx.site: name "../etc" is not valid' "$TMP/bad.out"
check "content must be a string" grep -q 'bad.lua:5: error\[P012\]: nginx.site: content must be a string, got number' "$TMP/bad.out"
check "an empty name" grep -q 'bad.lua:6: error\[P012\]: nginx.site_disabled: name must not be empty' "$TMP/bad.out"
check "nginx.installed takes no port" grep -q 'bad.lua:7: error\[P012\]: unknown key "port" for nginx.installed' "$TMP/bad.out"
check "purge_sites is true or false" grep -q 'bad.lua:8: error\[P012\]: nginx.installed: purge_sites must be' "$TMP/bad.out"

cat >"$TMP/types.lua" <<'EOF'
host "web" {
  os.debian("bookworm", "amd64"),
  nginx.installed(),
  nginx.site("a", "server { listen 8081; }\n"),
  revert(nginx.site("b", "server { listen 8082; }\n")),
}
host "two" {
  os.debian("bookworm", "amd64"),
  nginx.installed(),
  nginx.site("a", "one\n"),
  nginx.site("a", "two\n"),
  revert(nginx.site_disabled "default"),
}
host "bsd" { os.freebsd("14.1", "amd64"), nginx.installed() }
EOF
run_prop "$TMP/types.out" lint "$TMP/types.lua"
same "types: exit" "$rc" 2
check "one site given two contents is P007" grep -q 'types.lua:1[01]: error\[P007\]: "/etc/nginx/sites-available/a"' "$TMP/types.out"
check "nginx.site_disabled cannot be reverted (P001)" grep -q 'types.lua:12: error\[P001\]' "$TMP/types.out"
check "nginx on FreeBSD is a type error" grep -q 'types.lua:14: error\[P00[0-9]\].*DebianLike' "$TMP/types.out"
check "the first host is clean" bash -c "! grep -q 'types.lua:[345]:' '$TMP/types.out'"
sed -n '1,6p' "$TMP/types.lua" >"$TMP/web.lua"
run_prop "$TMP/show.out" show "$TMP/web.lua" web
check "show: nginx installed declares 80 (Debian's default site)" grep -q 'nginx installed : DebianLike, ports 80  (' "$TMP/show.out"
check "show: a site declares the port of its listen line" grep -q 'nginx site a : DebianLike, revertable, ports 8081  (' "$TMP/show.out"
check "show: the site claims its file" grep -q 'claims file.content /etc/nginx/sites-available/a' "$TMP/show.out"
check "show: and its link" grep -q 'claims file.symlink /etc/nginx/sites-enabled/a "/etc/nginx/sites-available/a"' "$TMP/show.out"
check "show: the revert takes the link away" grep -q 'claims file.absent /etc/nginx/sites-enabled/b' "$TMP/show.out"

# ---- without nginx: a dry run says what it would do, a run says what is missing -----
mkdir -p "$TMP/bare/etc"
cat >"$TMP/bare.lua" <<EOF
host "bare" {
  connect.dir "$TMP/bare",
  os.debian("bookworm", "amd64"),
  nginx.site("prop-a", "server { listen 8081; }\n"),
  nginx.site_disabled "default",
}
EOF
prop_run "$TMP/bare-dry.out" "$TMP/bare.lua" --dry-run
same "no nginx, dry run: exit" "$rc" 0
check "no nginx, dry run: the site would be written once nginx is there" grep -q 'would be written once nginx is installed' "$TMP/bare-dry.out"
same "no nginx, dry run: nothing to disable" "$(result_of "$TMP/bare-dry.out" "nginx site default disabled")" ok
prop_run "$TMP/bare.out" "$TMP/bare.lua"
same "no nginx: exit" "$rc" 1
check "no nginx: says what is missing" grep -q 'nginx.site: /etc/nginx/sites-available is missing: is nginx installed? (nginx.installed())' "$TMP/bare.out"
check "no nginx: nothing written" bash -c "! test -e '$TMP/bare/etc/nginx'"

# ---- Docker -------------------------------------------------------------------
docker_up

rootfs_cache
docker_test "prop-test-nginx-img-$$" "prop-test-nginx-$$"

SITE_A='server { listen 8081; root /var/www/prop-a; }\n'
SITE_B='server { listen 8081; root /var/www/prop-b; }\n'
BROKEN='server { listen 8081; root /var/www/prop-b; no_such_directive on; }\n'

write_site() { # PROPERTIES...
  local extra
  extra="$(printf '  %s,\n' "$@")"
  cat >"$TMP/site.lua" <<EOF
local base = docker.image("$IMG", os.debian("$SUITE", "$ARCH"), { cache = "$ROOTFS_CACHE" })
local web = docker.container("$CTR", base, {
  ${INSTALLED:-nginx.installed()},
  apt.installed { "curl" },
  file.directory "/var/www/prop-a",
  file.directory "/var/www/prop-b",
  file.has_content("/var/www/prop-a/index.html", "site a\n"),
  file.has_content("/var/www/prop-b/index.html", "site b\n"),
$extra
})
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  docker.running(web),
}
EOF
}

# ---- installed, a site added ---------------------------------------------------
docker image rm -f "$IMG" >/dev/null 2>&1 || true
write_site "nginx.site(\"prop-a\", \"$SITE_A\")"
PROP_RUN_TIMEOUT=900 prop_run "$TMP/r1.out" "$TMP/site.lua"
same "first run: exit" "$rc" 0
same "first run: the container's changes" "$(changed_inside "$TMP/r1.out")" "7/0"
check "nginx is installed" inside dpkg-query -W nginx
check "nginx runs" inside service nginx status
same "the site is served" "$(fetch 8081)" "site a"
same "the site is in sites-available" "$(inside cat /etc/nginx/sites-available/prop-a)" \
  "server { listen 8081; root /var/www/prop-a; }"
same "it is enabled by a symlink" "$(inside readlink /etc/nginx/sites-enabled/prop-a)" \
  "/etc/nginx/sites-available/prop-a"
check "Debian's default site still answers on port 80" bash -c "docker exec $CTR curl -sf -o /dev/null http://127.0.0.1/"
check "nothing listens on this machine's port 8081" bash -c "! ss -H -ltn 'sport = :8081' | grep -q ."

# ---- a second run changes nothing --------------------------------------------------
prop_run "$TMP/r2.out" "$TMP/site.lua"
same "second run: exit" "$rc" 0
same "second run: nothing changed" "$(changed_inside "$TMP/r2.out")/$(host_count "$TMP/r2.out" localhost changed)" "0/0/0"

# ---- the probes: a site is served, by nginx, from the site itself --------------------
# ctr_result OUT DESC : the result of the container's property DESC.
ctr_result() {
  grep '"event":"property"' "$1" | grep -F "\"host\":\"localhost/$CTR\"" |
    grep -F "\"desc\":\"$2\"" | head -1 | sed -n 's/.*"result":"\([a-z]*\)".*/\1/p'
}
named() { docker exec "$CTR" curl -sS --max-time 5 -H 'Host: named.example' http://127.0.0.1/ 2>&1 || true; }
NAMED='server { listen 80; server_name named.example; root /var/www/prop-b; }\n'
write_site "nginx.site(\"prop-a\", \"$SITE_A\")" "nginx.site(\"prop-n\", \"$NAMED\")"
prop_run "$TMP/p1.out" "$TMP/site.lua"
same "probes: exit" "$rc" 0
same "probes: the named site added, its probe holds" "$(changed_inside "$TMP/p1.out")" "1/0"
same "probes: it is served for its name" "$(named)" "site b"

# nginx stopped behind prop's back: a dry run says what would fail; a run
# starts it again.
inside service nginx stop >/dev/null
prop_run "$TMP/p2.out" "$TMP/site.lua" --dry-run
same "stopped, dry run: exit" "$rc" 1
same "stopped, dry run: nginx installed would start it" "$(ctr_result "$TMP/p2.out" "nginx installed")" changed
same "stopped, dry run: site prop-a would fail" "$(ctr_result "$TMP/p2.out" "nginx site prop-a")" failed
check "stopped, dry run: with what its probe saw" grep -q 'would fail: verify: GET http://127.0.0.1:8081/ with Host localhost: connect to 127.0.0.1:8081: Connection refused' "$TMP/p2.out"
check "stopped, dry run: nginx still stopped" bash -c "! docker exec $CTR service nginx status"
prop_verify "$TMP/pv2.out" "$TMP/site.lua"
same "stopped, prop verify: exit" "$rc" 2
same "stopped, prop verify: site prop-a failed" "$(ctr_result "$TMP/pv2.out" "nginx site prop-a")" failed
check "stopped, prop verify: nginx still stopped" bash -c "! docker exec $CTR service nginx status"
prop_run "$TMP/p3.out" "$TMP/site.lua"
same "stopped: exit" "$rc" 0
same "stopped: nginx installed started it" "$(ctr_result "$TMP/p3.out" "nginx installed")" changed
same "stopped: the sites are served again" "$(fetch 8081)/$(named)" "site a/site b"

# nginx running another configuration, the files all right: the named
# site's answer is the default server's.  A dry run says so; a run
# reloads (which keeps the other file), probes again and restarts.
inside sh -c 'printf "events {}\nhttp { server { listen 80 default_server; listen 8081; return 200 \"other\\n\"; } }\n" >/tmp/other.conf'
inside sh -c 'nginx -s stop; for i in $(seq 50); do [ -e /run/nginx.pid ] || break; sleep 0.1; done; nginx -c /tmp/other.conf'
same "other configuration: it answers for the site's name" "$(named)" "other"
prop_run "$TMP/p4.out" "$TMP/site.lua" --dry-run
same "other configuration, dry run: exit" "$rc" 1
same "other configuration, dry run: the file is right" "$(changed_inside "$TMP/p4.out")" "0/1"
same "other configuration, dry run: site prop-n would fail" "$(ctr_result "$TMP/p4.out" "nginx site prop-n")" failed
check "other configuration, dry run: with what its probe saw" grep -q 'would fail: verify: GET http://127.0.0.1:80/ with Host named.example: answered 200 with 6 bytes, as a name no site has is answered' "$TMP/p4.out"
prop_verify "$TMP/pv4.out" "$TMP/site.lua"
same "other configuration, prop verify: exit" "$rc" 2
same "other configuration, prop verify: site prop-n failed" "$(ctr_result "$TMP/pv4.out" "nginx site prop-n")" failed
same "other configuration, prop verify: the other configuration still runs" "$(named)" "other"
prop_run "$TMP/p5.out" "$TMP/site.lua"
same "other configuration: exit" "$rc" 0
same "other configuration: site prop-n repaired" "$(ctr_result "$TMP/p5.out" "nginx site prop-n")" changed
check "other configuration: a reload was not enough" grep -q 'nginx restarted: a reload did not make it serve the site' "$TMP/p5.out"
same "other configuration: the sites are served again" "$(fetch 8081)/$(named)" "site a/site b"
prop_run "$TMP/p6.out" "$TMP/site.lua"
same "after the repair: nothing changes" "$(changed_inside "$TMP/p6.out")" "0/0"
prop_verify "$TMP/pv6.out" "$TMP/site.lua"
same "after the repair, prop verify: all hold" "$rc" 0
write_site "nginx.site(\"prop-a\", \"$SITE_A\")" "revert(nginx.site(\"prop-n\", \"$NAMED\"))"
prop_run "$TMP/p7.out" "$TMP/site.lua"
same "the named site taken out" "$rc/$(changed_inside "$TMP/p7.out")" "0/1/0"

# ---- a dry run shows the new content and changes nothing -----------------------------
write_site "nginx.site(\"prop-a\", \"$SITE_B\")"
prop_run "$TMP/dry.out" "$TMP/site.lua" --dry-run --diff
same "dry run: exit" "$rc" 0
same "dry run: one would change" "$(changed_inside "$TMP/dry.out")" "1/0"
check "dry run: the diff has the old line" grep -qF -- '-server { listen 8081; root /var/www/prop-a; }' "$TMP/dry.out"
check "dry run: and the new one" grep -qF -- '+server { listen 8081; root /var/www/prop-b; }' "$TMP/dry.out"
check "dry run: says it would test" grep -q 'would be tested with nginx -t -q' "$TMP/dry.out"
same "dry run: the file is unchanged" "$(inside cat /etc/nginx/sites-available/prop-a)" \
  "server { listen 8081; root /var/www/prop-a; }"
same "dry run: the old site is served" "$(fetch 8081)" "site a"

# ---- new content: tested, reloaded, served --------------------------------------------
# A reload is a signal nginx's master acts on later: here the master is
# stopped, and let go on only three seconds after the signal has come,
# as a loaded machine may delay it.  The old workers serve meanwhile.
# Once prop run has returned, the new site is served.
master="$(inside cat /run/nginx.pid)"
check "setup: nginx's master stopped" inside sh -c "kill -STOP $master"
(
  for ((i = 0; i < 1200; i++)); do
    # SIGHUP pending: the lowest bit of the shared pending signals.
    if docker exec "$CTR" grep -q '^ShdPnd:.*[13579bdf]$' "/proc/$master/status"; then
      sleep 3
      break
    fi
    sleep 0.1
  done
  docker exec "$CTR" sh -c "kill -CONT $master"
) >/dev/null 2>&1 &
resumer=$!
prop_run "$TMP/r3.out" "$TMP/site.lua"
same "new content: exit" "$rc" 0
same "new content: the site changed" "$(changed_inside "$TMP/r3.out")" "1/0"
check "new content: nginx reloaded" grep -q 'nginx reloaded' "$TMP/r3.out"
same "new content: served once prop run returned" "$(fetch 8081)" "site b"
wait "$resumer"
check "new content: nginx's master runs again" inside sh -c "kill -0 $master"

# ---- a broken site: refused, put back, the old one still served ---------------------
write_site "nginx.site(\"prop-a\", \"$BROKEN\")"
prop_run "$TMP/r4.out" "$TMP/site.lua"
same "broken: exit" "$rc" 1
same "broken: the site failed" "$(changed_inside "$TMP/r4.out")" "0/1"
check "broken: nginx's message is shown" grep -q 'unknown directive' "$TMP/r4.out"
check "broken: says it was put back" grep -q 'put back as it was' "$TMP/r4.out"
same "broken: the file is the previous one" "$(inside cat /etc/nginx/sites-available/prop-a)" \
  "server { listen 8081; root /var/www/prop-b; }"
check "broken: nginx -t passes" inside nginx -t -q
same "broken: the previous site is still served" "$(fetch 8081)" "site b"
prop_run "$TMP/r4b.out" "$TMP/site.lua"
same "broken, again: refused again, nothing left changed" "$(changed_inside "$TMP/r4b.out")" "0/1"

# ---- a broken new site leaves nothing behind -------------------------------------------
write_site "nginx.site(\"prop-a\", \"$SITE_B\")" 'nginx.site("prop-c", "this is not nginx\n")'
prop_run "$TMP/r5.out" "$TMP/site.lua"
same "broken new site: exit" "$rc" 1
same "broken new site: it alone failed" "$(changed_inside "$TMP/r5.out")" "0/1"
check "broken new site: no file left" bash -c "! docker exec $CTR test -e /etc/nginx/sites-available/prop-c"
check "broken new site: no link left" bash -c "! docker exec $CTR test -L /etc/nginx/sites-enabled/prop-c"
same "broken new site: the other is served" "$(fetch 8081)" "site b"

# ---- revert and site_disabled take sites out ------------------------------------------
write_site "revert(nginx.site(\"prop-a\", \"$SITE_B\"))" 'nginx.site_disabled "default"'
prop_run "$TMP/r6.out" "$TMP/site.lua"
same "disabled: exit" "$rc" 0
same "disabled: both changed" "$(changed_inside "$TMP/r6.out")" "2/0"
check "disabled: the link is gone" bash -c "! docker exec $CTR test -L /etc/nginx/sites-enabled/prop-a"
check "disabled: the file is kept" inside test -f /etc/nginx/sites-available/prop-a
check "disabled: port 8081 is closed" bash -c "! docker exec $CTR curl -s -o /dev/null --max-time 5 http://127.0.0.1:8081/"
check "disabled: the default site is gone" bash -c "! docker exec $CTR test -e /etc/nginx/sites-enabled/default"
check "disabled: port 80 is closed" bash -c "! docker exec $CTR curl -s -o /dev/null --max-time 5 http://127.0.0.1/"
check "disabled: nginx still runs" inside service nginx status
prop_run "$TMP/r7.out" "$TMP/site.lua"
same "disabled, again: nothing changed" "$(changed_inside "$TMP/r7.out")" "0/0"

# ---- purge_sites: a stale vhost put there by hand goes -------------------------------
inside sh -c 'printf "server { listen 8083; return 200 \"stale\\n\"; }\n" >/etc/nginx/sites-available/prop-stale &&
  ln -s /etc/nginx/sites-available/prop-stale /etc/nginx/sites-enabled/prop-stale &&
  echo "# left by hand" >/etc/nginx/sites-enabled/notes.txt && nginx -s reload'
stale() { docker exec "$CTR" curl -sS --max-time 5 http://127.0.0.1:8083/ 2>&1 || true; }
for ((i = 0; i < 100; i++)); do [[ "$(stale)" == stale ]] && break; sleep 0.1; done
same "purge: setup, the stale vhost is served" "$(stale)" "stale"
INSTALLED='nginx.installed { purge_sites = true }'
write_site "nginx.site(\"prop-a\", \"$SITE_A\")"
prop_run "$TMP/pg0.out" "$TMP/site.lua" --dry-run
same "purge, dry run: exit" "$rc" 0
check "purge, dry run: lists the stale link" grep -qF '"text":"would remove /etc/nginx/sites-enabled/prop-stale"' "$TMP/pg0.out"
check "purge, dry run: and the stale file" grep -qF '"text":"would remove /etc/nginx/sites-enabled/notes.txt"' "$TMP/pg0.out"
check "purge, dry run: not the declared site" bash -c "! grep -q 'would remove /etc/nginx/sites-enabled/prop-a' '$TMP/pg0.out'"
check "purge, dry run: the link is still there" inside test -L /etc/nginx/sites-enabled/prop-stale
same "purge, dry run: still served" "$(stale)" "stale"
prop_run "$TMP/pg1.out" "$TMP/site.lua"
same "purge: exit" "$rc" 0
same "purge: nginx installed changed" "$(ctr_result "$TMP/pg1.out" "nginx installed, sites-enabled purged")" changed
check "purge: the removal is noted" grep -qF '"text":"removed /etc/nginx/sites-enabled/prop-stale"' "$TMP/pg1.out"
check "purge: nginx reloaded" grep -q 'nginx reloaded' "$TMP/pg1.out"
same "purge: sites-enabled holds the declared site alone" "$(inside ls /etc/nginx/sites-enabled)" "prop-a"
check "purge: sites-available keeps the file" inside test -f /etc/nginx/sites-available/prop-stale
check "purge: the stale vhost is no longer served" bash -c "! docker exec $CTR curl -s -o /dev/null --max-time 5 http://127.0.0.1:8083/"
same "purge: the declared site is served" "$(fetch 8081)" "site a"
prop_run "$TMP/pg2.out" "$TMP/site.lua"
same "purge, again: nothing changed" "$rc/$(changed_inside "$TMP/pg2.out")" "0/0/0"
check "purge, again: no reload" bash -c "! grep -q 'nginx reloaded' '$TMP/pg2.out'"

finish
