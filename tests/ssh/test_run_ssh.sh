#!/usr/bin/env bash
# test_run_ssh.sh - prop run over SSH, against sshd servers this test
# starts on loopback (tests/ssh/common.sh).  The "remote" machine is this
# one, so every effect is checked independently here (cat, stat, getent,
# readlink, sha256sum) under a scratch directory, with prop-test-* names
# for accounts, the cron job and the sudoers file, all undone on exit.
#
#   1. every recipe kind that runs without installing anything (file.*,
#      cron.job, cmd.run, group.exists, user.account, user.absent, a Lua
#      property using sys:run/read/write/stat): a dry run changes nothing
#      and reports changed, the first run makes it, the second changes
#      nothing; --diff shows diffs over SSH and hides secrets; odd paths,
#      a large file, binary content and argv quoting;
#   2. host keys: unknown refused (69, untouched), --accept-new-host-keys
#      records it, a changed key refused naming file:line;
#   3. authentication: a key not authorized, a missing identity file;
#   4. a connection dropped during a run (the connection's sshd killed,
#      then the whole server killed and started again);
#   5. four hosts with -j 4, one of them down;
#   6. --timeout 1 over a command that sleeps 5 s; SIGTERM during a
#      remote command stops it (more in test_interrupt_ssh.sh);
#   7. sudo = true for a non-root user with a NOPASSWD sudoers entry
#      (installs the sudo package when it is missing).
#
# Every prop invocation runs under timeout(1) (PROP_RUN_TIMEOUT).  The
# test takes the run tests' machine lock (tests/run/common.sh): it adds
# accounts and may install sudo, which the package tests must not see.
set -u
export PROP_RUN_TIMEOUT="${PROP_RUN_TIMEOUT:-120}"
unset SSH_AUTH_SOCK # authentication by the identity files only
# shellcheck source=tests/run/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../run/common.sh"
# shellcheck source=tests/ssh/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# A section heading in the log.
section() {
  echo "---- $*"
}

# ssh_prop OUT SITE [ARGS...] : prop run SITE --json ARGS, no retries (each
# sshd has its own lock file, nobody else takes it: a lock refusal is a bug).
ssh_prop() {
  local out="$1" site="$2"
  shift 2
  run_prop "$out" run "$site" --json "$@"
}

# no_crash NAME OUT : prop did not crash or get killed by timeout(1).
no_crash() {
  if [[ "$rc" -ge 124 ]]; then
    fail "$1" "prop was killed or timed out (exit $rc)" "$2"
  elif crashed "$2"; then
    fail "$1" "prop crashed" "$2"
  else
    pass
  fi
}

# host_error OUT HOST : the error of the host event (an unreachable host).
host_error() {
  grep '"event":"host"' "$1" | grep -F "\"host\":\"$2\"" | sed -n 's/.*"error":"\(.*\)"}$/\1/p'
}

# now : a time stamp; elapsed_since T0 : seconds since now() gave T0, with
# one decimal.
now() { date +%s.%N; }
elapsed_since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
# less NAME A B : A < B (decimals)
less() {
  if awk -v a="$2" -v b="$3" 'BEGIN { exit !(a < b) }'; then
    pass
  else
    fail "$1" "$2 is not less than $3" "${OUT:-}"
  fi
}

ssh_start main || { echo "FAIL: ssh_start main"; exit 1; }
R="$TMP/remote"
mkdir -p "$R"
chmod 755 "$R"

# =====================================================================
section "1. every recipe kind over SSH"
U=prop-test-su$$  # made by user.account
G=prop-test-sg$$  # made by group.exists
U2=prop-test-sx$$ # removed by user.absent
JOB=prop-test-ssh-cron-$$
CRONF=/etc/cron.d/$JOB
made_crond=0
[[ -d /etc/cron.d ]] || made_crond=1
on_exit "rm -f '$CRONF'"
on_exit "[[ $made_crond == 1 ]] && rmdir /etc/cron.d"
on_exit "userdel '$U'; rm -rf '/home/$U'; groupdel '$U'; groupdel '$G'"
on_exit "userdel '$U2'; groupdel '$U2'"
for n in "$U" "$U2"; do
  if getent passwd "$n" >/dev/null; then skip "account $n exists"; fi
done
useradd -M -s /usr/sbin/nologin "$U2" || { echo "FAIL: useradd $U2"; exit 1; }

mkdir -p "$R/etc" "$R/srv" "$R/lua"
printf 'keep me\nsecure=0\n' >"$R/etc/foo.conf"
chmod 600 "$R/etc/foo.conf"
printf 'a\nbad\nb\nbad\n' >"$R/etc/lacks"
echo old >"$R/etc/to-remove"
echo data >"$R/srv/data"
chmod 644 "$R/srv/data"
echo owned >"$R/srv/owned"

cat >"$TMP/all.lua" <<EOF
host "web" {
  $(ssh_connect),
  file.has_content("$R/etc/motd", "hello over ssh\n", { mode = "0640", owner = "nobody", group = "nogroup" }),
  file.has_content("$R/etc/secret", "s3cr3t-over-ssh\n", { mode = "0600", secret = true }),
  file.contains_lines("$R/etc/foo.conf", { "secure=1", "log=syslog" }),
  file.lacks_lines("$R/etc/lacks", "bad"),
  file.directory("$R/srv/www/site", { mode = "0750", owner = "daemon", group = "daemon" }),
  file.absent("$R/etc/to-remove"),
  file.symlink("$R/etc/link", "../srv/data"),
  file.mode("$R/srv/data", "0604"),
  file.owner("$R/srv/owned", "daemon", "daemon"),
  cron.job("$JOB", "*/5 * * * *", { "/bin/echo", "over ssh", "50%" }, { user = "nobody" }),
  cmd.run({ "sh", "-c", "echo made >> $R/created; echo made it" }, { creates = "$R/created" }),
  cmd.run({ "sh", "-c", "echo x >> $R/unless" }, { unless = { "grep", "-q", "x", "$R/unless" } }),
  group.exists("$G"),
  user.account("$U", { shell = "/bin/sh", groups = { "$G" }, comment = "prop ssh test" }),
  user.absent("$U2"),
  property {
    desc = "lua property over ssh",
    check = function(sys)
      local st = sys:stat("$R/lua/state")
      return st ~= nil and st.type == "file" and st.mode == tonumber("0600", 8)
        and sys:read("$R/lua/state") == "user=root\n"
    end,
    apply = function(sys)
      local r = sys:run({ "id", "-un" })
      if r.code ~= 0 then error("id -un: " .. r.stderr) end
      sys:write("$R/lua/state", "user=" .. r.stdout, { mode = tonumber("0600", 8) })
      local st = sys:stat("$R/lua/state")
      if not sys.dry and (st == nil or st.owner ~= "root" or st.size ~= 10) then
        error("sys:stat after sys:write: unexpected")
      end
    end,
  },
}
EOF
NALL=16

state_all() {
  tree_state "$R"
  tree_state "$CRONF"
  db_state
}

before="$(state_all)"
ssh_prop "$TMP/dry.out" "$TMP/all.lua" --dry-run
expect_run "all: dry run reports every property changed" "$TMP/dry.out" 0 "$NALL" 0 0
same "all: dry run changed nothing on the target" "$(state_all)" "$before"
has "all: dry run says what it would run" "$TMP/dry.out" 'would run:'
check "all: dry run marks the host event" grep -q '"event":"host".*"dry_run":true' "$TMP/dry.out"

ssh_prop "$TMP/run1.out" "$TMP/all.lua"
expect_run "all: first run changes every property" "$TMP/run1.out" 0 "$NALL" 0 0
same "all: host summary" "$(host_count "$TMP/run1.out" web changed)/$(host_count "$TMP/run1.out" web failed)" "$NALL/0"
same "has_content: content" "$(cat "$R/etc/motd" 2>&1)" "hello over ssh"
same "has_content: mode and owner" "$(stat -c '%04a %U:%G' "$R/etc/motd" 2>&1)" "0640 nobody:nogroup"
same "has_content: secret" "$(cat "$R/etc/secret" 2>&1) $(mode_of "$R/etc/secret" 2>&1)" "s3cr3t-over-ssh 0600"
lacks "has_content: the secret is never printed" "$TMP/run1.out" "s3cr3t-over-ssh"
same "contains_lines: appended, rest and mode kept" \
  "$(cat "$R/etc/foo.conf" 2>&1) $(mode_of "$R/etc/foo.conf")" $'keep me\nsecure=0\nsecure=1\nlog=syslog 0600'
same "lacks_lines: every occurrence removed" "$(cat "$R/etc/lacks" 2>&1)" $'a\nb'
same "directory: made with mode and owner" "$(stat -c '%F %04a %U:%G' "$R/srv/www/site" 2>&1)" \
  "directory 0750 daemon:daemon"
same "directory: parent 0755 root" "$(stat -c '%04a %U' "$R/srv/www" 2>&1)" "0755 root"
check "absent: removed" test ! -e "$R/etc/to-remove"
same "symlink: made" "$(readlink "$R/etc/link" 2>&1)" "../srv/data"
same "mode: set" "$(mode_of "$R/srv/data" 2>&1)" 0604
same "owner: set" "$(owner_of "$R/srv/owned" 2>&1)" daemon:daemon
same "cron.job: the line" "$(grep -v '^#' "$CRONF" 2>&1 | tail -1)" \
  "*/5 * * * * nobody /bin/echo 'over ssh' 50\\%"
same "cron.job: mode and owner" "$(stat -c '%04a %U:%G' "$CRONF" 2>&1)" "0644 root:root"
same "cmd.run creates: ran once" "$(cat "$R/created" 2>&1)" made
has "cmd.run: its output is a note" "$TMP/run1.out" '"text":"made it"'
same "cmd.run unless: ran once" "$(cat "$R/unless" 2>&1)" x
check "group.exists: made" bash -c "getent group '$G' >/dev/null"
same "user.account: made" "$(getent passwd "$U" | cut -d: -f1,5,7)" "$U:prop ssh test:/bin/sh"
check "user.account: in its group" bash -c "id -nG '$U' | grep -qw '$G'"
check "user.absent: removed" bash -c "! getent passwd '$U2' >/dev/null"
same "lua property: wrote what sys:run said" "$(cat "$R/lua/state" 2>&1)" "user=root"
same "lua property: mode" "$(mode_of "$R/lua/state" 2>&1)" 0600

after1="$(state_all)"
ssh_prop "$TMP/run2.out" "$TMP/all.lua"
expect_run "all: second run changes nothing" "$TMP/run2.out" 0 0 "$NALL" 0
same "all: second run host summary" "$(host_count "$TMP/run2.out" web changed)" 0
same "all: second run left the target as it was" "$(state_all)" "$after1"

# Drift, seen with --dry-run --diff (text output), then fixed with --diff.
echo tampered >"$R/etc/motd"
echo tampered >"$R/etc/secret"
before="$(state_all)"
run_prop "$TMP/ddiff.out" run "$TMP/all.lua" --dry-run --diff
same "diff: dry run exit" "$rc" 0
has "diff: old line shown" "$TMP/ddiff.out" "web    -tampered"
has "diff: new line shown" "$TMP/ddiff.out" "web    +hello over ssh"
lacks "diff: the secret is not shown" "$TMP/ddiff.out" "s3cr3t-over-ssh"
has "diff: dry run summary" "$TMP/ddiff.out" "web: $((NALL - 2)) ok, 2 would change, 0 failed"
same "diff: dry run changed nothing" "$(state_all)" "$before"
run_prop "$TMP/diff.out" run "$TMP/all.lua" --diff
same "diff: real run exit" "$rc" 0
has "diff: real run shows the diff" "$TMP/diff.out" "web    +hello over ssh"
lacks "diff: real run hides the secret" "$TMP/diff.out" "s3cr3t-over-ssh"
same "diff: drift fixed" "$(cat "$R/etc/motd") $(stat -c '%04a %U' "$R/etc/motd")" "hello over ssh 0640 nobody"
same "diff: secret fixed" "$(cat "$R/etc/secret")" "s3cr3t-over-ssh"
bad="$(grep -v -e '^web  ' -e '^web: ' -e '^web    ' "$TMP/diff.out" | head -3)"
same "diff: every text line starts with the host name" "$bad" ""

# Quoting, a large file, binary content through sys:write/read and stdin.
Q="$R/odd dir"
mkdir -p "$Q"
ODD="$Q/it's \\\"q\\\" \$HOME \`x\`; *" # as written in the Lua string
ODD_FS="$Q/it's \"q\" \$HOME \`x\`; *"  # the name on disk
cat >"$TMP/odd.lua" <<EOF
local big = string.rep("0123456789abcdef", 65536 * 2) -- 2 MiB
local bin = ""
for i = 0, 255 do bin = bin .. string.char(i) end
host "web" {
  $(ssh_connect),
  file.has_content("$ODD", "odd\n"),
  file.has_content("$Q/big", big),
  property {
    desc = "binary content",
    check = function(sys) return sys:read("$Q/bin") == bin end,
    apply = function(sys) sys:write("$Q/bin", bin) end,
  },
  property {
    desc = "argv and stdin",
    check = function(sys) return sys:exists("$Q/args") end,
    apply = function(sys)
      local r = sys:run({ "printf", "%s|", "a b", "it's", "\$HOME", "", "x\ny" })
      local c = sys:run({ "cat" }, { stdin = bin })
      if c.stdout ~= bin then error("stdin came back as " .. #c.stdout .. " bytes") end
      sys:write("$Q/args", r.stdout)
    end,
  },
}
EOF
ssh_prop "$TMP/odd1.out" "$TMP/odd.lua"
expect_run "odd: first run" "$TMP/odd1.out" 0 4 0 0
same "odd: a path with quotes, \$ and spaces" "$(cat "$ODD_FS" 2>&1)" odd
same "odd: 2 MiB file" "$(stat -c %s "$Q/big" 2>&1) $(head -c 16 "$Q/big" 2>&1)" "2097152 0123456789abcdef"
same "odd: binary content" "$(od -An -tx1 -v "$Q/bin" 2>&1 | tr -d ' \n')" \
  "$(for i in $(seq 0 255); do printf '%02x' "$i"; done)"
same "odd: argv passed as is" "$(cat "$Q/args" 2>&1)" $'a b|it\'s|$HOME||x\ny|'
ssh_prop "$TMP/odd2.out" "$TMP/odd.lua"
expect_run "odd: second run" "$TMP/odd2.out" 0 0 4 0

# =====================================================================
section "2. host keys"
K="$R/keys"
mkdir -p "$K"
echo "old" >"$K/existing"
cat >"$TMP/keys.lua.in" <<EOF
host "web" {
  @CONN@,
  file.has_content("$K/existing", "new\n"),
  file.has_content("$K/made", "made\n"),
}
EOF
keys_site() { # keys_site KNOWN_HOSTS
  sed "s|@CONN@|$(ssh_connect root "$SSH_KEY" "$1")|" "$TMP/keys.lua.in" >"$TMP/keys.lua"
}
ssh-keygen -q -t ed25519 -N '' -C other -f "$TMP/otherkey" </dev/null
hostkey="$(cut -d' ' -f1,2 "$SSH_HOSTKEY_PUB")"

# Unknown: an empty known_hosts file.
: >"$TMP/kh-empty"
keys_site "$TMP/kh-empty"
before="$(tree_state "$K")"
ssh_prop "$TMP/unknown.out" "$TMP/keys.lua"
same "unknown key: exit 69" "$rc" 69
check "unknown key: unreachable" grep -q '"event":"host".*"unreachable":true' "$TMP/unknown.out"
check "unknown key: the message says so" grep -q 'host key for 127.0.0.1:[0-9]* is not known' "$TMP/unknown.out"
has "unknown key: the message names --accept-new-host-keys" "$TMP/unknown.out" "--accept-new-host-keys"
same "unknown key: no property ran" "$(results "$TMP/unknown.out" changed)$(results "$TMP/unknown.out" ok)" "00"
same "unknown key: nothing changed" "$(tree_state "$K")" "$before"
same "unknown key: known_hosts still empty" "$(wc -c <"$TMP/kh-empty")" 0

ssh_prop "$TMP/accept.out" "$TMP/keys.lua" --accept-new-host-keys
expect_run "--accept-new-host-keys: runs" "$TMP/accept.out" 0 2 0 0
same "--accept-new-host-keys: the key recorded" "$(cat "$TMP/kh-empty")" "[127.0.0.1]:$SSH_PORT $hostkey"
same "--accept-new-host-keys: the run happened" "$(cat "$K/existing") $(cat "$K/made")" "new made"
ssh_prop "$TMP/accepted.out" "$TMP/keys.lua"
expect_run "recorded key: accepted without the option" "$TMP/accepted.out" 0 0 2 0

# A known_hosts file that does not exist yet, in a directory that does not.
keys_site "$TMP/khdir/sub/known_hosts"
ssh_prop "$TMP/acceptnew.out" "$TMP/keys.lua" --accept-new-host-keys
expect_run "new known_hosts: runs" "$TMP/acceptnew.out" 0 0 2 0
same "new known_hosts: file 0600, directory 0700" \
  "$(stat -c '%04a' "$TMP/khdir/sub/known_hosts" "$TMP/khdir/sub" 2>&1 | tr '\n' ' ')" "0600 0700 "
same "new known_hosts: the key" "$(cat "$TMP/khdir/sub/known_hosts" 2>&1)" "[127.0.0.1]:$SSH_PORT $hostkey"

# Changed: another key recorded for [127.0.0.1]:PORT, on line 3.
{
  echo "# prop test"
  echo "[127.0.0.1]:1 $hostkey"
  echo "[127.0.0.1]:$SSH_PORT $(cut -d' ' -f1,2 "$TMP/otherkey.pub")"
} >"$TMP/kh-changed"
cp "$TMP/kh-changed" "$TMP/kh-changed.orig"
keys_site "$TMP/kh-changed"
echo "old" >"$K/existing"
rm -f "$K/made"
before="$(tree_state "$K")"
for opt in "" --accept-new-host-keys; do
  ssh_prop "$TMP/changed.out" "$TMP/keys.lua" $opt
  same "changed key ${opt:-plain}: exit 69" "$rc" 69
  check "changed key ${opt:-plain}: the message says CHANGED" grep -q 'host key for 127.0.0.1:[0-9]* CHANGED' "$TMP/changed.out"
  has "changed key ${opt:-plain}: the message names file:line" "$TMP/changed.out" "$TMP/kh-changed:3"
  same "changed key ${opt:-plain}: nothing changed" "$(tree_state "$K")" "$before"
  same "changed key ${opt:-plain}: known_hosts untouched" "$(cat "$TMP/kh-changed")" "$(cat "$TMP/kh-changed.orig")"
done
# In text output too, on the host's line.
run_prop "$TMP/changed.txt" run "$TMP/keys.lua"
check "changed key, text: the host's unreachable line" \
  grep -q "^web  unreachable: host key for 127.0.0.1:$SSH_PORT CHANGED" "$TMP/changed.txt"

# =====================================================================
section "3. authentication"
ssh-keygen -q -t ed25519 -N '' -C stranger -f "$TMP/stranger" </dev/null
sed "s|@CONN@|$(ssh_connect root "$TMP/stranger")|" "$TMP/keys.lua.in" >"$TMP/auth.lua"
ssh_prop "$TMP/auth.out" "$TMP/auth.lua"
same "auth rejected: exit 69" "$rc" 69
check "auth rejected: unreachable" grep -q '"event":"host".*"unreachable":true' "$TMP/auth.out"
has "auth rejected: the message" "$TMP/auth.out" "root@127.0.0.1:$SSH_PORT: authentication rejected"
has "auth rejected: the key tried is named" "$TMP/auth.out" "$TMP/stranger"
same "auth rejected: nothing changed" "$(tree_state "$K")" "$before"

sed "s|@CONN@|$(ssh_connect root "$TMP/no-such-key")|" "$TMP/keys.lua.in" >"$TMP/nokey.lua"
ssh_prop "$TMP/nokey.out" "$TMP/nokey.lua"
same "missing identity: exit 69" "$rc" 69
has "missing identity: the message" "$TMP/nokey.out" "identity file $TMP/no-such-key: no such file"
same "missing identity: nothing changed" "$(tree_state "$K")" "$before"

# =====================================================================
section "4. a connection dropped during a run"
Dd="$R/drop"
mkdir -p "$Dd"
cat >"$TMP/drop.lua" <<EOF
host "web" {
  $(ssh_connect),
  property {
    desc = "slow step",
    check = function(sys) return sys:exists("$Dd/slept") end,
    apply = function(sys)
      local r = sys:run({ "sleep", "3" })
      if r.code ~= 0 then error("sleep exited with " .. r.code) end
      sys:write("$Dd/slept", "yes\n")
    end,
  },
  file.has_content("$Dd/after", "after\n"),
}
EOF

# wait_sleep PID : waits (10 s at most) until a "sleep" runs under sshd PID.
wait_sleep() {
  local i p
  for ((i = 0; i < 100; i++)); do
    for p in $(_ssh_descendants "$1"); do
      [[ "$(ps -o comm= -p "$p" 2>/dev/null)" == sleep ]] && return 0
    done
    sleep 0.1
  done
  return 1
}

# drop_run NAME HOW : runs drop.lua in the background and, during the
# sleep, kills the connection's sshd processes (HOW=conn; the server
# listens on) or the whole server (HOW=server).
drop_run() {
  local name="$1" how="$2" pid listener t0 p
  listener="$(cat "$SSH_DIR/sshd.pid")"
  t0="$(now)"
  OUT="$TMP/$name.out"
  (timeout "$PROP_RUN_TIMEOUT" "$PROP" run "$TMP/drop.lua" >"$OUT" 2>&1) &
  pid=$!
  if ! wait_sleep "$listener"; then
    fail "$name" "the remote sleep never started" "$OUT"
  elif [[ "$how" == conn ]]; then
    for p in $(_ssh_descendants "$listener"); do
      [[ "$(ps -o comm= -p "$p" 2>/dev/null)" == sshd ]] && kill -KILL "$p" 2>/dev/null
    done
  else
    ssh_kill main
  fi
  rc=0
  wait "$pid" || rc=$?
  DROP_SECS="$(elapsed_since "$t0")"
}

drop_run drop-conn conn
no_crash "drop (connection's sshd killed): no crash, no hang" "$OUT"
check "drop (connection): exit nonzero" test "$rc" -ne 0
has "drop (connection): the slow step failed" "$OUT" "web  slow step ... failed"
has "drop (connection): the next property failed" "$OUT" "has content ... failed"
check "drop (connection): says the connection was lost" grep -qi 'connection lost\|connection.*closed\|lost' "$OUT"
check "drop (connection): host summary" grep -q '^web: 0 ok, 0 changed, 2 failed' "$OUT"
less "drop (connection): ended soon after the kill" "$DROP_SECS" 20
check "drop (connection): nothing written" test ! -e "$Dd/slept" -a ! -e "$Dd/after"
# The server is still up: the next run converges at once (no stale lock).
ssh_prop "$TMP/drop-again.out" "$TMP/drop.lua"
expect_run "drop (connection): the next run converges" "$TMP/drop-again.out" 0 2 0 0
same "drop (connection): converged" "$(cat "$Dd/slept" "$Dd/after" 2>&1)" $'yes\nafter'

rm -f "$Dd/slept" "$Dd/after"
drop_run drop-server server
no_crash "drop (server killed): no crash, no hang" "$OUT"
check "drop (server): exit nonzero" test "$rc" -ne 0
has "drop (server): the slow step failed" "$OUT" "web  slow step ... failed"
check "drop (server): host summary" grep -q '^web: 0 ok, 0 changed, 2 failed' "$OUT"
less "drop (server): ended soon after the kill" "$DROP_SECS" 20
# While it is down: unreachable, quickly.
ssh_prop "$TMP/down.out" "$TMP/drop.lua" --connect-timeout 5
same "server down: exit 69" "$rc" 69
has "server down: connection refused" "$TMP/down.out" "Connection refused"
if ssh_restart main; then
  pass
  ssh_prop "$TMP/restarted.out" "$TMP/drop.lua"
  expect_run "server restarted: the next run converges" "$TMP/restarted.out" 0 2 0 0
  same "server restarted: converged" "$(cat "$Dd/slept" "$Dd/after" 2>&1)" $'yes\nafter'
  ssh_prop "$TMP/restarted2.out" "$TMP/drop.lua"
  expect_run "server restarted: then nothing to do" "$TMP/restarted2.out" 0 0 2 0
else
  fail "ssh_restart main" "sshd did not start again"
fi

# =====================================================================
section "5. four hosts in parallel, one down"
ssh_start second || fail "ssh_start second" "no sshd"
ssh_start third || fail "ssh_start third" "no sshd"
# A port nothing listens on.
for _ in 1 2 3 4 5 6 7 8 9 10; do
  closed=$((20000 + RANDOM % 40000))
  _ssh_port_open "$closed" || break
done
P="$R/par"
mkdir -p "$P"
{
  echo 'local function slow(h, p)'
  echo '  return property { desc = "slow " .. h,'
  echo '    check = function(sys) return sys:exists(p) end,'
  printf '%s\n' '    apply = function(sys) sys:run({ "sleep", "3" }); sys:write(p, h .. "\n") end }'
  echo 'end'
  for h in main second third; do
    ssh_use "$h"
    printf 'host "%s" { %s, slow("%s", "%s"), file.has_content("%s", "%s\\n") }\n' \
      "$h" "$(ssh_connect)" "$h" "$P/$h.slow" "$P/$h" "$h"
  done
  ssh_use main
  printf 'host "down" { %s, file.has_content("%s", "down\\n") }\n' \
    "$(ssh_connect root "$SSH_KEY" "$SSH_KNOWN_HOSTS" "$closed")" "$P/down"
} >"$TMP/par.lua"
t0="$(now)"
OUT="$TMP/par.out"
rc=0
timeout "$PROP_RUN_TIMEOUT" "$PROP" run "$TMP/par.lua" -j 4 --connect-timeout 5 >"$OUT" 2>"$TMP/par.err" || rc=$?
secs="$(elapsed_since "$t0")"
same "parallel: exit 69" "$rc" 69
no_crash "parallel: no crash" "$OUT"
for h in main second third; do
  same "parallel: $h converged" "$(cat "$P/$h" "$P/$h.slow" 2>&1)" "$h"$'\n'"$h"
  check "parallel: $h summary" grep -q "^$h: 0 ok, 2 changed, 0 failed" "$OUT"
done
check "parallel: down is unreachable" grep -q '^down  unreachable: cannot connect to 127.0.0.1:[0-9]*: Connection refused' "$OUT"
check "parallel: nothing for down" test ! -e "$P/down"
less "parallel: the three 3 s sleeps overlapped" "$secs" 8
bad="$(grep -v -E '^(main|second|third|down)(  |: )' "$OUT" | grep -v -e '^$' -e '^4 hosts: ')"
same "parallel: every line starts with a host name" "$bad" ""
same "parallel: the final summary lists the four" "$(tail -1 "$OUT")" \
  "4 hosts: main changed, second changed, third changed, down unreachable"
same "parallel: nothing on stderr" "$(cat "$TMP/par.err")" ""
ssh_prop "$TMP/par2.out" "$TMP/par.lua" -j 4 --connect-timeout 5
expect_run "parallel: second run, only ok" "$TMP/par2.out" 69 0 6 0
same "parallel, json: down unreachable" "$(host_error "$TMP/par2.out" down | grep -c 'Connection refused')" 1
ssh_stop second third
ssh_use main

# =====================================================================
section "6. --timeout"
Tt="$R/timeout"
mkdir -p "$Tt"
cat >"$TMP/timeout.lua" <<EOF
host "web" {
  $(ssh_connect),
  property {
    desc = "sleeps 5 s",
    check = function(sys) return sys:exists("$Tt/slept") end,
    apply = function(sys) sys:run({ "sleep", "5" }); sys:write("$Tt/slept", "yes\n") end,
  },
  file.has_content("$Tt/after", "after\n"),
}
EOF
t0="$(now)"
ssh_prop "$TMP/timeout.out" "$TMP/timeout.lua" --timeout 1
secs="$(elapsed_since "$t0")"
same "--timeout 1: exit 1 (failed, not unreachable)" "$rc" 1
no_crash "--timeout 1: no crash" "$TMP/timeout.out"
less "--timeout 1: gave up within a few seconds" "$secs" 4.5
same "--timeout 1: the sleeping property failed" "$(result_of "$TMP/timeout.out" "sleeps 5 s")" failed
has "--timeout 1: says it timed out" "$TMP/timeout.out" "timed out after 1 s"
same "--timeout 1: host summary" "$(host_count "$TMP/timeout.out" web failed)" 2
check "--timeout 1: nothing written" test ! -e "$Tt/slept" -a ! -e "$Tt/after"
# The lock was let go: the next run (without the limit) converges.
ssh_prop "$TMP/timeout2.out" "$TMP/timeout.lua"
expect_run "after --timeout: the next run converges" "$TMP/timeout2.out" 0 2 0 0
same "after --timeout: converged" "$(cat "$Tt/slept" "$Tt/after" 2>&1)" $'yes\nafter'

# =====================================================================
section "6b. SIGTERM during a remote command"
Sg="$R/sigterm"
mkdir -p "$Sg"
cat >"$TMP/term.lua" <<EOF
host "web" {
  $(ssh_connect),
  property {
    desc = "sleeps 3 s",
    check = function(sys) return sys:exists("$Sg/slept") end,
    apply = function(sys) sys:run({ "sleep", "3" }); sys:write("$Sg/slept", "yes\n") end,
  },
  file.has_content("$Sg/after", "after\n"),
}
EOF
OUT="$TMP/term.out"
"$PROP" run "$TMP/term.lua" >"$OUT" 2>&1 &
pid=$!
# A watchdog in place of timeout(1): the signal must reach prop itself.
(exec 9>&-; sleep "$PROP_RUN_TIMEOUT" && kill -KILL "$pid") >/dev/null 2>&1 &
dog=$!
if wait_sleep "$(cat "$SSH_DIR/sshd.pid")"; then
  kill -TERM "$pid"
else
  fail "SIGTERM" "the remote sleep never started" "$OUT"
fi
rc=0
wait "$pid" || rc=$?
pkill -P "$dog" sleep 2>/dev/null
kill "$dog" 2>/dev/null
wait "$dog" 2>/dev/null
same "SIGTERM: exit 130" "$rc" 130
# The remote command is stopped: the property is interrupted, not done.
has "SIGTERM: the running property is interrupted" "$OUT" "web  sleeps 3 s ... interrupted"
has "SIGTERM: it and the rest counted as not run" "$OUT" "web: 0 ok, 0 changed, 0 failed, 2 not run (interrupted)"
check "SIGTERM: the running property did not go on" test ! -e "$Sg/slept"
check "SIGTERM: the next property did not run" test ! -e "$Sg/after"
ssh_prop "$TMP/term2.out" "$TMP/term.lua"
expect_run "SIGTERM: the next run converges" "$TMP/term2.out" 0 2 0 0

# =====================================================================
section "7. sudo"
SU=prop-test-sudo$$
SUDOERS=/etc/sudoers.d/prop-test-$$
have_sudo=1
if ! command -v sudo >/dev/null; then
  echo "sudo is missing: apt-get install sudo (CI should install it)"
  installed_packages >"$TMP/pkgs.before"
  if DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=600 sudo \
    >"$TMP/apt.out" 2>&1; then
    # sudo's prerm refuses to go when root has no password, unless forced.
    on_exit "export SUDO_FORCE_REMOVE=yes; purge_new_packages '$TMP/pkgs.before'"
  else
    have_sudo=0
    part_missing sudo "sudo section: sudo could not be installed"
    sed 's/^/    | /' "$TMP/apt.out" | tail -5
  fi
fi
if [[ $have_sudo == 1 ]] && getent passwd "$SU" >/dev/null; then
  have_sudo=0
  skip_part "sudo section: account $SU exists"
fi
if [[ $have_sudo == 1 ]]; then
  on_exit "userdel -r '$SU'; groupdel '$SU'"
  on_exit "rm -f '$SUDOERS'"
  # -p '*': no password, but not a locked account (sshd refuses those).
  useradd -m -s /bin/sh -p '*' "$SU" || fail "useradd $SU" "failed"
  # sshd reads the authorized keys as the user: let it reach the file.
  chmod 711 "$SSH_SCRATCH"
  chmod 644 "$SSH_DIR/authorized_keys"
  # The run lock (PROP_LOCK_FILE, in SSH_DIR) of the user without sudo.
  chmod 1777 "$SSH_DIR"
  S="$R/sudo"
  mkdir -p "$S/rootonly"
  chmod 700 "$S/rootonly"
  chmod 755 "$S"
  cat >"$TMP/sudo.lua" <<EOF
host "web" {
  connect.ssh { address = "127.0.0.1", port = $SSH_PORT, user = "$SU", sudo = true,
                identity = "$SSH_KEY", known_hosts = "$SSH_KNOWN_HOSTS" },
  file.has_content("$S/rootonly/file", "by sudo\n", { mode = "0600", owner = "root", group = "root" }),
  property {
    desc = "runs as root",
    check = function(sys) return sys:read("$S/whoami") == "root\n" end,
    apply = function(sys) sys:write("$S/whoami", sys:run({ "id", "-un" }).stdout) end,
  },
}
EOF
  sed 's/, sudo = true//' "$TMP/sudo.lua" >"$TMP/nosudo.lua"

  # Without a sudoers entry: sudo -n refuses, the host is not run.
  before="$(tree_state "$S")"
  ssh_prop "$TMP/nosudoers.out" "$TMP/sudo.lua"
  same "sudo without sudoers: exit 69" "$rc" 69
  check "sudo without sudoers: unreachable" grep -q '"event":"host".*"unreachable":true' "$TMP/nosudoers.out"
  has "sudo without sudoers: sudo's refusal shown" "$TMP/nosudoers.out" "sudo: a password is required"
  same "sudo without sudoers: nothing changed" "$(tree_state "$S")" "$before"

  {
    echo "Defaults:$SU env_keep += \"PROP_LOCK_FILE\""
    echo "$SU ALL=(root) NOPASSWD: ALL"
  } >"$SUDOERS.tmp"
  chmod 440 "$SUDOERS.tmp"
  if visudo -c -q -f "$SUDOERS.tmp"; then
    mv "$SUDOERS.tmp" "$SUDOERS"
  else
    fail "sudoers" "visudo rejects $SUDOERS.tmp"
    rm -f "$SUDOERS.tmp"
  fi

  # The user alone cannot write there: sudo is what makes it work.
  ssh_prop "$TMP/nosudo.out" "$TMP/nosudo.lua"
  same "no sudo: exit 1" "$rc" 1
  same "no sudo: the root-only file fails" "$(result_of "$TMP/nosudo.out" "rootonly/file")" failed
  check "no sudo: no file" test ! -e "$S/rootonly/file"

  ssh_prop "$TMP/sudo1.out" "$TMP/sudo.lua"
  expect_run "sudo: first run" "$TMP/sudo1.out" 0 2 0 0
  same "sudo: root-owned file" "$(cat "$S/rootonly/file" 2>&1) $(stat -c '%04a %U:%G' "$S/rootonly/file" 2>&1)" \
    "by sudo 0600 root:root"
  same "sudo: commands run as root" "$(cat "$S/whoami" 2>&1) $(owner_of "$S/whoami" 2>&1)" "root root:root"
  ssh_prop "$TMP/sudo2.out" "$TMP/sudo.lua"
  expect_run "sudo: second run" "$TMP/sudo2.out" 0 0 2 0
  before="$(tree_state "$S")"
  echo drift >"$S/rootonly/file"
  ssh_prop "$TMP/sudodry.out" "$TMP/sudo.lua" --dry-run
  expect_run "sudo: dry run" "$TMP/sudodry.out" 0 1 1 0
  same "sudo: dry run left the drift" "$(cat "$S/rootonly/file")" drift
  ssh_prop "$TMP/sudo3.out" "$TMP/sudo.lua"
  expect_run "sudo: drift fixed" "$TMP/sudo3.out" 0 1 1 0
  same "sudo: drift fixed, file as before" "$(tree_state "$S")" "$before"
fi

finish
