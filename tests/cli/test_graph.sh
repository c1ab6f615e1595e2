#!/usr/bin/env bash
# prop graph: the dot text of every host of the demo site is accepted by
# Graphviz, carries the labels a reader needs, and the usual exit codes.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

demo="$PROP_SOURCE_DIR/examples/site.lua"
have_dot=1
if ! command -v dot >/dev/null 2>&1; then
  part_missing graphviz "dot is not installed (apt-get install graphviz); rendering not checked"
  have_dot=0
fi

for h in www.example.com files.example.com foo.example.com demo; do
  run_prop "$TMP/$h.dot" graph "$demo" "$h"
  if [[ "$rc" != 0 ]]; then
    fail "graph $h" "exit $rc, expected 0" "$TMP/$h.dot"
    continue
  fi
  if ! grep -q "^digraph prop {" "$TMP/$h.dot" || ! grep -q "label=\"host $h : " "$TMP/$h.dot"; then
    fail "graph $h" "no digraph or no host cluster label" "$TMP/$h.dot"
    continue
  fi
  if ((have_dot)); then
    if dot -Tsvg "$TMP/$h.dot" >"$TMP/$h.svg" 2>"$TMP/$h.err" && [[ ! -s "$TMP/$h.err" ]] &&
       grep -q '<svg' "$TMP/$h.svg"; then
      pass
    else
      fail "graph $h" "dot -Tsvg rejected it or warned" "$TMP/$h.err"
    fi
  else
    pass
  fi
done

# What the nodes and edges say (foo.example.com has every combinator but
# before, props and describe; www has those).
f="$TMP/foo.example.com.dot"
w="$TMP/www.example.com.dot"
expect_in "graph labels: leaf label: description, type, origin, claims" "$f" \
  'label="apt installed openssh-server\nDebianLike, revertable\n' 'examples/site.lua:63\npackage.installed openssh-server"'
expect_in "graph labels: combinator label" "$f" '[on_change]\napt installed foo\nDebianLike, revertable\n'
expect_in "graph labels: info node" "$f" 'label="ipv4 192.0.2.10\nUnixLike, info\n' 'shape=note'
expect_in "graph labels: escaped quotes" "$f" 'label="os.debian \"bookworm\" amd64\n'
expect_in "graph labels: edge labels" "$f" 'label="#1"' 'label="on_change: first"' 'label="on_change: if changed"' \
  'label="requires: first"' 'label="requires: then"' 'label="revert: of"' 'label="revert: runs"' \
  'label="revertable: normally"' 'label="revertable: reverted"' 'label="pick_os: if DebianLike"' \
  'label="pick_os: if FreeBSD"'
expect_in "graph labels: edge labels" "$w" 'label="before: first"' 'label="before: then"' 'label="props #1"' \
  'label="props #3"' 'label="describe"'
expect_in "graph labels: layout" "$f" 'rankdir=LR' 'shape=house'

# A node reached twice is drawn once: "apt removed bar" is both what the
# revert runs and the revert side of the revertable.
n="$(grep -cE 'label="apt removed bar\\nDebianLike, revertable\\n[^"]*examples/site\.lua:57\\npackage.removed bar"' "$f" || true)"
if [[ "$n" == 1 ]]; then
  pass
else
  fail "graph sharing" "\"apt removed bar\" drawn $n times, expected once" "$f"
fi

# Every host at once: one cluster each, and still valid.
run_prop "$TMP/all.dot" graph "$demo"
clusters="$(grep -c '^  subgraph cluster_' "$TMP/all.dot" || true)"
want="$(grep -c '^host "' "$demo")"
if [[ "$rc" == 0 && "$clusters" == "$want" ]] && { ((!have_dot)) || dot -Tsvg "$TMP/all.dot" >/dev/null 2>&1; }; then
  pass
else
  fail "graph of every host" "exit $rc, $clusters clusters (expected $want)" "$TMP/all.dot"
fi

# A label with a backslash and a newline stays one valid dot string.
cat >"$TMP/odd.lua" <<'LUA'
host "odd" {
  property { desc = 'back\\slash "quoted"\nsecond line', apply = function() end },
}
LUA
run_prop "$TMP/odd.dot" graph "$TMP/odd.lua" odd
if [[ "$rc" == 0 ]] && grep -qF 'label="back\\slash \"quoted\"\nsecond line\n' "$TMP/odd.dot" &&
   { ((!have_dot)) || dot -Tsvg "$TMP/odd.dot" >/dev/null 2>&1; }; then
  pass
else
  fail "graph escaping" "exit $rc or a badly escaped label" "$TMP/odd.dot"
fi

# Exit codes: an unknown host is a usage error; so is no site; a broken
# site is rejected.
run_prop "$TMP/out" graph "$demo" no.such.host
if [[ "$rc" == 64 ]] && grep -q 'declares no host "no.such.host"' "$TMP/out"; then
  pass
else
  fail "graph unknown host" "exit $rc, expected 64" "$TMP/out"
fi
run_prop "$TMP/out" graph
if [[ "$rc" == 64 ]]; then pass; else fail "graph without a site" "exit $rc, expected 64" "$TMP/out"; fi
run_prop "$TMP/out" graph "$demo" --bogus
if [[ "$rc" == 64 ]]; then pass; else fail "graph unknown option" "exit $rc, expected 64" "$TMP/out"; fi
printf 'host "x" { revert(file.has_content("/etc/x", "y")) }\n' >"$TMP/bad.lua"
run_prop "$TMP/out" graph "$TMP/bad.lua"
if [[ "$rc" == 2 ]] && grep -q 'error\[P001\]' "$TMP/out" && ! grep -q digraph "$TMP/out"; then
  pass
else
  fail "graph of a rejected site" "exit $rc, expected 2 and no graph" "$TMP/out"
fi
run_prop "$TMP/out" graph --help
if [[ "$rc" == 0 ]] && grep -qF 'usage: prop graph SITE [HOST...]' "$TMP/out"; then
  pass
else
  fail "graph --help" "exit $rc" "$TMP/out"
fi

finish
