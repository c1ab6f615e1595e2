#!/usr/bin/env bash
# verify=: a property's probe of its effect, run after apply and when its
# check says ok.  An effect that holds keeps the result; one that is
# missing fails the property with what the probe saw, unless the property
# knows the repair (repair=), which runs, is probed again and says
# changed.  A dry run probes what would not change and says "would fail".
# probe_timeout= bounds the wait for an effect that comes late.  A probe
# may only look.  All of it on a connect.dir tree in the scratch
# directory: nothing else of this machine is touched.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# prop_run OUT SITE [ARGS...] : prop run SITE --json ARGS.
prop_run() {
  local out="$1" site="$2"
  shift 2
  run_prop "$out" run "$site" --json "$@"
}
# result_of OUT DESC : the result of the property DESC in OUT's events.
result_of() {
  grep '"event":"property"' "$1" | grep -F -- "\"desc\":\"$2\"" | head -1 |
    sed -n 's/.*"result":"\([a-z]*\)".*/\1/p'
}
# host_count OUT HOST KEY : KEY (ok, changed, failed) of the host event.
host_count() {
  grep '"event":"host"' "$1" | grep -F "\"host\":\"$2\"" |
    sed -n "s/.*\"$3\":\([0-9][0-9]*\).*/\1/p" | head -1
}

T="$TMP/tree"
mkdir -p "$T"

# site WAIT : the site, late's probe waiting up to WAIT seconds.
site() {
cat >"$TMP/site.lua" <<EOF
local flag = property {
  desc = "flag and state",
  check = function(sys) return sys:read("/flag") ~= nil end,
  apply = function(sys) sys:write("/flag", "up\n") end,
  verify = function(sys)
    local s = sys:read("/state")
    if s ~= "running\n" then
      return false, "state is " .. (s and s:gsub("\n", "") or "missing") .. ", want running"
    end
  end,
  repair = function(sys) sys:write("/state", "running\n") end,
  probe_timeout = 0,
}
local other = property {
  desc = "other looked at",
  check = function(sys) return true end,
  apply = function(sys) end,
  verify = function(sys) return sys:read("/other") ~= nil, "no /other" end,
  probe_timeout = 0,
}
local late = property {
  desc = "late effect",
  check = function(sys) return true end,
  apply = function(sys) end,
  verify = function(sys) if sys:stat("/late") == nil then error("no /late yet") end end,
  probe_timeout = $1,
}
host "t" { connect.dir "$T", os.debian("bookworm", "amd64"), flag, other, late }
EOF
}
site 0

# First run: flag written, its probe repairs the state (changed); other
# has no repair and fails with what its probe saw.
: >"$T/late"

prop_run "$TMP/r1.out" "$TMP/site.lua"
same "first run: exit 1 (a failure)" "$rc" 1
same "first run: flag changed" "$(result_of "$TMP/r1.out" "flag and state")" changed
check "first run: the repair ran" grep -qx running "$T/state"
same "first run: other failed" "$(result_of "$TMP/r1.out" "other looked at")" failed
check "first run: with what its probe saw" grep -q 'verify: no /other' "$TMP/r1.out"
same "first run: late ok" "$(result_of "$TMP/r1.out" "late effect")" ok

# The effect broken behind prop's back, the files still right: the check
# says ok, the probe finds it and the repair makes it true again.
echo stopped >"$T/state"
: >"$T/other"
prop_run "$TMP/r2.out" "$TMP/site.lua"
same "broken: exit 0" "$rc" 0
same "broken: flag repaired (changed)" "$(result_of "$TMP/r2.out" "flag and state")" changed
check "broken: state running again" grep -qx running "$T/state"
prop_run "$TMP/r3.out" "$TMP/site.lua"
same "converged: nothing changes" "$(host_count "$TMP/r3.out" t changed)/$(host_count "$TMP/r3.out" t ok)" "0/3"

# A dry run probes and repairs nothing: it says "would fail".
echo stopped >"$T/state"
run_prop "$TMP/d.out" run "$TMP/site.lua" --dry-run
same "dry run: exit 1" "$rc" 1
check "dry run: would fail, with what it saw" grep -q 'failed: would fail: verify: state is stopped, want running' "$TMP/d.out"
check "dry run: nothing repaired" grep -qx stopped "$T/state"

# probe_timeout: an effect that comes 1 s late is waited for.
rm -f "$T/late"
echo running >"$T/state"

site 30
( sleep 1; : >"$T/late" ) &
prop_run "$TMP/w.out" "$TMP/site.lua"
wait
same "late: waited for (ok)" "$(result_of "$TMP/w.out" "late effect")" ok
rm -f "$T/late"
site 0
prop_run "$TMP/w0.out" "$TMP/site.lua"
same "late: no wait, no file: failed" "$(result_of "$TMP/w0.out" "late effect")" failed
check "late: with the probe's error" grep -q 'no /late yet' "$TMP/w0.out"

# A probe only looks: a write inside it is refused, and fails the property.
cat >"$TMP/writes.lua" <<EOF
host "t" { connect.dir "$T", os.debian("bookworm", "amd64"),
  property { desc = "writing probe", apply = function(sys) end,
             verify = function(sys) sys:write("/probe-wrote", "x") end, probe_timeout = 0 } }
EOF
prop_run "$TMP/pw.out" "$TMP/writes.lua"
same "writing probe: exit 1" "$rc" 1
check "writing probe: nothing written" test ! -e "$T/probe-wrote"

# Bad declarations are lint errors with the site's line.
cat >"$TMP/bad.lua" <<'EOF'
host "t" { os.debian("bookworm", "amd64"),
  property { desc = "a", apply = function() end, repair = function() end },
  property { desc = "b", apply = function() end, verify = function() end, probe_timeout = "5" },
  property { desc = "c", apply = function() end, verify = 1 } }
EOF
run_prop "$TMP/bad.out" lint "$TMP/bad.lua"
same "lint: exit 2" "$rc" 2
check "lint: repair without verify" grep -q 'bad.lua:2: error\[P012\].*repair needs verify' "$TMP/bad.out"
check "lint: probe_timeout not a number" grep -q 'bad.lua:3: error\[P012\].*probe_timeout must be a number' "$TMP/bad.out"
check "lint: verify not a function" grep -q 'bad.lua:4: error\[P012\].*verify must be a function' "$TMP/bad.out"

finish
