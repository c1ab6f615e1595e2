#!/usr/bin/env bash
# test_run_report.sh - every --json event carries the run's id (random,
# one per run) and, when the site file is in a git work tree, its commit
# and whether the tree has changes (nothing, and no failure, when it is
# not a repository or git is absent); `prop run --report FILE.json`
# writes the whole run as one JSON document, atomically (run id, commit,
# start and end times, hosts, each property with result, duration,
# message, diff with --diff, triggered_by), never a secret's content.
#
# The hosts are connect.dir trees in the test's scratch directory; the
# site's repository is made there too.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

if ! command -v jq >/dev/null || ! command -v git >/dev/null; then
  skip_missing "jq and git" "jq and git are needed"
fi

R="$TMP/repo"
T1="$TMP/t1"
T2="$TMP/t2"
mkdir -p "$R" "$T1" "$T2"

# site FILE VERSION [NOFAIL] : two hosts; "one" has a property that
# always fails unless NOFAIL is given.
site() {
  local failing='
  property {
    desc = "always fails",
    apply = function(sys) error("the failure message") end,
  },'
  [[ -z "${3:-}" ]] || failing=""
  cat >"$1" <<LUA
local restart = property {
  desc = "restart app",
  apply = function(sys) sys:write("/restarted", "yes\n") end,
}
host "one" {
  connect.dir "$T1",
  os.debian("bookworm", "amd64"),
  file.has_content("/app.conf", { "$2" }):on_change(restart),
  file.has_content("/app2.conf", { "$2" }):on_change(restart),
  file.has_content("/secret", "s3cr3t-value-$2\n", { mode = "0600", secret = true }),$failing
}
host "two" {
  connect.dir "$T2",
  os.debian("bookworm", "amd64"),
  file.has_content("/two.conf", { "$2" }),
}
LUA
}

# jqok ARGS... : jq -e, quietly.
jqok() {
  jq -e "$@" >/dev/null
}

git_r() {
  git -C "$R" -c user.name=prop-test -c user.email=prop-test@example.invalid "$@"
}

site "$R/site.lua" v1
git_r init -q
git_r add site.lua
git_r commit -q -m site
HEAD="$(git_r rev-parse HEAD)"

# ---- JSON events: run id, commit, clean -----------------------------------
prop_run "$TMP/e1" "$R/site.lua" --report "$TMP/r1.json" --diff
same "run: exit (a property fails)" "$rc" 1
check "events: every line is JSON" jqok . "$TMP/e1"
same "events: one run id for all" "$(grep '^{' "$TMP/e1" | jq -r .run | sort -u | wc -l)" 1
id1="$(grep '^{' "$TMP/e1" | head -1 | jq -r .run)"
check "events: the id is 32 hex digits" bash -c "[[ '$id1' =~ ^[0-9a-f]{32}$ ]]"
same "events: every one has the commit" "$(grep '^{' "$TMP/e1" | jq -r .commit | sort -u)" "$HEAD"
same "events: the tree is clean" "$(grep '^{' "$TMP/e1" | jq -r .dirty | sort -u)" false

# ---- the report ------------------------------------------------------------
J="$TMP/r1.json"
check "report: one JSON document" jqok 'type == "object"' "$J"
same "report: run id as the events'" "$(jq -r .run "$J")" "$id1"
same "report: commit" "$(jq -r .commit "$J")" "$HEAD"
same "report: dirty" "$(jq -r .dirty "$J")" false
same "report: exit" "$(jq -r .exit "$J")" 1
check "report: start and end times" jqok \
  '(.started | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$")) and .ended >= .started' "$J"
same "report: both hosts" "$(jq -r '[.hosts[].host] | sort | join(",")' "$J")" "one,two"
same "report: host counts" "$(jq -r '.hosts[] | select(.host == "one") | "\(.changed)/\(.failed)"' "$J")" "4/1"
same "report: a property's result" \
  "$(jq -r '.hosts[] | select(.host == "two") | .properties[0] | "\(.desc)=\(.result)"' "$J")" \
  "file /two.conf has content=changed"
check "report: durations" jqok '[.hosts[].properties[].ms | numbers] | length >= 5' "$J"
same "report: the failure's message" \
  "$(jq -r '.hosts[].properties[] | select(.desc == "always fails") | .result' "$J")" failed
check "report: the failure's message text" jqok \
  '[.hosts[].properties[] | select(.desc == "always fails") | .message | test("the failure message")] | any' "$J"
same "report: triggered_by" \
  "$(jq -c '.hosts[].properties[] | select(.desc == "restart app") | .triggered_by' "$J")" \
  '["file /app.conf has content","file /app2.conf has content"]'
check "report: the diff of a file" jqok \
  '.hosts[].properties[] | select(.desc == "file /two.conf has content") | .diff | test("\\+v1")' "$J"
check "report: no diff for the secret" jqok \
  '.hosts[].properties[] | select(.desc | test("/secret")) | has("diff") | not' "$J"
same "report: the secret's content appears nowhere" "$(grep -c 's3cr3t' "$J")" 0
same "events: the secret's content appears nowhere" "$(grep -c 's3cr3t' "$TMP/e1")" 0
same "report: mode as a new file's" "$(mode_of "$J")" "$(umask -S >/dev/null; printf '%04o' $((0666 & ~$(umask))))"
same "report: no temporary file beside it" "$(find "$TMP" -maxdepth 1 -name '.r1.json.*' | wc -l)" 0

# ---- a second run: another id; a changed tree is dirty ----------------------
site "$R/site.lua" v2
prop_run "$TMP/e2" "$R/site.lua" --report "$TMP/r2.json"
id2="$(jq -r .run "$TMP/r2.json")"
check "second: another run id" test "$id2" != "$id1"
same "second: events carry it" "$(grep '^{' "$TMP/e2" | jq -r .run | sort -u)" "$id2"
same "second: dirty" "$(jq -r .dirty "$TMP/r2.json")" true
same "second: dirty in events" "$(grep '^{' "$TMP/e2" | jq -r .dirty | sort -u)" true
check "second: no diff without --diff" jqok '[.hosts[].properties[] | has("diff")] | any | not' \
  "$TMP/r2.json"

# ---- a site below the top of the work tree, named from inside it ------------
mkdir -p "$R/sub/deeper"
site "$R/sub/deeper/inner.lua" v2
git_r add -A
git_r commit -q -m sub
HEAD2="$(git_r rev-parse HEAD)"
(cd "$R/sub/deeper" && prop_run "$TMP/e5" inner.lua && echo "$rc" >"$TMP/rc5")
same "subdirectory: exit as usual" "$(cat "$TMP/rc5")" 1
same "subdirectory: the work tree's commit" "$(grep '^{' "$TMP/e5" | jq -r .commit | sort -u)" "$HEAD2"

# ---- not a repository; no git at all: nothing, and no failure ---------------
site "$TMP/plain.lua" v2
prop_run "$TMP/e3" "$TMP/plain.lua" --report "$TMP/r3.json"
same "no repo: exit as usual" "$rc" 1
check "no repo: no commit in events" bash -c "! grep -q '\"commit\"' '$TMP/e3'"
check "no repo: no commit in the report" jqok 'has("commit") | not' "$TMP/r3.json"
check "no repo: still a run id" jqok '.run | test("^[0-9a-f]{32}$")' "$TMP/r3.json"
rc=0
PATH=/nonexistent "$(command -v timeout)" 300 "$PROP" run "$R/site.lua" --json --report "$TMP/r4.json" \
  >"$TMP/e4" 2>&1 || rc=$?
same "no git: exit as usual" "$rc" 1
check "no git: no commit" jqok 'has("commit") | not' "$TMP/r4.json"

# ---- --twice: both runs; -j1: the same document -------------------------------
site "$R/site2.lua" v3 nofail
prop_run "$TMP/e5" "$R/site2.lua" --twice --report "$TMP/r5.json" -j 1
same "twice: exit" "$rc" 0
same "twice: both passes of each host" \
  "$(jq -r '[.hosts[] | "\(.host):\(.pass)"] | sort | join(",")' "$TMP/r5.json")" \
  "one:1,one:2,two:1,two:2"
same "twice: the second changed nothing" \
  "$(jq -r '[.hosts[] | select(.pass == 2) | .changed] | add' "$TMP/r5.json")" 0
check "twice: flagged" jqok '.twice == true' "$TMP/r5.json"

# ---- the report's files are not passed to the commands a run starts ----------
cat >"$TMP/fds.lua" <<LUA
host "localhost" {
  cmd.run { "sh", "-c", "ls -l /proc/self/fd/ > $TMP/fds" },
}
LUA
prop_run "$TMP/e8" "$TMP/fds.lua" --report "$TMP/r8.json"
same "fds: exit" "$rc" 0
check "fds: the command listed its descriptors" test -s "$TMP/fds"
check "fds: neither report file is open in it" bash -c "! grep -Eq 'prop-report|r8\.json' '$TMP/fds'"
same "fds: the report has the command" "$(jq -r '.hosts[0].properties[0].result' "$TMP/r8.json")" changed

# ---- an interrupted run still has its report ---------------------------------
cat >"$TMP/int.lua" <<LUA
host "one" {
  connect.dir "$T1",
  os.debian("bookworm", "amd64"),
  property {
    desc = "waits",
    apply = function(sys)
      sys:write("/started", "1")
      while sys:exists("/hold") do end
    end,
  },
  file.has_content("/never", { "x" }),
}
LUA
rm -f "$T1/started"
touch "$T1/hold"
"$PROP" run "$TMP/int.lua" --report "$TMP/r9.json" --max-instructions 100000000000000 \
  >"$TMP/e9" 2>&1 &
pid=$!
# The watchdog closes the run tests' lock (fd 9, common.sh), which its
# sleep would otherwise hold for two minutes after this test ends.
(exec 9>&-; sleep 120 && kill -KILL "$pid") >/dev/null 2>&1 &
dog=$!
for ((i = 0; i < 600; i++)); do
  [[ -s "$T1/started" ]] && break
  sleep 0.1
done
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
pkill -P "$dog" sleep 2>/dev/null
kill "$dog" 2>/dev/null
wait "$dog" 2>/dev/null
rm -f "$T1/hold"
same "interrupted: exit" "$rc" 130
same "interrupted: the report's exit" "$(jq -r .exit "$TMP/r9.json")" 130
same "interrupted: the host" "$(jq -r '.hosts[0] | "\(.host) \(.interrupted) \(.skipped)"' "$TMP/r9.json")" \
  "one true 2"
same "interrupted: the property" "$(jq -r '.hosts[0].properties[0].result' "$TMP/r9.json")" interrupted

# ---- bad input: nowhere to write it ------------------------------------------
before="$(tree_state "$T1")"
run_prop "$TMP/e6" run "$R/site.lua" --report "$TMP/no/such/dir/r.json"
same "bad path: usage exit" "$rc" 64
check "bad path: says why" grep -q -- "--report $TMP/no/such/dir/r.json: cannot write there" "$TMP/e6"
same "bad path: nothing ran" "$(tree_state "$T1")" "$before"
run_prop "$TMP/e7" run "$R/site.lua" --report
same "no file name: usage exit" "$rc" 64

finish
