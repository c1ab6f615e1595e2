#!/usr/bin/env bash
# cron.job on localhost (/etc/cron.d/prop-test-*) and in a connect.dir
# tree without /etc/cron.d: the file, its mode and owner, idempotence,
# drift, the revert, and dry runs that leave the disk alone.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

JOB=prop-test-cron-$$
F=/etc/cron.d/$JOB
made_crond=0
if [[ ! -d /etc/cron.d ]]; then made_crond=1; fi
on_exit "rm -f '$F'"
on_exit "[[ $made_crond == 1 ]] && rmdir /etc/cron.d"

cat >"$TMP/job.lua" <<EOF
local job = cron.job("$JOB", "*/5 * * * *", { "/bin/echo", "hello world", "50%" }, { user = "nobody" })
host "localhost" { job }
EOF
cat >"$TMP/gone.lua" <<EOF
host "localhost" {
  revert(cron.job("$JOB", "*/5 * * * *", { "/bin/echo", "hello world", "50%" }, { user = "nobody" })),
}
EOF

prop_run "$TMP/dry.out" "$TMP/job.lua" --dry-run
expect_run "dry run: changed" "$TMP/dry.out" 0 1 0 0
check "dry run: no file" test ! -e "$F"

prop_run "$TMP/run1.out" "$TMP/job.lua"
expect_run "first run: changed" "$TMP/run1.out" 0 1 0 0
check "the job file exists" test -f "$F"
same "the job line" "$(grep -v '^#' "$F" | tail -1)" \
  "*/5 * * * * nobody /bin/echo 'hello world' 50\\%"
check "SHELL and PATH set" grep -q '^SHELL=/bin/sh$' "$F"
same "mode and owner" "$(mode_of "$F") $(owner_of "$F")" "0644 root:root"

prop_run "$TMP/run2.out" "$TMP/job.lua"
expect_run "second run: ok" "$TMP/run2.out" 0 0 1 0

echo '* * * * * root rm -rf /tmp/x' >>"$F"
chmod 666 "$F"
prop_run "$TMP/run3.out" "$TMP/job.lua"
expect_run "edited file: changed" "$TMP/run3.out" 0 1 0 0
check "the edit is gone" test "$(grep -c 'rm -rf' "$F")" = 0
same "mode back to 0644" "$(mode_of "$F")" 0644

chmod 664 "$F"
prop_run "$TMP/run4.out" "$TMP/job.lua"
expect_run "mode only: changed" "$TMP/run4.out" 0 1 0 0
same "mode fixed" "$(mode_of "$F")" 0644

before="$(tree_state "$F")"
prop_run "$TMP/gdry.out" "$TMP/gone.lua" --dry-run
expect_run "revert, dry run: changed" "$TMP/gdry.out" 0 1 0 0
same "revert, dry run: the file stays" "$(tree_state "$F")" "$before"
prop_run "$TMP/gone1.out" "$TMP/gone.lua"
expect_run "revert: changed" "$TMP/gone1.out" 0 1 0 0
check "revert: the file is gone" test ! -e "$F"
prop_run "$TMP/gone2.out" "$TMP/gone.lua"
expect_run "revert again: ok" "$TMP/gone2.out" 0 0 1 0

# A tree without /etc/cron.d: the directory is made.
T="$TMP/tree"
mkdir -p "$T/etc"
cat >"$TMP/tree.lua" <<EOF
host "tree" { connect.dir "$T", cron.job("nightly", "@daily", { "/usr/local/bin/backup" }) }
EOF
prop_run "$TMP/t1.out" "$TMP/tree.lua"
expect_run "tree: changed" "$TMP/t1.out" 0 1 0 0
same "tree: /etc/cron.d made" "$(mode_of "$T/etc/cron.d")" 0755
same "tree: job" "$(tail -1 "$T/etc/cron.d/nightly")" "@daily root /usr/local/bin/backup"
prop_run "$TMP/t2.out" "$TMP/tree.lua"
expect_run "tree: second run ok" "$TMP/t2.out" 0 0 1 0

finish
