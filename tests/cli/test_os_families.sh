#!/usr/bin/env bash
# The Red Hat family and Arch Linux in the OS lattice: os.rhel, os.fedora,
# os.centos/rocky/alma, os.arch declare their families; P002 names them;
# groups RedHatLike, ArchLinux and Linux type properties; prop run reads
# a target's /etc/os-release (here of connect.dir trees) to find them.
set -uo pipefail
. "$(dirname "$0")/common.sh"
cd "$TMP"

# -- Declarations: each family, its type, its info ----------------------
cat >decl.lua <<'S'
host "r" { os.rhel("9", "amd64") }
host "c" { os.centos("9", "amd64") }
host "k" { os.rocky("9.4", "arm64") }
host "m" { os.alma(9, "amd64") }
host "f" { os.fedora("41", "amd64") }
host "a" { os.arch "amd64" }
S
OUT=$TMP/decl.out
run_prop "$OUT" lint decl.lua
expect_rc "the declarations lint clean" 0
run_prop "$OUT" show decl.lua
expect_in "show: each declaration and its family" "$OUT" \
  'os.rhel "9" amd64' 'os.centos "9" amd64' 'os.rocky "9.4" arm64' 'os.alma "9" amd64' \
  'os.fedora "41" amd64' 'os.arch amd64'

# A role sees the family in h.os, the release in h.suite, and the os info.
cat >role.lua <<'S'
local function saw(h)
  return property { desc = "saw " .. h.os .. " " .. tostring(h.suite) .. " " .. h.arch
                    .. " [" .. tostring(h.info.os[1]) .. "]", apply = function() end }
end
host "r" { os.rhel("9", "amd64"), saw }
host "k" { os.rocky("9.4", "arm64"), saw }
host "f" { os.fedora("rawhide", "amd64"), saw }
host "a" { os.arch("arm64"), saw }
S
OUT=$TMP/role.out
run_prop "$OUT" show role.lua
expect_in "roles see h.os, h.suite, h.arch and the os info" "$OUT" \
  'saw rhel 9 amd64 [rhel 9 amd64]' 'saw rhel 9.4 arm64 [rhel 9.4 arm64]' \
  'saw fedora rawhide amd64 [fedora rawhide amd64]' 'saw arch rolling arm64 [arch rolling arm64]'

# -- Bad declarations: P012 at the line, with the reason ------------------
cat >bad.lua <<'S'
host "b1" { os.rhel("", "amd64") }
host "b2" { os.fedora("41", "x86_64") }
host "b3" { os.arch() }
host "b4" { os.arch("amd64", { release = "2024" }) }
host "b5" { os.rocky({}, "amd64") }
host "b6" { os.redhat("9", "amd64") }
S
OUT=$TMP/bad.out
run_prop "$OUT" lint bad.lua
expect_rc "bad declarations fail" 2
expect_in "bad declarations: each reported at its line" "$OUT" \
  'bad.lua:1: error[P012]: os.rhel: release must' \
  'bad.lua:2: error[P012]: os.fedora: arch "x86_64" is not one of amd64, arm64, i386, armhf, armel, ppc64el, s390x, riscv64 (did you mean "amd64"?)' \
  'bad.lua:3: error[P012]: os.arch: arch must be one of' \
  'bad.lua:4: error[P012]: unknown key "release" for os.arch' \
  'bad.lua:5: error[P012]: os.rocky: release must' \
  'bad.lua:6:'

# -- P002: properties typed for another family ---------------------------
cat >p002.lua <<'S'
local rh = property { desc = "rh only", targets = "RedHatLike", apply = function() end }
local ar = property { desc = "arch only", targets = "ArchLinux", apply = function() end }
local lx = property { desc = "linux only", targets = "Linux", apply = function() end }
host "r1" { os.rocky("9", "amd64"), apt.installed "nginx" }
host "d1" { os.debian("bookworm", "amd64"), rh }
host "f1" { os.fedora("41", "amd64"), rh, lx }
host "a1" { os.arch "amd64", rh }
host "a2" { os.arch "amd64", ar, lx }
host "b1" { os.freebsd("14.1-RELEASE", "amd64"), lx }
host "k1" { os.alma("9", "amd64"), pkg.installed "nginx" }
S
OUT=$TMP/p002.out
run_prop "$OUT" lint p002.lua
expect_rc "P002 errors fail the lint" 2
expect_in "P002 for each misplaced property" "$OUT" \
  'p002.lua:4: error[P002]: "apt installed nginx" runs only on DebianLike, but host "r1" is rhel' \
  'error[P002]: "rh only" runs only on RedHatLike, but host "d1" is debian' \
  'p002.lua:5: note: host "d1" declared debian here' \
  'error[P002]: "rh only" runs only on RedHatLike, but host "a1" is arch' \
  'p002.lua:7: note: host "a1" declared arch here' \
  'error[P002]: "linux only" runs only on Linux, but host "b1" is freebsd' \
  'p002.lua:9: note: host "b1" declared freebsd here' \
  'p002.lua:10: error[P002]: "pkg installed nginx" runs only on FreeBSD, but host "k1" is rhel' \
  'p002.lua:4: note: host "r1" declared rhel here'
expect_not_in "a fedora host takes RedHatLike and Linux" "$OUT" 'host "f1"'
expect_not_in "an arch host takes ArchLinux and Linux" "$OUT" 'host "a2"'

# A host without os.*: RedHatLike and DebianLike properties together are P003.
cat >p003.lua <<'S'
host "x" { apt.installed "nginx", property { desc = "rh", targets = "RedHatLike", apply = function() end } }
S
OUT=$TMP/p003.out
run_prop "$OUT" lint p003.lua
expect_in "P003 names both groups" "$OUT" 'error[P003]' 'runs only on RedHatLike' 'runs only on DebianLike'

# An unknown group name in targets is refused with the list of names.
cat >targets.lua <<'S'
host "x" { property { desc = "t", targets = "RedHat", apply = function() end } }
S
OUT=$TMP/targets.out
run_prop "$OUT" lint targets.lua
expect_rc "an unknown targets name fails" 2
expect_in "the known names are listed" "$OUT" 'RedHatLike, ArchLinux, FreeBSD, Linux or UnixLike'

# -- prop run: the target's os-release types a host without os.* -----------
# mktree DIR OS-RELEASE-TEXT: a files-only tree with that os-release.
mktree() {
  mkdir -p "$1/etc"
  printf '%s' "$2" >"$1/etc/os-release"
}
mktree rocky 'NAME="Rocky Linux"
ID="rocky"
ID_LIKE="rhel centos fedora"
VERSION_ID="9.4"
'
mktree manjaro 'NAME="Manjaro Linux"
ID=manjaro
ID_LIKE=arch
'
mktree deb 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
ID=debian
'
cat >detect.lua <<S
local function marker(targets)
  return property {
    desc = "marker for " .. targets, targets = targets,
    claims = { files = { "/etc/marker" } },
    apply = function(sys) sys:write("/etc/marker", tostring(sys.os) .. "\n") end,
  }
end
host "rh-on-rocky" { connect.dir "$TMP/rocky", marker "RedHatLike" }
host "arch-on-manjaro" { connect.dir "$TMP/manjaro", marker "ArchLinux" }
host "rh-on-debian" { connect.dir "$TMP/deb", marker "RedHatLike" }
S
OUT=$TMP/detect.out
run_prop "$OUT" run detect.lua
expect_in "a RedHatLike host runs on a Rocky tree" "$OUT" 'rh-on-rocky: 0 ok, 1 changed, 0 failed'
expect_in "an ArchLinux host runs on a Manjaro tree" "$OUT" 'arch-on-manjaro: 0 ok, 1 changed, 0 failed'
expect_in "a RedHatLike host is refused on a Debian tree" "$OUT" \
  'rh-on-debian  refused: the target runs debian, but the properties of host rh-on-debian run only on RedHatLike'
if [[ "$(cat rocky/etc/marker 2>/dev/null)" == rhel ]]; then pass; else fail "sys.os is rhel on rocky" "$(cat rocky/etc/marker 2>&1)"; fi
if [[ "$(cat manjaro/etc/marker 2>/dev/null)" == arch ]]; then pass; else fail "sys.os is arch on manjaro" "$(cat manjaro/etc/marker 2>&1)"; fi
if [[ ! -e deb/etc/marker ]]; then pass; else fail "the refused tree is untouched" "deb/etc/marker exists"; fi

# -- services: systemd units on the Red Hat family and Arch -----------------
# A tree has no /run/systemd/system: service.enabled says why it cannot
# enable a unit there, instead of trying Debian's update-rc.d.
mkdir -p svc/etc
cat >svc.lua <<S
host "svc" { connect.dir "$TMP/svc", os.alma("9", "amd64"), service.enabled "httpd" }
S
OUT=$TMP/svc.out
run_prop "$OUT" run svc.lua
expect_rc "service.enabled without systemd on rhel fails" 1
expect_in "service.enabled without systemd on rhel: the reason" "$OUT" \
  'service.enabled: systemd is not running on this rhel target (no /run/systemd/system): its services are enabled with systemctl'
expect_not_in "service.enabled without systemd on rhel: no update-rc.d" "$OUT" 'update-rc.d'

finish
