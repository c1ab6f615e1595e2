#!/usr/bin/env bash
# test_pipeline_ssh.sh - pipelined writes over SSH (prop-run(1), "pipelined
# over SSH"), against an sshd this test starts on loopback.  Writes are sent
# without waiting for their answers; these checks show that the results
# stay exact all the same, against what the target really holds:
#
#   1. many files: the first run writes them all, the second changes
#      nothing, and --no-pipeline gives the same results line for line;
#   2. failing writes in the middle of a run (a directory that is not
#      there, a path that is a directory): exactly the property that wrote
#      fails, with the target's reason, and the ones after it are made;
#   3. inside a property, nothing runs on the target after its failing
#      write (a later write of the same property is not made);
#   4. requires, on_change and fallback decide on the final result: a
#      requirement whose write failed stops its dependant, a change whose
#      write failed triggers nothing, a fallback runs its second side;
#   5. the failures and their reasons come out the same with
#      --no-pipeline;
#   6. writes that fail for the file system's sake (a read-only mount, a
#      full tmpfs), against a second sshd in a mount namespace of its own:
#      exactly those properties fail, with the kernel's reason, nothing is
#      left half-written or staged, and on_change and fallback decide on
#      them as on any failure; --no-pipeline gives the same results.
set -u
export PROP_RUN_TIMEOUT="${PROP_RUN_TIMEOUT:-120}"
unset SSH_AUTH_SOCK
# shellcheck source=tests/run/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../run/common.sh"
# shellcheck source=tests/ssh/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ssh_start pipe || { echo "FAIL: ssh_start pipe"; exit 1; }
R="$TMP/remote"
mkdir -p "$R"

conn() {
  printf 'connect.ssh { address = "127.0.0.1", port = %s, user = "root", identity = "%s", known_hosts = "%s" }' \
    "$SSH_PORT" "$SSH_KEY" "$SSH_KNOWN_HOSTS"
}

# events OUT : the property events, without run ids, site file names and
# timings, sorted (for comparing two runs of two site files).
events() {
  grep '"event":"property"' "$1" |
    sed -E 's/"run":"[0-9a-f]+",//; s/"origin":"[^":]*:/"origin":"site:/; s/"ms":[0-9.]+//' | sort
}

# has NAME OUT FIXED-TEXT : the output holds the text.
has() {
  if grep -qF -- "$3" "$2"; then pass; else fail "$1" "no \"$3\" in the output" "$2"; fi
}

# ---- 1. many files ----------------------------------------------------------
N=120
gen_many() { # DIR
  echo "host \"p\" {"
  echo "  $(conn),"
  for ((i = 1; i <= N; i++)); do
    printf '  file.has_content("%s/f%03d", "file %d\\n", { mode = "0640" }),\n' "$1" "$i" "$i"
  done
  echo "}"
}
mkdir -p "$R/many" "$R/many2"
gen_many "$R/many" >"$TMP/many.lua"
gen_many "$R/many2" >"$TMP/many2.lua"
prop_run "$TMP/m1" "$TMP/many.lua"
expect_run "many: first run writes every file" "$TMP/m1" 0 "$N" 0 0
same "many: the files on the target" "$(cat "$R"/many/f* | wc -l)/$(stat -c %a "$R/many/f077")" "$N/640"
same "many: file 77's content" "$(cat "$R/many/f077")" "file 77"
prop_run "$TMP/m2" "$TMP/many.lua"
expect_run "many: second run changes nothing" "$TMP/m2" 0 0 "$N" 0
prop_run "$TMP/m3" "$TMP/many2.lua" --no-pipeline
expect_run "many: --no-pipeline, first run" "$TMP/m3" 0 "$N" 0 0
same "many: the same events either way" \
  "$(events "$TMP/m1" | sed "s|$R/many/|X/|g")" "$(events "$TMP/m3" | sed "s|$R/many2/|X/|g")"

# ---- 2-4. failures in the middle ----------------------------------------------
mkdir -p "$R/dir-in-the-way" "$R/fail" "$R/fail2"
gen_fail() { # DIR
  local d="$1"
  mkdir -p "$d/dir-in-the-way"
  cat <<EOF
host "p" {
  $(conn),
  file.has_content("$d/a", "a\n"),
  file.has_content("$d/missing-dir/x", "x\n"),
  file.has_content("$d/b", "b\n"),
  file.has_content("$d/dir-in-the-way", "y\n"),
  file.has_content("$d/c", "c\n"),
  property {
    desc = "two writes, the first fails",
    apply = function(sys)
      sys:write("$d/nowhere/one", "1\n")
      sys:write("$d/two", "2\n")
    end,
  },
  file.has_content("$d/dependant", "d\n"):requires(file.has_content("$d/missing-dir/req", "r\n")),
  file.has_content("$d/missing-dir/trig", "t\n"):on_change(file.has_content("$d/triggered", "t\n")),
  file.has_content("$d/changed", "c\n"):on_change(file.has_content("$d/triggered2", "t\n")),
  file.has_content("$d/missing-dir/fb", "f\n"):fallback(file.has_content("$d/fallback", "f\n")),
  file.has_content("$d/z", "z\n"),
}
EOF
}
gen_fail "$R/fail" >"$TMP/fail.lua"
gen_fail "$R/fail2" >"$TMP/fail2.lua"
prop_run "$TMP/f1" "$TMP/fail.lua"
# changed: a b c changed(+triggered2) fallback z; failed: missing-dir/x,
# dir-in-the-way, the two writes, dependant, missing-dir/trig.
expect_run "failures: exit and counts" "$TMP/f1" 1 6 0 5
same "failures: the failing writes" \
  "$(result_of "$TMP/f1" 'missing-dir/x')/$(result_of "$TMP/f1" 'dir-in-the-way')" "failed/failed"
has "failures: the target's reason (no directory)" "$TMP/f1" "missing-dir: no such directory"
has "failures: the reason (a directory)" "$TMP/f1" "dir-in-the-way is a directory"
same "failures: the files after them are made" \
  "$(cat "$R/fail/a" "$R/fail/b" "$R/fail/c" "$R/fail/z" | tr -d '\n')" "abcz"
check "failures: nothing left where the write failed" test ! -e "$R/fail/missing-dir"
same "in a property: failed" "$(result_of "$TMP/f1" 'two writes')" failed
check "in a property: nothing after its failing write" test ! -e "$R/fail/two"
same "requires: failed" "$(result_of "$TMP/f1" "$R/fail/dependant")" failed
check "requires: the dependant is not made" test ! -e "$R/fail/dependant"
has "requires: says why" "$TMP/f1" "a requirement failed"
same "on_change: a failed change" "$(result_of "$TMP/f1" 'missing-dir/trig')" failed
check "on_change: ... triggers nothing" test ! -e "$R/fail/triggered"
same "on_change: a change that held" "$(result_of "$TMP/f1" "$R/fail/changed")" changed
check "on_change: ... triggers its target" test -e "$R/fail/triggered2"
same "fallback: takes the second side's result" "$(result_of "$TMP/f1" 'missing-dir/fb')" changed
check "fallback: the second side is made" test -e "$R/fail/fallback"

# ---- 5. the same with --no-pipeline ------------------------------------------------
prop_run "$TMP/f2" "$TMP/fail2.lua" --no-pipeline
expect_run "--no-pipeline: the same counts" "$TMP/f2" 1 6 0 5
same "--no-pipeline: the same events" \
  "$(events "$TMP/f1" | sed "s|$R/fail/|X/|g" | sed -E 's/"message":"[^"]*"//')" \
  "$(events "$TMP/f2" | sed "s|$R/fail2/|X/|g" | sed -E 's/"message":"[^"]*"//')"
same "--no-pipeline: the same files" \
  "$(cd "$R/fail" && find . | sort)" "$(cd "$R/fail2" && find . | sort)"

# ---- 6. a read-only mount and a full file system ------------------------------
# The mounts are made by the sessions of an sshd in a mount namespace of its
# own: this machine never sees them, so what is on them is looked at
# through that sshd too.
SSH_UNSHARE=1 ssh_start pipens || { echo "FAIL: ssh_start pipens"; exit 1; }
rsh() {
  ssh -p "$SSH_PORT" -i "$SSH_KEY" -o UserKnownHostsFile="$SSH_KNOWN_HOSTS" \
    -o StrictHostKeyChecking=yes -o BatchMode=yes root@127.0.0.1 "$@"
}
M="$TMP/mounts"
mkdir -p "$M/ro" "$M/full" "$M/ro2" "$M/full2" "$M/d" "$M/d2"
if ! rsh "for f in full full2; do mount -t tmpfs -o size=64k tmpfs '$M/'\$f || exit 1; done &&
          for r in ro ro2; do mount --bind '$M/'\$r '$M/'\$r && mount -o remount,bind,ro '$M/'\$r || exit 1; done &&
          head -c 56k /dev/zero >'$M/full/filler' && head -c 56k /dev/zero >'$M/full2/filler'" \
  2>"$TMP/mount.err"; then
  skip_part "section 6: cannot mount in sshd's namespace: $(cat "$TMP/mount.err")"
  finish
fi
same "fs: the mounts are not this machine's" "$(ls -A "$M/full")" ""
gen_fs() { # RO FULL DIR
  cat <<EOF
host "p" {
  $(conn),
  file.has_content("$3/a", "a\n"),
  file.has_content("$1/x", "x\n"),
  file.has_content("$3/b", "b\n"),
  file.has_content("$2/big", string.rep("0123456789abcdef", 2048)),
  file.has_content("$3/c", "c\n"),
  file.has_content("$2/trig", string.rep("t", 32768)):on_change(file.has_content("$3/triggered", "t\n")),
  file.has_content("$1/fb", "f\n"):fallback(file.has_content("$3/fallback", "f\n")),
  file.has_content("$3/z", "z\n"),
}
EOF
}
gen_fs "$M/ro" "$M/full" "$M/d" >"$TMP/fs.lua"
gen_fs "$M/ro2" "$M/full2" "$M/d2" >"$TMP/fs2.lua"
prop_run "$TMP/s1" "$TMP/fs.lua"
# changed: a b c fallback z; failed: x, big, trig.
expect_run "fs: exit and counts" "$TMP/s1" 1 5 0 3
same "fs: the read-only and the full" \
  "$(result_of "$TMP/s1" "$M/ro/x")/$(result_of "$TMP/s1" "$M/full/big")" "failed/failed"
has "fs: the kernel's reason (read-only)" "$TMP/s1" "Read-only file system"
has "fs: the kernel's reason (full)" "$TMP/s1" "No space left on device"
same "fs: the files between them are made" \
  "$(cat "$M/d/a" "$M/d/b" "$M/d/c" "$M/d/z" | tr -d '\n')" "abcz"
same "fs: nothing half-written or staged on the full one" "$(rsh "ls -A '$M/full'")" "filler"
same "fs: nothing on the read-only one" "$(rsh "ls -A '$M/ro'")" ""
same "fs: on_change: a failed change" "$(result_of "$TMP/s1" "$M/full/trig")" failed
check "fs: on_change: ... triggers nothing" test ! -e "$M/d/triggered"
same "fs: fallback: takes the second side's result" "$(result_of "$TMP/s1" "$M/ro/fb")" changed
check "fs: fallback: the second side is made" test -e "$M/d/fallback"
prop_run "$TMP/s2" "$TMP/fs2.lua" --no-pipeline
expect_run "fs: --no-pipeline: the same counts" "$TMP/s2" 1 5 0 3
same "fs: --no-pipeline: the same events" \
  "$(events "$TMP/s1" | sed -E "s#$M/(ro|full|d)/#X/#g" | sed -E 's/"message":"[^"]*"//')" \
  "$(events "$TMP/s2" | sed -E "s#$M/(ro2|full2|d2)/#X/#g" | sed -E 's/"message":"[^"]*"//')"
same "fs: --no-pipeline: nothing left on the full one" "$(rsh "ls -A '$M/full2'")" "filler"

finish
