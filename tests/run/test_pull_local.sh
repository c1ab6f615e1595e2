#!/usr/bin/env bash
# prop pull runs the host on this machine, whatever its connect.ssh info
# says (that is how a push from elsewhere reaches it): a signed site whose
# host is declared with an SSH address nobody answers at writes its file
# here, under the scratch directory, and records it; prop status reads
# the record back through the local transport.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

skip_without git gpg gpgconf python3
on_exit 'gpg_agents_stop "$TMP/gpg"'

mkdir -m 700 "$TMP/gpg"
GNUPGHOME="$TMP/gpg" gpg --batch --quiet --passphrase '' \
  --quick-gen-key "ops <ops@example.org>" ed25519 sign never 2>/dev/null
FPR="$(GNUPGHOME="$TMP/gpg" gpg --list-keys --with-colons 2>/dev/null | awk -F: '/^fpr/ { print $10; exit }')"
GNUPGHOME="$TMP/gpg" gpg --export --armor "$FPR" >"$TMP/ops.asc"

git init --quiet --bare "$TMP/origin.git"
git --git-dir="$TMP/origin.git" symbolic-ref HEAD refs/heads/main
git init --quiet -b main "$TMP/work"
git -C "$TMP/work" config user.email ops@example.org
git -C "$TMP/work" config user.name ops
# 192.0.2.1 is TEST-NET-1: no machine answers there.
cat >"$TMP/work/site.lua" <<EOF
host "web1.example.org" {
  connect.ssh { address = "192.0.2.1", user = "root" },
  file.has_content("$TMP/pulled", "here\n"),
}
EOF
git -C "$TMP/work" add -A
GNUPGHOME="$TMP/gpg" git -C "$TMP/work" commit --quiet -S"$FPR" -m site
git -C "$TMP/work" push --quiet "$TMP/origin.git" HEAD:main

STATE="$TMP/state"
run_prop "$TMP/p1" pull "$TMP/origin.git" --keyring "$TMP/ops.asc" --state-dir "$STATE" \
  --host web1.example.org
same "pulled: exit" "$rc" 0
same "the file is written here" "$(cat "$TMP/pulled" 2>/dev/null)" "here"
check "not reached over SSH" bash -c "! grep -q unreachable '$TMP/p1'"
check "the record names the host" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["host"] == "web1.example.org" and r["result"] == "changed" and r["changed"] == 1, r
' "$STATE/last-run.json"
check "the record is 0644" test "$(mode_of "$STATE/last-run.json")" = 0644

# prop status of this machine, declared the same way in a site of its own
# but for its connection (the admin's copy reaches it locally here).
cat >"$TMP/fleet.lua" <<EOF
host "web1.example.org" { connect.localhost(), file.has_content("$TMP/pulled", "here\n") }
EOF
run_prop "$TMP/s1" status "$TMP/fleet.lua" --state-dir "$STATE" --json
same "status: exit" "$rc" 0
check "status: the record" python3 -c '
import json, sys
v = json.load(open(sys.argv[1]))
assert v[0]["host"] == "web1.example.org" and v[0]["last_run"]["signer"] == sys.argv[2], v
' "$TMP/s1" "$FPR"

finish
