#!/usr/bin/env bash
# firewall.nftables and firewall.open_declared for real, never on this
# machine's firewall: every nft runs in a network namespace of its own
# (unshare -n).  The ruleset open_declared writes accepts exactly the
# ports the host's properties declare (a reverted property's revert
# ports, not its own), and follows them when they change; nft -c accepts
# it and nft -f loads it, twice, replacing only prop's table.  In a
# chroot (made from the cached bookworm tree), nft -c inside checks the
# ruleset before it is written: one nft refuses fails with nft's words
# and leaves the file as it was; the chroot's ruleset is not loaded, as
# it would be this machine's; revert empties prop's table.  Over SSH (a
# throwaway sshd in a mount and network namespace of the test's own, with
# a copy of /etc), the ruleset accepts the port prop is connected to: a
# dry run shows it and changes nothing, a run loads it, a table deleted
# by hand is loaded again, revert deletes it; the firewall.allow of three
# roles are loaded with it.  Lint: two properties on one port are P006,
# two firewalls on one host P007 (saying firewall.allow is how each role
# adds its ports), a firewall.allow without a firewall and bad arguments
# P012.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

if ! command -v unshare >/dev/null || ! unshare -n true 2>/dev/null; then
  skip "unshare -n (a network namespace of its own) is not available"
fi

# ---- lint ------------------------------------------------------------------------
cat >"$TMP/lint.lua" <<'EOF'
host "web" {
  os.debian("bookworm", "amd64"),
  nginx.installed(),
  apache.installed(),
}
host "fw" {
  os.debian("bookworm", "amd64"),
  firewall.open_declared(),
  firewall.nftables { allow = { 22 } },
}
host "bad" {
  os.debian("bookworm", "amd64"),
  firewall.nftables { allow = { 0 } },
  firewall.nftables { allow = { { port = 53, proto = "icmp" } } },
  firewall.nftables { allow = { { port = 22, from = "300.0.0.1" } } },
  firewall.nftables { polcy = "drop" },
  firewall.open_declared { declared = true },
  firewall.nftables { allow = 22 },
}
host "noowner" {
  os.debian("bookworm", "amd64"),
  firewall.allow { port = 22 },
}
EOF
run_prop "$TMP/lint.out" lint "$TMP/lint.lua"
same "lint: exit" "$rc" 2
check "two services on port 80 are P006" grep -q 'lint.lua:4: error\[P006\]: port 80 is used by both "apache installed" and "nginx installed"' "$TMP/lint.out"
check "two firewalls on one host are P007" grep -q 'lint.lua:9: error\[P007\]: "/etc/nftables.conf"' "$TMP/lint.out"
check "... saying firewall.allow adds each role's ports" grep -q 'lint.lua:9: error\[P007\]: "/etc/nftables.conf" is written by "firewall nftables allows 22" here and by "firewall allows the declared ports" at .*lint.lua:8: a host has one firewall; each role adds its ports to it with firewall.allow' "$TMP/lint.out"
check "firewall.allow without a firewall is P012" grep -q 'lint.lua:22: error\[P012\]: "firewall allows tcp 22" adds to the firewall.s ruleset "/etc/nftables.conf", but host "noowner" has no firewall to add it to' "$TMP/lint.out"
check "port 0 is P012" grep -q 'lint.lua:13: error\[P012\]: firewall.nftables: allow\[1\] 0 is outside 1..65535' "$TMP/lint.out"
check "an unknown protocol is P012" grep -q 'lint.lua:14: error\[P012\].*proto must be "tcp" or "udp", got "icmp"' "$TMP/lint.out"
check "a bad address is P012" grep -q 'lint.lua:15: error\[P012\].*from "300.0.0.1" is not an address or network' "$TMP/lint.out"
check "a misspelt option is P012 with a suggestion" grep -q 'lint.lua:16: error\[P012\]: unknown key "polcy" for firewall.nftables (did you mean "policy"?)' "$TMP/lint.out"
check "open_declared has no declared option" grep -q 'lint.lua:17: error\[P012\]: unknown key "declared" for firewall.open_declared' "$TMP/lint.out"
check "allow must be a list" grep -q 'lint.lua:18: error\[P012\]: firewall.nftables: allow must be a list of ports and rules' "$TMP/lint.out"
same "lint: nine errors" "$(grep -c 'error\[P' "$TMP/lint.out")" 9

# ---- open_declared on a tree: exactly the declared ports -------------------------------
T="$TMP/tree"
mkdir -p "$T/etc"
write_tree_site() { # EXTRA-PROPERTIES
  cat >"$TMP/tree.lua" <<EOF
local function listener(name, ports)
  return property { desc = name, ports = ports, check = function() return true end,
                    apply = function() end, revert = function() end }
end
host "fw" {
  connect.dir "$T",
  os.debian("$SUITE", "$ARCH"),
  listener("web", { 8080, 443 }),
  listener("dns", { 53 }),
  revert(revertable(listener("old", { 7000 }), listener("its revert", { 7001 }))),
  $1
  firewall.open_declared { allow = { { port = 5432, from = "192.0.2.0/24" } }, ping = false },
}
EOF
}
rules() { grep -E '^\s+(tcp|udp|ip|ip6) ' "$T/etc/nftables.conf" | sed 's/^\s*//'; }
write_tree_site ""
prop_run "$TMP/t1.out" "$TMP/tree.lua"
same "tree: exit" "$rc" 0
same "tree: the firewall changed" "$(result_of "$TMP/t1.out" "firewall allows")" changed
check "tree: says it is not checked nor loaded there" grep -q 'not checked with nft -c nor loaded: a directory tree runs no commands' "$TMP/t1.out"
same "tree: exactly the declared ports and the allowed one" "$(rules)" \
'ip saddr 192.0.2.0/24 tcp dport 5432 accept
tcp dport { 53, 443, 7001, 8080 } accept comment "declared by the host'"'"'s properties"
udp dport { 53, 443, 7001, 8080 } accept comment "declared by the host'"'"'s properties"'
check "tree: no SSH rule without SSH" bash -c "! grep -q SSH '$T/etc/nftables.conf'"
check "tree: the chain drops the rest" grep -q 'type filter hook input priority filter; policy drop;' "$T/etc/nftables.conf"
check "tree: ping = false keeps the ICMP errors only" grep -q 'icmp type { destination-unreachable, time-exceeded, parameter-problem } accept' "$T/etc/nftables.conf"
same "tree: the file is executable, as Debian's" "$(stat -c %a "$T/etc/nftables.conf")" 755
# nft of this machine, in a network namespace of its own.
if command -v nft >/dev/null; then
  check "tree: nft -c accepts it" unshare -n nft -c -f "$T/etc/nftables.conf"
  unshare -n sh -c "nft -f '$T/etc/nftables.conf' && nft -f '$T/etc/nftables.conf' && nft list ruleset" >"$TMP/loaded.txt" 2>&1 || true
  check "tree: it loads, twice (the table is replaced)" grep -q 'tcp dport { 53, 443, 7001, 8080 } accept' "$TMP/loaded.txt"
  same "tree: one table once loaded twice" "$(grep -c '^table' "$TMP/loaded.txt")" 1
  unshare -n sh -c "nft add table ip other && nft -f '$T/etc/nftables.conf' && nft list tables" >"$TMP/tables.txt" 2>&1 || true
  same "tree: another table is left alone" "$(sort "$TMP/tables.txt" | tr '\n' ' ')" "table inet prop table ip other "
else
  part_missing nftables "no nft on this machine to load the tree's ruleset with"
fi
prop_run "$TMP/t2.out" "$TMP/tree.lua"
same "tree: a second run changes nothing" "$(host_count "$TMP/t2.out" fw changed)" 0

write_tree_site 'listener("metrics", { 9100 }),'
prop_run "$TMP/t3.out" "$TMP/tree.lua"
same "tree: a new listener: changed" "$(result_of "$TMP/t3.out" "firewall allows")" changed
check "tree: its port is opened" grep -q 'tcp dport { 53, 443, 7001, 8080, 9100 } accept' "$T/etc/nftables.conf"
sed -i '/listener("dns"/d' "$TMP/tree.lua"
prop_run "$TMP/t4.out" "$TMP/tree.lua"
check "tree: a listener gone: its port is closed" grep -q 'tcp dport { 443, 7001, 8080, 9100 } accept' "$T/etc/nftables.conf"
if command -v nft >/dev/null; then
  check "tree: nft -c accepts it still" unshare -n nft -c -f "$T/etc/nftables.conf"
fi

# ---- a chroot: checked with nft -c inside, not loaded, reverted ----------------------------
rootfs_cache
C="$TMP/trees/fw"
write_chroot_site() { # PROPERTIES
  cat >"$TMP/chroot.lua" <<EOF
local fw = chroot.debootstrapped("$C", os.debian("$SUITE", "$ARCH"), {
  apt.installed { "nftables" },
  $1
}, { cache = "$ROOTFS_CACHE" })
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  chroot.provisioned(fw),
}
EOF
}
# prop run in a network namespace of its own: the nft commands it runs
# inside the chroot see that namespace's (empty) firewall, not this
# machine's.  (nftables is installed first, with the network.)
netns_run() { # OUT SITE [ARGS...]
  local out="$1" site="$2"
  shift 2
  OUT="$out"
  rc=0
  timeout 300 unshare -n "$PROP" run "$site" --json "$@" >"$out" 2>&1 || rc=$?
}
write_chroot_site ""
PROP_RUN_TIMEOUT=900 prop_run "$TMP/c0.out" "$TMP/chroot.lua"
same "chroot: made, nftables installed" "$rc" 0
check "chroot: nft is in the tree" test -x "$C/usr/sbin/nft"

write_chroot_site 'firewall.nftables { allow = { 22, { port = 53, proto = "udp" } }, policy = "reject" },'
netns_run "$TMP/c1.out" "$TMP/chroot.lua"
same "chroot: exit" "$rc" 0
same "chroot: the firewall changed" "$(host_count "$TMP/c1.out" localhost/fw changed)" 1
check "chroot: not loaded, and why" grep -q "not loaded, a chroot shares this machine's network" "$TMP/c1.out"
check "chroot: the rules" bash -c "grep -q '^		tcp dport 22 accept$' '$C/etc/nftables.conf' && grep -q '^		udp dport 53 accept$' '$C/etc/nftables.conf'"
check "chroot: reject at the end" grep -q 'reject with icmpx type admin-prohibited' "$C/etc/nftables.conf"
check "chroot: nft -c of the tree accepts it" unshare -n chroot "$C" nft -c -f /etc/nftables.conf
netns_run "$TMP/c2.out" "$TMP/chroot.lua"
same "chroot: a second run changes nothing" "$(host_count "$TMP/c2.out" localhost/fw changed)" 0

cp "$C/etc/nftables.conf" "$TMP/good.conf"
write_chroot_site 'firewall.nftables { allow = { 22, { port = 5432, from = "2001:db8:1:2:3:4:5:6:7" } } },'
netns_run "$TMP/c3.out" "$TMP/chroot.lua"
same "refused: exit" "$rc" 1
same "refused: the firewall failed" "$(host_count "$TMP/c3.out" localhost/fw failed)" 1
check "refused: nft -c is named" grep -q 'nft -c refused the ruleset, so /etc/nftables.conf was left as it was' "$TMP/c3.out"
check "refused: with nft's own words" grep -q 'syntax error' "$TMP/c3.out"
check "refused: the file is the previous one" cmp -s "$TMP/good.conf" "$C/etc/nftables.conf"

write_chroot_site 'revert(firewall.nftables { allow = { 22, { port = 53, proto = "udp" } }, policy = "reject" }),'
netns_run "$TMP/c4.out" "$TMP/chroot.lua"
same "revert: exit" "$rc" 0
same "revert: changed" "$(host_count "$TMP/c4.out" localhost/fw changed)" 1
check "revert: the file only deletes prop's table" bash -c "grep -q '^delete table inet prop$' '$C/etc/nftables.conf' && ! grep -q dport '$C/etc/nftables.conf'"
check "revert: nft -c accepts it" unshare -n chroot "$C" nft -c -f /etc/nftables.conf
netns_run "$TMP/c5.out" "$TMP/chroot.lua"
same "revert: again, nothing to do" "$(host_count "$TMP/c5.out" localhost/fw changed)" 0

# ---- over SSH, loaded for real: in a mount and network namespace of its own ----
# sshd runs inside a namespace whose /etc is a copy (prop writes
# /etc/nftables.conf there) and whose firewall is empty; systemd, if any,
# is out of reach.  nftables must be installed on this machine already:
# prop would install it, and this machine's packages are not the test's.
if [[ -x /usr/sbin/sshd ]] && command -v ip >/dev/null && command -v nft >/dev/null; then
  sum_before="$(md5sum /etc/nftables.conf 2>/dev/null || echo none)"
  D="$TMP/ns"
  mkdir -m 700 "$D"
  cat >"$D/inner.sh" <<'INNER'
set -eu
mount --make-rprivate /
cp -a /etc "$D/etc"
mount --bind "$D/etc" /etc
if [ -d /run/systemd ]; then mount -t tmpfs tmpfs /run/systemd; fi
ip link set lo up
source "$PROP_SOURCE_DIR/tests/ssh/common.sh"
ssh_start fw >/dev/null
echo "$SSH_PORT" >"$D/ssh.port"
site() {
  cat >"$D/ssh.lua" <<LUA
host "box" {
  connect.ssh { address = "$SSH_HOST", port = $SSH_PORT, identity = "$SSH_KEY",
                known_hosts = "$SSH_KNOWN_HOSTS" },
  os.debian("bookworm", "amd64"),
  property { desc = "web", ports = { 8443 }, check = function() return true end, apply = function() end },
  $1
}
LUA
}
run() { # NAME [verify] [ARGS...]: the output, exit code, live ruleset and file after it
  local n="$1" rc=0 cmd=run
  shift
  if [ "${1:-}" = verify ]; then cmd=verify; shift; fi
  timeout 300 "$PROP" "$cmd" "$D/ssh.lua" "$@" >"$D/$n.out" 2>&1 || rc=$?
  echo "$rc" >"$D/$n.rc"
  nft list ruleset >"$D/$n.rules" 2>&1 || true
  cp /etc/nftables.conf "$D/$n.conf" 2>/dev/null || true
}
cp /etc/nftables.conf "$D/before.conf" 2>/dev/null || true
site "firewall.open_declared(),"
run dry --dry-run --diff
run first
run second
nft delete table inet prop
run unloaded
# A rule deleted behind prop's back: the file is right, the table loaded,
# only the probe sees the port is not accepted.
h="$(nft -a list chain inet prop input | sed -n 's/.*tcp dport 8443 accept.*# handle \([0-9][0-9]*\)$/\1/p')"
nft delete rule inet prop input handle "$h"
run broken_dry --dry-run
run broken_verify verify
run broken
run repaired
run repaired_verify verify
site "revert(firewall.open_declared()),"
run revert
run again
# Three roles each add a port with firewall.allow (a role function, a
# nested list, the host's own list; port 8080 twice).
cat >"$D/ssh.lua" <<LUA
local function web(h) return { firewall.allow { port = 8080 } } end
local db = { firewall.allow { port = 5432, from = "192.0.2.0/24" } }
host "box" {
  connect.ssh { address = "$SSH_HOST", port = $SSH_PORT, identity = "$SSH_KEY",
                known_hosts = "$SSH_KNOWN_HOSTS" },
  os.debian("bookworm", "amd64"),
  web,
  db,
  { firewall.allow { port = 53, proto = "udp" }, firewall.allow { port = 8080 } },
  firewall.open_declared(),
}
LUA
run roles
run roles_again
run roles_verify verify
INNER
  D="$D" PROP="$PROP" PROP_SOURCE_DIR="$PROP_SOURCE_DIR" timeout 600 unshare -m -n bash "$D/inner.sh" \
    >"$D/inner.log" 2>&1 || true
  port="$(cat "$D/ssh.port" 2>/dev/null || echo none)"
  res() { cat "$D/$1.rc" 2>/dev/null || echo none; }
  OUT="$D/inner.log"
  same "ssh dry run: exit" "$(res dry)" 0
  OUT="$D/dry.out"
  # The diff shows a tab as \t.
  check "ssh dry run: the ruleset accepts prop's SSH port" grep -qF "+\\t\\ttcp dport $port accept comment \"SSH: prop's connection\"" "$D/dry.out"
  check "ssh dry run: and the declared port" grep -qF '+\t\ttcp dport 8443 accept comment' "$D/dry.out"
  check "ssh dry run: nothing loaded" bash -c "! grep -q 'table inet prop' '$D/dry.rules'"
  check "ssh dry run: the file is unchanged" cmp -s "$D/before.conf" "$D/dry.conf"
  OUT="$D/first.out"
  same "ssh: exit" "$(res first)" 0
  check "ssh: changed, and loaded" grep -q 'the ruleset was loaded (nft -f /etc/nftables.conf)' "$D/first.out"
  check "ssh: the note names prop's port" grep -q "port $port (prop's SSH connection) is accepted" "$D/first.out"
  same "ssh: the live ruleset's rules" "$(grep -E 'dport|policy' "$D/first.rules" | sed 's/^\s*//')" \
"type filter hook input priority filter; policy drop;
tcp dport $port accept comment \"SSH: prop's connection\"
tcp dport 8443 accept comment \"declared by the host's properties\"
udp dport 8443 accept comment \"declared by the host's properties\""
  check "ssh: the file holds them" grep -q "tcp dport $port accept" "$D/first.conf"
  OUT="$D/second.out"
  check "ssh: a second run changes nothing" grep -q '^box: 2 ok, 0 changed, 0 failed' "$D/second.out"
  OUT="$D/unloaded.out"
  check "ssh: a table deleted by hand is loaded again" grep -q 'firewall allows the declared ports ... changed' "$D/unloaded.out"
  check "ssh: it is back" grep -q 'table inet prop' "$D/unloaded.rules"
  OUT="$D/broken_dry.out"
  same "ssh: a rule deleted by hand: a dry run exits 1" "$(res broken_dry)" 1
  check "ssh: a rule deleted by hand: would fail, with what the probe saw" bash -c "grep -q 'firewall allows the declared ports ... failed' '$D/broken_dry.out' && grep -q 'failed: would fail: verify: the loaded table inet prop does not accept tcp 8443$' '$D/broken_dry.out'"
  check "ssh: the dry run loads nothing" bash -c "! grep -q 'tcp dport 8443' '$D/broken_dry.rules'"
  OUT="$D/broken_verify.out"
  same "ssh: a rule deleted by hand: prop verify exits 2" "$(res broken_verify)" 2
  check "ssh: prop verify names the firewall, with what the probe saw" bash -c "grep -q 'firewall allows the declared ports' '$D/broken_verify.out' && grep -q 'the loaded table inet prop does not accept tcp 8443' '$D/broken_verify.out'"
  check "ssh: prop verify loads nothing" bash -c "! grep -q 'tcp dport 8443' '$D/broken_verify.rules'"
  OUT="$D/broken.out"
  same "ssh: a rule deleted by hand: the run exits 0" "$(res broken)" 0
  check "ssh: the ruleset loaded again (changed)" grep -q 'firewall allows the declared ports ... changed' "$D/broken.out"
  check "ssh: the rule is back" grep -q 'tcp dport 8443 accept' "$D/broken.rules"
  OUT="$D/repaired.out"
  check "ssh: repaired: the next run changes nothing" grep -q '^box: 2 ok, 0 changed, 0 failed' "$D/repaired.out"
  OUT="$D/repaired_verify.out"
  same "ssh: repaired: prop verify exits 0" "$(res repaired_verify)" 0
  OUT="$D/revert.out"
  same "ssh: revert: exit" "$(res revert)" 0
  check "ssh: revert removes the table" bash -c "! grep -q 'table inet prop' '$D/revert.rules'"
  check "ssh: revert leaves a file that only deletes it" grep -q '^delete table inet prop$' "$D/revert.conf"
  OUT="$D/again.out"
  check "ssh: revert again: nothing to do" grep -q '^box: 2 ok, 0 changed, 0 failed' "$D/again.out"
  OUT="$D/roles.out"
  same "ssh: three roles' firewall.allow: exit" "$(res roles)" 0
  same "ssh: the live ruleset accepts each role's port, 8080 once" \
    "$(grep -E 'dport (8080|5432|53) ' "$D/roles.rules" | sed 's/^\s*//')" \
"tcp dport 8080 accept
ip saddr 192.0.2.0/24 tcp dport 5432 accept
udp dport 53 accept"
  check "ssh: and prop's SSH port" grep -q "tcp dport $port accept" "$D/roles.rules"
  OUT="$D/roles_again.out"
  check "ssh: three roles: a second run changes nothing" grep -q '^box: 5 ok, 0 changed, 0 failed' "$D/roles_again.out"
  OUT="$D/roles_verify.out"
  same "ssh: three roles: prop verify exits 0" "$(res roles_verify)" 0
  OUT=""
  same "ssh: this machine's /etc/nftables.conf is untouched" "$(md5sum /etc/nftables.conf 2>/dev/null || echo none)" "$sum_before"
  check "ssh: this machine's firewall has no prop table" bash -c "! nft list table inet prop >/dev/null 2>&1"
else
  part_missing "openssh-server, iproute2 and nftables" "no sshd, ip or nft on this machine for the SSH checks"
fi

finish
