#!/usr/bin/env bash
# json.encode, json.quote and yaml.quote: structured content that holds a
# secret.  A password with a quote, a backslash, a newline and non-ASCII
# text, from the site's store (a real gpg, keys in a scratch GNUPGHOME),
# written into JSON and YAML files of a connect.dir tree: python3's json
# and a YAML parser read back exactly the value; the value is in no
# output; a second run changes nothing.  Argument errors are the caller's
# line.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

command -v python3 >/dev/null || skip "no python3"
command -v gpg >/dev/null || skip "no gpg"
gpg_test_key 'Prop JSON Test <json@example.invalid>'

T="$TMP/tree"
mkdir -p "$T/etc"
VALUE=$'pa"ss\\wo:rd\n# not a comment \xc3\xa9 \xf0\x9f\x94\x91 {x}'
cat >"$TMP/site.lua" <<EOF
local app = {
  database = { user = "app", password = secret "db_pw", port = 5432 },
  debug = false, ratio = 0.25, tags = { "web", "eu" }, extra = json.object(), gone = json.null,
}
host "tree" {
  connect.dir "$T",
  file.has_content("/etc/app.json", json.encode(app, { indent = 2 }) .. "\n", { mode = "0600" }),
  file.has_content("/etc/app.yaml", "database:\n  password: " .. yaml.quote(secret "db_pw")
                   .. "\n  name: " .. yaml.quote("it's: #1") .. "\n", { mode = "0600" }),
  file.has_content("/etc/plain.json", json.encode({ b = { 1, 2.5, true }, a = "x\\"y" }) .. "\n"),
}
EOF
"$PROP" secret recipients "$TMP/site.lua" add "$FPR" >/dev/null 2>&1
printf %s "$VALUE" | "$PROP" secret set "$TMP/site.lua" db_pw >/dev/null 2>&1

run_prop "$TMP/lint.out" lint "$TMP/site.lua"
same "the site lints" "$rc" 0
run_prop "$TMP/r1.out" run "$TMP/site.lua"
same "run: exit" "$rc" 0
check "the secret is in no output" bash -c "! grep -qF 'wo:rd' '$TMP/r1.out'"
printf %s "$VALUE" >"$TMP/value"
check "JSON: python3's json reads the secret back exactly" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
want = open(sys.argv[2], encoding="utf-8").read()
assert d["database"]["password"] == want, d["database"]["password"]
assert d["database"]["port"] == 5432 and d["debug"] is False and d["ratio"] == 0.25
assert d["tags"] == ["web", "eu"] and d["extra"] == {} and d["gone"] is None
' "$T/etc/app.json" "$TMP/value"
check "JSON: keys sorted, indented" grep -q '^  "database": {$' "$T/etc/app.json"
check "JSON: only ASCII in the file" bash -c "! LC_ALL=C grep -q '[^ -~]' '$T/etc/app.json'"
same "JSON without a secret: a plain string" "$(cat "$T/etc/plain.json")" '{"a": "x\"y", "b": [1, 2.5, true]}'
if python3 -c 'import yaml' 2>/dev/null; then
  check "YAML: a YAML parser reads the secret back exactly" python3 -c '
import yaml, sys
d = yaml.safe_load(open(sys.argv[1]))
want = open(sys.argv[2], encoding="utf-8").read()
assert d["database"]["password"] == want, d
assert d["database"]["name"] == "it'"'"'s: #1", d
' "$T/etc/app.yaml" "$TMP/value"
else
  # JSON strings are YAML double-quoted scalars: read it as JSON then.
  check "YAML: the quoted value reads back exactly (as a JSON string)" python3 -c '
import json, sys
line = [l for l in open(sys.argv[1]) if "password:" in l][0]
assert json.loads(line.split(": ", 1)[1]) == open(sys.argv[2], encoding="utf-8").read()
' "$T/etc/app.yaml" "$TMP/value"
fi
run_prop "$TMP/r2.out" run "$TMP/site.lua"
same "second run: exit" "$rc" 0
check "second run: nothing changed" grep -q '3 ok' "$TMP/r2.out"

# A new value in the store is quoted again.
printf %s 'plain' | "$PROP" secret set "$TMP/site.lua" db_pw >/dev/null 2>&1
run_prop "$TMP/r3.out" run "$TMP/site.lua"
check "a new value: written" python3 -c '
import json, sys
assert json.load(open(sys.argv[1]))["database"]["password"] == "plain"' "$T/etc/app.json"

# Argument errors, at the caller's line.
cat >"$TMP/bad.lua" <<'EOF'
local ok, e = pcall(json.encode, { f = print })
host "x" {
  file.has_content("/etc/a", json.encode({ [true] = 1 })),
}
EOF
run_prop "$TMP/bad.out" lint "$TMP/bad.lua"
same "bad key: lint fails" "$rc" 2
check "bad key: at its line, saying why" grep -q 'bad.lua:3: error\[P000\]: json.encode: a boolean key cannot be a JSON object' "$TMP/bad.out"
cat >"$TMP/bad2.lua" <<'EOF'
host "x" { file.has_content("/etc/a", yaml.quote({})) }
EOF
run_prop "$TMP/bad2.out" lint "$TMP/bad2.lua"
check "yaml.quote of a table: at its line" grep -q 'bad2.lua:1: error\[P000\]: yaml.quote: needs a string, a number or a secret, got table' "$TMP/bad2.out"
cat >"$TMP/bad3.lua" <<'EOF'
host "x" { file.has_content("/etc/a", json.encode({ 1 }, { indnt = 2 })) }
EOF
run_prop "$TMP/bad3.out" lint "$TMP/bad3.lua"
check "an unknown option: at its line" grep -q 'bad3.lua:1: error\[P000\]: json.encode: unknown option "indnt"' "$TMP/bad3.out"
finish
