#!/usr/bin/env bash
# sys:tcp and sys:http, the network methods of probes: prop itself
# connects to a port of the target as the target sees it, on this machine
# (a plain connect) and over SSH (a direct-tcpip channel the target's sshd
# opens: the listener is reached on the target's loopback), with each
# framing (the peer's close, a line, a DNS-style length), a refused port,
# a peer that never answers (cut off by the timeout, the SSH session
# left working), an answer over its limit, an sshd that forbids
# forwarding (said so), a directory tree (no network), and an HTTP site
# told from the default one by its Host header.  A verify= probe built on
# sys:http fails a property whose files are right but whose site does
# not answer.  Everything runs in a network namespace of its own (unshare
# -n): the listeners and the sshd are nobody else's.
set -u
export PROP_RUN_TIMEOUT="${PROP_RUN_TIMEOUT:-120}"
unset SSH_AUTH_SOCK
if [[ -z "${PROP_TEST_NETNS:-}" ]]; then
  if [[ "$(id -u)" == 0 ]] && command -v unshare >/dev/null && unshare -n true 2>/dev/null; then
    exec env PROP_TEST_NETNS=1 unshare -n bash "$0" "$@"
  fi
  # shellcheck source=tests/lib.sh
  source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
  skip "needs root and unshare -n (a network namespace of its own)"
fi
ip link set lo up || { echo "cannot bring lo up in the test's namespace" >&2; exit 1; }
# shellcheck source=tests/run/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../run/common.sh"
skip_without python3
# shellcheck source=tests/ssh/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# The listeners: python3 serving each mode on a port it picks, written to
# $TMP/ports as "mode port" lines.
cat >"$TMP/serve.py" <<'PY'
import socket, sys, threading
modes = ["http", "line", "len16", "silent", "big"]
out = open(sys.argv[1] + ".tmp", "w")
def serve(mode, s):
    while True:
        c, _ = s.accept()
        threading.Thread(target=handle, args=(mode, c), daemon=True).start()
def handle(mode, c):
    try:
        if mode == "silent":
            c.recv(100); threading.Event().wait(600); return
        if mode == "line":
            c.sendall(b"220 mail.example ESMTP\r\n"); threading.Event().wait(600); return
        if mode == "big":
            c.sendall(b"x" * 300000); c.close(); return
        data = b""
        if mode == "len16":
            while len(data) < 2 or len(data) < 2 + int.from_bytes(data[:2], "big"):
                data += c.recv(4096)
            q = data[2:]
            a = b"answer to " + q
            # the answer, then bytes that are not part of it; the connection stays open
            c.sendall(len(a).to_bytes(2, "big") + a + b"\x00\x05extra")
            threading.Event().wait(600); return
        while b"\r\n\r\n" not in data:
            d = c.recv(4096)
            if not d: return
            data += d
        host = [l.split(b":", 1)[1].strip() for l in data.split(b"\r\n") if l.lower().startswith(b"host:")]
        body = (b"site " + host[0] if host and host[0] == b"www.example" else b"default site") + b"\n"
        path = data.split(b" ")[1]
        status = b"200 OK" if path == b"/" else b"404 Not Found"
        c.sendall(b"HTTP/1.1 " + status + b"\r\nContent-Type: text/plain\r\nX-Probe: yes\r\n\r\n" + body)
        c.close()
    except OSError:
        pass
for m in modes:
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0)); s.listen(16)
    out.write("%s %d\n" % (m, s.getsockname()[1]))
    threading.Thread(target=serve, args=(m, s), daemon=True).start()
out.close()
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
threading.Event().wait(3600)
PY
python3 "$TMP/serve.py" "$TMP/ports" &
serve_pid=$!
on_exit "kill $serve_pid 2>/dev/null"
for _ in $(seq 100); do [[ -s "$TMP/ports" ]] && break; sleep 0.1; done
port() { awk -v m="$1" '$1 == m { print $2 }' "$TMP/ports"; }
check "the listeners are up" test -n "$(port http)"
# A port nothing listens on: one the kernel gave and took back.
closed=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

# The probes of the site, each a property whose verify says what it got.
probes() {
  cat <<EOF
local function probe(desc, fn)
  return property { desc = desc, check = function() return true end, apply = function() end,
                    verify = fn, probe_timeout = 0 }
end
local function got(want, a, b)
  if a == want then return true end
  return false, "got " .. tostring(a) .. " / " .. tostring(b)
end
return {
  probe("close", function(sys)
    local st, h, body = sys:http { port = $(port http), name = "www.example" }
    if st ~= 200 or h["x-probe"] ~= "yes" or body ~= "site www.example\n" then
      return false, "got " .. tostring(st) .. " " .. tostring(body)
    end
  end),
  probe("default", function(sys)
    local st, _, body = sys:http { port = $(port http), name = "other.example", path = "/x" }
    return got(404, st, body) and body == "default site\n", "body " .. tostring(body)
  end),
  probe("line", function(sys)
    return got("220 mail.example ESMTP\r\n", sys:tcp { port = $(port line), framing = "line" })
  end),
  probe("len16", function(sys)
    return got("\0\14answer to SOA?", sys:tcp { port = $(port len16), send = "\0\4SOA?", framing = "len16" })
  end),
  probe("connect", function(sys)
    local a, why = sys:tcp { port = $(port silent), framing = "connect" }
    local b, why2 = sys:tcp { port = $closed, framing = "connect" }
    return a == "" and b == nil, "connect: " .. tostring(why) .. " / " .. tostring(why2)
  end),
  probe("refused", function(sys)
    local a, why = sys:tcp { port = $closed, send = "x" }
    return a == nil and why:find("[Rr]efused") ~= nil, "refused: " .. tostring(why)
  end),
  probe("silent", function(sys)
    local a, why = sys:tcp { port = $(port silent), send = "x", framing = "line", timeout = 0.5 }
    return a == nil and why:find("timed out", 1, true) ~= nil, "silent: " .. tostring(why)
  end),
  probe("big", function(sys)
    local a, why = sys:tcp { port = $(port big), max = 100000 }
    return a == nil and why:find("over 100000 bytes", 1, true) ~= nil, "big: " .. tostring(why)
  end),
  probe("after", function(sys)
    return sys:read("/etc/hostname") ~= nil, "a file operation after the probes failed"
  end),
}
EOF
}

# result_of OUT DESC is in run/common.sh; every probe must hold.
all_hold() {
  local out="$1" label="$2" d
  for d in close default line len16 connect refused silent big after; do
    same "$label: probe $d holds" "$(result_of "$out" "\"desc\":\"$d\"")" ok
  done
}

# ---- 1. this machine ----------------------------------------------------
{ echo 'local probes = (function()'; probes; echo 'end)()'
  echo 'host "localhost" { probes }'; } >"$TMP/local.lua"
prop_run "$TMP/local.out" "$TMP/local.lua"
same "local: exit 0" "$rc" 0
all_hold "$TMP/local.out" local

# ---- 2. over SSH: the listeners are on the target's loopback -------------
ssh_start target
{ echo 'local probes = (function()'; probes; echo 'end)()'
  echo "host \"t\" { $(ssh_connect), os.debian(\"bookworm\", \"amd64\"), probes }"; } >"$TMP/ssh.lua"
prop_run "$TMP/ssh.out" "$TMP/ssh.lua"
same "ssh: exit 0" "$rc" 0
all_hold "$TMP/ssh.out" ssh
prop_run "$TMP/ssh-dry.out" "$TMP/ssh.lua" --dry-run
same "ssh: a dry run probes too, exit 0" "$rc" 0
same "ssh dry: close holds" "$(result_of "$TMP/ssh-dry.out" "\"desc\":\"close\"")" ok

# An sshd that forbids forwarding: the probe says so, and the session goes on.
echo "AllowTcpForwarding no" >>"$SSH_DIR/sshd_config"
ssh_kill target
ssh_restart target
cat >"$TMP/noforward.lua" <<EOF
host "t" { $(ssh_connect), os.debian("bookworm", "amd64"),
  property { desc = "web", check = function() return true end, apply = function() end,
             verify = function(sys)
               local st, why = sys:http { port = $(port http), name = "www.example" }
               return st == 200, why
             end, probe_timeout = 0 },
  file.has_content("$TMP/after-noforward", "still here\n"),
}
EOF
prop_run "$TMP/noforward.out" "$TMP/noforward.lua"
same "no forwarding: exit 1" "$rc" 1
same "no forwarding: web failed" "$(result_of "$TMP/noforward.out" web)" failed
check "no forwarding: said why" grep -q "AllowTcpForwarding" "$TMP/noforward.out"
check "no forwarding: the next property ran" grep -qx "still here" "$TMP/after-noforward"

# ---- 3. a directory tree has no network -----------------------------------
mkdir -p "$TMP/tree"
cat >"$TMP/tree.lua" <<EOF
host "tree" { connect.dir "$TMP/tree", os.debian("bookworm", "amd64"),
  property { desc = "web", check = function() return true end, apply = function() end,
             verify = function(sys)
               local st, why = sys:http { port = $(port http) }
               return st == 200, why
             end, probe_timeout = 0 } }
EOF
prop_run "$TMP/tree.out" "$TMP/tree.lua"
same "tree: exit 1" "$rc" 1
check "tree: no network of its own" grep -q "has no network of its own" "$TMP/tree.out"

# ---- 4. a site whose files are right but which does not answer -------------
# The probe is what tells: the same property is ok while the site answers.
cat >"$TMP/site.lua" <<EOF
host "localhost" {
  property { desc = "site www.example", check = function() return true end,
             apply = function() end,
             verify = function(sys)
               local st, h, body = sys:http { port = tonumber(sys:read("$TMP/port")), name = "www.example" }
               if st ~= 200 or body ~= "site www.example\n" then
                 return false, "GET / with Host www.example: " .. tostring(st) .. " " .. tostring(body or h)
               end
             end, probe_timeout = 0 } }
EOF
port http >"$TMP/port"
prop_run "$TMP/up.out" "$TMP/site.lua"
same "site up: exit 0" "$rc" 0
echo "$closed" >"$TMP/port"
prop_run "$TMP/down.out" "$TMP/site.lua"
same "site down: exit 1" "$rc" 1
check "site down: the probe says what it saw" grep -q "verify: GET / with Host www.example: nil .*refused" "$TMP/down.out"

# ---- 5. bad arguments are the site's errors, with its line ----------------
cat >"$TMP/bad.lua" <<EOF
host "localhost" {
  property { desc = "bad", check = function() return true end, apply = function() end,
             verify = function(sys) return sys:tcp { port = 70000 } end, probe_timeout = 0 } }
EOF
prop_run "$TMP/bad.out" "$TMP/bad.lua"
same "bad port: exit 1" "$rc" 1
check "bad port: said with the line" grep -q "bad.lua:3: sys:tcp: port must be an integer in 1..65535" "$TMP/bad.out"
finish
