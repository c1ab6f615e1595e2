#!/usr/bin/env bash
# dns.primary for real, in a chroot container (bind9 installed inside from
# the mirror; named never starts there): the zone file has the site's hosts
# and aliases, named-checkzone accepts it, a second run changes nothing and
# keeps the serial, and a changed address bumps the serial.
#
# Then in a Docker container where named runs: after one run named serves
# the new zone (added with rndc reconfig) with the serial written, an
# alias in the zone of a host named outside it answers with the host's
# address, a second run changes nothing; the zone's probe (an SOA query
# from prop to port 53) finds named serving another serial than the
# file's, or stopped, says so in a dry run and has it repaired by a run;
# a reload that fails is owed (the
# pending record in the container) and the next run makes it, after which
# named serves the new address.  A signed zone (dnssec = true) with MX,
# SRV, TXT and CAA records: named serves it with RRSIGs, delv validates it
# with a trust anchor made from the key-signing key named serves, the run
# notes the DS that dnssec-dsfromkey makes of that key, dig answers the
# typed records; its revert removes its files and keys, named forgets it
# while the other zone still answers, bind9 stays.  In the chroot, a
# secondary whose master is named by its host gets that host's addresses.
# Every image and container is named prop-test-* and removed on exit.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# What the zone uses, in its type (prop show).
cat >"$TMP/show.lua" <<'EOF'
host "ns" { os.debian("bookworm", "amd64"), dns.primary("example.com", { ns = { "ns1.example.com" } }) }
host "ns1.example.com" { ipv4 "192.0.2.53" }
EOF
run_prop "$TMP/show.out" show "$TMP/show.lua" ns
check "show: the zone uses named" grep -q 'dns primary zone example.com : DebianLike, uses service named' "$TMP/show.out"
check "show: and so does its reload" grep -q 'on change: dns zone example.com reloaded : DebianLike, uses service named' "$TMP/show.out"

rootfs_cache
T="$TMP/trees"
write_site() { # WWW-ADDRESS
  cat >"$TMP/site.lua" <<EOF
host "www.example.com" { os.debian("$SUITE", "$ARCH"), ipv4 "$1", alias "web.example.com" }
host "mail.example.com" { os.debian("$SUITE", "$ARCH"), ipv4 "192.0.2.25", ipv6 "2001:db8::25" }
host "other.example.org" { os.debian("$SUITE", "$ARCH"), ipv4 "192.0.2.99" }
host "ns1.example.com" { os.debian("$SUITE", "$ARCH"), ipv4 "192.0.2.53" }
local ns = chroot.from_tarball("$T/ns1", os.debian("$SUITE", "$ARCH"), "$ROOTFS", {
  dns.primary("example.com", { ns = { "ns1.example.com" },
                               records = { { "@", "MX", "10 mail.example.com." } } }),
})
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  chroot.provisioned(ns),
}
EOF
}
zone="$T/ns1/etc/bind/db.example.com"
serial() {
  chroot "$T/ns1" named-checkzone -D -q example.com /etc/bind/db.example.com 2>/dev/null |
    awk '$4 == "SOA" { print $7 }'
}

write_site 192.0.2.80
prop_run "$TMP/r1.out" "$TMP/site.lua"
same "zone: exit" "$rc" 0
same "zone: made in the container" "$(host_count "$TMP/r1.out" localhost/ns1 failed)" 0
check "zone: named-checkzone accepts it" chroot "$T/ns1" named-checkzone example.com /etc/bind/db.example.com
check "zone: the host's address" grep -Eq '^www(\.example\.com\.)?[[:space:]].*A[[:space:]]+192\.0\.2\.80$' "$zone"
check "zone: its alias" grep -Eq '^web(\.example\.com\.)?[[:space:]].*CNAME[[:space:]]+www\.example\.com\.$' "$zone"
check "zone: an IPv6 address" grep -Eq 'AAAA[[:space:]]+2001:db8::25$' "$zone"
check "zone: the records given" grep -Eq 'MX[[:space:]]+10 mail\.example\.com\.$' "$zone"
check "zone: no host of another zone" bash -c "! grep -q 192.0.2.99 '$zone'"
check "zone: the stanza is included" grep -q 'include "/etc/bind/prop/example.com.conf";' "$T/ns1/etc/bind/named.conf.local"
check "zone: named.conf is valid" chroot "$T/ns1" named-checkconf /etc/bind/named.conf
check "zone: named was not started" no_process_in "$T/ns1"
s1="$(serial)"
check "zone: a serial" test -n "$s1"

prop_run "$TMP/r2.out" "$TMP/site.lua"
same "zone again: exit" "$rc" 0
same "zone again: no change" "$(host_count "$TMP/r2.out" localhost/ns1 changed)" 0
same "zone again: the serial is kept" "$(serial)" "$s1"

write_site 192.0.2.81
prop_run "$TMP/r3.out" "$TMP/site.lua"
same "new address: exit" "$rc" 0
same "new address: the zone changed" "$(host_count "$TMP/r3.out" localhost/ns1 changed)" 1
check "new address: in the zone" grep -Eq 'A[[:space:]]+192\.0\.2\.81$' "$zone"
s3="$(serial)"
check "new address: the serial went up ($s1 -> $s3)" test "${s3:-0}" -gt "${s1:-0}"
check "new address: still valid" chroot "$T/ns1" named-checkzone example.com /etc/bind/db.example.com

# A secondary whose master is named by its host: the stanza has that
# host's address, named-checkconf accepts it.
cat >"$TMP/sec.lua" <<EOF
host "ns1.example.com" { ipv4 "192.0.2.53", ipv6 "2001:db8::53" }
local ns = chroot.from_tarball("$T/ns1", os.debian("$SUITE", "$ARCH"), "$ROOTFS", {
  dns.secondary("example.net", { "ns1.example.com", "192.0.2.54" }),
})
host "localhost" { os.debian("$SUITE", "$ARCH"), chroot.provisioned(ns) }
EOF
prop_run "$TMP/sec.out" "$TMP/sec.lua"
same "secondary by host: exit" "$rc" 0
check "secondary by host: the host's addresses" \
  grep -q 'masters { 192.0.2.53; 2001:db8::53; 192.0.2.54; };' "$T/ns1/etc/bind/prop/example.net.conf"
check "secondary by host: named.conf is valid" chroot "$T/ns1" named-checkconf /etc/bind/named.conf

# A zone named-checkzone refuses (its name server has no address): the
# property fails with named-checkzone's words and installs nothing.
cat >"$TMP/bad.lua" <<EOF
local ns = chroot.from_tarball("$T/ns1", os.debian("$SUITE", "$ARCH"), "$ROOTFS", {
  dns.primary("broken.example", { ns = { "ns.broken.example" } }),
})
host "localhost" { os.debian("$SUITE", "$ARCH"), chroot.provisioned(ns) }
EOF
prop_run "$TMP/b.out" "$TMP/bad.lua"
same "refused zone: exit" "$rc" 1
check "refused zone: named-checkzone's reason" grep -q 'has no address records' "$TMP/b.out"
check "refused zone: nothing installed" test ! -e "$T/ns1/etc/bind/db.broken.example"

# ---- named running, in a Docker container ---------------------------------------
docker_up
docker_test "prop-test-dns-img-$$" "prop-test-dns-$$"
write_dsite() { # DB-ADDRESS
  cat >"$TMP/dsite.lua" <<EOF
local base = docker.image("$IMG", os.debian("$SUITE", "$ARCH"), { cache = "$ROOTFS_CACHE" })
local ns = docker.container("$CTR", base, {
  apt.installed { "bind9-dnsutils" },
  dns.primary("example.com", { ns = { "ns1.example.com" } }),
})
host "db" { ipv4 "$1", alias "db.example.com" }
host "ns1.example.com" { ipv4 "192.0.2.53" }
host "localhost" { os.debian("$SUITE", "$ARCH"), docker.running(ns) }
EOF
}
dserial() {
  inside named-checkzone -D -q example.com /etc/bind/db.example.com 2>/dev/null |
    awk '$4 == "SOA" { print $7 }'
}
served_serial() {
  inside dig +short @127.0.0.1 example.com SOA 2>/dev/null | awk '{ print $3 }'
}
dig_a() {
  inside dig +short @127.0.0.1 "$1" A 2>/dev/null | tail -1
}

docker image rm -f "$IMG" >/dev/null 2>&1 || true
write_dsite 192.0.2.10
PROP_RUN_TIMEOUT=900 prop_run "$TMP/d1.out" "$TMP/dsite.lua" localhost
same "named: exit" "$rc" 0
same "named: nothing failed in the container" "$(host_count "$TMP/d1.out" "localhost/$CTR" failed)" 0
check "named: named runs" inside service named status
check "named: after one run, named serves the zone" inside rndc zonestatus example.com
ds1="$(dserial)"
check "named: a serial was written" test -n "$ds1"
same "named: dig gets the serial written" "$(served_serial)" "$ds1"
check "named: no CNAME to a name outside the zone" bash -c "! docker exec $CTR grep -q CNAME /etc/bind/db.example.com"
same "named: the alias answers with the host's address" "$(dig_a db.example.com)" 192.0.2.10

prop_run "$TMP/d2.out" "$TMP/dsite.lua" localhost
same "named again: exit" "$rc" 0
same "named again: nothing changed" "$(changed_inside "$TMP/d2.out")" "0/0"
same "named again: still served" "$(served_serial)" "$ds1"

# ---- the probe: named answers for the zone, with the serial written --------------
# named serving another serial than the file's (edited, reloaded and put
# back behind prop's back): the files are right, the effect is not.
inside sh -c "cp /etc/bind/db.example.com /tmp/db.orig && sed -i 's/\t\t$ds1\t; serial/\t\t$((ds1 + 5))\t; serial/' /etc/bind/db.example.com && rndc reload example.com >/dev/null"
for _ in $(seq 50); do [[ "$(served_serial)" == "$((ds1 + 5))" ]] && break; sleep 0.2; done
inside sh -c "cp /tmp/db.orig /etc/bind/db.example.com"
same "probe: named serves another serial" "$(served_serial)" "$((ds1 + 5))"
prop_run "$TMP/v1.out" "$TMP/dsite.lua" localhost --dry-run
same "another serial, dry run: exit" "$rc" 1
same "another serial, dry run: the zone would fail" "$(changed_inside "$TMP/v1.out")" "0/1"
check "another serial, dry run: with what the probe saw" grep -q "would fail: verify: SOA example.com from port 53: named serves serial $((ds1 + 5)), the zone file has $ds1" "$TMP/v1.out"
same "another serial, dry run: nothing done" "$(served_serial)" "$((ds1 + 5))"
prop_verify "$TMP/vv.out" "$TMP/dsite.lua" localhost
same "another serial, prop verify: exit" "$rc" 2
check "another serial, prop verify: the zone failed" grep -q '"desc":"dns primary zone example.com".*"result":"failed"' "$TMP/vv.out"
same "another serial, prop verify: nothing done" "$(served_serial)" "$((ds1 + 5))"
prop_run "$TMP/v2.out" "$TMP/dsite.lua" localhost
same "another serial: exit" "$rc" 0
# The repair reloads the zone (its own line, changed) and the zone is
# changed.
same "another serial: the zone repaired" "$(changed_inside "$TMP/v2.out")" "2/0"
same "another serial: the file's serial is served" "$(served_serial)" "$ds1"
# named stopped: a dry run says the zone would fail; a run starts named.
inside rndc stop >/dev/null
for _ in $(seq 50); do docker exec "$CTR" service named status >/dev/null 2>&1 || break; sleep 0.2; done
prop_run "$TMP/v3.out" "$TMP/dsite.lua" localhost --dry-run
same "named stopped, dry run: exit" "$rc" 1
check "named stopped, dry run: the probe's words" grep -q "would fail: verify: SOA example.com from port 53: connect to 127.0.0.1:53: Connection refused" "$TMP/v3.out"
prop_run "$TMP/v4.out" "$TMP/dsite.lua" localhost
same "named stopped: exit" "$rc" 0
same "named stopped: the zone is served again" "$(served_serial)" "$ds1"

# A reload that fails (rndc has no key) is owed to the next run.
inside mv /etc/bind/rndc.key /etc/bind/rndc.key.away
write_dsite 192.0.2.11
prop_run "$TMP/d3.out" "$TMP/dsite.lua" localhost
same "failed reload: exit" "$rc" 1
check "failed reload: rndc's words" grep -q 'rndc' "$TMP/d3.out"
check "failed reload: the zone file has the new address" \
  inside grep -Eq 'A[[:space:]]+192\.0\.2\.11$' /etc/bind/db.example.com
same "failed reload: named still serves the old address" "$(dig_a db.example.com)" 192.0.2.10
check "failed reload: the reload is owed" \
  bash -c "docker exec $CTR cat '$PROP_STATE_DIR/pending' | grep -q 'dns zone example.com reloaded'"
inside mv /etc/bind/rndc.key.away /etc/bind/rndc.key
prop_run "$TMP/d4.out" "$TMP/dsite.lua" localhost
same "owed reload: exit" "$rc" 0
check "owed reload: run as owed" grep -q '"event":"pending"' "$TMP/d4.out"
same "owed reload: the new address is served" "$(dig_a db.example.com)" 192.0.2.11
same "owed reload: the serial written is served" "$(served_serial)" "$(dserial)"
check "owed reload: nothing is owed any more" \
  bash -c "! docker exec $CTR grep -q 'dns zone' '$PROP_STATE_DIR/pending' 2>/dev/null"

# ---- a signed zone with typed records, then its revert -----------------------------
write_ssite() { # REVERT-OR-EMPTY
  cat >"$TMP/ssite.lua" <<EOF
local base = docker.image("$IMG", os.debian("$SUITE", "$ARCH"), { cache = "$ROOTFS_CACHE" })
local signed = dns.primary("example.org", { ns = { "ns1.example.com" }, dnssec = true, records = {
  { "@", "MX", 10, "mail.example.org." },
  { "_sip._tcp", "SRV", 10, 5, 5060, "sip.example.org." },
  { "sip", "A", "192.0.2.60" },
  { "@", "TXT", "v=spf1 -all" },
  { "long", "TXT", string.rep("a", 300) },
  { "@", "CAA", 0, "issue", "letsencrypt.org" } } })
local ns = docker.container("$CTR", base, {
  apt.installed { "bind9-dnsutils" },
  dns.primary("example.com", { ns = { "ns1.example.com" } }),
  $1(signed),
})
host "db" { ipv4 "192.0.2.11", alias "db.example.com" }
host "ns1.example.com" { ipv4 "192.0.2.53" }
host "mail.example.org" { ipv4 "192.0.2.25" }
host "localhost" { os.debian("$SUITE", "$ARCH"), docker.running(ns) }
EOF
}
dig_s() { inside dig +short @127.0.0.1 "$@" 2>/dev/null; }
t_signed=$SECONDS
write_ssite ""
prop_run "$TMP/s1.out" "$TMP/ssite.lua" localhost
same "signed: exit" "$rc" 0
same "signed: nothing failed" "$(host_count "$TMP/s1.out" "localhost/$CTR" failed)" 0
check "signed: the SOA comes with its RRSIG" \
  bash -c "docker exec $CTR dig +dnssec +norec @127.0.0.1 example.org SOA | grep -q 'RRSIG[[:space:]]*SOA'"
# The trust anchor from the DNSKEY named serves; delv validates with it.
inside sh -c 'dig +noall +answer @127.0.0.1 example.org DNSKEY | awk '\''$5 == 257 { k = ""; for (i = 8; i <= NF; i++) k = k $i; printf "trust-anchors { example.org. static-key %s %s %s \"%s\"; };\n", $5, $6, $7, k }'\'' >/tmp/anchor.conf'
check "signed: a trust anchor from the key-signing key" inside grep -q static-key /tmp/anchor.conf
check "signed: delv validates the zone" \
  bash -c "docker exec $CTR delv -a /tmp/anchor.conf +root=example.org @127.0.0.1 example.org SOA 2>&1 | grep -q 'fully validated'"
ds_served="$(inside sh -c 'dig +noall +answer @127.0.0.1 example.org DNSKEY | dnssec-dsfromkey -2 -f - example.org' | awk '{ print $NF }')"
check "signed: a DS from the served key ($ds_served)" test -n "$ds_served"
check "signed: the run printed that DS" grep -q "DS for the parent zone: example.org. IN DS .* $ds_served" "$TMP/s1.out"
check "signed: the keys in their directory" bash -c "docker exec $CTR sh -c 'ls /var/lib/bind/keys/example.org/K*.private' >/dev/null"
same "typed: MX" "$(dig_s example.org MX)" "10 mail.example.org."
same "typed: SRV" "$(dig_s _sip._tcp.example.org SRV)" "10 5 5060 sip.example.org."
same "typed: TXT" "$(dig_s example.org TXT)" '"v=spf1 -all"'
same "typed: a long TXT in strings of 255" "$(dig_s long.example.org TXT)" "\"$(printf 'a%.0s' $(seq 255))\" \"$(printf 'a%.0s' $(seq 45))\""
same "typed: CAA" "$(dig_s example.org CAA)" '0 issue "letsencrypt.org"'
prop_run "$TMP/s2.out" "$TMP/ssite.lua" localhost
same "signed again: exit" "$rc" 0
same "signed again: nothing changed" "$(changed_inside "$TMP/s2.out")" "0/0"
check "signed again: the DS noted again" grep -q "DS for the parent zone: example.org. IN DS .* $ds_served" "$TMP/s2.out"

write_ssite revert
prop_run "$TMP/s3.out" "$TMP/ssite.lua" localhost
same "revert: exit" "$rc" 0
same "revert: nothing failed" "$(host_count "$TMP/s3.out" "localhost/$CTR" failed)" 0
check "revert: named no longer knows the zone" bash -c "! docker exec $CTR rndc zonestatus example.org >/dev/null 2>&1"
same "revert: no answer for it" "$(dig_s +norec example.org SOA)" ""
check "revert: nor with authority" bash -c "! docker exec $CTR dig +norec @127.0.0.1 example.org SOA | grep -q 'flags:.* aa'"
same "revert: the other zone still answers" "$(dig_a db.example.com)" 192.0.2.11
check "revert: the zone file gone" inside test ! -e /var/lib/bind/db.example.org
check "revert: named's signed copy gone" inside test ! -e /var/lib/bind/db.example.org.signed
check "revert: the keys gone" inside test ! -e /var/lib/bind/keys/example.org
check "revert: the stanza gone" inside test ! -e /etc/bind/prop/example.org.conf
check "revert: the include line gone" bash -c "! docker exec $CTR grep -q example.org /etc/bind/named.conf.local"
check "revert: bind9 still installed" inside dpkg -s bind9
check "revert: named still runs" inside service named status
prop_run "$TMP/s4.out" "$TMP/ssite.lua" localhost
same "revert again: exit" "$rc" 0
same "revert again: nothing changed" "$(changed_inside "$TMP/s4.out")" "0/0"
echo "the signed zone, its records and its revert took $((SECONDS - t_signed)) s"

finish
