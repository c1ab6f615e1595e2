#!/usr/bin/env bash
# SELinux's policy store for real, inside one Docker container made by
# the test (from the cached bookworm tree, with this machine's dockerd):
# prop installs Debian's policy and tools (selinux-policy-default,
# policycoreutils-python-utils, ...); the kernel here does not enforce
# SELinux, so everything goes to the store and /etc/selinux/config, as
# semanage and semodule do offline.  A boolean, a file context, a port
# type and a module compiled from a .te are set and read back from the
# store (semanage ... -l -C, semodule -l), the mode written to the
# config; a second run changes nothing; changes made behind prop's back
# are repaired; the reverts take them out again.  Every change rebuilds
# the policy (many seconds each): the changes behind prop's back are one
# semanage import.  The image and container are named prop-test-* and
# removed on exit.
#
# Installing Debian's policy compiles it, minutes of the test's time:
# once prop has installed it, the container's tree, back as it was (the
# reverts done, the mode as Debian ships it), is kept in the test cache
# (PROP_TEST_CACHE, as the bookworm tree is) and the next run starts its
# image from it, with the packages already there.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# ---- the checker, before anything runs -------------------------------------------
cat >"$TMP/bad.lua" <<'EOF'
host "h" {
  os.debian("bookworm", "amd64"),
  selinux.mode "enforced",
  selinux.port(70000, "tcp", "http_port_t"),
  selinux.fcontext("/srv/web", "httpd_sys_content"),
  selinux.module("other", { source = "module myapp 1.0;\n" }),
}
EOF
run_prop "$TMP/bad.out" lint "$TMP/bad.lua"
same "bad arguments: exit" "$rc" 2
check "a bad mode is P012 at its line" grep -q 'bad.lua:3: error\[P012\]: selinux.mode: mode must be "enforcing", "permissive" or "disabled", got "enforced"' "$TMP/bad.out"
check "a bad port" grep -q 'bad.lua:4: error\[P012\]: selinux.port: port 70000 is outside 1..65535' "$TMP/bad.out"
check "a bad type name" grep -q 'bad.lua:5: error\[P012\]: selinux.fcontext: type "httpd_sys_content" is not valid' "$TMP/bad.out"
check "a module whose source names another" grep -q 'bad.lua:6: error\[P012\]: selinux.module: source declares module "myapp", not "other"' "$TMP/bad.out"

cat >"$TMP/clash.lua" <<'EOF'
host "h" {
  os.debian("bookworm", "amd64"),
  selinux.boolean("httpd_can_network_connect", true),
  selinux.boolean("httpd_can_network_connect", false),
  selinux.port(8081, "tcp", "http_port_t"),
  selinux.port(8081, "udp", "dns_port_t"),
}
EOF
run_prop "$TMP/clash.out" lint "$TMP/clash.lua"
same "a boolean given two values: exit" "$rc" 2
check "it is P007 at its line" grep -q 'clash.lua:[34]: error\[P007\].*boolean httpd_can_network_connect' "$TMP/clash.out"
check "one port number in two protocols agrees" bash -c "! grep -q 'clash.lua:[56]:' '$TMP/clash.out'"

# ---- Docker -------------------------------------------------------------------------
docker_up
rootfs_cache
docker_test "prop-test-selinux-img-$$" "prop-test-selinux-$$"

TE='module proptest 1.0;\nrequire { type httpd_t; type var_t; class file { read }; }\nallow httpd_t var_t:file read;\n'

write_site() { # PROPERTIES...
  local extra
  extra="$(printf '  %s,\n' "$@")"
  cat >"$TMP/site.lua" <<EOF
local base = docker.image("$IMG", os.debian("$SUITE", "$ARCH"), { cache = "$ROOTFS_CACHE" })
local c = docker.container("$CTR", base, {
$extra
})
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  docker.running(c),
}
EOF
}

# ctr_result OUT DESC : the result of the container's property DESC.
ctr_result() {
  grep '"event":"property"' "$1" | grep -F "\"host\":\"localhost/$CTR\"" |
    grep -F "\"desc\":\"$2\"" | head -1 | sed -n 's/.*"result":"\([a-z]*\)".*/\1/p'
}
# results OUT : the results of the four store properties and the mode's.
results() {
  echo "$(ctr_result "$1" "selinux boolean httpd_can_network_connect on")" \
    "$(ctr_result "$1" "selinux fcontext /srv/prop(/.*)? httpd_sys_content_t")" \
    "$(ctr_result "$1" "selinux port tcp/18081 http_port_t")" \
    "$(ctr_result "$1" "selinux module proptest")" \
    "$(ctr_result "$1" "selinux mode enforcing")"
}
store_boolean() { inside semanage boolean -l -n -C | awk '$1 == "httpd_can_network_connect" { print $2 $3 $4 }'; }
store_fcontext() { inside semanage fcontext -l -n -C | awk '$1 == "/srv/prop(/.*)?" { print $NF }'; }
store_port() { inside semanage port -l -n -C | awk '$3 == "18081" { print $1, $2 }'; }
has_module() { inside semodule -l | grep -qx proptest; }
config_mode() { inside sed -n 's/^SELINUX=//p' /etc/selinux/config; }

PROPS=(
  'selinux.mode "enforcing"'
  'selinux.boolean("httpd_can_network_connect", true)'
  'selinux.fcontext("/srv/prop(/.*)?", "httpd_sys_content_t")'
  'selinux.port(18081, "tcp", "http_port_t")'
  "selinux.module(\"proptest\", { source = \"$TE\" })"
)

# ---- first run: the packages, then each change -----------------------------------
docker image rm -f "$IMG" >/dev/null 2>&1 || true
SELINUX_CACHE="$PROP_TEST_CACHE/selinux/$(basename "$ROOTFS" .tar.gz)-selinux.tar.gz"
cached=no
if [[ -f "$SELINUX_CACHE" ]] && docker import "$SELINUX_CACHE" "$IMG" >/dev/null 2>&1; then
  cached=yes
  echo "the image starts from $SELINUX_CACHE: the packages are there already"
fi
write_site "${PROPS[@]}"
start=$SECONDS
PROP_RUN_TIMEOUT=1500 prop_run "$TMP/r1.out" "$TMP/site.lua"
echo "first run (five changes; the packages installed unless the cache had them): $((SECONDS - start)) s"
same "first run: exit" "$rc" 0
same "first run: each changed" "$(results "$TMP/r1.out")" "changed changed changed changed changed"
if [[ "$cached" == no ]]; then
  check "the policy is installed by prop" grep -q 'installed: selinux-utils policycoreutils selinux-policy-default' "$TMP/r1.out"
fi
check "the policy and semanage are there" inside dpkg-query -W selinux-policy-default policycoreutils-python-utils
check "this kernel does not enforce" bash -c "! docker exec $CTR test -e /sys/fs/selinux/enforce"
same "the boolean is in the store" "$(store_boolean)" "(on,on)"
same "the file context too" "$(store_fcontext)" "system_u:object_r:httpd_sys_content_t:s0"
same "the port too" "$(store_port)" "http_port_t tcp"
check "the module is installed" has_module
same "the mode is written" "$(config_mode)" "enforcing"
check "the rest of the config is kept" inside grep -qx 'SELINUXTYPE=default' /etc/selinux/config
check "the mode: a note that only the file was written" grep -q 'the file only: a docker container shares its host' "$TMP/r1.out"
check "restorecon skipped, with a note" grep -q 'restorecon /srv/prop skipped: a docker container shares' "$TMP/r1.out"

# ---- a second run changes nothing --------------------------------------------------
start=$SECONDS
prop_run "$TMP/r2.out" "$TMP/site.lua"
echo "second run (nothing to do): $((SECONDS - start)) s"
same "second run: exit" "$rc" 0
same "second run: nothing changed" "$(changed_inside "$TMP/r2.out")" "0/0"

# ---- changed behind prop's back: repaired -------------------------------------------
inside sh -c 'printf "%s\n" "boolean -m --off httpd_can_network_connect" \
  "fcontext -m -f a -t var_t /srv/prop(/.*)?" "port -m -t ssh_port_t -p tcp 18081" | semanage import'
inside semodule -r proptest >/dev/null 2>&1
inside sed -i 's/^SELINUX=.*/SELINUX=permissive/' /etc/selinux/config
same "behind prop's back: the boolean is off" "$(store_boolean)" "(off,off)"
same "behind prop's back: the port is another type" "$(store_port)" "ssh_port_t tcp"
prop_run "$TMP/r3.out" "$TMP/site.lua"
same "repair: exit" "$rc" 0
same "repair: each changed" "$(results "$TMP/r3.out")" "changed changed changed changed changed"
same "repair: the boolean" "$(store_boolean)" "(on,on)"
same "repair: the file context" "$(store_fcontext)" "system_u:object_r:httpd_sys_content_t:s0"
same "repair: the port" "$(store_port)" "http_port_t tcp"
check "repair: the module" has_module
same "repair: the mode" "$(config_mode)" "enforcing"

# ---- a module with other content is replaced ------------------------------------------
# (its check compiles the source and compares with what semodule -E gives)
TE2='module proptest 1.1;\nrequire { type httpd_t; type var_t; class file { read getattr }; }\nallow httpd_t var_t:file { read getattr };\n'
write_site "selinux.module(\"proptest\", { source = \"$TE2\" })"
prop_run "$TMP/r4.out" "$TMP/site.lua"
same "new module source: exit" "$rc" 0
same "new module source: replaced" "$(ctr_result "$TMP/r4.out" "selinux module proptest")" changed
check "new module source: says so" grep -q 'module proptest replaced' "$TMP/r4.out"

# ---- the reverts take it all out ----------------------------------------------------
write_site 'revert(selinux.boolean("httpd_can_network_connect", true))' \
  'revert(selinux.fcontext("/srv/prop(/.*)?", "httpd_sys_content_t"))' \
  'revert(selinux.port(18081, "tcp", "http_port_t"))' \
  "revert(selinux.module(\"proptest\", { source = \"$TE2\" }))"
prop_run "$TMP/r5.out" "$TMP/site.lua"
same "revert: exit" "$rc" 0
same "revert: four changed" "$(changed_inside "$TMP/r5.out")" "4/0"
same "revert: the boolean is not customised" "$(store_boolean)" ""
same "revert: it has the policy's default again" \
  "$(inside semanage boolean -l -n | awk '$1 == "httpd_can_network_connect" { print $2 $3 $4 }')" "(off,off)"
same "revert: no file context" "$(store_fcontext)" ""
same "revert: no port" "$(store_port)" ""
check "revert: no module" bash -c "! docker exec $CTR semodule -l | grep -qx proptest"
prop_run "$TMP/r6.out" "$TMP/site.lua"
same "revert, again: nothing changed" "$rc/$(changed_inside "$TMP/r6.out")" "0/0/0"

# ---- the tree with the policy, kept for the next run ---------------------------------
# Not under CI: its machine is fresh each time, and the export would only
# cost time.
if [[ "$cached" == no && "$failed" == 0 && "${CI:-}" != true ]]; then
  inside sed -i 's/^SELINUX=.*/SELINUX=permissive/' /etc/selinux/config
  mkdir -p "$(dirname "$SELINUX_CACHE")"
  if docker export "$CTR" | gzip -1 >"$SELINUX_CACHE.tmp.$$"; then
    mv "$SELINUX_CACHE.tmp.$$" "$SELINUX_CACHE"
    echo "kept the tree with the policy in $SELINUX_CACHE"
  else
    rm -f "$SELINUX_CACHE.tmp.$$"
  fi
fi

finish
