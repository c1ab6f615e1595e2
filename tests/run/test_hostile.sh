#!/usr/bin/env bash
# Hostile text is shown, never obeyed: a site whose descriptions, paths,
# notes, errors, printed text, source lines and command output hold
# terminal controls (clear screen, window title, carriage return,
# cursor up, a C1 CSI) and bytes that are not UTF-8.  Every human output
# of prop (lint, show, graph, claims, run, a site's print) must hold none
# of those bytes, and show their escapes instead; every JSON output must
# be valid UTF-8 JSON (jq parses it) that keeps what it can.  Everything
# runs on this machine, in the test's scratch directory.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

if ! command -v jq >/dev/null 2>&1; then
  echo "FAIL: jq is not installed (apt-get install jq)"
  exit 1
fi

S="$TMP/scratch"
mkdir -p "$S"

# The site makes the bytes with Lua's escapes: ESC (\027), BEL (\007),
# CR (\r), a C1 CSI in UTF-8 (\194\155), and \255 (0xff, not UTF-8).
printf '%s\n' \
  "local S = \"$S\"" \
  "print(\"printed \\027[2J by the site \\255\")" \
  'host "localhost" {' \
  '  os.debian("bookworm", "amd64"),' \
  "  property { desc = \"clear \\027[2J\\027[H title \\027]0;pwned\\007 ok\\r\\027[1A\\194\\155K \\255\"," \
  "             claims = { files = { S .. \"/f\\027[31m\" } }," \
  "             apply = function(sys)" \
  "               sys:note(\"note \\027[2J\\r done \\194\\155\\255\")" \
  "               sys:write(S .. \"/f\\027[31m\", \"x\\n\")" \
  "               sys:run { \"sh\", \"-c\", \"printf 'stderr \\\\033[2J\\\\r\\\\377' >&2; exit 3\" }" \
  "             end }," \
  "  property { desc = \"error text\", apply = function(sys) error(\"boom \\027]0;title\\007\\r\") end }," \
  '}' >"$TMP/site.lua"
# A second site, rejected, whose quoted source line holds the raw bytes.
printf 'host "x" {\n  file.has_content("relative\033[2J\r\377", "x"),\n}\n' >"$TMP/bad.lua"

# no_raw NAME FILE: FILE holds no ESC, BEL, CR, C1 CSI or 0xff byte.
no_raw() {
  if LC_ALL=C grep -qP '\x1b|\x07|\r|\xc2\x9b|\xff' "$2"; then
    fail "$1" "raw control or non-UTF-8 bytes in the output" "$2"
    LC_ALL=C grep -naP '\x1b|\x07|\r|\xc2\x9b|\xff' "$2" | cat -v | head -5
  else
    pass
  fi
}

# ---- lint, show, graph, claims ------------------------------------------------
run_prop "$TMP/lint" lint "$TMP/bad.lua"
same "lint: rejected" "$rc" 2
no_raw "lint: the source line quoted safely" "$TMP/lint"
has "lint: the escapes shown" "$TMP/lint" 'relative\e[2J\r\xff'

run_prop "$TMP/show" show "$TMP/site.lua"
no_raw "show" "$TMP/show"
has "show: the description escaped" "$TMP/show" 'clear \e[2J\e[H title \e]0;pwned\x07 ok\r\e[1A\xc2\x9bK \xff'
has "show: a site's print escaped" "$TMP/show" 'printed \e[2J by the site \xff'
run_prop "$TMP/graph" graph "$TMP/site.lua" localhost
no_raw "graph" "$TMP/graph"
run_prop "$TMP/claims" claims "$TMP/site.lua" "$S"
no_raw "claims" "$TMP/claims"
has "claims: the path escaped" "$TMP/claims" "file.owned $S/f\\e[31m"
"$PROP" claims "$TMP/site.lua" "$S" --json >"$TMP/claims.json" 2>/dev/null
jq -e '.[0].property | contains("\u001b[2J") and contains("\ufffd")' "$TMP/claims.json" >/dev/null &&
  pass || fail "claims --json: valid, controls kept as escapes, bad bytes as U+FFFD" "" "$TMP/claims.json"
"$PROP" lint "$TMP/bad.lua" --format=json >"$TMP/lint.json" 2>/dev/null
jq -e 'length >= 1 and (.[0].message | type == "string")' "$TMP/lint.json" >/dev/null &&
  pass || fail "lint --format=json: valid JSON" "" "$TMP/lint.json"

# ---- run, text and JSON -------------------------------------------------------------
run_prop "$TMP/run" run "$TMP/site.lua"
same "run: exit" "$rc" 1
no_raw "run: text" "$TMP/run"
has "run: the note escaped" "$TMP/run" 'note \e[2J\r done \xc2\x9b\xff'
has "run: the command's stderr escaped" "$TMP/run" 'stderr \e[2J\r\xff'
has "run: an error's text escaped" "$TMP/run" 'boom \e]0;title\x07\r'
check "run: the file was written under its real name" test -f "$S/f"$'\033'"[31m"
"$PROP" run "$TMP/site.lua" --json >"$TMP/run.json" 2>/dev/null
if jq -e -s 'length > 3' "$TMP/run.json" >/dev/null 2>&1; then pass; else
  fail "run --json: every line is valid JSON" "jq refused it" "$TMP/run.json"
fi
jq -e -s '[.[] | select(.event == "note") | .text] | any(contains("\u001b[2J"))' "$TMP/run.json" \
  >/dev/null && pass || fail "run --json: the escape is kept, as JSON" "" "$TMP/run.json"

finish
