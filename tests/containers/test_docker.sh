#!/usr/bin/env bash
# Docker containers for real, with this machine's dockerd and no registry:
# an image imported from the cached bookworm tree, a container provisioned
# inside through docker exec (a file, an account, a volume, nginx from apt through
# docker's bridge, started and reachable on its published loopback port),
# sys.container inside; a second run changes nothing; a stopped container
# is started; a paused one (running, says docker) is seen by the probe,
# by prop verify and a dry run, and unpaused; a new parameter makes it
# again with its files kept, another image makes it anew; revert removes it and keeps the image; dockerd
# unreachable is said in those words; a container prop did not make is
# left alone; an image named by a string is used as docker has it; bad
# arguments are P012 at their lines.  Every image and container is named
# prop-test-* and removed on exit.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

docker_up

rootfs_cache
mkdir -p "$TMP/vol"
docker_test "prop-test-img-$$" "prop-test-web-$$"

# A free loopback port for the container's nginx.
PORT=$((20000 + $$ % 20000))
while ss -H -ltn "sport = :$PORT" 2>/dev/null | grep -q .; do PORT=$((PORT + 1)); done

write_site() { # EXTRA-PARAMETERS
  cat >"$TMP/site.lua" <<EOF
local base = docker.image("$IMG", os.debian("$SUITE", "$ARCH"), { cache = "$ROOTFS_CACHE" })
local web = docker.container("$CTR", base, {
  file.has_content("/etc/motd", "inside\n"),
  user.account "webapp",
  apt.installed { "nginx" },
  file.has_content("/var/www/html/index.html", "served by prop-test\n"),
  service.running "nginx",
  property {
    desc = "sys.container recorded",
    claims = { files = { "/etc/prop-container" } },
    check = function(sys) return sys:read("/etc/prop-container") == tostring(sys.container) .. "\n" end,
    apply = function(sys) sys:write("/etc/prop-container", tostring(sys.container) .. "\n") end,
  },
  docker.publish($PORT, 80, { address = "127.0.0.1" }),
  docker.env("PROP_TEST_ONE", "1"),
  docker.volume("$TMP/vol", "/srv/vol"),
  file.has_content("/srv/vol/from-inside", "written inside\\n"),
  $1
})
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  docker.running(web),
}
EOF
}

has_image() {
  docker image inspect "$1" >/dev/null 2>&1
}

# fetch_published : what nginx in the container serves on the published port.
fetch_published() {
  curl -fsS --max-time 10 "http://127.0.0.1:$PORT/" 2>&1 || true
}

# ---- made, provisioned, reachable -------------------------------------------
docker image rm -f "$IMG" >/dev/null 2>&1 || true
write_site ""
check "no image before" bash -c "! docker image inspect $IMG >/dev/null 2>&1"
PROP_RUN_TIMEOUT=900 prop_run "$TMP/r1.out" "$TMP/site.lua"
same "first run: exit" "$rc" 0
same "first run: the parent's property changed" "$(host_count "$TMP/r1.out" localhost changed)" 1
same "first run: the container's" \
  "$(changed_failed "$TMP/r1.out" "localhost/$CTR")" "7/0"
check "the image was imported from the cache" grep -q "imported .*minbase.* as $IMG" "$TMP/r1.out"
check "the image exists" has_image "$IMG"
same "the container runs" "$(docker inspect --format '{{.State.Running}}' "$CTR")" true
same "its first process is sleep under docker-init" \
  "$(docker exec "$CTR" cat /proc/1/cmdline | tr '\0' ' ')" "/sbin/docker-init -- sleep infinity "
same "the file is in the container" "$(docker exec "$CTR" cat /etc/motd)" "inside"
check "the account is in the container" docker exec "$CTR" grep -q '^webapp:' /etc/passwd
check "not on this machine" bash -c "! grep -q '^webapp:' /etc/passwd"
check "nginx is installed in the container" bash -c "docker exec $CTR dpkg-query -W nginx >/dev/null"
same "sys.container is docker inside" "$(docker exec "$CTR" cat /etc/prop-container)" "docker"
check "the image has no policy-rc.d" bash -c "! docker exec $CTR test -e /usr/sbin/policy-rc.d"
same "nginx answers on the published loopback port" "$(fetch_published)" "served by prop-test"
same "the port is published on loopback only" "$(docker port "$CTR" 80/tcp)" "127.0.0.1:$PORT"
same "the environment is set" "$(docker exec "$CTR" sh -c 'echo $PROP_TEST_ONE')" 1
same "the volume is this machine's directory" "$(cat "$TMP/vol/from-inside" 2>&1)" "written inside"

# ---- a second run changes nothing -----------------------------------------------
prop_run "$TMP/r2.out" "$TMP/site.lua"
same "second run: exit" "$rc" 0
same "second run: nothing changed" \
  "$(host_count "$TMP/r2.out" localhost changed)/$(host_count "$TMP/r2.out" "localhost/$CTR" changed)" "0/0"

# ---- stopped, then started ----------------------------------------------------------
docker exec "$CTR" sh -c 'echo "made by hand" >/root/kept'
docker stop "$CTR" >/dev/null
same "the port is closed while it is stopped" "$(fetch_published | grep -c 'served by' || true)" 0
prop_run "$TMP/r3.out" "$TMP/site.lua"
same "stopped: exit" "$rc" 0
check "stopped: started again" grep -q "started $CTR (it was stopped)" "$TMP/r3.out"
same "stopped: running" "$(docker inspect --format '{{.State.Running}}' "$CTR")" true
same "stopped: nginx started again inside (only it changed)" \
  "$(host_count "$TMP/r3.out" "localhost/$CTR" changed)" 1
same "stopped: reachable again" "$(fetch_published)" "served by prop-test"

# ---- paused behind prop's back: running, says docker, but only the probe sees it ----
docker pause "$CTR" >/dev/null
prop_run "$TMP/p1.out" "$TMP/site.lua" --dry-run
same "paused, dry run: exit 1" "$rc" 1
same "paused, dry run: the container would fail" "$(host_count "$TMP/p1.out" localhost failed)" 1
check "paused, dry run: with what the probe saw" grep -q "would fail: verify: docker container $CTR is paused, want running" "$TMP/p1.out"
same "paused, dry run: still paused" "$(docker inspect --format '{{.State.Status}}' "$CTR")" paused
prop_verify "$TMP/pv.out" "$TMP/site.lua"
same "paused, prop verify: exit 2" "$rc" 2
same "paused, prop verify: the container failed" "$(host_count "$TMP/pv.out" localhost failed)" 1
check "paused, prop verify: with what the probe saw" grep -q "would fail: verify: docker container $CTR is paused, want running" "$TMP/pv.out"
same "paused, prop verify: still paused" "$(docker inspect --format '{{.State.Status}}' "$CTR")" paused
prop_run "$TMP/p2.out" "$TMP/site.lua"
same "paused: exit" "$rc" 0
same "paused: the container changed" "$(host_count "$TMP/p2.out" localhost changed)" 1
check "paused: unpaused" grep -q "unpaused $CTR (it was paused)" "$TMP/p2.out"
same "paused: running again" "$(docker inspect --format '{{.State.Status}}' "$CTR")" running
same "paused: reachable again" "$(fetch_published)" "served by prop-test"
prop_run "$TMP/p3.out" "$TMP/site.lua"
same "paused: the next run changes nothing" "$(host_count "$TMP/p3.out" localhost changed)/$rc" "0/0"
prop_verify "$TMP/pv3.out" "$TMP/site.lua"
same "paused, repaired: prop verify: all hold" "$rc" 0

# ---- a new parameter: made again, its files kept ------------------------------------
id_before="$(docker inspect --format '{{.Id}}' "$CTR")"
write_site 'docker.env("PROP_TEST_TWO", "two words"),'
prop_run "$TMP/r4.out" "$TMP/site.lua"
same "new env: exit" "$rc" 0
check "new env: made again" grep -q "made again $CTR with new parameters" "$TMP/r4.out"
check "new env: another container" test "$(docker inspect --format '{{.Id}}' "$CTR")" != "$id_before"
same "new env: the variable is set" "$(docker exec "$CTR" sh -c 'echo $PROP_TEST_TWO')" "two words"
same "new env: a file written by hand is kept" "$(docker exec "$CTR" cat /root/kept)" "made by hand"
same "new env: the account is kept" "$(docker exec "$CTR" grep -c '^webapp:' /etc/passwd)" 1
check "new env: it runs from its state image" has_image "$CTR:prop-state"
same "new env: reachable" "$(fetch_published)" "served by prop-test"
prop_run "$TMP/r5.out" "$TMP/site.lua"
same "new env, run again: nothing changed" \
  "$(host_count "$TMP/r5.out" localhost changed)/$(host_count "$TMP/r5.out" "localhost/$CTR" changed)" "0/0"

# ---- a parameter removed: gone from the container too ---------------------------
write_site ""
prop_run "$TMP/r6.out" "$TMP/site.lua"
same "env removed: exit" "$rc" 0
same "env removed: the variable is gone" "$(docker exec "$CTR" sh -c 'echo ${PROP_TEST_TWO-unset}')" "unset"
same "env removed: the file is still kept" "$(docker exec "$CTR" cat /root/kept)" "made by hand"
same "env removed: one state image, no leftover" \
  "$(docker images -q --filter "reference=$CTR" | wc -l)" 1

check "env removed: no export left in /var/tmp" bash -c "! ls -d /var/tmp/prop-docker-state.* 2>/dev/null | grep -q ."

# ---- another image: made anew from it, its files not kept -------------------------
OTHER="prop-test-other-$$"
on_exit "docker image rm -f $OTHER"
docker tag "$IMG" "$OTHER"
cat >"$TMP/other.lua" <<EOF
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  docker.running(docker.container("$CTR", "$OTHER", { file.has_content("/etc/motd", "other\\n") })),
}
EOF
prop_run "$TMP/i.out" "$TMP/other.lua"
same "other image: exit" "$rc" 0
check "other image: made anew" grep -q "made again $CTR from $OTHER" "$TMP/i.out"
check "other image: the files of the old one are gone" bash -c "! docker exec $CTR test -e /root/kept"
check "other image: the old state image is gone" bash -c "! docker image inspect $CTR:prop-state >/dev/null 2>&1"
same "other image: provisioned" "$(docker exec "$CTR" cat /etc/motd)" "other"
prop_run "$TMP/r7.out" "$TMP/site.lua"
same "back to the site's image: exit" "$rc" 0
same "back to the site's image: reachable" "$(fetch_published)" "served by prop-test"

# ---- dockerd unreachable ----------------------------------------------------------------
DOCKER_HOST="unix://$TMP/no-dockerd.sock" prop_run "$TMP/d.out" "$TMP/site.lua"
same "dead dockerd: exit" "$rc" 1
check "dead dockerd: named" grep -q "dockerd is not reachable" "$TMP/d.out"
check "dead dockerd: the container is refused" grep -q "\"host\":\"localhost/$CTR\".*\"refused\":true" "$TMP/d.out"

# ---- revert removes the container, keeps the image ----------------------------------
sed 's/^  docker.running(web),/  revert(docker.running(web)),/' "$TMP/site.lua" >"$TMP/revert.lua"
prop_run "$TMP/v.out" "$TMP/revert.lua"
same "revert: exit" "$rc" 0
check "revert: the container is gone" bash -c "! docker container inspect $CTR >/dev/null 2>&1"
check "revert: its state image is gone" bash -c "! docker image inspect $CTR:prop-state >/dev/null 2>&1"
check "revert: the image is kept" has_image "$IMG"
check "revert: the container is not run" bash -c "! grep -q 'localhost/$CTR' '$TMP/v.out'"
prop_run "$TMP/v2.out" "$TMP/revert.lua"
same "revert again: nothing to do" "$(host_count "$TMP/v2.out" localhost changed)" 0

# ---- a container prop did not make is not replaced ------------------------------------
docker run -d --name "$CTR" "$IMG" sleep infinity >/dev/null
prop_run "$TMP/o.out" "$TMP/site.lua"
same "foreign container: exit" "$rc" 1
check "foreign container: says why" grep -q "prop did not make" "$TMP/o.out"
same "foreign container: left alone" "$(docker inspect --format '{{index .Config.Labels "prop.image"}}' "$CTR")" ""
docker rm -f "$CTR" >/dev/null

# ---- an image named by a string, which docker already has: nothing pulled ----
TAG="prop-test-named-$$"
CTR2="prop-test-named-$$"
on_exit "docker image rm -f $TAG"
on_exit "docker rm -f $CTR2"
docker tag "$IMG" "$TAG"
cat >"$TMP/named.lua" <<EOF
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  docker.running(docker.container("$CTR2", "$TAG", { file.has_content("/etc/motd", "named\\n") })),
}
EOF
prop_run "$TMP/n.out" "$TMP/named.lua"
same "named image: exit" "$rc" 0
check "named image: not pulled" bash -c "! grep -q 'pulled' '$TMP/n.out'"
same "named image: provisioned (its OS found inside)" "$(docker exec "$CTR2" cat /etc/motd)" "named"
docker rm -f "$CTR2" >/dev/null

# ---- bad arguments --------------------------------------------------------------------------
cat >"$TMP/bad.lua" <<EOF
local img = docker.image("Bad Name", os.debian("$SUITE", "$ARCH"))
local c = docker.container("prop-test-x", "debian:bookworm", {
  docker.publish(0, 80),
  docker.volume("relative", "/data"),
  docker.env("1X", "y"),
})
host "localhost" { os.debian("$SUITE", "$ARCH"), docker.running(c), docker.running(42) }
EOF
run_prop "$TMP/l.out" lint "$TMP/bad.lua"
same "lint: exit" "$rc" 2
for line in 1 3 4 5 7; do
  check "lint: P012 at line $line" grep -q "bad.lua:$line: error\[P012\]" "$TMP/l.out"
done
same "lint: five errors" "$(grep -c 'error\[P012\]' "$TMP/l.out")" 5

finish
