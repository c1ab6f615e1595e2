#!/usr/bin/env bash
# prop verify SITE [HOST...]: each property's check, and its probe
# (verify=) when the check holds, and nothing else: ok, drift (the check
# says it would change) or failed (the probe failed, or the check did).
# Exit 0 all hold, 1 drift, 2 a failure or a host not reached or a
# rejected site, 64 usage.  Nothing on the target ever changes.  All of
# it on connect.dir trees in the scratch directory (and a closed port on
# loopback): nothing else of this machine is touched.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# result_of OUT DESC : the result of the property DESC in OUT's events.
result_of() {
  grep '"event":"property"' "$1" | grep -F -- "\"desc\":\"$2\"" | head -1 |
    sed -n 's/.*"result":"\([a-z]*\)".*/\1/p'
}
# message_of OUT DESC : its message.
message_of() {
  grep '"event":"property"' "$1" | grep -F -- "\"desc\":\"$2\"" | head -1 |
    sed -n 's/.*"message":"\([^"]*\)".*/\1/p'
}
# host_count OUT HOST KEY : KEY (ok, drift, failed) of the host event.
host_count() {
  grep '"event":"host"' "$1" | grep -F "\"host\":\"$2\"" |
    sed -n "s/.*\"$3\":\([0-9][0-9]*\).*/\1/p" | head -1
}
# tree_sum : names, modes and contents of everything in the tree.
tree_sum() {
  (cd "$T" && find . -printf '%p %m %s\n' | LC_ALL=C sort && find . -type f -print0 |
    LC_ALL=C sort -z | xargs -0r cat) | sha256sum
}

T="$TMP/tree"
mkdir -p "$T"
printf 'up\n' >"$T/flag"
printf 'running\n' >"$T/state"
: >"$T/other"

# The site: flag's check and its probe (state running); other's probe
# looks for /other; repair= and apply= would write, and never run here.
cat >"$TMP/site.lua" <<EOF
local flag = property {
  desc = "flag and state",
  check = function(sys) return sys:read("/flag") == "up\n" end,
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
  apply = function(sys) sys:write("/applied", "x") end,
  verify = function(sys) return sys:read("/other") ~= nil, "no /other" end,
  probe_timeout = 0,
}
host "t" { connect.dir "$T", os.debian("bookworm", "amd64"), flag, other }
EOF

# All holds: exit 0, every property ok, nothing written.
before="$(tree_sum)"
run_prop "$TMP/ok.out" verify "$TMP/site.lua" --json
same "all hold: exit 0" "$rc" 0
same "all hold: flag ok" "$(result_of "$TMP/ok.out" "flag and state")" ok
same "all hold: other ok" "$(result_of "$TMP/ok.out" "other looked at")" ok
same "all hold: host counts" \
  "$(host_count "$TMP/ok.out" t ok)/$(host_count "$TMP/ok.out" t drift)/$(host_count "$TMP/ok.out" t failed)" "2/0/0"
same "all hold: tree unchanged" "$(tree_sum)" "$before"
run_prop "$TMP/ok.txt" verify "$TMP/site.lua"
same "all hold, text: exit 0" "$rc" 0
check "all hold, text: a line per property" grep -qx 't  flag and state ... ok' "$TMP/ok.txt"
check "all hold, text: the host's summary" grep -q '^t: 2 ok, 0 drift, 0 failed' "$TMP/ok.txt"

# Drift: flag's check says it would change; apply does not run.
printf 'down\n' >"$T/flag"
before="$(tree_sum)"
run_prop "$TMP/drift.out" verify "$TMP/site.lua" --json
same "drift: exit 1" "$rc" 1
same "drift: flag drift" "$(result_of "$TMP/drift.out" "flag and state")" drift
check "drift: with what would change" grep -q '"message":"would write /flag' "$TMP/drift.out"
same "drift: other still ok" "$(result_of "$TMP/drift.out" "other looked at")" ok
same "drift: host counts" \
  "$(host_count "$TMP/drift.out" t ok)/$(host_count "$TMP/drift.out" t drift)/$(host_count "$TMP/drift.out" t failed)" "1/1/0"
same "drift: tree unchanged" "$(tree_sum)" "$before"
check "drift: flag still down" grep -qx down "$T/flag"
run_prop "$TMP/drift.txt" verify "$TMP/site.lua"
same "drift, text: exit 1" "$rc" 1
check "drift, text: the line says drift" grep -qx 't  flag and state ... drift' "$TMP/drift.txt"

# A probe fails: exit 2, the property named with what its probe saw;
# neither repair nor apply runs.
printf 'up\n' >"$T/flag"
printf 'stopped\n' >"$T/state"
rm -f "$T/other"
before="$(tree_sum)"
run_prop "$TMP/fail.out" verify "$TMP/site.lua" --json
same "probe fails: exit 2" "$rc" 2
same "probe fails: flag failed" "$(result_of "$TMP/fail.out" "flag and state")" failed
same "probe fails: with what it saw" "$(message_of "$TMP/fail.out" "flag and state")" \
  "would fail: verify: state is stopped, want running"
same "probe fails: other failed" "$(message_of "$TMP/fail.out" "other looked at")" \
  "would fail: verify: no /other"
same "probe fails: tree unchanged (no repair, no apply)" "$(tree_sum)" "$before"
check "probe fails: state still stopped" grep -qx stopped "$T/state"
run_prop "$TMP/fail.txt" verify "$TMP/site.lua"
same "probe fails, text: exit 2" "$rc" 2
check "probe fails, text: the property and what it saw" \
  grep -qx 't  flag and state ... failed: would fail: verify: state is stopped, want running' "$TMP/fail.txt"
check "probe fails, text: the summary" grep -q '^t: 0 ok, 0 drift, 2 failed' "$TMP/fail.txt"
# Drift and a failure: the failure wins.
printf 'down\n' >"$T/flag"
run_prop "$TMP/both.out" verify "$TMP/site.lua"
same "drift and failure: exit 2" "$rc" 2
printf 'up\n' >"$T/flag"
printf 'running\n' >"$T/state"
: >"$T/other"

# A composite that failed by a part: its message names the part and what
# its probe saw.
cat >"$TMP/composite.lua" <<EOF
local a = property { desc = "a", check = function(sys) return true end,
                     apply = function(sys) sys:write("/a", "a") end }
local b = property { desc = "b", check = function(sys) return true end,
                     apply = function(sys) sys:write("/b", "b") end,
                     verify = function(sys) return false, "b is not there" end, probe_timeout = 0 }
host "t" { connect.dir "$T", os.debian("bookworm", "amd64"), requires(a, b):describe("both") }
EOF
run_prop "$TMP/comp.out" verify "$TMP/composite.lua" --json
same "composite: exit 2" "$rc" 2
same "composite: failed" "$(result_of "$TMP/comp.out" "both")" failed
check "composite: its message names the part and what it saw" \
  grep -q '"desc":"both".*"message":"failed: b: would fail: verify: b is not there' "$TMP/comp.out"

# A check that fails (an error) is a failure.
cat >"$TMP/checkerr.lua" <<EOF
host "t" { connect.dir "$T", os.debian("bookworm", "amd64"),
  property { desc = "broken check", check = function(sys) error("cannot tell") end,
             apply = function(sys) sys:write("/x", "x") end } }
EOF
run_prop "$TMP/ce.out" verify "$TMP/checkerr.lua" --json
same "check error: exit 2" "$rc" 2
same "check error: failed" "$(result_of "$TMP/ce.out" "broken check")" failed
check "check error: its message" grep -q '"message":"[^"]*cannot tell' "$TMP/ce.out"

# A probe that never holds is given up after probe_timeout, and reported.
cat >"$TMP/slow.lua" <<EOF
host "t" { connect.dir "$T", os.debian("bookworm", "amd64"),
  property { desc = "never up", check = function(sys) return true end,
             apply = function(sys) end,
             verify = function(sys) return sys:stat("/never") ~= nil, "no /never yet" end,
             probe_timeout = 1 } }
EOF
start=$SECONDS
PROP_RUN_TIMEOUT=60 run_prop "$TMP/slow.out" verify "$TMP/slow.lua" --json
same "probe timeout: exit 2" "$rc" 2
same "probe timeout: failed" "$(result_of "$TMP/slow.out" "never up")" failed
same "probe timeout: what it saw last" "$(message_of "$TMP/slow.out" "never up")" \
  "would fail: verify: no /never yet"
check "probe timeout: it did not hang" test $((SECONDS - start)) -lt 50
check "probe timeout: it was asked more than once" \
  test "$(grep '"event":"property"' "$TMP/slow.out" | sed -n 's/.*"ms":\([0-9]*\).*/\1/p')" -ge 900

# A host not reached: exit 2 with the reason, the others still verified.
cat >"$TMP/gone.lua" <<EOF
host "t" { connect.dir "$T", os.debian("bookworm", "amd64"),
  property { desc = "here", check = function(sys) return true end, apply = function(sys) end } }
host "missing" { connect.dir "$TMP/no-such-tree", os.debian("bookworm", "amd64"),
  property { desc = "there", check = function(sys) return true end, apply = function(sys) end } }
host "closed" { connect.ssh { address = "127.0.0.1", port = 1 },
  property { desc = "there", check = function(sys) return true end, apply = function(sys) end } }
EOF
run_prop "$TMP/gone.out" verify "$TMP/gone.lua" --json --connect-timeout 5
same "unreachable: exit 2" "$rc" 2
same "unreachable: t still verified" "$(result_of "$TMP/gone.out" here)" ok
check "unreachable: the missing tree, with why" \
  grep -q '"host":"missing".*"unreachable":true,"error":"[^"]*no-such-tree' "$TMP/gone.out"
check "unreachable: the closed port, with why" \
  grep -q '"host":"closed".*"unreachable":true,"error":"[^"]' "$TMP/gone.out"
check "unreachable: no tree made" test ! -e "$TMP/no-such-tree"
check "unreachable: no crash" bash -c "! grep -Eqi 'segmentation|AddressSanitizer|runtime error' '$TMP/gone.out'"
run_prop "$TMP/gone.txt" verify "$TMP/gone.lua" missing
same "unreachable, named: exit 2" "$rc" 2
check "unreachable, text: the reason" grep -q '^missing  unreachable: .*no-such-tree' "$TMP/gone.txt"

# A site with a pre-pass error: exit 2, nothing runs.
cat >"$TMP/bad.lua" <<EOF
host "t" { connect.dir "$T", os.debian("bookworm", "amd64"),
  property { desc = "would write", check = function(sys) sys:write("/ran", "x") return true end,
             apply = function() end },
  property { desc = "no apply", check = function(sys) return true end } }
EOF
run_prop "$TMP/bad.out" verify "$TMP/bad.lua"
same "rejected site: exit 2" "$rc" 2
check "rejected site: the error with its line" grep -q 'bad.lua:4: error\[P012\]' "$TMP/bad.out"
check "rejected site: nothing was run" grep -q 'nothing was run' "$TMP/bad.out"
check "rejected site: nothing written" test ! -e "$T/ran"

# --report: prop run's report document, with "verify":true and the
# counts and results named ok/drift/failed.
printf 'down\n' >"$T/flag"
rm -f "$T/other"
if command -v jq >/dev/null; then
  jqok() { jq -e "$@" >/dev/null; }
  run_prop "$TMP/rep.out" verify "$TMP/site.lua" --report "$TMP/rep.json"
  same "report: exit 2" "$rc" 2
  check "report: verify true" jqok '.verify == true and .exit == 2' "$TMP/rep.json"
  check "report: host counts ok/drift/failed" \
    jqok '.hosts[0] | .host == "t" and .ok == 0 and .drift == 1 and .failed == 1' "$TMP/rep.json"
  check "report: drift" \
    jqok '.hosts[0].properties[] | select(.desc == "flag and state") | .result == "drift"' "$TMP/rep.json"
  check "report: failed, with what the probe saw" \
    jqok '.hosts[0].properties[] | select(.desc == "other looked at") |
      .result == "failed" and .message == "would fail: verify: no /other"' "$TMP/rep.json"
else
  part_missing jq "jq is needed to read the --report document"
fi

# --prometheus: node_exporter textfile-collector metrics, written
# atomically: one series per property and state, label values escaped.
cat >"$TMP/prom.lua" <<EOF
host "t" { connect.dir "$T", os.debian("bookworm", "amd64"),
  property { desc = 'odd "name" \\\\ with\\nnewline', check = function(sys) return true end,
             apply = function(sys) end },
  property { desc = "flag", check = function(sys) return sys:read("/flag") == "up\\n" end,
             apply = function(sys) sys:write("/flag", "up\\n") end },
  property { desc = "other", check = function(sys) return true end, apply = function(sys) end,
             verify = function(sys) return sys:read("/other") ~= nil, "no /other" end,
             probe_timeout = 0 } }
host "u" { connect.dir "$TMP/tree2", os.debian("bookworm", "amd64"),
  property { desc = "fine", check = function(sys) return true end, apply = function(sys) end } }
host "missing" { connect.dir "$TMP/no-such-tree", os.debian("bookworm", "amd64"),
  property { desc = "there", check = function(sys) return true end, apply = function(sys) end } }
EOF
mkdir -p "$TMP/textfile" "$TMP/tree2"
echo "old" >"$TMP/textfile/prop.prom"
P="$TMP/textfile/prop.prom"
# has_series HOST DESC LINE STATE VALUE : P has this prop_property_state
# line (DESC as it is written there, escaped).
has_series() {
  grep -qxF "prop_property_state{host=\"$1\",desc=\"$2\",file=\"$TMP/prom.lua\",line=\"$3\",state=\"$4\"} $5" "$P"
}
before="$(tree_sum)"
run_prop "$TMP/prom.out" verify "$TMP/prom.lua" -j 3 --prometheus "$P"
same "prometheus: exit 2" "$rc" 2
same "prometheus: tree unchanged" "$(tree_sum)" "$before"
same "prometheus: only the metrics file in its directory (no temporary left)" \
  "$(ls -A "$TMP/textfile")" "prop.prom"
if command -v promtool >/dev/null; then
  check "prometheus: promtool check metrics" bash -c "promtool check metrics <'$P' >'$TMP/promtool.out' 2>&1"
else
  part_missing prometheus "promtool (Debian package prometheus) checks the metrics"
fi
check "prometheus: HELP and TYPE" grep -qx '# TYPE prop_property_state gauge' "$P"
check "prometheus: drift is 1" \
  has_series t 'flag' 4 drift 1
check "prometheus: and its ok 0" \
  has_series t 'flag' 4 ok 0
check "prometheus: failed is 1" \
  has_series t 'other' 6 failed 1
check "prometheus: the other job's host" \
  has_series u 'fine' 10 ok 1
check "prometheus: label values escaped" \
  has_series t 'odd \"name\" \\ with\nnewline' 2 ok 1
check "prometheus: host up" grep -qx 'prop_host_up{host="t"} 1' "$P"
check "prometheus: host not reached" grep -qx 'prop_host_up{host="missing"} 0' "$P"
check "prometheus: host counts" grep -qx 'prop_host_properties{host="t",state="drift"} 1' "$P"
check "prometheus: last run's time" \
  grep -Eqx 'prop_verify_last_run_timestamp_seconds [0-9]{10,}' "$P"
check "prometheus: its duration" grep -Eqx 'prop_verify_duration_seconds [0-9.]+' "$P"
check "prometheus: its exit code" grep -qx 'prop_verify_exit_code 2' "$P"
# All holds: the file says so.
printf 'up\n' >"$T/flag"
: >"$T/other"
run_prop "$TMP/prom2.out" verify "$TMP/prom.lua" t --prometheus "$P"
same "prometheus: all hold: exit 0" "$rc" 0
check "prometheus: flag ok now" \
  has_series t 'flag' 4 ok 1
check "prometheus: exit code 0" grep -qx 'prop_verify_exit_code 0' "$P"
# A directory that cannot be written: a failure, said.
run_prop "$TMP/prom3.out" verify "$TMP/prom.lua" t --prometheus "$TMP/no-such-dir/prop.prom"
same "prometheus: unwritable: exit 2" "$rc" 2
check "prometheus: unwritable: said" grep -q 'cannot write the metrics' "$TMP/prom3.out"

# Usage errors: 64.
run_prop "$TMP/u1.out" verify
same "usage: no site: 64" "$rc" 64
run_prop "$TMP/u2.out" verify "$TMP/site.lua" --frobnicate
same "usage: unknown option: 64" "$rc" 64
check "usage: names it" grep -q 'frobnicate' "$TMP/u2.out"
run_prop "$TMP/u3.out" verify "$TMP/site.lua" -j 0
same "usage: -j 0: 64" "$rc" 64
run_prop "$TMP/u4.out" verify "$TMP/site.lua" nosuchhost
same "usage: unknown host: 64" "$rc" 64
check "usage: the unknown host named" grep -q 'declares no host "nosuchhost"' "$TMP/u4.out"
run_prop "$TMP/u5.out" verify "$TMP/site.lua" --prometheus
same "usage: --prometheus without a file: 64" "$rc" 64
run_prop "$TMP/h.out" verify --help
same "help: exit 0" "$rc" 0
check "help: the usage line" grep -q 'prop verify SITE' "$TMP/h.out"

finish
