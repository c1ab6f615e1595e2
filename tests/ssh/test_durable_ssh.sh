#!/usr/bin/env bash
# test_durable_ssh.sh - durable triggers over SSH: a trigger target that
# fails is recorded on the target (written through the SSH transport, in
# PROP_STATE_DIR, this test's scratch directory on the sshd side), the
# next run runs it although its trigger is then ok, and the record is
# removed once it succeeds; a third run runs nothing.  The target's
# commands run through sshd and touch only the test's scratch directory.
set -u
# shellcheck source=tests/run/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../run/common.sh"
# shellcheck source=tests/ssh/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ssh_start durable || { echo "FAIL: ssh_start durable"; exit 1; }
R="$TMP/remote"
mkdir -p "$R"
chmod 755 "$R"
PENDING="$PROP_STATE_DIR/pending"

cat >"$TMP/site.lua" <<LUA
local restart = cmd.run { "sh", "-c", "test -e $R/ready && echo ran >> $R/count" }
host "target" {
  connect.ssh { address = "127.0.0.1", port = $SSH_PORT, user = "root",
                identity = "$SSH_KEY", known_hosts = "$SSH_KNOWN_HOSTS" },
  file.has_content("$R/app.conf", { "v1" }):on_change(restart),
}
LUA

run_prop "$TMP/out1" run "$TMP/site.lua" --json
same "first: exit (the target fails)" "$rc" 1
same "first: the file was written" "$(cat "$R/app.conf")" v1
check "first: the target is recorded on the target" grep -q "$(printf '^target\trun sh -c')" "$PENDING"
same "first: the target did not count" "$(lines "$R/count")" 0

touch "$R/ready"
run_prop "$TMP/out2" run "$TMP/site.lua" --json
same "second: exit" "$rc" 0
same "second: the owed target ran" "$(lines "$R/count")" 1
check "second: a pending event" grep -q '"event":"pending",.*"host":"target"' "$TMP/out2"
check "second: the record is removed" test ! -e "$PENDING"

run_prop "$TMP/out3" run "$TMP/site.lua" --json
same "third: exit" "$rc" 0
same "third: nothing ran" "$(lines "$R/count")" 1
check "third: nothing pending" bash -c "! grep -q '\"event\":\"pending\"' '$TMP/out3'"

finish
