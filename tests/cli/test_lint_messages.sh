#!/usr/bin/env bash
# What prop lint says, word for word where the words matter: a site's
# fact defined wrongly (each mistake at its line, evaluation stops), a
# secret given to ssh.authorized_keys (what it takes, and why), IPv6
# gateways read as inet_pton reads them.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$TMP"

# lint_says NAME SITE_TEXT WANT_RC TEXT... : prop lint of the site exits
# WANT_RC and prints each TEXT.
lint_says() {
  local name="$1" site="$2" want="$3"
  shift 3
  printf '%s\n' "$site" >site.lua
  run_prop "$TMP/out" lint site.lua
  if [[ "$rc" != "$want" ]]; then
    fail "$name" "exit $rc, want $want" "$TMP/out"
    return
  fi
  expect_in "$name" "$TMP/out" "$@"
}

lint_says "fact: cmd a string" \
  $'host "h" { os.debian("bookworm", "amd64") }\nfact "v" { cmd = "nginx -v" }' 2 \
  'site.lua:2:' 'fact "v": cmd must be a list such as'
lint_says "fact: neither cmd nor file" \
  $'fact "v" { parse = function(o) return o end }' 2 \
  'site.lua:1:' 'fact "v": cmd = { "prog", "arg", ... } (a command run on the target) or file = "/path"'
lint_says "fact: a built-in name" $'\n\nfact "kernel" { cmd = { "uname", "-r" } }' 2 \
  'site.lua:3:' 'sys.facts.kernel is a built-in fact'
lint_says "fact: twice" $'fact "v" { cmd = { "a" } }\nfact "v" { file = "/etc/v" }' 2 \
  'site.lua:2:' 'fact "v" is defined twice (first at site.lua:1)'
lint_says "fact: a typo" $'fact "v" { cmd = { "a" }, prase = print }' 2 \
  'site.lua:1:' 'unknown key "prase" (did you mean "parse"?)'
lint_says "fact: defined well" \
  $'fact "v" { file = "/etc/debian_version", parse = function(t) return t end }\nhost "h" { os.debian("bookworm", "amd64") }' 0

lint_says "authorized_keys: a secret" \
  $'host "h" {\n  os.debian("bookworm", "amd64"),\n  ssh.authorized_keys("alice", secret "alice_key"),\n}' 2 \
  'site.lua:3: error[P012]' 'keys is a secret (<secret alice_key>), but authorized_keys takes public key lines' \
  'a public key is not secret'

lint_says "network: IPv6 gateways on-link" \
  $'host "h" {\n  os.debian("bookworm", "amd64"),\n  network.interface("sit0", { address = "2002:c000:201::1/16", gateway = "::192.88.99.1" }),\n  network.interface("eth0", { address = "2001:db8::5/64", gateway = "fe80::1" }),\n}' 0
lint_says "network: a gateway outside, and no address" \
  $'host "h" {\n  os.debian("bookworm", "amd64"),\n  network.interface("eth0", { address = "2001:db8::5/64", gateway = "2001:db9::1" }),\n  network.interface("eth1", { address = "192.0.2.5/24", gateway = "192.0.2.01" }),\n}' 2 \
  'site.lua:3: error[P012]: network.interface: gateway "2001:db9::1" is outside 2001:db8::5/64' \
  'site.lua:4: error[P012]: network.interface: gateway "192.0.2.01" is not an IP address'

finish
