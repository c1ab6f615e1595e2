#!/usr/bin/env bash
# prop explain: every code it lists has a long explanation with a wrong
# site and a fix, a section of its own in prop-diagnostics(7), and the
# container codes (P014, W105) are among them; an unknown code is a usage
# error.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

run_prop "$TMP/list" explain
codes="$(grep -oE '^[PW][0-9]{3}' "$TMP/list" | tr '\n' ' ' || true)"
if [[ $rc == 0 && " $codes" == *" P014 "* && " $codes" == *" W105 "* ]]; then
  pass
else
  fail "explain list" "exit $rc, or P014 or W105 missing from: $codes" "$TMP/list"
fi

for code in $codes; do
  run_prop "$TMP/$code" explain "$code"
  sev=error
  [[ $code == W* ]] && sev=warning
  if [[ $rc == 0 ]] && head -1 "$TMP/$code" | grep -Eq "^$code \\($sev" &&
     grep -q '^Wrong' "$TMP/$code" && grep -q '^Fix' "$TMP/$code" &&
     grep -Eq "$sev\\[$code\\]" "$TMP/$code"; then
    pass
  else
    fail "explain $code" "exit $rc, or no heading, wrong example, diagnostic or fix" "$TMP/$code"
  fi
  if grep -q "^\\.SS \"$code " "$PROP_SOURCE_DIR/man/prop-diagnostics.7"; then
    pass
  else
    fail "explain $code" "no section for it in man/prop-diagnostics.7"
  fi
done

# Lower case and without leading zeros, as prop-explain(1) says.
run_prop "$TMP/lower" explain w105
if [[ $rc == 0 ]] && head -1 "$TMP/lower" | grep -q '^W105 (warning): a container put on no host$'; then
  pass
else
  fail "explain w105" "exit $rc" "$TMP/lower"
fi
run_prop "$TMP/unknown" explain W999
if [[ $rc == 64 ]] && grep -q 'unknown code "W999"' "$TMP/unknown"; then
  pass
else
  fail "explain W999" "exit $rc, want 64 and the reason" "$TMP/unknown"
fi

finish
