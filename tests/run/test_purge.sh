#!/usr/bin/env bash
# file.directory(path, { purge = true }) on real files under the test's
# scratch directory (host "localhost": the purge lists the directory with
# find): a directory holding stale files, links and subdirectories keeps
# exactly what the host's properties claim (from several roles: a role
# function, a nested list, a hand-written property's claims.files, a
# claimed path deep in a subdirectory) and loses the rest, each named in
# a note; a link is removed, never what it points to; a file.absent claim
# keeps nothing; a dry run lists what would go and removes nothing; the
# second run changes nothing.  A tree (connect.dir) runs no find: a clear
# failure that removes nothing.  A purge of the directory that holds a
# container's tree is refused before anything runs: the container's
# files stay.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

D="$TMP/sudoers.d"
OUTSIDE="$TMP/outside"
mkdir -p "$D/stale-dir/deep" "$D/conf/sub" "$OUTSIDE"
echo "outside" >"$OUTSIDE/precious"
echo "old rule" >"$D/old"
echo "stale" >"$D/stale-dir/deep/f"
echo "unclaimed sibling" >"$D/conf/other"
echo "keep" >"$D/hand"
echo "gone anyway" >"$D/absent-one"
ln -s "$OUTSIDE" "$D/link-to-dir"
ln -s "$OUTSIDE/precious" "$D/link-to-file"
touch "$D/.hidden"

cat >"$TMP/site.lua" <<EOF
local D = "$D"
-- Two roles and a profile contribute to one directory.
local function admins(h)
  return { file.has_content(D .. "/admins", "%admins ALL=(ALL) ALL\n", { mode = "0440" }) }
end
local deploy = {
  file.has_content(D .. "/deploy", "deploy ALL=(ALL) NOPASSWD: /usr/bin/true\n"),
  file.has_content(D .. "/conf/sub/x", "x\n"),
}
local purged = file.directory(D, { purge = true, mode = "0750" })
host "localhost" {
  purged,
  admins,
  deploy,
  property {
    desc = "a hand-written property owns " .. D .. "/hand",
    claims = { files = { D .. "/hand" } },
    check = function(sys) return sys:exists(D .. "/hand") end,
    apply = function(sys) sys:write(D .. "/hand", "keep\\n") end,
  },
  file.absent(D .. "/absent-one"),
}
EOF

run_prop "$TMP/lint.out" lint "$TMP/site.lua"
same "the site lints clean" "$rc/$(grep -c 'warning\|error' "$TMP/lint.out")" "0/0"

before="$(tree_state "$D" "$OUTSIDE")"
prop_run "$TMP/dry.out" "$TMP/site.lua" --dry-run
same "dry run: exit 0" "$rc" 0
same "dry run: nothing removed" "$(tree_state "$D" "$OUTSIDE")" "$before"
same "dry run: lists each unclaimed entry, in order" \
  "$(grep '"event":"note"' "$TMP/dry.out" | grep -F '"parent":"directory' |
    sed -n 's/.*"text":"\(would remove [^"]*\)".*/\1/p')" \
  "would remove $D/.hidden
would remove $D/absent-one
would remove $D/link-to-dir
would remove $D/link-to-file
would remove $D/old
would remove $D/stale-dir"
same "dry run: the purge would change" "$(result_of "$TMP/dry.out" "directory $D")" changed

prop_run "$TMP/run1.out" "$TMP/site.lua"
expect_run "first run" "$TMP/run1.out" 0 4 2 0
same "first run: the removed entries named in notes" \
  "$(grep '"event":"note"' "$TMP/run1.out" | grep -F '"parent":"directory' |
    sed -n 's/.*"text":"\([^"]*\)".*/\1/p')" \
  "removed $D/.hidden
removed $D/absent-one
removed $D/link-to-dir
removed $D/link-to-file
removed $D/old
removed $D/stale-dir"
same "first run: exactly the claimed entries are left" \
  "$(cd "$D" && find . -mindepth 1 | LC_ALL=C sort | tr '\n' ' ')" \
  "./admins ./conf ./conf/other ./conf/sub ./conf/sub/x ./deploy ./hand "
check "a link's target is left alone" test "$(cat "$OUTSIDE/precious")" = outside
same "the directory keeps its mode" "$(mode_of "$D")" 0750
same "a claimed file keeps its content" "$(cat "$D/admins")" "%admins ALL=(ALL) ALL"

prop_run "$TMP/run2.out" "$TMP/site.lua"
expect_run "second run changes nothing" "$TMP/run2.out" 0 0 6 0
same "second run: no note" "$(grep -c '"event":"note"' "$TMP/run2.out")" 0

# A stale file appears again: the check sees it (verify says drift), and
# the next run removes it alone.
echo "by hand" >"$D/by-hand"
prop_verify "$TMP/verify.out" "$TMP/site.lua"
same "verify: a stale entry is drift" "$rc" 1
prop_run "$TMP/run3.out" "$TMP/site.lua"
expect_run "a new stale entry is removed" "$TMP/run3.out" 0 1 5 0
check "the new stale entry is gone" test ! -e "$D/by-hand"
check "the claimed entries stay" test -f "$D/deploy" -a -f "$D/conf/other"

# A role that stops declaring a file: the next run removes it.
sed -i 's|^  admins,$||' "$TMP/site.lua"
prop_run "$TMP/run4.out" "$TMP/site.lua"
expect_run "a file no longer declared is removed" "$TMP/run4.out" 0 1 4 0
check "note names it" grep -qF "\"text\":\"removed $D/admins\"" "$TMP/run4.out"
check "it is gone" test ! -e "$D/admins"

# A connect.dir tree runs no command: the purge fails clearly and removes
# nothing.
T="$TMP/tree"
mkdir -p "$T/etc/cron.d"
echo stale >"$T/etc/cron.d/stale"
cat >"$TMP/tree.lua" <<EOF
host "tree" {
  connect.dir "$T",
  file.directory("/etc/cron.d", { purge = true }),
}
EOF
prop_run "$TMP/tree.out" "$TMP/tree.lua"
same "tree: the purge fails" "$rc/$(result_of "$TMP/tree.out" "directory /etc/cron.d")" "1/failed"
check "tree: says why" grep -qF 'a directory tree (connect.dir) runs no command' "$TMP/tree.out"
check "tree: nothing removed" test -f "$T/etc/cron.d/stale"

# A container's tree in the purged directory: P012, nothing runs, nothing
# is removed (the container is never made either).
M="$TMP/machines"
mkdir -p "$M/web/etc"
echo "the container's" >"$M/web/etc/motd"
echo stale >"$M/stale"
cat >"$TMP/ctr.lua" <<EOF
local web = chroot.debootstrapped("$M/web", os.debian("bookworm", "amd64"), {})
host "localhost" {
  os.debian("bookworm", "amd64"),
  chroot.provisioned(web),
  file.directory("$M", { purge = true }),
}
EOF
prop_run "$TMP/ctr.out" "$TMP/ctr.lua"
same "container tree: refused before anything runs" "$rc" 2
check "container tree: P012 at the purge's line, naming the tree" \
  grep -qF "ctr.lua:5: error[P012]: directory $M holds only what the site declares: refusing to purge \"$M\": it holds \"$M/web\", which container" "$TMP/ctr.out"
check "container tree: the container's files stay" test -f "$M/web/etc/motd"
check "container tree: nothing else removed either" test -f "$M/stale"

finish
