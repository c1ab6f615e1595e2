#!/usr/bin/env bash
# prop run --serial N [--max-fail K]: hosts in batches, the later batches
# held back once more hosts have failed than K allows.  Five connect.dir
# trees in scratch space; one of them (h3) fails, its tree's /etc being a
# file.  Checked: the batches printed in order, in text and JSON; the
# hosts of the batches after the failing one not run (their trees
# untouched), named in the summary and the "held" event, exit 1; with
# --max-fail 1 every batch runs; a percentage; --serial 0 and
# --max-fail without --serial are usage errors; -j inside a batch.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

for h in h1 h2 h3 h4 h5; do mkdir -p "$TMP/$h/etc"; done
rm -rf "$TMP/h3/etc" && echo "not a directory" >"$TMP/h3/etc"

cat >"$TMP/site.lua" <<EOF
for _, name in ipairs { "h1", "h2", "h3", "h4", "h5" } do
  host(name) {
    connect.dir("$TMP/" .. name),
    file.has_content("/etc/motd", "managed\n"),
  }
end
EOF

# ---- batches of two, the second failing: the third is held back ----------
run_prop "$TMP/t.out" run "$TMP/site.lua" --serial 2
same "serial 2: exit" "$rc" 1
same "serial 2: the batches in order" "$(grep '^batch ' "$TMP/t.out")" \
  "$(printf 'batch 1 of 3: h1, h2\nbatch 2 of 3: h3, h4')"
check "serial 2: h1 and h2 made" test -f "$TMP/h1/etc/motd" -a -f "$TMP/h2/etc/motd"
check "serial 2: h4 ran in the failing batch" test -f "$TMP/h4/etc/motd"
check "serial 2: h5 held back" test ! -e "$TMP/h5/etc/motd"
check "serial 2: the summary says so" grep -q 'h5 not run' "$TMP/t.out"
check "serial 2: the reason" grep -q '1 host failed by the end of batch 2 of 3 (--max-fail 0): the 1 host of the later batches was not run' "$TMP/t.out"

rm -f "$TMP"/h*/etc/motd
prop_run "$TMP/j.out" "$TMP/site.lua" --serial 2
strip_run "$TMP/j.out"
same "json: exit" "$rc" 1
same "json: two batch events" "$(grep -c '"event":"batch"' "$TMP/j.out")" 2
check "json: the first batch" grep -qF '{"event":"batch","batch":1,"of":3,"hosts":["h1","h2"]}' "$TMP/j.out"
check "json: the held event" grep -qF '{"event":"held","failed":1,"max_fail":0,"hosts":["h5"]}' "$TMP/j.out"
same "json: h5 has no host event" "$(grep '"event":"host"' "$TMP/j.out" | grep -c '"host":"h5"' || true)" 0

# ---- --max-fail 1: one failed host is allowed, every batch runs -------------
rm -f "$TMP"/h*/etc/motd
run_prop "$TMP/m.out" run "$TMP/site.lua" --serial 2 --max-fail 1 -j 2
same "max-fail 1: exit (h3 failed)" "$rc" 1
same "max-fail 1: three batches" "$(grep -c '^batch ' "$TMP/m.out")" 3
check "max-fail 1: h5 made" test -f "$TMP/h5/etc/motd"
check "max-fail 1: nothing held" bash -c "! grep -q 'not run' '$TMP/m.out'"

# ---- a percentage: 40% of 5 hosts is batches of 2 ---------------------------
run_prop "$TMP/p.out" run "$TMP/site.lua" --serial 40% --max-fail 5
same "40%: batches of two" "$(grep -c '^batch ' "$TMP/p.out")" 3
check "40%: the first" grep -q '^batch 1 of 3: h1, h2$' "$TMP/p.out"

# ---- no failure: every batch, exit 0 -------------------------------------
rm -f "$TMP/h3/etc" && mkdir "$TMP/h3/etc"
run_prop "$TMP/ok.out" run "$TMP/site.lua" --serial 1
same "all well: exit" "$rc" 0
same "all well: five batches" "$(grep -c '^batch ' "$TMP/ok.out")" 5

# ---- usage errors ---------------------------------------------------------------
run_prop "$TMP/u1.out" run "$TMP/site.lua" --serial 0
same "serial 0: usage" "$rc" 64
check "serial 0: says why" grep -q -- '--serial wants a number in 1\.\.' "$TMP/u1.out"
run_prop "$TMP/u2.out" run "$TMP/site.lua" --max-fail 1
same "max-fail alone: usage" "$rc" 64
check "max-fail alone: says why" grep -q -- '--max-fail .* needs --serial' "$TMP/u2.out"
run_prop "$TMP/u3.out" run "$TMP/site.lua" --serial 101%
same "serial 101%: usage" "$rc" 64

finish
