# shellcheck shell=bash
# tests/lib.sh - what the shell tests share, whatever their folder: where
# prop and the sources are, a scratch directory removed on exit (after the
# clean-ups a test asks for), pass/fail counting and the checks built on
# it, and prop with a time limit.  Sourced by the common.sh of cli/ and
# run/ (which ssh/ and containers/ source too), and by the tests that
# source neither.  ctest sets PROP and PROP_SOURCE_DIR; by hand, the
# defaults below work from a build directory named "build".
#
#   require_prop          exit 1 unless $PROP is an executable
#   scratch_dir PREFIX    TMP: a new directory, removed on EXIT
#   on_exit CMD           run CMD (a string for eval) on EXIT, last first
#   pass; fail NAME WHAT [OUTPUT-FILE]; finish
#   check NAME COMMAND...; same NAME GOT WANT
#   skip REASON           SKIP: the test cannot run here (exit 77)
#   skip_missing WHAT REASON  SKIP for want of a package or daemon; under
#                         CI, which provides them all, a failure (exit 1)
#   skip_part REASON      SKIP (part): a part of the test cannot run here
#   part_missing WHAT REASON  skip_part for want of a package or daemon
#   skip_without COMMAND...  skip_missing unless each is installed
#   run_prop OUT ARGS...  prop ARGS, output in OUT, exit status in rc
#
# fail shows the first $fail_lines lines (40) of OUTPUT-FILE; run_prop
# gives prop $PROP_RUN_TIMEOUT seconds (300).

PROP_SOURCE_DIR="${PROP_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
PROP="${PROP:-$PROP_SOURCE_DIR/build/prop}"
SITES="$PROP_SOURCE_DIR/tests/sites"
export NO_COLOR=1

require_prop() {
  if [[ ! -x "$PROP" ]]; then
    echo "prop executable not found at $PROP (set PROP)" >&2
    exit 1
  fi
}

# scratch_dir PREFIX : TMP, a new directory under $TMPDIR (or /tmp) named
# PREFIX.XXXXXX; on exit the clean-ups of on_exit run, then it is removed.
cleanups=()
scratch_dir() {
  TMP="$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")"
  trap run_cleanups EXIT
}
# on_exit CMD: run CMD (a string for eval) when the test ends, last first.
on_exit() {
  cleanups+=("$1")
}
run_cleanups() {
  local i
  for ((i = ${#cleanups[@]} - 1; i >= 0; i--)); do
    eval "${cleanups[$i]}" >/dev/null 2>&1 || true
  done
  rm -rf "$TMP"
}

passed=0
failed=0
fail_lines=40

pass() {
  passed=$((passed + 1))
}

# fail NAME WHAT [OUTPUT-FILE]
fail() {
  failed=$((failed + 1))
  echo "FAIL: $1: $2"
  if [[ -n "${3:-}" && -f "$3" ]]; then
    sed 's/^/    | /' "$3" | head -"$fail_lines"
  fi
}

finish() {
  echo "$passed passed, $failed failed"
  [[ $failed -eq 0 ]]
}

# check NAME CONDITION... : passes when the command CONDITION succeeds.
check() {
  local name="$1"
  shift
  if "$@"; then pass; else fail "$name" "not true: $*" "${OUT:-}"; fi
}

# same NAME GOT WANT
same() {
  if [[ "$2" == "$3" ]]; then
    pass
  else
    fail "$1" "got [$2], want [$3]" "${OUT:-}"
  fi
}

# run_prop OUT ARGS... : prop with a time limit, stdout and stderr together
# in OUT; sets rc.  OUT also becomes $OUT, shown by failures.
run_prop() {
  OUT="$1"
  shift
  rc=0
  timeout "${PROP_RUN_TIMEOUT:-300}" "$PROP" "$@" >"$OUT" 2>&1 || rc=$?
}

# crashed FILE : prop's output in FILE tells of a crash.
crashed() {
  grep -Eqi 'segmentation|core dumped|AddressSanitizer|runtime error:|panic' "$1"
}

# A test that cannot run exits 77, which ctest reports as "Skipped"
# (SKIP_RETURN_CODE in tests/CMakeLists.txt), never 0.
#
# skip REASON : the test cannot run on this machine for REASON, one that
# no set-up provides (not root, an account it needs is taken, a port in
# use, a sanitizer build): prints SKIP and exits 77 (1 when a check made
# before it failed).
skip() {
  echo "SKIP: $*"
  _skip_note "$*"
  # A skip never hides a failure of what the test checked before it.
  if ((${failed:-0} > 0)); then
    finish
    exit 1
  fi
  exit 77
}

# skip_part REASON : a part of the test cannot run here; the rest goes on.
skip_part() {
  echo "SKIP (part): $*"
  _skip_note "(part) $*"
}

# Each skip, whole or in part, is also a line of $PROP_SKIP_LOG when it is
# set (.ci/run lists them at the end): the test's name, then the reason.
_skip_note() {
  if [[ -n "${PROP_SKIP_LOG:-}" ]]; then
    printf '%s: %s\n' "$(basename "$0" .sh)" "$1" >>"$PROP_SKIP_LOG"
  fi
}

# skip_missing WHAT REASON : the test needs WHAT, a package or a daemon,
# and this machine lacks it.  CI (CI=true) installs and starts everything
# the tests need, so there the lack is CI's own failure: exit 1, saying
# so.  Elsewhere: skip.
skip_missing() {
  local what="$1"
  shift
  if [[ "${CI:-}" == true ]]; then
    echo "FAIL: CI must provide $what: $*"
    exit 1
  fi
  skip "$*"
}

# part_missing WHAT REASON : a part of the test needs WHAT, which this
# machine lacks; the test goes on without that part.  Under CI a failure
# of the test (counted by fail), as for skip_missing.
part_missing() {
  local what="$1"
  shift
  if [[ "${CI:-}" == true ]]; then
    fail "CI must provide $what" "$*"
  else
    skip_part "$*"
  fi
}

# skip_without COMMAND... : skip_missing unless each COMMAND is installed.
skip_without() {
  local c
  for c in "$@"; do
    if ! command -v "$c" >/dev/null 2>&1; then
      skip_missing "$c" "$c is not installed"
    fi
  done
}

# gpg_agents_stop GNUPGHOME... : stops the gpg-agent of each one there is.
gpg_agents_stop() {
  local h
  for h in "$@"; do
    [[ -d "$h" ]] && GNUPGHOME="$h" gpgconf --kill all >/dev/null 2>&1
  done
  return 0
}
