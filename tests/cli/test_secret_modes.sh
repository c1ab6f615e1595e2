#!/usr/bin/env bash
# Files whose content comes from the secret store are their owner's
# alone: a secret given as a file's content, or a template that renders
# one, is written 0600 (owned by root, as prop runs here) when the site
# gives no mode, and an existing file written 0644 before is made 0600;
# plain content keeps 0644.  A mode that lets group or others read
# secret content is warning W108 at lint, with the file and line of the
# property, unless shared = true says it is meant.  With the real gpg
# (a key made in the scratch directory) and a connect.dir tree in the
# scratch directory: nothing else is touched.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
skip_without gpg

export GNUPGHOME="$TMP/gnupg"
mkdir -m 700 "$GNUPGHOME"
on_exit 'gpg_agents_stop "$TMP/gnupg"'
gpg --batch --quiet --passphrase '' --quick-gen-key 'Prop Modes <modes@example.invalid>' \
  ed25519 cert,sign 2>/dev/null
FPR="$(gpg --list-keys --with-colons | awk -F: '/^fpr/ { print $10; exit }')"
gpg --batch --quiet --passphrase '' --quick-add-key "$FPR" cv25519 encr 2>/dev/null
VALUE='pw-modes-7Qx2'

T="$TMP/tree"
mkdir -p "$T/etc"
cd "$TMP" || exit 1
mode_of() { stat -c %a "$1"; }
owner_of() { stat -c %u:%g "$1"; }

cat >site.lua <<EOF
local pw = secret "db_password"
host "box" {
  connect.dir "$T",
  os.debian("bookworm", "amd64"),
  file.has_content("/etc/pw", pw),
  file.has_content("/etc/app.conf", template.text("user = app\npassword = {{ pw }}\n", { pw = pw })),
  file.has_content("/etc/old", pw),
  file.has_content("/etc/plain", "nothing secret\n"),
}
EOF
"$PROP" secret recipients site.lua add "$FPR" >/dev/null 2>&1
printf '%s' "$VALUE" | "$PROP" secret set site.lua db_password >/dev/null 2>&1
printf 'written before\n' >"$T/etc/old"
chmod 644 "$T/etc/old"

run_prop "$TMP/out" lint site.lua
same "default: lint is clean" "$rc" 0
check "default: no W108" bash -c "! grep -q W108 '$TMP/out'"
run_prop "$TMP/out" run site.lua
same "default: the run" "$rc" 0
same "default: a secret as content is 0600" "$(mode_of "$T/etc/pw")" 600
same "default: ...and holds the secret" "$(cat "$T/etc/pw")" "$VALUE"
same "default: a template rendering a secret is 0600" "$(mode_of "$T/etc/app.conf")" 600
check "default: ...and holds the secret" grep -qx "password = $VALUE" "$T/etc/app.conf"
same "default: an existing file is made 0600" "$(mode_of "$T/etc/old")" 600
same "default: plain content stays 0644" "$(mode_of "$T/etc/plain")" 644
if [[ "$(id -u)" == 0 ]]; then
  same "default: owned by root" "$(owner_of "$T/etc/pw")/$(owner_of "$T/etc/app.conf")" "0:0/0:0"
fi
run_prop "$TMP/out" run site.lua
check "default: the second run changes nothing" grep -q 'box: 4 ok, 0 changed, 0 failed' "$TMP/out"

# ---- a mode readable by group or others: W108, with file and line ----------
cat >w108.lua <<EOF
local pw = secret "db_password"
host "box" {
  connect.dir "$T",
  os.debian("bookworm", "amd64"),
  file.has_content("/etc/pw", pw, { mode = "0644" }),
  file.has_content("/etc/app.conf",
                   template.text("password = {{ pw }}\n", { pw = pw }), { mode = "0640" }),
  file.has_content("/etc/key", pw, { mode = "0640", group = "ssl-cert", shared = true }),
  file.has_content("/etc/mine", pw, { mode = "0600" }),
  file.has_content("/etc/plain", "x\n", { mode = "0644", secret = true }),
}
EOF
cp site.secrets w108.secrets
run_prop "$TMP/out" lint w108.lua
same "W108: a warning only" "$rc" 0
check "W108: mode 0644 on a secret, at its line" grep -qF \
  'w108.lua:5: warning[W108]: secret content written to /etc/pw with mode 0644, readable by its group and by others' \
  "$TMP/out"
check "W108: a template rendering a secret, at its line" grep -qF \
  'w108.lua:6: warning[W108]: secret content written to /etc/app.conf with mode 0640, readable by its group' \
  "$TMP/out"
same "W108: shared = true, 0600 and plain content give none" "$(grep -c 'warning\[W108\]' "$TMP/out")" 2
run_prop "$TMP/out" lint --werror w108.lua
same "W108: --werror makes it an error" "$rc" 2
run_prop "$TMP/out" lint --format=json w108.lua
check "W108: in JSON" grep -q '"code":"W108"' "$TMP/out"

# ---- shared = true is for secret content only (P012) -----------------------
cat >shared.lua <<'EOF'
host "box" {
  os.debian("bookworm", "amd64"),
  file.has_content("/etc/motd", "hello\n", { shared = true }),
}
EOF
run_prop "$TMP/out" lint shared.lua
same "shared on plain content: an error" "$rc" 2
check "shared on plain content: P012 at its line" grep -qF \
  'shared.lua:3: error[P012]: file.has_content: shared = true is for content from the secret store' \
  "$TMP/out"

# ---- prop explain W108 -----------------------------------------------------
run_prop "$TMP/out" explain W108
same "explain: exit" "$rc" 0
check "explain: its title" grep -q '^W108 (warning): secret content written readable by group or others$' \
  "$TMP/out"
check "explain: shared = true" grep -q 'shared = true' "$TMP/out"

finish
