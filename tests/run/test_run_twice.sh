#!/usr/bin/env bash
# prop run --twice: a site that converges passes (exit 0: its second run
# changes nothing); a property that changes on every run fails it (exit
# 1), named with its host and line in the text and --json output, alone
# (not the properties that converged), in a serial and in a parallel run;
# the second run starts from the site as evaluated, as a new prop run
# would (what the first run's Lua code kept is gone); cmd.run without
# creates/unless is caught; a first run that fails stops there; --dry-run
# with --twice is a usage error; SIGINT during the first run stops it
# (exit 130) and there is no second run.  Hosts are connect.dir trees in scratch
# space, and localhost for the one command, which writes under $TMP.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

A="$TMP/a"
B="$TMP/b"
mkdir -p "$A" "$B/etc"

# ---- a site that converges ------------------------------------------------
cat >"$TMP/good.lua" <<EOF
host "prop-test-a" {
  connect.dir "$A",
  file.directory "/srv",
  file.has_content("/srv/motd", "hello\n"),
}
host "prop-test-b" {
  connect.dir "$B",
  file.has_content("/etc/issue", "welcome\n", { mode = "0644" }),
}
EOF
run_prop "$TMP/good.out" run "$TMP/good.lua" --twice
if [[ $rc == 0 ]] && grep -q 'second run changed nothing' "$TMP/good.out" &&
   [[ "$(cat "$A/srv/motd")" == hello && "$(cat "$B/etc/issue")" == welcome ]]; then
  pass
else
  fail "converging site" "exit $rc (want 0), or not said, or files not made" "$TMP/good.out"
fi
# Both runs happened: the first changed, the second found everything ok.
if [[ "$(grep -c '^prop-test-a  file /srv/motd has content ... changed$' "$TMP/good.out")" == 1 &&
      "$(grep -c '^prop-test-a  file /srv/motd has content ... ok$' "$TMP/good.out")" == 1 ]]; then
  pass
else
  fail "converging site: two runs" "want one changed and one ok line for /srv/motd" "$TMP/good.out"
fi
rm -rf "$A/srv" "$B/etc/issue"
prop_run "$TMP/good.json" "$TMP/good.lua" --twice
strip_run "$TMP/good.json"
if [[ $rc == 0 ]] && grep -qx '{"event":"pass","pass":1}' "$TMP/good.json" &&
   grep -qx '{"event":"pass","pass":2}' "$TMP/good.json" &&
   grep -qx '{"event":"twice","changed_again":0}' "$TMP/good.json" &&
   ! grep -q '"event":"changed_again"' "$TMP/good.json" &&
   [[ "$(grep '"event":"host"' "$TMP/good.json" | grep -F '"host":"prop-test-a"' |
         sed -n 's/.*"changed":\([0-9]*\).*/\1/p' | tr '\n' ' ')" == "2 0 " ]]; then
  pass
else
  fail "converging site --json" "exit $rc, or events missing" "$TMP/good.json"
fi

# ---- a property that changes every time -----------------------------------
cat >"$TMP/bad.lua" <<EOF
host "prop-test-a" {
  connect.dir "$A",
  file.has_content("/srv/fixed", "same\n"),
  property {
    desc = "prop-test always rewrites",
    check = function(sys) return false end,
    apply = function(sys) sys:write("/srv/always", "again\n") end,
  },
}
host "prop-test-b" {
  connect.dir "$B",
  property {
    desc = "prop-test b always rewrites",
    check = function(sys) return false end,
    apply = function(sys) sys:write("/etc/always", "again\n") end,
  },
  file.has_content("/etc/fixed", "same\n"),
}
EOF
for jobs in 1 2; do
  run_prop "$TMP/bad$jobs.out" run "$TMP/bad.lua" --twice -j "$jobs"
  if [[ $rc == 1 ]] &&
     grep -q 'the second run changed 2 properties' "$TMP/bad$jobs.out" &&
     grep -qx "  prop-test-a  prop-test always rewrites ($TMP/bad.lua:4)" "$TMP/bad$jobs.out" &&
     grep -qx "  prop-test-b  prop-test b always rewrites ($TMP/bad.lua:12)" "$TMP/bad$jobs.out" &&
     ! grep -q '^  prop-test-.  file /.*/fixed' "$TMP/bad$jobs.out"; then
    pass
  else
    fail "always changes, -j $jobs" "exit $rc (want 1), or the properties not named alone" "$TMP/bad$jobs.out"
  fi
  prop_run "$TMP/bad$jobs.json" "$TMP/bad.lua" --twice -j "$jobs"
  strip_run "$TMP/bad$jobs.json"
  if [[ $rc == 1 ]] &&
     grep -qxF "{\"event\":\"changed_again\",\"host\":\"prop-test-a\",\"desc\":\"prop-test always rewrites\",\"origin\":\"$TMP/bad.lua:4\"}" "$TMP/bad$jobs.json" &&
     grep -qxF "{\"event\":\"changed_again\",\"host\":\"prop-test-b\",\"desc\":\"prop-test b always rewrites\",\"origin\":\"$TMP/bad.lua:12\"}" "$TMP/bad$jobs.json" &&
     [[ "$(grep -c '"event":"changed_again"' "$TMP/bad$jobs.json")" == 2 ]] &&
     grep -qx '{"event":"twice","changed_again":2}' "$TMP/bad$jobs.json"; then
    pass
  else
    fail "always changes --json, -j $jobs" "exit $rc (want 1), or changed_again events wrong" "$TMP/bad$jobs.json"
  fi
done
# Without --twice the same site succeeds: the failure is --twice's.
run_prop "$TMP/once.out" run "$TMP/bad.lua"
same "without --twice: exit 0" "$rc" 0

# ---- the second run starts afresh ---------------------------------------
# This check says ok once it has run in this process: a second run in
# the same Lua state would say ok, a new prop run changes again.
cat >"$TMP/fresh.lua" <<EOF
local seen = false
host "prop-test-a" {
  connect.dir "$A",
  property {
    desc = "prop-test changes in every new run",
    check = function(sys) local s = seen; seen = true; return s end,
    apply = function(sys) sys:write("/srv/fresh", "x\n") end,
  },
}
EOF
run_prop "$TMP/fresh.out" run "$TMP/fresh.lua" --twice
if [[ $rc == 1 ]] && grep -qx "  prop-test-a  prop-test changes in every new run ($TMP/fresh.lua:4)" "$TMP/fresh.out"; then
  pass
else
  fail "second run afresh" "exit $rc (want 1), or the property not named" "$TMP/fresh.out"
fi

# ---- a command without creates or unless ---------------------------------
D="$TMP/cmd"
mkdir -p "$D"
cat >"$TMP/cmd.lua" <<EOF
host "localhost" {
  cmd.run({ "sh", "-c", "echo once >> $D/created" }, { creates = "$D/created" }),
  cmd.run({ "sh", "-c", "echo run >> $D/bare" }),
}
EOF
run_prop "$TMP/cmd.out" run "$TMP/cmd.lua" --twice
if [[ $rc == 1 ]] && grep -q 'the second run changed 1 property;' "$TMP/cmd.out" &&
   grep -q "^  localhost  .*$D/bare.* ($TMP/cmd.lua:3)\$" "$TMP/cmd.out" &&
   [[ "$(cat "$D/created")" == once && "$(cat "$D/bare")" == $'run\nrun' ]]; then
  pass
else
  fail "cmd.run without creates" "exit $rc (want 1), or not named, or not run twice" "$TMP/cmd.out"
fi

# ---- a first run that fails: no second run --------------------------------
cat >"$TMP/fails.lua" <<EOF
host "prop-test-a" {
  connect.dir "$A",
  property {
    desc = "prop-test fails",
    apply = function(sys) sys:write("/srv/count", "1\n"); error("prop-test-boom") end,
  },
}
EOF
run_prop "$TMP/fails.out" run "$TMP/fails.lua" --twice
if [[ $rc == 1 ]] && grep -q 'no second run' "$TMP/fails.out" &&
   [[ "$(grep -c 'prop-test-boom' "$TMP/fails.out")" == 1 ]] &&
   ! grep -q 'second run, which' "$TMP/fails.out"; then
  pass
else
  fail "first run fails" "exit $rc (want 1), or a second run happened" "$TMP/fails.out"
fi

# ---- SIGINT to prop during the first run -----------------------------------
# Sent to prop alone (not its process group): prop passes it on to the
# first run, which stops; there is no second run.
S="$TMP/sig"
mkdir -p "$S"
cat >"$TMP/sig.lua" <<EOF
host "localhost" {
  cmd.run({ "sh", "-c", "touch $S/started; sleep 60" }),
  cmd.run({ "touch", "$S/after" }),
}
EOF
"$PROP" run --twice "$TMP/sig.lua" >"$TMP/sig.out" 2>&1 &
pid=$!
for _ in $(seq 600); do [[ -e "$S/started" ]] && break; sleep 0.1; done
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
if [[ $rc == 130 ]] && grep -q 'no second run' "$TMP/sig.out" && [[ ! -e "$S/after" ]] &&
   ! grep -q 'second run, which' "$TMP/sig.out"; then
  pass
else
  fail "SIGINT in the first run" "exit $rc (want 130), or it went on" "$TMP/sig.out"
fi

# ---- --dry-run --twice ------------------------------------------------------
rm -rf "$A/srv"
run_prop "$TMP/dry.out" run "$TMP/good.lua" --twice --dry-run
if [[ $rc == 64 ]] && grep -q -- '--twice with --dry-run' "$TMP/dry.out" && [[ ! -e "$A/srv" ]]; then
  pass
else
  fail "--dry-run --twice" "exit $rc (want 64, a usage error), or something ran" "$TMP/dry.out"
fi

finish
