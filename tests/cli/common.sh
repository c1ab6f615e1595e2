# Shared by the tests/cli/test_*.sh scripts: where prop and the sources
# are, a scratch directory removed on exit, and pass/fail counting.
# ctest sets PROP and PROP_SOURCE_DIR; by hand, the defaults below work
# from a build directory named "build".

PROP_SOURCE_DIR="${PROP_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
PROP="${PROP:-$PROP_SOURCE_DIR/build/prop}"
SITES="$PROP_SOURCE_DIR/tests/sites"
export NO_COLOR=1

if [[ ! -x "$PROP" ]]; then
  echo "prop executable not found at $PROP (set PROP)" >&2
  exit 1
fi

TMP="$(mktemp -d "${TMPDIR:-/tmp}/prop-test.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT

passed=0
failed=0

pass() {
  passed=$((passed + 1))
}

# fail NAME WHAT [OUTPUT-FILE]
fail() {
  failed=$((failed + 1))
  echo "FAIL: $1: $2"
  if [[ -n "${3:-}" && -f "$3" ]]; then
    sed 's/^/    | /' "$3" | head -40
  fi
}

finish() {
  echo "$passed passed, $failed failed"
  [[ $failed -eq 0 ]]
}

# run_prop OUT-FILE ARGS... : runs prop in the current directory with a
# time limit, stdout and stderr together in OUT-FILE; sets rc.
run_prop() {
  local out="$1"
  shift
  rc=0
  timeout 120 "$PROP" "$@" >"$out" 2>&1 || rc=$?
}

# expect FILE KEY : prints the expectation lines "--! KEY ..." of a site
# file, without the "--! KEY " prefix.
expect() {
  sed -n "s/^--! $2\( \(.*\)\)\{0,1\}\$/\2/p" "$1"
}

# check_fatal DIR NAME : a site whose evaluation must stop with an error.
# Its "--! fatal WHERE [TEXT]" line says where: a line number (the message
# must name NAME:LINE:), "*" (NAME:some line:), or "?" (no place checked);
# TEXT must appear in the message (case-insensitive).  "--! args ..."
# adds options before the file name.  Exit 2, no crash, no hang, and a
# report of at most 64 KiB.
check_fatal() {
  local dir="$1" name="$2" spec where text extra out="$TMP/fatal.out"
  spec="$(expect "$dir/$name" fatal | head -1)"
  where="${spec%% *}"
  text=""
  [[ "$spec" == *" "* ]] && text="${spec#* }"
  extra="$(expect "$dir/$name" args | head -1)"
  # shellcheck disable=SC2086
  (cd "$dir" && run_prop "$out" lint $extra "$name"; echo "$rc" >"$TMP/rc")
  rc="$(cat "$TMP/rc")"
  if [[ "$rc" == 124 ]]; then
    fail "$name" "prop did not finish within 120 s" "$out"
    return
  fi
  if [[ "$rc" != 2 ]]; then
    fail "$name" "exit $rc, expected 2" "$out"
    return
  fi
  if grep -Eqi 'segmentation|core dumped|AddressSanitizer|runtime error:|panic' "$out"; then
    fail "$name" "prop crashed" "$out"
    return
  fi
  # Whatever the site raises, the report stays readable.
  if (($(wc -c <"$out") > 65536)); then
    fail "$name" "the report is $(wc -c <"$out") bytes long (want at most 64 KiB)" "$out"
    return
  fi
  case "$where" in
    '?') ;;
    '*')
      if ! grep -Eq "(^|/)${name//./\\.}:[0-9]+:" "$out"; then
        fail "$name" "the message does not name $name:LINE:" "$out"
        return
      fi
      ;;
    *)
      if ! grep -Eq "(^|/)${name//./\\.}:$where:" "$out"; then
        fail "$name" "the message does not name $name:$where:" "$out"
        return
      fi
      ;;
  esac
  if [[ -n "$text" ]] && ! grep -qiF -- "$text" "$out"; then
    fail "$name" "the message does not contain: $text" "$out"
    return
  fi
  pass
}
