#!/usr/bin/env bash
# Every site under tests/sites/valid/ must lint clean: exit 0 and not one
# diagnostic, as text and as JSON.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

shopt -s nullglob
sites=("$SITES"/valid/*.lua)
if [[ ${#sites[@]} -lt 10 ]]; then
  fail "valid sites" "expected at least ten sites, found ${#sites[@]}"
fi

for site in "${sites[@]}"; do
  name="$(basename "$site")"
  out="$TMP/out"
  (cd "$SITES/valid" && run_prop "$out" lint "$name"; echo "$rc" >"$TMP/rc")
  rc="$(cat "$TMP/rc")"
  if [[ "$rc" != 0 ]]; then
    fail "$name" "prop lint exited $rc, expected 0" "$out"
    continue
  fi
  if grep -Eq '(error|warning|note)(\[[A-Z0-9]+\])?:' "$out"; then
    fail "$name" "prop lint printed diagnostics" "$out"
    continue
  fi
  pass

  # --werror: no warning may hide in a valid site either.
  (cd "$SITES/valid" && run_prop "$out" lint --werror "$name"; echo "$rc" >"$TMP/rc")
  rc="$(cat "$TMP/rc")"
  if [[ "$rc" != 0 ]]; then
    fail "$name" "prop lint --werror exited $rc, expected 0" "$out"
  else
    pass
  fi

  (cd "$SITES/valid" && run_prop "$out" lint --format=json "$name"; echo "$rc" >"$TMP/rc")
  rc="$(cat "$TMP/rc")"
  if [[ "$rc" != 0 ]]; then
    fail "$name" "prop lint --format=json exited $rc, expected 0" "$out"
  elif ! tr -d ' \n\t' <"$out" | grep -qx '\[\]'; then
    fail "$name" "--format=json did not print an empty array" "$out"
  else
    pass
  fi
done

# Every example lints clean; the demo site of the README shows each host.
for ex in "$PROP_SOURCE_DIR"/examples/*.lua; do
  run_prop "$TMP/out" lint "$ex"
  if [[ "$rc" == 0 ]] && ! grep -Eq '(error|warning)(\[[A-Z0-9]+\])?:' "$TMP/out"; then
    pass
  else
    fail "examples/${ex##*/}" "prop lint exited $rc or printed diagnostics" "$TMP/out"
  fi
done
demo="$PROP_SOURCE_DIR/examples/site.lua"
for h in www.example.com files.example.com foo.example.com demo; do
  run_prop "$TMP/out" show "$demo" "$h"
  if [[ "$rc" == 0 ]] && [[ -s "$TMP/out" ]]; then
    pass
  else
    fail "examples/site.lua" "prop show of $h exited $rc" "$TMP/out"
  fi
done

finish
