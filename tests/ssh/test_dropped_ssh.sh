#!/usr/bin/env bash
# test_dropped_ssh.sh - the connection to the target drops in the middle of
# a run of pipelined writes (prop-run(1), "pipelined over SSH"), against an
# sshd this test starts on loopback: its sessions are killed once the
# first commit of staged writes has put its files in place.
#
#   1. the results, in text (stdout) and JSON (--report), against the files
#      really on the target: every property reported changed has its file
#      with its content, no property is reported twice, and the host's
#      totals are the number of properties;
#   2. the staging directory the drop left behind is removed by the next
#      connection, although that run writes nowhere near it; one whose
#      shell still lives stays.
set -u
export PROP_RUN_TIMEOUT="${PROP_RUN_TIMEOUT:-180}"
unset SSH_AUTH_SOCK
# shellcheck source=tests/run/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../run/common.sh"
# shellcheck source=tests/ssh/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ssh_start drop || { echo "FAIL: ssh_start drop"; exit 1; }
R="$TMP/remote"
mkdir -p "$R/d" "$R/other"
N=411

{
  echo "host \"p\" {"
  echo "  $(ssh_connect),"
  for ((i = 1; i <= N; i++)); do
    printf '  file.has_content("%s/d/f%03d", "file %d\\n"),\n' "$R" "$i" "$i"
  done
  echo "}"
} >"$TMP/many.lua"
cat >"$TMP/other.lua" <<EOF
host "p" {
  $(ssh_connect),
  file.has_content("$R/other/x", "x\n"),
}
EOF

# The drop: once the first commit put 128 files in place, every process
# below the listening sshd (the session's) is killed.
SSHD_PID="${_SSH_PIDS[drop]}"
(
  for ((t = 0; t < 15000; t++)); do
    n=$(find "$R/d" -maxdepth 1 -name 'f*' | wc -l)
    if [[ $n -ge 128 ]]; then
      for p in $(_ssh_descendants "$SSHD_PID"); do kill -KILL "$p" 2>/dev/null; done
      exit 0
    fi
    sleep 0.02
  done
) &
WATCH=$!
on_exit "kill $WATCH 2>/dev/null"

rc=0
timeout -k 10 170 "$PROP" run "$TMP/many.lua" --report "$TMP/report.json" >"$TMP/text" 2>&1 || rc=$?
wait "$WATCH" 2>/dev/null

echo "---- 1. the results against the files on the target"
same "a lost connection fails the run" "$rc" 1
check "no crash" bash -c "! grep -Eqi 'segmentation|core dumped|AddressSanitizer|runtime error:' '$TMP/text'"
check "it says the connection was lost" grep -q 'connection lost' "$TMP/text"
onfile=$(find "$R/d" -maxdepth 1 -name 'f*' | wc -l)
check "the drop came before the end ($onfile of $N files)" test "$onfile" -lt "$N"
check "the drop came after the first commit" test "$onfile" -ge 128

# The report (one JSON document), one object a line.
sed 's/{"host"/\n{"host"/g' "$TMP/report.json" >"$TMP/report.lines"
# {json,text}_changed FILE: the numbers of the properties FILE reports changed.
json_changed() {
  grep '"desc":' "$1" | grep '"result":"changed"' | sed -n 's|.*/d/f\([0-9]*\) has content.*|\1|p' | sort
}
text_changed() {
  grep -E '/d/f[0-9]+ has content \.\.\. changed$' "$1" | sed -n 's|.*/d/f\([0-9]*\) has content.*|\1|p' | sort
}
for how in json text; do
  if [[ $how == json ]]; then out="$TMP/report.lines"; else out="$TMP/text"; fi
  list=$("${how}_changed" "$out")
  bad=""
  for f in $list; do
    [[ "$(cat "$R/d/f$f" 2>/dev/null)" == "file $((10#$f))" ]] || bad="$bad f$f"
  done
  same "$how: every property reported changed has its file" "${bad:-none}" none
  same "$how: as many reported changed as files" "$(echo "$list" | grep -c .)" "$onfile"
done
same "json: each property reported once" \
  "$(grep '"desc":' "$TMP/report.lines" | sed -n 's|.*/d/f\([0-9]*\) has content.*|\1|p' | sort -u | wc -l)/$(grep -c '"desc":' "$TMP/report.lines")" \
  "$N/$N"
# host_total KEY: KEY of the host in the report.
host_total() {
  grep -v '"desc":' "$TMP/report.lines" | grep '"host":"p"' | sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" | head -1
}
ok=$(host_total ok)
ch=$(host_total changed)
fl=$(host_total failed)
same "json: the host's totals are the properties" "$((ok + ch + fl))" "$N"
same "json: the host's changed are the files" "$ch" "$onfile"
check "text: the host's totals are the properties" \
  grep -qE "^p: 0 ok, $onfile changed, $((N - onfile)) failed" "$TMP/text"

echo "---- 2. the staging directory left behind goes at the next connection"
left=$(find "$R/d" -maxdepth 1 -name '.prop-stg-*' | wc -l)
check "the drop left a staging directory ($left)" test "$left" -ge 1
check "it is in the record beside the run lock" grep -q "^$R/d/.prop-stg-" "$SSH_DIR/prop.stg"
# One whose shell lives (this test's) stays.
mkdir -m 700 "$R/d/.prop-stg-live"
echo $$ >"$R/d/.prop-stg-live/.pid"
echo "$R/d/.prop-stg-live" >>"$SSH_DIR/prop.stg"
# A line that names something else is not followed.
mkdir "$R/d/not-staging"
echo "$R/d/not-staging" >>"$SSH_DIR/prop.stg"
prop_run "$TMP/o1" "$TMP/other.lua"
expect_run "the next run converges" "$TMP/o1" 0 1 0 0
same "no staging directory is left but the live one" \
  "$(cd "$R/d" && find . -maxdepth 1 -name '.prop-stg-*' | sort | tr '\n' ' ')" "./.prop-stg-live "
check "the live one is still noted" grep -qx "$R/d/.prop-stg-live" "$SSH_DIR/prop.stg"
check "what is not a staging directory stays" test -d "$R/d/not-staging"
same "the files put in place stay" "$(find "$R/d" -maxdepth 1 -name 'f*' | wc -l)" "$onfile"

finish
