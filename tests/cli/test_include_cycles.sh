#!/usr/bin/env bash
# test_include_cycles.sh - the headers of bindings/ form a ladder, with
# no include cycle, and no .c file implements two of them.
#
# A header H depends on a header G when H includes G, or when a .c file
# that defines something H declares (an implementation of H) includes G,
# G not being implemented by that file too.  Any cycle fails the test.
# An implementation of H including H itself is no cycle; nor is NAME.h's
# implementation including NAME_PART.h that includes NAME.h (NAME's
# private part).  The commands of main.c's table (cmd_NAME, declared in
# cli.h) are not counted as what their files implement: nothing but
# main.c calls them.
#
# A .c file that implements two headers ties them together both ways
# (what uses the one calls back into the file of the other): that fails
# the test too.
#
# The graph is computed with grep from bindings/*.{c,h}.  Usage:
# test_include_cycles.sh [DIR] (default: bindings/ of the sources).
set -u
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
scratch_dir prop-include-cycles
self="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"

DIR="${1:-$PROP_SOURCE_DIR/bindings}"
[[ -d "$DIR" ]] || { echo "no directory $DIR" >&2; exit 1; }
cd "$DIR" || exit 1

# The local headers a file includes (those in DIR).
includes() {
  grep -o '^#include "[^"]*"' "$1" | sed 's/^#include "//; s/"$//' |
    while read -r g; do [[ -f "$g" ]] && echo "$g"; done
}

# What a header declares: functions (NAME( on a line outside comments and
# macros) and extern variables.
declared() {
  sed -e 's|/\*.*\*/||g' -e '/^ *\/\?\*/d' -e '/^#/d' "$1" |
    grep -o '\b[A-Za-z_][A-Za-z0-9_]*(' | sed 's/($//' | grep -v '^cmd_[a-z]*$' | sort -u
  sed -e 's|/\*.*\*/||g' "$1" |
    awk '/^extern / { b = $0; while (b !~ /;/ && (getline l) > 0) b = b " " l; print b }' | sed 's/\[[^]]*\]//g; s/;.*//' |
    tr ',' '\n' | sed 's/.*[^A-Za-z0-9_]\([A-Za-z_][A-Za-z0-9_]*\) *$/\1/; s/^ *//' |
    grep -v '^cmd_[a-z]*$' | sort -u
}

# What the .c files define, one "NAME FILE" a line: a function at the
# start of a line, or a variable defined at file scope (not static).
defs="$TMP/defs"
for c in *.c; do
  grep -oE '^[A-Za-z_][A-Za-z0-9_]*\(' "$c" | sed "s/($/ $c/"
  grep -E '^[a-z][^(]*(=|;)' "$c" | grep -vE '^(static|extern|typedef|return|struct|enum)\b' |
    sed 's/=.*//; s/;.*//; s/\[[^]]*\]//g' | tr ',' '\n' |
    sed -n "s/.*[^A-Za-z0-9_]\([A-Za-z_][A-Za-z0-9_]*\) *\$/\1 $c/p"
done | LC_ALL=C sort -u >"$defs"

edges="$TMP/edges"
impl="$TMP/impl"
# "H C": C implements H.
for h in *.h; do
  declared "$h" | LC_ALL=C sort -u | LC_ALL=C join - "$defs" | awk -v h="$h" '{ print h, $2 }'
done | sort -u >"$impl"
for h in *.h; do
  for g in $(includes "$h"); do echo "$h $g"; done
  awk -v h="$h" '$1 == h { print $2 }' "$impl" | while read -r c; do
    for g in $(includes "$c"); do
      [[ "$g" == "$h" ]] && continue
      grep -qx "$g $c" "$impl" && continue
      base="${h%.h}"
      [[ "$g" == "${base}_"*.h ]] && includes "$g" | grep -qx "$h" && continue
      echo "$h $g"
    done
  done
done | sort -u >"$edges"

# A .c file that implements two headers.
# (NAME_PART.h, NAME's private part, is counted as NAME.h.)
twice="$(while read -r h c; do
  g="${h%%_*}.h"
  [[ "$g" != "$h" && -f "$g" ]] && includes "$h" | grep -qx "$g" && h="$g"
  echo "$h $c"
done <"$impl" | sort -u |
  awk '{ n[$2]++; hs[$2] = hs[$2] " " $1 } END { for (c in n) if (n[c] > 1) print c ":" hs[c] }')"
if [[ -n "$twice" ]]; then
  echo "files of $DIR that implement two headers:" >&2
  while read -r line; do echo "  $line"; done <<<"$twice" >&2
  fail "one-header" "a .c file implements two headers"
else
  pass
fi

# A cycle: tsort reports it (as "input contains a loop").
if out="$(tsort "$edges" 2>&1 >/dev/null)" && [[ -z "$out" ]]; then
  pass
else
  echo "include cycles in $DIR (H -> G: H includes G, or H's implementation does):" >&2
  # Print each edge that lies on a cycle: G reaches H back.
  while read -r a b; do
    seen=" $b "
    todo="$b"
    while [[ -n "$todo" ]]; do
      next=""
      for x in $todo; do
        for y in $(awk -v x="$x" '$1 == x { print $2 }' "$edges"); do
          [[ "$seen" == *" $y "* ]] && continue
          seen="$seen$y "
          next="$next $y"
        done
      done
      todo="$next"
    done
    [[ "$seen" == *" $a "* ]] && echo "  $a -> $b" >&2
  done <"$edges"
  fail "include-cycles" "bindings/ has an include cycle"
fi

# The check itself finds a cycle: in a copy of bindings/ where the bottom
# rung includes the top one.
if [[ -z "${1:-}" ]]; then
  mkdir -p "$TMP/copy"
  cp "$DIR"/*.c "$DIR"/*.h "$TMP/copy/"
  sed -i 's|^#include "prop/prop.h"|#include "prop/prop.h"\n#include "lprop_eval.h"|' "$TMP/copy/lprop_state.h"
  if out="$(bash "$self" "$TMP/copy" 2>&1)"; then
    fail "self-check" "a cycle made on purpose was not found"
  elif grep -q 'lprop_state.h -> lprop_eval.h' <<<"$out"; then
    pass
  else
    fail "self-check" "the cycle made on purpose was not named: $out"
  fi
fi
finish
