#!/usr/bin/env bash
# prop repl in a real terminal: tmux runs it in a detached 200x50 pane,
# keys are sent with send-keys, and what the pane shows is read with
# capture-pane, polled until the expected text appears (or a timeout).
# Then the same REPL with piped input, as a script would use it.
set -uo pipefail
# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_prop
PROP="$(cd "$(dirname "$PROP")" && pwd)/$(basename "$PROP")"

scratch_dir prop-repl
SOCK="$TMP/tmux.0.sock"
on_exit 'for s in "$TMP"/tmux.*.sock; do [[ -S $s ]] && tmux -S "$s" kill-server; done'

# ---------------------------------------------------------------------
# Piped input: no prompt, no banner; results on stdout, errors on stderr.

# The demo host's tree goes under the scratch directory (same line numbers).
sed "s|/tmp/prop-demo|$TMP/demo-tree|" "$PROP_SOURCE_DIR/examples/site.lua" >"$TMP/site.lua"
cp "$PROP_SOURCE_DIR/examples/site.secrets" "$TMP/site.secrets"
mkdir -p "$TMP/demo-tree"
cd "$TMP"

piped() { # piped NAME INPUT : runs the REPL on INPUT; sets rc, out, err
  rc=0
  printf '%s' "$2" | timeout 60 "$PROP" repl site.lua >"$TMP/$1.out" 2>"$TMP/$1.err" || rc=$?
}

piped basic $'1 + 1\nfor i = 1, 2 do\nprint("n" .. i)\nend\n"text"\n{ 1, "two", { three = 3 } }\n'
printf '2\nn1\nn2\n"text"\n{ 1, "two", { three = 3 } }\n' >"$TMP/basic.want"
if [[ $rc == 0 ]] && diff -u "$TMP/basic.want" "$TMP/basic.out" >"$TMP/diff" && [[ ! -s "$TMP/basic.err" ]]; then
  pass
else
  fail "piped" "exit $rc, or output other than expected" "$TMP/diff"
  cat "$TMP/basic.err"
fi

piped cmds $':hosts\n:claims /etc/foo\n:claims 80\n:type apt.installed { "x" }\n:lint\n'
if [[ $rc == 0 ]] && grep -Eq '^demo +no OS +6 properties +site.lua:71$' "$TMP/cmds.out" &&
   grep -Fq 'foo.example.com  file.line /etc/foo "secure=1"  by "file /etc/foo contains lines" (site.lua:54)' "$TMP/cmds.out" &&
   grep -Fq 'www.example.com  port 80  by "apache installed" (site.lua:35)' "$TMP/cmds.out" &&
   grep -Eq '^  revertable +yes$' "$TMP/cmds.out" &&
   grep -Eq '^  claims +package.installed x$' "$TMP/cmds.out" &&
   grep -Fxq 'no findings' "$TMP/cmds.out"; then
  pass
else
  fail "piped commands" "exit $rc or missing output" "$TMP/cmds.out"
fi

# Containers: :hosts lists each under its host, indented, with its kind;
# one only reverted says where it is removed.
# Build chroots on one host (the site examples/containers.lua began as).
cp "$PROP_SOURCE_DIR/tests/sites/valid/build_chroots.lua" "$TMP/containers.lua"
rc=0
printf ':hosts\n:show build.example.com/sid\n:show build.example.com\n' |
  timeout 60 "$PROP" repl containers.lua >"$TMP/ct.out" 2>"$TMP/ct.err" || rc=$?
head -4 "$TMP/ct.out" >"$TMP/ct.hosts"
cat >"$TMP/ct.want" <<'EOF'
build.example.com    debian        6 properties  containers.lua:22
  bookworm (chroot)  debian        6 properties  containers.lua:13
  sid (chroot)       debian        6 properties  containers.lua:13
bullseye (chroot)    debian        6 properties  containers.lua:13  removed by build.example.com
EOF
if [[ $rc == 0 ]] && diff -u "$TMP/ct.want" "$TMP/ct.hosts" >"$TMP/diff"; then
  pass
else
  fail "piped :hosts of containers" "exit $rc, or not each container under its host" "$TMP/diff"
fi
if grep -Fxq 'container build.example.com/sid (chroot) : debian  (containers.lua:13)' "$TMP/ct.out" &&
   grep -Fxq '│   └── container bookworm (chroot) : debian  (containers.lua:13)' "$TMP/ct.out" &&
   grep -Fxq '        └── container bullseye (chroot, removed) : debian  (containers.lua:13)' "$TMP/ct.out"; then
  pass
else
  fail "piped :show" "not a container and its host" "$TMP/ct.out"
fi

# The CPU clock stops an input; the REPL goes on with a fresh clock.
rc=0
printf 'while true do end\n40 + 2\nwhile true do end\n"after"\n' |
  timeout 120 "$PROP" repl --max-cpu 1 site.lua >"$TMP/cpu.out" 2>"$TMP/cpu.err" || rc=$?
if [[ $rc == 1 ]] && [[ "$(grep -c '^repl:1: evaluation used more than 1 s of CPU; raise the limit with --max-cpu$' "$TMP/cpu.err")" == 2 ]] &&
   grep -Fxq '42' "$TMP/cpu.out" && grep -Fxq '"after"' "$TMP/cpu.out"; then
  pass
else
  fail "piped --max-cpu" "exit $rc (want 1), or the CPU limit did not stop each loop" "$TMP/cpu.err"
fi

piped err $'error("kaboom")\nundefined_thing\n40 + 2\n'
if [[ $rc == 1 ]] && grep -Fxq 'repl:1: kaboom' "$TMP/err.err" &&
   grep -Fq 'undefined global "undefined_thing"' "$TMP/err.err" && grep -Fxq '42' "$TMP/err.out"; then
  pass
else
  fail "piped errors" "exit $rc (want 1), or the REPL did not go on after an error" "$TMP/err.err"
fi

piped eof $'for i = 1, 2 do\n'
if [[ $rc == 1 ]] && grep -Fq "'end' expected" "$TMP/eof.err"; then
  pass
else
  fail "an unfinished statement at end of input" "exit $rc, want 1 and a syntax error" "$TMP/eof.err"
fi

printf 'host "broken" { nil_here }\n' >"$TMP/bad.lua"
rc=0
printf '1\n' | timeout 60 "$PROP" repl bad.lua >"$TMP/bad.out" 2>"$TMP/bad.err" || rc=$?
if [[ $rc == 2 ]] && grep -Fq 'undefined global "nil_here"' "$TMP/bad.err" && grep -Fxq 1 "$TMP/bad.out"; then
  pass
else
  fail "a rejected site" "exit $rc (want 2), findings on stderr, the REPL still runs" "$TMP/bad.err"
fi

rc=0
timeout 10 "$PROP" repl no-such-site.lua </dev/null >"$TMP/usage.out" 2>&1 || rc=$?
rc2=0
timeout 10 "$PROP" repl --bogus </dev/null >>"$TMP/usage.out" 2>&1 || rc2=$?
if [[ $rc == 64 && $rc2 == 64 ]]; then
  pass
else
  fail "usage errors" "exit $rc and $rc2, want 64" "$TMP/usage.out"
fi

# Every recipe a site can call, of every module in recipes/, is described
# in lua/meta/prop.lua.
modules="$(cd "$PROP_SOURCE_DIR/recipes" && ls -- *.lua | sed 's/\.lua$//; s/.*/"&",/' | tr -d '\n')"
# (a module is loaded when first named: _G[m], not rawget; info is no global)
piped meta "for _, m in ipairs { $modules } do local ok, t = pcall(function() return _G[m] end); if ok and type(t) == 'table' then for k in pairs(t) do print(m .. '.' .. k) end end end"$'\n'
missing=""
while read -r fn; do
  mod="${fn%%.*}" name="${fn#*.}"
  if ! grep -Eq "^function ${mod}\.${name}\(|^${mod}\[\"${name}\"\] = function" "$PROP_SOURCE_DIR/lua/meta/prop.lua"; then
    missing+=" $fn"
  fi
done <"$TMP/meta.out"
if [[ $rc == 0 && -z "$missing" ]] && grep -qx docker.cap_add "$TMP/meta.out" && grep -qx ssh.host_keys "$TMP/meta.out"; then
  pass
else
  fail "lua/meta/prop.lua" "does not describe:$missing (exit $rc)" "$TMP/meta.err"
fi

# ---------------------------------------------------------------------
# A terminal.

if ! command -v tmux >/dev/null 2>&1; then
  skip_missing tmux "tmux is not installed; the terminal tests did not run"
fi

HOMEDIR="$TMP/home"
mkdir -p "$HOMEDIR"

# start: a REPL in a new session (a new tmux server each time, so that
# one shutting down cannot race the next); when it ends the pane says how.
nstart=0
start() { # start [SITE]: site.lua unless named
  tmux -S "$SOCK" kill-server >/dev/null 2>&1
  nstart=$((nstart + 1))
  SOCK="$TMP/tmux.$nstart.sock"
  tmux -S "$SOCK" -f /dev/null new-session -d -x 200 -y 50 -s repl \
    "cd '$TMP' && HOME='$HOMEDIR' NO_COLOR=1 '$PROP' repl ${1:-site.lua}; echo \"[repl exited \$?]\"; sleep 60"
}

screen() {
  tmux -S "$SOCK" capture-pane -p -J -S - -t repl 2>/dev/null
}

# wait_for TEXT [SECONDS]: until the pane shows TEXT (fixed string).
wait_for() {
  local deadline=$((SECONDS + ${2:-10}))
  while ((SECONDS < deadline)); do
    screen | grep -Fq -- "$1" && return 0
    sleep 0.1
  done
  return 1
}

# wait_line REGEX [SECONDS]: until a line of the pane matches REGEX.
wait_line() {
  local deadline=$((SECONDS + ${2:-10}))
  while ((SECONDS < deadline)); do
    screen | grep -Eq -- "$1" && return 0
    sleep 0.1
  done
  return 1
}

type_text() { tmux -S "$SOCK" send-keys -t repl -l -- "$1"; }
key() { tmux -S "$SOCK" send-keys -t repl "$@"; }
line() { type_text "$1" && key Enter; }

# wait_count REGEX N : until N lines of the pane match.
wait_count() {
  local deadline=$((SECONDS + 10))
  while ((SECONDS < deadline)); do
    (($(screen | grep -Ec -- "$1") >= $2)) && return 0
    sleep 0.1
  done
  return 1
}

# check_screen NAME WAIT-COMMAND... : one assertion on what the pane
# shows; a failure shows its last 40 lines that are not blank.
check_screen() {
  local name="$1"
  shift
  if "$@"; then
    pass
  else
    screen | grep -v "^ *$" | tail -40 >"$TMP/screen"
    fail "terminal" "$name" "$TMP/screen"
  fi
}

start
check_screen "banner and prompt" wait_for "prop> " 20
check_screen "banner names the site" wait_for "site.lua: 6 hosts"

# Tab: the only candidate is inserted.
type_text 'apt.ins'
key Tab
check_screen "apt.ins<Tab> completes to apt.installed" wait_for 'prop> apt.installed'
line ' { "tabbed" }'
check_screen "a property prints its description, type and origin" \
  wait_for 'apt installed tabbed : DebianLike, revertable  (repl:1)'

# Tab with several candidates: their common part, then the list.
type_text 'apt.in'
key Tab
check_screen "apt.in<Tab> completes the common part" wait_for 'prop> apt.installed'
key Tab
check_screen "a second Tab lists the candidates" wait_line '^installed +installed_min *$'
key C-u
line 'p = apt.installed { "fieldtest" }'
type_text 'p.de'
key Tab
check_screen "p.de<Tab> completes a property field" wait_for 'prop> p.desc'
key Enter
check_screen "a field's value prints quoted" wait_for '"apt installed fieldtest"'

type_text 'x = pick_'
key Tab
check_screen "a global completes inside an expression" wait_for 'prop> x = pick_os'
key C-u
# A recipe module the site never named (loaded when first named) completes.
type_text 'letsencr'
key Tab
check "an unloaded module's name completes" wait_for 'prop> letsencrypt'
key C-u
type_text 'borg.bac'
key Tab
check "an unloaded module's members complete" wait_for 'prop> borg.backup'
key C-u
type_text 'p:req'
key Tab
check_screen "p:req<Tab> completes a method" wait_for 'prop> p:requires'
key C-u

# Commands and host names complete too.
type_text ':ho'
key Tab
check_screen ":ho<Tab> completes to :hosts" wait_for 'prop> :hosts'
key Enter
check_screen ":hosts lists the hosts" wait_line '^files\.example\.com +freebsd +7 properties +site\.lua:42$'
type_text ':show fo'
key Tab
check_screen ":show fo<Tab> completes a host name" wait_for 'prop> :show foo.example.com'
key Enter
check_screen ":show prints the host's tree" wait_for 'host foo.example.com : debian  (site.lua:59)'
check_screen ":show prints types and roles" wait_for '└── runs: apt removed bar : DebianLike, revertable  (site.lua:57)'

# Multi-line input continues with a >> prompt.
line 'for i = 1, 3 do'
check_screen "an unfinished statement prompts >>" wait_line '^>> *$'
line 'print("line" .. i * 7)'
line 'end'
check_screen "the statement runs once finished" wait_for 'line21'

# Expressions print; so do nested tables and hosts.
line '6 * 7 + 1000'
check_screen "an expression prints its value" wait_line '^1042$'
line '{ 1, "two", { three = 3 } }'
check_screen "a table prints nested" wait_for '{ 1, "two", { three = 3 } }'
line 'site.hosts()[3]'
check_screen "a host prints its name and size" wait_for 'host foo.example.com (debian, 7 properties)  (site.lua:59)'
line 'apt.installed { "foo" }:requires(file.directory "/srv/x")'
check_screen "a composite property prints its tree" wait_for '└── requires: directory /srv/x exists : UnixLike  (repl:1)'

# An error is printed and the REPL goes on.
line 'error("kaboom")'
check_screen "an error is printed" wait_line '^repl:1: kaboom$'
line '1 + 2000'
check_screen "a good line after an error works" wait_line '^2001$'

# Every command.
line ':type apt.installed { "typed" }'
check_screen ":type" wait_line '^  claims +package\.installed typed$'
line ':claims /etc/foo'
check_screen ":claims of a path" wait_for 'foo.example.com  file.line /etc/foo "secure=1"  by "file /etc/foo contains lines" (site.lua:54), in "apt installed foo" (site.lua:53)'
line ':claims 80'
check_screen ":claims of a port" wait_for 'www.example.com  port 80  by "apache installed" (site.lua:35)'
line ':lint'
check_screen ":lint" wait_line '^no findings$'
line ':plan demo'
check_screen ":plan shows what it would write" wait_for 'would write /etc/demo/motd'
check_screen ":plan summary" wait_for '(dry run: nothing was changed)'
check_screen ":plan changed nothing" test ! -e "$TMP/demo-tree/etc"
line ':help'
check_screen ":help" wait_for ':claims THING'
line ':bogus'
check_screen "an unknown command" wait_for 'unknown command :bogus'

# Ctrl-C stops a running input; the REPL goes on.
line 'while true do end'
sleep 0.3
key C-c
check_screen "Ctrl-C interrupts" wait_line 'interrupted$'
line '1 + 3000'
check_screen "the REPL goes on after Ctrl-C" wait_line '^3001$'
# ... also inside a function of Lua's library that calls functions in C
# (no instruction runs: the stop takes effect at the next call).
line 'string.rep("a", 1e8):gsub(".", string.upper)'
sleep 0.3
key C-c
check_screen "Ctrl-C interrupts gsub calling a C function" wait_count 'interrupted$' 2
line '1 + 4000'
check_screen "the REPL goes on after that" wait_line '^4001$'

# :reload picks up an edit of the site.
printf '\nhost "added.example.com" { file.absent "/tmp/prop-repl-added" }\n' >>"$TMP/site.lua"
line ':reload'
check_screen ":reload reads the site again" wait_for 'reloaded site.lua: 7 hosts'
line ':hosts'
check_screen ":reload: the new host is there" wait_line '^added\.example\.com +no OS +1 property +site\.lua:'

# Ctrl-D ends the REPL (with status 0).
key C-d
check_screen "Ctrl-D exits" wait_for '[repl exited 0]'

hist="$HOMEDIR/.prop_history"
if [[ -f "$hist" ]] && grep -Fq 'apt.installed\040{\040"tabbed"\040}' "$hist" &&
   grep -Fq ':reload' "$hist" && [[ "$(stat -c %a "$hist")" == 600 ]]; then
  pass
else
  fail "history" "the history file $hist was not written (mode 0600, every input)" "$hist"
fi

# A new REPL recalls the history: Up brings back the last input.
start
check_screen "second REPL starts" wait_for "prop> " 20
key Up
check_screen "Up recalls the last input of the previous REPL" wait_for 'prop> :hosts'
key C-u C-d
check_screen "second REPL exits" wait_for '[repl exited 0]'

# A pattern that backtracks in C, where nothing can stop it midway: the
# first Ctrl-C cannot take effect, a second one ends the REPL (as lua(1)
# does), naming the input's line.
start
check_screen "third REPL starts" wait_for "prop> " 20
line 'string.rep("a", 100000):find((".-"):rep(30) .. "x")'
sleep 0.5
key C-c
sleep 0.5
key C-c
check_screen "a second Ctrl-C inside C ends the REPL, naming the line" \
  wait_for "repl:1: error[P000]: interrupted twice inside a function of Lua's library"
check_screen "... with status 130" wait_for '[repl exited 130]'

# Containers in a terminal: the banner counts them apart from the hosts,
# :hosts nests them, a container's name completes and :show shows it.
start containers.lua
check_screen "containers: banner" wait_for 'containers.lua: 1 host, 3 containers'
line ':hosts'
check_screen "containers: :hosts indents a container under its host" \
  wait_line '^  sid \(chroot\) +debian +6 properties +containers\.lua:13$'
type_text ':show build.example.com/s'
key Tab
check_screen "containers: a container's name completes" wait_for 'prop> :show build.example.com/sid'
key Enter
check_screen "containers: :show HOST/NAME shows the container" \
  wait_for 'container build.example.com/sid (chroot) : debian  (containers.lua:13)'
line ':show build.example.com'
check_screen "containers: :show HOST shows its containers under it" \
  wait_for '│   └── container bookworm (chroot) : debian  (containers.lua:13)'
key C-d
check_screen "containers: Ctrl-D exits" wait_for '[repl exited 0]'

finish
