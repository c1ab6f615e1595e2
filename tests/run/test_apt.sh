#!/usr/bin/env bash
# apt.* on this machine: a real install and removal of a small package,
# apt.update, apt.upgraded in a dry run, apt.std_sources_list in
# connect.dir trees, and a clean failure where apt cannot run.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

if ! command -v apt-get >/dev/null || ! command -v dpkg-query >/dev/null; then
  skip "not a Debian system"
fi
. /etc/os-release
SUITE="${VERSION_CODENAME:-bookworm}"
ARCH="$(dpkg --print-architecture)"
P=sl # small, no dependencies, not needed by anything

status() {
  dpkg-query -W -f '${db:Status-Abbrev}' "$1" 2>/dev/null | tr -d ' '
}
# What this test touches, to compare before and after a dry run (other
# programs may install packages on this machine meanwhile).
pkg_state() {
  echo "$(status $P) $([[ -e /usr/games/sl ]] && echo present || echo absent)"
}
versions() {
  dpkg-query -W -f '${Package} ${Version}\n' | LC_ALL=C sort
}
# changed_versions BEFORE-FILE : packages installed before and now whose
# version differs (what an upgrade would do).
changed_versions() {
  versions | LC_ALL=C join "$1" - | awk '$2 != $3' | wc -l | tr -d ' '
}
was="$(status $P)"
if [[ "$was" == ii ]]; then
  on_exit "apt-get install -y -q -o DPkg::Lock::Timeout=600 $P"
else
  on_exit "apt-get remove -y -q -o DPkg::Lock::Timeout=600 $P"
fi
# Start from "not installed".
if [[ "$was" == ii ]]; then apt-get remove -y -q -o DPkg::Lock::Timeout=600 $P >/dev/null 2>&1; fi
if ! apt-get install -s -q $P >/dev/null 2>&1; then
  # Not downloadable from the lists this machine has: refresh them once.
  apt-get update -q -o DPkg::Lock::Timeout=600 >/dev/null 2>&1
fi

cat >"$TMP/installed.lua" <<EOF
host "localhost" { os.debian("$SUITE", "$ARCH"), apt.installed "$P" }
EOF
cat >"$TMP/removed.lua" <<EOF
host "localhost" { os.debian("$SUITE", "$ARCH"), apt.removed "$P" }
EOF

before="$(pkg_state)"
prop_run "$TMP/i0.out" "$TMP/installed.lua" --dry-run
expect_run "installed, dry run: changed" "$TMP/i0.out" 0 1 0 0
same "installed, dry run: dpkg untouched" "$(pkg_state)" "$before"

prop_run "$TMP/i1.out" "$TMP/installed.lua"
expect_run "installed: changed" "$TMP/i1.out" 0 1 0 0
same "installed: dpkg says so" "$(status $P)" ii
check "installed: the program is there" test -x /usr/games/sl
prop_run "$TMP/i2.out" "$TMP/installed.lua"
expect_run "installed again: ok" "$TMP/i2.out" 0 0 1 0

before="$(pkg_state)"
prop_run "$TMP/r0.out" "$TMP/removed.lua" --dry-run
expect_run "removed, dry run: changed" "$TMP/r0.out" 0 1 0 0
same "removed, dry run: dpkg untouched" "$(pkg_state)" "$before"
prop_run "$TMP/r1.out" "$TMP/removed.lua"
expect_run "removed: changed" "$TMP/r1.out" 0 1 0 0
check "removed: dpkg says so" test "$(status $P)" != ii
check "removed: the program is gone" test ! -e /usr/games/sl
prop_run "$TMP/r2.out" "$TMP/removed.lua"
expect_run "removed again: ok" "$TMP/r2.out" 0 0 1 0

# The revert of apt.installed is apt.removed, and several packages at once
# take one apt-get; one of them already there.
cat >"$TMP/two.lua" <<EOF
host "localhost" { os.debian("$SUITE", "$ARCH"), apt.installed { "$P", "dpkg" } }
EOF
prop_run "$TMP/t1.out" "$TMP/two.lua"
expect_run "two packages: changed" "$TMP/t1.out" 0 1 0 0
same "two packages: installed" "$(status $P)" ii
cat >"$TMP/revert.lua" <<EOF
host "localhost" { os.debian("$SUITE", "$ARCH"), revert(apt.installed "$P") }
EOF
prop_run "$TMP/v1.out" "$TMP/revert.lua"
expect_run "revert(apt.installed): changed" "$TMP/v1.out" 0 1 0 0
check "revert: removed" test "$(status $P)" != ii

# A package apt does not know: apt.installed refreshes the lists once,
# then fails with apt's message.
cat >"$TMP/nosuch.lua" <<EOF
host "localhost" { os.debian("$SUITE", "$ARCH"), apt.installed "prop-test-no-such-package" }
EOF
prop_run "$TMP/n.out" "$TMP/nosuch.lua"
expect_run "unknown package fails" "$TMP/n.out" 1 0 0 1
check "unknown package: apt's message" grep -q 'Unable to locate package prop-test-no-such-package' "$TMP/n.out"

# apt.update: a second update right after the first finds nothing new.
cat >"$TMP/update.lua" <<EOF
host "localhost" { os.debian("$SUITE", "$ARCH"), apt.update() }
EOF
prop_run "$TMP/u1.out" "$TMP/update.lua"
same "update: runs without failing" "$rc/$(results "$TMP/u1.out" failed)" 0/0
lists="$(tree_state /var/lib/apt/lists | grep -v ' lock ')"
prop_run "$TMP/u2.out" "$TMP/update.lua"
if [[ "$(tree_state /var/lib/apt/lists | grep -v ' lock ')" == "$lists" ]]; then
  expect_run "update again, lists unchanged: ok" "$TMP/u2.out" 0 0 1 0
else
  expect_run "update again, lists changed: changed" "$TMP/u2.out" 0 1 0 0
fi
lists="$(tree_state /var/lib/apt/lists | grep -v ' lock ')"
prop_run "$TMP/u3.out" "$TMP/update.lua" --dry-run
expect_run "update, dry run: changed" "$TMP/u3.out" 0 1 0 0
same "update, dry run: lists untouched" "$(tree_state /var/lib/apt/lists | grep -v ' lock ')" "$lists"

# apt.upgraded only in a dry run: it must not upgrade this machine.
cat >"$TMP/upgraded.lua" <<EOF
host "localhost" { os.debian("$SUITE", "$ARCH"), apt.upgraded() }
EOF
versions >"$TMP/versions"
upgradable="$(apt-get -s -q dist-upgrade 2>/dev/null | grep -c '^Inst')"
prop_run "$TMP/g0.out" "$TMP/upgraded.lua" --dry-run
if [[ "$upgradable" == 0 ]]; then
  expect_run "upgraded, dry run, nothing to upgrade: ok" "$TMP/g0.out" 0 0 1 0
else
  expect_run "upgraded, dry run, $upgradable to upgrade: changed" "$TMP/g0.out" 0 1 0 0
  check "upgraded, dry run: says how many" grep -q "would upgrade $upgradable package" "$TMP/g0.out"
fi
same "upgraded, dry run: no version changed" "$(changed_versions "$TMP/versions")" 0
# A real run only when there is nothing to upgrade (the lists were just
# refreshed above): then it must say ok.
if [[ "$upgradable" == 0 ]]; then
  prop_run "$TMP/g1.out" "$TMP/upgraded.lua"
  expect_run "upgraded, nothing to upgrade: ok" "$TMP/g1.out" 0 0 1 0
fi

# apt.std_sources_list in trees: Debian, a mirror, Ubuntu on arm64.
D="$TMP/debian"
mkdir -p "$D/etc/apt"
echo "deb http://old.example/debian $SUITE main" >"$D/etc/apt/sources.list"
U="$TMP/ubuntu"
mkdir -p "$U/etc/apt"
cat >"$TMP/sources.lua" <<EOF
host "deb" { connect.dir "$D", os.debian("bookworm", "amd64"), apt.std_sources_list() }
host "mirror" { connect.dir "$TMP/mirror", os.debian("trixie", "amd64"),
                apt.std_sources_list "http://ftp.fr.debian.org/debian/" }
host "sid" { connect.dir "$TMP/sid", os.debian("sid", "amd64"), apt.std_sources_list() }
host "ubuntu" { connect.dir "$U", os.buntish("24.04", "arm64"), apt.std_sources_list() }
EOF
mkdir -p "$TMP/mirror/etc/apt" "$TMP/sid/etc/apt"
before="$(tree_state "$D" "$U" "$TMP/mirror" "$TMP/sid")"
prop_run "$TMP/s0.out" "$TMP/sources.lua" --dry-run
expect_run "sources, dry run: changed" "$TMP/s0.out" 0 4 0 0
same "sources, dry run: untouched" "$(tree_state "$D" "$U" "$TMP/mirror" "$TMP/sid")" "$before"
prop_run "$TMP/s1.out" "$TMP/sources.lua"
expect_run "sources: written" "$TMP/s1.out" 0 4 0 0
same "sources: debian" "$(grep -v '^#' "$D/etc/apt/sources.list")" \
"deb http://deb.debian.org/debian bookworm main contrib non-free non-free-firmware
deb http://deb.debian.org/debian bookworm-updates main contrib non-free non-free-firmware
deb http://deb.debian.org/debian-security bookworm-security main contrib non-free non-free-firmware"
same "sources: mode" "$(mode_of "$D/etc/apt/sources.list")" 0644
same "sources: mirror" "$(grep -v '^#' "$TMP/mirror/etc/apt/sources.list" | head -2)" \
"deb http://ftp.fr.debian.org/debian trixie main contrib non-free non-free-firmware
deb http://ftp.fr.debian.org/debian trixie-updates main contrib non-free non-free-firmware"
same "sources: sid has one line" "$(grep -v '^#' "$TMP/sid/etc/apt/sources.list")" \
  "deb http://deb.debian.org/debian sid main contrib non-free non-free-firmware"
same "sources: ubuntu ports, codename" "$(grep -v '^#' "$U/etc/apt/sources.list")" \
"deb http://ports.ubuntu.com/ubuntu-ports noble main restricted universe multiverse
deb http://ports.ubuntu.com/ubuntu-ports noble-updates main restricted universe multiverse
deb http://ports.ubuntu.com/ubuntu-ports noble-security main restricted universe multiverse"
prop_run "$TMP/s2.out" "$TMP/sources.lua"
expect_run "sources: second run ok" "$TMP/s2.out" 0 0 4 0

# apt where commands cannot run (a bare tree): a clean failure.
mkdir -p "$TMP/bare/etc"
cat >"$TMP/bare.lua" <<EOF
host "bare" { connect.dir "$TMP/bare", os.debian("$SUITE", "$ARCH"), apt.installed "$P" }
EOF
prop_run "$TMP/b.out" "$TMP/bare.lua"
expect_run "bare tree: apt fails cleanly" "$TMP/b.out" 1 0 0 1

finish
