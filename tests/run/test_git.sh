#!/usr/bin/env bash
# git.cloned and git.pulled on this machine, in scratch space: a bare
# repository made by the test is cloned (dry run, first run, second run
# ok), moved to a tag, a branch and a commit, cloned as another user,
# pulled after the remote moves; a directory that is another clone, or
# no repository at all, fails and is left alone.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

G="git -c user.email=test@example.com -c user.name=test -c init.defaultBranch=main"
ORIGIN="$TMP/origin.git"
$G init -q --bare "$ORIGIN"
$G clone -q "$ORIGIN" "$TMP/work" 2>/dev/null
commit() { $G -C "$TMP/work" commit -q --allow-empty -m "$1"; }
commit one
$G -C "$TMP/work" tag v1
c1="$($G -C "$TMP/work" rev-parse HEAD)"
commit two
$G -C "$TMP/work" branch stable "$c1"
$G -C "$TMP/work" push -q origin main stable --tags 2>/dev/null
c2="$($G -C "$TMP/work" rev-parse HEAD)"
head_of() { git -c safe.directory='*' -C "$1" rev-parse HEAD 2>/dev/null; }

CO="$TMP/co"
cat >"$TMP/clone.lua" <<EOF
host "localhost" { git.cloned("$ORIGIN", "$CO") }
EOF
prop_run "$TMP/dry.out" "$TMP/clone.lua" --dry-run
expect_run "dry run: would change" "$TMP/dry.out" 0 1 0 0
check "dry run: says it would clone" grep -q "would clone" "$TMP/dry.out"
check "dry run: nothing made" test ! -e "$CO"

prop_run "$TMP/run1.out" "$TMP/clone.lua"
expect_run "first run: changed" "$TMP/run1.out" 0 1 0 0
same "cloned at the remote's HEAD" "$(head_of "$CO")" "$c2"
prop_run "$TMP/run2.out" "$TMP/clone.lua"
expect_run "second run: ok" "$TMP/run2.out" 0 0 1 0

# A tag: checked out detached; then the same again is ok.
cat >"$TMP/tag.lua" <<EOF
host "localhost" { git.cloned("$ORIGIN", "$CO", { rev = "v1" }) }
EOF
prop_run "$TMP/tdry.out" "$TMP/tag.lua" --dry-run
expect_run "tag, dry run: would change" "$TMP/tdry.out" 0 1 0 0
same "tag, dry run: HEAD unchanged" "$(head_of "$CO")" "$c2"
prop_run "$TMP/t1.out" "$TMP/tag.lua"
expect_run "tag: changed" "$TMP/t1.out" 0 1 0 0
same "tag: at v1" "$(head_of "$CO")" "$c1"
prop_run "$TMP/t2.out" "$TMP/tag.lua"
expect_run "tag, again: ok" "$TMP/t2.out" 0 0 1 0

# A branch follows the remote: it moves when the remote branch moves.
cat >"$TMP/branch.lua" <<EOF
host "localhost" { git.cloned("$ORIGIN", "$CO", { rev = "stable" }) }
EOF
prop_run "$TMP/b1.out" "$TMP/branch.lua"
expect_run "branch at the same commit: ok" "$TMP/b1.out" 0 0 1 0
$G -C "$TMP/work" checkout -q stable
commit three
$G -C "$TMP/work" push -q origin stable 2>/dev/null
c3="$($G -C "$TMP/work" rev-parse HEAD)"
prop_run "$TMP/b2.out" "$TMP/branch.lua"
expect_run "branch moved on the remote: changed" "$TMP/b2.out" 0 1 0 0
same "branch: at its new tip" "$(head_of "$CO")" "$c3"
same "branch: checked out as a branch" "$(git -c safe.directory='*' -C "$CO" symbolic-ref --short HEAD)" stable
prop_run "$TMP/b3.out" "$TMP/branch.lua"
expect_run "branch, again: ok" "$TMP/b3.out" 0 0 1 0

# A commit by its abbreviated id.
cat >"$TMP/commit.lua" <<EOF
host "localhost" { git.cloned("$ORIGIN", "$CO", { rev = "${c2:0:10}" }) }
EOF
prop_run "$TMP/c1.out" "$TMP/commit.lua"
expect_run "commit: changed" "$TMP/c1.out" 0 1 0 0
same "commit: at it" "$(head_of "$CO")" "$c2"
prop_run "$TMP/c2.out" "$TMP/commit.lua"
expect_run "commit, again: ok" "$TMP/c2.out" 0 0 1 0

# git.pulled: the clone follows main; the remote moves on.
CP="$TMP/pulled"
cat >"$TMP/pull.lua" <<EOF
host "localhost" { git.cloned("$ORIGIN", "$CP", { branch = "main" }), git.pulled("$CP") }
EOF
prop_run "$TMP/p1.out" "$TMP/pull.lua"
expect_run "pulled: clone changed, pull ok" "$TMP/p1.out" 0 1 1 0
$G -C "$TMP/work" checkout -q main
commit four
$G -C "$TMP/work" push -q origin main 2>/dev/null
c4="$($G -C "$TMP/work" rev-parse HEAD)"
prop_run "$TMP/p2.out" "$TMP/pull.lua" --dry-run
expect_run "pull, dry run: would change" "$TMP/p2.out" 0 1 1 0
check "pull, dry run: says so" grep -q "would pull main" "$TMP/p2.out"
same "pull, dry run: HEAD unchanged" "$(head_of "$CP")" "$c2"
prop_run "$TMP/p3.out" "$TMP/pull.lua"
expect_run "pull: changed" "$TMP/p3.out" 0 1 1 0
same "pull: at the new commit" "$(head_of "$CP")" "$c4"
prop_run "$TMP/p4.out" "$TMP/pull.lua"
expect_run "pull, again: ok" "$TMP/p4.out" 0 0 2 0

# As another user: the clone is that user's.  git lets a user read a
# repository on disk only when it is the user's own: a copy for nobody.
CU="$TMP/as-nobody"
cp -a "$ORIGIN" "$TMP/nobody.git"
chown -R nobody "$TMP/nobody.git"
cat >"$TMP/user.lua" <<EOF
host "localhost" { git.cloned("$TMP/nobody.git", "$CU", { rev = "v1", user = "nobody" }) }
EOF
prop_run "$TMP/u1.out" "$TMP/user.lua"
expect_run "as nobody: changed" "$TMP/u1.out" 0 1 0 0
same "as nobody: owner of the clone" "$(stat -c %U "$CU/.git/HEAD" 2>/dev/null)" nobody
same "as nobody: at v1" "$(head_of "$CU")" "$c1"
prop_run "$TMP/u2.out" "$TMP/user.lua"
expect_run "as nobody, again: ok" "$TMP/u2.out" 0 0 1 0

# Failures: another repository, no repository, an unknown rev.
$G init -q "$TMP/other"
$G -C "$TMP/other" remote add origin https://example.invalid/other.git
mkdir -p "$TMP/notrepo"
echo keep >"$TMP/notrepo/file"
cat >"$TMP/bad.lua" <<EOF
host "localhost" {
  git.cloned("$ORIGIN", "$TMP/other"),
  git.cloned("$ORIGIN", "$TMP/notrepo"),
  git.cloned("$ORIGIN", "$CO", { rev = "no-such-branch" }),
  git.pulled("$TMP/notrepo"),
}
EOF
before="$(tree_state "$TMP/other" "$TMP/notrepo")"
prop_run "$TMP/bad.out" "$TMP/bad.lua"
expect_run "failures: four failed" "$TMP/bad.out" 1 0 0 4
check "another clone: says whose" grep -q "is a clone of https://example.invalid/other.git" "$TMP/bad.out"
check "not a repository: says so" grep -q "exists and is not a git repository" "$TMP/bad.out"
check "unknown rev: says so" grep -q "has no branch or tag no-such-branch" "$TMP/bad.out"
same "failures: both directories left alone" "$(tree_state "$TMP/other" "$TMP/notrepo")" "$before"
same "unknown rev: the clone stays" "$(head_of "$CO")" "$c2"

# Two repositories for one directory: P007 before anything runs.
cat >"$TMP/twice.lua" <<EOF
host "localhost" { git.cloned("$ORIGIN", "$TMP/x"), git.cloned("https://example.invalid/y.git", "$TMP/x") }
EOF
run_prop "$TMP/twice.out" lint "$TMP/twice.lua"
check "two repositories in one directory: P007" grep -q P007 "$TMP/twice.out"
cat >"$TMP/arg.lua" <<EOF
host "localhost" { git.cloned("--upload-pack=x", "relative", { rev = "a..b" }) }
EOF
run_prop "$TMP/arg.out" lint "$TMP/arg.lua"
check "bad arguments: P012" grep -q P012 "$TMP/arg.out"
check "bad arguments: the line" grep -q "arg.lua:1" "$TMP/arg.out"

finish
