#!/usr/bin/env bash
# Jinja templates as Ansible roles write them (a my.cnf with "is defined"
# and a version test, an nginx vhost loop with indent, a php.ini with
# default, bool and an inline if, a JSON file with to_nice_json), kept
# beside a site: prop lint renders them, prop run writes them byte-exact
# into a scratch tree, a second run changes nothing, and a mistake in a
# template is an error naming the template's file and line.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

cd "$TMP"
mkdir -p site/templates tree/etc/mysql tree/etc/nginx/conf.d tree/etc/php tree/etc/docker

cat >site/templates/my.cnf.j2 <<'EOF'
# {{ ansible_managed | default('managed by prop') }}
[client]
port = {{ mysql_port }}
{% if mysql_socket is defined %}
socket = {{ mysql_socket }}
{% endif %}

[mysqld]
{% if mysql_bind_address is defined %}
bind-address = {{ mysql_bind_address }}
{% endif %}
{% if mysql_version is version('8.0', '>=') %}
default_authentication_plugin = caching_sha2_password
{% else %}
query_cache_type = {{ 1 if mysql_query_cache_enabled | bool else 0 }}
{% endif %}
{% for key, value in mysql_config_options.items() %}
{{ key }} = {{ value }}
{% endfor %}
EOF

cat >site/templates/vhosts.conf.j2 <<'EOF'
{% for vhost in nginx_vhosts %}
server {
    listen {{ vhost.listen | default('80') }};
    server_name {{ vhost.server_name | join(' ') }};
{% if vhost.root is defined %}
    root {{ vhost.root }};
{% endif %}
{% if vhost.extra_parameters is defined %}
    {{ vhost.extra_parameters | indent(4) }}
{% endif %}
}
{% endfor %}
EOF

cat >site/templates/php.ini.j2 <<'EOF'
#jinja2: lstrip_blocks: True
[PHP]
memory_limit = {{ php_memory_limit | default('256M') }}
    {% if php_display_errors | default(false) | bool %}
display_errors = On
    {% else %}
display_errors = Off
    {% endif %}
expose_php = {{ 'On' if php_expose_php | bool else 'Off' }}
date.timezone = {{ php_date_timezone | default('UTC', true) }}
disable_functions = {{ php_disable_functions | join(',') }}
{%- if php_extra_lines | length > 0 %}

{{ php_extra_lines | join('\n') }}
{%- endif %}
EOF

printf '%s\n' '{{ docker_daemon_options | to_nice_json }}' >site/templates/daemon.json.j2

cat >site/site.lua <<EOF
host "box" {
  connect.dir "$TMP/tree",
  os.debian("bookworm", "amd64"),
  file.has_content("/etc/mysql/my.cnf", template("templates/my.cnf.j2", {
    mysql_port = 3306, mysql_bind_address = "127.0.0.1", mysql_version = "5.7.44",
    mysql_query_cache_enabled = "yes",
    mysql_config_options = { max_connections = 151, sql_mode = "STRICT_ALL_TABLES" },
  })),
  file.has_content("/etc/nginx/conf.d/vhosts.conf", template("templates/vhosts.conf.j2", {
    nginx_vhosts = {
      { server_name = { "a.test", "www.a.test" }, root = "/srv/a" },
      { listen = "443 ssl", server_name = { "b.test" },
        extra_parameters = "location /api/ {\n    proxy_pass http://127.0.0.1:8080;\n}" },
    },
  })),
  file.has_content("/etc/php/php.ini", template("templates/php.ini.j2", {
    php_expose_php = false, php_date_timezone = "", php_disable_functions = { "exec", "passthru" },
    php_extra_lines = { "upload_max_filesize = 64M", "post_max_size = 64M" },
  })),
  file.has_content("/etc/docker/daemon.json", template("templates/daemon.json.j2", {
    docker_daemon_options = { ["log-driver"] = "json-file", ["log-opts"] = { ["max-size"] = "10m" },
                              ["live-restore"] = true },
  })),
}
EOF

want_mycnf='# managed by prop
[client]
port = 3306

[mysqld]
bind-address = 127.0.0.1
query_cache_type = 1
max_connections = 151
sql_mode = STRICT_ALL_TABLES'

want_vhosts='server {
    listen 80;
    server_name a.test www.a.test;
    root /srv/a;
}
server {
    listen 443 ssl;
    server_name b.test;
    location /api/ {
        proxy_pass http://127.0.0.1:8080;
    }
}'

want_php='[PHP]
memory_limit = 256M
display_errors = Off
expose_php = Off
date.timezone = UTC
disable_functions = exec,passthru
upload_max_filesize = 64M
post_max_size = 64M'

want_daemon='{
    "live-restore": true,
    "log-driver": "json-file",
    "log-opts": {
        "max-size": "10m"
    }
}'

run_prop "$TMP/lint.out" lint site/site.lua
[[ "$rc" == 0 ]] && pass || fail "lint of a site with Jinja templates" "exit $rc" "$TMP/lint.out"

run_prop "$TMP/run.out" run site/site.lua box
[[ "$rc" == 0 ]] && pass || fail "run of a site with Jinja templates" "exit $rc" "$TMP/run.out"

# same NAME FILE WANT : FILE holds WANT and one final newline.
same() {
  if [[ "$(cat "$2")" == "$3" ]] && [[ "$(tail -c 1 "$2" | od -An -c | tr -d ' ')" == '\n' ]] &&
    [[ "$(tail -c 2 "$2" | od -An -c | tr -d ' ')" != '\n\n' ]]; then
    pass
  else
    fail "$1" "got:" "$2"
  fi
}
same "my.cnf: is defined, version, an inline if, items()" tree/etc/mysql/my.cnf "$want_mycnf"
same "vhosts: a loop, join, indent" tree/etc/nginx/conf.d/vhosts.conf "$want_vhosts"
same "php.ini: #jinja2: lstrip_blocks, default(x, true), bool, {%- %}" tree/etc/php/php.ini "$want_php"
same "daemon.json: to_nice_json" tree/etc/docker/daemon.json "$want_daemon"
if command -v python3 >/dev/null 2>&1; then
  python3 -m json.tool tree/etc/docker/daemon.json >/dev/null && pass ||
    fail "daemon.json: valid JSON" "python3 -m json.tool refuses it" tree/etc/docker/daemon.json
fi

run_prop "$TMP/run2.out" run site/site.lua box --json
if [[ "$rc" == 0 ]] && grep -q '"changed":0' "$TMP/run2.out"; then pass; else
  fail "second run changes nothing" "exit $rc" "$TMP/run2.out"
fi

# refused NAME WANT-TEXT TEMPLATE : a site rendering templates/bad.j2
# holding TEMPLATE fails lint with exit 2 and says WANT-TEXT (the
# template's file and line), and writes nothing.
refused() {
  local name="$1" want="$2"
  printf '%s\n' "$3" >site/templates/bad.j2
  cat >site/bad.lua <<EOF
host "box" {
  connect.dir "$TMP/tree",
  os.debian("bookworm", "amd64"),
  file.has_content("/etc/bad.conf", template("templates/bad.j2", { port = 80, l = { 1, 2 } })),
}
EOF
  run_prop "$TMP/bad.out" lint site/bad.lua
  if [[ "$rc" == 2 ]] && grep -qF -- "$want" "$TMP/bad.out" && grep -qF 'site/bad.lua:4: note: called from here' "$TMP/bad.out" &&
    ! grep -q 'stack traceback' "$TMP/bad.out"; then
    pass
  else
    fail "$name" "exit $rc (want 2) or no \"$want\" and the site's line in the output" "$TMP/bad.out"
  fi
  run_prop "$TMP/badrun.out" run site/bad.lua box
  if [[ "$rc" != 0 ]] && [[ ! -e tree/etc/bad.conf ]]; then pass; else
    fail "$name: run" "exit $rc, or tree/etc/bad.conf written" "$TMP/badrun.out"
  fi
}

refused "an undefined variable" 'site/templates/bad.j2:3: error[P000]: "mysql_port" is not defined' \
  $'a\nb\nport = {{ mysql_port }}'
refused "an unknown filter" 'site/templates/bad.j2:2: error[P000]: unknown filter "to_yamll"' \
  $'x\n{{ l | to_yamll }}'
refused "an unknown test" 'site/templates/bad.j2:1: error[P000]: unknown test "versions"' \
  "{% if '1' is versions('2') %}{% endif %}"
refused "an unclosed if" 'site/templates/bad.j2:2: error[P000]: {% if %} is never closed by {% endif %}' \
  $'x\n{% if port > 1 %}\ny'
refused "a bad expression" 'site/templates/bad.j2:1: error[P000]: an expression is missing in "port +"' \
  '{{ port + }}'
refused "an unclosed tag" 'site/templates/bad.j2:2: error[P000]: "{{" is never closed by "}}"' \
  $'ok\n{{ port'
refused "a bad version operator" 'site/templates/bad.j2:1: error[P000]: version: unknown operator "newer"' \
  "{{ '1' is version('2', 'newer') }}"

finish
