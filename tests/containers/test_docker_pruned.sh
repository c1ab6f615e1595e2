#!/usr/bin/env bash
# docker.pruned with this machine's dockerd, limited by a label of the
# test's own (nothing else on the daemon is touched): a dangling image and
# a stopped container carrying the label are pruned, a tagged image with
# it is kept; a dry run removes nothing; a second run, with nothing to
# prune, is ok; bad arguments are P012 at their lines.  Every image and
# container is named prop-test-* or carries the label, and is removed on
# exit.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

docker_up

L="prop-test-prune-$$"
KEEP="prop-test-keep-$$"
CTR="prop-test-prune-$$"
on_exit "docker image ls -q --filter label=$L | xargs -r docker image rm -f"
on_exit "docker container rm -f $CTR"
on_exit "docker image rm -f $KEEP"

tar -cf "$TMP/empty.tar" -T /dev/null
DANGLING="$(docker import -c "LABEL $L=1" "$TMP/empty.tar")"
docker import -c "LABEL $L=1" "$TMP/empty.tar" "$KEEP" >/dev/null
docker container create --label "$L=1" --name "$CTR" "$KEEP" /nonexistent >/dev/null
has_image() { docker image inspect "$1" >/dev/null 2>&1; }
has_ctr() { docker container inspect "$1" >/dev/null 2>&1; }
check "setup: the dangling image" has_image "$DANGLING"
check "setup: the stopped container" has_ctr "$CTR"

cat >"$TMP/site.lua" <<SITE
host "localhost" { docker.pruned { images = true, containers = true, label = "$L" } }
SITE
prop_run "$TMP/d.out" "$TMP/site.lua" --dry-run
expect_run "dry run: would change" "$TMP/d.out" 0 1 0 0
check "dry run: the image is still there" has_image "$DANGLING"
check "dry run: the container is still there" has_ctr "$CTR"

prop_run "$TMP/r1.out" "$TMP/site.lua"
expect_run "pruned: changed" "$TMP/r1.out" 0 1 0 0
if has_ctr "$CTR"; then fail "pruned: the stopped container is gone" "it is still there"; else pass; fi
if has_image "$DANGLING"; then fail "pruned: the dangling image is gone" "it is still there"; else pass; fi
check "pruned: the tagged image is kept" has_image "$KEEP"
check "pruned: said what went" grep -q 'pruned 1 container' "$TMP/r1.out"

prop_run "$TMP/r2.out" "$TMP/site.lua"
expect_run "nothing to prune: ok" "$TMP/r2.out" 0 0 1 0

cat >"$TMP/bad.lua" <<'SITE'
host "a" { docker.pruned {} }
host "b" { docker.pruned { images = "yes" } }
host "c" { docker.pruned "images" }
host "d" { docker.pruned { imgs = true } }
SITE
run_prop "$TMP/bad.out" lint "$TMP/bad.lua"
same "bad arguments: lint exit" "$rc" 2
for l in 1 2 3 4; do
  check "bad arguments: P012 at line $l" grep -q "bad.lua:$l: error\[P012\]" "$TMP/bad.out"
done

finish
