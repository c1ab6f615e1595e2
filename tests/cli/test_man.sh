#!/usr/bin/env bash
# Every page in man/ renders at 80 columns with no warnings from man or
# groff, and renders to something: `MANWIDTH=80 man --warnings -l PAGE`
# prints nothing on standard error and a page with a NAME section.
set -euo pipefail

src=${PROP_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}

if ! command -v man >/dev/null 2>&1; then
    echo "SKIP: man is not installed (apt-get install man-db); man pages not checked"
    exit 0
fi

passed=0 failed=0
shopt -s nullglob
pages=("$src"/man/*.[1-8])
if ((${#pages[@]} == 0)); then
    echo "FAIL: no man pages in $src/man"
    failed=1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for page in "${pages[@]}"; do
    name=${page##*/}
    if ! MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l "$page" >"$tmp/out" 2>"$tmp/err"; then
        echo "FAIL: $name: man exited non-zero"
        sed 's/^/    /' "$tmp/err"
        failed=$((failed + 1))
    elif [[ -s $tmp/err ]]; then
        echo "FAIL: $name: warnings"
        sed 's/^/    /' "$tmp/err"
        failed=$((failed + 1))
    elif ! grep -q '^NAME' "$tmp/out"; then
        echo "FAIL: $name: rendered page has no NAME section"
        failed=$((failed + 1))
    else
        echo "ok: $name"
        passed=$((passed + 1))
    fi
done

echo "$passed passed, $failed failed"
((failed == 0))
