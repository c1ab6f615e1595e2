#!/usr/bin/env bash
# dnf.* for real, into a tree: tiny noarch RPMs built here with rpmbuild,
# a local repository made with createrepo_c, and dnf.installed,
# dnf.removed, dnf.upgraded and dnf.update with installroot= on a host
# declared Rocky Linux.  dnf runs on this machine but changes only the
# tree (its repos, cache, logs and rpm database are the tree's); HOME is
# the scratch directory, where this machine's rpm keeps its database.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

for tool in rpmbuild createrepo_c dnf rpm; do
  if ! command -v "$tool" >/dev/null; then
    skip_missing "$tool" "$tool is not installed (apt-get install rpm dnf createrepo-c)"
  fi
done

export HOME="$TMP/home"
mkdir -p "$HOME"
R="$TMP/root"    # the tree dnf installs into
REPO="$TMP/repo" # the local repository
mkdir -p "$R/etc/yum.repos.d" "$REPO"
cat >"$R/etc/yum.repos.d/local.repo" <<EOF
[prop-test]
name=prop test packages
baseurl=file://$REPO
gpgcheck=0
EOF

# build NAME VERSION : a noarch RPM holding /usr/share/NAME/version.
build() {
  cat >"$TMP/$1.spec" <<EOF
Name: $1
Version: $2
Release: 1
Summary: prop test package
License: MIT
BuildArch: noarch
%description
A package for prop's tests.
%install
mkdir -p %{buildroot}/usr/share/$1
echo $2 >%{buildroot}/usr/share/$1/version
%files
/usr/share/$1/version
EOF
  rpmbuild --define "_topdir $TMP/rpmbuild" --define "_dbpath $TMP/rpmdb" -bb "$TMP/$1.spec" \
    >"$TMP/rpmbuild.log" 2>&1 &&
    cp "$TMP/rpmbuild/RPMS/noarch/$1-$2-1.noarch.rpm" "$REPO/"
}
mkrepo() {
  createrepo_c --update "$REPO" >"$TMP/createrepo.log" 2>&1
}
check "setup: rpmbuild makes prop-test-hello 1.0" build prop-test-hello 1.0
check "setup: rpmbuild makes prop-test-other 1.0" build prop-test-other 1.0
check "setup: createrepo_c makes the repository" mkrepo

# rpm_version NAME : the version installed in the tree, or "none".
rpm_version() {
  local v
  if v="$(rpm --root "$R" -q --qf '%{VERSION}' "$1" 2>/dev/null)"; then echo "$v"; else echo none; fi
}

# site NAME PROPERTIES : a site of one host, localhost declared Rocky 9.
site() {
  printf 'host "localhost" { os.rocky("9", "amd64"), %s }\n' "$2" >"$TMP/$1.lua"
}
site installed "dnf.installed { \"prop-test-hello\", \"prop-test-other\", installroot = \"$R\" }"
site removed "dnf.removed(\"prop-test-other\", { installroot = \"$R\" })"
site reverted "revert(dnf.installed { \"prop-test-hello\", installroot = \"$R\" })"

# -- installed ------------------------------------------------------------
before="$(tree_state "$R")"
prop_run "$TMP/i0.out" "$TMP/installed.lua" --dry-run
expect_run "installed, dry run: changed" "$TMP/i0.out" 0 1 0 0
check "installed, dry run: the command it would run" \
  grep -qF "dnf -y --installroot=$R --releasever=9 install prop-test-hello prop-test-other" "$TMP/i0.out"
same "installed, dry run: the tree untouched" "$(tree_state "$R")" "$before"

prop_run "$TMP/i1.out" "$TMP/installed.lua"
expect_run "installed: changed" "$TMP/i1.out" 0 1 0 0
same "installed: rpm knows prop-test-hello" "$(rpm_version prop-test-hello)" 1.0
same "installed: rpm knows prop-test-other" "$(rpm_version prop-test-other)" 1.0
same "installed: the package's file is in the tree" \
  "$(cat "$R/usr/share/prop-test-hello/version" 2>&1)" 1.0
check "installed: the note names both" grep -q 'installed: prop-test-hello prop-test-other' "$TMP/i1.out"
check "installed: nothing outside the tree" test ! -e /usr/share/prop-test-hello

prop_run "$TMP/i2.out" "$TMP/installed.lua"
expect_run "installed again: ok" "$TMP/i2.out" 0 0 1 0

# -- removed ------------------------------------------------------------------
prop_run "$TMP/r1.out" "$TMP/removed.lua"
expect_run "removed: changed" "$TMP/r1.out" 0 1 0 0
same "removed: rpm no longer has it" "$(rpm_version prop-test-other)" none
check "removed: its file is gone" test ! -e "$R/usr/share/prop-test-other/version"
same "removed: the other package stays" "$(rpm_version prop-test-hello)" 1.0
prop_run "$TMP/r2.out" "$TMP/removed.lua"
expect_run "removed again: ok" "$TMP/r2.out" 0 0 1 0

# revert(dnf.installed) is dnf.removed, in the same tree.
prop_run "$TMP/v1.out" "$TMP/reverted.lua"
expect_run "revert of installed: changed" "$TMP/v1.out" 0 1 0 0
same "revert of installed: removed from the tree" "$(rpm_version prop-test-hello)" none

# -- a package the repositories do not have: dnf's message -------------------
site nosuch "dnf.installed { \"prop-test-no-such-package\", installroot = \"$R\" }"
prop_run "$TMP/n.out" "$TMP/nosuch.lua"
expect_run "unknown package fails" "$TMP/n.out" 1 0 0 1
check "unknown package: dnf's message" \
  grep -q 'Unable to find a match: prop-test-no-such-package' "$TMP/n.out"

# -- upgraded: a newer version in the repository ------------------------------
site upgraded "dnf.installed { \"prop-test-hello\", installroot = \"$R\" }, dnf.upgraded { installroot = \"$R\" }"
prop_run "$TMP/g0.out" "$TMP/upgraded.lua"
expect_run "upgraded, nothing newer: installed changed, upgraded ok" "$TMP/g0.out" 0 1 1 0
same "upgraded, nothing newer: version 1.0" "$(rpm_version prop-test-hello)" 1.0
check "setup: rpmbuild makes prop-test-hello 1.1" build prop-test-hello 1.1
check "setup: createrepo_c adds it" mkrepo
# The metadata dnf has cached is older than the repository now: refresh it.
site update "dnf.update { installroot = \"$R\" }"
prop_run "$TMP/u1.out" "$TMP/update.lua"
expect_run "update after the repository changed: changed" "$TMP/u1.out" 0 1 0 0
prop_run "$TMP/u2.out" "$TMP/update.lua"
expect_run "update again, nothing new: ok" "$TMP/u2.out" 0 0 1 0
prop_run "$TMP/g1.out" "$TMP/upgraded.lua" --dry-run
expect_run "upgraded, dry run: would change" "$TMP/g1.out" 0 1 1 0
same "upgraded, dry run: still 1.0" "$(rpm_version prop-test-hello)" 1.0
prop_run "$TMP/g2.out" "$TMP/upgraded.lua"
expect_run "upgraded: changed" "$TMP/g2.out" 0 1 1 0
same "upgraded: version 1.1" "$(rpm_version prop-test-hello)" 1.1
check "upgraded: the note names it" grep -q 'upgraded 1 package: prop-test-hello' "$TMP/g2.out"
prop_run "$TMP/g3.out" "$TMP/upgraded.lua"
expect_run "upgraded again: ok" "$TMP/g3.out" 0 0 2 0

# -- a dir tree runs no commands: a clear failure, nothing half done ----------
mkdir -p "$TMP/dirtree"
printf 'host "tree" { connect.dir "%s", os.fedora("41", "amd64"), dnf.installed "prop-test-hello" }\n' \
  "$TMP/dirtree" >"$TMP/dir.lua"
prop_run "$TMP/d.out" "$TMP/dir.lua"
expect_run "dnf in a connect.dir tree fails" "$TMP/d.out" 1 0 0 1
check "dnf in a connect.dir tree: the reason" \
  grep -q 'commands do not run in a directory tree' "$TMP/d.out"

finish
