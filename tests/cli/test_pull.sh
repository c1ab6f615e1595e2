#!/usr/bin/env bash
# prop pull and prop status with real git and real gpg: a bare repository
# in scratch, commits signed by a key made for the test in its own
# GNUPGHOME, and a site whose host is a directory tree in scratch, so the
# run changes nothing outside it.  Checks that a signed commit is applied,
# that an unsigned one, one signed by a key the host does not trust and one
# the pre-pass rejects change nothing, that a newer signed commit is
# applied on the next pull, that last-run.json records it, and that prop
# status reads it back.
source "$(dirname "$0")/common.sh"

skip_without git gpg gpgconf python3

on_exit 'gpg_agents_stop "$TMP/signer" "$TMP/stranger"'

ROOT="$TMP/root"        # the host's tree
STATE="$ROOT/var/lib/prop"
ORIGIN="$TMP/origin.git"
WORK="$TMP/work"
mkdir -p "$ROOT/etc"

# Two keys, each in its own GNUPGHOME: the host trusts only the first.
newkey() {
  mkdir -m 700 "$TMP/$1"
  GNUPGHOME="$TMP/$1" gpg --batch --quiet --passphrase '' \
    --quick-gen-key "$1 <$1@example.org>" ed25519 sign never 2>/dev/null
  GNUPGHOME="$TMP/$1" gpg --list-keys --with-colons 2>/dev/null | awk -F: '/^fpr/ { print $10; exit }'
}
SIGNER="$(newkey signer)"
STRANGER="$(newkey stranger)"
GNUPGHOME="$TMP/signer" gpg --export --armor "$SIGNER" >"$TMP/trusted.asc"
if [[ -z "$SIGNER" || -z "$STRANGER" || ! -s "$TMP/trusted.asc" ]]; then
  echo "FAIL: setup: gpg could not make the test keys"
  exit 1
fi

git init --quiet --bare "$ORIGIN"
git --git-dir="$ORIGIN" symbolic-ref HEAD refs/heads/main
git init --quiet -b main "$WORK"
git -C "$WORK" config user.email ops@example.org
git -C "$WORK" config user.name ops
git -C "$WORK" config commit.gpgsign false

# commit KEY|none MESSAGE: commit the work tree (signed by KEY's GNUPGHOME
# unless none) and push it to main; prints the commit.
commit() {
  local key="$1" msg="$2"
  git -C "$WORK" add -A
  if [[ "$key" == none ]]; then
    git -C "$WORK" commit --quiet -m "$msg"
  else
    local fpr
    fpr="$( [[ "$key" == signer ]] && echo "$SIGNER" || echo "$STRANGER")"
    GNUPGHOME="$TMP/$key" git -C "$WORK" commit --quiet -S"$fpr" -m "$msg"
  fi
  git -C "$WORK" push --quiet "$ORIGIN" HEAD:main
  git -C "$WORK" rev-parse HEAD
}

site() { # site MOTD [EXTRA-LUA]
  cat >"$WORK/site.lua" <<EOF
host "box" {
  connect.dir "$ROOT",
  file.has_content("/etc/motd", "$1\n"),
  ${2:-}
}
host "other" { connect.dir "$TMP/other", file.has_content("/x", "y\n") }
EOF
}

pull() { # pull OUT ARGS...: prop pull of the origin for box
  local out="$1"
  shift
  run_prop "$out" pull "$ORIGIN" --keyring "$TMP/trusted.asc" --state-dir "$STATE" "$@"
}

last_commit() {
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["commit"])' \
    "$STATE/last-run.json" 2>/dev/null
}

# Nothing was changed: the tree, the record and the checked-out trees are
# as they were.
unchanged() { # unchanged NAME MOTD COMMIT OUT
  if [[ "$(cat "$ROOT/etc/motd")" == "$2" && "$(last_commit)" == "$3" ]] &&
    [[ "$(ls "$STATE"/pull/*/trees)" == "$3" ]]; then
    pass
  else
    fail "$1" "something changed (motd: $(cat "$ROOT/etc/motd"), last commit: $(last_commit))" "$4"
  fi
}

cd "$TMP"

# 1. A signed commit is fetched, checked and applied.
site one
C1="$(commit signer one)"
pull "$TMP/p1" --host box
if [[ $rc == 0 && "$(cat "$ROOT/etc/motd" 2>/dev/null)" == one ]] &&
  grep -q "commit ${C1:0:12}, signed by $SIGNER" "$TMP/p1" &&
  grep -q '^box  file /etc/motd has content \.\.\. changed' "$TMP/p1"; then
  pass
else
  fail "signed commit" "exit $rc, expected 0 and /etc/motd written" "$TMP/p1"
fi

# 2. last-run.json: the commit, the signer, the counts; written atomically
#    (no temporary file left beside it).
if python3 - "$STATE/last-run.json" "$C1" "$SIGNER" <<'EOF'; then
import json, sys
r = json.load(open(sys.argv[1]))
assert r["host"] == "box" and r["commit"] == sys.argv[2] and r["signer"] == sys.argv[3], r
assert r["result"] == "changed" and r["changed"] == 1 and r["failed"] == 0, r
assert r["repo"].endswith("origin.git") and r["branch"] is None and r["exit"] == 0, r
assert r["failures"] == [], r
EOF
  pass
else
  fail "last-run.json" "not the record of the first pull" "$STATE/last-run.json"
fi
if [[ -z "$(find "$STATE" -maxdepth 1 -name '.*prop-*')" && -z "$(ls -d "$STATE"/pull/*/gnupg.* 2>/dev/null)" ]]; then
  pass
else
  fail "scratch files" "a temporary file or GNUPGHOME was left in $STATE"
fi

# 3. Pulled again, nothing to do: ok.
pull "$TMP/p2" --host box
if [[ $rc == 0 ]] && grep -q '^box: 1 ok, 0 changed, 0 failed' "$TMP/p2" &&
  python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["result"] == "ok"' "$STATE/last-run.json"; then
  pass
else
  fail "second pull" "exit $rc, expected 0 with nothing changed" "$TMP/p2"
fi

# 4. An unsigned commit is refused and changes nothing.
site unsigned
C2="$(commit none unsigned)"
pull "$TMP/p3" --host box
if [[ $rc == 2 ]] && grep -q "commit ${C2:0:12} of .* refused: it is not signed; nothing was changed" "$TMP/p3"; then
  pass
else
  fail "unsigned commit" "exit $rc, expected 2 and the reason" "$TMP/p3"
fi
unchanged "unsigned commit" one "$C1" "$TMP/p3"

# With --json, the refusal is an event too.
pull "$TMP/p3j" --host box --json
if [[ $rc == 2 ]] && grep -q "^{\"event\":\"pull\",.*\"commit\":\"$C2\",\"refused\":true,\"error\":\"it is not signed\"}" "$TMP/p3j"; then
  pass
else
  fail "unsigned commit, --json" "exit $rc, expected 2 and a refused event" "$TMP/p3j"
fi

# 5. A commit signed by a key the host does not trust: refused likewise.
site stranger
C3="$(commit stranger stranger)"
pull "$TMP/p4" --host box
if [[ $rc == 2 ]] && grep -q "refused: it is signed by key .*${STRANGER: -16}, which this host does not trust" "$TMP/p4"; then
  pass
else
  fail "untrusted key" "exit $rc, expected 2 naming the key" "$TMP/p4"
fi
unchanged "untrusted key" one "$C1" "$TMP/p4"

# 6. A signed commit the pre-pass rejects (one file, two contents): nothing runs.
site lint 'file.has_content("/etc/motd", "other\n"),'
C4="$(commit signer lint-error)"
pull "$TMP/p5" --host box
if [[ $rc == 2 ]] && grep -q 'site.lua:[0-9]*: error' "$TMP/p5" &&
  grep -q "the site at commit ${C4:0:12} has errors; nothing was run" "$TMP/p5"; then
  pass
else
  fail "lint error" "exit $rc, expected 2 with the finding" "$TMP/p5"
fi
[[ "$(cat "$ROOT/etc/motd")" == one && "$(last_commit)" == "$C1" ]] && pass ||
  fail "lint error" "the site ran or the record changed" "$TMP/p5"

# 7. A dry run of a newer signed commit changes nothing, record included.
site two
C5="$(commit signer two)"
pull "$TMP/p6" --host box --dry-run
if [[ $rc == 0 && "$(cat "$ROOT/etc/motd")" == one && "$(last_commit)" == "$C1" ]] &&
  grep -q 'would change' "$TMP/p6"; then
  pass
else
  fail "dry run" "exit $rc, expected 0 with nothing changed" "$TMP/p6"
fi

# 8. The newer signed commit is applied by the next pull, and the JSON
#    output starts with the pull event.
pull "$TMP/p7" --host box --json
if [[ $rc == 0 && "$(cat "$ROOT/etc/motd")" == two && "$(last_commit)" == "$C5" ]] &&
  head -1 "$TMP/p7" | grep -q "^{\"event\":\"pull\",.*\"commit\":\"$C5\",\"signer\":\"$SIGNER\"}"; then
  pass
else
  fail "newer commit" "exit $rc, expected 0 and motd two" "$TMP/p7"
fi
[[ "$(ls "$STATE"/pull/*/trees)" == "$C5" ]] && pass ||
  fail "old trees" "the tree of the older commit was kept: $(ls "$STATE"/pull/*/trees)"

# 9. A --branch: a signed commit on another branch.
git -C "$WORK" checkout --quiet -b staging
site staging
GNUPGHOME="$TMP/signer" git -C "$WORK" commit --quiet -a -S"$SIGNER" -m staging
git -C "$WORK" push --quiet "$ORIGIN" HEAD:staging
C6="$(git -C "$WORK" rev-parse HEAD)"
pull "$TMP/p8" --host box --branch staging
if [[ $rc == 0 && "$(cat "$ROOT/etc/motd")" == staging && "$(last_commit)" == "$C6" ]]; then
  pass
else
  fail "--branch" "exit $rc, expected the staging commit applied" "$TMP/p8"
fi
git -C "$WORK" checkout --quiet main

# 10. A failing property: recorded with its line and reason, exit 1.
site two 'file.has_content("/no/such/dir/x", "y\n"),'
C7="$(commit signer failing)"
pull "$TMP/p9" --host box
if [[ $rc == 1 ]] && python3 - "$STATE/last-run.json" <<'EOF'; then
import json, sys
r = json.load(open(sys.argv[1]))
assert r["result"] == "failed" and r["failed"] == 1 and r["exit"] == 1, r
f = r["failures"][0]
assert f["property"] == "file /no/such/dir/x has content" and f["origin"] == "site.lua:4", f
assert "does not exist" in f["error"], f
EOF
  pass
else
  fail "failed property" "exit $rc, expected 1 and the failure recorded" "$TMP/p9"
fi

# 10b. --prometheus: the run's metrics for node_exporter's textfile
#      collector, written atomically; a failed property is failed.
mkdir -p "$TMP/metrics"
cp "$STATE/last-run.json" "$TMP/record-p9.json" # for prop status below
pull "$TMP/p9m" --host box --prometheus "$TMP/metrics/prop.prom"
M="$TMP/metrics/prop.prom"
same "metrics: the pull's exit" "$rc" 1
check "metrics: the failed property" grep -qx \
  'prop_property_state{host="box",desc="file /no/such/dir/x has content",file="site.lua",line="4",state="failed"} 1' "$M"
check "metrics: the property that holds" grep -qx \
  'prop_property_state{host="box",desc="file /etc/motd has content",file="site.lua",line="3",state="ok"} 1' "$M"
check "metrics: the host up" grep -qx 'prop_host_up{host="box"} 1' "$M"
check "metrics: the exit code (2: a failure)" grep -qx 'prop_verify_exit_code 2' "$M"
same "metrics: no temporary file left" "$(ls -A "$TMP/metrics")" prop.prom
if command -v promtool >/dev/null; then
  check "metrics: promtool check metrics" bash -c "promtool check metrics <'$M' >'$TMP/promtool.out' 2>&1"
else
  part_missing prometheus "promtool (Debian package prometheus) checks the metrics"
fi
# A dry run writes none.
rm -f "$M"
pull "$TMP/p9d" --host box --dry-run --prometheus "$M"
check "metrics: none from a dry run" test ! -e "$M"
cp "$TMP/record-p9.json" "$STATE/last-run.json"

# 11. prop status reads the record over the host's transport.
cat >"$TMP/fleet.lua" <<EOF
host "box" { connect.dir "$ROOT", file.has_content("/etc/motd", "x\n") }
host "fresh" { connect.dir "$TMP/fresh", file.has_content("/etc/motd", "x\n") }
EOF
mkdir -p "$TMP/fresh"
run_prop "$TMP/s1" status "$TMP/fleet.lua" box
if [[ $rc == 1 ]] && grep -q "^box: failed at .* commit ${C7:0:12} signed by $SIGNER: 0 ok, 1 changed, 1 failed" "$TMP/s1" &&
  grep -q '^  failed: file /no/such/dir/x has content (site.lua:4): ' "$TMP/s1"; then
  pass
else
  fail "status" "exit $rc, expected 1 with the failed property" "$TMP/s1"
fi
run_prop "$TMP/s2" status "$TMP/fleet.lua" --json
if [[ $rc == 1 ]] && python3 - "$TMP/s2" "$C7" <<'EOF'; then
import json, sys
v = json.load(open(sys.argv[1]))
assert [h["host"] for h in v] == ["box", "fresh"], v
assert v[0]["last_run"]["commit"] == sys.argv[2] and v[0]["last_run"]["failed"] == 1, v
assert v[1]["never_pulled"] is True, v
EOF
  pass
else
  fail "status --json" "exit $rc, expected a JSON array of both hosts" "$TMP/s2"
fi
# A good run: status exits 0.
site three
C8="$(commit signer three)"
pull "$TMP/p10" --host box --prometheus "$TMP/metrics/prop.prom"
# A change made holds now: ok in the metrics.
check "metrics: a change made is ok" grep -qx \
  'prop_property_state{host="box",desc="file /etc/motd has content",file="site.lua",line="3",state="ok"} 1' "$TMP/metrics/prop.prom"
check "metrics: exit code 0" grep -qx 'prop_verify_exit_code 0' "$TMP/metrics/prop.prom"
run_prop "$TMP/s3" status "$TMP/fleet.lua" box
if [[ $rc == 0 ]] && grep -q "^box: changed at .* commit ${C8:0:12}" "$TMP/s3" && ! grep -q failed: "$TMP/s3"; then
  pass
else
  fail "status after a good run" "exit $rc, expected 0" "$TMP/s3"
fi
# A scheduled pull records its interval (--every); a record older than
# the schedule allows is stale (a pull stalled, or failed before its run).
cp "$STATE/last-run.json" "$TMP/saved-record.json"
pull "$TMP/p10b" --host box --every 30m
run_prop "$TMP/s6" status "$TMP/fleet.lua" box
if [[ $rc == 0 ]] && grep -q '"every":1800' "$STATE/last-run.json" && ! grep -q stale "$TMP/s6"; then
  pass
else
  fail "status of a fresh scheduled pull" "exit $rc, expected 0 and not stale" "$TMP/s6"
fi
python3 - "$STATE/last-run.json" <<'EOF'
import json, sys, time
v = json.load(open(sys.argv[1]))
v["epoch"] = int(time.time()) - 3 * 3600
json.dump(v, open(sys.argv[1], "w"))
EOF
run_prop "$TMP/s7" status "$TMP/fleet.lua" box
if [[ $rc == 1 ]] && grep -q "^box: stale: ok at .* commit ${C8:0:12}" "$TMP/s7" &&
  grep -q '^  stale: the last pull ended 3 hours ago, but it is scheduled every 1800 seconds' "$TMP/s7"; then
  pass
else
  fail "status: stale" "exit $rc, expected 1 and stale" "$TMP/s7"
fi
run_prop "$TMP/s8" status "$TMP/fleet.lua" box --json
[[ $rc == 1 ]] && grep -q '"host":"box","stale":true' "$TMP/s8" && pass ||
  fail "status --json: stale" "exit $rc" "$TMP/s8"
cp "$TMP/saved-record.json" "$STATE/last-run.json"
# This machine (the local transport), the record in a directory of ours.
cat >"$TMP/local.lua" <<EOF
host "localhost" { file.has_content("$TMP/unused", "x\n") }
EOF
run_prop "$TMP/s5" status "$TMP/local.lua" --state-dir "$STATE"
if [[ $rc == 0 ]] && grep -q "^localhost: changed at .* commit ${C8:0:12}" "$TMP/s5"; then
  pass
else
  fail "status of this machine" "exit $rc, expected the record read here" "$TMP/s5"
fi
# A damaged record is named, not trusted.
printf '{"result": "ok", ' >"$TMP/fresh/bad.json"
mkdir -p "$TMP/fresh/var/lib/prop" && mv "$TMP/fresh/bad.json" "$TMP/fresh/var/lib/prop/last-run.json"
run_prop "$TMP/s4" status "$TMP/fleet.lua" fresh
if [[ $rc == 1 ]] && grep -q 'is not a record prop pull wrote' "$TMP/s4"; then
  pass
else
  fail "damaged record" "exit $rc, expected 1" "$TMP/s4"
fi

# 12. The host by this machine's name when --host is not given; an error
#     listing the site's hosts when none matches.
pull "$TMP/p11"
if [[ $rc == 64 ]] && grep -q 'declares no host ".*", this machine.s name (its hosts: box, other)' "$TMP/p11"; then
  pass
else
  fail "no matching host" "exit $rc, expected 64 listing the hosts" "$TMP/p11"
fi
short="$(hostname -s 2>/dev/null || hostname)"
cat >"$WORK/site.lua" <<EOF
host "$short" { connect.dir "$ROOT", file.has_content("/etc/motd", "by name\n") }
EOF
commit signer by-name >/dev/null
pull "$TMP/p12"
if [[ $rc == 0 && "$(cat "$ROOT/etc/motd")" == "by name" ]]; then
  pass
else
  fail "host by name" "exit $rc, expected the host named $short to run" "$TMP/p12"
fi

# Two pulls of one repository never run at once: the second stops at once.
lock="$(ls "$STATE"/pull/*/lock)"
rc=0
flock -n "$lock" timeout 120 "$PROP" pull "$ORIGIN" --keyring "$TMP/trusted.asc" --state-dir "$STATE" \
  --host "$short" >"$TMP/p13" 2>&1 || rc=$?
if [[ $rc == 1 ]] && grep -q "another prop pull of .*origin.git is running (it holds $lock)" "$TMP/p13"; then
  pass
else
  fail "pull lock" "exit $rc, expected 1 naming the lock" "$TMP/p13"
fi

# --site: the site file elsewhere in the repository.
mkdir -p "$WORK/ops"
git -C "$WORK" mv site.lua ops/fleet.lua
commit signer moved >/dev/null
pull "$TMP/p14" --site ops/fleet.lua
if [[ $rc == 0 ]] && grep -q '1 ok, 0 changed' "$TMP/p14"; then
  pass
else
  fail "--site" "exit $rc, expected the site at ops/fleet.lua to run" "$TMP/p14"
fi
pull "$TMP/p15"
if [[ $rc == 2 ]] && grep -q 'has no site file site.lua; nothing was run' "$TMP/p15"; then
  pass
else
  fail "no site.lua" "exit $rc, expected 2" "$TMP/p15"
fi

# 13. A password in the URL is never printed by prop (nor recorded).
run_prop "$TMP/u0" pull "https://ops:s3cret@127.0.0.1:1/site.git" --keyring "$TMP/trusted.asc" --state-dir "$TMP/s0"
if [[ $rc == 69 ]] && grep -q 'cannot fetch HEAD from https://ops:\*\*\*@127.0.0.1:1/site.git' "$TMP/u0" &&
  ! grep -q 's3cret' "$TMP/u0"; then
  pass
else
  fail "password in the URL" "exit $rc, expected 69 without the password" "$TMP/u0"
fi

# 14. Bad input: clear errors, nothing fetched.
run_prop "$TMP/u1" pull "$ORIGIN" --keyring "$TMP/nonexistent.asc" --state-dir "$TMP/s"
[[ $rc == 64 && ! -e "$TMP/s" ]] && grep -q 'keyring .*nonexistent.asc: No such file' "$TMP/u1" && pass ||
  fail "missing keyring" "exit $rc" "$TMP/u1"
echo 'not a key' >"$TMP/junk.asc"
run_prop "$TMP/u2" pull "$ORIGIN" --keyring "$TMP/junk.asc" --state-dir "$TMP/s"
[[ $rc != 0 ]] && grep -q 'junk.asc: not a public key gpg can import' "$TMP/u2" && pass ||
  fail "junk keyring" "exit $rc" "$TMP/u2"
cp "$TMP/trusted.asc" "$TMP/open.asc" && chmod 0666 "$TMP/open.asc"
run_prop "$TMP/u2b" pull "$ORIGIN" --keyring "$TMP/open.asc" --state-dir "$TMP/s2b"
[[ $rc == 64 && ! -e "$TMP/s2b" ]] && grep -q 'open.asc can be written by others: it is not trusted' "$TMP/u2b" && pass ||
  fail "keyring writable by others" "exit $rc, expected 64" "$TMP/u2b"
# A symbolic link to a keyring, a FIFO (gpg would wait on it for ever), a
# keyring in a directory others can write, or one owned by another user:
# each refused, nothing fetched.
ln -s "$TMP/trusted.asc" "$TMP/link.asc"
run_prop "$TMP/k1" pull "$ORIGIN" --keyring "$TMP/link.asc" --state-dir "$TMP/sk"
[[ $rc == 64 && ! -e "$TMP/sk" ]] && grep -q 'keyring .*link.asc is a symbolic link' "$TMP/k1" && pass ||
  fail "keyring: a symbolic link" "exit $rc, expected 64" "$TMP/k1"
mkfifo "$TMP/fifo.asc"
run_prop "$TMP/k2" pull "$ORIGIN" --keyring "$TMP/fifo.asc" --state-dir "$TMP/sk"
[[ $rc == 64 && ! -e "$TMP/sk" ]] && grep -q 'keyring .*fifo.asc is not a regular file' "$TMP/k2" && pass ||
  fail "keyring: a FIFO" "exit $rc, expected 64 at once" "$TMP/k2"
mkdir -m 0775 "$TMP/gw" && chmod 0775 "$TMP/gw" && cp "$TMP/trusted.asc" "$TMP/gw/k.asc"
run_prop "$TMP/k3" pull "$ORIGIN" --keyring "$TMP/gw/k.asc" --state-dir "$TMP/sk"
[[ $rc == 64 && ! -e "$TMP/sk" ]] && grep -q "keyring .*gw/k.asc is in .*gw, which can be written by others" "$TMP/k3" && pass ||
  fail "keyring: a directory others can write" "exit $rc, expected 64" "$TMP/k3"
if [[ $(id -u) == 0 ]] && id nobody >/dev/null 2>&1; then
  mkdir -m 0755 "$TMP/theirs" && cp "$TMP/trusted.asc" "$TMP/theirs/k.asc" && chown nobody "$TMP/theirs"
  run_prop "$TMP/k4" pull "$ORIGIN" --keyring "$TMP/theirs/k.asc" --state-dir "$TMP/sk"
  [[ $rc == 64 && ! -e "$TMP/sk" ]] && grep -q "keyring .*theirs/k.asc is in .*theirs, which can be written by another user" "$TMP/k4" && pass ||
    fail "keyring: a directory of another user" "exit $rc, expected 64" "$TMP/k4"
fi
run_prop "$TMP/k5" pull "$ORIGIN" --keyring "$TMP/trusted.asc" --fetch-timeout 0
[[ $rc == 64 ]] && grep -q -- '--fetch-timeout wants seconds' "$TMP/k5" && pass || fail "bad --fetch-timeout" "exit $rc" "$TMP/k5"
run_prop "$TMP/k6" pull "$ORIGIN" --keyring "$TMP/trusted.asc" --every 30x
[[ $rc == 64 ]] && grep -q -- "--every wants the schedule's interval" "$TMP/k6" && pass || fail "bad --every" "exit $rc" "$TMP/k6"

# 15. A server that accepts and never answers (a tarpit, on loopback):
#     the fetch is stopped at --fetch-timeout, with a clear error, and
#     nothing of git is left running.
cat >"$TMP/tarpit.py" <<'EOF'
import os, socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(8)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(s.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
conns = []
s.settimeout(120)
try:
    while True:
        c, _ = s.accept()
        conns.append(c)  # never answered
except OSError:
    pass
EOF
python3 "$TMP/tarpit.py" "$TMP/tarpit.port" &
TARPIT=$!
on_exit "kill $TARPIT 2>/dev/null"
for _ in $(seq 100); do [[ -s "$TMP/tarpit.port" ]] && break; sleep 0.1; done
PORT="$(cat "$TMP/tarpit.port" 2>/dev/null)"
for url in "git://127.0.0.1:$PORT/site.git" "http://127.0.0.1:$PORT/site.git"; do
  t0=$SECONDS
  run_prop "$TMP/t1" pull "$url" --keyring "$TMP/trusted.asc" --state-dir "$TMP/st" --fetch-timeout 2
  took=$((SECONDS - t0))
  if [[ $rc == 69 && $took -lt 60 ]] &&
    grep -q "fetching HEAD from ${url%%:*}://127.0.0.1:$PORT/site.git took more than 2 seconds (--fetch-timeout): stopped; nothing was changed" "$TMP/t1"; then
    pass
  else
    fail "tarpit $url" "exit $rc after ${took}s, expected 69 within the bound" "$TMP/t1"
  fi
  if pgrep -f "^[^ ]*git[^ ]* .*127\.0\.0\.1:$PORT/" >/dev/null; then
    fail "tarpit $url: no git left running" "$(pgrep -af "127\.0\.0\.1:$PORT/")"
  else
    pass
  fi
  check "tarpit $url: no record" test ! -e "$TMP/st/last-run.json"
done
kill "$TARPIT" 2>/dev/null

run_prop "$TMP/u3" pull "$TMP/no-such-repo.git" --keyring "$TMP/trusted.asc" --state-dir "$TMP/s"
[[ $rc == 69 ]] && grep -q 'cannot fetch HEAD from' "$TMP/u3" && pass ||
  fail "missing repository" "exit $rc, expected 69" "$TMP/u3"
run_prop "$TMP/u4" pull "$ORIGIN" --branch '-x' --keyring "$TMP/trusted.asc"
[[ $rc == 64 ]] && pass || fail "bad branch" "exit $rc" "$TMP/u4"
run_prop "$TMP/u5" pull "$ORIGIN" --site ../etc/passwd --keyring "$TMP/trusted.asc"
[[ $rc == 64 ]] && pass || fail "bad --site" "exit $rc" "$TMP/u5"
if [[ ! -e /etc/prop/pull-keys ]]; then
  run_prop "$TMP/u6" pull "$ORIGIN" --state-dir "$TMP/s"
  [[ $rc == 64 ]] && grep -q 'no trusted keys' "$TMP/u6" && pass || fail "no keys" "exit $rc" "$TMP/u6"
fi

# pull.scheduled's prometheus= is passed on to prop pull; a relative path
# is refused.
mkdir -p "$TMP/sched"
cat >"$TMP/sched.lua" <<EOF
host "s" { connect.dir "$TMP/sched", os.debian("bookworm", "amd64"),
  pull.scheduled("https://git.example.org/site.git",
                 { via = "cron", prometheus = "/var/lib/prometheus/node-exporter/prop.prom" }) }
EOF
run_prop "$TMP/sc1" run "$TMP/sched.lua"
same "scheduled: exit 0" "$rc" 0
check "scheduled: --prometheus in the cron job" \
  grep -q -- "--prometheus /var/lib/prometheus/node-exporter/prop.prom" "$TMP/sched/etc/cron.d/prop-pull"
cat >"$TMP/sched-bad.lua" <<EOF
host "s" { connect.dir "$TMP/sched", os.debian("bookworm", "amd64"),
  pull.scheduled("https://git.example.org/site.git", { prometheus = "prop.prom" }) }
EOF
run_prop "$TMP/sc2" lint "$TMP/sched-bad.lua"
same "scheduled: relative prometheus path: exit 2" "$rc" 2
check "scheduled: relative prometheus path: said, with the line" \
  grep -q 'sched-bad.lua:2: .*prometheus must be an absolute path' "$TMP/sc2"
run_prop "$TMP/u7" pull "$ORIGIN" --keyring "$TMP/trusted.asc" --prometheus
same "--prometheus without a file: 64" "$rc" 64

finish
