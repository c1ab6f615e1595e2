#!/usr/bin/env bash
# Honest results: a command that fails fails its property (sys:run's ok
# codes), apply returning "ok" after commands, only_if, changes and
# failures counted wherever they are in the tree (text and JSON), an
# undescribed props shown as its parts, W104 for a write a property does
# not claim, a dry run that runs nothing that can change the target, a
# host typed by its properties refused on the wrong OS, and a host that
# only carries information never reached.  Everything runs on this
# machine, inside the test's scratch directory.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

S="$TMP/scratch"
mkdir -p "$S"

# ---- sys:run's exit codes, apply's word, only_if -----------------------
cat >"$TMP/results.lua" <<EOF
local S = "$S"
host "localhost" {
  os.debian("bookworm", "amd64"),
  property { desc = "false fails", apply = function(sys) sys:run { "false" } end },
  property { desc = "stderr shown",
             apply = function(sys) sys:run { "sh", "-c", "echo first >&2; echo the-reason >&2; exit 4" } end },
  property { desc = "code 1 accepted",
             apply = function(sys)
               local r = sys:run({ "sh", "-c", "exit 1" }, { ok = { 0, 1 } })
               if r.code ~= 1 then error("code " .. r.code) end
             end },
  property { desc = "any code",
             apply = function(sys)
               local r = sys:run({ "sh", "-c", "exit 7" }, { ok = "any" })
               if r.code ~= 7 then error("code " .. r.code) end
               return "ok"
             end },
  property { desc = "ok after commands",
             apply = function(sys) sys:run { "touch", S .. "/ran-ok" } return "ok" end },
  property { desc = "false after commands",
             apply = function(sys) sys:run { "true" } return false end },
  property { desc = "nothing returned", apply = function(sys) end },
  property { desc = "guard true", apply = function(sys) sys:run { "touch", S .. "/guard-true" } end }
    :only_if(function(sys) return sys:query({ "test", "-d", S }).code == 0 end),
  only_if(function(sys) return false end,
          property { desc = "guard false", apply = function(sys) sys:run { "touch", S .. "/guard-false" } end }),
  only_if(function(sys) error("no way to tell") end,
          property { desc = "guard raising", apply = function(sys) sys:run { "touch", S .. "/guard-raising" } end }),
  only_if(function(sys) sys:run { "touch", S .. "/guard-ran" } return true end,
          property { desc = "guard that changes", apply = function(sys) end }),
  only_if(function(sys) sys:write(S .. "/guard-wrote", "x") return true end,
          property { desc = "guard that writes", apply = function(sys) end }),
}
EOF
prop_run "$TMP/out" "$TMP/results.lua"
same "results: exit" "$rc" 1
same "false fails" "$(result_of "$TMP/out" '"false fails"')" failed
check "the failure names the command and its code" grep -q 'false exited with 1' "$TMP/out"
check "the failure shows stderr" grep -q 'the-reason' "$TMP/out"
check "...with the command" grep -q "sh -c 'echo first >&2; echo the-reason >&2; exit 4' exited with 4" "$TMP/out"
same "stderr shown" "$(result_of "$TMP/out" '"stderr shown"')" failed
same "ok = {0, 1}" "$(result_of "$TMP/out" '"code 1 accepted"')" changed
same "ok = any" "$(result_of "$TMP/out" '"any code"')" ok
same "return ok after commands" "$(result_of "$TMP/out" '"ok after commands"')" ok
check "the command of an ok apply ran" test -e "$S/ran-ok"
same "return false after commands" "$(result_of "$TMP/out" '"false after commands"')" ok
same "nothing returned" "$(result_of "$TMP/out" '"nothing returned"')" changed
same "only_if true" "$(result_of "$TMP/out" '"guard true"')" changed
check "only_if true ran" test -e "$S/guard-true"
same "only_if false" "$(result_of "$TMP/out" '"guard false"')" ok
check "only_if false did not run" test ! -e "$S/guard-false"
same "only_if raising" "$(result_of "$TMP/out" '"guard raising"')" failed
check "only_if raising: reason" grep -q 'its only_if test failed: .*no way to tell' "$TMP/out"
check "only_if raising did not run" test ! -e "$S/guard-raising"
same "only_if with sys:run" "$(result_of "$TMP/out" '"guard that changes"')" failed
check "a test's sys:run never ran" test ! -e "$S/guard-ran"
same "only_if with a write" "$(result_of "$TMP/out" '"guard that writes"')" failed
check "a test's write never happened" test ! -e "$S/guard-wrote"
# 12 properties: 4 ok, 3 changed, 5 failed (a guard that did not hold is ok)
same "results: host ok" "$(host_count "$TMP/out" localhost ok)" 4
same "results: host changed" "$(host_count "$TMP/out" localhost changed)" 3
same "results: host failed" "$(host_count "$TMP/out" localhost failed)" 5

# ---- changes and failures inside composites --------------------------------
cat >"$TMP/nested.lua" <<EOF
local S = "$S"
local function writes(name)
  return property { desc = "writes " .. name, claims = { files = { S .. "/" .. name } },
                    apply = function(sys) sys:write(S .. "/" .. name, "x\n") end }
end
host "localhost" {
  os.debian("bookworm", "amd64"),
  props { writes "a", writes "b",
          property { desc = "breaks", apply = function(sys) error("broken") end } }
    :describe "a group",
  props { writes "c", property { desc = "looks only", check = function() return true end,
                                  apply = function() end } },
  writes "d":requires(property { desc = "needs", apply = function(sys) error("missing") end }),
}
EOF
rm -f "$S"/[abcd]
prop_run "$TMP/out" "$TMP/nested.lua"
same "nested: exit" "$rc" 1
same "nested: group failed" "$(result_of "$TMP/out" '"a group"')" failed
same "nested: changes inside a failed group are counted" "$(host_count "$TMP/out" localhost changed)" 3
same "nested: failures counted once" "$(host_count "$TMP/out" localhost failed)" 2
same "nested: ok counted" "$(host_count "$TMP/out" localhost ok)" 1
check "nested: the skipped part did not run" test ! -e "$S/d"
grep '"event":"property"' "$TMP/out" | grep -F '"parent":"a group"' | grep -F '"desc":"writes a"' |
  grep -q '"result":"changed"' && pass || fail "nested: JSON event for an inner change" "missing" "$TMP/out"
run_prop "$TMP/text" run "$TMP/nested.lua"
check "text: the change inside is shown" grep -q '^localhost    changed: writes a$' "$TMP/text"
check "text: the failure inside is shown" grep -q '^localhost    failed: breaks: .*broken' "$TMP/text"
check "text: the summary counts them" grep -q '^localhost: 1 ok, 3 changed, 2 failed' "$TMP/text"
check "text: an undescribed props is its parts" grep -q '^localhost  writes c \.\.\. changed' "$TMP/text"
check "text: ...each on its own line" grep -q '^localhost  looks only \.\.\. ok' "$TMP/text"
check "text: no line says only props" test "$(grep -c '^localhost  props ' "$TMP/text")" = 0

# ---- W104: a write the property does not claim ------------------------------
cat >"$TMP/w104.lua" <<EOF
local S = "$S"
host "localhost" {
  os.debian("bookworm", "amd64"),
  property { desc = "writes two", claims = { files = { S .. "/claimed" } },
             apply = function(sys)
               sys:write(S .. "/claimed", "1\n")
               sys:write(S .. "/not-claimed", "2\n")
             end },
  property { desc = "claims a directory", claims = { files = { S .. "/tree" } },
             apply = function(sys)
               sys:mkdir(S .. "/tree")
               sys:write(S .. "/tree/inside", "3\n")
             end },
  property { desc = "declares nothing", apply = function(sys) sys:write(S .. "/free", "4\n") end },
}
EOF
rm -rf "$S/tree"
run_prop "$TMP/text" run "$TMP/w104.lua"
same "w104: exit" "$rc" 0
check "w104: warned in text" grep -q "warning\[W104\]: wrote $S/not-claimed, which \"writes two\" does not claim" "$TMP/text"
check "w104: one warning only" test "$(grep -c 'W104' "$TMP/text")" = 1
prop_run "$TMP/out" "$TMP/w104.lua"
grep '"event":"warning"' "$TMP/out" | grep -q '"code":"W104"' && pass ||
  fail "w104: a JSON warning event" "missing" "$TMP/out"

# ---- a dry run changes nothing, anywhere -----------------------------------
C="$S/canary"
mkdir -p "$S/existing"
echo old >"$S/existing/file"
cat >"$TMP/dry.lua" <<EOF
local C, S = "$C", "$S"
host "localhost" {
  os.debian("bookworm", "amd64"),
  property { desc = "check runs a command",
             check = function(sys) return sys:run({ "touch", C .. "-check" }).code == 0 end,
             apply = function(sys) sys:run { "touch", C .. "-apply1" } end },
  property { desc = "apply does everything",
             check = function(sys) return sys:query({ "test", "-e", C .. "-nothing" }).code == 0 end,
             apply = function(sys)
               sys:run { "touch", C .. "-apply2" }
               sys:write(C .. "-write", "x")
               sys:mkdir(C .. "-dir")
               sys:symlink("/", C .. "-link")
               sys:remove(S .. "/existing/file")
               sys:chattr(S .. "/existing", { mode = "0700" })
             end },
  cmd.run({ "touch", C .. "-cmd" }, { unless = { "test", "-e", C .. "-nothing" } }),
  file.has_content(C .. "-recipe", "y\n"),
  only_if(function(sys) return true end, cmd.run { "touch", C .. "-guarded" }),
  user.account("prop-test-dry"),
}
EOF
before="$(tree_state "$S")"
run_prop "$TMP/text" run "$TMP/dry.lua" --dry-run
same "dry: exit" "$rc" 0
check "dry: no canary anywhere" test -z "$(find "$S" -name 'canary*')"
same "dry: the tree is as it was" "$(tree_state "$S")" "$before"
check "dry: no account made" bash -c '! getent passwd prop-test-dry'
check "dry: says would run (check)" grep -q "would run (in check): touch $C-check" "$TMP/text"
check "dry: says would run (apply)" grep -q "would run: touch $C-apply2" "$TMP/text"
check "dry: says would write" grep -q "would write $C-write" "$TMP/text"
check "dry: would create the user" grep -q 'would create user prop-test-dry' "$TMP/text"
check "dry: never says created" test "$(grep -Ec '(^| )(created|installed|removed):? ' "$TMP/text")" = 0
check "dry: results say would change" grep -q '^localhost  apply does everything \.\.\. would change' "$TMP/text"
check "dry: the summary" grep -q 'localhost: 0 ok, 6 would change, 0 failed .*(dry run: nothing was changed)' "$TMP/text"

# ---- a host typed by its properties, on this machine ------------------------
cat >"$TMP/typed.lua" <<EOF
host "localhost" {
  pkg.installed "prop-test-never",
  file.has_content("$S/typed-freebsd", "x\n"),
}
EOF
prop_run "$TMP/out" "$TMP/typed.lua"
same "refused: exit" "$rc" 1
grep '"event":"host"' "$TMP/out" | grep -q '"refused":true' && pass ||
  fail "refused: host event" "no refused" "$TMP/out"
check "refused: names the OS" grep -q 'the target runs debian, but the properties of host localhost run only on FreeBSD' "$TMP/out"
check "refused: nothing changed" test ! -e "$S/typed-freebsd"
cat >"$TMP/typed2.lua" <<EOF
host "localhost" {
  file.has_content("$S/typed-debian", "x\n"),
  pick_os(file.has_content("$S/typed-pick", "debian\n"), pkg.installed "prop-test-never"),
}
EOF
prop_run "$TMP/out" "$TMP/typed2.lua"
same "inferred: exit" "$rc" 0
check "inferred: ran" test -e "$S/typed-debian"
same "inferred: pick_os chose by the detected OS" "$(cat "$S/typed-pick" 2>/dev/null)" debian

# ---- a host that only carries information -----------------------------------
cat >"$TMP/monster.lua" <<EOF
host "github.example.com" { ipv4 "192.0.2.99", alias "code.example.com" }
host "localhost" { file.has_content("$S/monster-neighbour", "x\n") }
EOF
prop_run "$TMP/out" "$TMP/monster.lua"
same "info only: exit" "$rc" 0
grep '"event":"host"' "$TMP/out" | grep -F '"host":"github.example.com"' | grep -q '"info_only":true' &&
  pass || fail "info only: host event" "missing" "$TMP/out"
check "info only: not reached" test "$(grep -c unreachable "$TMP/out")" = 0
run_prop "$TMP/out" lint "$TMP/monster.lua"
same "info only: no W103" "$(grep -c W103 "$TMP/out")" 0

finish
