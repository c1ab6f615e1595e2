#!/usr/bin/env bash
# Files and templates beside the site: site.file reads a regular file below
# the site's directory (never outside it, never through a link leading out,
# never a FIFO); template() renders substitutions, conditions and loops
# byte-exact; every mistake is an error naming the template's line and the
# site's; a secret in a template keeps the result secret; a real run writes
# the rendered file.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

cd "$TMP"
mkdir -p site/files site/templates site/roles
printf 'worker_processes 2;\n\tkeep\ttabs  \n' >site/files/nginx.conf
printf 'no newline at the end' >site/files/raw

cat >site/templates/vhost.conf <<'EOF'
# {{ site.name }} ({{ env | upper }})
server {
  listen {{ port }};
{% if tls %}
  ssl_certificate /etc/ssl/{{ site.name }}.pem;
{% elif redirect is defined %}
  return 301 {{ redirect }};
{% else %}
  # plain http
{% endif %}
{% for n in names %}
  server_name {{ n }};{{ " # last of " ~ loop.index if loop.last }}
{% endfor %}
{# a comment leaves no line #}
{% for k, v in headers %}
  add_header {{ k }} "{{ v }}";
{% endfor %}
  upstreams {{ ups | join(" ") }}; log {{ log | default("off") }};
}
EOF

cat >site/site.lua <<EOF
local vars = {
  site = { name = "www.example.org" }, env = "prod", port = 8080, tls = false,
  names = { "a.example.org", "b.example.org" }, headers = { X_B = "2", X_A = "1" },
  ups = { "10.0.0.1", "10.0.0.2" },
}
host "box" {
  connect.dir "$TMP/tree",
  os.debian("bookworm", "amd64"),
  file.has_content("/etc/nginx/nginx.conf", site.file "files/nginx.conf"),
  file.has_content("/etc/raw", site.file "files/raw"),
  file.has_content("/etc/nginx/sites-enabled/www", template("templates/vhost.conf", vars)),
  file.has_content("/etc/motd", template.text("hello {{ who }}\n", { who = "ops" })),
}
EOF

want_vhost='# www.example.org (PROD)
server {
  listen 8080;
  # plain http
  server_name a.example.org;
  server_name b.example.org; # last of 2
  add_header X_A "1";
  add_header X_B "2";
  upstreams 10.0.0.1 10.0.0.2; log off;
}'

run_prop "$TMP/lint.out" lint site/site.lua
[[ "$rc" == 0 ]] && pass || fail "lint of a site with files and templates" "exit $rc" "$TMP/lint.out"

mkdir -p tree/etc/nginx/sites-enabled
run_prop "$TMP/run.out" run site/site.lua box
[[ "$rc" == 0 ]] && pass || fail "run of a site with files and templates" "exit $rc" "$TMP/run.out"
if cmp -s site/files/nginx.conf tree/etc/nginx/nginx.conf; then pass; else
  fail "site.file: byte-exact" "tree/etc/nginx/nginx.conf differs" "$TMP/run.out"
fi
if cmp -s site/files/raw tree/etc/raw; then pass; else
  fail "site.file: no newline added" "tree/etc/raw differs"
fi
if [[ "$(cat tree/etc/nginx/sites-enabled/www)" == "$want_vhost" ]] &&
  [[ "$(tail -c 2 tree/etc/nginx/sites-enabled/www | od -An -c | tr -d ' ')" == '}\n' ]]; then
  pass
else
  fail "template: rendered byte-exact" "got:" tree/etc/nginx/sites-enabled/www
fi
[[ "$(cat tree/etc/motd)" == "hello ops" ]] && pass || fail "template.text" "got $(cat tree/etc/motd)"
run_prop "$TMP/run2.out" run site/site.lua box --json
if [[ "$rc" == 0 ]] && grep -q '"changed":0' "$TMP/run2.out"; then pass; else
  fail "second run changes nothing" "exit $rc" "$TMP/run2.out"
fi

# The other branches of the template.
cat >site/branches.lua <<'EOF'
local base = { site = { name = "s" }, env = "e", port = 1, names = {}, headers = {}, ups = {} }
local function with(extra)
  local t = {}
  for k, v in pairs(base) do t[k] = v end
  for k, v in pairs(extra) do t[k] = v end
  return template("templates/vhost.conf", t)
end
print(with { tls = true })
print("--")
print(with { tls = false, redirect = "https://s/" })
EOF
run_prop "$TMP/br.out" lint site/branches.lua
if grep -q 'ssl_certificate /etc/ssl/s.pem;' "$TMP/br.out" && grep -q 'return 301 https://s/;' "$TMP/br.out" &&
  ! grep -q 'plain http' "$TMP/br.out"; then pass; else
  fail "template: if, elif and else" "branches not chosen as they should be" "$TMP/br.out"
fi

# A secret in a template: the result is a secret (never shown).
cat >site/secret.lua <<'EOF'
local t = template.text("password={{ pw }}\n", { pw = secret "db_password" })
print(tostring(t))
host "box" { os.debian("bookworm", "amd64"), file.has_content("/etc/app.conf", t) }
EOF
run_prop "$TMP/sec.out" lint site/secret.lua
if grep -q '^<secret db_password>$' "$TMP/sec.out" &&
  grep -q 'site/secret.lua:3: error\[P015\]: secret "db_password" is used on host "box"' "$TMP/sec.out"; then
  pass
else
  fail "template: a secret keeps the result secret" "not shown as <secret ...>, or not a use of it" "$TMP/sec.out"
fi

# refused NAME WANT-TEXT SITE-TEXT : lint of a site with that text exits 2
# and says WANT-TEXT.
refused() {
  local name="$1" want="$2"
  printf '%s\n' "$3" >site/bad.lua
  run_prop "$TMP/bad.out" lint site/bad.lua
  if [[ "$rc" == 2 ]] && grep -qF -- "$want" "$TMP/bad.out"; then pass; else
    fail "$name" "exit $rc (want 2) or no \"$want\" in the output" "$TMP/bad.out"
  fi
}

ln -s /etc/passwd site/files/passwd
ln -s ../../outside site/files/up
mkdir outside
echo x >outside/x
mkfifo site/files/fifo
refused "site.file: .. refused" 'site/bad.lua:1: error[P012]: site.file: "../site.lua" leads outside' \
  'local x = site.file "../site.lua"'
refused "site.file: absolute path refused" 'site/bad.lua:1: error[P012]: site.file: "/etc/passwd" must be a path relative' \
  'local x = site.file "/etc/passwd"'
refused "site.file: a link out refused" 'site/bad.lua:2: error[P012]: site.file: "files/passwd" resolves outside' \
  '-- a link to /etc/passwd
local x = site.file "files/passwd"'
refused "site.file: a directory link out refused" 'error[P012]: site.file: "files/up/x" resolves outside' \
  'local x = site.file "files/up/x"'
refused "site.file: a FIFO refused, no hang" 'site/bad.lua:1: error[P000]: site.file: cannot read "files/fifo": a FIFO' \
  'local x = site.file "files/fifo"'
refused "site.file: a missing file" 'site/bad.lua:1: error[P000]: site.file: cannot read "files/nope" beside the site: No such file' \
  'local x = site.file "files/nope"'
refused "site.file: not a string" 'site/bad.lua:1: error[P012]: site.file: the path must be a string' \
  'local x = site.file(42)'
refused "template: an undefined variable names the template's line" \
  'site/templates/vhost.conf:1: error[P000]: "site.name" is not defined' \
  'local x = template("templates/vhost.conf", { env = "x" })'
if grep -qF 'site/bad.lua:1: note: called from here' "$TMP/bad.out"; then pass; else
  fail "template: the error names the site's line too" "no note" "$TMP/bad.out"
fi
refused "template.text: an unclosed if" 'template:2: error[P000]: {% if %} is never closed by {% endif %}' \
  'local x = template.text("a\n{% if x %}\nb\n", { x = true })'
refused "template.text: an unknown tag" 'template:1: error[P000]: unknown tag {% include x %}' \
  'local x = template.text("{% include x %}", {})'
refused "template.text: an unclosed expression" 'template:3: error[P000]: "{{" is never closed' \
  'local x = template.text("a\nb\nc {{ x", {})'
refused "template.text: a bad expression" 'template:1: error[P000]: an expression is missing in "t +"' \
  'local x = template.text("{{ t + }}", { t = 1 })'
refused "template.text: an unknown filter" 'template:1: error[P000]: unknown filter "shout"' \
  'local x = template.text("{{ t | shout }}", { t = "x" })'
refused "template.text: a stray endfor" 'template:2: error[P000]: {% endfor %} without the {% for %}' \
  'local x = template.text("a\n{% endfor %}", {})'
refused "template: a missing template file" 'site/bad.lua:1: error[P000]: site.file: cannot read "templates/none"' \
  'local x = template("templates/none", {})'

finish
