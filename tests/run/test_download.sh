#!/usr/bin/env bash
# file.downloaded for real, from an HTTP server the test starts on
# loopback (python3 -m http.server on a free port, stopped on exit):
# on this machine (the target fetches it with curl) the right checksum
# downloads it with its mode, a second run does nothing, a wrong checksum
# fails naming both hashes and leaves nothing (no temporary file either);
# a missing sha256 is a lint error at the site's line; in a connect.dir
# tree, where no command runs, prop fetches it here and sends the bytes,
# and archive.extracted extracts what file.downloaded fetched.
# The whole test runs in a network namespace of its own (loopback only),
# so that its server's port is never one of this machine's.
set -u
if [[ -z "${PROP_TEST_NETNS:-}" ]]; then
  if ! unshare --net -- true 2>/dev/null; then
    echo "SKIP: cannot make a network namespace (unshare --net) for the test's HTTP server"
    exit 77
  fi
  exec env PROP_TEST_NETNS=1 unshare --net -- bash -c 'ip link set lo up && exec bash "$0"' "$0"
fi
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

check "the test runs in a network namespace of its own" \
  test "$(readlink /proc/self/ns/net)" != "$(readlink /proc/1/ns/net)"

for cmd in python3 curl; do
  command -v "$cmd" >/dev/null || skip "$cmd is not installed"
done

W="$TMP/www"
mkdir -p "$W" "$TMP/dl" "$TMP/site"
head -c 100000 /dev/urandom >"$W/file.bin"
mkdir -p "$TMP/src/app" && printf 'inside\n' >"$TMP/src/app/in.txt"
tar -C "$TMP/src" -czf "$W/app.tar.gz" app
SUM="$(sha256sum <"$W/file.bin" | cut -d' ' -f1)"
TSUM="$(sha256sum <"$W/app.tar.gz" | cut -d' ' -f1)"
BAD="$(printf 'other' | sha256sum | cut -d' ' -f1)"

PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
python3 -m http.server --bind 127.0.0.1 --directory "$W" "$PORT" >"$TMP/http.log" 2>&1 &
HTTP_PID=$!
on_exit "kill $HTTP_PID; wait $HTTP_PID"
for _ in $(seq 1 100); do
  curl -fs -o /dev/null "http://127.0.0.1:$PORT/file.bin" && break
  sleep 0.1
done
curl -fs -o /dev/null "http://127.0.0.1:$PORT/file.bin" || {
  echo "the HTTP server did not start" >&2
  exit 1
}
URL="http://127.0.0.1:$PORT"

cat >"$TMP/site/ok.lua" <<SITE
host "localhost" {
  file.downloaded("$TMP/dl/file.bin", "$URL/file.bin", { sha256 = "$SUM", mode = "0640" }),
}
SITE
prop_run "$TMP/run1.out" "$TMP/site/ok.lua"
expect_run "right checksum: downloaded" "$TMP/run1.out" 0 1 0 0
check "right checksum: the bytes" cmp -s "$W/file.bin" "$TMP/dl/file.bin"
same "right checksum: the mode" "$(stat -c %a "$TMP/dl/file.bin")" 640
before="$(stat -c '%i %y' "$TMP/dl/file.bin")"
prop_run "$TMP/run2.out" "$TMP/site/ok.lua"
expect_run "second run: ok" "$TMP/run2.out" 0 0 1 0
same "second run: the file untouched" "$(stat -c '%i %y' "$TMP/dl/file.bin")" "$before"

cat >"$TMP/site/bad.lua" <<SITE
host "localhost" {
  file.downloaded("$TMP/dl/bad.bin", "$URL/file.bin", { sha256 = "$BAD" }),
}
SITE
prop_run "$TMP/bad.out" "$TMP/site/bad.lua"
expect_run "wrong checksum: fails" "$TMP/bad.out" 1 0 0 1
check "wrong checksum: names the expected hash" grep -q "$BAD" "$TMP/bad.out"
check "wrong checksum: names the hash it got" grep -q "$SUM" "$TMP/bad.out"
same "wrong checksum: nothing left, no temporary file" "$(ls -A "$TMP/dl")" "file.bin"

cat >"$TMP/site/nosum.lua" <<SITE
host "localhost" {
  file.downloaded("$TMP/dl/x.bin", "$URL/file.bin"),
}
SITE
run_prop "$TMP/nosum.out" lint "$TMP/site/nosum.lua"
check "no sha256: lint fails" test "$rc" != 0
check "no sha256: P012 at the site's line" \
  grep -q 'nosum.lua:2:.*P012.*sha256 is required' "$TMP/nosum.out"

# A connect.dir tree runs no command: prop fetches the bytes here and
# writes them through the transport; the tarball it fetched is extracted.
T="$TMP/tree"
mkdir -p "$T/srv"
cat >"$TMP/site/tree.lua" <<SITE
host "tree" {
  connect.dir "$T",
  file.downloaded("/srv/file.bin", "$URL/file.bin", { sha256 = "$SUM" }),
  archive.extracted("/opt", file.downloaded("/srv/app.tar.gz", "$URL/app.tar.gz",
                                            { sha256 = "$TSUM" })),
}
SITE
prop_run "$TMP/tree1.out" "$TMP/site/tree.lua"
expect_run "tree: fetched here and sent" "$TMP/tree1.out" 0 2 0 0
check "tree: the bytes" cmp -s "$W/file.bin" "$T/srv/file.bin"
same "tree: the archive it fetched is extracted" "$(cat "$T/opt/app/in.txt")" "inside"
prop_run "$TMP/tree2.out" "$TMP/site/tree.lua"
expect_run "tree: second run ok" "$TMP/tree2.out" 0 0 2 0
cat >"$TMP/site/treebad.lua" <<SITE
host "tree" {
  connect.dir "$T",
  file.downloaded("/srv/bad.bin", "$URL/file.bin", { sha256 = "$BAD" }),
}
SITE
prop_run "$TMP/treebad.out" "$TMP/site/treebad.lua"
expect_run "tree: wrong checksum fails" "$TMP/treebad.out" 1 0 0 1
check "tree: wrong checksum names both hashes" grep -q "$SUM.*$BAD" "$TMP/treebad.out"
check "tree: wrong checksum writes nothing" test ! -e "$T/srv/bad.bin"

finish
