# Shared by the tests/run/test_*.sh scripts (and sourced by those of
# tests/ssh/ and tests/containers/): prop run against this machine (as
# root) and against connect.dir trees, with real effects checked
# independently (cat, stat, getent, dpkg-query).  Built on tests/lib.sh
# (finding prop, the scratch directory, on_exit, pass/fail, check, same,
# run_prop).
#
# Every test makes its site files in a scratch directory, names what it
# creates on the system "prop-test-..." and undoes it on exit.

# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_prop
if [[ "$(id -u)" != 0 ]]; then
  skip "the run tests change this machine and need root"
fi

# The run tests change this one machine (packages, accounts, services):
# two of them at once, or two ctest runs at once, would see each other's
# changes.  Each takes this lock for its whole run.
exec 9>>/run/lock/prop-run-tests.lock
if ! flock -w 1800 9; then
  echo "another run test held /run/lock/prop-run-tests.lock for 30 minutes" >&2
  exit 1
fi

scratch_dir prop-run
chmod 755 "$TMP"
# prop's state on a target (owed triggers) is kept in the scratch
# directory, not in /var/lib/prop of this machine (on a connect.dir tree,
# under the tree).
export PROP_STATE_DIR="$TMP/prop-state"
# A failure shows up to 60 lines of prop's output.
fail_lines=60

# prop_waiting OUT COMMAND SITE [ARGS...] : prop COMMAND SITE --json ARGS.
# When another prop run (someone's, outside the tests) holds the target's
# lock, waits for it up to two minutes instead of failing.
prop_waiting() {
  local out="$1" cmd="$2" site="$3" tries=0
  shift 3
  while :; do
    run_prop "$out" "$cmd" "$site" --json "$@"
    if [[ "$rc" != 0 ]] && grep -q 'another prop run holds the lock' "$out" &&
      [[ $tries -lt 120 ]]; then
      tries=$((tries + 1))
      sleep 1
      continue
    fi
    break
  done
}

# prop_run OUT SITE [ARGS...] : prop run SITE --json ARGS, waiting for
# another run's lock.
prop_run() {
  local out="$1"
  shift
  prop_waiting "$out" run "$@"
}

# prop_verify OUT SITE [ARGS...] : prop verify SITE --json ARGS (checks
# and probes only; exit 0 all hold, 1 drift, 2 a probe failed), waiting
# for another run's lock as prop_run does.
prop_verify() {
  local out="$1"
  shift
  prop_waiting "$out" verify "$@"
}

# strip_run OUT : removes from the events in OUT the fields every event of
# a run carries (its "run" id, and "commit" and "dirty" when the site is in
# a git work tree), for tests that compare whole events.
strip_run() {
  sed -E -i 's/^(\{"event":"[a-z_]+",)"run":"[0-9a-f]{32}",("commit":"[0-9a-f]+","dirty":(true|false),)?/\1/' "$1"
}

# Counts from the JSON Lines of prop run --json.
# results OUT RESULT [HOST] : top-level property events with that result.
results() {
  local host="${3:-}"
  grep '"event":"property"' "$1" | grep -v '"parent":' |
    { if [[ -n "$host" ]]; then grep -F "\"host\":\"$host\""; else cat; fi; } |
    grep -c "\"result\":\"$2\"" || true
}

# host_count OUT HOST KEY : KEY (ok, changed, failed) of the host event.
host_count() {
  grep '"event":"host"' "$1" | grep -F "\"host\":\"$2\"" |
    sed -n "s/.*\"$3\":\([0-9][0-9]*\).*/\1/p" | head -1
}

# changed_failed OUT HOST : "CHANGED/FAILED" of the host event of HOST.
changed_failed() {
  echo "$(host_count "$1" "$2" changed)/$(host_count "$1" "$2" failed)"
}

# result_of OUT DESC-SUBSTRING : the result of the first top-level property
# whose desc contains the text.
result_of() {
  grep '"event":"property"' "$1" | grep -v '"parent":' | grep -F -- "$2" | head -1 |
    sed -n 's/.*"result":"\([a-z]*\)".*/\1/p'
}

# expect_run NAME OUT WANT-RC CHANGED OK FAILED : prop's exit code and the
# counts of top-level results of every host together.
expect_run() {
  local name="$1" out="$2" want_rc="$3" c o f
  c="$(results "$out" changed)"
  o="$(results "$out" ok)"
  f="$(results "$out" failed)"
  if [[ "$rc" != "$want_rc" ]]; then
    fail "$name" "exit $rc, want $want_rc" "$out"
  elif [[ "$c/$o/$f" != "$4/$5/$6" ]]; then
    fail "$name" "changed/ok/failed = $c/$o/$f, want $4/$5/$6" "$out"
  elif crashed "$out"; then
    fail "$name" "prop crashed" "$out"
  elif grep -q 'W104' "$out"; then
    # prop's recipes claim every path they write.
    fail "$name" "a recipe wrote a path it does not claim (W104)" "$out"
  else
    pass
  fi
}

# tree_state DIR... : one line per path under DIR (type, mode, owner,
# size, link target, content hash), to compare before and after.
tree_state() {
  local d
  for d in "$@"; do
    [[ -e "$d" || -L "$d" ]] || { echo "missing $d"; continue; }
    find "$d" -printf '%p %y %m %u:%g %s %l\n' | LC_ALL=C sort
    find "$d" -type f -exec sha256sum {} + | LC_ALL=C sort
  done
}

# mode_of PATH : octal mode, four digits.
mode_of() {
  stat -c '%04a' "$1"
}

owner_of() {
  stat -c '%U:%G' "$1"
}

# skip_unless_absent PACKAGE : skips the test (exit 77) unless this is a
# Debian system without PACKAGE, which the test installs and purges.
skip_unless_absent() {
  if ! command -v apt-get >/dev/null; then skip "not a Debian system"; fi
  if dpkg-query -W -f '${db:Status-Abbrev}' "$1" 2>/dev/null | grep -q '^.i'; then
    skip "$1 is installed already; this test installs and purges it"
  fi
}

# installed_packages : names of the packages dpkg has installed, sorted.
installed_packages() {
  dpkg-query -W -f '${Package} ${db:Status-Abbrev}\n' | awk '$2 ~ /^.i/ { print $1 }' | LC_ALL=C sort
}

# purge_new_packages BEFORE-FILE : purges what was installed since the list
# in BEFORE-FILE was taken (what a test's apt-get pulled in), nothing else.
purge_new_packages() {
  local new
  new="$(installed_packages | LC_ALL=C comm -13 "$1" -)"
  if [[ -n "$new" ]]; then
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get purge -y -q -o DPkg::Lock::Timeout=600 $new >/dev/null 2>&1
  fi
}

# db_state : the account databases, to compare before and after.
db_state() {
  sha256sum /etc/passwd /etc/group /etc/shadow /etc/gshadow 2>/dev/null
}

# lines FILE : how many lines FILE has (0 when there is none).
lines() {
  if [[ -e "$1" ]]; then wc -l <"$1"; else echo 0; fi
}

# has NAME OUT FIXED-TEXT : the output holds the text.
has() {
  if grep -qF -- "$3" "$2"; then pass; else fail "$1" "no \"$3\" in the output" "$2"; fi
}

# lacks NAME OUT FIXED-TEXT
lacks() {
  if grep -qF -- "$3" "$2"; then fail "$1" "\"$3\" in the output" "$2"; else pass; fi
}

# ended PID : the process is gone (or a zombie), waiting 10 s at most.
ended() {
  local i st
  for ((i = 0; i < 100; i++)); do
    st="$(ps -o stat= -p "$1" 2>/dev/null)" || return 0
    [[ "$st" == Z* ]] && return 0
    sleep 0.1
  done
  return 1
}

# wait_files FILE... : until every FILE exists and is not empty (30 s at most).
wait_files() {
  local i f ok
  for ((i = 0; i < 300; i++)); do
    ok=1
    for f in "$@"; do [[ -s "$f" ]] || ok=0; done
    [[ $ok == 1 ]] && return 0
    sleep 0.1
  done
  return 1
}

# signal_run NAME SITE "MARKERS" SIGNALS... [-- ARGS] : prop run SITE ARGS
# in the background, the file $HOLD there meanwhile (the site's command
# or loop goes on while it exists); once every marker exists, sends each
# signal to prop, a second apart; sets rc and OUT.  Killed (rc 137) if it
# does not end within WATCHDOG seconds.
signal_run() {
  local name="$1" site="$2" markers="$3" pid dog sig first=1 sigs=()
  shift 3
  while [[ $# -gt 0 && "$1" != -- ]]; do sigs+=("$1"); shift; done
  [[ "${1:-}" == -- ]] && shift
  OUT="$TMP/$name.out"
  # shellcheck disable=SC2086
  rm -f $markers
  touch "$HOLD"
  "$PROP" run "$site" "$@" >"$OUT" 2>&1 &
  pid=$!
  (exec 9>&-; sleep "$WATCHDOG" && kill -KILL "$pid") >/dev/null 2>&1 &
  dog=$!
  # shellcheck disable=SC2086
  if wait_files $markers; then
    for sig in "${sigs[@]}"; do
      [[ $first == 1 ]] || sleep 1
      first=0
      kill "-$sig" "$pid" 2>/dev/null
    done
  else
    fail "$name" "the property never started" "$OUT"
  fi
  rc=0
  wait "$pid" || rc=$?
  pkill -P "$dog" sleep 2>/dev/null
  kill "$dog" 2>/dev/null
  wait "$dog" 2>/dev/null
  rm -f "$HOLD"
}

# counting_nproc : SHIM, a directory whose nproc logs each call in
# $TMP/nproc.log before running the real one (the facts are gathered
# with it); calls : how many calls the log holds.
counting_nproc() {
  local real
  SHIM="$TMP/shim"
  mkdir -p "$SHIM"
  real="$(command -v nproc)"
  cat >"$SHIM/nproc" <<EOF
#!/bin/sh
echo called >>"$TMP/nproc.log"
exec "$real" "\$@"
EOF
  chmod 755 "$SHIM/nproc"
  : >"$TMP/nproc.log"
}
calls() { wc -l <"$TMP/nproc.log" | tr -d ' '; }

# gpg_test_key USER-ID : GNUPGHOME, a keyring in the scratch directory
# (its agent stopped on exit) holding a new key of USER-ID, without a
# passphrase, that signs and encrypts; FPR, its fingerprint.
gpg_test_key() {
  export GNUPGHOME="$TMP/gnupg"
  mkdir -m 700 "$GNUPGHOME"
  on_exit 'gpg_agents_stop "$TMP/gnupg"'
  gpg --batch --quiet --passphrase '' --quick-gen-key "$1" ed25519 cert,sign 2>/dev/null
  FPR="$(gpg --list-keys --with-colons | awk -F: '/^fpr/ { print $10; exit }')"
  gpg --batch --quiet --passphrase '' --quick-add-key "$FPR" cv25519 encr 2>/dev/null
}

# Flooding targets (test_flood_local, test_flood_ssh, test_flood_chroot).
# timed_run OUT ARGS... : prop ARGS as run_prop does, under /usr/bin/time
# -v; sets rc and RSS_MB, the most memory prop held (its maximum resident
# set, in MB).  Skips the test (exit 77) without GNU time.
timed_run() {
  local out="$1"
  shift
  [[ -x /usr/bin/time ]] || { echo "SKIP: no /usr/bin/time"; exit 77; }
  OUT="$out"
  rc=0
  (
    # A prop that keeps all it is sent fails here rather than take the
    # machine's memory (not under ASan, whose shadow memory is virtual).
    grep -qa __asan_init "$PROP" || ulimit -v $((4 << 20))
    exec timeout "${PROP_RUN_TIMEOUT:-300}" /usr/bin/time -v -o "$out.time" "$PROP" "$@"
  ) >"$out" 2>&1 || rc=$?
  RSS_MB="$(awk -F: '/Maximum resident set size/ { print int($2 / 1024) }' "$out.time")"
  [[ -n "$RSS_MB" ]] || RSS_MB=999999
}

# mem_bound MIB : the most memory, in MB, a prop that holds at most MIB
# MiB of a command's output may take: 4 times that and 200 MB, twice as
# much under ASan (its shadow memory and quarantine count as resident).
# A prop that keeps all it is sent takes gigabytes.
mem_bound() {
  if grep -qa __asan_init "$PROP"; then
    echo $((8 * $1 + 400))
  else
    echo $((4 * $1 + 200))
  fi
}

# term_when MARKER OUT ARGS... : prop ARGS in the background; once MARKER
# exists, SIGTERM to prop.  Sets rc, OUT and STOP_S, the seconds from the
# signal to prop's exit (rounded up); prop is killed (rc 137) if it has not
# ended 60 seconds after the signal, or if MARKER never comes.
term_when() {
  local marker="$1" pid t0 i
  OUT="$2"
  shift 2
  rm -f "$marker"
  (
    grep -qa __asan_init "$PROP" || ulimit -v $((4 << 20))
    exec "$PROP" "$@"
  ) >"$OUT" 2>&1 &
  pid=$!
  for ((i = 0; i < 600; i++)); do
    [[ -e "$marker" ]] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  t0="$(date +%s%N)"
  kill -TERM "$pid" 2>/dev/null
  for ((i = 0; i < 600; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null
  rc=0
  wait "$pid" || rc=$?
  STOP_S=$((($(date +%s%N) - t0 + 999999999) / 1000000000))
}
