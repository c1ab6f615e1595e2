#!/usr/bin/env bash
# Facts the site defines (fact "name" { cmd = ..., file = ..., parse = ... }),
# for real: a version read from a file on this machine chooses which
# content a config file gets and whether a guarded file is written
# (content functions, only_if), the command runs once per host however
# many properties read it (counted in a log it appends to), in a dry run
# too; a command that fails and a parse function that raises fail the
# properties that read them, with the fact's name and the site's line,
# while the others go on; --json gives each host's "facts" event; on a
# connect.dir tree a file fact reads the tree's file.  Everything prop
# writes is under the test's scratch directory.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

L="$TMP/local"
T="$TMP/tree"
mkdir -p "$L" "$T/etc"
echo "12.5" >"$T/etc/debian_version"
cat >"$TMP/site.lua" <<EOF
fact "debver" {
  cmd = { "sh", "-c", "echo run >>$TMP/count; cat $T/etc/debian_version" },
  parse = function(out) return tonumber(out:match("^(%d+)")) end,
}
fact "broken" { cmd = { "sh", "-c", "echo no such server >&2; exit 3" } }
fact "raises" { cmd = { "true" }, parse = function(out) error("cannot parse") end }
fact "treever" { file = "/etc/debian_version", parse = function(text) return text:match("^(%d+)") end }
host "localhost" {
  file.has_content("$L/app.conf", function(facts)
    if facts.debver >= 12 then return "branch new\n" end
    return "branch old\n"
  end),
  file.has_content("$L/guarded", "new enough\n"):only_if(function(sys) return sys.facts.debver >= 12 end),
  file.has_content("$L/broken", function(facts) return facts.broken end),
  file.has_content("$L/raises", function(facts) return facts.raises end),
  file.has_content("$L/plain", "plain\n"),
}
host "tree" {
  connect.dir("$T"),
  file.has_content("/etc/app.conf", function(facts) return "tree " .. facts.treever .. "\n" end),
}
EOF

runs() { [[ -e "$TMP/count" ]] && wc -l <"$TMP/count" || echo 0; }

# --- dry run: the fact's command runs (it only looks), nothing is written.
prop_run "$TMP/dry.out" "$TMP/site.lua" --dry-run --diff
same "dry run: exit 1 (two properties read a failing fact)" "$rc" 1
same "dry run: the fact's command ran once" "$(runs)" 1
check "dry run: the diff shows the branch the fact chose" grep -qF '+branch new' "$TMP/dry.out"
same "dry run: nothing written" "$(ls -A "$L")" ""
check "dry run: a facts event with the value" \
  grep -qF '"host":"localhost","facts":{"debver":{"value":12}' "$TMP/dry.out"

# --- the real run.
: >"$TMP/count"
prop_run "$TMP/run.out" "$TMP/site.lua"
same "run: exit 1" "$rc" 1
same "run: the fact's command ran once for two properties and a test" "$(runs)" 1
same "run: the version chose the branch" "$(cat "$L/app.conf")" "branch new"
same "run: only_if on a site fact" "$(cat "$L/guarded" 2>/dev/null)" "new enough"
same "run: the others went on" "$(cat "$L/plain" 2>/dev/null)" "plain"
check "run: a failing command names the fact, its line and why" \
  grep -qF 'fact \"broken\" ('"$TMP"'/site.lua:5): sh -c' "$TMP/run.out"
check "run: ... and the command's error" grep -qF 'exited with 3: no such server' "$TMP/run.out"
check "run: a parse that raises names the fact and its line" \
  grep -qF 'fact \"raises\" ('"$TMP"'/site.lua:6): its parse function raised' "$TMP/run.out"
check "run: nothing written from a failing fact" test ! -e "$L/broken" -a ! -e "$L/raises"
check "run: the tree's file fact" grep -qx 'tree 12' "$T/etc/app.conf"
check "run: --json facts event: values and errors" \
  grep -qF '"broken":{"error":"fact \"broken\" ('"$TMP"'/site.lua:5): sh -c' "$TMP/run.out"
check "run: --json facts event of the tree" \
  grep -qF '"host":"tree","facts":{"treever":{"value":"12"}}' "$TMP/run.out"
same "run: one facts event per host" "$(grep -c '"event":"facts"' "$TMP/run.out")" 2

# --- the server's version changes: the other branch, the guard closes.
echo "11.9" >"$T/etc/debian_version"
: >"$TMP/count"
prop_run "$TMP/run2.out" "$TMP/site.lua"
same "older version: the fact ran once" "$(runs)" 1
same "older version: the other branch" "$(cat "$L/app.conf")" "branch old"
check "older version: the tree follows" grep -qx 'tree 11' "$T/etc/app.conf"

# --- a site that reads no site fact gives no facts event.
cat >"$TMP/none.lua" <<EOF
fact "debver" { cmd = { "sh", "-c", "echo run >>$TMP/count" } }
host "localhost" { file.has_content("$L/plain", "plain\n") }
EOF
: >"$TMP/count"
prop_run "$TMP/none.out" "$TMP/none.lua"
same "unused: exit 0" "$rc" 0
same "unused: the fact's command never ran" "$(runs)" 0
check "unused: no facts event" sh -c "! grep -q '\"event\":\"facts\"' '$TMP/none.out'"

finish
