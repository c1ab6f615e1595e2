-- prop.mysql: MariaDB (the mysql of the Debian family): the server, its
-- databases, accounts, privileges and server options.
--
-- Every property talks to the server through its local socket as root
-- (root@localhost is identified by unix_socket on Debian): the mysql
-- client runs as root with --protocol=socket and reads its SQL on
-- standard input; no password is ever on a command line.  Names are
-- written as quoted identifiers (`name`, a backtick doubled) and compared
-- as hexadecimal literals (X'6170'), so a name holding a quote, a
-- backtick or a backslash is only ever that name.  A password (a secret)
-- reaches the target on the standard input of sh, which turns it into a
-- hexadecimal literal with od on its way to mysql: its value is in no
-- command line, no output and no message.

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local conf = require "prop.conf"
local R = require "prop.runtime"

local mysql = {}

local fmt = string.format
local concat = table.concat

local SERVICE = "mariadb"
local PACKAGE = "mariadb-server"
local CNF = "/etc/mysql/mariadb.conf.d/60-prop.cnf"
local USES = { services = { SERVICE } }
local INSTALL = "is MariaDB installed and running? (mysql.installed())"

local CLIENT = { "mysql", "--protocol=socket", "--user=root", "--batch", "--skip-column-names" }

local impl = { installed = {}, database = {}, database_absent = {}, user = {}, user_absent = {},
               grant = {}, grant_absent = {}, setting = {}, restart = {} }

-- ---------------------------------------------------------------------
-- SQL.

-- A quoted identifier: `name`, a backtick doubled.
local function ident(s)
   return "`" .. s:gsub("`", "``") .. "`"
end

-- A string literal that holds s whatever its bytes: X'hex'.
local function lit(s)
   return "X'" .. s:gsub(".", function(c) return fmt("%02x", c:byte()) end) .. "'"
end

-- `user`@`host`, as GRANT and CREATE USER take it.
local function account(a)
   return ident(a.user) .. "@" .. ident(a.host)
end

-- 'user'@'host', as information_schema writes a grantee.
local function grantee(a)
   return fmt("CONCAT('''', %s, '''@''', %s, '''')", lit(a.user), lit(a.host))
end

-- Why the server cannot be asked (its client missing, nothing on its
-- socket), from the result of a mysql that failed; nil when it answered.
local function unreachable(r)
   if r.code == 127 then return "the mysql client is missing" end
   local e = r.stderr or ""
   if e:find("ERROR 2002", 1, true) or e:find("Can't connect to local", 1, true) then
      return "nothing answers on its socket (MariaDB is not running)"
   end
   return nil
end

-- "what: mysql exited with N: <what it printed>".
local function sql_failed(what, r) R.command_failed(what, { "mysql" }, r) end

-- Asks the server (it only looks, so it also runs in a dry run): its
-- output, or nil and why it could not be asked.  An SQL error fails the
-- property.
local function ask(sys, what, sql)
   local r = sys:query(CLIENT, { stdin = sql })
   if r.code == 0 then return r.stdout end
   local why = unreachable(r)
   if why then return nil, why end
   sql_failed(what, r)
end

-- Changes something (a dry run only says it would).
local function tell(sys, what, sql)
   local r = sys:run(CLIENT, { stdin = sql, ok = "any" })
   if r.code ~= 0 then sql_failed(what, r) end
end

-- The server could not be asked: a dry run says what it would do once it
-- can (and counts as a change); a run fails and says why.
local function cannot_ask(sys, what, why, would)
   if sys.dry then
      sys:note(fmt("%s once MariaDB runs (%s)", would, why))
      return true
   end
   R.fail("%s: the server cannot be asked: %s: %s", what, why, INSTALL)
end

-- The lines of output, each split at tabs.
local function rows(out)
   local t = {}
   for l in out:gmatch("[^\n]+") do
      local f = {}
      for x in (l .. "\t"):gmatch("([^\t]*)\t") do f[#f + 1] = x end
      t[#t + 1] = f
   end
   return t
end

-- sql run with the secret's bytes in the user variable @prop_pw: sh reads
-- the secret on its standard input and od writes it as hexadecimal into
-- the SQL it pipes to mysql (printf is sh's own: nothing runs with the
-- secret in its arguments).
local SECRET_SH = [[
pre=$1 post=$2
shift 2
{ printf '%s' "$pre"; od -An -v -tx1 | tr -d ' \n'; printf '%s' "$post"; } | "$@"
]]

local function secret_argv(sql)
   local argv = { "sh", "-c", SECRET_SH, "sh", "SET @prop_pw = X'",
                  "';\n" .. sql .. "\nSET @prop_pw = NULL;\n" }
   for _, w in ipairs(CLIENT) do argv[#argv + 1] = w end
   return argv
end

local function ask_secret(sys, what, sql, secret)
   local r = sys:query(secret_argv(sql), { stdin = secret })
   if r.code == 0 then return r.stdout end
   local why = unreachable(r)
   if why then return nil, why end
   sql_failed(what, r)
end

local function tell_secret(sys, what, sql, secret)
   local r = sys:run(secret_argv(sql), { stdin = secret, ok = "any" })
   if r.code ~= 0 then sql_failed(what, r) end
end

-- ---------------------------------------------------------------------
-- mysql.installed

function impl.installed.ensure(sys)
   local changed = R.apt_install(sys, "mysql.installed", { PACKAGE })
   if R.ensure_running(sys, SERVICE) then changed = true end
   return changed
end

--[[ mysql.installed()
  DebianLike, not revertable, port 3306.
  Claims: package.installed mariadb-server, service.running mariadb.
  Run time: apt-installs mariadb-server when missing, then starts the
  mariadb service when it is not running.
  Example:
    mysql.installed()
]]
function mysql.installed(a, ...)
   local err = args.no_args("mysql.installed", a, ...)
   if err then return core.invalid("mysql installed", err) end
   return core.leaf{ desc = "mysql installed", targets = "DebianLike", impl = impl.installed,
                     args = {},
                     claims = { claim.package_installed(PACKAGE), claim.service_running(SERVICE) },
                     ports = { 3306 },
                     norevert = 'mysql.installed has no revert action: use apt.removed "'
                        .. PACKAGE .. '" to remove it' }
end

-- ---------------------------------------------------------------------
-- mysql.database

local function schema_row(sys, what, name)
   local out, why = ask(sys, what, "SELECT DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME "
                        .. "FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = " .. lit(name)
                        .. ";\n")
   if out == nil then return nil, why end
   return rows(out)[1] or false
end

local function charset_clause(a)
   local s = ""
   if a.encoding then s = s .. " CHARACTER SET " .. a.encoding end
   if a.collation then s = s .. " COLLATE " .. a.collation end
   return s
end

function impl.database.ensure(sys, a)
   local what = "mysql.database " .. a.name
   local row, why = schema_row(sys, what, a.name)
   if row == nil then return cannot_ask(sys, what, why, "would create the database") end
   if row == false then
      tell(sys, what, "CREATE DATABASE " .. ident(a.name) .. charset_clause(a) .. ";\n")
      sys:note(fmt("%s the database %s", sys.dry and "would create" or "created", a.name))
      return true
   end
   local cs, co = row[1], row[2]
   if (a.encoding and cs ~= a.encoding) or (a.collation and co ~= a.collation) then
      tell(sys, what, "ALTER DATABASE " .. ident(a.name) .. charset_clause(a) .. ";\n")
      sys:note(fmt("%s the defaults of the database %s from %s, %s (existing tables keep theirs)",
                   sys.dry and "would change" or "changed", a.name, cs, co))
      return true
   end
   return false
end

function impl.database_absent.ensure(sys, a)
   local what = "mysql.database " .. a.name .. " dropped"
   local row, why = schema_row(sys, what, a.name)
   if row == nil then
      if sys.dry then
         sys:note(fmt("the server cannot be asked (%s): nothing to drop", why))
         return false
      end
      R.fail("%s: the server cannot be asked: %s: %s", what, why, INSTALL)
   end
   if row == false then return false end
   tell(sys, what, "DROP DATABASE " .. ident(a.name) .. ";\n")
   sys:note(fmt("%s the database %s", sys.dry and "would drop" or "dropped", a.name))
   return true
end

-- A database or table name: MariaDB takes 1..64 characters, no NUL, no
-- blank at the end.
-- A checker of names of at most max characters, without a NUL (nor a
-- blank at the end, with no_trailing_blank).
local function name_checker(max, no_trailing_blank)
   return function(v, what)
      local err = args.nonempty_string(v, what)
      if err then return err end
      if #v > max then
         return fmt("%s %s is longer than %d characters", what, args.show(v), max)
      end
      if v:find("%z") then return fmt("%s %s contains a NUL byte", what, args.show(v)) end
      if no_trailing_blank and v:find("%s$") then
         return fmt("%s %s ends with a blank", what, args.show(v))
      end
      return nil, v
   end
end
local check_object_name = name_checker(64, true)

local function charset_name(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   if not v:find("^[%w_]+$") then
      return fmt('%s %s must be a name such as "utf8mb4" or "utf8mb4_unicode_ci"', what,
                 args.show(v))
   end
   return nil, v:lower()
end

--[[ mysql.database(name [, { encoding = "utf8mb4", collation = "utf8mb4_unicode_ci" }])
  DebianLike, revertable: its revert drops the database (DROP DATABASE,
  with its tables).  Uses service mariadb.
  Run time: asks information_schema.SCHEMATA for the database; a missing
  one is created (CREATE DATABASE) with the character set and collation
  given; an existing one whose default character set or collation is not
  the one given is changed with ALTER DATABASE (only the defaults of new
  tables: existing tables keep theirs).  Without encoding or collation,
  the server's defaults are taken and never compared.
  Example:
    mysql.database("app", { encoding = "utf8mb4" })
]]
function mysql.database(name, opts)
   local desc = "mysql database " .. (type(name) == "string" and name or "?")
   local nerr = check_object_name(name, "name")
   local oerr, o = args.options(opts, { encoding = charset_name, collation = charset_name },
                                "mysql.database")
   local msg = args.join("mysql.database", nerr, oerr)
   if msg then return core.invalid(desc, msg) end
   local up = core.leaf{ desc = desc, targets = "DebianLike", impl = impl.database,
                         args = { name = name, encoding = o.encoding, collation = o.collation },
                         uses = USES }
   local down = core.leaf{ desc = desc .. " dropped", targets = "DebianLike",
                           impl = impl.database_absent, args = { name = name }, uses = USES,
                           norevert = "a dropped database cannot be brought back: "
                              .. "use mysql.database" }
   return core.pair(up, down)
end

-- ---------------------------------------------------------------------
-- mysql.user

-- The stored authentication of the account: its plugin, whether its
-- hash is that of @prop_pw (with a password), and whether it has other
-- methods too (IDENTIFIED VIA a OR b).
local function auth_sql(a)
   return fmt("SELECT JSON_VALUE(Priv, '$.plugin'), %s, JSON_EXISTS(Priv, '$.auth_or') "
              .. "FROM mysql.global_priv WHERE User = %s AND Host = %s;",
              a.password and "JSON_VALUE(Priv, '$.authentication_string') = PASSWORD(@prop_pw)"
                 or "1",
              lit(a.user), lit(a.host))
end

function impl.user.ensure(sys, a)
   local what = fmt("mysql.user %s@%s", a.user, a.host)
   local out, why
   if a.password then
      out, why = ask_secret(sys, what, auth_sql(a), a.password)
   else
      out, why = ask(sys, what, auth_sql(a) .. "\n")
   end
   if out == nil then return cannot_ask(sys, what, why, "would create the account") end
   local row = rows(out)[1]
   local verb
   if row == nil then
      verb = "CREATE USER "
   elseif row[1] == a.plugin and row[2] == "1" and row[3] == "0" then
      return false
   else
      verb = "ALTER USER "
   end
   if a.password then
      -- The statement is made on the server, from the hash of @prop_pw.
      tell_secret(sys, what, fmt("SET @prop_s = CONCAT(%s, ' IDENTIFIED BY PASSWORD ', "
                                 .. "QUOTE(PASSWORD(@prop_pw)));\n"
                                 .. "PREPARE prop_st FROM @prop_s;\nEXECUTE prop_st;\n"
                                 .. "DEALLOCATE PREPARE prop_st;\n",
                                 lit(verb .. account(a))), a.password)
   else
      tell(sys, what, verb .. account(a) .. " IDENTIFIED VIA " .. a.plugin .. ";\n")
   end
   if row == nil then
      sys:note(fmt("%s the account %s@%s", sys.dry and "would create" or "created", a.user, a.host))
   elseif row[1] ~= a.plugin or row[3] ~= "0" then
      sys:note(fmt("%s the authentication of %s@%s to %s only", sys.dry and "would set" or "set",
                   a.user, a.host, a.plugin))
   else
      sys:note(fmt("%s the password of %s@%s (it differed)", sys.dry and "would set" or "set",
                   a.user, a.host))
   end
   return true
end

local function account_exists(sys, what, a)
   local out, why = ask(sys, what, fmt("SELECT COUNT(*) FROM mysql.global_priv WHERE User = %s "
                                       .. "AND Host = %s;\n", lit(a.user), lit(a.host)))
   if out == nil then return nil, why end
   return out:match("^%s*(%d+)") ~= "0"
end

function impl.user_absent.ensure(sys, a)
   local what = fmt("mysql.user %s@%s dropped", a.user, a.host)
   local exists, why = account_exists(sys, what, a)
   if exists == nil then
      if sys.dry then
         sys:note(fmt("the server cannot be asked (%s): nothing to drop", why))
         return false
      end
      R.fail("%s: the server cannot be asked: %s: %s", what, why, INSTALL)
   end
   if not exists then return false end
   tell(sys, what, "DROP USER " .. account(a) .. ";\n")
   sys:note(fmt("%s the account %s@%s", sys.dry and "would drop" or "dropped", a.user, a.host))
   return true
end

local check_account_name = name_checker(80)

local function check_host(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   if #v > 255 or not v:find("^[%w%%_.:/-]+$") then
      return fmt('%s %s must be a host name, an address or a pattern such as "localhost", '
                 .. '"10.0.0.%%" or "%%"', what, args.show(v))
   end
   return nil, v
end

local PLUGINS = { "mysql_native_password", "unix_socket" }

local user_schema = {
   host = check_host,
   password = function(v, what)
      if core.is_secret(v) then return nil, v end
      return fmt('%s must be a secret (secret "name" from the site\'s store), got %s: a '
                 .. "password is never written in the site", what, args.got(v))
   end,
   plugin = function(v, what)
      local err = args.nonempty_string(v, what)
      if err then return err end
      if not R.list_has(PLUGINS, v) then
         return fmt("%s %s must be one of %s%s", what, args.show(v), concat(PLUGINS, ", "),
                    args.did_you_mean(v, PLUGINS))
      end
      return nil, v
   end,
}

--[[ mysql.user(name [, { password = secret "name", host = "localhost",
                          plugin = "mysql_native_password" | "unix_socket" }])
  DebianLike, revertable: its revert drops the account (DROP USER).
  Uses service mariadb.
  With a password (a secret; plain text is refused), the account is
  identified by mysql_native_password; without one, by unix_socket (the
  system user of the same name logs in without a password).
  Run time: reads the account's plugin and authentication string from
  mysql.global_priv, and compares the string with what the password
  hashes to on the server (PASSWORD()): no login is tried.  A missing
  account is created (CREATE USER), one with another plugin, another
  password or more methods than this one is set (ALTER USER).  The
  password reaches the server on the standard input of the command only.
  Example:
    mysql.user("app", { password = secret "app_db" })
]]
function mysql.user(name, opts)
   local desc = "mysql user " .. (type(name) == "string" and name or "?")
   local nerr = check_account_name(name, "name")
   local oerr, o = args.options(opts, user_schema, "mysql.user")
   if not oerr then
      if o.plugin == "unix_socket" and o.password then
         oerr = "plugin unix_socket takes no password (it logs in the system user of the same name)"
      elseif o.plugin == "mysql_native_password" and not o.password then
         oerr = 'plugin mysql_native_password needs a password = secret "name"'
      end
   end
   local msg = args.join("mysql.user", nerr, oerr)
   if msg then return core.invalid(desc, msg) end
   local a = { user = name, host = o.host or "localhost", password = o.password }
   a.plugin = o.plugin or (o.password and "mysql_native_password" or "unix_socket")
   desc = desc .. "@" .. a.host
   local up = core.leaf{ desc = desc, targets = "DebianLike", impl = impl.user, args = a,
                         uses = USES }
   local down = core.leaf{ desc = desc .. " dropped", targets = "DebianLike",
                           impl = impl.user_absent,
                           args = { user = name, host = a.host }, uses = USES,
                           norevert = "a dropped account cannot be brought back: use mysql.user" }
   return core.pair(up, down)
end

-- ---------------------------------------------------------------------
-- mysql.grant

local TABLE_PRIVS = { "SELECT", "INSERT", "UPDATE", "DELETE", "CREATE", "DROP", "REFERENCES",
                      "INDEX", "ALTER", "CREATE VIEW", "SHOW VIEW", "TRIGGER", "DELETE HISTORY" }
local DB_PRIVS = { "CREATE TEMPORARY TABLES", "LOCK TABLES", "EXECUTE", "CREATE ROUTINE",
                   "ALTER ROUTINE", "EVENT" }
local GLOBAL_PRIVS = { "RELOAD", "SHUTDOWN", "PROCESS", "FILE", "SHOW DATABASES", "SUPER",
                       "REPLICATION SLAVE", "BINLOG MONITOR", "CREATE USER", "CREATE TABLESPACE",
                       "SET USER", "FEDERATED ADMIN", "CONNECTION ADMIN", "READ_ONLY ADMIN",
                       "REPLICATION SLAVE ADMIN", "REPLICATION MASTER ADMIN", "BINLOG ADMIN",
                       "BINLOG REPLAY", "SLAVE MONITOR" }

local function privs_of(level)
   local t = {}
   for _, p in ipairs(TABLE_PRIVS) do t[#t + 1] = p end
   if level == "table" then return t end
   for _, p in ipairs(DB_PRIVS) do t[#t + 1] = p end
   if level == "database" then return t end
   for _, p in ipairs(GLOBAL_PRIVS) do t[#t + 1] = p end
   return t
end

-- The object's privileges: the information_schema table and condition.
local function privileges_sql(a)
   local where = "GRANTEE = " .. grantee(a)
   local tbl = "USER_PRIVILEGES"
   if a.level == "global" then
      where = where .. " AND PRIVILEGE_TYPE <> 'USAGE'"
   elseif a.level == "database" then
      tbl, where = "SCHEMA_PRIVILEGES", where .. " AND TABLE_SCHEMA = " .. lit(a.db)
   else
      tbl = "TABLE_PRIVILEGES"
      where = where .. " AND TABLE_SCHEMA = " .. lit(a.db) .. " AND TABLE_NAME = " .. lit(a.table)
   end
   return fmt("SELECT COUNT(*) FROM mysql.global_priv WHERE User = %s AND Host = %s;\n"
              .. "SELECT PRIVILEGE_TYPE, IS_GRANTABLE FROM information_schema.%s WHERE %s;\n",
              lit(a.user), lit(a.host), tbl, where)
end

-- Whether the account exists, the privileges it has on the object (a
-- set), and whether it may grant them; nil and why when the server
-- cannot be asked.
local function current_privileges(sys, what, a)
   local out, why = ask(sys, what, privileges_sql(a))
   if out == nil then return nil, why end
   local t = rows(out)
   local have, grantable = {}, false
   for i = 2, #t do
      have[t[i][1]] = true
      if t[i][2] == "YES" then grantable = true end
   end
   return t[1] and t[1][1] ~= "0", have, grantable
end

local function object(a)
   if a.level == "global" then return "*.*" end
   if a.level == "database" then return ident(a.db) .. ".*" end
   return ident(a.db) .. "." .. ident(a.table)
end

function impl.grant.ensure(sys, a)
   local what = fmt("mysql.grant %s@%s on %s", a.user, a.host, a.on)
   local exists, have, grantable = current_privileges(sys, what, a)
   if exists == nil then
      return cannot_ask(sys, what, have, "would grant " .. concat(a.privileges, ", "))
   end
   if not exists then
      if sys.dry then
         sys:note(fmt("would grant %s once the account %s@%s exists", concat(a.privileges, ", "),
                      a.user, a.host))
         return true
      end
      R.fail("%s: the account %s@%s does not exist (declare it with mysql.user first)", what,
             a.user, a.host)
   end
   local want, add, drop = {}, {}, {}
   for _, p in ipairs(a.privileges) do
      want[p] = true
      if not have[p] then add[#add + 1] = p end
   end
   for p in pairs(have) do
      if not want[p] then drop[#drop + 1] = p end
   end
   table.sort(drop)
   if #add == 0 and #drop == 0 and not grantable then return false end
   local sql = {}
   if #drop > 0 then
      sql[#sql + 1] = fmt("REVOKE %s ON %s FROM %s;", concat(drop, ", "), object(a), account(a))
   end
   if grantable then
      sql[#sql + 1] = fmt("REVOKE GRANT OPTION ON %s FROM %s;", object(a), account(a))
   end
   if #add > 0 then
      sql[#sql + 1] = fmt("GRANT %s ON %s TO %s;", concat(add, ", "), object(a), account(a))
   end
   tell(sys, what, concat(sql, "\n") .. "\n")
   local done = {}
   if #add > 0 then
      done[#done + 1] = (sys.dry and "would grant " or "granted ") .. concat(add, ", ")
   end
   if #drop > 0 then
      done[#done + 1] = (sys.dry and "would revoke " or "revoked ") .. concat(drop, ", ")
   end
   if grantable then
      done[#done + 1] = (sys.dry and "would revoke " or "revoked ") .. "GRANT OPTION"
   end
   sys:note(fmt("%s on %s for %s@%s", concat(done, "; "), a.on, a.user, a.host))
   return true
end

function impl.grant_absent.ensure(sys, a)
   local what = fmt("mysql.grant %s@%s on %s revoked", a.user, a.host, a.on)
   local exists, have, grantable = current_privileges(sys, what, a)
   if exists == nil then
      if sys.dry then
         sys:note(fmt("the server cannot be asked (%s): nothing to revoke", have))
         return false
      end
      R.fail("%s: the server cannot be asked: %s: %s", what, have, INSTALL)
   end
   if not exists or (next(have) == nil and not grantable) then return false end
   local sql = {}
   if next(have) ~= nil then
      sql[#sql + 1] = fmt("REVOKE ALL PRIVILEGES ON %s FROM %s;", object(a), account(a))
   end
   if grantable then
      sql[#sql + 1] = fmt("REVOKE GRANT OPTION ON %s FROM %s;", object(a), account(a))
   end
   tell(sys, what, concat(sql, "\n") .. "\n")
   sys:note(fmt("%s every privilege of %s@%s on %s", sys.dry and "would revoke" or "revoked",
                a.user, a.host, a.on))
   return true
end

-- "*.*", "db.*" or "db.table" (split at the first dot).
local function check_on(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   if v == "*.*" then return nil, { level = "global" } end
   local db, rest = v:match("^([^.]+)%.(.+)$")
   local expected = fmt('%s %s must be "*.*", "DATABASE.*" or "DATABASE.TABLE"', what, args.show(v))
   if db == nil or db == "*" then return expected end
   local derr = check_object_name(db, "the database of " .. what)
   if derr then return derr end
   if rest == "*" then return nil, { level = "database", db = db } end
   if rest:find("*", 1, true) then return expected end
   local terr = check_object_name(rest, "the table of " .. what)
   if terr then return terr end
   return nil, { level = "table", db = db, table = rest }
end

--[[ mysql.grant(user, { on = "db.*", privileges = { "SELECT", "INSERT" } [, host = "localhost"] })
  DebianLike, revertable: its revert revokes every privilege of the
  account on that object (REVOKE ALL PRIVILEGES, and GRANT OPTION).  Uses
  service mariadb.
  on: "*.*" (global), "DATABASE.*" or "DATABASE.TABLE".  privileges:
  privilege names (SELECT, INSERT, ..., CREATE TEMPORARY TABLES; the
  ones that exist at that level); ALL is refused: list them.
  Run time: reads the account's privileges on the object from
  information_schema (USER_PRIVILEGES, SCHEMA_PRIVILEGES or
  TABLE_PRIVILEGES) and makes them exactly the ones given: the missing
  ones are granted, the others on that object revoked, and so is GRANT
  OPTION.  The account must exist (mysql.user before it); a dry run says
  what it would grant once it does.  As in GRANT, "_" and "%" in the
  database of a DATABASE.* are MariaDB's wildcards.
  Example:
    mysql.grant("app", { on = "app.*", privileges = { "SELECT", "INSERT", "UPDATE", "DELETE" } })
]]
function mysql.grant(user, opts)
   local desc = "mysql grant to " .. (type(user) == "string" and user or "?")
   local uerr = check_account_name(user, "user")
   local oerr, o
   if type(opts) ~= "table" then
      oerr = fmt('give the options as a table such as { on = "app.*", privileges = { "SELECT" } }, '
                 .. "got %s", args.got(opts))
   else
      oerr, o = args.options(opts, {
         host = check_host,
         on = check_on,
         privileges = function(v, what)
            return args.list(v, what, function(x, w)
               local err = args.nonempty_string(x, w)
               if err then return err end
               return nil, (x:upper():gsub("%s+", " "):gsub("^ ", ""):gsub(" $", ""))
            end, { nonempty = true })
         end,
      }, "mysql.grant")
      if not oerr and o.on == nil then
         oerr = 'on is missing: "*.*", "DATABASE.*" or "DATABASE.TABLE"'
      end
      if not oerr and o.privileges == nil then
         oerr = 'privileges is missing: a list such as { "SELECT" }'
      end
   end
   local privs = {}
   if not oerr then
      local known, seen = privs_of(o.on.level), {}
      for _, p in ipairs(o.privileges) do
         if p == "ALL" or p == "ALL PRIVILEGES" then
            oerr = "privileges: ALL is not taken: list the privileges the account needs"
         elseif p == "USAGE" or p == "GRANT OPTION" then
            oerr = fmt("privileges: %s is not taken (USAGE is no privilege; GRANT OPTION is never "
                       .. "granted)", p)
         elseif not R.list_has(known, p) then
            oerr = fmt("privileges: %s is not a privilege on %s%s", args.show(p),
                       o.on.level == "global" and "*.*" or o.on.level == "database" and "a database"
                       or "a table", args.did_you_mean(p, known))
         elseif not seen[p] then
            seen[p] = true
            privs[#privs + 1] = p
         end
         if oerr then break end
      end
   end
   local msg = args.join("mysql.grant", uerr, oerr)
   if msg then return core.invalid(desc, msg) end
   table.sort(privs)
   local a = { user = user, host = o.host or "localhost", on = opts.on, level = o.on.level,
               db = o.on.db, table = o.on.table, privileges = privs }
   desc = fmt("mysql grant %s on %s to %s@%s", concat(privs, ","), a.on, user, a.host)
   local up = core.leaf{ desc = desc, targets = "DebianLike", impl = impl.grant, args = a,
                         uses = USES }
   local down = core.leaf{ desc = fmt("mysql grants on %s to %s@%s revoked", a.on, user, a.host),
                           targets = "DebianLike", impl = impl.grant_absent, args = a, uses = USES,
                           norevert = "revoked privileges are not known: use mysql.grant" }
   return core.pair(up, down)
end

-- ---------------------------------------------------------------------
-- mysql.setting

-- The value the server holds, as a string: SELECT @@name.  nil and why
-- when it cannot be asked (or has no such variable).
local function server_value(sys, what, name)
   local r = sys:query(CLIENT, { stdin = "SELECT @@GLOBAL." .. name .. ";\n" })
   if r.code == 0 then return (r.stdout:gsub("\n$", "")) end
   local why = unreachable(r)
   if why then return nil, why end
   local e = R.tail(r.stderr, 1)
   if e:find("Unknown system variable", 1, true) then
      return nil, fmt("the server has no variable %s", name)
   end
   sql_failed(what, r)
end

local SIZE = { k = 1024, m = 1024 ^ 2, g = 1024 ^ 3, t = 1024 ^ 4 }
local TRUE = { on = "1", ["true"] = "1", yes = "1", ["1"] = "1" }
local FALSE = { off = "0", ["false"] = "0", no = "0", ["0"] = "0" }

-- Whether the server's value got is the value written want: sizes with a
-- K, M, G or T suffix in bytes, booleans as ON/OFF or 1/0, words without
-- regard to case.
local function same_value(got, want)
   if got == want then return true end
   local g, w = got:lower(), want:lower()
   if g == w then return true end
   if (TRUE[g] and TRUE[g] == TRUE[w]) or (FALSE[g] and FALSE[g] == FALSE[w]) then return true end
   local n, suffix = w:match("^(%d+)([kmgt])$")
   if n and tonumber(g) == tonumber(n) * SIZE[suffix] then return true end
   return tonumber(g) ~= nil and tonumber(g) == tonumber(w)
end

-- nil when the server holds value for name, else what it holds.
local function probe_setting(sys, what, name, value)
   local got, why = server_value(sys, what, name)
   if got == nil then return false, fmt("SELECT @@%s: %s", name, why) end
   if same_value(got, value) then return true end
   return false, fmt("SELECT @@%s gives %s, want %s (the server has not read %s)", name, got,
                     value, CNF)
end

function impl.setting.ensure(sys, a)
   local what = fmt("mysql.setting %s", a.name)
   local dir = CNF:match("^(.*)/[^/]*$")
   if not sys:exists(dir) then
      if sys.dry then
         sys:note(fmt("would set %s = %s in %s once MariaDB is installed", a.name, a.value, CNF))
         return true
      end
      R.fail("%s: %s is missing: %s", what, dir, INSTALL)
   end
   -- An option the server does not know would keep it from starting
   -- again: a running server is asked first, and the file left alone.
   if not a.remove then
      local got, why = server_value(sys, what, a.name)
      if got == nil and why:find("has no variable", 1, true) then
         R.fail("%s: %s: nothing written (the server would not start with it)", what, why)
      end
   end
   local edit = a.remove and function(old) return conf.unset_ini(old, "mysqld", a.name, a.value) end
      or function(old) return conf.set_ini(old or "# MariaDB options, managed by prop\n", "mysqld",
                                           a.name, a.value) end
   return conf.ensure_edit(sys, what, CNF, edit)
end

-- The probe: the running server holds the value (a change in this run is
-- the restart's to check: it comes after).
function impl.setting.verify(sys, a, changed)
   if a.remove or changed or R.no_daemons(sys) or R.is_dir_tree(sys) then return true end
   return probe_setting(sys, "mysql.setting " .. a.name, a.name, a.value)
end

function impl.setting.repair(sys)
   R.service_do(sys, SERVICE, "restart")
   sys.cache["mysql.restarted"] = true
   sys:note("mariadb restarted: it did not hold the setting")
end

-- The settings of the file, for the restart's check.
local function file_settings(content)
   local t, in_mysqld = {}, false
   for l in (content or ""):gmatch("[^\n]+") do
      local s = l:match("^%s*%[%s*([^%]]-)%s*%]")
      if s then
         in_mysqld = s == "mysqld"
      elseif in_mysqld and not l:find("^%s*[#;]") then
         local k, v = l:match("^%s*([%w_-]+)%s*=%s*(.-)%s*$")
         if k then t[#t + 1] = { k, v } end
      end
   end
   return t
end

function impl.restart.ensure(sys)
   local why = R.no_daemons(sys)
   if R.is_dir_tree(sys) then why = "no daemon runs in a directory tree" end
   if why then
      sys:note("mariadb not restarted: " .. why)
      return false
   end
   if not R.service_is_running(sys, SERVICE) then
      sys:note("mariadb is not running: it reads its options when it starts")
      return false
   end
   -- Which settings of the file the running server does not hold.
   local function not_held()
      local bad = {}
      for _, kv in ipairs(file_settings(sys:read(CNF))) do
         local ok, seen = probe_setting(sys, "mariadb restarted", kv[1]:gsub("-", "_"), kv[2])
         if not ok then bad[#bad + 1] = seen end
      end
      return bad
   end
   -- A setting's repair restarted it in this run already.
   if sys.cache["mysql.restarted"] and not sys.dry and #not_held() == 0 then
      sys:note("mariadb was restarted in this run already and holds the options of " .. CNF)
      return false
   end
   R.service_do(sys, SERVICE, "restart")
   if sys.dry then
      sys:note("would restart mariadb")
      return true
   end
   sys.cache["mysql.restarted"] = true
   local bad = not_held()
   if #bad > 0 then R.fail("mariadb restarted, but %s", concat(bad, "; ")) end
   sys:note("mariadb restarted: it holds the options of " .. CNF)
   return true
end

local function restart_leaf()
   return core.leaf{ desc = "mariadb restarted for its options", targets = "DebianLike",
                     impl = impl.restart, norevert = "a restart has nothing to revert", uses = USES,
                     -- Claimed: two settings' restarts are then one (on_change).
                     claims = { claim.service_restarted(SERVICE) } }
end

local function check_value(v, what)
   if v == true then return nil, "ON" end
   if v == false then return nil, "OFF" end
   if type(v) ~= "string" and math.type(v) ~= "integer" then
      return fmt("%s must be a string, an integer or a boolean, got %s", what, args.got(v))
   end
   local err, s = conf.check_value(v, what)
   if err then return err end
   if s == "" or s:find("[#;\"'\\]") then
      return fmt("%s %s must not be empty nor contain #, ;, quotes or backslashes", what,
                 args.show(s))
   end
   return nil, s
end

--[[ mysql.setting(name, value)
  DebianLike, revertable: its revert takes the line out (the server then
  has its default again, after the restart).  Uses service mariadb.
  name: a server system variable ("max_connections"; "-" is "_").
  value: a string, an integer, or a boolean (ON, OFF).
  Claims: file.setting /etc/mysql/mariadb.conf.d/60-prop.cnf =
  "NAME=VALUE": every setting of a host is a line of [mysqld] in that
  one file (the same name with another value is P007).
  Run time: writes the line when it differs; then mariadb is restarted
  (once for all the settings that changed; a restart that fails is owed
  to the next run), and the restart checks that the server holds every
  setting of the file (SELECT @@NAME).
  Verify: SELECT @@NAME of the running server is the value (a size
  with K, M, G is compared in bytes, ON with 1); repair: a restart.
  Example:
    mysql.setting("max_connections", 200)
]]
function mysql.setting(name, value, ...)
   local desc = "mysql setting " .. (type(name) == "string" and name or "?")
   local nerr = args.matching(name, "name", "[%a][%w_-]*",
                              'a variable name such as "max_connections"')
   local verr, v = check_value(value, "value")
   local xerr = select("#", ...) > 0 and "mysql.setting takes a name and a value" or nil
   local msg = args.join("mysql.setting", nerr, verr, xerr)
   if msg then return core.invalid(desc, msg) end
   name = name:gsub("-", "_")
   desc = fmt("mysql setting %s = %s", name, v)
   local c = { claim.file_setting(CNF, conf.claim(name, v)) }
   local set = core.leaf{ desc = desc, targets = "DebianLike", impl = impl.setting,
                          args = { name = name, value = v }, claims = c, uses = USES }
   local unset = core.leaf{ desc = desc .. " removed", targets = "DebianLike", impl = impl.setting,
                            args = { name = name, value = v, remove = true }, uses = USES,
                            norevert = "the value before is not known: use mysql.setting" }
   return core.pair(set:on_change(restart_leaf()), unset:on_change(restart_leaf()))
end

return args.strict_module(mysql, "mysql")
