#!/usr/bin/env bash
# A chroot container on a host reached over SSH (a throwaway sshd on
# loopback): the tree made through the SSH transport, then provisioned
# through a shell inside it started over that same SSH session (the
# container's transport stacked on the parent's), twice, the second time
# with no change; a file with bytes a shell would mangle gets through
# whole; a command missing inside fails cleanly; writes inside, sent
# without waiting, fail exactly the property that made them.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
source "$PROP_SOURCE_DIR/tests/ssh/common.sh"

rootfs_cache
ssh_start box
T="$TMP/trees"
cat >"$TMP/site.lua" <<EOF
local web = chroot.from_tarball("$T/web", os.debian("$SUITE", "$ARCH"), "$ROOTFS", {
  file.has_content("/etc/motd", "over ssh\n"),
  file.has_content("/srv/odd", "a\1b \\\\ \$(id) \`x\` %s\n\255\n"),
  user.account "webapp",
})
host "box" {
  connect.ssh { address = "$SSH_HOST", port = $SSH_PORT, identity = "$SSH_KEY",
                known_hosts = "$SSH_KNOWN_HOSTS" },
  os.debian("$SUITE", "$ARCH"),
  chroot.provisioned(web),
}
EOF
prop_run "$TMP/r1.out" "$TMP/site.lua"
same "over ssh: exit" "$rc" 0
same "over ssh: the tree was made" "$(host_count "$TMP/r1.out" box changed)" 1
same "over ssh: provisioned inside" \
  "$(changed_failed "$TMP/r1.out" box/web)" "3/0"
check "over ssh: the container's events" grep -q '"host":"box/web","container":"web"' "$TMP/r1.out"
same "over ssh: the file" "$(cat "$T/web/etc/motd" 2>&1)" "over ssh"
check "over ssh: bytes a shell would mangle" \
  cmp "$T/web/srv/odd" <(printf 'a\001b \\ $(id) `x` %%s\n\377\n')
check "over ssh: the account" grep -q '^webapp:' "$T/web/etc/passwd"
check "over ssh: no process left in the tree" no_process_in "$T/web"

prop_run "$TMP/r2.out" "$TMP/site.lua"
same "over ssh, again: exit" "$rc" 0
same "over ssh, again: no change" \
  "$(host_count "$TMP/r2.out" box changed)/$(host_count "$TMP/r2.out" box/web changed)/$(host_count "$TMP/r2.out" box/web ok)" \
  "0/0/3"

# A program the tree lacks: a clean failure, named.
cat >"$TMP/missing.lua" <<EOF
local web = chroot.from_tarball("$T/web", os.debian("$SUITE", "$ARCH"), "$ROOTFS", {
  property { desc = "needs nginx", apply = function(sys) sys:run { "nginx", "-t" } return "ok" end },
})
host "box" {
  connect.ssh { address = "$SSH_HOST", port = $SSH_PORT, identity = "$SSH_KEY",
                known_hosts = "$SSH_KNOWN_HOSTS" },
  os.debian("$SUITE", "$ARCH"),
  chroot.provisioned(web),
}
EOF
prop_run "$TMP/m.out" "$TMP/missing.lua"
same "missing program: exit" "$rc" 1
check "missing program: named" grep -q 'nginx: command not found' "$TMP/m.out"

# Writes inside the container are sent without waiting over SSH: a failing
# one in the middle fails exactly its property, with the reason, nothing of
# that property runs after it, and on_change and fallback decide on it;
# --no-pipeline gives the same results.
cat >"$TMP/fail.lua" <<EOF
local web = chroot.from_tarball("$T/web", os.debian("$SUITE", "$ARCH"), "$ROOTFS", {
  file.has_content("/srv/p/a", "a\n"),
  file.has_content("/srv/p/nodir/x", "x\n"),
  file.has_content("/srv/p/b", "b\n"),
  property {
    desc = "two writes, the first fails",
    apply = function(sys)
      sys:write("/srv/p/nowhere/one", "1\n")
      sys:write("/srv/p/two", "2\n")
    end,
  },
  file.has_content("/srv/p/nodir/trig", "t\n"):on_change(file.has_content("/srv/p/triggered", "t\n")),
  file.has_content("/srv/p/changed", "c\n"):on_change(file.has_content("/srv/p/triggered2", "t\n")),
  file.has_content("/srv/p/nodir/fb", "f\n"):fallback(file.has_content("/srv/p/fallback", "f\n")),
  file.has_content("/srv/p/z", "z\n"),
})
host "box" {
  $(ssh_connect),
  os.debian("$SUITE", "$ARCH"),
  chroot.provisioned(web),
}
EOF
for mode in pipelined no-pipeline; do
  rm -rf "$T/web/srv/p" && mkdir -p "$T/web/srv/p"
  args=()
  [[ $mode == no-pipeline ]] && args=(--no-pipeline)
  prop_run "$TMP/f-$mode.out" "$TMP/fail.lua" "${args[@]}"
  same "$mode: exit" "$rc" 1
  # Every property, nested ones too: changed a, b, changed, triggered2,
  # fallback, z; failed nodir/x, the two writes, nodir/trig, nodir/fb's
  # first side.
  same "$mode: the container's counts" "$(changed_failed "$TMP/f-$mode.out" box/web)" "6/4"
  same "$mode: the failing write" "$(result_of "$TMP/f-$mode.out" '/srv/p/nodir/x')" failed
  check "$mode: the reason" grep -q 'nodir: no such directory' "$TMP/f-$mode.out"
  same "$mode: the files around it" "$(cat "$T/web/srv/p/a" "$T/web/srv/p/b" "$T/web/srv/p/z" | tr -d '\n')" "abz"
  check "$mode: nothing of a property after its failing write" test ! -e "$T/web/srv/p/two"
  check "$mode: a failed change triggers nothing" test ! -e "$T/web/srv/p/triggered"
  check "$mode: a change that held triggers" test -e "$T/web/srv/p/triggered2"
  same "$mode: fallback" "$(result_of "$TMP/f-$mode.out" '/srv/p/nodir/fb')/$(cat "$T/web/srv/p/fallback")" "changed/f"
done

finish
