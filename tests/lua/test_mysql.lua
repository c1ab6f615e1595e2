-- prop.mysql: the argument errors of the MariaDB recipes (the lint
-- reports each as P012 at the line that made the property).
local T = require "check"
local M = prop_module "mysql"

local function bad(what, want, f, ...)
   T.eq(T.invalid(f, ...), want, what)
end

-- mysql.installed
bad("installed: no options", 'unknown key "port" for mysql.installed (expected no options)', M.installed,
    { port = 3306 })
T.eq(T.invalid(M.installed), nil, "installed: fine")

-- mysql.database
bad("database: empty name", "mysql.database: name must not be empty", M.database, "")
bad("database: a number", "mysql.database: name must be a non-empty string, got number 3", M.database, 3)
T.err(T.invalid(M.database, ("d"):rep(65)), "is longer than 64 characters", "database: too long")
bad("database: a blank at the end", 'mysql.database: name "app " ends with a blank', M.database, "app ")
bad("database: encoding not a name",
    'mysql.database: encoding "utf8; DROP" must be a name such as "utf8mb4" or "utf8mb4_unicode_ci"',
    M.database, "app", { encoding = "utf8; DROP" })
bad("database: unknown option", 'unknown key "charset" for mysql.database (expected collation, encoding)',
    M.database, "app", { charset = "utf8mb4" })
T.eq(T.invalid(M.database, "o'd`b", { encoding = "utf8mb4", collation = "utf8mb4_bin" }), nil,
     "database: quotes and backticks are a name")

-- mysql.user
T.err(T.invalid(M.user, "app", { password = "hunter2" }),
      'mysql.user: password must be a secret (secret "name" from the site\'s store), got string '
      .. '"hunter2": a password is never written in the site', "user: a plain password")
bad("user: unknown plugin",
    'mysql.user: plugin "ed25519" must be one of mysql_native_password, unix_socket',
    M.user, "app", { plugin = "ed25519" })
bad("user: a plugin misspelt",
    'mysql.user: plugin "unix_sockt" must be one of mysql_native_password, unix_socket '
    .. '(did you mean "unix_socket"?)', M.user, "app", { plugin = "unix_sockt" })
bad("user: native without a password",
    'mysql.user: plugin mysql_native_password needs a password = secret "name"',
    M.user, "app", { plugin = "mysql_native_password" })
bad("user: unix_socket with a password",
    "mysql.user: plugin unix_socket takes no password (it logs in the system user of the same name)",
    M.user, "app", { plugin = "unix_socket", password = secret "pw" })
bad("user: a host with a blank",
    'mysql.user: host "a b" must be a host name, an address or a pattern such as "localhost", '
    .. '"10.0.0.%" or "%"', M.user, "app", { host = "a b" })
bad("user: empty name", "mysql.user: name must not be empty", M.user, "")
T.eq(T.invalid(M.user, "app", { password = secret "pw", host = "10.0.0.%" }), nil, "user: fine")
T.eq(T.invalid(M.user, "q'u`x"), nil, "user: unix_socket by default")

-- mysql.grant
bad("grant: no options",
    'mysql.grant: give the options as a table such as { on = "app.*", privileges = { "SELECT" } }, '
    .. "got nothing", M.grant, "app")
bad("grant: on missing", 'mysql.grant: on is missing: "*.*", "DATABASE.*" or "DATABASE.TABLE"',
    M.grant, "app", { privileges = { "SELECT" } })
bad("grant: privileges missing", 'mysql.grant: privileges is missing: a list such as { "SELECT" }',
    M.grant, "app", { on = "app.*" })
bad("grant: on without a dot", 'mysql.grant: on "app" must be "*.*", "DATABASE.*" or "DATABASE.TABLE"',
    M.grant, "app", { on = "app", privileges = { "SELECT" } })
bad("grant: a wildcard table", 'mysql.grant: on "app.t*" must be "*.*", "DATABASE.*" or "DATABASE.TABLE"',
    M.grant, "app", { on = "app.t*", privileges = { "SELECT" } })
bad("grant: ALL", "mysql.grant: privileges: ALL is not taken: list the privileges the account needs",
    M.grant, "app", { on = "app.*", privileges = { "all privileges" } })
bad("grant: a typo", 'mysql.grant: privileges: "SELEC" is not a privilege on a database (did you mean "SELECT"?)',
    M.grant, "app", { on = "app.*", privileges = { "SELEC" } })
bad("grant: a global privilege on a database", 'mysql.grant: privileges: "SUPER" is not a privilege on a database',
    M.grant, "app", { on = "app.*", privileges = { "SUPER" } })
bad("grant: EXECUTE on a table", 'mysql.grant: privileges: "EXECUTE" is not a privilege on a table',
    M.grant, "app", { on = "app.t", privileges = { "EXECUTE" } })
bad("grant: an empty list", "mysql.grant: privileges must not be an empty list",
    M.grant, "app", { on = "app.*", privileges = {} })
bad("grant: GRANT OPTION",
    "mysql.grant: privileges: GRANT OPTION is not taken (USAGE is no privilege; GRANT OPTION is never granted)",
    M.grant, "app", { on = "*.*", privileges = { "grant option" } })
T.eq(T.invalid(M.grant, "app", { on = "*.*", privileges = { "super", "process" } }), nil,
     "grant: global privileges on *.*")
T.eq(T.invalid(M.grant, "app", { on = "app.t", privileges = { "select", " show  view " } }), nil,
     "grant: a table, names in any case and spacing")

-- mysql.setting
bad("setting: a blank in the name",
    'mysql.setting: name "max connections" is not valid: expected a variable name such as "max_connections"',
    M.setting, "max connections", 1)
bad("setting: a newline in the value",
    'mysql.setting: value "1\\n2" contains a newline: a setting is one line', M.setting, "x", "1\n2")
bad("setting: a comment sign",
    'mysql.setting: value "1#0" must not be empty nor contain #, ;, quotes or backslashes',
    M.setting, "x", "1#0")
bad("setting: a table", "mysql.setting: value must be a string, an integer or a boolean, got a table", M.setting, "x", {})
bad("setting: three arguments", "mysql.setting takes a name and a value",
    M.setting, "x", 1, 2)
T.eq(T.invalid(M.setting, "skip-name-resolve", true), nil, "setting: a boolean")

T.done()
