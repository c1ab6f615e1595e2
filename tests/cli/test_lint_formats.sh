#!/usr/bin/env bash
# prop lint --format=sarif and --format=github, the forms CI systems read:
# the SARIF log has what SARIF 2.1.0 requires (version, $schema, the tool's
# name, a rule for every ruleId used, each result's message and location)
# and the notes of a diagnostic as related locations; the GitHub lines are
# exact for a known invalid site and escape %, CR, LF, and ":" and "," in
# properties; a valid site gives no finding and exit 0; an unknown format
# is a usage error.  The SARIF is checked with jq (no schema file is
# fetched: the test runs offline).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

if ! command -v jq >/dev/null; then
  echo "jq is not installed: cannot check the SARIF output" >&2
  exit 1
fi

# run_out OUT-FILE ARGS... : prop with stdout alone in OUT-FILE (stderr
# beside it in OUT-FILE.err); sets rc.
run_out() {
  local out="$1"
  shift
  rc=0
  timeout 120 "$PROP" "$@" >"$out" 2>"$out.err" || rc=$?
}

# jq_true NAME FILE FILTER : FILTER must give true on FILE.
jq_true() {
  if [[ "$(jq -r "$3" "$2" 2>&1)" == true ]]; then
    pass
  else
    fail "$1" "jq $3 is not true" "$2"
  fi
}

cd "$SITES/invalid"

# ---- SARIF of an invalid site -------------------------------------------
run_out "$TMP/repeated.sarif" lint --format=sarif p007_repeated.lua
if [[ $rc == 2 ]] && jq -e . "$TMP/repeated.sarif" >/dev/null 2>&1; then
  pass
else
  fail "sarif invalid site" "exit $rc (want 2), or not JSON" "$TMP/repeated.sarif"
fi
f="$TMP/repeated.sarif"
jq_true "sarif version" "$f" '.version == "2.1.0"'
jq_true "sarif \$schema" "$f" '."$schema" | test("sarif-2\\.1\\.0")'
jq_true "sarif one run" "$f" '(.runs | length) == 1'
jq_true "sarif driver" "$f" '.runs[0].tool.driver.name == "prop" and (.runs[0].tool.driver.version | length > 0)'
# Every diagnostic of --json is a result, in the same order.
run_out "$TMP/repeated.json" lint --json p007_repeated.lua
if [[ "$(jq -c '[.runs[0].results[] | [.ruleId, .level, .message.text, .locations[0].physicalLocation.region.startLine]]' "$f")" == \
      "$(jq -c '[.[] | [.code, .severity, .message, .line]]' "$TMP/repeated.json")" ]]; then
  pass
else
  fail "sarif results" "results differ from the --json diagnostics" "$f"
fi
jq_true "sarif result fields" "$f" '[.runs[0].results[] | (.ruleId | type == "string") and (.message.text | length > 0) and (.locations | length == 1) and (.locations[0].physicalLocation.artifactLocation.uri == "p007_repeated.lua") and (.locations[0].physicalLocation.region.startLine >= 1) and (.level == "error" or .level == "warning")] | all'
jq_true "sarif rules cover ruleIds" "$f" '(.runs[0].tool.driver.rules | map(.id)) as $ids | [.runs[0].results[].ruleId] | all(. as $r | $ids | index($r) != null)'
jq_true "sarif ruleIndex" "$f" '.runs[0].tool.driver.rules as $rules | [.runs[0].results[] | $rules[.ruleIndex].id == .ruleId] | all'
jq_true "sarif rules distinct" "$f" '(.runs[0].tool.driver.rules | map(.id)) as $ids | ($ids | unique | length) == ($ids | length)'
jq_true "sarif W101 is a warning" "$f" '[.runs[0].results[] | select(.ruleId == "W101") | .level == "warning"] | (length == 3 and all)'
# Rule texts are those of prop explain.
"$PROP" explain P007 >"$TMP/P007.txt"
if [[ "$(jq -r '.runs[0].tool.driver.rules[] | select(.id == "P007") | .fullDescription.text' "$f")" == "$(cat "$TMP/P007.txt")" &&
      "$(jq -r '.runs[0].tool.driver.rules[] | select(.id == "P007") | .help.text' "$f")" == "$(cat "$TMP/P007.txt")" &&
      "$(jq -r '.runs[0].tool.driver.rules[] | select(.id == "P007") | .shortDescription.text' "$f")" == \
      "$("$PROP" explain | sed -n 's/^P007  //p')" ]]; then
  pass
else
  fail "sarif rule text" "P007's descriptions are not prop explain's" "$f"
fi
# The first P007 has two notes: the other claim (line 13), the call (line 25).
if [[ "$(jq -c '.runs[0].results[0].relatedLocations | map([.physicalLocation.artifactLocation.uri, .physicalLocation.region.startLine, .message.text])' "$f")" == \
      '[["p007_repeated.lua",13,"\"file /etc/motd has content\" makes it a file with fixed content here"],["p007_repeated.lua",25,"called from here"]]' ]]; then
  pass
else
  fail "sarif related locations" "the notes of the first P007 are not its related locations" "$f"
fi

# --werror makes warnings errors here too.
run_out "$TMP/werror.sarif" lint --format=sarif --werror w101_duplicate.lua
if [[ $rc == 2 ]] && [[ "$(jq -r '[.runs[0].results[].level] | unique | join(",")' "$TMP/werror.sarif")" == error ]]; then
  pass
else
  fail "sarif --werror" "exit $rc, or a level other than error" "$TMP/werror.sarif"
fi

# ---- GitHub workflow commands -------------------------------------------
run_out "$TMP/revert.gh" lint --format=github p001_revert.lua
cat >"$TMP/revert.want" <<'EOF'
::error file=p001_revert.lua,line=12,title=P001::cannot revert os.debian "bookworm" amd64: it is not revertable%0Ap001_revert.lua:12: note: declaring the operating system has no revert action
::error file=p001_revert.lua,line=13,title=P001::cannot revert file /etc/motd has content: it is not revertable%0Ap001_revert.lua:13: note: file.has_content has no revert action: the old content is not known
::error file=p001_revert.lua,line=14,title=P001::cannot revert apt installed x: it is not revertable%0Ap001_revert.lua:7: note: file.has_content has no revert action: the old content is not known
::error file=p001_revert.lua,line=15,title=P001::cannot revert service nginx restarted: it is not revertable%0Ap001_revert.lua:15: note: service.restarted has no revert action: a restart cannot be undone
EOF
if [[ $rc == 2 ]] && diff "$TMP/revert.want" "$TMP/revert.gh" >"$TMP/revert.diff"; then
  pass
else
  fail "github lines" "exit $rc (want 2), or lines differ" "$TMP/revert.diff"
fi
run_out "$TMP/w101.gh" lint --format=github w101_duplicate.lua
if [[ $rc == 0 ]] && [[ -s "$TMP/w101.gh" ]] && grep -vq '^::warning file=w101_duplicate\.lua,line=[0-9]*,title=W101::' "$TMP/w101.gh"; then
  fail "github warning" "a line is not ::warning ... title=W101" "$TMP/w101.gh"
elif [[ $rc == 0 && -s "$TMP/w101.gh" ]]; then
  pass
else
  fail "github warning" "exit $rc (want 0: warnings only), or no line" "$TMP/w101.gh"
fi

# Escaping: a file name with ":" "," and "%" (a property), a message
# with "%" and ":" (the message: only % is escaped there).
mkdir -p "$TMP/esc"
cat >"$TMP/esc/a:b,c%d.lua" <<'EOF'
host "h1.example.com" {
  os.debian("bookworm", "amd64"),
  file.directory("50%,x:y"),
}
EOF
cd "$TMP/esc"; run_out "$TMP/esc.gh" lint --format=github 'a:b,c%d.lua'; cd "$SITES/invalid"
line="$(head -1 "$TMP/esc.gh")"
if [[ $rc == 2 && $(wc -l <"$TMP/esc.gh") == 1 &&
      $line == '::error file=a%3Ab%2Cc%25d.lua,line=3,title=P012::'* &&
      $line == *'"50%25,x:y"'* && $line != *'"50%,'* ]]; then
  pass
else
  fail "github escaping" "exit $rc, or the file property or message is not escaped: $line" "$TMP/esc.gh"
fi
# A message line break cannot start a second workflow command.
cat >"$TMP/esc/nl.lua" <<'EOF'
host "h1.example.com" {
  os.debian("bookworm", "amd64"),
  file.directory("x\n::set-output name=a::b\r"),
}
EOF
cd "$TMP/esc"; run_out "$TMP/nl.gh" lint --format=github nl.lua; cd "$SITES/invalid"
if [[ $rc == 2 && $(wc -l <"$TMP/nl.gh") == 1 ]] && ! grep -q '^::set-output' "$TMP/nl.gh"; then
  pass
else
  fail "github newline" "exit $rc, or a message broke the line" "$TMP/nl.gh"
fi
# The SARIF of that file: its URI percent-encoded, still valid JSON.
cd "$TMP/esc"; run_out "$TMP/esc.sarif" lint --format=sarif 'a:b,c%d.lua'; cd "$SITES/invalid"
jq_true "sarif uri" "$TMP/esc.sarif" '.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri == "a%3Ab%2Cc%25d.lua"'

# ---- a valid site ---------------------------------------------------------
valid="$SITES/valid/$(ls "$SITES/valid" | grep '\.lua$' | head -1)"
run_out "$TMP/valid.sarif" lint --format=sarif "$valid"
if [[ $rc == 0 ]] && [[ "$(jq -c '[.version, .runs[0].results, .runs[0].tool.driver.rules]' "$TMP/valid.sarif")" == '["2.1.0",[],[]]' ]]; then
  pass
else
  fail "sarif valid site" "exit $rc (want 0), or results not empty" "$TMP/valid.sarif"
fi
run_out "$TMP/valid.gh" lint --format github "$valid"
if [[ $rc == 0 && ! -s "$TMP/valid.gh" ]]; then
  pass
else
  fail "github valid site" "exit $rc (want 0), or output" "$TMP/valid.gh"
fi

# An evaluation error (P000) is a result too, with a rule of its own.
printf 'host "h" {\n  apt.instaled { "x" },\n}\n' >"$TMP/esc/p000.lua"
cd "$TMP/esc"; run_out "$TMP/p000.sarif" lint --format=sarif p000.lua; cd "$SITES/invalid"
if [[ $rc == 2 ]]; then pass; else fail "sarif P000" "exit $rc (want 2)" "$TMP/p000.sarif"; fi
jq_true "sarif P000 rule" "$TMP/p000.sarif" '.runs[0].results[0].ruleId == "P000" and (.runs[0].tool.driver.rules[0].shortDescription.text | length > 0)'

# ---- usage ------------------------------------------------------------------
run_out "$TMP/bad" lint --format=xml p001_revert.lua
if [[ $rc == 64 ]] && grep -q 'unknown format "xml"' "$TMP/bad.err" && [[ ! -s "$TMP/bad" ]]; then
  pass
else
  fail "unknown format" "exit $rc (want 64, the usage error) or no reason" "$TMP/bad.err"
fi
# --json and --format=json are as they were.
run_out "$TMP/j2" lint --format=json p007_repeated.lua
if cmp -s "$TMP/j2" "$TMP/repeated.json" && jq -e 'type == "array" and length == 12' "$TMP/j2" >/dev/null; then
  pass
else
  fail "json unchanged" "--format=json differs from --json" "$TMP/j2"
fi

finish
