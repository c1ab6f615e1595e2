#!/usr/bin/env bash
# pacman.* for real, into a tree: tiny packages made here (a .PKGINFO and
# a file, tarred), a local repository made with repo-add, and
# pacman.installed, pacman.removed and pacman.upgraded with root= and
# config= on a host declared Arch Linux.  pacman runs on this machine but
# changes only the tree: the pacman.conf given names the tree's cache,
# database and log.  The upgrade comes from a repository rebuilt within
# the second pacman's copy of its database was taken in.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

for tool in pacman repo-add bsdtar; do
  if ! command -v "$tool" >/dev/null; then
    echo "SKIP: $tool is not installed (apt-get install pacman-package-manager makepkg libarchive-tools)"
    exit 77
  fi
done

R="$TMP/root"    # the tree pacman installs into
REPO="$TMP/repo" # the local repository
CONF="$TMP/pacman.conf"
mkdir -p "$R/var/lib/pacman" "$REPO"
cat >"$CONF" <<EOF
[options]
RootDir = $R
DBPath = $R/var/lib/pacman/
CacheDir = $R/var/cache/pacman/pkg/
LogFile = $R/var/log/pacman.log
GPGDir = $R/etc/pacman.d/gnupg/
Architecture = auto
SigLevel = Never

[proptest]
Server = file://$REPO
EOF

# build NAME VERSION : a package holding /usr/share/NAME/version, added to
# the repository.
build() {
  local d="$TMP/build-$1-$2"
  mkdir -p "$d/usr/share/$1"
  echo "$2" >"$d/usr/share/$1/version"
  cat >"$d/.PKGINFO" <<EOF
pkgname = $1
pkgbase = $1
pkgver = $2-1
pkgdesc = prop test package
url = https://example.org
builddate = 1700000000
packager = prop tests
size = 4
arch = any
license = MIT
EOF
  (cd "$d" && tar --owner=0 --group=0 -czf "$REPO/$1-$2-1-any.pkg.tar.gz" .PKGINFO usr) &&
    repo-add -q "$REPO/proptest.db.tar.gz" "$REPO/$1-$2-1-any.pkg.tar.gz" >"$TMP/repo-add.log" 2>&1
}
check "setup: prop-test-hello 1.0 in the repository" build prop-test-hello 1.0
check "setup: prop-test-other 1.0 in the repository" build prop-test-other 1.0

# pac_version NAME : the version installed in the tree, or "none".
pac_version() {
  local v
  if v="$(pacman --config "$CONF" -Q "$1" 2>/dev/null)"; then echo "${v#* }"; else echo none; fi
}

# site NAME PROPERTIES : a site of one host, localhost declared Arch Linux.
site() {
  printf 'host "localhost" { os.arch "amd64", %s }\n' "$2" >"$TMP/$1.lua"
}
O="root = \"$R\", config = \"$CONF\""
# pacman -S needs the sync databases: upgraded refreshes them first.
site installed "pacman.upgraded { $O }, pacman.installed { \"prop-test-hello\", \"prop-test-other\", $O }"
site removed "pacman.removed(\"prop-test-other\", { $O })"
site reverted "revert(pacman.installed { \"prop-test-hello\", $O })"

# -- installed ------------------------------------------------------------
before="$(tree_state "$R")"
prop_run "$TMP/i0.out" "$TMP/installed.lua" --dry-run
expect_run "installed, dry run: upgraded ok, installed changed" "$TMP/i0.out" 0 1 1 0
check "installed, dry run: the command it would run" \
  grep -qF "pacman --root $R --config $CONF -S --noconfirm --needed -- prop-test-hello prop-test-other" "$TMP/i0.out"
same "installed, dry run: the tree untouched" "$(tree_state "$R")" "$before"

prop_run "$TMP/i1.out" "$TMP/installed.lua"
expect_run "installed: changed" "$TMP/i1.out" 0 1 1 0
same "installed: pacman knows prop-test-hello" "$(pac_version prop-test-hello)" 1.0-1
same "installed: pacman knows prop-test-other" "$(pac_version prop-test-other)" 1.0-1
same "installed: the package's file is in the tree" \
  "$(cat "$R/usr/share/prop-test-hello/version" 2>&1)" 1.0
check "installed: the note names both" grep -q 'installed: prop-test-hello prop-test-other' "$TMP/i1.out"
check "installed: nothing outside the tree" test ! -e /usr/share/prop-test-hello

prop_run "$TMP/i2.out" "$TMP/installed.lua"
expect_run "installed again: ok" "$TMP/i2.out" 0 0 2 0

# -- removed ------------------------------------------------------------------
prop_run "$TMP/r1.out" "$TMP/removed.lua"
expect_run "removed: changed" "$TMP/r1.out" 0 1 0 0
same "removed: pacman no longer has it" "$(pac_version prop-test-other)" none
check "removed: its file is gone" test ! -e "$R/usr/share/prop-test-other/version"
same "removed: the other package stays" "$(pac_version prop-test-hello)" 1.0-1
prop_run "$TMP/r2.out" "$TMP/removed.lua"
expect_run "removed again: ok" "$TMP/r2.out" 0 0 1 0

# -- a package the repository does not have: pacman's message ----------------
site nosuch "pacman.installed { \"prop-test-no-such-package\", $O }"
prop_run "$TMP/n.out" "$TMP/nosuch.lua"
expect_run "unknown package fails" "$TMP/n.out" 1 0 0 1
check "unknown package: pacman's message" \
  grep -q 'target not found: prop-test-no-such-package' "$TMP/n.out"

# -- upgraded: a newer version in the repository ------------------------------
site upgraded "pacman.upgraded { $O }"
# The repository rebuilt within the second its database was copied in:
# the new database is given the old one's time, to the second, as when
# both were made in the same second (pacman -Sy then takes it for the
# copy it has).
db_time="$(stat -L -c %Y "$REPO/proptest.db.tar.gz")"
check "setup: prop-test-hello 1.1 in the repository" build prop-test-hello 1.1
check "setup: the database has its previous time" touch -d "@$db_time" "$REPO/proptest.db.tar.gz"
same "setup: pacman's copy has the same time" \
  "$(stat -c %Y "$R/var/lib/pacman/sync/proptest.db")" "$db_time"
prop_run "$TMP/g1.out" "$TMP/upgraded.lua"
expect_run "upgraded: changed" "$TMP/g1.out" 0 1 0 0
same "upgraded: version 1.1" "$(pac_version prop-test-hello)" 1.1-1
check "upgraded: the note names it" grep -q 'upgraded 1 package: prop-test-hello' "$TMP/g1.out"
prop_run "$TMP/g2.out" "$TMP/upgraded.lua"
expect_run "upgraded again: ok" "$TMP/g2.out" 0 0 1 0

# revert(pacman.installed) is pacman.removed, in the same tree.
prop_run "$TMP/v1.out" "$TMP/reverted.lua"
expect_run "revert of installed: changed" "$TMP/v1.out" 0 1 0 0
same "revert of installed: removed from the tree" "$(pac_version prop-test-hello)" none

finish
