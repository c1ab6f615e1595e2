#!/usr/bin/env bash
# Every site under tests/sites/invalid/ states the diagnostics it must get
# in its own comments:
#   --! P007 12            an error of that code at line 12 of the site
#   --! W101 7 warning     a warning
#   --! note 14            a note line at line 14 ("called from here", ...)
#   --! fatal 5 TEXT       evaluation stops with an error at line 5
#   --! total 5            exactly 5 error and warning lines in all (one
#                          mistake, one finding: no second one on its line)
# prop lint must print exactly that set of "file:line: error[CODE]" /
# "warning[CODE]" lines (a missing or extra one fails), exit 2 when there
# are errors (0 with warnings only, 2 with --werror), and print the same
# codes with --format=json.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

dir="$SITES/invalid"
shopt -s nullglob
sites=("$dir"/*.lua)
[[ ${#sites[@]} -gt 0 ]] || fail "invalid sites" "none found in $dir"

for site in "${sites[@]}"; do
  name="$(basename "$site")"
  if [[ -n "$(expect "$site" fatal)" ]]; then
    check_fatal "$dir" "$name"
    continue
  fi

  want="$TMP/want"
  : >"$want"
  errors=0
  while read -r code line sev; do
    [[ "$code" =~ ^[PW][0-9]{3}$ ]] || continue
    if [[ -z "$sev" ]]; then
      if [[ "$code" == W* ]]; then sev=warning; else sev=error; fi
    fi
    [[ "$sev" == error ]] && errors=$((errors + 1))
    echo "$name:$line: $sev[$code]" >>"$want"
  done < <(sed -n 's/^--! //p' "$site")
  sort -u -o "$want" "$want"
  if [[ ! -s "$want" ]]; then
    fail "$name" "the site states no expectations"
    continue
  fi
  expected_rc=0
  [[ $errors -gt 0 ]] && expected_rc=2

  out="$TMP/out"
  (cd "$dir" && run_prop "$out" lint "$name"; echo "$rc" >"$TMP/rc")
  rc="$(cat "$TMP/rc")"
  got="$TMP/got"
  grep -oE '^[^ ]+:[0-9]+: (error|warning)\[[A-Z0-9]+\]' "$out" |
    sed -E 's#^.*/([^/]+:[0-9]+: )#\1#' >"$got.all" || true
  sort -u "$got.all" >"$got"
  ok=1
  if [[ "$rc" != "$expected_rc" ]]; then
    fail "$name" "exit $rc, expected $expected_rc" "$out"
    ok=0
  fi
  if ! diff -u "$want" "$got" >"$TMP/diff"; then
    fail "$name" "diagnostics differ (- expected, + printed)" "$TMP/diff"
    ok=0
    sed 's/^/    > /' "$out" | head -60
  fi
  total="$(expect "$site" total)"
  if [[ -n "$total" && "$(wc -l <"$got.all")" != "$total" ]]; then
    fail "$name" "$(wc -l <"$got.all") errors and warnings printed, expected $total" "$out"
    ok=0
  fi
  while read -r nline; do
    [[ -n "$nline" ]] || continue
    if ! grep -Eq "(^|/)${name//./\\.}:$nline: note:" "$out"; then
      fail "$name" "no note at line $nline" "$out"
      ok=0
    fi
  done < <(expect "$site" note)
  [[ $ok == 1 ]] && pass

  # JSON: an array with the same codes, as many diagnostics as the text.
  (cd "$dir" && run_prop "$out" lint --format=json "$name"; echo "$rc" >"$TMP/rc")
  rc="$(cat "$TMP/rc")"
  flat="$(tr -d ' \n\t\r' <"$out")"
  want_codes="$(sed -E 's/.*\[([A-Z0-9]+)\]$/\1/' "$want" | sort -u | tr '\n' ' ')"
  got_codes="$(grep -oE '"code": *"[A-Z0-9]+"' "$out" | sed -E 's/.*"([A-Z0-9]+)"$/\1/' |
               sort -u | tr '\n' ' ' || true)"
  ncodes="$(grep -oE '"code": *"[A-Z0-9]+"' "$out" | wc -l || true)"
  ntext="$(wc -l <"$got.all")"
  if [[ "$rc" != "$expected_rc" ]]; then
    fail "$name (json)" "exit $rc, expected $expected_rc" "$out"
  elif [[ "${flat:0:1}" != "[" || "${flat: -1}" != "]" ]]; then
    fail "$name (json)" "not a JSON array" "$out"
  elif [[ "$want_codes" != "$got_codes" ]]; then
    fail "$name (json)" "codes [$got_codes], expected [$want_codes]" "$out"
  elif [[ "$ncodes" != "$ntext" ]]; then
    fail "$name (json)" "$ncodes diagnostics in JSON, $ntext in text" "$out"
  else
    pass
  fi

  # Warnings only: --werror turns them into a rejection.
  if [[ $errors -eq 0 ]]; then
    (cd "$dir" && run_prop "$out" lint --werror "$name"; echo "$rc" >"$TMP/rc")
    rc="$(cat "$TMP/rc")"
    if [[ "$rc" == 2 ]]; then pass; else fail "$name (--werror)" "exit $rc, expected 2" "$out"; fi
  fi
done

finish
