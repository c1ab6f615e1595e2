#!/usr/bin/env bash
# PostgreSQL for real, inside one Docker container made by the test (from
# the cached bookworm tree, with this machine's dockerd; nothing listens
# on this machine): postgresql.installed installs and starts it, then
# roles (a password from the site's store), databases, grants, lines of
# pg_hba.conf and an extension are made by a first run and left alone by
# a second; a privilege granted and a password changed behind prop's back
# are put right; the password is on no command line in the container
# while prop runs; names with quotes are names; a dry run changes
# nothing; revert drops and revokes; a line of pg_hba.conf PostgreSQL
# refuses is put back.  Bad arguments are P012 at their
# line.  The image and the container are named prop-test-* and removed
# on exit.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# ---- arguments, checked before anything runs ---------------------------------
cat >"$TMP/bad.lua" <<'EOF'
host "db" {
  os.debian("bookworm", "amd64"),
  postgresql.installed(),
  postgresql.role("app", { password = "hunter2", login = true }),
  postgresql.database("", { owner = "app" }),
  postgresql.grant("app", { on = "tabel x", privileges = { "SELECT" } }),
  postgresql.grant("app", { on = "database x", privileges = { "SELECT" } }),
  postgresql.hba { type = "hots", database = "all", user = "all", method = "md5" },
  postgresql.extension("hstore", { db = "x" }),
  postgresql.role("app2", { login = "yes" }),
  postgresql.installed { port = 5432 },
}
EOF
run_prop "$TMP/bad.out" lint "$TMP/bad.lua"
same "bad arguments: exit" "$rc" 2
check "a plain password is P012 at its line" grep -q 'bad.lua:4: error\[P012\]: postgresql.role: password must be a secret (secret "name"' "$TMP/bad.out"
check "an empty name" grep -q 'bad.lua:5: error\[P012\]: postgresql.database: name must not be empty' "$TMP/bad.out"
check "a grant on what?" grep -q 'bad.lua:6: error\[P012\]: postgresql.grant: on "tabel x" must be "database NAME"' "$TMP/bad.out"
check "a privilege of another kind" grep -q 'bad.lua:7: error\[P012\]: postgresql.grant: privileges: SELECT is not a privilege on a database' "$TMP/bad.out"
check "an hba type" grep -q 'bad.lua:8: error\[P012\]: postgresql.hba: type "hots" must be one of .*(did you mean "host"?)' "$TMP/bad.out"
check "an unknown option" grep -q 'bad.lua:9: error\[P012\]: unknown key "db" for postgresql.extension' "$TMP/bad.out"
check "an attribute is a boolean" grep -q 'bad.lua:10: error\[P012\]: postgresql.role: login must be true or false' "$TMP/bad.out"
check "postgresql.installed takes no options" grep -q 'bad.lua:11: error\[P012\]: unknown key "port" for postgresql.installed' "$TMP/bad.out"

cat >"$TMP/order.lua" <<'EOF'
host "db" {
  os.debian("bookworm", "amd64"),
  postgresql.database "app",
  postgresql.installed(),
}
EOF
run_prop "$TMP/order.out" lint "$TMP/order.lua"
same "the server after its user: exit" "$rc" 2
check "the server after its user: P016" grep -q 'order.lua:3: error\[P016\]: "postgresql database app" uses service "postgresql"' "$TMP/order.out"
cat >"$TMP/show.lua" <<'EOF'
host "db" {
  os.debian("bookworm", "amd64"),
  postgresql.installed(),
  postgresql.database "app",
}
EOF
run_prop "$TMP/show.out" show "$TMP/show.lua" db
check "show: postgresql installed declares 5432" grep -q 'postgresql installed : DebianLike, ports 5432' "$TMP/show.out"

# ---- without PostgreSQL: a dry run says what it would do -------------------------
mkdir -p "$TMP/bare/etc"
cat >"$TMP/bare.lua" <<EOF
host "bare" {
  connect.dir "$TMP/bare",
  os.debian("bookworm", "amd64"),
  postgresql.database "app",
}
EOF
prop_run "$TMP/bare-dry.out" "$TMP/bare.lua" --dry-run
same "no server, dry run: exit" "$rc" 0
check "no server, dry run: it would create it once installed" grep -q 'would create the database app once PostgreSQL is installed' "$TMP/bare-dry.out"
prop_run "$TMP/bare.out" "$TMP/bare.lua"
same "no server: exit" "$rc" 1
check "no server: says what is missing" grep -q 'postgresql.database app: PostgreSQL is not installed' "$TMP/bare.out"

# ---- Docker -------------------------------------------------------------------
docker_up
rootfs_cache
docker_test "prop-test-postgresql-img-$$" "prop-test-postgresql-$$"

VALUE="Pg-pw 'q\"x\$1 $$"
gpg_test_key 'Prop PostgreSQL Test <pg@example.invalid>'

write_site() { # PROPERTIES...
  local extra
  extra="$(printf '  %s,\n' "$@")"
  cat >"$TMP/site.lua" <<EOF
local base = docker.image("$IMG", os.debian("$SUITE", "$ARCH"), { cache = "$ROOTFS_CACHE" })
local db = docker.container("$CTR", base, {
  postgresql.installed(),
$extra
})
host "localhost" {
  os.debian("$SUITE", "$ARCH"),
  docker.running(db),
}
EOF
}
write_site 'postgresql.role("app", { password = secret "app_pw", login = true, createdb = true })' \
  "postgresql.role(\"o'ne\\\"il\", { login = true })" \
  'postgresql.database("app", { owner = "app", encoding = "UTF8", template = "template0" })' \
  "postgresql.database(\"it's\", { owner = \"o'ne\\\"il\" })" \
  "postgresql.grant(\"o'ne\\\"il\", { on = \"database app\", privileges = { \"CONNECT\" } })" \
  "postgresql.grant(\"o'ne\\\"il\", { on = \"schema public\", database = \"app\", privileges = { \"USAGE\" } })" \
  'postgresql.hba({ "host app app 127.0.0.1/32 scram-sha-256", { type = "host", database = "it'"'"'s", user = "all", address = "::1/128", method = "reject" } }, { version = "15" })' \
  'postgresql.extension("hstore", { database = "app" })'
cp "$TMP/site.lua" "$TMP/site1.lua"
"$PROP" secret recipients "$TMP/site.lua" add "$FPR" >/dev/null 2>&1
printf %s "$VALUE" | "$PROP" secret set "$TMP/site.lua" app_pw >/dev/null 2>&1

# sql [DB] SQL : what psql as postgres prints for SQL in the container.
sql() {
  local db=postgres
  if [[ $# -gt 1 ]]; then db="$1"; shift; fi
  printf '%s\n' "$1" | docker exec -i "$CTR" runuser -u postgres -- psql -X -A -t -q -d "$db" 2>&1 || true
}
# login PASSWORD : whether app logs in to app over TCP with PASSWORD.
login() {
  printf %s "$1" | docker exec -i "$CTR" sh -c \
    'PGPASSWORD="$(cat)" psql -X -A -t -h 127.0.0.1 -U app -d app -c "SELECT 42"' 2>/dev/null | grep -qx 42
}
# Every command line in the container, polled until stop_poll.
start_poll() {
  docker exec "$CTR" rm -f /tmp/stop-poll
  docker exec "$CTR" sh -c 'while [ ! -e /tmp/stop-poll ]; do
      for f in /proc/[0-9]*/cmdline; do tr "\0" " " <"$f" 2>/dev/null; echo; done
    done' >>"$TMP/cmdlines" 2>/dev/null &
  poller=$!
}
stop_poll() {
  docker exec "$CTR" touch /tmp/stop-poll
  wait "$poller" || true
}

# ---- installed, everything made --------------------------------------------------
docker image rm -f "$IMG" >/dev/null 2>&1 || true
PROP_RUN_TIMEOUT=900 prop_run "$TMP/r1.out" "$TMP/site.lua"
same "first run: exit" "$rc" 0
same "first run: the container's changes" "$(changed_inside "$TMP/r1.out")" "9/0"
check "postgresql is installed" inside dpkg-query -W postgresql
same "the role's attributes" "$(sql "SELECT rolcanlogin, rolcreatedb, rolsuper FROM pg_roles WHERE rolname = 'app'")" "t|t|f"
same "the role with quotes" "$(sql "SELECT rolcanlogin FROM pg_roles WHERE rolname = 'o''ne\"il'")" "t"
same "the database, its owner and encoding" "$(sql "SELECT pg_get_userbyid(datdba), pg_encoding_to_char(encoding) FROM pg_database WHERE datname = 'app'")" "app|UTF8"
same "the database with a quote" "$(sql "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'it''s'")" "o'ne\"il"
same "the stored password is SCRAM" "$(sql "SELECT left(rolpassword, 14) FROM pg_authid WHERE rolname = 'app'")" 'SCRAM-SHA-256$'
check "app logs in with the store's password" login "$VALUE"
if login "wrong"; then fail "a wrong password is refused" "it logged in"; else pass; fi
check "the password is in no output" bash -c "! grep -qF -- \"\$1\" '$TMP/r1.out'" _ "$VALUE"
same "the grant on the database" "$(sql "SELECT string_agg(privilege_type, ',' ORDER BY privilege_type) FROM pg_database d, aclexplode(d.datacl) a WHERE d.datname = 'app' AND a.grantee = (SELECT oid FROM pg_roles WHERE rolname = 'o''ne\"il')")" "CONNECT"
same "the grant on the schema" "$(sql app "SELECT has_schema_privilege('o''ne\"il', 'public', 'USAGE')")" "t"
same "the extension" "$(sql app "SELECT extname FROM pg_extension WHERE extname = 'hstore'")" "hstore"
HBA=/etc/postgresql/15/main/pg_hba.conf
same "pg_hba.conf: prop's block after postgres' own line" \
  "$(inside sed -n '/^local *all *postgres *peer/,/^# END prop/p' "$HBA" | grep -v '^#' | tr -s ' ')" \
  "$(printf 'local all postgres peer\nhost app app 127.0.0.1/32 scram-sha-256\nhost it'"'"'s all ::1/128 reject')"
same "pg_hba.conf: the server has the rules, without errors" \
  "$(sql "SELECT database[1] || '|' || auth_method FROM pg_hba_file_rules WHERE error IS NULL AND (database[1] = 'app' OR database[1] = 'it''s') ORDER BY line_number")" \
  "$(printf "app|scram-sha-256\nit's|reject")"
same "pg_hba.conf: loaded" "$(sql "SELECT (pg_stat_file('$HBA')).modification <= pg_conf_load_time()")" "t"

# ---- a second run changes nothing --------------------------------------------------
prop_run "$TMP/r2.out" "$TMP/site.lua"
same "second run: nothing changed" "$rc/$(changed_inside "$TMP/r2.out")" "0/0/0"

# ---- behind prop's back: a privilege, a password, an attribute ------------------------
sql "GRANT TEMPORARY ON DATABASE app TO \"o'ne\"\"il\"; ALTER ROLE app NOCREATEDB PASSWORD 'wrong'" >/dev/null
check "behind prop's back: the password is wrong" login wrong
prop_run "$TMP/r3d.out" "$TMP/site.lua" --dry-run
same "behind prop's back, dry run: two would change" "$rc/$(changed_inside "$TMP/r3d.out")" "0/2/0"
check "dry run: says it would revoke" grep -q 'would revoke TEMPORARY on database app' "$TMP/r3d.out"
check "dry run: the password still wrong" login wrong
start_poll
prop_run "$TMP/r3.out" "$TMP/site.lua"
stop_poll
same "behind prop's back: two repaired" "$rc/$(changed_inside "$TMP/r3.out")" "0/2/0"
same "the extra privilege was revoked" "$(sql "SELECT string_agg(privilege_type, ',' ORDER BY privilege_type) FROM pg_database d, aclexplode(d.datacl) a WHERE d.datname = 'app' AND a.grantee = (SELECT oid FROM pg_roles WHERE rolname = 'o''ne\"il')")" "CONNECT"
same "the attribute was put back" "$(sql "SELECT rolcreatedb FROM pg_roles WHERE rolname = 'app'")" "t"
check "the password was repaired" login "$VALUE"
check "said so" grep -q 'set the password of the role app (the stored one differs)' "$TMP/r3.out"
check "the poller saw prop's commands" grep -q 'psql' "$TMP/cmdlines"
check "the password is on no command line" bash -c "! grep -qF -- \"\$1\" '$TMP/cmdlines'" _ "$VALUE"

# ---- tables: one named with a quote, and all of a schema's --------------------------
sql app "CREATE TABLE items (x int); CREATE TABLE \"it's\" (y int)" >/dev/null
write_site 'postgresql.role("app", { password = secret "app_pw", login = true, createdb = true })' \
  "postgresql.role(\"o'ne\\\"il\", { login = true })" \
  'postgresql.role "reader"' \
  "postgresql.grant(\"o'ne\\\"il\", { on = \"table public.it's\", database = \"app\", privileges = { \"SELECT\", \"INSERT\" } })" \
  'postgresql.grant("reader", { on = "all tables in schema public", database = "app", privileges = { "SELECT" } })'
prop_run "$TMP/r4.out" "$TMP/site.lua"
same "tables: three changed" "$rc/$(changed_inside "$TMP/r4.out")" "0/3/0"
same "tables: the quoted table's privileges" "$(sql app "SELECT has_table_privilege('o''ne\"il', 'public.\"it''s\"', 'SELECT'), has_table_privilege('o''ne\"il', 'public.\"it''s\"', 'INSERT'), has_table_privilege('o''ne\"il', 'public.items', 'SELECT')")" "t|t|f"
same "tables: the reader reads both" "$(sql app "SELECT has_table_privilege('reader', 'public.items', 'SELECT'), has_table_privilege('reader', 'public.\"it''s\"', 'SELECT'), has_table_privilege('reader', 'public.items', 'UPDATE')")" "t|t|f"
sql app "GRANT UPDATE ON items TO reader" >/dev/null
prop_run "$TMP/r5.out" "$TMP/site.lua"
same "tables: a privilege added behind prop's back is revoked" "$rc/$(changed_inside "$TMP/r5.out")/$(sql app "SELECT has_table_privilege('reader', 'public.items', 'UPDATE')")" "0/1/0/f"
check "everything else is still there" test "$(sql "SELECT count(*) FROM pg_database WHERE datname IN ('app', 'it''s')")" = 2

# ---- a name made to break out of its quotes stays a name ------------------------------
write_site "postgresql.role(\"x'; DROP DATABASE app; --\")" \
  "postgresql.database(\"y\\\"; DROP DATABASE app; --\")"
prop_run "$TMP/r6.out" "$TMP/site.lua"
same "injection: two made" "$rc/$(changed_inside "$TMP/r6.out")" "0/2/0"
same "injection: the role has that name" "$(sql "SELECT count(*) FROM pg_roles WHERE rolname = 'x''; DROP DATABASE app; --'")" 1
same "injection: the database has that name" "$(sql "SELECT count(*) FROM pg_database WHERE datname = 'y\"; DROP DATABASE app; --'")" 1
same "injection: app is still there" "$(sql "SELECT count(*) FROM pg_database WHERE datname = 'app'")" 1

# ---- a line PostgreSQL refuses is put back ---------------------------------------------
before="$(inside cat "$HBA")"
write_site 'postgresql.hba { "host app app 127.0.0.1/32 no-such-method" }'
prop_run "$TMP/r7.out" "$TMP/site.lua"
same "bad hba line: it failed" "$rc/$(changed_inside "$TMP/r7.out")" "1/0/1"
check "bad hba line: PostgreSQL's message" grep -q 'PostgreSQL refuses /etc/postgresql/15/main/pg_hba.conf' "$TMP/r7.out"
same "bad hba line: the file put back" "$(inside cat "$HBA")" "$before"

# ---- revert: a dry run changes nothing, a run drops and revokes ------------------------
write_site "revert(postgresql.grant(\"o'ne\\\"il\", { on = \"table public.it's\", database = \"app\", privileges = { \"SELECT\", \"INSERT\" } }))" \
  'revert(postgresql.grant("reader", { on = "all tables in schema public", database = "app", privileges = { "SELECT" } }))' \
  "revert(postgresql.grant(\"o'ne\\\"il\", { on = \"database app\", privileges = { \"CONNECT\" } }))" \
  'revert(postgresql.extension("hstore", { database = "app" }))' \
  'revert(postgresql.hba({ "host app app 127.0.0.1/32 scram-sha-256" }, { version = "15" }))' \
  'revert(postgresql.database "app")' \
  "revert(postgresql.database \"it's\")" \
  'revert(postgresql.role "app")' \
  "revert(postgresql.role \"o'ne\\\"il\")" \
  'revert(postgresql.role "reader")'
prop_run "$TMP/r8d.out" "$TMP/site.lua" --dry-run
same "revert, dry run: ten would change" "$rc/$(changed_inside "$TMP/r8d.out")" "0/10/0"
same "revert, dry run: nothing dropped" "$(sql "SELECT count(*) FROM pg_database WHERE datname IN ('app', 'it''s')")" 2
same "revert, dry run: the privilege kept" "$(sql app "SELECT has_table_privilege('reader', 'public.items', 'SELECT')")" t
prop_run "$TMP/r8.out" "$TMP/site.lua"
same "revert: ten changed" "$rc/$(changed_inside "$TMP/r8.out")" "0/10/0"
same "revert: the databases dropped" "$(sql "SELECT count(*) FROM pg_database WHERE datname IN ('app', 'it''s')")" 0
same "revert: the roles dropped" "$(sql "SELECT count(*) FROM pg_roles WHERE rolname IN ('app', 'o''ne\"il', 'reader')")" 0
check "revert: prop's block gone from pg_hba.conf" bash -c "! docker exec $CTR grep -q 'prop' $HBA"
same "revert: pg_hba.conf loaded again" "$(sql "SELECT (pg_stat_file('$HBA')).modification <= pg_conf_load_time()")" "t"
prop_run "$TMP/r9.out" "$TMP/site.lua"
same "revert again: nothing to do" "$rc/$(changed_inside "$TMP/r9.out")" "0/0/0"

finish
