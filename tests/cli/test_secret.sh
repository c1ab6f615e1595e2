#!/usr/bin/env bash
# prop secret, end to end, with the real gpg: keys made for the test in a
# GNUPGHOME under the scratch directory (never ~/.gnupg), two recipients
# A and B.  What the store holds is checked with the gpg command too, so
# that "B's key cannot decrypt" is gpg's word.  The gpg-agents the test
# starts are stopped at the end.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

if ! command -v gpg >/dev/null 2>&1; then
  echo "FAIL: gpg is not installed (apt-get install gnupg)"
  exit 1
fi

export GNUPGHOME="$TMP/gnupg"
homes=("$GNUPGHOME" "$TMP/gnupg-a" "$TMP/gnupg-b" "$TMP/gnupg-empty")
on_exit '[[ -n ${TMUX_SOCK:-} && -S $TMUX_SOCK ]] && tmux -S "$TMUX_SOCK" kill-server'
on_exit 'gpg_agents_stop "${homes[@]}"'

gpgq() { gpg --batch --quiet --pinentry-mode loopback --passphrase '' "$@" 2>/dev/null; }
mkdir -m 700 "$GNUPGHOME"
# A cheap passphrase hash: these keys protect nothing.
echo 's2k-count 65536' >"$GNUPGHOME/gpg-agent.conf"
make_key() { # make_key LETTER : prints the fingerprint
  local who=$1 mail fpr
  mail="$(tr 'A-Z' 'a-z' <<<"$who")@example.invalid"
  gpgq --quick-gen-key "Prop Test $who <$mail>" ed25519 cert,sign never || return 1
  fpr=$(gpg --batch --with-colons --list-keys "$mail" 2>/dev/null | awk -F: '/^fpr/ { print $10; exit }')
  gpgq --quick-add-key "$fpr" cv25519 encr never || return 1
  echo "$fpr"
}
FPR_A=$(make_key A) && FPR_B=$(make_key B) || { echo "FAIL: gpg cannot make keys"; exit 1; }
gpgq --armor --export >"$TMP/pub.asc"
gpgq --armor --export-secret-keys "$FPR_A" >"$TMP/sec-a.asc"
gpgq --armor --export-secret-keys "$FPR_B" >"$TMP/sec-b.asc"
for x in a b; do
  mkdir -m 700 "$TMP/gnupg-$x"
  GNUPGHOME="$TMP/gnupg-$x" gpgq --import "$TMP/pub.asc" "$TMP/sec-$x.asc"
done
mkdir -m 700 "$TMP/gnupg-empty"

mkdir "$TMP/site"
cd "$TMP/site" || exit 1
cat >site.lua <<'EOF'
host "web1" { os.debian("bookworm", "amd64"),
  file.has_content("/etc/db-password", secret "db_password", { mode = "0600" }) }
host "web2" { os.debian("bookworm", "amd64") }
EOF

# set_value NAME VALUE-PRINTF-FORMAT [ARGS...] : pipe a value into prop
# secret set, its output in $TMP/out (OUT, for expect_rc).
set_value() {
  local name=$1 fmt=$2
  shift 2
  OUT="$TMP/out"
  rc=0
  # shellcheck disable=SC2059
  printf "$fmt" | timeout 60 "$PROP" secret set site.lua "$name" "$@" >"$TMP/out" 2>&1 || rc=$?
}

# gpg_plain KEYRING NAME [HOST] : the value of the line "secret NAME [HOST]
# BASE64" as gpg decrypts it with that keyring, into $TMP/plain; gpg's exit
# status (9: no such line).
gpg_plain() {
  local home=$1 name=$2 host=${3:-}
  awk -v n="$name" -v h="$host" '$1 == "secret" && $2 == n && (h == "" ? NF == 3 : NF == 4 && $3 == h) { print $NF }' \
    site.secrets | base64 -d >"$TMP/msg.bin" || return 9
  [[ -s $TMP/msg.bin ]] || return 9
  GNUPGHOME="$home" gpg --batch --quiet --decrypt "$TMP/msg.bin" >"$TMP/plain" 2>/dev/null
}

# ---- help and usage ------------------------------------------------------------
run_prop "$TMP/out" --help
expect_rc "prop --help lists secret" 0 "  secret "
run_prop "$TMP/out" secret --help
expect_rc "prop secret --help" 0 "prop secret recipients SITE [add KEYID | rm KEYID]"
run_prop "$TMP/out" help secret
expect_rc "prop help secret" 0 "prop secret set SITE NAME [--host HOST]"
run_prop "$TMP/out" secret
expect_rc "no subcommand" 64 "prop secret: which of set, list, rm, recipients?"
run_prop "$TMP/out" secret frob site.lua
expect_rc "unknown subcommand" 64 'unknown subcommand "frob"'
run_prop "$TMP/out" secret set
expect_rc "set without a site" 64 "which site file?"
run_prop "$TMP/out" secret set site.lua
expect_rc "set without a name" 64 "which secret?"
run_prop "$TMP/out" secret set site.lua 9lives
expect_rc "a bad name" 64 '"9lives" is not a secret name'
run_prop "$TMP/out" secret set site.lua 'a b'
expect_rc "a name with a blank" 64 "is not a secret name"
run_prop "$TMP/out" secret set site.lua db --host 'web 1'
expect_rc "a host with a blank" 64 "--host takes a host name"
run_prop "$TMP/out" secret set site.lua db --host
expect_rc "--host without a value" 64 "--host needs a host name"
run_prop "$TMP/out" secret list site.lua --host web1
expect_rc "--host with list" 64 "--host goes with set and rm"
run_prop "$TMP/out" secret set site.lua db hunter2
expect_rc "a value as an argument is refused" 64 "too many arguments"
run_prop "$TMP/out" secret recipients site.lua add
expect_rc "recipients add without a key" 64 "needs a KEYID"
run_prop "$TMP/out" secret recipients site.lua frob x
expect_rc "recipients frob" 64 'not "frob"'
run_prop "$TMP/out" secret list site.lua --frob
expect_rc "unknown option" 64 'unknown option "--frob"'
run_prop "$TMP/out" secret list nosuch.lua
expect_rc "a site file that does not exist" 1 "prop secret: nosuch.lua: No such file"

# ---- an empty store -------------------------------------------------------------
run_prop "$TMP/out" secret list site.lua
expect_rc "list without a store" 0 "  none (prop secret recipients site.lua add KEYID)"
set_value db 'x'
expect_rc "set without a recipient" 1 "add one first: prop secret recipients site.lua add KEYID"
if [[ -e site.secrets ]]; then fail "no store" "a failed set made site.secrets"; else pass; fi

# ---- recipients and values ----------------------------------------------------------
run_prop "$TMP/out" secret recipients site.lua add a@example.invalid
expect_rc "add recipient A by e-mail" 0 "added $FPR_A (Prop Test A <a@example.invalid>) to site.secrets"
if [[ $(stat -c %a site.secrets) == 644 ]]; then pass; else fail "mode" "site.secrets is $(stat -c %a site.secrets), not 644"; fi
if head -2 site.secrets | grep -qx 'prop-secrets 1' && grep -qx "recipient $FPR_A Prop Test A <a@example.invalid>" site.secrets; then
  pass
else
  fail "store header" "site.secrets lacks its header or recipient line" site.secrets
fi

set_value db_password 'hunter2\n'
expect_rc "set from a pipe" 0 "set db_password in site.secrets, encrypted to 1 recipient"
if grep -q hunter2 "$TMP/out" site.secrets; then fail "value shown" "the value is in the output or the store"; else pass; fi
# Byte for byte, the trailing newline included, after a line naming it.
printf 'prop-secret db_password\nhunter2\n' >"$TMP/want"
if gpg_plain "$GNUPGHOME" db_password && cmp -s "$TMP/want" "$TMP/plain"; then
  pass
else
  od -c "$TMP/plain" >"$TMP/od" 2>&1
  fail "byte-exact value" "gpg does not decrypt it to the value piped in" "$TMP/od"
fi
printf 'a\0b\377' >"$TMP/bin-value"
rc=0
timeout 60 "$PROP" secret set site.lua blob <"$TMP/bin-value" >"$TMP/out" 2>&1 || rc=$?
expect_rc "a binary value from a file" 0 "set blob"
printf 'prop-secret blob\n' | cat - "$TMP/bin-value" >"$TMP/want"
if gpg_plain "$GNUPGHOME" blob && cmp -s "$TMP/want" "$TMP/plain"; then pass; else fail "binary value" "NUL and 0xff bytes not kept"; fi
set_value db_password 'only-web1-value' --host web1
expect_rc "a value for one host" 0 "set db_password for web1 in site.secrets"
set_value empty ''
expect_rc "an empty value" 0 "set empty"

run_prop "$TMP/out" secret list site.lua
expect_rc "list" 0 "recipients of site.secrets:"
cat >"$TMP/want" <<EOF
recipients of site.secrets:
  $FPR_A  Prop Test A <a@example.invalid>
secrets (* for every host):
  blob         *
  db_password  *
  db_password  web1
  empty        *

where the site uses them:
  db_password  used on web1 by "file /etc/db-password has content (secret)" (site.lua:2)
EOF
if diff -u "$TMP/want" "$TMP/out" >"$TMP/diff"; then pass; else fail "list output" "not as expected" "$TMP/diff"; fi

# list needs no key at all: an empty keyring.
rc=0
GNUPGHOME="$TMP/gnupg-empty" timeout 60 "$PROP" secret list site.lua --json >"$TMP/out" 2>&1 || rc=$?
expect_rc "list --json without any key" 0
if jq -e --arg a "$FPR_A" '.store == "site.secrets" and .recipients == [{fingerprint: $a, uid: "Prop Test A <a@example.invalid>"}] and
      .secrets == [{name: "blob", host: null}, {name: "db_password", host: null}, {name: "db_password", host: "web1"}, {name: "empty", host: null}]' \
      "$TMP/out" >/dev/null 2>&1; then
  pass
else
  fail "list --json" "not the expected JSON" "$TMP/out"
fi

# ---- recipients: add B, remove B ----------------------------------------------------
gpg_plain "$TMP/gnupg-b" db_password
if [[ $? == 2 ]]; then pass; else fail "B before" "B's key decrypts before B is added"; fi
run_prop "$TMP/out" secret recipients site.lua add "$FPR_B"
expect_rc "add recipient B" 0 "4 values encrypted again"
if gpg_plain "$TMP/gnupg-b" db_password web1 && [[ $(cat "$TMP/plain") == $'prop-secret db_password web1\nonly-web1-value' ]]; then
  pass
else
  fail "B after add" "B's key alone does not decrypt"
fi
run_prop "$TMP/out" secret recipients site.lua add b@example.invalid
expect_rc "add B again" 0 "already lists that key; nothing changed"
run_prop "$TMP/out" secret recipients site.lua
expect_rc "recipients lists both" 0 "$FPR_B  Prop Test B <b@example.invalid>"
run_prop "$TMP/out" secret recipients site.lua rm "${FPR_B: -16}"
expect_rc "remove B by key id" 0 "removed $FPR_B from site.secrets; 4 values encrypted again"
expect_rc "removing warns about old copies" 0 "note: the removed key still decrypts the values as they were"
gpg_plain "$TMP/gnupg-b" db_password
if [[ $? == 2 ]]; then pass; else fail "B after rm" "B's key alone still decrypts"; fi
if gpg_plain "$TMP/gnupg-a" db_password; then pass; else fail "A after rm" "A's key alone does not decrypt"; fi
cp site.secrets "$TMP/before"
run_prop "$TMP/out" secret recipients site.lua rm "$FPR_A"
expect_rc "the last recipient stays" 1 "is the last recipient of site.secrets"
run_prop "$TMP/out" secret recipients site.lua rm "$FPR_B"
expect_rc "removing one not listed" 1 "is not a recipient of site.secrets"
run_prop "$TMP/out" secret recipients site.lua add nobody@example.invalid
expect_rc "adding an unknown key" 1 'no public key in the keyring matches "nobody@example.invalid"'
if cmp -s "$TMP/before" site.secrets; then pass; else fail "refusals" "a refused change changed the store"; fi

# ---- rm -------------------------------------------------------------------------------
run_prop "$TMP/out" secret rm site.lua db_password --host web1
expect_rc "rm a host's value" 0 "removed db_password for web1 from site.secrets"
if grep -q '^secret db_password web1 ' site.secrets; then fail "rm" "the line is still there"; else pass; fi
run_prop "$TMP/out" secret rm site.lua db_password --host web1
expect_rc "rm again" 1 "site.secrets has no value db_password for web1"

# ---- without the secret key: a clear error, nothing changed ------------------------------
gpg --batch --yes --delete-secret-keys "$FPR_A" >/dev/null 2>&1
cp site.secrets "$TMP/before"
run_prop "$TMP/out" secret recipients site.lua add "$FPR_B"
expect_rc "re-encrypting without the secret key" 1 "no secret key in this keyring can decrypt it"
expect_rc "the error names the line" 1 "site.secrets:4: blob:"
if cmp -s "$TMP/before" site.secrets; then pass; else fail "no secret key" "the store changed"; fi
set_value new_one 'still works'
expect_rc "set needs only the public keys" 0 "set new_one"
gpgq --import "$TMP/sec-a.asc"

# ---- bash completion: the names in the store, the recipients ------------------------------
# shellcheck source=../../bindings/prop.bash-completion
source "$PROP_SOURCE_DIR/bindings/prop.bash-completion"
got=$(complete_line secret rm site.lua "")
if [[ $got == "blob db_password empty new_one" ]]; then pass; else echo "$got" >"$TMP/got"; fail "completion of names" "prop secret rm site.lua <Tab>" "$TMP/got"; fi
got=$(complete_line secret recipients site.lua rm "")
if [[ $got == "$FPR_A" ]]; then pass; else echo "$got" >"$TMP/got"; fail "completion of recipients" "prop secret recipients site.lua rm <Tab>" "$TMP/got"; fi

# ---- a damaged store --------------------------------------------------------------------
cp site.secrets "$TMP/good"
head -c -30 "$TMP/good" >site.secrets
cp site.secrets "$TMP/before"
run_prop "$TMP/out" secret list site.lua
expect_rc "a cut store" 1 "prop secret: site.secrets:$(wc -l <"$TMP/good"): the last line has no newline"
set_value x 'y'
expect_rc "no change to a cut store" 1 "the last line has no newline"
if cmp -s "$TMP/before" site.secrets; then pass; else fail "cut store" "it was changed"; fi
sed 's/^prop-secrets 1$/prop-secrets 7/' "$TMP/good" >site.secrets
run_prop "$TMP/out" secret list site.lua
expect_rc "a newer format" 1 "site.secrets:2: format version 7 is not one this prop reads"
cp "$TMP/good" site.secrets

# ---- the store's name follows the site's -------------------------------------------------
cp site.lua prod
run_prop "$TMP/out" secret recipients prod add "$FPR_A"
expect_rc "a site without extension" 0 "to prod.secrets"
if [[ -f prod.secrets ]]; then pass; else fail "prod.secrets" "not made"; fi
run_prop "$TMP/out" secret list site.secrets
expect_rc "the store given as the site" 64 "SITE is the site file, not its store"

# ---- a value typed on a terminal: no echo, asked twice, newline not kept ---------------------
if command -v tmux >/dev/null 2>&1; then
  TMUX_SOCK="$TMP/tmux.sock"
  wait_for() { # wait_for TEXT : poll the pane (up to 20 s)
    local i
    for ((i = 0; i < 200; i++)); do
      tmux -S "$TMUX_SOCK" capture-pane -p >"$TMP/pane" 2>/dev/null
      grep -qF -- "$1" "$TMP/pane" && return 0
      sleep 0.1
    done
    return 1
  }
  tmux -S "$TMUX_SOCK" -f /dev/null new-session -d -x 120 -y 20 \
    "cd '$TMP/site' && GNUPGHOME='$GNUPGHOME' NO_COLOR=1 '$PROP' secret set site.lua typed --host web2; echo \"exit=\$?\"; sleep 60"
  if wait_for "value of typed for web2 (not shown):"; then
    tmux -S "$TMUX_SOCK" send-keys -l 'typed pass phrase'
    tmux -S "$TMUX_SOCK" send-keys Enter
    wait_for "the same again:" &&
      tmux -S "$TMUX_SOCK" send-keys -l 'typed pass phrase' && tmux -S "$TMUX_SOCK" send-keys Enter
    if wait_for "exit=" && grep -q 'exit=0' "$TMP/pane" && ! grep -q 'typed pass' "$TMP/pane"; then
      pass
    else
      fail "terminal" "prop secret set on a terminal: not exit 0, or the value echoed" "$TMP/pane"
    fi
    printf 'prop-secret typed web2\ntyped pass phrase' >"$TMP/want"
    if gpg_plain "$GNUPGHOME" typed web2 && cmp -s "$TMP/want" "$TMP/plain"; then
      pass
    else
      fail "terminal value" "not the line typed (without its newline)"
    fi
  else
    fail "terminal" "no prompt" "$TMP/pane"
  fi
  tmux -S "$TMUX_SOCK" kill-server >/dev/null 2>&1
else
  part_missing tmux "tmux is not installed; the terminal prompt is not checked"
fi

# Nothing printed by any command held a value.
if grep -rqF -e hunter2 -e only-web1-value -e 'typed pass' "$TMP"/out "$TMP"/pane 2>/dev/null; then
  fail "values printed" "a value appears in prop's output"
else
  pass
fi

finish
