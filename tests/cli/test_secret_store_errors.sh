#!/usr/bin/env bash
# A secret store that is not a regular file is refused at once, not read:
# a named pipe as site.secrets used to hang prop lint, prop run and prop
# secret (the open waited for a writer).  A broken store's errors are
# one P015 a line, each on a line of its own (never a literal "\n").
# Everything is in the scratch directory; no key is needed.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

cd "$TMP" || exit 1
cat >site.lua <<'EOF2'
host "box" {
  os.debian("bookworm", "amd64"),
  file.has_content("/etc/pw", secret "pw"),
}
EOF2

# ---- a named pipe ------------------------------------------------------------
mkfifo site.secrets
want='cannot read site.secrets: it is a named pipe, not a regular file'
for cmd in "lint site.lua" "run --dry-run site.lua" "secret list site.lua" \
  "secret recipients site.lua" "secret rm site.lua pw"; do
  # shellcheck disable=SC2086
  PROP_RUN_TIMEOUT=30 run_prop "$TMP/out" $cmd </dev/null
  check "pipe: prop $cmd did not hang" test "$rc" != 124
  check "pipe: prop $cmd fails" test "$rc" != 0
  check "pipe: prop $cmd says why" grep -qF "$want" "$TMP/out"
done
OUT="$TMP/out"
rc=0
printf 'x' | timeout 30 "$PROP" secret set site.lua pw >"$TMP/out" 2>&1 || rc=$?
check "pipe: prop secret set did not hang" test "$rc" != 124
check "pipe: prop secret set says why" grep -qF "$want" "$TMP/out"
check "pipe: left as it was" test -p site.secrets
rm site.secrets

# ---- a directory -------------------------------------------------------------
mkdir site.secrets
run_prop "$TMP/out" lint site.lua
same "directory: lint fails" "$rc" 2
check "directory: says why" grep -qF \
  'error[P015]: the secret store cannot be read: cannot read site.secrets: it is a directory, not a regular file' \
  "$TMP/out"
rmdir site.secrets

# ---- a broken store: one P015 a line, no literal \n ---------------------------
printf 'prop-secrets 1\ngarbage here\nmore bad\n' >site.secrets
run_prop "$TMP/out" lint site.lua
same "broken: lint fails" "$rc" 2
check "broken: line 2 on a line of its own" grep -qx \
  'error\[P015\]: the secret store cannot be read: site.secrets:2: unknown line "garbage" (expected recipient or secret)' \
  "$TMP/out"
check "broken: line 3 on a line of its own" grep -qx \
  'error\[P015\]: the secret store cannot be read: site.secrets:3: unknown line "more" (expected recipient or secret)' \
  "$TMP/out"
check "broken: no literal \\n" bash -c "! grep -qF '\\n' '$TMP/out'"

finish
