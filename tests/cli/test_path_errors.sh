#!/usr/bin/env bash
# Paths a system call cannot take, and their messages: a NUL in a path
# or a link's target is P012 at the site's line, shown escaped ("\0"),
# and a NUL in a path given to sys:write or sys:read at run time fails
# the property, shown escaped, without touching the file the path would
# be cut to; a path longer than PATH_MAX, or of very many components,
# fails with its reason ("File name too long") at the end of the message,
# however long the path; a read of a named pipe or a device fails at
# once instead of waiting or reading forever.  Runs against a connect.dir tree in the scratch
# directory: nothing else is touched.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

T="$TMP/tree"
mkdir -p "$T/etc"
cd "$TMP" || exit 1

# ---- P012 ---------------------------------------------------------------------
cat >nul.lua <<'EOF2'
host "box" {
  os.debian("bookworm", "amd64"),
  file.has_content("/etc/a\0b", "x"),
  file.symlink("/etc/link", "target\0rest"),
}
EOF2
run_prop "$TMP/out" lint nul.lua
same "NUL: lint fails" "$rc" 2
check "NUL: a path, escaped, at its line" grep -qF \
  'nul.lua:3: error[P012]: file.has_content: path "/etc/a\0b" contains a NUL or newline character' \
  "$TMP/out"
check "NUL: a link's target, escaped, at its line" grep -qF \
  'nul.lua:4: error[P012]: file.symlink: target "target\0rest" contains a NUL or newline character' \
  "$TMP/out"

# ---- at run time ----------------------------------------------------------------
cat >run.lua <<EOF2
host "box" {
  connect.dir "$T",
  os.debian("bookworm", "amd64"),
  property { desc = "writes", apply = function(sys) sys:write("/etc/w\0z", "x") end },
  property { desc = "links", apply = function(sys) sys:symlink("t\0u", "/etc/l") end },
  property { desc = "deep", apply = function(sys)
    sys:write("/" .. string.rep("d/", 3000) .. "f", "x") end },
  property { desc = "many", apply = function(sys)
    sys:write("/" .. string.rep("e/", 1500) .. "f", "x") end },
  property { desc = "long", apply = function(sys)
    sys:write("/etc/" .. string.rep("n", 300), "x") end },
}
EOF2
run_prop "$TMP/out" run run.lua
same "run: the properties fail" "$rc" 1
check "run: a NUL in a path, escaped" grep -qF \
  "bad argument #1 to 'write' (path \"/etc/w\\0z\" contains a NUL character)" "$TMP/out"
check "run: a NUL in a link's target, escaped" grep -qF \
  "bad argument #1 to 'symlink' (target \"t\\0u\" contains a NUL character)" "$TMP/out"
check "run: nothing written where the path would be cut" test ! -e "$T/etc/w"
check "run: no link made" test ! -e "$T/etc/l" -a ! -L "$T/etc/l"
check "run: a path over PATH_MAX says why" grep -qE \
  'failed: run.lua:[0-9]+: write /d/d/.* \.\.\. .*/d/f: File name too long$' "$TMP/out"
check "run: a path of many components says why" grep -qE \
  'failed: run.lua:[0-9]+: write /e/e/.* \.\.\. .*/e/e does not exist$' "$TMP/out"
check "run: a name over NAME_MAX says why" grep -qE \
  'failed: run.lua:[0-9]+: write /etc/n+: File name too long$' "$TMP/out"
check "run: no crash" bash -c "! grep -Eqi 'AddressSanitizer|runtime error:' '$TMP/out'"

# ---- what is not a regular file ------------------------------------------------
# A named pipe would make a read wait for a writer, a device answer
# forever: a read of either, and a tree whose account database is a pipe,
# fail at once with what the path is.
F="$TMP/ftree"
mkdir -p "$F/etc" "$F/dev"
mkfifo "$F/pipe" "$F/etc/passwd"
mknod "$F/dev/zero" c 1 5 2>/dev/null || ln -s /nonexistent "$F/dev/zero"
cat >fifo.lua <<EOF2
host "box" {
  connect.dir "$F", os.debian("bookworm", "amd64"),
  property { desc = "pipe", apply = function(sys) sys:read("/pipe") end },
  property { desc = "device", apply = function(sys) sys:read("/dev/zero") end },
  file.owner("/pipe", "someone"),
}
EOF2
PROP_RUN_TIMEOUT=60 run_prop "$TMP/fifo.out" run fifo.lua
same "not a file: exit 1, not a hang" "$rc" 1
check "not a file: a pipe says so" grep -q 'read /pipe: not a regular file (a named pipe)' "$TMP/fifo.out"
if [[ -c "$F/dev/zero" ]]; then
  check "not a file: a device says so" \
    grep -q 'read /dev/zero: not a regular file (a character device)' "$TMP/fifo.out"
fi
check "not a file: a pipe for /etc/passwd says so" \
  grep -q 'read /etc/passwd: not a regular file' "$TMP/fifo.out"

finish
