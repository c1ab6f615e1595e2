# Shared by the tests/cli/test_*.sh scripts: tests/lib.sh (where prop
# and the sources are, a scratch directory removed on exit, pass/fail
# counting, run_prop), prop given 120 s, check_fatal (a site that must
# stop with an error) and the checks of prop's exit and output, and of
# the bash completion, that several cli tests make.

# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_prop
scratch_dir prop-test
PROP_RUN_TIMEOUT=120

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
    fail "$name" "prop did not finish within $PROP_RUN_TIMEOUT s" "$out"
    return
  fi
  if [[ "$rc" != 2 ]]; then
    fail "$name" "exit $rc, expected 2" "$out"
    return
  fi
  if crashed "$out"; then
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

# expect_rc NAME WANT [TEXT] : the last run_prop exited WANT, did not
# crash, and its output holds TEXT (a fixed string) when given.
expect_rc() {
  local name=$1 want=$2 text=${3:-}
  if [[ $rc != "$want" ]]; then
    fail "$name" "exit $rc, expected $want" "$OUT"
  elif crashed "$OUT"; then
    fail "$name" "prop crashed" "$OUT"
  elif [[ -n $text ]] && ! grep -qF -- "$text" "$OUT"; then
    fail "$name" "the output lacks: $text" "$OUT"
  else
    pass
  fi
}

# expect_in NAME FILE TEXT... : FILE contains each TEXT.
expect_in() {
  local name="$1" file="$2" t
  shift 2
  for t in "$@"; do
    if grep -qF -- "$t" "$file"; then pass; else fail "$name" "no \"$t\"" "$file"; fi
  done
}

# expect_not_in NAME FILE TEXT : FILE does not contain TEXT.
expect_not_in() {
  if grep -qF -- "$3" "$2"; then fail "$1" "unexpected \"$3\"" "$2"; else pass; fi
}

# expect_refused NAME WANT-TEXT ARGS... : prop ARGS exits 2 (not a hang:
# run_prop's timeout gives 124), and WANT-TEXT is in its output.
expect_refused() {
  local name="$1" want="$2"
  shift 2
  run_prop "$TMP/out" "$@"
  if [[ "$rc" == 2 ]] && grep -qF -- "$want" "$TMP/out"; then
    pass
  else
    fail "$name" "exit $rc (want 2) or no \"$want\" in the output" "$TMP/out"
  fi
}

# complete_words WORD... : what the bash completion (its _prop, which the
# test sources) offers on Tab for the last word (words after prop), one a
# line, sorted; complete_line WORD... : the same on one line.
complete_words() {
  COMP_WORDS=("$PROP" "$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _prop
  printf '%s\n' "${COMPREPLY[@]}" | sort
}
complete_line() {
  complete_words "$@" | tr '\n' ' ' | sed 's/ $//'
}
