#!/usr/bin/env bash
# Secrets at run time, with a real gpg (keys made in a scratch GNUPGHOME)
# and a real sshd on loopback: lint on a machine without the private key
# still checks the store (P015 names what is missing, and where); a run
# writes a secret as a file's content and on a command's standard input,
# on this machine and over SSH; and the value is found nowhere else: not
# in any output mode (text, --diff, --json, show, graph, claims, the
# REPL), not in the command line of any process while the run goes on
# (/proc/*/cmdline, read during a command that waits), not in a
# temporary file.  Everything is under the test's scratch directories.
set -u
export PROP_RUN_TIMEOUT="${PROP_RUN_TIMEOUT:-120}"
unset SSH_AUTH_SOCK
# shellcheck source=tests/run/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../run/common.sh"
# shellcheck source=tests/ssh/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

if ! command -v gpg >/dev/null 2>&1; then
  echo "FAIL: gpg is not installed (apt-get install gnupg)"
  exit 1
fi

VALUE='pw-Zq8xLk2mW9vTr4'
gpg_test_key 'Prop Run Test <run@example.invalid>'

ssh_start target
S="$TMP/scratch"
mkdir -p "$S/local" "$S/remote"

# The property that runs a command gives it the secret on standard input
# and waits for a file to appear: while it waits, every command line of
# the machine is read.
cat >"$TMP/site.lua" <<EOF
local pw = secret "db_password"
local function body(dir)
  return {
    file.has_content(dir .. "/pw", pw, { mode = "0600" }),
    file.has_content(dir .. "/dsn", "postgres://app:" .. pw .. "@db/app\n"),
    property {
      desc = "gives it on stdin", claims = { files = { dir .. "/stdin" } },
      apply = function(sys)
        sys:run({ "sh", "-c", "cat >'" .. dir .. "/stdin'; touch '" .. dir .. "/waiting'; "
                  .. "i=0; while [ ! -e '" .. dir .. "/go' ] && [ \$i -lt 200 ]; do sleep 0.05; "
                  .. "i=\$((i+1)); done" }, { stdin = pw })
      end,
    },
  }
end
host "localhost" { os.debian("bookworm", "amd64"), body "$S/local" }
host "remote" {
  connect.ssh { address = "$SSH_HOST", port = $SSH_PORT, identity = "$SSH_KEY",
                known_hosts = "$SSH_KNOWN_HOSTS" },
  os.debian("bookworm", "amd64"),
  body "$S/remote",
}
EOF
cd "$TMP"

# ---- no value yet: P015, with every line that uses it ----------------------
run_prop "$TMP/out" lint site.lua
same "no store: lint rejects" "$rc" 2
same "no store: P015 at each use, on each host" "$(grep -c 'error\[P015\]' "$TMP/out")" 6

"$PROP" secret recipients site.lua add "$FPR" >/dev/null 2>&1
printf '%s' "$VALUE" | "$PROP" secret set site.lua db_password --host localhost >/dev/null 2>&1
run_prop "$TMP/out" lint site.lua
same "a value for one host: P015 for the other" "$(grep -c 'P015.*on host "remote"' "$TMP/out")" 3
check "...and none for the host that has one" test "$(grep -c 'P015.*on host "localhost"' "$TMP/out")" = 0
printf '%s' "$VALUE" | "$PROP" secret set site.lua db_password >/dev/null 2>&1

# ---- lint without the private key: names only --------------------------------
GNUPGHOME="$TMP/nokey"
mkdir -m 700 "$GNUPGHOME"
export GNUPGHOME
run_prop "$TMP/out" lint site.lua
same "lint without any key: clean" "$rc" 0
export GNUPGHOME="$TMP/gnupg"

# ---- the run, with every command line watched -------------------------------
watch_cmdlines() {
  # Until the run ends: each time a command of the run waits, read every
  # process's command line (this machine is the SSH target too).
  local dir
  while kill -0 "$1" 2>/dev/null; do
    for dir in "$S/local" "$S/remote"; do
      if [[ -e "$dir/waiting" && ! -e "$dir/go" ]]; then
        cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\0' ' ' >>"$TMP/cmdlines"
        echo >>"$TMP/cmdlines"
        touch "$dir/go"
      fi
    done
    sleep 0.02
  done
}
: >"$TMP/cmdlines"
"$PROP" run site.lua --diff >"$TMP/run.txt" 2>&1 &
pid=$!
watch_cmdlines "$pid"
wait "$pid"
rc=$?
same "run: exit" "$rc" 0
check "the command lines were read during both runs" test "$(wc -l <"$TMP/cmdlines")" -ge 2
for dir in local remote; do
  same "$dir: the file holds the value" "$(cat "$S/$dir/pw")" "$VALUE"
  same "$dir: mode 0600" "$(stat -c %a "$S/$dir/pw")" 600
  same "$dir: joined with strings" "$(cat "$S/$dir/dsn")" "postgres://app:$VALUE@db/app"
  same "$dir: on standard input" "$(cat "$S/$dir/stdin")" "$VALUE"
  rm -f "$S/$dir/waiting" "$S/$dir/go"
done
"$PROP" run site.lua --json >"$TMP/run.json" 2>&1 &
pid=$!
watch_cmdlines "$pid"
wait "$pid"
same "second run: pw and dsn ok" "$(grep -c '"result":"ok"' "$TMP/run.json")" 4

# ---- the value is nowhere else ----------------------------------------------------
"$PROP" run site.lua --dry-run --diff >"$TMP/dry.txt" 2>&1 || true
"$PROP" show site.lua >"$TMP/show.txt" 2>&1 || true
"$PROP" graph site.lua remote >"$TMP/graph.txt" 2>&1 || true
"$PROP" claims site.lua "$S" --json >"$TMP/claims.txt" 2>&1 || true
"$PROP" secret list site.lua >"$TMP/list.txt" 2>&1 || true
printf '%s\n' 's = secret "db_password"' 'print(s, tostring(s), string.format("%s", s))' \
  's' ':type s' 'print(site.hosts()[1].properties[2].claims[1].value)' \
  ':claims /' | "$PROP" repl site.lua >"$TMP/repl.txt" 2>&1 || true
check "the REPL shows <secret db_password>" grep -q '<secret db_password>' "$TMP/repl.txt"
for f in run.txt run.json dry.txt show.txt graph.txt claims.txt list.txt repl.txt cmdlines; do
  if grep -qF "$VALUE" "$TMP/$f"; then
    fail "never shown: $f" "the value is in it" "$TMP/$f"
  else
    pass
  fi
done
check "--diff hides it" grep -q 'secret content, diff not shown' "$TMP/run.txt"
check "no temporary file left" test -z "$(find "$S" -name '.*.prop-*')"
check "the store holds no plain value" bash -c "! grep -qF '$VALUE' '$TMP/site.secrets'"

# ---- a missing key at run time: a clear failure, nothing written --------------------
rm -f "$S/local/pw"
GNUPGHOME="$TMP/nokey" run_prop "$TMP/out" run site.lua localhost
same "no key: the property fails" "$rc" 1
check "no key: said so" grep -q 'secret "db_password"' "$TMP/out"
check "no key: nothing written" test ! -e "$S/local/pw"

finish
