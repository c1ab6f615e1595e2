#!/usr/bin/env bash
# sys.facts inside a container: a bookworm chroot (from the cached
# tarball) whose facts come from inside the tree (its os-release, its
# dpkg) through the container's transport, gathered once per host: an
# nproc put first on the tree's PATH logs each call, and the gathering
# command runs it once however many of the container's properties ask.
# The parent host has its own facts.  The tree has no ip(8): the
# addresses are absent, and that is no error.  Everything is below the
# scratch directory.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

rootfs_cache
T="$TMP/trees"
mkdir -p "$T"
cat >"$TMP/dump.lua" <<'EOF'
return function(f)
  local keys, out = {}, {}
  for k in pairs(f) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, k in ipairs(keys) do
    local v = f[k]
    if k ~= "interfaces" then
      out[#out + 1] = k .. "=" .. (type(v) == "table" and table.concat(v, " ") or tostring(v))
    end
  end
  return table.concat(out, "\n") .. "\n"
end
EOF
cat >"$TMP/site.lua" <<EOF
local dump = require "dump"
local web = chroot.debootstrapped("$T/web", os.debian("$SUITE", "$ARCH"), {
  file.has_content("/etc/facts", dump),
  property {
    desc = "kernel in check", claims = { files = { "/etc/prop-kernel" } },
    check = function(sys) return sys:read("/etc/prop-kernel") == sys.facts.kernel .. "\n" end,
    apply = function(sys) sys:write("/etc/prop-kernel", sys.facts.kernel .. "\n") end,
  },
  file.has_content("/etc/motd", "bookworm\n"):only_if(function(sys)
    return sys.facts.os_codename == "bookworm"
  end),
}, { cache = "$ROOTFS_CACHE" })
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  chroot.provisioned(web),
  file.has_content("$TMP/parent-facts", dump),
}
EOF

prop_run "$TMP/r1.out" "$TMP/site.lua"
same "first run: exit" "$rc" 0
same "first run: the container's properties" \
  "$(changed_failed "$TMP/r1.out" localhost/web)" "3/0"
fact() { sed -n "s/^$2=//p" "$1"; }
F="$T/web/etc/facts"
# shellcheck disable=SC1091
want_release="$(. "$T/web/etc/os-release" && echo "$VERSION_ID")"
same "inside: os_id" "$(fact "$F" os_id)" debian
same "inside: os_codename" "$(fact "$F" os_codename)" "$SUITE"
same "inside: os_release, the tree's" "$(fact "$F" os_release)" "$want_release"
same "inside: dpkg_arch, the tree's dpkg" "$(fact "$F" dpkg_arch)" "$(chroot "$T/web" dpkg --print-architecture)"
same "inside: kernel, shared with this machine" "$(fact "$F" kernel)" "$(uname -r)"
same "inside: cpus" "$(fact "$F" cpus)" "$(nproc)"
same "inside: not a tree (commands ran)" "$(fact "$F" tree)" ""
# A minbase tree has no ip(8): no default addresses, and no error either.
check "inside: the tree has no ip(8)" test ! -e "$T/web/usr/sbin/ip" -a ! -e "$T/web/bin/ip"
same "inside: no ipv4 without ip(8)" "$(fact "$F" ipv4)" ""
same "inside: no ipv6 without ip(8)" "$(fact "$F" ipv6)" ""
same "inside: kernel in check" "$(cat "$T/web/etc/prop-kernel")" "$(uname -r)"
same "inside: only_if on facts" "$(cat "$T/web/etc/motd")" bookworm
# shellcheck disable=SC1091
same "parent: its own os_id" "$(fact "$TMP/parent-facts" os_id)" "$(. /etc/os-release && echo "$ID")"

# A counting nproc first on the tree's PATH, and changed content, so that
# every property of the container asks for facts again.
cat >"$T/web/usr/local/bin/nproc" <<'EOF'
#!/bin/sh
echo called >>/tmp/nproc.log
exec /usr/bin/nproc "$@"
EOF
chmod 755 "$T/web/usr/local/bin/nproc"
rm -f "$T/web/etc/facts" "$T/web/etc/prop-kernel" "$T/web/etc/motd" "$T/web/tmp/nproc.log"
PATH="/usr/local/sbin:/usr/local/bin:$PATH" prop_run "$TMP/r2.out" "$TMP/site.lua"
same "second run: exit" "$rc" 0
same "second run: the container's properties changed again" \
  "$(host_count "$TMP/r2.out" localhost/web changed)" 3
same "second run: one gathering for the container" "$(wc -l <"$T/web/tmp/nproc.log" | tr -d ' ')" 1
same "second run: the facts are the same" "$(fact "$F" os_id)/$(fact "$F" cpus)" "debian/$(nproc)"

finish
