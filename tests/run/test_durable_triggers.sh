#!/usr/bin/env bash
# test_durable_triggers.sh - a trigger target owed by a run (its trigger
# changed, then it failed, or prop was killed before it ran) is kept in
# /var/lib/prop/pending on the target and run by the next run, even when
# its trigger is then ok, until it succeeds; then the record is removed.
# Shown in text ("pending from the last run") and JSON ("pending" events,
# "pending":true on the target's event); a dry run says what would run
# and writes nothing; a record whose property the site no longer has is
# reported and dropped; another host's records are kept.
#
# Everything happens in a connect.dir tree in the test's scratch
# directory: its /var/lib/prop/pending is $T/var/lib/prop/pending.  At
# the end, PROP_STATE_DIR puts the record elsewhere.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
# The default place, under the tree.
unset PROP_STATE_DIR

T="$TMP/tree"
PENDING="$T/var/lib/prop/pending"
mkdir -p "$T"

# site FILE A-CONTENT : a.conf :on_change(restart b); b fails unless
# /ready is in the tree, waits while /hold is there, and counts its runs
# in /b.count.
site() {
  cat >"$1" <<LUA
local restart = property {
  desc = "restart b",
  apply = function(sys)
    sys:write("/b-started", "1")
    while sys:exists("/hold") do end
    if not sys:exists("/ready") then error("b is not ready") end
    sys:write("/b.count", (sys:exists("/b.count") and sys:read("/b.count") or "") .. "x\n")
  end,
}
host "box" {
  connect.dir "$T",
  os.debian("bookworm", "amd64"),
  file.has_content("/a.conf", { "$2" }):on_change(restart),
  file.has_content("/other", { "other" }),
}
LUA
}

# event OUT FILTER : some JSON event of OUT is as the jq FILTER says.
event() {
  grep '^{' "$1" | jq -s -e "any(.[]; $2)" >/dev/null
}

# ---- b fails: owed, kept on the target -----------------------------------
site "$TMP/s1.lua" v1
run_prop "$TMP/out1" run "$TMP/s1.lua"
same "failed: exit" "$rc" 1
check "failed: b failed" grep -q 'b is not ready' "$TMP/out1"
check "failed: the record is kept" test -f "$PENDING"
same "failed: one record, for this host and property" \
  "$(grep -v '^#' "$PENDING" | cut -f1,2)" "$(printf 'box\trestart b')"
same "failed: its origin" "$(grep -v '^#' "$PENDING" | cut -f3)" "$TMP/s1.lua:1"
same "failed: b did not count" "$(lines "$T/b.count")" 0
same "failed: mode 0600" "$(mode_of "$PENDING")" 0600

# ---- dry run: says b would run, writes nothing ----------------------------
touch "$T/ready"
before="$(tree_state "$T")"
run_prop "$TMP/out2" run "$TMP/s1.lua" --dry-run
same "dry: exit" "$rc" 0
check "dry: pending from the last run, would run" grep -qF \
  "box  pending from the last run: restart b ($TMP/s1.lua:1): would run" "$TMP/out2"
check "dry: b would change, for the last run" grep -qF \
  "would change: restart b (triggered by: pending from the last run)" "$TMP/out2"
same "dry: the tree is as it was (the record too)" "$(tree_state "$T")" "$before"
prop_run "$TMP/out2j" "$TMP/s1.lua" --dry-run
check "dry json: pending event" event "$TMP/out2j" \
  ".event == \"pending\" and .host == \"box\" and .desc == \"restart b\" and .origin == \"$TMP/s1.lua:1\" and .dry_run"
same "dry json: the tree is as it was" "$(tree_state "$T")" "$before"

# ---- next run: a is ok, b runs (once) and succeeds; the record goes -------
prop_run "$TMP/out3" "$TMP/s1.lua"
same "second: exit" "$rc" 0
same "second: b ran once" "$(lines "$T/b.count")" 1
same "second: the property holding b changed (b did)" "$(result_of "$TMP/out3" "file /a.conf")" changed
check "second: pending event" event "$TMP/out3" \
  '.event == "pending" and .host == "box" and .desc == "restart b"'
check "second: b's event says it was owed" grep -qE \
  '"desc":"restart b".*"result":"changed".*"triggered_by":\[\],"pending":true' "$TMP/out3"
check "second: the record is removed" test ! -e "$PENDING"
check "second: no crash" bash -c "! grep -Eqi 'AddressSanitizer|runtime error:' '$TMP/out3'"

# ---- third run: nothing ---------------------------------------------------
run_prop "$TMP/out4" run "$TMP/s1.lua"
same "third: exit" "$rc" 0
same "third: b did not run" "$(lines "$T/b.count")" 1
check "third: nothing pending" bash -c "! grep -q 'pending' '$TMP/out4'"
check "third: all ok" grep -q 'box: 2 ok, 0 changed, 0 failed' "$TMP/out4"

# ---- a change and an owed run: b runs once -------------------------------
site "$TMP/s2.lua" v2
rm -f "$T/ready"
run_prop "$TMP/out5" run "$TMP/s2.lua"
same "owed again: first exit" "$rc" 1
check "owed again: recorded" grep -q 'restart b' "$PENDING"
touch "$T/ready"
site "$TMP/s3.lua" v3
run_prop "$TMP/out6" run "$TMP/s3.lua"
same "owed and changed: exit" "$rc" 0
same "owed and changed: b ran once" "$(lines "$T/b.count")" 2
check "owed and changed: text names both" grep -qF \
  "(triggered by: pending from the last run, file /a.conf has content)" "$TMP/out6"
check "owed and changed: the record is removed" test ! -e "$PENDING"

# ---- kill -9 between a and b ---------------------------------------------
site "$TMP/s4.lua" v4
rm -f "$T/b-started"
touch "$T/hold"
"$PROP" run "$TMP/s4.lua" --max-instructions 100000000000000 >"$TMP/out7" 2>&1 &
pid=$!
# The watchdog closes the run tests' lock (fd 9, common.sh), which its
# sleep would otherwise hold for two minutes after this test ends.
(exec 9>&-; sleep 120 && kill -KILL "$pid") >/dev/null 2>&1 &
dog=$!
for ((i = 0; i < 600; i++)); do
  [[ -s "$T/b-started" ]] && break
  sleep 0.1
done
check "kill: b started" test -s "$T/b-started"
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
pkill -P "$dog" sleep 2>/dev/null
kill "$dog" 2>/dev/null
wait "$dog" 2>/dev/null
rm -f "$T/hold"
same "kill: a was written" "$(cat "$T/a.conf")" v4
same "kill: b did not finish" "$(lines "$T/b.count")" 2
check "kill: b is recorded as owed" grep -q "$(printf 'box\trestart b')" "$PENDING"
run_prop "$TMP/out8" run "$TMP/s4.lua"
same "after kill: exit" "$rc" 0
check "after kill: a is ok" grep -q 'box  file /a.conf has content ... changed' "$TMP/out8"
check "after kill: pending shown" grep -qF "box  pending from the last run: restart b" "$TMP/out8"
same "after kill: b ran" "$(lines "$T/b.count")" 3
check "after kill: the record is removed" test ! -e "$PENDING"
run_prop "$TMP/out9" run "$TMP/s4.lua"
same "after kill, again: b did not run" "$(lines "$T/b.count")" 3

# ---- a record the site no longer has; another host's record ---------------
mkdir -p "$(dirname "$PENDING")"
printf '# kept by prop\nbox\trestart c\t%s\nweb9\trestart b\tx.lua:1\nbroken line\n' \
  "$TMP/s4.lua:9" >"$PENDING"
cp "$PENDING" "$TMP/pending.before"
prop_run "$TMP/out10" "$TMP/s4.lua" --dry-run
check "gone, dry: reported" event "$TMP/out10" \
  ".event == \"pending_dropped\" and .desc == \"restart c\" and .origin == \"$TMP/s4.lua:9\" and .dry_run"
check "gone, dry: the file is untouched" cmp -s "$PENDING" "$TMP/pending.before"
check "gone, dry: the malformed line is named with its file and line" grep -qF \
  "warning: /var/lib/prop/pending:4: not a record of an owed trigger" "$TMP/out10"
run_prop "$TMP/out11" run "$TMP/s4.lua"
same "gone: exit" "$rc" 0
check "gone: a warning names it" grep -qF \
  "box  warning: pending from the last run: restart c ($TMP/s4.lua:9): the site has no trigger target so described any more; dropped" \
  "$TMP/out11"
same "gone: b did not run" "$(lines "$T/b.count")" 3
same "gone: only the other host's record is left" "$(grep -v '^#' "$PENDING")" \
  "$(printf 'web9\trestart b\tx.lua:1')"
check "gone: no crash" bash -c "! grep -Eqi 'AddressSanitizer|runtime error:' '$TMP/out11'"

# ---- PROP_STATE_DIR: the record is kept there ------------------------------
rm -f "$PENDING" "$T/ready"
site "$TMP/s5.lua" v5
PROP_STATE_DIR=/srv/prop-state run_prop "$TMP/out12" run "$TMP/s5.lua"
same "state dir: exit" "$rc" 1
check "state dir: the record is there" grep -q "$(printf 'box\trestart b')" \
  "$T/srv/prop-state/pending"
check "state dir: not in the default place" test ! -e "$PENDING"
touch "$T/ready"
PROP_STATE_DIR=/srv/prop-state run_prop "$TMP/out13" run "$TMP/s5.lua"
same "state dir: the owed run" "$rc/$(lines "$T/b.count")" "0/4"
check "state dir: the record is removed" test ! -e "$T/srv/prop-state/pending"
PROP_STATE_DIR=relative/dir run_prop "$TMP/out14" run "$TMP/s5.lua"
same "state dir: a relative path is a usage error" "$rc" 64
check "state dir: said so" grep -q 'PROP_STATE_DIR=relative/dir: an absolute path is wanted' \
  "$TMP/out14"

finish
