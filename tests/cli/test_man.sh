#!/usr/bin/env bash
# Every page in man/ renders at 80 columns with no warnings from man or
# groff, and renders to something: `MANWIDTH=80 man --warnings -l PAGE`
# prints nothing on standard error and a page with a NAME section.
set -euo pipefail
# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

if ! command -v man >/dev/null 2>&1; then
    skip_missing man-db "man is not installed (apt-get install man-db); man pages not checked"
fi

shopt -s nullglob
pages=("$PROP_SOURCE_DIR"/man/*.[1-8])
if ((${#pages[@]} == 0)); then
    fail "man/" "no man pages in $PROP_SOURCE_DIR/man"
fi

scratch_dir prop-man
for page in "${pages[@]}"; do
    name=${page##*/}
    if ! MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l "$page" >"$TMP/out" 2>"$TMP/err"; then
        fail "$name" "man exited non-zero" "$TMP/err"
    elif [[ -s $TMP/err ]]; then
        fail "$name" "warnings" "$TMP/err"
    elif ! grep -q '^NAME' "$TMP/out"; then
        fail "$name" "rendered page has no NAME section"
    else
        echo "ok: $name"
        pass
    fi
done

finish
