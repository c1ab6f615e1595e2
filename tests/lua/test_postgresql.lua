-- prop.postgresql: every bad argument is a clear P012 message (the lint
-- reports it at the caller's line), a good call is not invalid.
local T = require "check"
local pg = prop_module "postgresql"
local core = prop_module "core"

local function msg(f, ...) return T.invalid(f, ...) end

-- installed
T.eq(msg(pg.installed), nil, "installed: no arguments")
T.eq(msg(pg.installed, { port = 5432 }), 'unknown key "port" for postgresql.installed (expected no options)',
     "installed: an option")

-- database
T.eq(msg(pg.database, "app", { owner = "app", encoding = "UTF8", template = "template0" }), nil,
     "database: a good call")
T.eq(msg(pg.database, "it's"), nil, "database: a quote is a name")
T.eq(msg(pg.database, ""), "postgresql.database: name must not be empty", "database: empty name")
T.eq(msg(pg.database, 3), "postgresql.database: name must be a non-empty string, got number 3", "database: a number")
T.eq(msg(pg.database, "a\nb"), 'postgresql.database: name "a\\nb" must not contain control characters',
     "database: a newline")
T.err(msg(pg.database, string.rep("x", 64)), "is 64 bytes long: PostgreSQL's names have at most 63",
      "database: too long")
T.eq(msg(pg.database, string.rep("x", 63)), nil, "database: 63 bytes")
T.eq(msg(pg.database, "app", { encoding = "UTF 8" }),
     'postgresql.database: encoding "UTF 8" is not valid: expected an encoding name such as "UTF8"',
     "database: a bad encoding")
T.eq(msg(pg.database, "app", { ownr = "x" }), 'unknown key "ownr" for postgresql.database (did you mean "owner"?)',
     "database: a typo")

-- role
T.eq(msg(pg.role, "app", { password = core.secret "app_pw", login = true, createdb = true }), nil,
     "role: a good call")
T.eq(msg(pg.role, "app", { password = "hunter2" }),
     'postgresql.role: password must be a secret (secret "name" from the site\'s store), got string "hunter2": '
     .. "a password is never written in the site", "role: a plain password")
T.eq(msg(pg.role, "app", { superuser = "yes" }), 'postgresql.role: superuser must be true or false, got string "yes"',
     "role: an attribute not a boolean")
T.eq(msg(pg.role, "app", { logn = true }), 'unknown key "logn" for postgresql.role (did you mean "login"?)',
     "role: a typo")

-- grant
T.eq(msg(pg.grant, "app", { on = "database app", privileges = { "connect", "temp" } }), nil,
     "grant: a good call")
T.eq(msg(pg.grant, "app", { on = "all tables in schema public", database = "app", privileges = { "ALL" } }), nil,
     "grant: all tables")
T.eq(msg(pg.grant, "app", { on = "table s.t", database = "app", privileges = { "SELECT" } }), nil,
     "grant: a table")
T.eq(msg(pg.grant, "app"),
     'postgresql.grant: takes a role and a table { on = "database x", privileges = { "CONNECT" } }: '
     .. "on and privileges are required", "grant: no options")
T.eq(msg(pg.grant, "app", { on = "tabel x", privileges = { "SELECT" } }),
     'postgresql.grant: on "tabel x" must be "database NAME", "schema NAME", "table [SCHEMA.]NAME" or '
     .. '"all tables in schema NAME"', "grant: a bad on")
T.eq(msg(pg.grant, "app", { on = "schema s", privileges = { "SELECT", "DELETE" } }),
     "postgresql.grant: privileges: SELECT, DELETE are not a privilege on a schema (expected USAGE, CREATE or ALL)",
     "grant: privileges of another kind")
T.eq(msg(pg.grant, "app", { on = "database app", database = "x", privileges = { "CONNECT" } }),
     "postgresql.grant: database= is for a schema or a table: a grant on a database names it in on=",
     "grant: database= for a database")
T.eq(msg(pg.grant, "app", { on = "database app", privileges = {} }),
     "postgresql.grant: privileges must not be an empty list", "grant: no privileges")

-- hba
T.eq(msg(pg.hba, { "host app app 10.0.0.0/8 scram-sha-256",
                   { type = "local", database = "all", user = "all", method = "peer" } }, { version = "15" }),
     nil, "hba: a good call")
T.eq(msg(pg.hba, { type = "host", database = "all", user = "all", address = "::1/128", method = "md5" }), nil,
     "hba: one table")
T.eq(msg(pg.hba, { type = "hots", database = "all", user = "all", method = "md5" }),
     'postgresql.hba: type "hots" must be one of local, host, hostssl, hostnossl, hostgssenc, hostnogssenc '
     .. '(did you mean "host"?)', "hba: a bad type")
T.eq(msg(pg.hba, { type = "host", database = "all", user = "all", method = "md5" }),
     "postgresql.hba: lines lacks address", "hba: host without an address")
T.eq(msg(pg.hba, { "host all all\n::1/128 md5" }),
     'postgresql.hba: lines[1] "host all all\\n::1/128 md5" contains a newline', "hba: a newline")
T.eq(msg(pg.hba, { type = "host", database = "all db", user = "all", address = "::1/128", method = "md5" }),
     'postgresql.hba: database "all db" must not contain blanks or #', "hba: a blank in a field")
T.eq(msg(pg.hba, {}), "postgresql.hba: lines must not be an empty list", "hba: no lines")
T.eq(msg(pg.hba, "local all all peer", { version = "x" }),
     'postgresql.hba: version "x" is not valid: expected a PostgreSQL version such as "15"', "hba: a bad version")

-- extension
T.eq(msg(pg.extension, "pgcrypto", { database = "app" }), nil, "extension: a good call")
T.eq(msg(pg.extension, "hstore", { db = "x" }), 'unknown key "db" for postgresql.extension (expected database)',
     "extension: an unknown option")
T.eq(msg(pg.extension, nil), "postgresql.extension: name must be a non-empty string, got nothing", "extension: no name")

T.done()
