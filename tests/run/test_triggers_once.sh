#!/usr/bin/env bash
# Triggers that run once: two files each :on_change of the same command
# (one cmd.run value) run it once, after both were written, only
# when one of them changed; a failing target fails once; the output names
# what triggered it (text and JSON).  Everything happens in the test's
# scratch directory on this machine.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

S="$TMP/scratch"
mkdir -p "$S"
A="$S/a.conf"
B="$S/b.conf"
COUNTER="$S/counter"

# site FILE A-CONTENT B-CONTENT [EXIT-CODE]: the counting command appends
# one line with what both files hold when it runs, then exits with the code.
site() {
  cat >"$1" <<LUA
local count = cmd.run { "sh", "-c", "echo \"run \$(cat $A 2>/dev/null) \$(cat $B 2>/dev/null)\" >> $COUNTER; exit ${4:-0}" }
host "localhost" {
  os.debian("bookworm", "amd64"),
  file.has_content("$A", { "$2" }):on_change(count),
  file.has_content("$B", { "$3" }):on_change(count),
  file.has_content("$S/after", { "after" }),
}
LUA
}

# ---- both change: once, after both ---------------------------------------
site "$TMP/s1.lua" a1 b1
prop_run "$TMP/out1" "$TMP/s1.lua"
same "both: exit" "$rc" 0
same "both: the target ran once" "$(lines "$COUNTER")" 1
same "both: it ran after both files were written" "$(cat "$COUNTER")" "run a1 b1"
same "both: one event for the target" \
  "$(grep -c '"desc":"run sh -c' "$TMP/out1")" 1
check "both: triggered_by names both files" grep -qF \
  "\"triggered_by\":[\"file $A has content\",\"file $B has content\"]" "$TMP/out1"
same "both: the host counts the target once" "$(host_count "$TMP/out1" localhost changed)" 4

# ---- nothing changes: not at all -----------------------------------------
prop_run "$TMP/out2" "$TMP/s1.lua"
same "none: exit" "$rc" 0
same "none: the target did not run" "$(lines "$COUNTER")" 1
check "none: no triggered_by" bash -c "! grep -q triggered_by '$TMP/out2'"

# ---- only the first changes: once, still after the second ----------------
site "$TMP/s3.lua" a2 b1
prop_run "$TMP/out3" "$TMP/s3.lua"
same "first only: exit" "$rc" 0
same "first only: the target ran once more" "$(lines "$COUNTER")" 2
same "first only: with the new content" "$(tail -1 "$COUNTER")" "run a2 b1"
check "first only: triggered_by names the first file alone" grep -qF \
  "\"triggered_by\":[\"file $A has content\"]" "$TMP/out3"

# ---- only the second changes ---------------------------------------------
site "$TMP/s4.lua" a2 b2
prop_run "$TMP/out4" "$TMP/s4.lua"
same "second only: the target ran once more" "$(lines "$COUNTER")" 3
check "second only: triggered_by names the second file alone" grep -qF \
  "\"triggered_by\":[\"file $B has content\"]" "$TMP/out4"

# ---- text output, dry run: "would change" once, nothing runs -------------
site "$TMP/s5.lua" a3 b3
run_prop "$TMP/out5" run "$TMP/s5.lua" --dry-run
same "dry: exit" "$rc" 0
same "dry: the target did not run" "$(lines "$COUNTER")" 3
same "dry: would change once, with both triggers" \
  "$(grep -cF "would change: run sh -c" "$TMP/out5")" 1
check "dry: the line names both" grep -qF \
  "(triggered by: file $A has content, file $B has content)" "$TMP/out5"

# ---- a failing target: run once, failed once -----------------------------
site "$TMP/s6.lua" a4 b4 3
prop_run "$TMP/out6" "$TMP/s6.lua"
same "failing: exit" "$rc" 1
same "failing: the target ran once" "$(lines "$COUNTER")" 4
same "failing: after both" "$(tail -1 "$COUNTER")" "run a4 b4"
same "failing: one failed event for the target" \
  "$(grep '"desc":"run sh -c' "$TMP/out6" | grep -c '"result":"failed"')" 1
same "failing: the host counts one failure" "$(host_count "$TMP/out6" localhost failed)" 1
same "failing: the second file's property takes it" \
  "$(result_of "$TMP/out6" "\"file $B has content\"")" failed
same "failing: the first file's property changed" \
  "$(result_of "$TMP/out6" "\"file $A has content\"")" changed
check "failing: the file after still ran" test -e "$S/after"


# ---- two separate equal cmd.run calls are two properties: each runs ------
# (a property that claims nothing is the same only as itself)
cat >"$TMP/s7.lua" <<LUA
local function count()
  return cmd.run { "sh", "-c", "echo separate >> $COUNTER" }
end
host "localhost" {
  os.debian("bookworm", "amd64"),
  file.has_content("$A", { "a5" }):on_change(count()),
  file.has_content("$B", { "b5" }):on_change(count()),
}
LUA
prop_run "$TMP/out7" "$TMP/s7.lua"
same "separate calls: exit" "$rc" 0
same "separate calls: each ran" "$(grep -c '^separate$' "$COUNTER")" 2
same "separate calls: no triggered_by" "$(grep -c triggered_by "$TMP/out7" || true)" 0

finish
