#!/usr/bin/env bash
# p:period on a connect.dir tree: a dry run says the property is due and
# writes nothing; the first run ensures it and keeps the time under
# /var/lib/prop/period/ of the target; the next run is not due (zero
# changes) even when the property's file has drifted; a stamp made old
# by hand makes it due again; a property that fails leaves no stamp and
# runs again; one stamp per host and property.  No clock is waited on.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

T="$TMP/tree"
U="$TMP/tree2"
mkdir -p "$T/etc" "$U/etc"
D="$T/var/lib/prop/period"
cat >"$TMP/site.lua" <<EOF
local motd = file.has_content("/etc/motd", "hello\n")
host "tree" { connect.dir "$T", motd:period("daily") }
host "tree2" { connect.dir "$U", motd:period(3600) }
EOF

prop_run "$TMP/dry.out" "$TMP/site.lua" --dry-run
expect_run "dry run: would change" "$TMP/dry.out" 0 2 0 0
check "dry run: says it is due" grep -q "due (daily): no run recorded" "$TMP/dry.out"
check "dry run: no stamp" test ! -e "$T/var"
check "dry run: no file" test ! -e "$T/etc/motd"

prop_run "$TMP/run1.out" "$TMP/site.lua"
expect_run "first run: changed" "$TMP/run1.out" 0 2 0 0
same "the file" "$(cat "$T/etc/motd")" hello
stamp="$(ls "$D")"
same "one stamp" "$(ls "$D" | wc -l)" 1
check "the stamp's name: the description and a hash" test "${stamp%-*}" = "file-etc-motd-has-content"
same "the stamp's fields" "$(sed -n '2,4p' "$D/$stamp")" "host=tree
property=file /etc/motd has content
every=86400"
check "the stamp's time" grep -Eq '^last=[0-9]+$' "$D/$stamp"
check "another host: its own stamp" test "$(ls "$U/var/lib/prop/period")" != "$stamp"

# Not due: nothing runs, even though the file drifted.
echo drift >"$T/etc/motd"
cp "$D/$stamp" "$TMP/stamp.before"
prop_run "$TMP/run2.out" "$TMP/site.lua" tree
expect_run "second run: ok" "$TMP/run2.out" 0 0 1 0
check "second run: says when it is due" grep -q "not due (daily): last run .* ago, due again in" "$TMP/run2.out"
same "second run: drift left" "$(cat "$T/etc/motd")" drift
check "second run: stamp unchanged" cmp -s "$D/$stamp" "$TMP/stamp.before"
prop_run "$TMP/dry2.out" "$TMP/site.lua" tree --dry-run
expect_run "dry run, not due: ok" "$TMP/dry2.out" 0 0 1 0
check "dry run, not due: says so" grep -q "not due (daily)" "$TMP/dry2.out"

# A stamp two days old: due again.
old=$(($(sed -n 's/^last=//p' "$D/$stamp") - 2 * 86400))
sed -i "s/^last=.*/last=$old/" "$D/$stamp"
prop_run "$TMP/run3.out" "$TMP/site.lua" tree
expect_run "stamp two days old: changed" "$TMP/run3.out" 0 1 0 0
check "stamp two days old: says due" grep -q "due (daily): last run 2d 0h ago" "$TMP/run3.out"
same "stamp two days old: the file again" "$(cat "$T/etc/motd")" hello
check "stamp two days old: renewed" test "$(sed -n 's/^last=//p' "$D/$stamp")" -gt "$old"

# A property that fails leaves no stamp: it runs again next time.
mkdir -p "$T/etc/broken"
cat >"$TMP/fail.lua" <<EOF
host "tree" { connect.dir "$T", file.has_content("/etc/broken", "x\n"):period("weekly") }
EOF
prop_run "$TMP/f1.out" "$TMP/fail.lua"
expect_run "failing property: failed" "$TMP/f1.out" 1 0 0 1
same "failing property: no stamp" "$(ls "$D" | wc -l)" 1
prop_run "$TMP/f2.out" "$TMP/fail.lua"
expect_run "failing property: tried again" "$TMP/f2.out" 1 0 0 1

cat >"$TMP/bad.lua" <<EOF
host "tree" { connect.dir "$T", file.has_content("/etc/a", "a\n"):period("dayly"),
  file.has_content("/etc/b", "b\n"):period(0) }
EOF
run_prop "$TMP/bad.out" lint "$TMP/bad.lua"
check "bad period: P012 with a suggestion" grep -q 'bad.lua:1: error\[P012\]: period: "dayly" is not a period.*did you mean "daily"' "$TMP/bad.out"
check "zero seconds: P012" grep -q 'bad.lua:2: error\[P012\]' "$TMP/bad.out"

finish
