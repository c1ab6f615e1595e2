# Shared by the tests/containers/test_*.sh scripts: prop run of hosts with
# containers (chroot, systemd-nspawn, Docker) on this machine, as root.
# Everything the tests make is below their scratch directory, or is a
# Docker image or container named prop-test-*, removed on exit.
#
# A Debian tree costs a debootstrap (a minute or more, from the mirror):
# rootfs_cache makes one with prop itself (chroot.debootstrapped) the first
# time, into a cache that outlives the tests, so the rest of the suite (and
# the next run on this machine) unpacks a tarball instead.  Also the
# helpers of the chroot tests (tarball_host) and of the Docker ones
# (docker_test, inside, changed_inside, fetch).

# shellcheck source=../run/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../run/common.sh"

PROP_TEST_CACHE="${PROP_TEST_CACHE:-/var/tmp/prop-test-cache}"
ROOTFS_CACHE="$PROP_TEST_CACHE/rootfs"
SUITE=bookworm
ARCH="$(dpkg --print-architecture 2>/dev/null || echo amd64)"

# rootfs_cache : sets ROOTFS to a tarball of a $SUITE minbase tree, made by
# prop's own chroot.debootstrapped into ROOTFS_CACHE when it is not there.
# Fails the test (and exits) when it cannot be made.
rootfs_cache() {
  ROOTFS="$(ls "$ROOTFS_CACHE"/debian-"$SUITE"-"$ARCH"-minbase-*.tar.gz 2>/dev/null | head -1 || true)"
  [[ -n "$ROOTFS" ]] && return 0
  mkdir -p "$ROOTFS_CACHE"
  cat >"$TMP/rootfs.lua" <<LUA
host "localhost" {
  chroot.provisioned(chroot.debootstrapped("$TMP/rootfs-tree", os.debian("$SUITE", "$ARCH"), {},
                                           { cache = "$ROOTFS_CACHE" })),
}
LUA
  echo "making a $SUITE tree with debootstrap (once; cached in $ROOTFS_CACHE)"
  PROP_RUN_TIMEOUT=1200 prop_run "$TMP/rootfs.out" "$TMP/rootfs.lua"
  rm -rf --one-file-system "$TMP/rootfs-tree"
  ROOTFS="$(ls "$ROOTFS_CACHE"/debian-"$SUITE"-"$ARCH"-minbase-*.tar.gz 2>/dev/null | head -1 || true)"
  if [[ "$rc" != 0 || -z "$ROOTFS" ]]; then
    fail "debootstrap of $SUITE into the cache" "exit $rc, no tarball in $ROOTFS_CACHE" "$TMP/rootfs.out"
    finish
    exit 1
  fi
}

# no_process_in TREE : no process on this machine has TREE as its root.
no_process_in() {
  local p r
  for p in /proc/[0-9]*; do
    r="$(readlink "$p/root" 2>/dev/null)" || continue
    if [[ "$r" == "$1" || "$r" == "$1"/* ]]; then
      echo "pid ${p#/proc/} runs in $1: $(tr '\0' ' ' <"$p/cmdline" 2>/dev/null)"
      return 1
    fi
  done
  return 0
}

# listeners : the TCP and UDP sockets listening on this machine, sorted.
listeners() {
  ss -H -ltnu 2>/dev/null | awk '{ print $1, $5 }' | LC_ALL=C sort
}

# docker_up : a dockerd that answers, for the Docker tests.  When none
# answers, starts one for the length of the test (log in $TMP/dockerd.log;
# stopped on exit) and waits for it up to a minute.  Without the docker
# command: skip_missing (SKIP, exit 77; under CI a failure).
# When no daemon answers in the end: fails the test, which ends.
docker_up() {
  local pid
  if ! command -v docker >/dev/null 2>&1; then
    skip_missing docker.io "no docker command on this machine"
  fi
  if ! docker info >/dev/null 2>&1 && command -v dockerd >/dev/null 2>&1; then
    echo "no dockerd answers: starting one for this test (log in $TMP/dockerd.log)"
    dockerd --pidfile "$TMP/dockerd.pid" >"$TMP/dockerd.log" 2>&1 &
    pid=$!
    on_exit "kill $pid; for _ in \$(seq 100); do kill -0 $pid || break; sleep 0.2; done"
    for _ in $(seq 60); do
      docker info >/dev/null 2>&1 && break
      sleep 1
    done
  fi
  if ! docker info >/dev/null 2>&1; then
    fail "dockerd" "docker info fails: this test needs a running dockerd" "$TMP/dockerd.log"
    finish
    exit 1
  fi
}

# tarball_host TREE PROPERTIES... : a site, on standard output, of this
# machine with a chroot at TREE unpacked from $ROOTFS (rootfs_cache) and
# the properties inside, each argument on a line of its own.
tarball_host() {
  local tree="$1" p
  shift
  printf 'host "localhost" {\n  os.debian("%s", "%s"),\n' "$SUITE" "$ARCH"
  printf '  chroot.provisioned(chroot.from_tarball("%s", os.debian("%s", "%s"), "%s", {\n' \
    "$tree" "$SUITE" "$ARCH" "$ROOTFS"
  for p in "$@"; do printf '    %s\n' "$p"; done
  printf '  })),\n}\n'
}

# docker_test IMAGE CONTAINER : IMG and CTR, the image and the container a
# Docker test makes, removed on exit with the image of the container's
# state.
docker_test() {
  IMG="$1"
  CTR="$2"
  on_exit "docker image rm -f $IMG"
  on_exit "docker image rm -f $CTR:prop-state"
  on_exit "docker rm -f $CTR"
}

# inside CMD... : CMD run in the container $CTR.
inside() {
  docker exec "$CTR" "$@"
}

# changed_inside OUT : "CHANGED/FAILED" of the container's host event.
changed_inside() {
  changed_failed "$1" "localhost/$CTR"
}

# fetch PORT : what curl inside the container $CTR is served on PORT.
fetch() {
  docker exec "$CTR" curl -sS --max-time 5 "http://127.0.0.1:$1/" 2>&1 || true
}

# pebble_start HTTP_PORT NAME... : Debian's pebble (installed in $CTR
# already) started in the container as a local ACME server on
# https://127.0.0.1:14000/dir, its TLS certificate from a CA of the
# test's own that the container trusts, checking http-01 challenges on
# HTTP_PORT; each NAME resolves to 127.0.0.1 in the container.  Nothing of
# it reaches this machine's network.
pebble_start() {
  local http_port="$1"
  shift
  inside sh -c 'mkdir -p /etc/pebble && cd /etc/pebble &&
    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj "/CN=prop test ACME CA" &&
    openssl req -newkey rsa:2048 -nodes -keyout key.pem -out srv.csr -subj /CN=localhost &&
    printf "subjectAltName=DNS:localhost,IP:127.0.0.1\n" >ext &&
    openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out cert.pem -days 2 -extfile ext' >/dev/null 2>&1
  inside sh -c 'port="$1"; shift
cat >/etc/pebble/pebble.json <<EOF
{ "pebble": { "listenAddress": "127.0.0.1:14000", "managementListenAddress": "127.0.0.1:15000",
  "certificate": "/etc/pebble/cert.pem", "privateKey": "/etc/pebble/key.pem",
  "httpPort": $port, "tlsPort": 5001, "ocspResponderURL": "", "externalAccountBindingRequired": false } }
EOF
cp /etc/pebble/ca.pem /usr/local/share/ca-certificates/prop-test-acme.crt && update-ca-certificates >/dev/null 2>&1
echo "127.0.0.1 $*" >>/etc/hosts' sh "$http_port" "$@"
  # pebble refuses 5% of good nonces by default, to test clients' retries;
  # Debian's certbot on Python 3.11 then dies with "AttributeError: can't
  # set attribute" instead of retrying, now and then: the tests ask for none.
  docker exec -d -e PEBBLE_VA_NOSLEEP=1 -e PEBBLE_WFE_NONCEREJECT=0 "$CTR" sh -c 'pebble -config /etc/pebble/pebble.json >/var/log/pebble.log 2>&1'
}
