# shellcheck shell=bash
# tests/ssh/common.sh - a throwaway sshd on loopback for the shell tests
# of tests/ssh/ (which run the real prop against it).  Needs root and
# openssh-server; without them ssh_start prints "SKIP: ..." and exits 77.
#
#   source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
#   ssh_start web        # generates keys and a config, starts sshd -D -e on a
#                        # free 127.0.0.1 port, waits until it accepts, and sets:
#     SSH_HOST=127.0.0.1  SSH_USER=root  SSH_PORT=<port>
#     SSH_KEY             private key authorized for root (no passphrase)
#     SSH_KNOWN_HOSTS     a known_hosts file holding "[127.0.0.1]:PORT <host key>"
#     SSH_HOSTKEY_PUB     the host's public key file
#     SSH_LOCK_FILE       where prop's run lock goes on this "target" (sshd sets
#                         PROP_LOCK_FILE for its sessions, so tests never take
#                         the machine's real /run/lock/prop.lock)
#     SSH_DIR, SSH_LOG    the server's scratch directory and its sshd log
#   ssh -i "$SSH_KEY" -o UserKnownHostsFile="$SSH_KNOWN_HOSTS" -p "$SSH_PORT" root@127.0.0.1 true
#   ssh_use web          # SSH_* of an earlier ssh_start (several may run at once)
#   ssh_connect          # connect.ssh { ... } of the current server, for a site
#   ssh_stop [NAME...]   # stop these servers, or all; also done on EXIT
#   ssh_kill NAME        # kill -9 the server and its sessions (a crash), keeping
#                        # its keys, config and port
#   ssh_restart NAME     # start a killed server again, same port and keys
#   SSH_UNSHARE=1 ssh_start NAME
#                        # sshd in a mount namespace of its own (unshare -m,
#                        # private propagation): what its sessions mount, as
#                        # root, is seen by them only and goes with the server
#                        # (ssh_restart starts it so again)
#
# Everything lives in one mktemp directory, removed on EXIT.  If your test
# sets its own EXIT trap, set it before sourcing this file (the trap is
# chained), or call ssh_stop from it.  The sessions run with SHLVL=1 so that
# Debian's bash does not read root's ~/.bashrc for every command.

SSHD_BIN="${SSHD_BIN:-/usr/sbin/sshd}"
SSH_SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/prop-sshd.XXXXXX")"
# prop's state on the target (this machine, through sshd) is kept in the
# scratch directory, not in /var/lib/prop.
export PROP_STATE_DIR="$SSH_SCRATCH/prop-state"
declare -A _SSH_PIDS=() _SSH_WATCH=()

_ssh_prev_trap=""
if [[ -n "$(trap -p EXIT)" ]]; then
  eval "_ssh_prev_trap=$(trap -p EXIT | sed -e 's/^trap -- //' -e 's/ EXIT$//')"
fi
_ssh_exit() {
  ssh_stop_all
  rm -rf "$SSH_SCRATCH"
  if [[ -n "$_ssh_prev_trap" ]]; then
    eval "$_ssh_prev_trap"
  fi
}
trap _ssh_exit EXIT

# _ssh_descendants PID: the pids below PID, deepest first.
_ssh_descendants() {
  local child
  for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do
    _ssh_descendants "$child"
    echo "$child"
  done
}

# _ssh_port_open PORT: something accepts connections on 127.0.0.1:PORT.
_ssh_port_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

ssh_start() {
  local name="${1:?usage: ssh_start NAME}" dir port
  if [[ $(id -u) -ne 0 ]]; then
    skip "the ssh tests need root (sshd runs as root)"
  fi
  if [[ ! -x "$SSHD_BIN" ]] || ! command -v ssh-keygen >/dev/null; then
    skip_missing openssh-server "the ssh tests need openssh-server ($SSHD_BIN) and ssh-keygen"
  fi
  if [[ -n "${_SSH_PIDS[$name]:-}" ]]; then
    echo "ssh_start: $name is already running" >&2
    return 1
  fi
  mkdir -p /run/sshd || return 1
  dir="$SSH_SCRATCH/$name"
  rm -rf "$dir"
  mkdir -p "$dir" || return 1
  ssh-keygen -q -t ed25519 -N '' -C "host-$name" -f "$dir/hostkey" </dev/null || return 1
  ssh-keygen -q -t ed25519 -N '' -C "user-$name" -f "$dir/userkey" </dev/null || return 1
  cp "$dir/userkey.pub" "$dir/authorized_keys" || return 1
  if [[ -n "${SSH_UNSHARE:-}" ]]; then
    command -v unshare >/dev/null || { echo "ssh_start: unshare(1) is needed (util-linux)" >&2; return 1; }
    : >"$dir/unshare" || return 1
  fi

  # A free port: try a few at random (another process may take one first).
  for _ in 1 2 3 4 5 6 7 8; do
    port=$((20000 + RANDOM % 40000))
    _ssh_port_open "$port" && continue
    cat >"$dir/sshd_config" <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $dir/hostkey
PidFile $dir/sshd.pid
AuthorizedKeysFile $dir/authorized_keys
StrictModes no
UsePAM no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
MaxSessions 50
MaxStartups 50:30:100
LogLevel VERBOSE
SetEnv SHLVL=1 PROP_LOCK_FILE=$dir/prop.lock
EOF
    if _ssh_launch "$name" "$port"; then
      echo "$port" >"$dir/port"
      echo "[127.0.0.1]:$port $(cat "$dir/hostkey.pub")" >"$dir/known_hosts"
      ssh_use "$name"
      return 0
    fi
  done
  echo "ssh_start: sshd $name did not start; its log:" >&2
  sed 's/^/    | /' "$dir/sshd.log" >&2
  return 1
}

# _ssh_launch NAME PORT: start sshd -D with NAME's config and wait until it
# accepts on PORT; 1 when it exits first (most likely the port was taken).
_ssh_launch() {
  local name="$1" port="$2" dir="$SSH_SCRATCH/$1" pid i
  if [[ -e "$dir/unshare" ]]; then
    unshare -m --propagation private "$SSHD_BIN" -D -e -f "$dir/sshd_config" >>"$dir/sshd.log" 2>&1 &
  else
    "$SSHD_BIN" -D -e -f "$dir/sshd_config" >>"$dir/sshd.log" 2>&1 &
  fi
  pid=$!
  for ((i = 0; i < 100; i++)); do
    if ! kill -0 "$pid" 2>/dev/null; then
      break
    fi
    if _ssh_port_open "$port"; then
      _SSH_PIDS[$name]=$pid
      # Stops sshd if this shell is killed outright (no EXIT trap then).
      (
        while kill -0 "$$" 2>/dev/null; do sleep 1; done
        kill -TERM "$pid"
      ) >/dev/null 2>&1 </dev/null &
      _SSH_WATCH[$name]=$!
      return 0
    fi
    sleep 0.1
  done
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null || true
  return 1
}

ssh_use() {
  local name="${1:?usage: ssh_use NAME}" dir="$SSH_SCRATCH/$1"
  if [[ ! -f "$dir/port" ]]; then
    echo "ssh_use: no sshd named $name" >&2
    return 1
  fi
  SSH_PORT="$(cat "$dir/port")"
  export SSH_HOST=127.0.0.1 SSH_USER=root SSH_PORT
  export SSH_KEY="$dir/userkey"
  export SSH_KNOWN_HOSTS="$dir/known_hosts"
  export SSH_HOSTKEY_PUB="$dir/hostkey.pub"
  export SSH_LOCK_FILE="$dir/prop.lock"
  export SSH_DIR="$dir" SSH_LOG="$dir/sshd.log"
}

# ssh_connect [USER [IDENTITY [KNOWN_HOSTS [PORT]]]] : a connect.ssh { }
# for the current server (ssh_use), with these fields replaced.
ssh_connect() {
  printf 'connect.ssh { address = "127.0.0.1", port = %s, user = "%s", identity = "%s", known_hosts = "%s" }' \
    "${4:-$SSH_PORT}" "${1:-root}" "${2:-$SSH_KEY}" "${3:-$SSH_KNOWN_HOSTS}"
}

# _ssh_halt NAME SIGNAL: stop NAME's sessions (kill -9: sshd -D leaves them
# running), then its listener with SIGNAL; the files stay.
_ssh_halt() {
  local name="$1" sig="$2" pid p
  pid="${_SSH_PIDS[$name]:-}"
  [[ -n "$pid" ]] || return 0
  if [[ -n "${_SSH_WATCH[$name]:-}" ]]; then
    kill "${_SSH_WATCH[$name]}" 2>/dev/null
    wait "${_SSH_WATCH[$name]}" 2>/dev/null || true
    unset "_SSH_WATCH[$name]"
  fi
  for p in $(_ssh_descendants "$pid"); do
    kill -KILL "$p" 2>/dev/null
  done
  kill "-$sig" "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null || true
  unset "_SSH_PIDS[$name]"
}

# shellcheck disable=SC2120 # called without arguments too (every server)
ssh_stop() {
  local names=("$@") name f
  if [[ ${#names[@]} -eq 0 ]]; then
    # Every server started, running or killed.
    for f in "$SSH_SCRATCH"/*/port; do
      [[ -f "$f" ]] && names+=("$(basename "$(dirname "$f")")")
    done
  fi
  for name in "${names[@]}"; do
    [[ -n "${_SSH_PIDS[$name]:-}" || -d "$SSH_SCRATCH/$name" ]] || continue
    _ssh_halt "$name" TERM
    rm -rf "${SSH_SCRATCH:?}/$name"
  done
  return 0
}

ssh_kill() {
  local name="${1:?usage: ssh_kill NAME}"
  if [[ -z "${_SSH_PIDS[$name]:-}" ]]; then
    echo "ssh_kill: $name is not running" >&2
    return 1
  fi
  _ssh_halt "$name" KILL
}

ssh_restart() {
  local name="${1:?usage: ssh_restart NAME}" dir="$SSH_SCRATCH/$1"
  if [[ -n "${_SSH_PIDS[$name]:-}" ]]; then
    echo "ssh_restart: $name is running" >&2
    return 1
  fi
  if [[ ! -f "$dir/port" ]]; then
    echo "ssh_restart: no sshd named $name" >&2
    return 1
  fi
  if ! _ssh_launch "$name" "$(cat "$dir/port")"; then
    echo "ssh_restart: sshd $name did not start again; its log:" >&2
    sed 's/^/    | /' "$dir/sshd.log" >&2
    return 1
  fi
}

ssh_stop_all() {
  # shellcheck disable=SC2119
  ssh_stop
}
