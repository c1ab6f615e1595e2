#!/usr/bin/env bash
# --max-memory bounds what evaluating a site makes: the text of the site
# and its modules, Lua's parser, the Lua heap and the property graph, as
# the process holds them.  Memory the site freed but the process kept (a
# pool of small blocks) counts too, so the resident size of prop stays
# within the limit and a few MiB of code and libraries.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

cd "$TMP"

# Each case: exit 2 and the limit named in the report (expect_refused).

# The text of the site: a comment of 40 MB under a limit of 32 MiB.
lua5.4 -e 'io.write("--[[", string.rep("x", 40 * 1000 * 1000), "]]\n")' >comment.lua 2>/dev/null ||
  awk 'BEGIN { printf "--[["; for (i = 0; i < 40000; i++) { s = sprintf("%1000s", ""); gsub(/ /, "x", s); printf "%s", s } print "]]" }' >comment.lua
expect_refused "a site file larger than the limit" \
  "memory limit of 32 MiB exceeded reading comment.lua; raise it with --max-memory" \
  lint --max-memory 32 comment.lua

# The parser: a string literal of 20 MB is read (20 MB), scanned into the
# lexer's buffer (32 MB) and made a string (20 MB): more than 48 MiB.
awk 'BEGIN { printf "local s = [["; for (i = 0; i < 20000; i++) { s = sprintf("%1000s", ""); gsub(/ /, "y", s); printf "%s", s } print "]]" }' >literal.lua
expect_refused "parsing past the limit" \
  "memory limit of 48 MiB exceeded parsing literal.lua; raise it with --max-memory" \
  lint --max-memory 48 literal.lua
# ... also in a module the site requires, at the line of the require.
printf '\nlocal m = require "literal"\n' >requires.lua
expect_refused "parsing a module past the limit" \
  "requires.lua:2: error[P000]: memory limit of 48 MiB exceeded parsing literal.lua" \
  lint --max-memory 48 requires.lua

# Resident memory: about 100 MB of small blocks (tables) and of 1 KiB
# blocks (strings, between others that are kept) made and freed, then
# large strings.  Counting only the blocks in use, prop grew to the freed
# memory plus the large strings (415 MiB under a limit of 256); now the
# freed memory that stays with the process counts.
cat >churn.lua <<'LUA'
local keep, junk = {}, {}
for i = 1, 800000 do junk[i] = { i } end
for i = 1, 30000 do
  keep[i] = string.rep("k", 1000) .. i
  junk[-i] = string.rep("j", 1000) .. i
end
junk = nil
local big = {}
for i = 1, 40 do big[i] = string.rep("b", 8 * 1024 * 1024) .. i end
LUA
if grep -qa '__asan_init' "$PROP"; then
  # AddressSanitizer's shadow memory and quarantine count in the resident
  # size, and without its pool prop counts the bytes asked for.
  skip_part "prop is built with AddressSanitizer; the resident size was not measured"
elif [[ -x /usr/bin/time ]]; then
  rc=0
  timeout 120 /usr/bin/time -f 'maxrss %M' "$PROP" lint --max-memory 256 churn.lua >"$TMP/out" 2>&1 || rc=$?
  kb="$(sed -n 's/^maxrss \([0-9]*\)$/\1/p' "$TMP/out")"
  # 256 MiB, and 32 MiB for prop's code, libraries and stack.
  if [[ "$rc" == 2 && -n "$kb" ]] && ((kb <= (256 + 32) * 1024)) &&
     grep -qF 'memory limit of 256 MiB exceeded' "$TMP/out"; then
    pass
  else
    fail "resident memory within the limit" "exit $rc (want 2), resident ${kb:-?} KiB (want at most $(((256 + 32) * 1024)))" "$TMP/out"
  fi
else
  part_missing time "/usr/bin/time is not installed; the resident size was not measured"
fi

finish
