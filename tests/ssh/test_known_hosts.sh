#!/usr/bin/env bash
# ssh.known_hosts from the site: the test sshd's host declares its public
# host key (ssh.host_key); a client tree gets a known_hosts listing it under
# its name, address and port; ssh-keygen -F finds it there, and a real ssh
# connection with StrictHostKeyChecking=yes trusts the server through it
# alone (no trust on first use).  A changed key in the site: the file
# changes, and the same ssh then refuses the server.
set -euo pipefail
# shellcheck source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_prop
scratch_dir prop-kh
# shellcheck source=tests/ssh/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ssh_start target
C="$TMP/client"
mkdir -p "$C/etc" "$C/root"
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$C/etc/passwd"
printf 'root:x:0:\n' >"$C/etc/group"

write_site() { # PUBLIC-KEY
  cat >"$TMP/site.lua" <<EOF
host "target.example.com" {
  connect.ssh { address = "$SSH_HOST", port = $SSH_PORT },
  alias "db.example.com",
  ssh.host_key("ed25519", "$1"),
}
host "client" { connect.dir "$C", ssh.known_hosts "root" }
EOF
}
run() {
  rc=0
  timeout 120 "$PROP" run "$TMP/site.lua" client >"$TMP/out" 2>&1 || rc=$?
}

write_site "$(cat "$SSH_HOSTKEY_PUB")"
run
kh="$C/root/.ssh/known_hosts"
if [[ $rc == 0 && -f "$kh" ]]; then pass; else fail "known_hosts written" "exit $rc" "$TMP/out"; fi
if [[ "$(stat -c %a "$C/root/.ssh")" == 700 ]]; then pass; else fail ".ssh is 0700" "$(stat -c %a "$C/root/.ssh")"; fi
if ssh-keygen -F "[$SSH_HOST]:$SSH_PORT" -f "$kh" >"$TMP/f" 2>&1 && [[ -s "$TMP/f" ]]; then
  pass
else
  fail "ssh-keygen -F [$SSH_HOST]:$SSH_PORT" "not found" "$kh"
fi
if ssh-keygen -F "[db.example.com]:$SSH_PORT" -f "$kh" >/dev/null 2>&1; then
  pass
else
  fail "ssh-keygen -F of the alias" "not found" "$kh"
fi
ssh_try() {
  ssh -n -o BatchMode=yes -o StrictHostKeyChecking=yes -o UserKnownHostsFile="$kh" \
    -o GlobalKnownHostsFile=/dev/null -o ConnectTimeout=20 -i "$SSH_KEY" -p "$SSH_PORT" \
    "root@$SSH_HOST" echo trusted >"$TMP/ssh.out" 2>&1
}
if ssh_try && grep -qx trusted "$TMP/ssh.out"; then
  pass
else
  fail "ssh trusts the server through the file alone" "ssh failed" "$TMP/ssh.out"
fi

run
if [[ $rc == 0 ]] && grep -q '0 changed' "$TMP/out"; then pass; else fail "second run: no change" "exit $rc" "$TMP/out"; fi

# Another key in the site: the file follows, and ssh now refuses the server.
ssh-keygen -q -t ed25519 -N '' -f "$TMP/other" </dev/null
write_site "$(cat "$TMP/other.pub")"
run
if [[ $rc == 0 ]] && grep -q '1 changed' "$TMP/out"; then pass; else fail "new key: changed" "exit $rc" "$TMP/out"; fi
if ! ssh_try && grep -qi 'host key' "$TMP/ssh.out"; then
  pass
else
  fail "new key: ssh refuses the server" "ssh did not refuse" "$TMP/ssh.out"
fi

finish
