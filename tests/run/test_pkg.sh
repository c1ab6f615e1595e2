#!/usr/bin/env bash
# pkg.* (FreeBSD) on this Linux machine: each fails cleanly, saying the
# target is not FreeBSD, in a real run and in a dry run, and nothing stops
# the properties after them.  packages.upgraded picks pkg for a FreeBSD
# host and fails the same way.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

kernel="$(uname -s)"
if [[ "$kernel" == FreeBSD ]]; then
  skip "this machine is FreeBSD"
fi

cat >"$TMP/pkg.lua" <<EOF
host "localhost" {
  os.freebsd("14.1-RELEASE", "amd64"),
  pkg.installed { "nginx", "www/caddy" },
  pkg.removed "sudo",
  pkg.upgraded(),
  pkg.updated(),
  packages.upgraded(),
  file.has_content("$TMP/after", "ran\n"),
}
EOF

prop_run "$TMP/dry.out" "$TMP/pkg.lua" --dry-run
expect_run "dry run: five failures" "$TMP/dry.out" 1 1 0 5
check "dry run: the file is not written" test ! -e "$TMP/after"

prop_run "$TMP/run.out" "$TMP/pkg.lua"
expect_run "run: five failures, the file written" "$TMP/run.out" 1 1 0 5
for r in pkg.installed pkg.removed pkg.upgraded pkg.updated; do
  check "$r says why" grep -q "$r: this target is not FreeBSD (uname says $kernel)" "$TMP/run.out"
done
same "the property after them ran" "$(cat "$TMP/after")" ran

# pkg.updated takes no arguments.
cat >"$TMP/bad.lua" <<EOF
host "b" { os.freebsd("14.1-RELEASE", "amd64"), pkg.updated "nginx" }
EOF
run_prop "$TMP/bad.out" lint "$TMP/bad.lua"
check "pkg.updated with an argument: P012 at its line" grep -q 'bad.lua:1: error\[P012\].*pkg.updated' "$TMP/bad.out"

finish
