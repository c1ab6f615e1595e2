#!/usr/bin/env bash
# prop run itself: the run-time meaning of every combinator with its
# failure paths, errors inside Lua check/apply, the sys handle, dry run,
# --diff, secrets, JSON and text output, host selection, the pre-pass
# stopping a run, the run lock, SIGTERM between properties, and a kill -9
# during a large file write.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

T="$TMP/tree"
mkdir -p "$T/etc" "$T/log"

# A property that appends its name to /log/order when it runs (apply),
# and is true when /flags/NAME exists.  fails(name) raises in apply.
cat >"$TMP/lib.lua" <<'EOF'
local M = {}
local function mark(sys, name)
  local old = sys:read("/log/order") or ""
  sys:write("/log/order", old .. name .. "\n")
end
function M.step(name)
  return property {
    desc = "step " .. name,
    check = function(sys) return sys:exists("/flags/" .. name) end,
    apply = function(sys) mark(sys, name) end,
  }
end
function M.fails(name)
  return property {
    desc = "fails " .. name,
    check = function(sys) return false end,
    apply = function(sys) mark(sys, name); error("boom " .. name) end,
  }
end
function M.ok(name)
  return property {
    desc = "ok " .. name,
    check = function(sys) return true end,
    apply = function(sys) error("apply of an ok property must not run") end,
  }
end
return M
EOF

site() {
  # site NAME BODY : a site with one host "t" on the tree, body as given.
  cat >"$TMP/$1.lua" <<EOF
local L = require "lib"
local step, fails, ok = L.step, L.fails, L.ok
host "t" {
  connect.dir "$T",
$2
}
EOF
}

order() { tr '\n' ' ' <"$T/log/order" 2>/dev/null | sed 's/ $//'; }
reset() { rm -rf "$T/log" "$T/flags"; mkdir -p "$T/log" "$T/flags"; }

# ---- combinators ------------------------------------------------------
reset
site comb '  step("a"):requires(step("b")),
  step("c"):before(step("d")),
  step("e"):on_change(step("f")),
  ok("g"):on_change(step("h")),
  fails("i"):fallback(step("j")),
  step("k"):fallback(step("l")),
  step("m"):requires(fails("n")),
  fails("o"):before(step("p")),
  props { fails("q"), step("r") },
  props { fails("t"), step("u") }:describe "described props",
  step("s"):describe "described s",'
prop_run "$TMP/out" "$TMP/comb.lua"
same "combinator order" "$(order)" "b a c d e f i j k n o q r t u s"
# An undescribed props is its parts: fails("q") and step("r") are two lines.
expect_run "combinator results" "$TMP/out" 1 7 1 4
same "requires result" "$(result_of "$TMP/out" '"desc":"step a')" changed
same "on_change of ok" "$(result_of "$TMP/out" '"desc":"ok g')" ok
same "fallback takes b's result" "$(result_of "$TMP/out" '"desc":"fails i')" changed
same "requires stops at failure" "$(result_of "$TMP/out" '"desc":"step m')" failed
same "props fails when one fails" "$(result_of "$TMP/out" '"desc":"described props')" failed
same "an undescribed props is its parts" "$(result_of "$TMP/out" '"desc":"fails q')" failed
same "describe shown" "$(result_of "$TMP/out" '"desc":"described s')" changed
check "failure reason reported" grep -q 'boom i' "$TMP/out"
check "nested leaf events carry parent" grep -q '"parent":"step a' "$TMP/out"

# ---- revert: the undo side, composites in reverse order -----------------
reset
site rev '  revert(revertable(step("do1"), step("undo1"))),
  revert(revertable(step("x"), step("ux")):requires(revertable(step("y"), step("uy")))),
  revert(property { desc = "p", apply = function(sys) end,
                    revert = function(sys) sys:write("/log/reverted", "yes\n") end }),'
prop_run "$TMP/out" "$TMP/rev.lua"
same "revert order" "$(order)" "undo1 ux uy"
check "property revert ran" grep -qx yes "$T/log/reverted"
expect_run "revert results" "$TMP/out" 0 3 0 0

# ---- pick_os at run time -------------------------------------------------
reset
cat >"$TMP/pick.lua" <<EOF
local L = require "lib"
host "t" {
  connect.dir "$T",
  os.debian("bookworm", "amd64"),
  pick_os(property { desc = "bsd", targets = "FreeBSD", apply = function(sys) sys:write("/log/os", "bsd\n") end },
          property { desc = "deb", targets = "DebianLike", apply = function(sys) sys:write("/log/os", sys.os .. " " .. sys.suite .. " " .. sys.arch .. "\n") end }),
}
EOF
prop_run "$TMP/out" "$TMP/pick.lua"
check "pick_os picked the Debian alternative" grep -qx "debian bookworm amd64" "$T/log/os"

# ---- errors inside Lua never stop the run -------------------------------
reset
site errs '  property { desc = "check raises", check = function(sys) error({}) end, apply = function(sys) end },
  property { desc = "bad sys use", apply = function(sys) sys:write("relative", "x") end },
  property { desc = "write in check", check = function(sys) sys:write("/etc/x", "x"); return true end, apply = function(sys) end },
  property { desc = "endless", apply = function(sys) while true do end end },
  property { desc = "returns ok", apply = function(sys) return "ok" end },
  step("after"),'
prop_run "$TMP/out" "$TMP/errs.lua" --max-instructions 1000000
expect_run "lua errors are failures" "$TMP/out" 1 1 1 4
check "write refused in check" grep -q 'check must only look' "$TMP/out"
check "relative path refused" grep -q 'is not absolute' "$TMP/out"
check "endless loop stopped" grep -q 'instruction budget' "$TMP/out"
same "the run went on" "$(order)" "after"
check "nothing written by check" test ! -e "$T/etc/x"

# ---- dry run and diff -----------------------------------------------------
reset
printf 'one\ntwo\n' >"$T/etc/conf"
cat >"$TMP/dry.lua" <<EOF
host "t" {
  connect.dir "$T",
  file.has_content("/etc/conf", { "one", "TWO" }),
  file.has_content("/etc/secret", "hunter2-password\n", { secret = true }),
}
host "localhost" {
  property { desc = "runs a command", check = function(sys) return false end,
             apply = function(sys) sys:run { "touch", "$TMP/should-not-exist" } end },
}
EOF
before="$(tree_state "$T")"
run_prop "$TMP/out" run "$TMP/dry.lua" --dry-run --diff
same "dry run exit" "$rc" 0
same "dry run changes nothing" "$(tree_state "$T")" "$before"
check "dry run ran no command" test ! -e "$TMP/should-not-exist"
check "dry run shows the diff" grep -q '^t    +TWO' "$TMP/out"
check "dry run shows the old line" grep -q '^t    -two' "$TMP/out"
check "dry run says what it would run" grep -q "would run: touch $TMP/should-not-exist" "$TMP/out"
check "dry run reports would change" grep -q 'file /etc/conf has content ... would change' "$TMP/out"
check "dry run summary says so" grep -q 'dry run: nothing was changed' "$TMP/out"
if grep -q hunter2 "$TMP/out"; then fail "secret in dry-run output" "printed" "$TMP/out"; else pass; fi
run_prop "$TMP/out" run "$TMP/dry.lua" t --diff
same "real run exit" "$rc" 0
check "real run wrote" grep -qx TWO "$T/etc/conf"
if grep -q hunter2 "$TMP/out"; then fail "secret in diff output" "printed" "$TMP/out"; else pass; fi
check "secret written" grep -q hunter2 "$T/etc/secret"
check "secret diff withheld" grep -q 'secret content, diff not shown' "$TMP/out"

# ---- text output and summary ---------------------------------------------
reset
site text '  step("a"),
  fails("b"),'
run_prop "$TMP/out" run "$TMP/text.lua"
same "text exit" "$rc" 1
check "text property line" grep -qx 't  step a ... changed' "$TMP/out"
check "text failure line" grep -qx 't  fails b ... failed' "$TMP/out"
check "text failure reason" grep -q '^t    failed: .*boom b' "$TMP/out"
check "text summary" grep -Eq '^t: 0 ok, 1 changed, 1 failed in [0-9.]+ ms$' "$TMP/out"

# ---- the pre-pass stops everything -----------------------------------------
reset
cat >"$TMP/bad.lua" <<EOF
host "t" {
  connect.dir "$T",
  file.has_content("/etc/bad", "x\n"),
  file.absent("/etc/bad"),
}
EOF
run_prop "$TMP/out" run "$TMP/bad.lua"
same "rejected site exit" "$rc" 2
check "rejected site names P007" grep -q 'P007' "$TMP/out"
check "rejected site ran nothing" test ! -e "$T/etc/bad"
run_prop "$TMP/out" run "$TMP/comb.lua" nosuchhost
same "unknown host exit" "$rc" 64
run_prop "$TMP/out" run "$TMP/comb.lua" --bogus
same "unknown option exit" "$rc" 64

# ---- host selection, unreachable hosts, parallel hosts --------------------
reset
cat >"$TMP/multi.lua" <<EOF
host "one" { connect.dir "$T/one", file.has_content("/f", "1\n") }
host "two" { connect.dir "$T/two", file.has_content("/f", "2\n") }
host "gone" { connect.ssh { address = "127.0.0.1", port = 1 }, file.has_content("/f", "3\n") }
EOF
run_prop "$TMP/out" run "$TMP/multi.lua" one --json
same "one host only" "$rc" 0
check "one host ran" grep -qx 1 "$T/one/f"
check "other host did not run" test ! -e "$T/two/f"
run_prop "$TMP/out" run "$TMP/multi.lua" -j 3 --connect-timeout 2
same "unreachable host exit" "$rc" 69
check "the others still ran" grep -qx 2 "$T/two/f"
check "unreachable named" grep -q '^gone  unreachable' "$TMP/out"
check "final summary lists hosts" grep -q 'gone unreachable' "$TMP/out"
# whole lines only, each with its host's name
if grep -v -E '^(one|two|gone)[ :]|^$|^3 hosts:' "$TMP/out" | grep -q .; then
  fail "parallel output lines" "a line without its host" "$TMP/out"
else
  pass
fi

# ---- the run lock ----------------------------------------------------------
reset
cat >"$TMP/slow.lua" <<EOF
host "localhost" {
  property { desc = "slow", apply = function(sys) sys:query { "sleep", "3" } end },
  file.has_content("$T/etc/after-slow", "done\n"),
}
EOF
"$PROP" run "$TMP/slow.lua" >"$TMP/slow.out" 2>&1 &
slow=$!
sleep 1
run_prop "$TMP/out" run "$TMP/slow.lua"
check "second run refused while locked" test "$rc" -ne 0
check "lock holder named" grep -Eq 'lock.*pid [0-9]+' "$TMP/out"
wait "$slow"
same "first run finished" "$?" 0

# ---- SIGTERM stops between properties -----------------------------------------
reset
rm -f "$T/etc/after-slow"
"$PROP" run "$TMP/slow.lua" >"$TMP/term.out" 2>&1 &
slow=$!
sleep 1
kill -TERM "$slow"
wait "$slow"
same "interrupted exit" "$?" 130
check "interrupted reported" grep -q 'not run (interrupted)' "$TMP/term.out"
check "the next property did not run" test ! -e "$T/etc/after-slow"

# ---- kill -9 during a large write: old or new, never a part ------------------
reset
head -c 30000000 /dev/zero | tr '\0' 'o' >"$T/etc/big"
old_sum="$(sha256sum <"$T/etc/big")"
cat >"$TMP/big.lua" <<EOF
host "t" {
  connect.dir "$T",
  property { desc = "big write", apply = function(sys) sys:write("/etc/big", string.rep("n", 30000000)) end },
}
EOF
new_sum="$(head -c 30000000 /dev/zero | tr '\0' 'n' | sha256sum)"
torn=0
for delay in 0.05 0.1 0.15 0.2 0.3; do
  cp "$T/etc/big" "$TMP/big.keep" 2>/dev/null
  "$PROP" run "$TMP/big.lua" >/dev/null 2>&1 &
  pid=$!
  sleep "$delay"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  sum="$(sha256sum <"$T/etc/big")"
  if [[ "$sum" != "$old_sum" && "$sum" != "$new_sum" ]]; then torn=1; fi
  head -c 30000000 /dev/zero | tr '\0' 'o' >"$T/etc/big"
done
same "kill -9 never leaves a partial file" "$torn" 0

finish
