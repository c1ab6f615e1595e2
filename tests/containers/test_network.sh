#!/usr/bin/env bash
# network.interface and network.preserve_static for real, inside a Docker
# container made by the test with CAP_NET_ADMIN (docker.cap_add): its
# network namespace is its own, so this machine's interfaces are never
# touched.  The interfaces configured are a veth pair the test makes
# inside the container.  Lint first: bad addresses, a gateway outside the
# network and misspelt options are P012 at their line; one interface
# configured twice, or configured and preserved, is P007.  Then: a dry
# run changes nothing; a run installs ifupdown, writes
# /etc/network/interfaces.d/pt0, comments out the installer-style stanza
# for pt0 left in /etc/network/interfaces, and brings the address up; a
# second run changes nothing; a new address, shown by --diff in a dry run,
# replaces the old one (ifdown, ifup); a configuration ifup fails on is
# put back and the old address is up again; preserve_static writes what
# an interface has by hand; the revert takes the interface down and
# removes its file.  Every image and container is named prop-test-* and
# removed on exit.  Over SSH (to the container's sshd, on its eth0), the
# interface the connection goes through is written but not taken down.
# The probe: an address taken away behind prop's back is seen (a dry run
# says "would fail") and brought back (ifdown, ifup); and ssh.listen_port
# with the container's sshd running finds an sshd that did not read the
# file, and reloads it.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# ---- arguments and claims, checked before anything runs ------------------------
cat >"$TMP/bad.lua" <<'EOF'
host "a" {
  os.debian("bookworm", "amd64"),
  network.interface("eth0", { address = "192.0.2.300/24" }),
  network.interface("eth0", { address = "192.0.2.5" }),
  network.interface("eth0", { address = "192.0.2.5/24", gateway = "198.51.100.1" }),
  network.interface("eth0", { method = "dhcp", dns = { "192.0.2.53" } }),
  network.interface("eth0/x", { method = "dhcp" }),
  network.interface("eth0", { methd = "dhcp" }),
  network.interface("eth0", { address = "2001:db8::5/64", gateway = "192.0.2.1" }),
  network.interface("eth0", { method = "dhcp", options = { "auto eth1" } }),
  network.preserve_static "averyveryverylongname",
}
host "b" {
  os.debian("bookworm", "amd64"),
  network.interface("eth0", { method = "dhcp" }),
  network.interface("eth0", { address = "192.0.2.5/24" }),
  network.preserve_static "eth1",
  network.interface("eth1", { method = "dhcp" }),
}
host "c" {
  os.debian("bookworm", "amd64"),
  network.interface("eth0", { address = "2001:db8::5/64", gateway = "2001:db8::1", dns = { "2001:db8::53" } }),
  network.interface("eth1", { method = "dhcp", auto = false, options = { "mtu 1400" } }),
  revert(network.interface("eth2", { method = "dhcp" })),
  network.preserve_static "eth3",
}
host "bsd" { os.freebsd("14.1", "amd64"), network.interface("em0", { method = "dhcp" }) }
EOF
run_prop "$TMP/bad.out" lint "$TMP/bad.lua"
same "lint: exit" "$rc" 2
check "a bad address is P012 at its line" grep -q 'bad.lua:3: error\[P012\]: network.interface: address "192.0.2.300/24" is not an address with its prefix length' "$TMP/bad.out"
check "an address needs its prefix length" grep -q 'bad.lua:4: error\[P012\]: network.interface: address "192.0.2.5" is not an address with its prefix length' "$TMP/bad.out"
check "a gateway outside the network" grep -q 'bad.lua:5: error\[P012\]: network.interface: gateway "198.51.100.1" is outside 192.0.2.5/24' "$TMP/bad.out"
check "dns is for a static address" grep -q 'bad.lua:6: error\[P012\]: network.interface: dns is for a static address, not with method = "dhcp"' "$TMP/bad.out"
check "a bad interface name" grep -q 'bad.lua:7: error\[P012\]: network.interface: name "eth0/x" is not valid' "$TMP/bad.out"
check "a misspelt option, with a suggestion" grep -q 'bad.lua:8: error\[P012\]: unknown key "methd" for network.interface (did you mean "method"?)' "$TMP/bad.out"
check "a gateway of the other family" grep -q "bad.lua:9: error\[P012\]: network.interface: gateway \"192.0.2.1\" is not of the address's family" "$TMP/bad.out"
check "an option that is a stanza" grep -q 'bad.lua:10: error\[P012\]: network.interface: options\[1\] "auto eth1" starts a stanza of its own' "$TMP/bad.out"
check "a name too long" grep -q 'bad.lua:11: error\[P012\]: network.preserve_static: name "averyveryverylongname" is longer than 15 characters' "$TMP/bad.out"
check "one interface configured twice is P007" grep -q 'bad.lua:16: error\[P007\]: "/etc/network/interfaces.d/eth0" is given two different contents' "$TMP/bad.out"
check "configured and preserved is P007" grep -q 'bad.lua:18: error\[P007\]: "/etc/network/interfaces.d/eth1"' "$TMP/bad.out"
check "network on FreeBSD is a type error" grep -q 'bad.lua:27: error\[P002\].*DebianLike' "$TMP/bad.out"
check "host c is clean" bash -c "! grep -q 'bad.lua:2[0-6]:' '$TMP/bad.out'"
same "lint: twelve errors" "$(grep -c 'error\[P' "$TMP/bad.out")" 12
sed -n '20,26p' "$TMP/bad.lua" >"$TMP/c.lua"
run_prop "$TMP/show.out" show "$TMP/c.lua" c
check "show: the interface's file is claimed" grep -q 'claims file.content /etc/network/interfaces.d/eth0' "$TMP/show.out"
check "show: the source line" grep -q 'claims file.line /etc/network/interfaces "source /etc/network/interfaces.d/\*"' "$TMP/show.out"
check "show: ifupdown" grep -q 'claims package.installed ifupdown' "$TMP/show.out"
check "show: the revert removes the file" grep -q 'claims file.absent /etc/network/interfaces.d/eth2' "$TMP/show.out"
check "show: preserve_static's file is generated" grep -q 'claims file.generated /etc/network/interfaces.d/eth3' "$TMP/show.out"

# ---- Docker -------------------------------------------------------------------
docker_up
rootfs_cache
docker_test "prop-test-net-img-$$" "prop-test-net-$$"

write_site() { # PROPERTIES...
  local extra
  extra=""; if [[ $# -gt 0 ]]; then extra="$(printf "  %s,\n" "$@")"; fi
  cat >"$TMP/site.lua" <<EOF
local base = docker.image("$IMG", os.debian("$SUITE", "$ARCH"), { cache = "$ROOTFS_CACHE" })
local box = docker.container("$CTR", base, {
  docker.cap_add "NET_ADMIN",
  apt.installed { "iproute2", "openssh-server" },
$extra
})
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  docker.running(box),
}
EOF
}
# addrs IF : the IPv4 addresses of IF inside the container.
addrs() { docker exec "$CTR" ip -o -4 addr show dev "$1" 2>&1 | awk '{ print $4 }' | tr '\n' ' ' | sed 's/ $//'; }

# The container, with iproute2, before any network property.
docker image rm -f "$IMG" >/dev/null 2>&1 || true
write_site
PROP_RUN_TIMEOUT=900 prop_run "$TMP/r0.out" "$TMP/site.lua"
same "container made: exit" "$rc" 0
# A veth pair inside it; pt1 has an address set by hand, for
# preserve_static.  The installer-style stanza for pt0 is left in
# /etc/network/interfaces, as on a freshly installed machine.
inside sh -c 'ip link add pt0 type veth peer name pt1 && ip link set pt1 up &&
  ip addr add 198.51.100.7/24 dev pt1 && mkdir -p /etc/network &&
  printf "auto lo\niface lo inet loopback\n\nauto pt0\niface pt0 inet dhcp\n" >/etc/network/interfaces'
same "the veth pair is there" "$(addrs pt1)" "198.51.100.7/24"

# The container's eth0 has the default route already: pt0's gets a
# metric of its own, so that it is another route.
PT0_A='network.interface("pt0", { address = "192.0.2.5/24", gateway = "192.0.2.1", dns = { "192.0.2.53" }, options = { "metric 50" } })'
PT0_B='network.interface("pt0", { address = "192.0.2.6/24", gateway = "192.0.2.1", options = { "metric 50" } })'
PT0_BAD='network.interface("pt0", { address = "192.0.2.7/24", options = { "pre-up false" } })'
PRESERVE='network.preserve_static "pt1"'

# ---- dry run -------------------------------------------------------------------------
write_site "$PT0_A" "$PRESERVE"
prop_run "$TMP/d.out" "$TMP/site.lua" --dry-run
same "dry run: exit" "$rc" 0
same "dry run: two would change" "$(changed_inside "$TMP/d.out")" "2/0"
check "dry run: says it would take pt0 down and up" grep -q 'would take pt0 down and up' "$TMP/d.out"
check "dry run: no file" bash -c "! docker exec $CTR test -e /etc/network/interfaces.d/pt0"
check "dry run: ifupdown not installed" bash -c "! docker exec $CTR test -e /sbin/ifup"
same "dry run: pt0 has no address" "$(addrs pt0)" ""

# ---- first run -----------------------------------------------------------------------
prop_run "$TMP/r1.out" "$TMP/site.lua"
same "first run: exit" "$rc" 0
same "first run: two changed" "$(changed_inside "$TMP/r1.out")" "2/0"
check "first run: no W104" bash -c "! grep -q W104 '$TMP/r1.out'"
check "ifupdown is installed" inside dpkg-query -W ifupdown
same "the file" "$(inside cat /etc/network/interfaces.d/pt0)" "# pt0, managed by prop: edits here are overwritten
auto pt0
iface pt0 inet static
	address 192.0.2.5/24
	gateway 192.0.2.1
	dns-nameservers 192.0.2.53
	metric 50"
same "pt0 has the address" "$(addrs pt0)" "192.0.2.5/24"
same "the default route is the gateway's" "$(inside ip -4 route show default dev pt0 | awk '{ print $3 }')" "192.0.2.1"
same "/etc/network/interfaces sources interfaces.d, and pt0's old stanza is out" \
  "$(inside cat /etc/network/interfaces)" "source /etc/network/interfaces.d/*
auto lo
iface lo inet loopback

#prop: auto pt0
#prop: iface pt0 inet dhcp"
check "ifquery reads pt0 from the new file only" bash -c "docker exec $CTR ifquery pt0 | grep -qx 'address: 192.0.2.5'"
same "preserve_static: pt1 as it is" "$(inside grep -v '^#' /etc/network/interfaces.d/pt1)" "auto pt1
iface pt1 inet static
	address 198.51.100.7/24"
check "no check copy left" bash -c "! docker exec $CTR sh -c 'ls -a /etc/network' | grep -q prop-check"

# ---- second run ----------------------------------------------------------------------
prop_run "$TMP/r2.out" "$TMP/site.lua"
same "second run: exit" "$rc" 0
same "second run: nothing changes" "$(changed_inside "$TMP/r2.out")" "0/0"

# ---- the address taken away behind prop's back: the file is right, the probe sees it ------
inside ip addr del 192.0.2.5/24 dev pt0
prop_verify "$TMP/xv.out" "$TMP/site.lua"
same "address gone, prop verify: exit" "$rc" 2
check "address gone, prop verify: the interface failed" \
  grep -q '"desc":"network interface pt0[^"]*".*"result":"failed"' "$TMP/xv.out"
same "address gone, prop verify: nothing done" "$(addrs pt0)" ""
prop_run "$TMP/x0.out" "$TMP/site.lua" --dry-run
same "address gone, dry run: exit" "$rc" 1
check "address gone, dry run: would fail, with what it saw" \
  grep -q 'would fail: verify: pt0 has .*want 192.0.2.5/24 (ip -o addr)' "$TMP/x0.out"
same "address gone, dry run: still gone" "$(addrs pt0)" ""
prop_run "$TMP/x1.out" "$TMP/site.lua"
same "address gone: exit" "$rc" 0
same "address gone: repaired by ifdown, ifup" "$(changed_inside "$TMP/x1.out")" "1/0"
check "address gone: says so" grep -q 'pt0 taken down and up again' "$TMP/x1.out"
same "address gone: back, checked with ip" "$(addrs pt0)" "192.0.2.5/24"
same "address gone: the gateway's route back" "$(inside ip -4 route show default dev pt0 | awk '{ print $3 }')" "192.0.2.1"
prop_run "$TMP/x2.out" "$TMP/site.lua"
same "address gone, then a run: nothing changes" "$(changed_inside "$TMP/x2.out")/$rc" "0/0/0"

# ---- a new address: a dry run with --diff, then the run ---------------------------------
write_site "$PT0_B" "$PRESERVE"
prop_run "$TMP/d2.out" "$TMP/site.lua" --dry-run --diff
same "new address, dry run: one would change" "$(changed_inside "$TMP/d2.out")" "1/0"
check "new address, dry run: the diff" bash -c "grep -qF -- '-\taddress 192.0.2.5/24' '$TMP/d2.out' && grep -qF -- '+\taddress 192.0.2.6/24' '$TMP/d2.out'"
same "new address, dry run: the old address stays" "$(addrs pt0)" "192.0.2.5/24"
prop_run "$TMP/r3.out" "$TMP/site.lua"
same "new address: exit" "$rc" 0
same "new address: changed" "$(changed_inside "$TMP/r3.out")" "1/0"
check "new address: says so" grep -q 'pt0 taken down and up with its new configuration' "$TMP/r3.out"
same "new address: only the new one is up" "$(addrs pt0)" "192.0.2.6/24"

# ---- a configuration ifup fails on: the old one is put back and up ------------------------
cp /dev/null "$TMP/good"
inside cat /etc/network/interfaces.d/pt0 >"$TMP/good"
write_site "$PT0_BAD" "$PRESERVE"
prop_run "$TMP/f.out" "$TMP/site.lua"
same "ifup fails: exit" "$rc" 1
same "ifup fails: the property fails" "$(changed_inside "$TMP/f.out")" "0/1"
check "ifup fails: says what and that it was put back" grep -q 'ifup pt0 failed, so /etc/network/interfaces.d/pt0 was put back as it was' "$TMP/f.out"
same "ifup fails: the old file is in place" "$(inside cat /etc/network/interfaces.d/pt0)" "$(cat "$TMP/good")"
same "ifup fails: the old address is up again" "$(addrs pt0)" "192.0.2.6/24"

# ---- preserve_static keeps an existing file -----------------------------------------------
inside ip addr add 198.51.100.8/24 dev pt1
write_site "$PT0_B" "$PRESERVE"
prop_run "$TMP/p.out" "$TMP/site.lua"
same "preserve, file there: nothing changes" "$(changed_inside "$TMP/p.out")" "0/0"
check "preserve, file there: the file is the first one" bash -c "! docker exec $CTR grep -q 198.51.100.8 /etc/network/interfaces.d/pt1"
inside ip link del pt1 # its peer pt0 goes with it
write_site 'network.preserve_static "pt9"'
prop_run "$TMP/p2.out" "$TMP/site.lua"
same "preserve, no such interface: fails" "$(changed_inside "$TMP/p2.out")/$rc" "0/1/1"
check "preserve, no such interface: says so" grep -q 'there is no interface pt9' "$TMP/p2.out"
inside sh -c 'ip link add pt0 type veth peer name pt1 && ip link set pt1 up && { ifdown --force pt0; ifup pt0; }' >/dev/null 2>&1 || true
same "pt0 back up for the revert" "$(addrs pt0)" "192.0.2.6/24"

# ---- revert ----------------------------------------------------------------------------
write_site "revert($PT0_B)"
prop_run "$TMP/v1.out" "$TMP/site.lua"
same "revert: exit" "$rc" 0
same "revert: changed" "$(changed_inside "$TMP/v1.out")" "1/0"
check "revert: the file is gone" bash -c "! docker exec $CTR test -e /etc/network/interfaces.d/pt0"
same "revert: pt0 is down, without its address" "$(addrs pt0)" ""
prop_run "$TMP/v2.out" "$TMP/site.lua"
same "revert again: nothing to do" "$(changed_inside "$TMP/v2.out")" "0/0"

# ---- over SSH: the interface of prop's connection is not taken down -----------------------
if command -v ssh-keygen >/dev/null; then
  ssh-keygen -q -t ed25519 -N '' -f "$TMP/key"
  docker cp "$TMP/key.pub" "$CTR:/root/prop-test-key.pub" >/dev/null
  inside sh -c 'mkdir -p -m 700 /root/.ssh /run/sshd && cp /root/prop-test-key.pub /root/.ssh/authorized_keys &&
    chmod 600 /root/.ssh/authorized_keys && /usr/sbin/sshd'
  IP="$(docker inspect -f '{{.NetworkSettings.IPAddress}}' "$CTR")"
  LEN="$(docker inspect -f '{{.NetworkSettings.IPPrefixLen}}' "$CTR")"
  echo "$IP $(docker exec "$CTR" cat /etc/ssh/ssh_host_ed25519_key.pub | cut -d' ' -f1-2)" >"$TMP/known_hosts"
  cat >"$TMP/ssh.lua" <<EOF
host "box" {
  connect.ssh { address = "$IP", identity = "$TMP/key", known_hosts = "$TMP/known_hosts" },
  os.debian("$SUITE", "$ARCH"),
  network.interface("eth0", { address = "$IP/$LEN", options = { "mtu 1400" } }),
}
EOF
  prop_run "$TMP/s1.out" "$TMP/ssh.lua"
  same "ssh: exit" "$rc" 0
  same "ssh: the file is written" "$(host_count "$TMP/s1.out" box changed)" 1
  check "ssh: eth0 is not taken down, and why" grep -q "eth0 not taken down and up: eth0 carries prop's own SSH connection (over_ssh = true to do it anyway)" "$TMP/s1.out"
  check "ssh: the file" inside grep -qx "	address $IP/$LEN" /etc/network/interfaces.d/eth0
  same "ssh: eth0 keeps its address" "$(addrs eth0)" "$IP/$LEN"
  check "ssh: eth0's mtu is unchanged (not brought up with the new file)" bash -c "! docker exec $CTR ip link show dev eth0 | grep -q 'mtu 1400'"
  prop_run "$TMP/s2.out" "$TMP/ssh.lua"
  same "ssh: a second run changes nothing" "$(host_count "$TMP/s2.out" box changed)/$rc" "0/0"
else
  part_missing openssh-client "no ssh-keygen on this machine for the SSH checks"
fi

# ---- ssh.listen_port with the container's sshd running: its probe ------------------------
# sshd runs (started by hand, its pid in /run/sshd.pid, where the ssh
# init script looks).  The port is set and sshd reloaded; then sshd is
# made to listen on 22 again behind prop's back while the file says
# 2222: the file is right, the probe finds nothing on 2222, and the
# repair reloads sshd.
listens() { # PORT : something listens on PORT in the container
  docker exec "$CTR" cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
    awk -v p="$(printf '%04X' "$1")" '$4 == "0A" && $2 ~ (":" p "$") { f = 1 } END { exit !f }'
}
not_listening() { ! listens "$1"; }
inside sh -c 'mkdir -p /run/sshd && { [ -s /run/sshd.pid ] && kill -0 "$(cat /run/sshd.pid)"; } 2>/dev/null || /usr/sbin/sshd'
check "sshd runs in the container" inside service ssh status
write_site 'ssh.listen_port(2222)'
prop_run "$TMP/k1.out" "$TMP/site.lua"
same "listen_port: exit" "$rc" 0
check "listen_port: sshd listens on 2222" listens 2222
prop_run "$TMP/k2.out" "$TMP/site.lua"
same "listen_port, second run: nothing changes" "$(changed_inside "$TMP/k2.out")/$rc" "0/0/0"
inside sh -c 'sed -i "s/^Port 2222\$/Port 22/" /etc/ssh/sshd_config && service ssh reload >/dev/null &&
  for i in $(seq 50); do grep -q " 00000000:0016 .* 0A " /proc/net/tcp && break; sleep 0.1; done &&
  sed -i "s/^Port 22\$/Port 2222/" /etc/ssh/sshd_config'
check "behind prop's back: sshd listens on 22" listens 22
check "behind prop's back: not on 2222" not_listening 2222
prop_verify "$TMP/kv.out" "$TMP/site.lua"
same "stale sshd, prop verify: exit" "$rc" 2
check "stale sshd, prop verify: the setting failed" \
  grep -q '"desc":"[^"]*Port[^"]*".*"result":"failed"' "$TMP/kv.out"
prop_run "$TMP/k3.out" "$TMP/site.lua" --dry-run
same "stale sshd, dry run: exit" "$rc" 1
check "stale sshd, dry run: would fail, with what it saw" \
  grep -q 'would fail: verify: sshd runs but nothing listens on port 2222' "$TMP/k3.out"
prop_run "$TMP/k4.out" "$TMP/site.lua"
same "stale sshd: exit" "$rc" 0
# The setting, repaired by a reload, is changed: so is its reload hook.
same "stale sshd: repaired (reloaded), then the hook" "$(changed_inside "$TMP/k4.out")" "2/0"
check "stale sshd: listens on 2222 again" listens 2222

finish
