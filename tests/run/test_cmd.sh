#!/usr/bin/env bash
# cmd.run on localhost: creates and unless make it idempotent, a bare
# command runs every time, a failing command is a failure with its stderr,
# and a dry run runs nothing but unless.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

D="$TMP/cmd"
mkdir -p "$D"
cat >"$TMP/cmd.lua" <<EOF
host "localhost" {
  cmd.run({ "sh", "-c", "echo made >> $D/created; echo made it" }, { creates = "$D/created" }),
  cmd.run({ "sh", "-c", "echo x >> $D/unless" }, { unless = { "grep", "-q", "x", "$D/unless" } }),
  cmd.run({ "sh", "-c", "echo run >> $D/bare" }),
}
EOF

before="$(tree_state "$D")"
prop_run "$TMP/dry.out" "$TMP/cmd.lua" --dry-run
expect_run "dry run: all three would run" "$TMP/dry.out" 0 3 0 0
same "dry run: nothing ran" "$(tree_state "$D")" "$before"

prop_run "$TMP/run1.out" "$TMP/cmd.lua"
expect_run "first run: all three ran" "$TMP/run1.out" 0 3 0 0
same "creates: ran once" "$(cat "$D/created")" made
same "unless: ran once" "$(cat "$D/unless")" x
same "bare: ran" "$(cat "$D/bare")" run

prop_run "$TMP/run2.out" "$TMP/cmd.lua"
expect_run "second run: only the bare command runs" "$TMP/run2.out" 0 1 2 0
same "creates: not run again" "$(cat "$D/created")" made
same "unless: not run again" "$(cat "$D/unless")" x
same "bare: ran again" "$(cat "$D/bare")" $'run\nrun'
same "bare: is the changed one" "$(result_of "$TMP/run2.out" "bare")" changed

# unless runs in a dry run too (it only looks), so the dry run knows.
prop_run "$TMP/dry2.out" "$TMP/cmd.lua" --dry-run
expect_run "dry run after: creates and unless say ok" "$TMP/dry2.out" 0 1 2 0
same "dry run after: bare not run" "$(cat "$D/bare")" $'run\nrun'

# A failing command: the property fails with the exit code and stderr;
# the next property still runs.
cat >"$TMP/fail.lua" <<EOF
host "localhost" {
  cmd.run({ "sh", "-c", "echo boom-on-stderr >&2; exit 3" }),
  cmd.run({ "prop-test-no-such-program" }),
  cmd.run({ "touch", "$D/after" }, { unless = { "prop-test-no-such-program" } }),
  cmd.run({ "touch", "$D/after" }),
}
EOF
prop_run "$TMP/fail.out" "$TMP/fail.lua"
expect_run "failing commands fail" "$TMP/fail.out" 1 1 0 3
check "failure shows stderr" grep -q 'boom-on-stderr' "$TMP/fail.out"
check "failure shows the exit code" grep -q 'exited with 3' "$TMP/fail.out"
check "missing program named" grep -q 'prop-test-no-such-program' "$TMP/fail.out"
check "the property after the failures ran" test -e "$D/after"

finish
