#!/usr/bin/env bash
# test_sshd_harness.sh - tests/ssh/common.sh itself: an sshd starts on
# loopback, the OpenSSH client gets in with the generated key and
# known_hosts (strict host key checking), and the port is closed after
# ssh_stop.
set -u
# shellcheck source=tests/ssh/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

failed=0
fail() {
  failed=$((failed + 1))
  echo "FAIL: $*"
}

ssh_opts=(-o BatchMode=yes -o StrictHostKeyChecking=yes -o IdentitiesOnly=yes
  -o GlobalKnownHostsFile=/dev/null -o ConnectTimeout=5)

ssh_start harness || { echo "FAIL: ssh_start"; exit 1; }
for v in SSH_PORT SSH_KEY SSH_KNOWN_HOSTS SSH_HOSTKEY_PUB SSH_LOCK_FILE; do
  [[ -n "${!v:-}" ]] || fail "$v is not set"
done
[[ -f "$SSH_KEY" && -f "$SSH_HOSTKEY_PUB" ]] || fail "key files missing"
grep -q "^\[127\.0\.0\.1\]:$SSH_PORT ssh-ed25519 " "$SSH_KNOWN_HOSTS" ||
  fail "known_hosts does not name [127.0.0.1]:$SSH_PORT"

out="$(ssh -i "$SSH_KEY" -o UserKnownHostsFile="$SSH_KNOWN_HOSTS" "${ssh_opts[@]}" \
  -p "$SSH_PORT" root@127.0.0.1 'true && echo "in:$PROP_LOCK_FILE"' 2>&1)" ||
  fail "ssh root@127.0.0.1 true: $out"
[[ "$out" == "in:$SSH_LOCK_FILE" ]] || fail "session environment: got '$out'"

# The wrong host key is refused: the known_hosts file is really used.
other="$SSH_DIR/other_known_hosts"
ssh-keygen -q -t ed25519 -N '' -f "$SSH_DIR/otherkey" </dev/null
echo "[127.0.0.1]:$SSH_PORT $(cat "$SSH_DIR/otherkey.pub")" >"$other"
if ssh -i "$SSH_KEY" -o UserKnownHostsFile="$other" "${ssh_opts[@]}" -p "$SSH_PORT" \
  root@127.0.0.1 true 2>/dev/null; then
  fail "a wrong host key was accepted"
fi

# A second server at the same time, then back to the first.
port1="$SSH_PORT"
ssh_start second || fail "second ssh_start"
[[ "$SSH_PORT" != "$port1" ]] || fail "both servers on port $port1"
port2="$SSH_PORT"
ssh_use harness
[[ "$SSH_PORT" == "$port1" ]] || fail "ssh_use harness: port $SSH_PORT"

ssh_stop harness
if (exec 3<>"/dev/tcp/127.0.0.1/$port1") 2>/dev/null; then
  fail "port $port1 still open after ssh_stop"
fi
(exec 3<>"/dev/tcp/127.0.0.1/$port2") 2>/dev/null || fail "ssh_stop harness stopped second too"
ssh_stop
if (exec 3<>"/dev/tcp/127.0.0.1/$port2") 2>/dev/null; then
  fail "port $port2 still open after ssh_stop"
fi

if [[ $failed -eq 0 ]]; then
  echo "sshd harness: ok"
fi
[[ $failed -eq 0 ]]
