#!/usr/bin/env bash
# The record of owed triggers a target keeps (/var/lib/prop/pending) is
# the target's to write, so prop run reads it as untrusted input: 80,000
# records are read in linear time; many records of one target run it
# once and are named once; a record no trigger target of the
# site matches (one the target forged) is dropped with a warning and not
# run, the first few named and the rest counted; a record over the bound
# of one line, and a long record, are shown cut, never in full; a file
# over the bound of the whole is not read and a real run removes it; a
# pipe in its place does not hang the run.  Runs against a connect.dir
# tree in the scratch directory: nothing else is touched.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
unset PROP_STATE_DIR

T="$TMP/tree"
PENDING="$T/var/lib/prop/pending"
mkdir -p "$T/var/lib/prop"
cd "$TMP"

# The trigger target counts its runs in /b.count.
cat >site.lua <<LUA
local restart = property {
  desc = "restart b",
  apply = function(sys)
    sys:write("/b.count", (sys:exists("/b.count") and sys:read("/b.count") or "") .. "x\n")
  end,
}
host "box" {
  connect.dir "$T",
  os.debian("bookworm", "amd64"),
  file.has_content("/a.conf", { "a" }):on_change(restart),
}
LUA
run_prop "$TMP/out" run site.lua
same "setup: the run" "$rc" 0
count() { if [[ -f "$T/b.count" ]]; then wc -l <"$T/b.count" | tr -d ' '; else echo 0; fi; }
same "setup: b ran once" "$(count)" 1

# ---- 80,000 forged records: read in linear time, dropped, not run ------------
{
  echo "# forged"
  for ((i = 0; i < 80000; i++)); do printf 'box\trm -rf / %d\tsite.lua:%d\n' "$i" "$i"; done
  printf 'web9\trestart b\tx.lua:1\n'
} >"$PENDING"
start=$SECONDS
run_prop "$TMP/out" run site.lua
took=$((SECONDS - start))
same "many: exit" "$rc" 0
# A generous bound: reading them compared each record with every other
# one, and took 46 s.
check "many: done in less than 20 s (took $took s)" test "$took" -lt 20
same "many: the first ten named" \
  "$(grep -c 'warning: pending from the last run: rm -rf / .*: the site has no trigger target so described any more; dropped' "$TMP/out")" 10
check "many: the rest counted" grep -qF \
  'box  warning: pending from the last run: 79990 more records for which the site has no trigger target; dropped' \
  "$TMP/out"
same "many: b did not run" "$(count)" 1
same "many: only the other host's record is left" "$(grep -v '^#' "$PENDING")" \
  "$(printf 'web9\trestart b\tx.lua:1')"
check "many: no crash" bash -c "! grep -Eqi 'AddressSanitizer|runtime error:' '$TMP/out'"

# ---- 80,000 records of the one real target: it runs once, named once -------
for ((i = 0; i < 80000; i++)); do printf 'box\trestart b\tsite.lua:%d\n' "$i"; done >"$PENDING"
run_prop "$TMP/out" run site.lua
same "one target: exit" "$rc" 0
same "one target: named once" "$(grep -c 'pending from the last run: restart b' "$TMP/out")" 1
same "one target: b ran once" "$(count)" 2
check "one target: the records are gone" test ! -e "$PENDING"

# ---- one forged record, in JSON: dropped, not run --------------------------
printf 'box\tsomething else\tsite.lua:1\n' >"$PENDING"
run_prop "$TMP/out" run site.lua --json
same "forged: exit" "$rc" 0
check "forged: a pending_dropped event" grep -qE \
  '"event":"pending_dropped".*"desc":"something else","origin":"site.lua:1"' "$TMP/out"
same "forged: b did not run" "$(count)" 2
check "forged: the record is gone" test ! -e "$PENDING"

# ---- a line over the bound, and a long record: cut -------------------------
{
  printf 'box\t%s\tsite.lua:1\n' "$(head -c 100000 /dev/zero | tr '\0' y)"
  printf 'box\t%s\tsite.lua:2\n' "$(head -c 60000 /dev/zero | tr '\0' z)"
} >"$PENDING"
run_prop "$TMP/out" run site.lua
same "long: exit" "$rc" 0
check "long: the line over the bound is named, cut" grep -qE \
  "warning: /var/lib/prop/pending:1: not a record of an owed trigger \(skipped\): box\\\\ty{100,130}\.\.\. \(100015 bytes\)$" \
  "$TMP/out"
check "long: the long record is dropped, cut" grep -qE \
  "warning: pending from the last run: z{100,130}\.\.\. \(60000 bytes\) \(site.lua:2\): the site has no trigger target" \
  "$TMP/out"
check "long: the output stays short ($(wc -c <"$TMP/out") bytes)" test "$(wc -c <"$TMP/out")" -lt 4096
same "long: b did not run" "$(count)" 2

# ---- a file over the bound: not read; a real run removes it -----------------
head -c $((17 * 1024 * 1024)) /dev/zero | tr '\0' '#' >"$PENDING"
run_prop "$TMP/out" run --dry-run site.lua
same "huge, dry: exit" "$rc" 0
check "huge, dry: said so" grep -qF \
  "warning: /var/lib/prop/pending is 17825792 bytes, more than the 16777216 a record of owed triggers may be: none of it is read, and a real run removes it" \
  "$TMP/out"
check "huge, dry: kept" test -s "$PENDING"
run_prop "$TMP/out" run site.lua
same "huge: exit" "$rc" 0
check "huge: said so" grep -qF "none of it is read, and it is removed" "$TMP/out"
check "huge: removed" test ! -e "$PENDING"

# ---- a pipe: not read (it would never end) ---------------------------------
mkfifo "$PENDING"
PROP_RUN_TIMEOUT=60 run_prop "$TMP/out" run site.lua
same "pipe: exit (not 124: it did not hang)" "$rc" 0
check "pipe: said so" grep -qF \
  "warning: /var/lib/prop/pending is not a regular file; owed triggers are not kept" "$TMP/out"
check "pipe: left alone" test -p "$PENDING"

finish
