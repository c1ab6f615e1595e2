#!/usr/bin/env bash
# test_kill9_writes_local.sh - `prop run` on this machine killed with
# SIGKILL at random points while it writes 500 files, ten times over:
# every file always holds one version whole (never a part), no temporary
# file is left beside them after a kill (the one being linked into place
# at that instant, if any, is removed by the next write of that path), and
# none at all once a run completes.  The site only writes in its scratch
# directory.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

N=500
ROUNDS=10
W="$TMP/many"
mkdir -p "$W"

# many_site VERSION : N files, each "VERSION fI" and 8 KiB of filler.
many_site() {
  local i
  {
    echo 'local filler = string.rep("x", 8192)'
    echo 'host "me" {'
    echo '  connect.localhost(),'
    for ((i = 0; i < N; i++)); do
      echo "  file.has_content(\"$W/f$i\", \"$1 f$i\\n\" .. filler),"
    done
    echo '}'
  } >"$TMP/many.lua"
}

# whole : every file holds one version whole ("vK fI" or "final fI" and
# the filler: its size tells a part).
whole() {
  local files=() i bad
  for ((i = 0; i < N; i++)); do files+=("$W/f$i"); done
  bad="$(
    {
      stat -c 'size %n %s' "${files[@]}"
      awk 'FNR == 1 { print "head", FILENAME, $0; nextfile }' "${files[@]}"
    } | awk -v filler=8192 '
      $1 == "size" { size[$2] = $3; next }
      { n = $2; sub(/.*\//, "", n)
        if (!($3 ~ /^(v[0-9]+|final)$/ && $4 == n && size[$2] == length($3 " " $4) + 1 + filler)) bad++
        seen++ }
      END { print (seen == '"$N"' ? bad + 0 : "missing") }'
  )"
  [[ "$bad" == 0 ]]
}

temps() {
  find "$W" -name '.*.prop-*' | wc -l
}

many_site v0
t0="$(date +%s%N)"
prop_run "$TMP/first.out" "$TMP/many.lua"
same "the first run" "$rc" 0
# How long a run takes: the kills land at random within that.
run_ms=$((($(date +%s%N) - t0) / 1000000))
((run_ms > 10)) || run_ms=10
for ((round = 1; round <= ROUNDS; round++)); do
  many_site "v$round"
  "$PROP" run "$TMP/many.lua" >"$TMP/round$round.out" 2>&1 &
  pid=$!
  # Kill it at a random point of the run.
  ms=$((RANDOM % run_ms))
  sleep "$((ms / 1000)).$(printf %03d $((ms % 1000)))"
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  echo "round $round: killed after ${ms} ms, $(grep -l "^v$round" "$W"/f* 2>/dev/null | wc -l) files new"
  check "round $round: every file whole" whole
  n="$(temps)"
  if [[ "$n" -le 1 ]]; then
    pass
  else
    fail "round $round: temporary files" "$n left: $(find "$W" -name '.*.prop-*' | head -3)"
  fi
done
many_site final
prop_run "$TMP/final.out" "$TMP/many.lua"
same "a run that completes" "$rc" 0
same "no temporary file is left" "$(temps)" 0
check "every file is new" bash -c "! grep -L '^final' $W/f* | grep -q ."

finish
