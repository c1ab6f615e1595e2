#!/usr/bin/env bash
# dnf, pacman and packages.* as the checker sees them: each typed to its
# family (P002 with file and line for apt on RHEL, dnf on Debian, ...),
# their claims (P008 across managers, installroot/root trees apart), bad
# arguments (P012), and packages.* choosing apt, dnf, pacman or pkg by
# the target's OS at run time (connect.dir trees with an os-release: the
# recipe chosen names itself when the tree refuses its command).
set -uo pipefail
. "$(dirname "$0")/common.sh"
cd "$TMP"

# -- P002: each manager on its own family only ------------------------------
cat >p002.lua <<'S'
host "deb" { os.debian("bookworm", "amd64"),
  dnf.installed "httpd",
  pacman.installed "nginx",
  dnf.upgraded(),
}
host "rocky" { os.rocky("9", "amd64"),
  apt.installed "nginx",
  pacman.upgraded(),
}
host "arch" { os.arch "amd64",
  dnf.removed "telnet",
}
host "bsd" { os.freebsd("14.1-RELEASE", "amd64"), dnf.update() }
host "fine" { os.alma("9", "amd64"), dnf.installed { "httpd", "mod_ssl" }, dnf.removed "telnet",
  dnf.update(), dnf.upgraded(), packages.installed "git", packages.upgraded() }
host "fine2" { os.fedora("41", "amd64"), dnf.installed "httpd" }
host "fine3" { os.arch "amd64", pacman.installed { "nginx", "python-pip" }, pacman.removed "vi",
  pacman.upgraded(), packages.removed "telnet" }
S
OUT=$TMP/p002.out
run_prop "$OUT" lint p002.lua
expect_rc "P002 fails the lint" 2
expect_in "P002 at the line of each misplaced property" "$OUT" \
  'p002.lua:2: error[P002]: "dnf installed httpd" runs only on RedHatLike, but host "deb" is debian' \
  'p002.lua:3: error[P002]: "pacman installed nginx" runs only on ArchLinux, but host "deb" is debian' \
  'p002.lua:4: error[P002]: "dnf upgraded" runs only on RedHatLike, but host "deb" is debian' \
  'p002.lua:7: error[P002]: "apt installed nginx" runs only on DebianLike, but host "rocky" is rhel' \
  'p002.lua:8: error[P002]: "pacman upgraded" runs only on ArchLinux, but host "rocky" is rhel' \
  'p002.lua:11: error[P002]: "dnf removed telnet" runs only on RedHatLike, but host "arch" is arch' \
  'p002.lua:13: error[P002]: "dnf update" runs only on RedHatLike, but host "bsd" is freebsd' \
  'p002.lua:1: note: host "deb" declared debian here'
for h in fine fine2 fine3; do
  expect_not_in "host $h: every property fits" "$OUT" "host \"$h\""
done
expect_in "seven errors" "$OUT" 'p002.lua: 7 errors'

# A host without os.*: dnf and apt together cannot share one system (P003).
cat >p003.lua <<'S'
host "mixed" { apt.installed "nginx", dnf.installed "httpd" }
host "rh" { dnf.installed "httpd", packages.installed "git" }
S
OUT=$TMP/p003.out
run_prop "$OUT" lint p003.lua
expect_in "P003 for apt with dnf" "$OUT" 'p003.lua:1: error[P003]' 'runs only on RedHatLike' \
  'runs only on DebianLike'
expect_not_in "dnf with packages.* is fine" "$OUT" 'host "rh"'

# P005: one props cannot hold dnf and pacman (no system runs both).
cat >p005.lua <<'S'
local both = props { dnf.installed "httpd",
  pacman.installed "nginx" }
host "h" { both }
S
OUT=$TMP/p005.out
run_prop "$OUT" lint p005.lua
expect_in "P005 for dnf with pacman in one props" "$OUT" \
  'p005.lua:1: error[P005]: cannot combine "dnf installed httpd" (RedHatLike) with "pacman installed nginx" (ArchLinux) in props' \
  'p005.lua:2: note: "pacman installed nginx" runs only on ArchLinux'

# -- types as prop show gives them ---------------------------------------------
cat >types.lua <<'S'
host "r" { os.rhel("9", "amd64"), dnf.installed "httpd", packages.installed "git" }
host "a" { os.arch "amd64", pacman.installed { "nginx", root = "/mnt" } }
S
OUT=$TMP/types.out
run_prop "$OUT" show types.lua
expect_in "show: the types" "$OUT" \
  'dnf installed httpd : RedHatLike, revertable' \
  'pacman installed nginx in /mnt : ArchLinux, revertable' \
  'packages installed git : UnixLike, revertable' \
  'if ArchLinux: pacman installed git : ArchLinux, revertable' \
  'if RedHatLike: dnf installed git : RedHatLike, revertable' \
  'if DebianLike: apt installed git : DebianLike, revertable' \
  'if FreeBSD: pkg installed git : FreeBSD, revertable' \
  'claims package.installed nginx in /mnt'

# -- claims ---------------------------------------------------------------------
cat >claims.lua <<'S'
host "r" { os.rocky("9", "amd64"), dnf.installed "httpd", dnf.removed "httpd" }
host "img" { os.rocky("9", "amd64"), dnf.installed { "httpd", installroot = "/srv/img" },
  dnf.removed "httpd" }
host "a" { os.arch "amd64", packages.installed "nginx", pacman.removed "nginx" }
S
OUT=$TMP/claims.out
run_prop "$OUT" lint claims.lua
expect_in "P008: installed and removed on one host" "$OUT" \
  'claims.lua:1: error[P008]: package "httpd" must be removed here but installed at claims.lua:1' \
  'claims.lua:4: error[P008]: package "nginx" must be removed here but installed at claims.lua:4'
expect_not_in "a package in a tree is not the host's" "$OUT" 'claims.lua:2:'

# -- bad arguments: P012 with the reason ---------------------------------------
cat >bad.lua <<'S'
host "x" { os.fedora("41", "amd64"),
  dnf.installed { "httpd", installroot = "srv" },
  dnf.installed({ "a", installroot = "/x" }, { installroot = "/y" }),
  dnf.removed { "b", instalroot = "/x" },
  dnf.installed {},
  dnf.installed "bad name",
  dnf.upgraded { root = "/x" },
  dnf.update(1),
  pacman.installed { "Bad Name" },
  pacman.removed("vi", { installroot = "/x" }),
  packages.installed "Git",
  packages.removed {},
  packages.upgraded(1),
}
S
OUT=$TMP/bad.out
run_prop "$OUT" lint bad.lua
expect_rc "bad arguments fail" 2
expect_in "each bad argument at its line" "$OUT" \
  'bad.lua:2: error[P012]: dnf.installed: installroot must be an absolute path' \
  'bad.lua:3: error[P012]: dnf.installed: options are given twice (in the list and after it)' \
  'bad.lua:4: error[P012]: unknown key "instalroot" for dnf.removed (did you mean "installroot"?)' \
  'bad.lua:5: error[P012]: dnf.installed: packages must not be an empty list' \
  'bad.lua:6: error[P012]: dnf.installed: packages "bad name" is not valid: expected an RPM package name' \
  'bad.lua:7: error[P012]: unknown key "root" for dnf.upgraded (expected installroot, releasever)' \
  'bad.lua:8: error[P012]: dnf.update takes no arguments' \
  'bad.lua:9: error[P012]: pacman.installed: packages[1] "Bad Name" is not valid: expected an Arch Linux package name' \
  'bad.lua:10: error[P012]: unknown key "installroot" for pacman.removed' \
  'bad.lua:11: error[P012]: packages.installed: packages "Git" is not valid' \
  'bad.lua:12: error[P012]: packages.removed: packages must not be an empty list' \
  'bad.lua:13: error[P012]: packages.upgraded takes no arguments'

# -- packages.*: the target's OS picks the manager at run time ------------------
mkdir -p rocky/etc alma/etc fedora/etc arch/etc deb/etc bsd/etc
printf 'NAME="Rocky Linux"\nID="rocky"\nID_LIKE="rhel centos fedora"\n' >rocky/etc/os-release
printf 'NAME="AlmaLinux"\nID="almalinux"\nID_LIKE="rhel centos fedora"\n' >alma/etc/os-release
printf 'NAME="Fedora Linux"\nID=fedora\n' >fedora/etc/os-release
printf 'NAME="Arch Linux"\nID=arch\n' >arch/etc/os-release
printf 'NAME="Debian GNU/Linux"\nID=debian\n' >deb/etc/os-release
printf 'NAME=FreeBSD\nID=freebsd\n' >bsd/etc/os-release
cat >pick.lua <<S
for _, t in ipairs { "rocky", "alma", "fedora", "arch", "deb", "bsd" } do
  host(t, { connect.dir("$TMP/" .. t), packages.installed "git", packages.upgraded() })
end
S
OUT=$TMP/pick.out
run_prop "$OUT" run pick.lua --dry-run
for pair in rocky:dnf alma:dnf fedora:dnf arch:pacman deb:apt bsd:pkg; do
  h=${pair%%:*} m=${pair#*:}
  expect_in "packages.* on $h: $m" "$OUT" "$h    failed: $m installed git:" \
    "$h    failed: $m upgraded:"
done
expect_in "the trees refuse commands, nothing else" "$OUT" 'commands do not run in a directory tree'

# dnf on a release whose package manager is yum: P002 that says so.
cat >yum.lua <<'S'
host "c6" { os.centos("6", "amd64"), dnf.installed "nginx" }
host "f21" { os.fedora("21", "amd64"), packages.installed "git" }
host "c8" { os.centos("8", "amd64"), dnf.installed "nginx" }
S
OUT=$TMP/yum.out
run_prop "$OUT" lint yum.lua
expect_in "dnf on CentOS 6 and Fedora 21: P002, yum named" "$OUT" \
  'yum.lua:1: error[P002]: "dnf installed nginx" runs dnf, but host "c6" is RHEL (or a rebuild) 6, whose package manager is yum' \
  'yum.lua:2: error[P002]: "packages installed git" runs dnf, but host "f21" is Fedora 21, whose package manager is yum (dnf is Fedora'"'"'s from release 22 on)'
if grep -q 'yum.lua:3:' "$OUT" || [[ "$rc" != 2 ]]; then
  fail "dnf on CentOS 8 is fine, the others fail the lint" "exit $rc" "$OUT"
else
  pass
fi

finish
