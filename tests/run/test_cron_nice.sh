#!/usr/bin/env bash
# cron.nice_job in a connect.dir tree: the file (dry run, first run,
# second run ok, revert), and its command line run by sh as cron would
# run it: in cwd, niced, in the idle I/O class, with the shell command
# intact ("%" and quotes included).
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

T="$TMP/tree"
mkdir -p "$T/etc" "$TMP/work"
F="$T/etc/cron.d/report"
CMD="echo \"\$(pwd) \$(nice) \$(ionice)\" > out; echo '50% done' >> out"
cat >"$TMP/job.lua" <<EOF
local job = cron.nice_job("report", "15 3 * * *", "nobody", "$TMP/work", [[$CMD]])
host "tree" { connect.dir "$T", job }
EOF
cat >"$TMP/gone.lua" <<EOF
host "tree" { connect.dir "$T", revert(cron.nice_job("report", "15 3 * * *", "nobody", "$TMP/work", [[$CMD]])) }
EOF

prop_run "$TMP/dry.out" "$TMP/job.lua" --dry-run
expect_run "dry run: would change" "$TMP/dry.out" 0 1 0 0
check "dry run: no file" test ! -e "$F"
prop_run "$TMP/run1.out" "$TMP/job.lua"
expect_run "first run: changed" "$TMP/run1.out" 0 1 0 0
same "mode and owner" "$(mode_of "$F") $(owner_of "$F")" "0644 root:root"
line="$(tail -1 "$F")"
same "schedule and user" "$(echo "$line" | cut -d' ' -f1-6)" "15 3 * * * nobody"
prop_run "$TMP/run2.out" "$TMP/job.lua"
expect_run "second run: ok" "$TMP/run2.out" 0 0 1 0

# The command as cron runs it: the 7th field on, "\%" read as "%".
cmdline="$(echo "$line" | cut -d' ' -f7- | sed 's/\\%/%/g')"
(cd / && sh -c "$cmdline")
same "runs in cwd, niced, idle I/O" "$(head -1 "$TMP/work/out")" "$TMP/work 10 idle"
same "the command's own % and quotes" "$(tail -1 "$TMP/work/out")" "50% done"

prop_run "$TMP/r1.out" "$TMP/gone.lua"
expect_run "revert: changed" "$TMP/r1.out" 0 1 0 0
check "revert: the file is gone" test ! -e "$F"
prop_run "$TMP/r2.out" "$TMP/gone.lua"
expect_run "revert again: ok" "$TMP/r2.out" 0 0 1 0

cat >"$TMP/bad.lua" <<EOF
host "tree" { cron.nice_job("a.b", "daily", "root", "tmp", "x\ny") }
EOF
run_prop "$TMP/bad.out" lint "$TMP/bad.lua"
check "bad arguments: P012 at the line" grep -q "bad.lua:1: error\[P012\]" "$TMP/bad.out"
check "bad arguments: each named" grep -q "cwd must be an absolute path.*newline" "$TMP/bad.out"

finish
