#!/usr/bin/env bash
# MariaDB for real, inside one Docker container made by the test (from the
# cached bookworm tree, with this machine's dockerd; nothing listens on
# this machine): mysql.installed installs mariadb-server and starts it;
# mysql.database, mysql.user, mysql.grant and mysql.setting change on the
# first run and not on the second; a privilege granted and a password set
# behind prop's back are put right by the next run (a dry run only says
# so); a setting the running server lost is found by its probe and the
# server restarted; names holding quotes and backticks are only names;
# the password (a secret) is on no command line in the container while
# prop runs, and in no output; revert drops, revokes and takes settings
# out.  Bad arguments are P012 at their line.  The image and container
# are named prop-test-* and removed on exit.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# ---- arguments, checked before anything runs ---------------------------------
cat >"$TMP/bad.lua" <<'EOF'
host "db" {
  os.debian("bookworm", "amd64"),
  mysql.installed(),
  mysql.user("app", { password = "hunter2" }),
  mysql.database(""),
  mysql.grant("app", { on = "app", privileges = { "SELECT" } }),
  mysql.grant("app", { on = "app.*", privileges = { "ALL" } }),
  mysql.grant("app", { on = "app.*", privileges = { "SELEC" } }),
  mysql.setting("max connections", 1),
  mysql.user("x", { plugin = "ed25519" }),
  mysql.database("a", { encoding = "utf8; DROP" }),
  mysql.setting("wait_timeout", "1#0"),
}
EOF
run_prop "$TMP/bad.out" lint "$TMP/bad.lua"
same "bad arguments: exit" "$rc" 2
check "a plain password is refused: use a secret" grep -q 'bad.lua:4: error\[P012\]: mysql.user: password must be a secret (secret "name" from the site.s store), got string "hunter2"' "$TMP/bad.out"
check "an empty database name" grep -q 'bad.lua:5: error\[P012\]: mysql.database: name must not be empty' "$TMP/bad.out"
check "on without a table part" grep -q 'bad.lua:6: error\[P012\]: mysql.grant: on "app" must be "\*.\*", "DATABASE.\*" or "DATABASE.TABLE"' "$TMP/bad.out"
check "ALL is refused" grep -q 'bad.lua:7: error\[P012\]: mysql.grant: privileges: ALL is not taken' "$TMP/bad.out"
check "an unknown privilege, with a suggestion" grep -q 'bad.lua:8: error\[P012\]: mysql.grant: privileges: "SELEC" is not a privilege on a database (did you mean "SELECT"?)' "$TMP/bad.out"
check "a setting name with a blank" grep -q 'bad.lua:9: error\[P012\]: mysql.setting: name "max connections" is not valid' "$TMP/bad.out"
check "an unknown plugin" grep -q 'bad.lua:10: error\[P012\]: mysql.user: plugin "ed25519" must be one of' "$TMP/bad.out"
check "an encoding that is not a name" grep -q 'bad.lua:11: error\[P012\]: mysql.database: encoding "utf8; DROP" must be a name' "$TMP/bad.out"
check "a value with a comment sign" grep -q 'bad.lua:12: error\[P012\]: mysql.setting: value "1#0" must not' "$TMP/bad.out"

cat >"$TMP/types.lua" <<'EOF'
host "db" {
  os.debian("bookworm", "amd64"),
  mysql.database "app",
  mysql.installed(),
  mysql.setting("max_connections", 100),
  mysql.setting("max-connections", 200),
}
EOF
run_prop "$TMP/types.out" lint "$TMP/types.lua"
same "types: exit" "$rc" 2
check "a database before the server that runs it is P016" grep -q 'types.lua:3: error\[P016\]' "$TMP/types.out"
check "one option given two values is P007" grep -q 'types.lua:[56]: error\[P007\]' "$TMP/types.out"

# ---- Docker -------------------------------------------------------------------
docker_up
command -v gpg >/dev/null 2>&1 || skip_missing gnupg "no gpg on this machine"
rootfs_cache
docker_test "prop-test-mysql-img-$$" "prop-test-mysql-$$"

VALUE="Pw'x\`y;\"z \$1 $$"
gpg_test_key 'Prop MySQL Test <mysql@example.invalid>'

# Names that would end the quoting of a naive recipe.
EVIL_DB="o'db\`; DROP DATABASE app; --"
EVIL_USER="q'u\`x"

write_site() { # PROPERTIES...
  local extra
  extra="$(printf '  %s,\n' "$@")"
  cat >"$TMP/site.lua" <<EOF
local base = docker.image("$IMG", os.debian("$SUITE", "$ARCH"), { cache = "$ROOTFS_CACHE" })
local db = docker.container("$CTR", base, {
  mysql.installed(),
$extra
})
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  docker.running(db),
}
EOF
  "$PROP" secret recipients "$TMP/site.lua" add "$FPR" >/dev/null 2>&1 || true
}
EVIL_DB_LUA="\"o'db\`; DROP DATABASE app; --\""
EVIL_USER_LUA="\"q'u\`x\""
ALL=(
  'mysql.database("app", { encoding = "utf8mb4", collation = "utf8mb4_unicode_ci" })'
  "mysql.database($EVIL_DB_LUA)"
  'mysql.user("app", { password = secret "app_pw" })'
  "mysql.user($EVIL_USER_LUA, { password = secret \"app_pw\", host = \"localhost\" })"
  'mysql.user("sockuser")'
  'mysql.grant("app", { on = "app.*", privileges = { "SELECT", "INSERT" } })'
  "mysql.grant($EVIL_USER_LUA, { on = \"o'db\`; DROP DATABASE app; --.*\", privileges = { \"select\" } })"
  'mysql.setting("max_connections", 123)'
  'mysql.setting("max-allowed-packet", "32M")'
)
write_site "${ALL[@]}"
printf %s "$VALUE" | "$PROP" secret set "$TMP/site.lua" app_pw >/dev/null 2>&1

# ctr_result OUT DESC : the result of the container's property DESC.
ctr_result() {
  grep '"event":"property"' "$1" | grep -F "\"host\":\"localhost/$CTR\"" |
    grep -F "\"desc\":\"$2\"" | head -1 | sed -n 's/.*"result":"\([a-z]*\)".*/\1/p'
}
sql() { docker exec -i "$CTR" mysql --protocol=socket -N -B; }
login() { # USER : the secret's value logs USER in over TCP
  printf 'SELECT CURRENT_USER();\n' | docker exec -i -e MYSQL_PWD="$1" "$CTR" \
    mysql --protocol=socket -u "$2" -N -B 2>&1 || true
}
# The command lines of the container's processes, read over and over
# while prop runs (docker exec of a reading loop), into $TMP/cmdlines.
watch_start() {
  docker exec "$CTR" sh -c 'while :; do for f in /proc/[0-9]*/cmdline; do tr "\0" " " <"$f"; echo; done 2>/dev/null; done' \
    >>"$TMP/cmdlines" 2>/dev/null &
  watcher=$!
}
watch_stop() {
  kill "$watcher" 2>/dev/null || true
  wait "$watcher" 2>/dev/null || true
  docker exec "$CTR" sh -c 'pkill -f "while :; do for f in /proc" || true' >/dev/null 2>&1 || true
}
: >"$TMP/cmdlines"

# ---- first run: installed, every property changed ---------------------------------
docker image rm -f "$IMG" >/dev/null 2>&1 || true
PROP_RUN_TIMEOUT=900 prop_run "$TMP/r1.out" "$TMP/site.lua"
same "first run: exit" "$rc" 0
check "mariadb-server installed" inside dpkg-query -W mariadb-server
for d in "mysql installed" "mysql database app" "mysql user app@localhost" "mysql user sockuser@localhost" \
  "mysql grant INSERT,SELECT on app.* to app@localhost" "mysql setting max_connections = 123" \
  "mysql setting max_allowed_packet = 32M"; do
  same "first run: $d changed" "$(ctr_result "$TMP/r1.out" "$d")" changed
done
same "the database's character set" "$(echo "SELECT DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'app'" | sql)" \
  "$(printf 'utf8mb4\tutf8mb4_unicode_ci')"
same "the odd database name is one database" "$(echo "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'o''db\`; DROP DATABASE app; --'" | sql)" 1
same "the odd user is one account" "$(echo "SELECT COUNT(*) FROM mysql.user WHERE User = 'q''u\`x'" | sql)" 1
same "the odd grant" "$(echo "SHOW GRANTS FOR 'q''u\`x'@'localhost'" | sql | grep -c 'GRANT SELECT ON `o'"'"'db``; DROP DATABASE app; --`.\*')" 1
same "app logs in with the secret" "$(login "$VALUE" app)" "app@localhost"
same "the odd user logs in with the secret" "$(login "$VALUE" "$EVIL_USER")" "$EVIL_USER@localhost"
same "app's privileges on app.*" "$(echo "SHOW GRANTS FOR app@localhost" | sql | grep -F 'ON `app`.*')" \
  'GRANT SELECT, INSERT ON `app`.* TO `app`@`localhost`'
same "sockuser is identified by unix_socket" "$(echo "SELECT plugin FROM mysql.user WHERE User = 'sockuser'" | sql)" unix_socket
same "both settings in one file" "$(inside grep -c -E '^(max_connections = 123|max_allowed_packet = 32M)$' /etc/mysql/mariadb.conf.d/60-prop.cnf)" 2
same "the server holds them" "$(echo 'SELECT @@max_connections, @@max_allowed_packet' | sql)" "$(printf '123\t33554432')"
same "restarted once for both" "$(grep -c 'mariadb restarted: it holds the options' "$TMP/r1.out")" 1

# ---- second run: nothing changes, the probes hold -------------------------------------
watch_start
prop_run "$TMP/r2.out" "$TMP/site.lua"
watch_stop
same "second run: exit" "$rc" 0
same "second run: nothing changed" "$(changed_inside "$TMP/r2.out")" "0/0"
check "second run: the settings' probes held" bash -c "! grep -q 'verify' '$TMP/r2.out'"

# ---- behind prop's back ------------------------------------------------------------
printf '%s\n' "GRANT UPDATE, DELETE ON app.* TO app@localhost WITH GRANT OPTION;" \
  "SET PASSWORD FOR app@localhost = PASSWORD('not the secret');" \
  "SET GLOBAL max_connections = 77;" | sql
same "setup: the extra privileges are there" "$(echo "SHOW GRANTS FOR app@localhost" | sql | grep -cF 'UPDATE, DELETE ON `app`.*')" 1
same "setup: the secret no longer logs in" "$(login "$VALUE" app | grep -c 'Access denied')" 1
prop_run "$TMP/d3.out" "$TMP/site.lua" --dry-run
same "dry run: exit" "$rc" 1
same "dry run: the grant would change" "$(ctr_result "$TMP/d3.out" "mysql grant INSERT,SELECT on app.* to app@localhost")" changed
check "dry run: says what it would revoke" grep -q 'would revoke DELETE, UPDATE; would revoke GRANT OPTION on app.\* for app@localhost' "$TMP/d3.out"
same "dry run: the password would be set" "$(ctr_result "$TMP/d3.out" "mysql user app@localhost")" changed
check "dry run: the setting's probe sees the server" grep -q 'would fail: verify: SELECT @@max_connections gives 77, want 123' "$TMP/d3.out"
same "dry run: the privileges are still there" "$(echo "SHOW GRANTS FOR app@localhost" | sql | grep -cF 'UPDATE, DELETE ON `app`.*')" 1
same "dry run: the password is still the other" "$(login "$VALUE" app | grep -c 'Access denied')" 1
watch_start
prop_run "$TMP/r3.out" "$TMP/site.lua"
watch_stop
same "repair: exit" "$rc" 0
same "repair: three changed" "$(changed_inside "$TMP/r3.out")" "3/0"
check "repair: mariadb was not restarted twice" grep -q 'mariadb was restarted in this run already' "$TMP/r3.out"
same "repair: only SELECT, INSERT again" "$(echo "SHOW GRANTS FOR app@localhost" | sql | grep -F 'ON `app`.*')" \
  'GRANT SELECT, INSERT ON `app`.* TO `app`@`localhost`'
same "repair: the secret logs in again" "$(login "$VALUE" app)" "app@localhost"
check "repair: the password was set" grep -q 'set the password of app@localhost (it differed)' "$TMP/r3.out"
same "repair: the server restarted with the setting" "$(echo 'SELECT @@max_connections' | sql)" 123
check "repair: said why" grep -q 'mariadb restarted: it did not hold the setting' "$TMP/r3.out"

# ---- the secret: on no command line, in no output ----------------------------------
check "the command lines were read while prop ran mysql" grep -q -- "--protocol=socket" "$TMP/cmdlines"
check "the secret's statement was seen running" grep -q "SET @prop_pw = X'" "$TMP/cmdlines"
HEX="$(printf %s "$VALUE" | od -An -v -tx1 | tr -d ' \n')"
check "the secret is on no command line" bash -c "! grep -qF -- \"\$1\" '$TMP/cmdlines'" _ "$VALUE"
check "nor its hexadecimal form" bash -c "! grep -qiF -- '$HEX' '$TMP/cmdlines'"
check "the secret is in no output" bash -c "! grep -qF -- \"\$1\" '$TMP'/r[1-3].out '$TMP/d3.out'" _ "$VALUE"

# ---- revert --------------------------------------------------------------------------
write_site \
  'mysql.database("app", { encoding = "utf8mb4", collation = "utf8mb4_unicode_ci" })' \
  "revert(mysql.database($EVIL_DB_LUA))" \
  'mysql.user("app", { password = secret "app_pw" })' \
  "revert(mysql.user($EVIL_USER_LUA, { password = secret \"app_pw\" }))" \
  'revert(mysql.grant("app", { on = "app.*", privileges = { "SELECT", "INSERT" } }))' \
  'mysql.setting("max_connections", 123)' \
  'revert(mysql.setting("max-allowed-packet", "32M"))'
prop_run "$TMP/r5.out" "$TMP/site.lua"
same "revert: exit" "$rc" 0
same "revert: four changed, and the restart" "$(changed_inside "$TMP/r5.out")" "5/0"
same "revert: the odd database dropped, app kept" \
  "$(echo "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME IN ('app', 'o''db\`; DROP DATABASE app; --')" | sql)" 1
same "revert: the odd user dropped" "$(echo "SELECT COUNT(*) FROM mysql.user WHERE User = 'q''u\`x'" | sql)" 0
same "revert: app has no privilege on app.*" "$(echo "SHOW GRANTS FOR app@localhost" | sql | grep -cF 'ON `app`.*' || true)" 0
same "revert: the line is out of the file" "$(inside grep -c max_allowed_packet /etc/mysql/mariadb.conf.d/60-prop.cnf || true)" 0
same "revert: the server has its default again" "$(echo 'SELECT @@max_allowed_packet, @@max_connections' | sql)" "$(printf '16777216\t123')"
prop_run "$TMP/r6.out" "$TMP/site.lua"
same "revert, again: nothing changed" "$(changed_inside "$TMP/r6.out")" "0/0"

# ---- an option the server does not know: refused before it is written ------------------
write_site 'mysql.setting("max_connections", 123)' 'mysql.setting("prop_no_such_option", 1)'
prop_run "$TMP/r7.out" "$TMP/site.lua"
same "unknown option: exit" "$rc" 1
same "unknown option: it alone failed" "$(changed_inside "$TMP/r7.out")" "0/1"
check "unknown option: says why" grep -q 'mysql.setting prop_no_such_option: the server has no variable prop_no_such_option: nothing written' "$TMP/r7.out"
same "unknown option: not in the file" "$(inside grep -c prop_no_such_option /etc/mysql/mariadb.conf.d/60-prop.cnf || true)" 0
check "unknown option: the server still runs" inside mysqladmin --protocol=socket ping

finish
