#!/usr/bin/env bash
# tor.hidden_service for real, inside a Docker container made by the test
# (tor runs there, not on this machine).  Lint: bad arguments are P012 at
# their line, one service mapped two ways is P007.  Then: a dry run
# changes nothing; a run installs tor, writes
# /etc/tor/torrc.d/hidden-service-web, includes it from torrc, starts
# tor, which writes the onion address without reaching the network (the
# container's network is Docker's, but tor needs none for this), and the
# note and sys.facts.onion name that address; a second run changes
# nothing; a new port shown by --diff in a dry run, then applied; a
# target tor refuses (a host name) is caught by tor --verify-config, the
# old file is left and tor goes on running; the revert removes the file.
# Then tor.bridge in the same container: its lines in torrc, tor
# restarted only when torrc changed; moved to another port, the old
# ORPort line removed.
# Every image and container is named prop-test-* and removed on exit.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# ---- arguments and claims ------------------------------------------------------------
cat >"$TMP/bad.lua" <<'EOF'
host "a" {
  os.debian("bookworm", "amd64"),
  tor.hidden_service("a/b", 80),
  tor.hidden_service("web", 0),
  tor.hidden_service("web", 80, { target = "127.0.0.1:99999" }),
  tor.hidden_service("web", 80, { taget = 8080 }),
  tor.hidden_service("web", 80, { target = "unix:relative" }),
}
host "b" {
  os.debian("bookworm", "amd64"),
  tor.hidden_service("web", 80),
  tor.hidden_service("web", 443),
}
host "c" {
  os.debian("bookworm", "amd64"),
  tor.hidden_service("web", 80),
  tor.hidden_service("ssh", 22, { target = "[::1]:22" }),
  revert(tor.hidden_service("old", 80, { target = "unix:/run/old.sock" })),
}
EOF
run_prop "$TMP/bad.out" lint "$TMP/bad.lua"
OUT="$TMP/bad.out"
same "lint: exit" "$rc" 2
check "a name with a slash" grep -q 'bad.lua:3: error\[P012\]: tor.hidden_service: name "a/b" is not valid' "$TMP/bad.out"
check "port 0" grep -q 'bad.lua:4: error\[P012\]: tor.hidden_service: port 0 is outside 1..65535' "$TMP/bad.out"
check "a target's port out of range" grep -q 'bad.lua:5: error\[P012\]: tor.hidden_service: target must be a port, "ADDRESS:PORT"' "$TMP/bad.out"
check "a misspelt option" grep -q 'bad.lua:6: error\[P012\]: unknown key "taget" for tor.hidden_service (did you mean "target"?)' "$TMP/bad.out"
check "a relative unix socket" grep -q 'bad.lua:7: error\[P012\]: tor.hidden_service: target must be' "$TMP/bad.out"
check "one service mapped two ways is P007" grep -q 'bad.lua:12: error\[P007\]: "/etc/tor/torrc.d/hidden-service-web" is given two different contents' "$TMP/bad.out"
check "host c is clean" bash -c "! grep -q 'bad.lua:1[4-9]:' '$TMP/bad.out'"
same "lint: six errors" "$(grep -c 'error\[P' "$TMP/bad.out")" 6
sed -n '14,19p' "$TMP/bad.lua" >"$TMP/c.lua"
run_prop "$TMP/show.out" show "$TMP/c.lua" c
OUT="$TMP/show.out"
check "show: the service's file" grep -q 'claims file.content /etc/tor/torrc.d/hidden-service-web' "$TMP/show.out"
check "show: the include line" grep -q 'claims file.line /etc/tor/torrc "%include /etc/tor/torrc.d/"' "$TMP/show.out"
check "show: tor installed and running" bash -c "grep -q 'claims package.installed tor' '$TMP/show.out' && grep -q 'claims service.running tor' '$TMP/show.out'"
check "show: the revert removes the file" grep -q 'claims file.absent /etc/tor/torrc.d/hidden-service-old' "$TMP/show.out"
check "show: no port is declared" bash -c "! grep -q 'ports 80' '$TMP/show.out'"

# ---- Docker -------------------------------------------------------------------
docker_up
rootfs_cache
docker_test "prop-test-tor-img-$$" "prop-test-tor-$$"

# The fact sys.facts.onion.web, shown by a property of the site.
FACT='property { desc = "onion fact", check = function() return false end,
    apply = function(sys) sys:note("fact: " .. tostring(sys.facts.onion and sys.facts.onion.web)) end }'
write_site() { # PROPERTIES...
  local extra=""
  if [[ $# -gt 0 ]]; then extra="$(printf '  %s,\n' "$@")"; fi
  cat >"$TMP/site.lua" <<EOF
local base = docker.image("$IMG", os.debian("$SUITE", "$ARCH"), { cache = "$ROOTFS_CACHE" })
local box = docker.container("$CTR", base, {
$extra
})
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  docker.running(box),
}
EOF
}
F=/etc/tor/torrc.d/hidden-service-web

docker image rm -f "$IMG" >/dev/null 2>&1 || true
write_site 'file.directory "/srv"'
PROP_RUN_TIMEOUT=900 prop_run "$TMP/r0.out" "$TMP/site.lua"
same "container made: exit" "$rc" 0

# ---- dry run -------------------------------------------------------------------------
write_site 'tor.hidden_service("web", 80)'
prop_run "$TMP/d.out" "$TMP/site.lua" --dry-run
same "dry run: exit" "$rc" 0
same "dry run: one would change" "$(changed_inside "$TMP/d.out")" "1/0"
check "dry run: tor not installed" bash -c "! docker exec $CTR test -e /usr/bin/tor"
check "dry run: no file" bash -c "! docker exec $CTR test -e $F"

# ---- first run -----------------------------------------------------------------------
write_site 'tor.hidden_service("web", 80)' "$FACT"
prop_run "$TMP/r1.out" "$TMP/site.lua"
same "first run: exit" "$rc" 0
same "first run: the service and the fact changed" "$(changed_inside "$TMP/r1.out")" "2/0"
check "first run: no W104" bash -c "! grep -q W104 '$TMP/r1.out'"
same "the file" "$(inside cat $F)" "# onion service web, managed by prop: edits here are overwritten
HiddenServiceDir /var/lib/tor/web/
HiddenServicePort 80 127.0.0.1:80"
same "torrc includes torrc.d" "$(inside grep -c '^%include /etc/tor/torrc.d/$' /etc/tor/torrc)" 1
check "tor accepts it" inside tor --defaults-torrc /usr/share/tor/tor-service-defaults-torrc -f /etc/tor/torrc --verify-config
check "tor runs" inside service tor status
ONION="$(inside cat /var/lib/tor/web/hostname 2>/dev/null || true)"
check "tor wrote an onion address" bash -c "[[ '$ONION' =~ ^[a-z2-7]{56}\.onion$ ]]"
check "the note shows it" grep -qF "onion address: $ONION" "$TMP/r1.out"
check "sys.facts.onion.web reads it" grep -qF "fact: $ONION" "$TMP/r1.out"

# ---- second run ----------------------------------------------------------------------
write_site 'tor.hidden_service("web", 80)'
prop_run "$TMP/r2.out" "$TMP/site.lua"
same "second run: exit" "$rc" 0
same "second run: nothing changes" "$(changed_inside "$TMP/r2.out")" "0/0"

# ---- the onion address file removed behind prop's back: only the probe sees it ------------
inside rm /var/lib/tor/web/hostname
prop_run "$TMP/b1.out" "$TMP/site.lua" --dry-run
same "no hostname, dry run: exit 1" "$rc" 1
same "no hostname, dry run: the service would fail" "$(changed_inside "$TMP/b1.out")" "0/1"
check "no hostname, dry run: with what the probe saw" grep -q 'would fail: verify: /var/lib/tor/web/hostname is missing: tor does not run the service' "$TMP/b1.out"
check "no hostname, dry run: nothing made" bash -c "! docker exec $CTR test -e /var/lib/tor/web/hostname"
prop_verify "$TMP/bv.out" "$TMP/site.lua"
same "no hostname, prop verify: exit 2" "$rc" 2
same "no hostname, prop verify: the service failed" "$(host_count "$TMP/bv.out" "localhost/$CTR" failed)" 1
check "no hostname, prop verify: with what the probe saw" grep -q 'would fail: verify: /var/lib/tor/web/hostname is missing: tor does not run the service' "$TMP/bv.out"
check "no hostname, prop verify: nothing made" bash -c "! docker exec $CTR test -e /var/lib/tor/web/hostname"
prop_run "$TMP/b2.out" "$TMP/site.lua"
same "no hostname: tor reloaded (changed)" "$(changed_inside "$TMP/b2.out")/$rc" "1/0/0"
check "no hostname: says so" grep -q 'tor reloaded: /var/lib/tor/web/hostname was missing' "$TMP/b2.out"
same "no hostname: tor wrote it again, the same address" "$(inside cat /var/lib/tor/web/hostname)" "$ONION"
prop_run "$TMP/b3.out" "$TMP/site.lua"
same "no hostname: the next run changes nothing" "$(changed_inside "$TMP/b3.out")/$rc" "0/0/0"
prop_verify "$TMP/bv3.out" "$TMP/site.lua"
same "no hostname, repaired: prop verify: all hold" "$rc" 0

# ---- a new port: dry run with --diff, then the run --------------------------------------
write_site 'tor.hidden_service("web", 8080, { target = 8081 })'
prop_run "$TMP/d2.out" "$TMP/site.lua" --dry-run --diff
same "new port, dry run: one would change" "$(changed_inside "$TMP/d2.out")" "1/0"
check "new port, dry run: the diff" bash -c "grep -qF -- '-HiddenServicePort 80 127.0.0.1:80' '$TMP/d2.out' && grep -qF -- '+HiddenServicePort 8080 127.0.0.1:8081' '$TMP/d2.out'"
check "new port, dry run: says it would verify" grep -q 'would check the configuration with tor --verify-config' "$TMP/d2.out"
check "new port, dry run: the file is unchanged" inside grep -qx 'HiddenServicePort 80 127.0.0.1:80' $F
prop_run "$TMP/r3.out" "$TMP/site.lua"
same "new port: changed" "$(changed_inside "$TMP/r3.out")/$rc" "1/0/0"
check "new port: in the file" inside grep -qx 'HiddenServicePort 8080 127.0.0.1:8081' $F
same "new port: the same onion address" "$(inside cat /var/lib/tor/web/hostname)" "$ONION"

# ---- a target tor refuses: the old file stays ------------------------------------------
inside cat $F >"$TMP/good"
write_site 'tor.hidden_service("web", 80, { target = "example.org:80" })'
prop_run "$TMP/f.out" "$TMP/site.lua"
same "refused: exit" "$rc" 1
same "refused: the property fails" "$(changed_inside "$TMP/f.out")" "0/1"
check "refused: says tor refused and the file was kept" grep -q 'tor --verify-config refuses the configuration, so /etc/tor/torrc.d/hidden-service-web was left as it was' "$TMP/f.out"
check "refused: with tor's words" grep -q 'Unparseable address in hidden service port configuration' "$TMP/f.out"
same "refused: the old file is in place" "$(inside cat $F)" "$(cat "$TMP/good")"
check "refused: tor still runs" inside service tor status

# ---- a new service tor refuses leaves no file ---------------------------------------------
write_site 'tor.hidden_service("web", 8080, { target = 8081 })' 'tor.hidden_service("bad", 80, { target = "example.org:80" })'
prop_run "$TMP/f2.out" "$TMP/site.lua"
same "refused new: only it fails" "$(changed_inside "$TMP/f2.out")/$rc" "0/1/1"
check "refused new: no file left" bash -c "! docker exec $CTR test -e /etc/tor/torrc.d/hidden-service-bad"

# ---- revert --------------------------------------------------------------------------
write_site 'revert(tor.hidden_service("web", 8080, { target = 8081 }))'
prop_run "$TMP/v1.out" "$TMP/site.lua"
same "revert: changed" "$(changed_inside "$TMP/v1.out")/$rc" "1/0/0"
check "revert: the file is gone" bash -c "! docker exec $CTR test -e $F"
check "revert: tor still accepts its configuration" inside tor --defaults-torrc /usr/share/tor/tor-service-defaults-torrc -f /etc/tor/torrc --verify-config
prop_run "$TMP/v2.out" "$TMP/site.lua"
same "revert again: nothing to do" "$(changed_inside "$TMP/v2.out")/$rc" "0/0/0"

# ---- tor.bridge in the same container (tor is there already) -----------------------------
# The bridge lines appended to torrc (the rest kept), tor restarted only
# when torrc changed: a second run leaves its pid alone, a line removed
# behind prop's back is put back and another tor runs (in this container
# Debian's init script cannot stop tor, and prop stops it by its pid).
tor_pid() { inside cat /run/tor/tor.pid 2>/dev/null || true; }
write_site 'tor.bridge()'
prop_run "$TMP/g0.out" "$TMP/site.lua" --dry-run
same "bridge, dry run: one would change" "$(changed_inside "$TMP/g0.out")/$rc" "1/0/0"
check "bridge, dry run: torrc untouched" bash -c "! docker exec $CTR grep -q '^BridgeRelay 1$' /etc/tor/torrc"
prop_run "$TMP/g1.out" "$TMP/site.lua"
same "bridge: changed" "$(changed_inside "$TMP/g1.out")/$rc" "1/0/0"
for l in "BridgeRelay 1" "ORPort 443" "ExitPolicy reject \*:\*"; do
  check "bridge: torrc has: $l" inside grep -q "^$l\$" /etc/tor/torrc
done
check "bridge: torrc keeps the package's comments" inside grep -q '^## ' /etc/tor/torrc
check "bridge: tor runs" inside service tor status
pid1="$(tor_pid)"
check "bridge: tor has a pid" test -n "$pid1"
prop_run "$TMP/g2.out" "$TMP/site.lua"
same "bridge, second run: nothing changes" "$(changed_inside "$TMP/g2.out")/$rc" "0/0/0"
same "bridge, second run: not restarted" "$(tor_pid)" "$pid1"
inside sed -i '/^ORPort 443$/d' /etc/tor/torrc
prop_run "$TMP/g3.out" "$TMP/site.lua"
same "bridge, torrc edited: changed" "$(changed_inside "$TMP/g3.out")/$rc" "1/0/0"
check "bridge: ORPort back" inside grep -q '^ORPort 443$' /etc/tor/torrc
pid2="$(tor_pid)"
check "bridge: restarted, a new pid" test -n "$pid2" -a "$pid2" != "$pid1"
check "bridge: the new tor runs" inside test -d "/proc/$pid2"
# Moved to 9001 (443 left to a web site): the ORPort 443 line goes, tor
# restarted on the new port only.
write_site 'tor.bridge { port = 9001 }'
prop_run "$TMP/g4.out" "$TMP/site.lua"
same "bridge moved: changed" "$(changed_inside "$TMP/g4.out")/$rc" "1/0/0"
check "bridge moved: ORPort 9001" inside grep -q '^ORPort 9001$' /etc/tor/torrc
same "bridge moved: no other ORPort" "$(inside grep -c '^ORPort' /etc/tor/torrc)" "1"
pid3="$(tor_pid)"
check "bridge moved: restarted" test -n "$pid3" -a "$pid3" != "$pid2"
prop_run "$TMP/g5.out" "$TMP/site.lua"
same "bridge moved, second run: nothing changes" "$(changed_inside "$TMP/g5.out")/$rc" "0/0/0"

finish
