#!/usr/bin/env bash
# file.fragments and file.fragment: one file built from the parts that
# several roles of a host give (a role function, a nested list, the host's
# own list), on a connect.dir tree under the scratch directory: the header
# first, then the fragments sorted by order, then name; a second run
# changes nothing; a fragment taken out of the site leaves the file at the
# next run; a fragment listed before its file.fragments makes the same
# file; reverted, file.fragments removes it; prop claims lists the
# fragments; a fragment beside fixed content, two contents of one file
# (with a note naming file.fragments) and a fragment nothing assembles
# are refused before anything runs.  firewall.allow of three roles in the ruleset firewall.nftables
# writes (loaded in a container by tests/containers/test_firewall.sh).
# Then on this machine (host "localhost", files under the scratch
# directory): a sudoers file whose fragments visudo -c -f %s checks
# before it replaces the file; a fragment visudo refuses leaves the file
# as it was, byte for byte, and fails with what visudo said.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

T="$TMP/tree"
mkdir -p "$T/etc"
write_site() { # $1 = the db role's fragment, $2 = the web role's second one
  cat >"$TMP/site.lua" <<EOF
local function web(h)
  return {
    file.fragment("/etc/hosts", "web", "10.0.0.2 web.internal web"),
    firewall.allow { port = 80 },
    firewall.allow { port = 22 },
    $2
  }
end
local db = {
  $1
  firewall.allow { port = 5432, from = { "192.0.2.0/24", "2001:db8::/32" } },
}
host "tree" {
  connect.dir "$T",
  os.debian("bookworm", "amd64"),
  file.fragment("/etc/hosts", "self", { "127.0.0.1 localhost", "::1 localhost" }, { order = 1 }),
  web,
  { file.fragments("/etc/hosts", { header = "# managed by prop", mode = "0644" }) },
  db,
  { file.fragment("/etc/hosts", "cache", "10.0.0.9 cache"), firewall.allow { port = 22 } },
  firewall.nftables { allow = { 443 } },
}
EOF
}
write_site 'file.fragment("/etc/hosts", "db", "10.0.0.3 db.internal db", { order = 20 }),' \
  'file.fragment("/etc/hosts", "app", "10.0.0.4 app", { order = 20 }),'
run_prop "$TMP/lint.out" lint "$TMP/site.lua"
same "three roles' fragments of one file: prop lint exits 0" "$rc" 0
check "... with no error, and no warning for port 22 allowed by two roles" \
  sh -c "! grep -Eq '(error|warning)\[' '$TMP/lint.out'"
prop_run "$TMP/r1.out" "$TMP/site.lua"
same "first run: exit 0" "$rc" 0
same "first run: the file and the ruleset written, no failure" \
  "$(changed_failed "$TMP/r1.out" tree)" "2/0"
same "the file: header, then by order, then name" "$(cat "$T/etc/hosts")" "# managed by prop
127.0.0.1 localhost
::1 localhost
10.0.0.4 app
10.0.0.3 db.internal db
10.0.0.9 cache
10.0.0.2 web.internal web"
same "its mode" "$(stat -c %a "$T/etc/hosts")" 644
check "the first fragment, listed before file.fragments, wrote the whole file" \
  grep -q '"desc":"file /etc/hosts has fragment self".*"result":"changed"' "$TMP/r1.out"
rules="$(grep -E 'dport' "$T/etc/nftables.conf" | sed 's/^[[:space:]]*//')"
same "the ruleset: firewall.nftables' own port, then each role's, port 22 once" "$rules" \
  "tcp dport 443 accept
tcp dport 80 accept
tcp dport 22 accept
ip saddr 192.0.2.0/24 tcp dport 5432 accept
ip6 saddr 2001:db8::/32 tcp dport 5432 accept"

run_prop "$TMP/claims.out" claims "$TMP/site.lua" /etc/hosts
same "prop claims /etc/hosts: file.fragments and each fragment" \
  "$(awk '{print $2, $3}' "$TMP/claims.out" | sort | tr '\n' ' ')" \
  "file.fragment /etc/hosts file.fragment /etc/hosts file.fragment /etc/hosts file.fragment /etc/hosts file.fragment /etc/hosts file.fragments /etc/hosts file.mode /etc/hosts "
cp -p "$T/etc/hosts" "$TMP/hosts.before"
prop_run "$TMP/r2.out" "$TMP/site.lua"
same "second run: nothing changed" "$(changed_failed "$TMP/r2.out" tree)" "0/0"
check "second run: the file is byte-identical" cmp -s "$T/etc/hosts" "$TMP/hosts.before"

# The db role loses its fragment, the web role its app fragment.
write_site '' ''
prop_run "$TMP/r3.out" "$TMP/site.lua"
same "fragments left out of the site: a change, no failure" \
  "$(changed_failed "$TMP/r3.out" tree)" "1/0"
same "... they left the file" "$(cat "$T/etc/hosts")" "# managed by prop
127.0.0.1 localhost
::1 localhost
10.0.0.9 cache
10.0.0.2 web.internal web"

# The file changed by hand: the next run makes it the assembled text again.
echo "10.9.9.9 intruder" >>"$T/etc/hosts"
prop_run "$TMP/r4.out" "$TMP/site.lua"
same "an edit by hand: put back" "$(changed_failed "$TMP/r4.out" tree)" "1/0"
check "... no intruder left" sh -c "! grep -q intruder '$T/etc/hosts'"

# Reverted, file.fragments removes the file (its fragments leave the site
# with it).
cat >"$TMP/revert.lua" <<EOF
host "tree" {
  connect.dir "$T",
  os.debian("bookworm", "amd64"),
  revert(file.fragments("/etc/hosts", { header = "# managed by prop" })),
}
EOF
prop_run "$TMP/rv.out" "$TMP/revert.lua"
same "revert: a change, no failure" "$(changed_failed "$TMP/rv.out" tree)" "1/0"
check "revert: the file is gone" test ! -e "$T/etc/hosts"
prop_run "$TMP/r5.out" "$TMP/site.lua"
same "assembled again" "$(changed_failed "$TMP/r5.out" tree)" "1/0"
check "... the file is back" grep -qx "10.0.0.9 cache" "$T/etc/hosts"

# A fragment and the fixed content of one file, and a fragment nothing
# assembles: prop run refuses the site (P007, P012) before it runs.
cat >"$TMP/bad.lua" <<EOF
host "tree" {
  connect.dir "$T",
  os.debian("bookworm", "amd64"),
  file.fragments("/etc/hosts"),
  file.fragment("/etc/hosts", "db", "10.0.0.3 db"),
  file.has_content("/etc/hosts", "127.0.0.1 localhost\n"),
  file.fragment("/etc/motd", "hello", "hello"),
  file.has_content("/etc/issue", "one\n"),
  file.has_content("/etc/issue", "two\n"),
}
EOF
cp -p "$T/etc/hosts" "$TMP/hosts.before"
prop_run "$TMP/bad.out" "$TMP/bad.lua"
same "a bad site: exit 2" "$rc" 2
check "... P007 at the fixed content" grep -q 'bad.lua:6: error\[P007\]' "$TMP/bad.out"
check "two contents of one file: P007 with a note naming file.fragments and file.fragment" \
  grep -qF 'bad.lua:9: note: to build "/etc/issue" from parts that several properties give, give the host one file.fragments("/etc/issue") and let each property add its part with file.fragment("/etc/issue", name, text)' "$TMP/bad.out"
check "... P012 at the fragment without file.fragments" \
  grep -qF 'bad.lua:7: error[P012]: "file /etc/motd has fragment hello" adds a fragment to "/etc/motd", but nothing on host "tree" assembles that file: add file.fragments("/etc/motd") to the host' "$TMP/bad.out"
check "... and a note saying how to give the content as a fragment" \
  grep -qF 'bad.lua:6: note: "/etc/hosts" is assembled from fragments: give that content as a file.fragment("/etc/hosts", name, text)' "$TMP/bad.out"
check "... nothing written" cmp -s "$T/etc/hosts" "$TMP/hosts.before"
check "... no motd" test ! -e "$T/etc/motd"

# sudoers on this machine, checked by visudo.
if ! command -v visudo >/dev/null; then
  part_missing sudo "visudo is not installed: the sudoers part (validate) is not run"
  finish
  exit
fi
L="$TMP/local"
mkdir -p "$L"
S="$L/sudoers-roles"
sudo_site() { # $1 = the deploy role's rule
  cat >"$TMP/sudo.lua" <<EOF
local function deploy(h)
  return { file.fragment("$S", "deploy", "$1") }
end
local monitoring = {
  file.fragment("$S", "monitoring", "nobody ALL=(root) NOPASSWD: /usr/bin/true", { order = 30 }),
}
host "localhost" {
  deploy,
  file.fragments("$S", { header = "# managed by prop", mode = "0440",
                          validate = { "visudo", "-c", "-f", "%s" } }),
  monitoring,
  file.fragment("$S", "defaults", "Defaults:nobody !requiretty", { order = 10 }),
}
EOF
}
sudo_site "nobody ALL=(root) NOPASSWD: /bin/systemctl restart app"
prop_run "$TMP/s1.out" "$TMP/sudo.lua"
same "sudoers: exit 0" "$rc" 0
same "sudoers: the file" "$(cat "$S")" "# managed by prop
Defaults:nobody !requiretty
nobody ALL=(root) NOPASSWD: /usr/bin/true
nobody ALL=(root) NOPASSWD: /bin/systemctl restart app"
same "sudoers: mode 0440" "$(stat -c %a "$S")" 440
check "sudoers: visudo accepts the file" sh -c "visudo -c -f '$S' >/dev/null"
check "sudoers: no check copy left" test ! -e "$S.prop-check"
check "sudoers: the fragment that ran first wrote the file, and the check copy it claims" \
  sh -c "grep -q '\"desc\":\"file $S has fragment deploy\".*\"result\":\"changed\"' '$TMP/s1.out' && ! grep -q W104 '$TMP/s1.out'"
prop_run "$TMP/s2.out" "$TMP/sudo.lua"
same "sudoers, second run: nothing changed" "$(changed_failed "$TMP/s2.out" localhost)" "0/0"

cp -p "$S" "$TMP/sudoers.before"
sudo_site "nobody ALL=(root NOPASSWD /bin/false"
prop_run "$TMP/s3.out" "$TMP/sudo.lua"
same "a rule visudo refuses: exit 1" "$rc" 1
check "... the file is byte-identical" cmp -s "$S" "$TMP/sudoers.before"
check "... visudo's refusal is said" \
  grep -q "visudo -c -f %s refuses the new content (exit 1), $S is left as it was" "$TMP/s3.out"
check "... no check copy left" test ! -e "$S.prop-check"
finish
