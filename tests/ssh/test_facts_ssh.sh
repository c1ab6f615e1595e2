#!/usr/bin/env bash
# sys.facts over SSH, against a real sshd on loopback: the facts are
# gathered in one command per host, whatever the number of properties
# that use them (the sshd's sessions get an nproc on their PATH that logs
# each call: the gathering command runs it once), not at all on a host
# that never asks, in a dry run as in a real one; the values are this
# machine's (the sshd runs here); a file's content chosen by facts.  The
# hosts share one sshd, so they run one after the other (--jobs 1): the
# target takes one run at a time.
set -u
export PROP_RUN_TIMEOUT="${PROP_RUN_TIMEOUT:-120}"
unset SSH_AUTH_SOCK
# shellcheck source=tests/run/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../run/common.sh"
# shellcheck source=tests/ssh/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

counting_nproc

# The sshd's sessions find the counting nproc first: its config gets the
# PATH, and it is started again with it.
ssh_start target
sed -i "s|^SetEnv |SetEnv PATH=$SHIM:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin |" \
  "$SSH_DIR/sshd_config"
ssh_kill target
ssh_restart target
ssh_use target
same "harness: the sessions run the counting nproc" \
  "$(ssh -i "$SSH_KEY" -o UserKnownHostsFile="$SSH_KNOWN_HOSTS" -o BatchMode=yes -p "$SSH_PORT" \
     root@127.0.0.1 'command -v nproc' 2>/dev/null)" "$SHIM/nproc"
: >"$TMP/nproc.log"

S="$TMP/scratch"
mkdir -p "$S"
. /etc/os-release
CONN="connect.ssh { address = \"$SSH_HOST\", port = $SSH_PORT, identity = \"$SSH_KEY\", known_hosts = \"$SSH_KNOWN_HOSTS\" }"
cat >"$TMP/site.lua" <<EOF
local function uses_facts(dir)
  return {
    property {
      desc = "kernel in check", claims = { files = { dir .. "/kernel" } },
      check = function(sys) return sys:read(dir .. "/kernel") == sys.facts.kernel .. "\n" end,
      apply = function(sys) sys:write(dir .. "/kernel", sys.facts.kernel .. "\n") end,
    },
    property {
      desc = "counts in apply", claims = { files = { dir .. "/counts" } },
      apply = function(sys)
        local f = sys.facts
        sys:write(dir .. "/counts", f.cpus .. " " .. f.memory .. " " .. f.hostname .. " "
                  .. f.os_id .. " " .. f.arch .. "\n")
      end,
    },
    file.has_content(dir .. "/guarded", "guarded\n"):only_if(function(sys)
      return sys.facts.os_id == "$ID"
    end),
    file.has_content(dir .. "/motd", function(facts)
      return facts.os_id == "$ID" and { "on " .. facts.hostname } or "wrong\n"
    end),
  }
end
host "web1" { $CONN, uses_facts "$S/web1" }
host "web2" { $CONN, uses_facts "$S/web2" }
host "idle" { $CONN, file.has_content("$S/idle", "idle\n") }
EOF
mkdir -p "$S/web1" "$S/web2"

prop_run "$TMP/dry.out" "$TMP/site.lua" --jobs 1 --dry-run --diff
same "dry run: exit" "$rc" 0
same "dry run: one gathering per host that asks" "$(calls)" 2
check "dry run: the content computed over SSH" grep -qF "+on $(hostname)" "$TMP/dry.out"
same "dry run: nothing written" "$(find "$S" -type f | wc -l | tr -d ' ')" 0

: >"$TMP/nproc.log"
prop_run "$TMP/run.out" "$TMP/site.lua" --jobs 1
expect_run "run: every property changed" "$TMP/run.out" 0 9 0 0
same "run: one gathering per host that asks" "$(calls)" 2
for h in web1 web2; do
  same "$h: kernel" "$(cat "$S/$h/kernel")" "$(uname -r)"
  same "$h: cpus, memory, hostname, os, arch" "$(cat "$S/$h/counts")" \
    "$(nproc) $(($(awk '/^MemTotal:/ { print $2 }' /proc/meminfo) * 1024)) $(hostname) $ID $(uname -m)"
  same "$h: only_if on facts" "$(cat "$S/$h/guarded")" guarded
  same "$h: content by facts" "$(cat "$S/$h/motd")" "on $(hostname)"
done

: >"$TMP/nproc.log"
prop_run "$TMP/run2.out" "$TMP/site.lua" --jobs 1
expect_run "second run: only the apply-only property changes" "$TMP/run2.out" 0 2 7 0
same "second run: one gathering per host" "$(calls)" 2

finish
