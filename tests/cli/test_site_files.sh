#!/usr/bin/env bash
# What prop accepts as a site file or a module: regular files only (a FIFO
# would block the read for ever, a device never ends), named in a clear
# error with exit 2; a UTF-8 byte order mark and a "#!" first line are
# accepted, with line numbers still those of the file.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

cd "$TMP"

mkfifo fifo.lua
expect_refused "lint of a FIFO" "cannot read fifo.lua: a FIFO, not a regular file" lint fifo.lua
expect_refused "show of a FIFO" "cannot read fifo.lua: a FIFO, not a regular file" show fifo.lua
expect_refused "lint of a character device" "cannot read /dev/null: a character device" lint /dev/null
expect_refused "lint of /dev/zero" "cannot read /dev/zero: a character device" lint /dev/zero
mkdir dir.lua
expect_refused "lint of a directory" "cannot read dir.lua: a directory" lint dir.lua

# A module that is a FIFO: refused with the site's file and line.
mkdir -p lib
mkfifo lib/pipe.lua
cat >requires_fifo.lua <<'LUA'
-- a module that is not a file
local m = require "lib.pipe"
host "x" { file.absent "/tmp/x" }
LUA
expect_refused "require of a FIFO" "requires_fifo.lua:2: error[P000]: cannot read lib/pipe.lua: a FIFO, not a regular file" lint requires_fifo.lua
# ... also when the module is a symlink to a FIFO inside the directory.
ln -s pipe.lua lib/link.lua
sed 's/lib.pipe/lib.link/' requires_fifo.lua >requires_link.lua
expect_refused "require of a link to a FIFO" "requires_link.lua:2: error[P000]: cannot read lib/link.lua: a FIFO, not a regular file" lint requires_link.lua

# A byte order mark and a "#!" line: accepted, and the error below is
# still reported on line 4 of the file, in the site and in a module.
printf '\xef\xbb\xbf#!/usr/bin/env prop lint\n-- line 2\nlocal missing = nil\nhost "x" { missing.property }\n' >bom.lua
run_prop "$TMP/out" lint bom.lua
if [[ "$rc" == 2 ]] && grep -qF "bom.lua:4: error[P000]: attempt to index a nil value (local 'missing')" "$TMP/out"; then
  pass
else
  fail "byte order mark and #! line" "exit $rc (want 2), or not reported on line 4" "$TMP/out"
fi
printf '#!/usr/bin/env prop\nlocal m = {}\nm.ok = true\nerror("module line 4")\n' >lib/shebang.lua
printf '\xef\xbb\xbfrequire "lib.shebang"\n' >uses_shebang.lua
run_prop "$TMP/out" lint uses_shebang.lua
if [[ "$rc" == 2 ]] && grep -qF "lib/shebang.lua:4: error[P000]: module line 4" "$TMP/out"; then
  pass
else
  fail "a module with a #! line" "exit $rc (want 2), or not reported on line 4" "$TMP/out"
fi
printf '\xef\xbb\xbf#!/usr/bin/env prop lint\nhost "x" { file.absent "/tmp/x" }\n' >clean.lua
run_prop "$TMP/out" lint clean.lua
if [[ "$rc" == 0 && ! -s "$TMP/out" ]]; then pass; else fail "a clean site with a BOM and #!" "exit $rc" "$TMP/out"; fi
# A file that is only a "#!" line (no newline) is an empty site.
printf '#!/usr/bin/env prop' >only_shebang.lua
run_prop "$TMP/out" lint only_shebang.lua
if [[ "$rc" == 0 ]]; then pass; else fail "a site of one #! line" "exit $rc" "$TMP/out"; fi

finish
