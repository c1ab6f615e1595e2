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
  echo "SKIP: the run tests change this machine and need root"
  exit 0
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

# prop_run OUT SITE [ARGS...] : prop run SITE --json ARGS.  When another
# prop run (someone's, outside the tests) holds the target's lock, waits
# for it up to two minutes instead of failing.
prop_run() {
  local out="$1" site="$2" tries=0
  shift 2
  while :; do
    run_prop "$out" run "$site" --json "$@"
    if [[ "$rc" == 69 ]] && grep -q 'another prop run holds the lock' "$out" &&
      [[ $tries -lt 120 ]]; then
      tries=$((tries + 1))
      sleep 1
      continue
    fi
    break
  done
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
