#!/usr/bin/env bash
# archive.extracted for real, on this machine under the scratch directory:
# tar.gz, tar.xz and zip beside the site and a tar.zst on the target
# extracted (contents and modes compared with the tree they were made
# from); a second run writes nothing (every entry keeps its inode and
# mtime); one file changed behind prop's back is the only one rewritten;
# strip and exclude; creates=; a corrupt archive and unsafe entries
# (absolute, "..", written through a link of the archive) refused with
# nothing written; two archives that disagree on a file caught by lint.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

for cmd in zip zstd xz python3; do
  command -v "$cmd" >/dev/null || skip "$cmd is not installed"
done

S="$TMP/site"
D="$TMP/dest"
mkdir -p "$S/files" "$TMP/src/app/bin" "$TMP/src/app/sub" "$D"
printf 'alpha\n' >"$TMP/src/app/a.txt"
printf '#!/bin/sh\necho run\n' >"$TMP/src/app/bin/run.sh"
printf 'beta' >"$TMP/src/app/sub/b"
echo log >"$TMP/src/app/skip.log"
ln -s a.txt "$TMP/src/app/link"
chmod 755 "$TMP/src/app" "$TMP/src/app/bin" "$TMP/src/app/sub" "$TMP/src/app/bin/run.sh"
chmod 640 "$TMP/src/app/a.txt"
chmod 644 "$TMP/src/app/sub/b" "$TMP/src/app/skip.log"
(
  cd "$TMP/src" &&
    tar -czf "$S/files/app.tar.gz" app &&
    tar -cJf "$S/files/app.tar.xz" app &&
    tar --zstd -cf "$TMP/app.tar.zst" app &&
    zip -qry "$S/files/app.zip" app
) || {
  echo "making the archives failed"
  exit 1
}

# The entries under DIR: path, type, mode, link target, content hash.
listing() {
  (cd "$1" && find . -mindepth 1 | LC_ALL=C sort | while read -r p; do
    if [[ -L "$p" ]]; then
      echo "$p link $(readlink "$p")"
    elif [[ -d "$p" ]]; then
      echo "$p dir $(stat -c %a "$p")"
    else
      echo "$p file $(stat -c %a "$p") $(sha256sum <"$p" | cut -c1-16)"
    fi
  done)
}
# Inode and mtime (nanoseconds) of every path under DIR.
inodes() {
  (cd "$1" && find . -mindepth 1 | LC_ALL=C sort | xargs -d '\n' stat -c '%n %i %y')
}

cat >"$S/site.lua" <<SITE
host "localhost" {
  archive.extracted("$D/gz", "files/app.tar.gz"),
  archive.extracted("$D/xz", "files/app.tar.xz"),
  archive.extracted("$D/zst", "$TMP/app.tar.zst"),
  archive.extracted("$D/zip", "files/app.zip"),
  archive.extracted("$D/strip", "files/app.tar.gz", { strip = 1, exclude = { "*.log", "sub" } }),
}
SITE

run_prop "$TMP/lint.out" lint "$S/site.lua"
same "lint of the site" "$rc" 0

prop_run "$TMP/dry.out" "$S/site.lua" --dry-run
expect_run "dry run" "$TMP/dry.out" 0 5 0 0
same "dry run wrote nothing" "$(ls -A "$D")" ""

prop_run "$TMP/run1.out" "$S/site.lua"
expect_run "first run extracts every archive" "$TMP/run1.out" 0 5 0 0
want="$(listing "$TMP/src")"
for f in gz xz zst zip; do
  same "$f: every entry, its mode and content" "$(listing "$D/$f")" "$want"
done
same "strip and exclude" "$(listing "$D/strip")" \
  "$(listing "$TMP/src/app" | grep -v -e skip.log -e '^./sub')"

before="$(inodes "$D")"
prop_run "$TMP/run2.out" "$S/site.lua"
expect_run "second run changes nothing" "$TMP/run2.out" 0 0 5 0
same "second run wrote nothing (inodes and mtimes)" "$(inodes "$D")" "$before"

# One file changed behind prop's back: that one is rewritten, no other
# (its directory's mtime changes with the rename that replaces it).
printf 'changed' >"$D/xz/app/sub/b"
chmod 600 "$D/gz/app/a.txt"
before="$(inodes "$D" | grep -v -e '^./xz/app/sub/b ' -e '^./xz/app/sub ')"
prop_run "$TMP/run3.out" "$S/site.lua"
expect_run "a changed file and a changed mode" "$TMP/run3.out" 0 2 3 0
same "the changed file is restored" "$(cat "$D/xz/app/sub/b")" "beta"
same "the changed mode is restored" "$(stat -c %a "$D/gz/app/a.txt")" 640
same "no other entry was rewritten" \
  "$(inodes "$D" | grep -v -e '^./xz/app/sub/b ' -e '^./xz/app/sub ')" "$before"

# creates=: the path exists, nothing is read or written.
mkdir -p "$TMP/marker"
cat >"$S/creates.lua" <<SITE
host "localhost" {
  archive.extracted("$D/never", "$TMP/missing.tar.gz", { creates = "$TMP/marker" }),
}
SITE
prop_run "$TMP/creates.out" "$S/creates.lua"
expect_run "creates= an existing path: ok" "$TMP/creates.out" 0 0 1 0
check "creates=: nothing extracted" test ! -e "$D/never"

# A corrupt archive beside the site: lint names it and the line; one on
# the target fails the run; neither writes anything.
head -c "$(($(stat -c %s "$S/files/app.tar.gz") / 2))" "$S/files/app.tar.gz" >"$S/files/cut.tar.gz"
cp "$S/files/cut.tar.gz" "$TMP/cut.tar.gz"
cat >"$S/corrupt.lua" <<SITE
host "localhost" {
  archive.extracted("$D/corrupt", "files/cut.tar.gz"),
}
SITE
run_prop "$TMP/corrupt.out" lint "$S/corrupt.lua"
check "corrupt archive: lint fails" test "$rc" != 0
check "corrupt archive: error at the site's line, naming the archive" \
  grep -q 'corrupt.lua:2:.*cut.tar.gz' "$TMP/corrupt.out"
cat >"$S/corrupt2.lua" <<SITE
host "localhost" {
  archive.extracted("$D/corrupt2", "$TMP/cut.tar.gz"),
}
SITE
prop_run "$TMP/corrupt2.out" "$S/corrupt2.lua"
expect_run "corrupt archive on the target: the run fails" "$TMP/corrupt2.out" 1 0 0 1
check "corrupt archive on the target: the error names it" grep -q 'cut.tar.gz' "$TMP/corrupt2.out"
check "corrupt archive: nothing written" test ! -e "$D/corrupt" -a ! -e "$D/corrupt2"

# Unsafe entries (python's tarfile writes what tar would refuse to).
mkdir -p "$TMP/outside"
python3 - "$S/files" "$TMP/outside" <<'PY'
import io, sys, tarfile
out, outside = sys.argv[1], sys.argv[2]
def make(name, members):
    with tarfile.open(f"{out}/{name}", "w:gz") as t:
        for m, data in members:
            t.addfile(m, io.BytesIO(data) if data is not None else None)
def f(name, data):
    i = tarfile.TarInfo(name); i.size = len(data); return (i, data)
def link(name, target):
    i = tarfile.TarInfo(name); i.type = tarfile.SYMTYPE; i.linkname = target; return (i, None)
make("dotdot.tar.gz", [f("ok", b"1"), f("a/../../evil", b"x")])
make("abs.tar.gz", [f(outside + "/abs", b"x")])
make("through.tar.gz", [link("d", outside), f("d/through", b"x")])
PY
for a in dotdot abs through; do
  cat >"$S/$a.lua" <<SITE
host "localhost" {
  archive.extracted("$D/$a", "files/$a.tar.gz"),
}
SITE
  run_prop "$TMP/$a.out" lint "$S/$a.lua"
  check "$a: refused" test "$rc" != 0
  check "$a: the error names the line and the entry" grep -q "$a.lua:2:.*is refused" "$TMP/$a.out"
  prop_run "$TMP/$a-run.out" "$S/$a.lua"
  check "$a: the run refuses it too" test "$rc" != 0
done
same "unsafe entries: nothing written anywhere" \
  "$(ls -A "$TMP/outside"; ls -d "$D"/dotdot "$D"/abs "$D"/through "$TMP/evil" 2>/dev/null)" ""

# Two archives into one tree that disagree on a file: the pre-pass (P007).
mkdir -p "$TMP/other/app"
printf 'other\n' >"$TMP/other/app/a.txt"
tar -C "$TMP/other" -czf "$S/files/other.tar.gz" app
cat >"$S/clash.lua" <<SITE
host "localhost" {
  archive.extracted("$D/clash", "files/app.tar.gz"),
  archive.extracted("$D/clash", "files/other.tar.gz"),
}
SITE
run_prop "$TMP/clash.out" lint "$S/clash.lua"
check "two archives disagree on a file: lint fails" test "$rc" != 0
check "two archives disagree on a file: P007 names it" \
  grep -q "P007.*$D/clash/app/a.txt" "$TMP/clash.out"

finish
