#!/usr/bin/env bash
# A connect.dir tree raced from inside: while prop run gives files under
# /home/u/d a mode, an owner and a content, tests/tools/swap_race swaps
# that directory back and forth with a link to a directory outside the
# tree.  The files outside never change mode, owner or content, and no
# file appears beside them; with openat2(2) and with the walk that stands
# in for it (PROP_NO_OPENAT2=1).  Then a hard link in the tree to a file
# outside it: file.mode and file.owner refuse it, the file outside keeps
# its mode and owner; with hardlinks = true they change it.
set -u
# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_prop
if [[ "$(id -u)" != 0 ]]; then
  skip "the owners given here need root"
fi
SWAP="${PROP_SWAP_RACE:-$PROP_SOURCE_DIR/build/tests/swap_race}"
if [[ ! -x "$SWAP" ]]; then
  skip "no swap_race program (set PROP_SWAP_RACE)"
fi
scratch_dir prop-tree-race
export PROP_STATE_DIR="$TMP/prop-state"
fail_lines=60
N=8

# outside_intact NAME : every file in $TMP/out as it was made, and no other.
outside_intact() {
  local bad="" f
  for f in "$TMP"/out/*; do
    [[ "$(stat -c '%a %u %g' "$f")" == "600 0 0" ]] || bad+=" $(basename "$f"):$(stat -c '%a:%u:%g' "$f")"
    [[ "$(cat "$f")" == outside ]] || bad+=" $(basename "$f"):content"
  done
  [[ "$(ls -A "$TMP/out" | wc -l)" == $((3 * N)) ]] || bad+=" extra:$(ls -A "$TMP/out" | tr '\n' ' ')"
  if [[ -z "$bad" ]]; then pass; else fail "$1" "outside the tree:$bad"; fi
}

# site FILE MODE OWNER CONTENT : the properties on /home/u/d/{f,g,h}1..N.
site() {
  local i
  {
    echo "host \"tree\" {"
    echo "  connect.dir \"$T\","
    for ((i = 1; i <= N; i++)); do
      echo "  file.mode(\"/home/u/d/f$i\", \"$2\"),"
      echo "  file.owner(\"/home/u/d/g$i\", $3, $3),"
      echo "  file.has_content(\"/home/u/d/h$i\", \"$4\\n\", { mode = \"$2\", owner = $3 }),"
    done
    echo "}"
  } >"$1"
}

race() {
  local name="$1" runs=0 swapper i
  T="$TMP/tree-$name"
  rm -rf "$TMP/out" "$T"
  mkdir -p "$TMP/out" "$T/home/u/d"
  for ((i = 1; i <= N; i++)); do
    for f in f g h; do
      echo outside >"$TMP/out/$f$i"
      chmod 600 "$TMP/out/$f$i"
      echo inside >"$T/home/u/d/$f$i"
      chmod 600 "$T/home/u/d/$f$i"
    done
  done
  chown -R 1000:1000 "$T/home/u"
  ln -s "$TMP/out" "$T/home/u/dl"
  site "$TMP/a.lua" 0644 1000 a
  site "$TMP/b.lua" 0640 1001 b
  # Prop alone first: the sites work on the tree as it is.
  run_prop "$TMP/first.out" run "$TMP/a.lua" --json
  check "$name: a run without the race" [ "$rc" = 0 ]
  same "$name: its mode" "$(stat -c %a "$T/home/u/d/f1")" 644
  "$SWAP" "$T/home/u/d" "$T/home/u/dl" 8 20000000 >"$TMP/swaps" &
  swapper=$!
  on_exit "kill $swapper"
  # Bounded: 40 runs at most, while the swapping lasts (8 s at most).
  while kill -0 "$swapper" 2>/dev/null && [[ $runs -lt 40 ]]; do
    if ((runs % 2)); then
      run_prop "$TMP/race.out" run "$TMP/a.lua" --json
    else
      run_prop "$TMP/race.out" run "$TMP/b.lua" --json
    fi
    runs=$((runs + 1))
    # prop fails on a path whose directory was a link at that moment, cleanly.
    check "$name: run $runs ended (no crash)" [ "$rc" -lt 128 ]
    if crashed "$TMP/race.out"; then fail "$name: run $runs" "crashed" "$TMP/race.out"; fi
  done
  kill "$swapper" 2>/dev/null
  wait "$swapper"
  check "$name: the swapping worked" [ -s "$TMP/swaps" ]
  check "$name: the directory is back" [ -d "$T/home/u/d" ]
  check "$name: the link is back" [ -L "$T/home/u/dl" ]
  echo "$name: $runs runs of prop, $(cat "$TMP/swaps") swaps"
  outside_intact "$name: after $runs runs"
}

race openat2
PROP_NO_OPENAT2=1 race walk
unset PROP_NO_OPENAT2

# ---------------------------------------------------------------------
# A hard link in the tree to a file outside it.
T="$TMP/tree-links"
mkdir -p "$T/etc" "$TMP/secret"
echo secret >"$TMP/secret/shadow"
chmod 600 "$TMP/secret/shadow"
ln "$TMP/secret/shadow" "$T/etc/hl"
cat >"$TMP/links.lua" <<EOF2
host "tree" {
  connect.dir "$T",
  file.mode("/etc/hl", "0644"),
  file.owner("/etc/hl", 1000),
}
EOF2
run_prop "$TMP/links.out" run "$TMP/links.lua" --json
check "hard link: refused" [ "$rc" != 0 ]
check "hard link: said so" grep -q 'the file has 2 hard links' "$TMP/links.out"
check "hard link: the way out said" grep -q 'hardlinks = true' "$TMP/links.out"
same "hard link: the file outside unchanged" "$(stat -c '%a %u' "$TMP/secret/shadow")" "600 0"
cat >"$TMP/links-ok.lua" <<EOF2
host "tree" {
  connect.dir "$T",
  file.mode("/etc/hl", "0644", { hardlinks = true }),
  file.owner("/etc/hl", 1000, { hardlinks = true }),
}
EOF2
run_prop "$TMP/links-ok.out" run "$TMP/links-ok.lua" --json
check "hard link: hardlinks = true works" [ "$rc" = 0 ]
same "hard link: changed when said" "$(stat -c '%a %u' "$TMP/secret/shadow")" "644 1000"
cat >"$TMP/links-bad.lua" <<EOF2
host "tree" {
  connect.dir "$T",
  file.mode("/etc/hl", "0600", { hardlink = true }),
}
EOF2
run_prop "$TMP/links-bad.out" lint "$TMP/links-bad.lua"
check "hard link: a misspelt option is refused" [ "$rc" != 0 ]
check "hard link: with its line" grep -q 'links-bad.lua:3' "$TMP/links-bad.out"

finish
