-- prop.postgresql: PostgreSQL on Debian and Ubuntu (package postgresql,
-- Debian's clusters: /etc/postgresql/VERSION/main).
--
-- Every property talks to the server through its local socket as its
-- administrator, the postgres account (runuser -u postgres psql), with
-- the SQL on psql's standard input: nothing of it, and never a password,
-- is on a command line.  Names go into SQL quoted (identifiers in double
-- quotes, literals in single quotes, each quote doubled, with
-- standard_conforming_strings on), so a name with a quote is a name.

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local R = require "prop.runtime"

local postgresql = {}

local impl = { installed = {}, database = {}, database_absent = {}, role = {}, role_absent = {},
               grant = {}, revoke = {}, hba = {}, extension = {}, extension_absent = {} }

local fmt = string.format
local concat = table.concat

local PSQL = "/usr/bin/psql"
local USES = { services = { "postgresql" } }

-- ---------------------------------------------------------------------
-- SQL.

local function ident(s)
   return '"' .. s:gsub('"', '""') .. '"'
end

local function lit(s)
   return "'" .. s:gsub("'", "''") .. "'"
end

-- A libpq connection string naming database db (a name with "=" or a
-- blank is a name, not options).
local function conninfo(db)
   return "dbname='" .. db:gsub("[\\']", "\\%0") .. "'"
end

-- psql as postgres, from / (postgres may not read the current directory),
-- stopping at the first error.
local PSQL_SH = 'cd / && exec runuser -u postgres -- psql -X -A -t -q -v ON_ERROR_STOP=1 "$@"'
local PRELUDE = "SET standard_conforming_strings = on;\n"

local function psql_argv(db)
   local argv = { "sh", "-c", PSQL_SH, "psql" }
   if db then argv[#argv + 1], argv[#argv + 2] = "-d", conninfo(db) end
   return argv
end

-- "what: psql exited with N: <what it printed>".
local function psql_failed(what, r) R.command_failed(what, { "psql" }, r) end

-- The rows sql prints (one per line); it only looks.
local function query_rows(sys, what, sql, db)
   local r = R.query(sys, what, psql_argv(db), { stdin = PRELUDE .. sql })
   if r.code ~= 0 then psql_failed(what, r) end
   local rows = {}
   for l in r.stdout:gmatch("[^\n]+") do rows[#rows + 1] = l end
   return rows
end

-- Runs sql that changes the server (not in a dry run).
local function execute(sys, what, sql, db)
   local r = sys:run(psql_argv(db), { stdin = PRELUDE .. sql, ok = "any" })
   if r.code ~= 0 then psql_failed(what, r) end
end

-- Whether psql is there; in a dry run before PostgreSQL is installed the
-- property would change (note says what), else it fails.
local function ready(sys, what, would)
   if sys:exists(PSQL) then return true end
   if sys.dry then
      sys:note(would .. " once PostgreSQL is installed (postgresql.installed())")
      return false
   end
   R.fail("%s: PostgreSQL is not installed (%s is missing): declare postgresql.installed() "
          .. "before it", what, PSQL)
end

local function db_exists(sys, what, db)
   return #query_rows(sys, what, "SELECT 1 FROM pg_database WHERE datname = " .. lit(db) .. ";\n") > 0
end

-- ---------------------------------------------------------------------
-- postgresql.installed

function impl.installed.ensure(sys, a)
   local changed = R.apt_install(sys, "postgresql.installed", { a.package })
   if R.ensure_running(sys, a.package) then changed = true end
   return changed and "changed" or "ok"
end

-- ---------------------------------------------------------------------
-- Databases.

local function norm_encoding(e)
   return (e:upper():gsub("[^%w]", ""))
end

function impl.database.ensure(sys, a)
   local what = "postgresql.database " .. a.name
   if not ready(sys, what, "would create the database " .. a.name) then return "changed" end
   local rows = query_rows(sys, what, "SELECT pg_get_userbyid(datdba) || '|' || pg_encoding_to_char(encoding) "
                       .. "FROM pg_database WHERE datname = " .. lit(a.name) .. ";\n")
   if #rows == 0 then
      local sql = "CREATE DATABASE " .. ident(a.name)
      if a.owner then sql = sql .. " OWNER " .. ident(a.owner) end
      if a.encoding then sql = sql .. " ENCODING " .. lit(a.encoding) end
      if a.template then sql = sql .. " TEMPLATE " .. ident(a.template) end
      execute(sys, what, sql .. ";\n")
      sys:note((sys.dry and "would create the database " or "created the database ") .. a.name)
      return "changed"
   end
   local owner, enc = rows[1]:match("^(.*)|([^|]*)$")
   if a.encoding and norm_encoding(enc or "") ~= norm_encoding(a.encoding) then
      R.fail("%s: the database exists with encoding %s, not %s: PostgreSQL cannot change a "
             .. "database's encoding (dump it, drop it and let prop create it again)",
             what, tostring(enc), a.encoding)
   end
   if a.owner and owner ~= a.owner then
      execute(sys, what, "ALTER DATABASE " .. ident(a.name) .. " OWNER TO " .. ident(a.owner) .. ";\n")
      sys:note(fmt("%s the owner of the database %s: %s -> %s", sys.dry and "would change" or "changed",
                   a.name, tostring(owner), a.owner))
      return "changed"
   end
   return "ok"
end

function impl.database_absent.ensure(sys, a)
   local what = "postgresql.database " .. a.name .. " dropped"
   if not sys:exists(PSQL) then return "ok" end
   if not db_exists(sys, what, a.name) then return "ok" end
   execute(sys, what, "DROP DATABASE " .. ident(a.name) .. ";\n")
   sys:note((sys.dry and "would drop the database " or "dropped the database ") .. a.name)
   return "changed"
end

-- ---------------------------------------------------------------------
-- Roles.

-- The attributes a role has, in pg_roles' order; each not given wants
-- PostgreSQL's default for CREATE ROLE.
local ATTRS = {
   { key = "superuser", col = "rolsuper", word = "SUPERUSER", default = false },
   { key = "createdb", col = "rolcreatedb", word = "CREATEDB", default = false },
   { key = "createrole", col = "rolcreaterole", word = "CREATEROLE", default = false },
   { key = "login", col = "rolcanlogin", word = "LOGIN", default = false },
   { key = "replication", col = "rolreplication", word = "REPLICATION", default = false },
   { key = "inherit", col = "rolinherit", word = "INHERIT", default = true },
   { key = "bypassrls", col = "rolbypassrls", word = "BYPASSRLS", default = false },
}

local function attr_word(at, on)
   return (on and "" or "NO") .. at.word
end

-- The password is checked and set by perl (which postgresql-common needs)
-- with the secret on its standard input, and psql's as its child: the
-- stored verifier (pg_authid.rolpassword) never leaves the target.  A
-- SCRAM-SHA-256 verifier is compared by computing StoredKey and ServerKey
-- from the secret with its salt and iteration count; an MD5 one as
-- md5(password || name).  A new password is set as a SCRAM-SHA-256
-- verifier made here (4096 iterations, a random 16-byte salt), so the
-- password itself never reaches the server either.
local PASSWORD_PL = [=[
use strict; use warnings;
use Digest::SHA qw(sha256 hmac_sha256); use Digest::MD5 qw(md5_hex);
use MIME::Base64 qw(encode_base64 decode_base64); use IPC::Open2;
my ($mode, $role) = @ARGV;
my $pw = do { local $/; <STDIN> }; $pw = "" unless defined $pw;
if ($pw =~ /[^\x00-\x7f]/) {
  require Encode; require Unicode::Normalize;
  my $d = eval { Encode::decode("UTF-8", $pw, Encode::FB_CROAK()) };
  $pw = Encode::encode("UTF-8", Unicode::Normalize::NFKC($d)) if defined $d;
}
sub lit { my $s = shift; $s =~ s/'/''/g; return "'$s'"; }
sub ident { my $s = shift; $s =~ s/"/""/g; return "\"$s\""; }
sub psql {
  chdir "/";
  my $pid = open2(my $out, my $in, "runuser", "-u", "postgres", "--", "psql", "-X", "-A", "-t",
                  "-q", "-v", "ON_ERROR_STOP=1");
  print $in "SET standard_conforming_strings = on;\n", $_[0]; close $in;
  my $r = do { local $/; <$out> }; waitpid($pid, 0);
  exit(($? >> 8) || 1) if $?;
  return defined $r ? $r : "";
}
sub keys_of {
  my ($salt, $n) = @_;
  my $u = hmac_sha256($salt . "\0\0\0\1", $pw); my $s = $u;
  for (2 .. $n) { $u = hmac_sha256($u, $pw); $s ^= $u; }
  return (sha256(hmac_sha256("Client Key", $s)), hmac_sha256("Server Key", $s));
}
if ($mode eq "check") {
  my $v = psql("SELECT coalesce(rolpassword, '') FROM pg_authid WHERE rolname = " . lit($role) . ";\n");
  chomp $v;
  if ($v =~ /^SCRAM-SHA-256\$(\d+):([^\$]+)\$([^:]+):(.+)$/) {
    my ($sk, $vk) = keys_of(decode_base64($2), $1);
    print(($sk eq decode_base64($3) && $vk eq decode_base64($4)) ? "same" : "differs");
  } elsif ($v =~ /^md5([0-9a-f]{32})$/) {
    print((md5_hex($pw . $role) eq $1) ? "same" : "differs");
  } else {
    print($v eq "" ? "none" : "differs");
  }
} else {
  open(my $r, "<", "/dev/urandom") or die "/dev/urandom: $!\n";
  read($r, my $salt, 16) == 16 or die "/dev/urandom: short read\n"; close $r;
  my ($sk, $vk) = keys_of($salt, 4096);
  my $v = "SCRAM-SHA-256\$4096:" . encode_base64($salt, "") . "\$" . encode_base64($sk, "") . ":"
    . encode_base64($vk, "");
  psql("ALTER ROLE " . ident($role) . " PASSWORD " . lit($v) . ";\n");
}
]=]

-- "same", "differs" or "none" (no password).
local function password_state(sys, what, a)
   local argv = { "perl", "-e", PASSWORD_PL, "check", a.name }
   local r = R.query(sys, what, argv, { stdin = a.password })
   if r.code ~= 0 then psql_failed(what, r) end
   return r.stdout
end

local function set_password(sys, what, a)
   local r = sys:run({ "perl", "-e", PASSWORD_PL, "set", a.name }, { stdin = a.password, ok = "any" })
   if r.code ~= 0 then psql_failed(what, r) end
end

function impl.role.ensure(sys, a)
   local what = "postgresql.role " .. a.name
   if not ready(sys, what, "would create the role " .. a.name) then return "changed" end
   local cols = {}
   for i, at in ipairs(ATTRS) do cols[i] = at.col end
   local rows = query_rows(sys, what, "SELECT " .. concat(cols, ", ") .. " FROM pg_roles WHERE rolname = "
                       .. lit(a.name) .. ";\n")
   local verb = sys.dry and "would " or ""
   if #rows == 0 then
      local words = {}
      for i, at in ipairs(ATTRS) do words[i] = attr_word(at, a[at.key]) end
      execute(sys, what, "CREATE ROLE " .. ident(a.name) .. " WITH " .. concat(words, " ") .. ";\n")
      sys:note(fmt("%s the role %s (%s)", sys.dry and "would create" or "created", a.name,
                   concat(words, " ")))
      if a.password then
         set_password(sys, what, a)
         sys:note(fmt("%sset the password of the role %s", verb, a.name))
      end
      return "changed"
   end
   local have, i = {}, 0
   for v in (rows[1] .. "|"):gmatch("([^|]*)|") do
      i = i + 1
      have[i] = v == "t"
   end
   local fix, shown = {}, {}
   for j, at in ipairs(ATTRS) do
      if have[j] ~= a[at.key] then
         fix[#fix + 1] = attr_word(at, a[at.key])
         shown[#shown + 1] = attr_word(at, have[j]) .. " -> " .. attr_word(at, a[at.key])
      end
   end
   local changed = false
   if #fix > 0 then
      execute(sys, what, "ALTER ROLE " .. ident(a.name) .. " WITH " .. concat(fix, " ") .. ";\n")
      sys:note(fmt("%s the role %s: %s", sys.dry and "would change" or "changed", a.name,
                   concat(shown, ", ")))
      changed = true
   end
   if a.password then
      local st = password_state(sys, what, a)
      if st ~= "same" then
         set_password(sys, what, a)
         sys:note(fmt("%sset the password of the role %s (%s)", verb, a.name,
                      st == "none" and "it had none" or "the stored one differs"))
         changed = true
      end
   end
   return changed and "changed" or "ok"
end

function impl.role_absent.ensure(sys, a)
   local what = "postgresql.role " .. a.name .. " dropped"
   if not sys:exists(PSQL) then return "ok" end
   local rows = query_rows(sys, what, "SELECT 1 FROM pg_roles WHERE rolname = " .. lit(a.name) .. ";\n")
   if #rows == 0 then return "ok" end
   execute(sys, what, "DROP ROLE " .. ident(a.name) .. ";\n")
   sys:note((sys.dry and "would drop the role " or "dropped the role ") .. a.name)
   return "changed"
end

-- ---------------------------------------------------------------------
-- Grants.

local PRIVS = {
   database = { "CREATE", "CONNECT", "TEMPORARY" },
   schema = { "USAGE", "CREATE" },
   table = { "SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER" },
}
PRIVS.tables = PRIVS.table

-- The rows of the check of grant a: "o" when the object exists, "p" and a
-- privilege the role holds on it directly (aclexplode of its ACL, or of
-- the owner's default one when it has none: PUBLIC's and the owner's
-- implicit privileges are not the role's); for all tables of a schema,
-- "t" and each table's oid, "p" oid ":" privilege.
local function grant_rows(sys, what, a)
   local role = "(SELECT oid FROM pg_roles WHERE rolname = " .. lit(a.role) .. ")"
   local sql
   if a.kind == "database" then
      sql = "SELECT 'o' FROM pg_database WHERE datname = " .. lit(a.object)
         .. " UNION ALL SELECT 'p' || x.privilege_type FROM pg_database d, "
         .. "aclexplode(coalesce(d.datacl, acldefault('d', d.datdba))) x WHERE d.datname = "
         .. lit(a.object) .. " AND x.grantee = " .. role .. ";\n"
   elseif a.kind == "schema" then
      sql = "SELECT 'o' FROM pg_namespace WHERE nspname = " .. lit(a.object)
         .. " UNION ALL SELECT 'p' || x.privilege_type FROM pg_namespace n, "
         .. "aclexplode(coalesce(n.nspacl, acldefault('n', n.nspowner))) x WHERE n.nspname = "
         .. lit(a.object) .. " AND x.grantee = " .. role .. ";\n"
   elseif a.kind == "table" then
      sql = "SELECT 'o' FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = "
         .. lit(a.schema) .. " AND c.relname = " .. lit(a.object)
         .. " AND c.relkind IN ('r', 'p', 'v', 'm', 'f')"
         .. " UNION ALL SELECT 'p' || x.privilege_type FROM pg_class c JOIN pg_namespace n ON "
         .. "n.oid = c.relnamespace, aclexplode(coalesce(c.relacl, acldefault('r', c.relowner))) x "
         .. "WHERE n.nspname = " .. lit(a.schema) .. " AND c.relname = " .. lit(a.object)
         .. " AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND x.grantee = " .. role .. ";\n"
   else
      local tables = "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = "
         .. lit(a.object) .. " AND c.relkind IN ('r', 'p', 'v', 'm', 'f')"
      sql = "SELECT 'o' FROM pg_namespace WHERE nspname = " .. lit(a.object)
         .. " UNION ALL SELECT 't' || c.oid " .. tables
         .. " UNION ALL SELECT 'p' || c.oid || ':' || x.privilege_type FROM pg_class c JOIN "
         .. "pg_namespace n ON n.oid = c.relnamespace, "
         .. "aclexplode(coalesce(c.relacl, acldefault('r', c.relowner))) x WHERE n.nspname = "
         .. lit(a.object) .. " AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND x.grantee = "
         .. role .. ";\n"
   end
   return query_rows(sys, what, sql, a.database)
end

local function object_sql(a)
   if a.kind == "database" then return "DATABASE " .. ident(a.object) end
   if a.kind == "schema" then return "SCHEMA " .. ident(a.object) end
   if a.kind == "table" then return "TABLE " .. ident(a.schema) .. "." .. ident(a.object) end
   return "ALL TABLES IN SCHEMA " .. ident(a.object)
end

-- What is missing and what is extra: sorted lists of privileges.
local function privilege_diff(held, want)
   local missing, extra = {}, {}
   for _, p in ipairs(want) do
      if not held[p] then missing[#missing + 1] = p end
   end
   local w = {}
   for _, p in ipairs(want) do w[p] = true end
   for p in pairs(held) do
      if not w[p] then extra[#extra + 1] = p end
   end
   table.sort(extra)
   return missing, extra
end

-- Whether the database a grant is in exists (a dry run: when not, it
-- notes what it would do once it does).
local function grant_reachable(sys, what, a, would)
   if a.kind == "database" or db_exists(sys, what, a.database) then return true end
   if sys.dry then
      sys:note(fmt("%s once the database %s exists", would, a.database))
      return false
   end
   R.fail("%s: the database %s does not exist", what, a.database)
end

local function object_shown(a)
   if a.kind == "table" then return fmt("table %s.%s", a.schema, a.object) end
   if a.kind == "tables" then return "all tables in schema " .. a.object end
   return a.kind .. " " .. a.object
end

function impl.grant.ensure(sys, a)
   local what = "postgresql.grant " .. a.role .. " on " .. object_shown(a)
   local would = fmt("would grant %s on %s to %s", concat(a.privileges, ", "), object_shown(a), a.role)
   if not ready(sys, what, would) then return "changed" end
   if not grant_reachable(sys, what, a, would) then return "changed" end
   local rows = grant_rows(sys, what, a)
   local exists, held, tables = false, {}, {}
   for _, r in ipairs(rows) do
      if r == "o" then
         exists = true
      elseif r:sub(1, 1) == "t" then
         tables[#tables + 1] = r:sub(2)
         held[r:sub(2)] = held[r:sub(2)] or {}
      elseif a.kind == "tables" then
         local oid, p = r:match("^p(%d+):(.*)$")
         if oid then
            held[oid] = held[oid] or {}
            held[oid][p] = true
         end
      else
         held[r:sub(2)] = true
      end
   end
   if not exists then
      if sys.dry then
         sys:note(fmt("%s once the %s exists", would, a.kind == "tables" and "schema " .. a.object
                      or object_shown(a)))
         return "changed"
      end
      R.fail("%s: the %s does not exist", what,
             a.kind == "tables" and "schema " .. a.object or object_shown(a))
   end
   local obj, q = object_sql(a), ident(a.role)
   local sql
   if a.kind == "tables" then
      local differs = false
      for _, t in ipairs(tables) do
         local missing, extra = privilege_diff(held[t], a.privileges)
         if #missing > 0 or #extra > 0 then differs = true end
      end
      if not differs then return "ok" end
      sql = fmt("BEGIN;\nREVOKE ALL ON %s FROM %s;\nGRANT %s ON %s TO %s;\nCOMMIT;\n", obj, q,
                concat(a.privileges, ", "), obj, q)
      sys:note(fmt("%s %s on the %d tables of schema %s to %s, and no other privilege",
                   sys.dry and "would grant" or "granted", concat(a.privileges, ", "), #tables,
                   a.object, a.role))
   else
      local missing, extra = privilege_diff(held, a.privileges)
      if #missing == 0 and #extra == 0 then return "ok" end
      local stmts, said = { "BEGIN;" }, {}
      if #extra > 0 then
         stmts[#stmts + 1] = fmt("REVOKE %s ON %s FROM %s;", concat(extra, ", "), obj, q)
         said[#said + 1] = (sys.dry and "would revoke " or "revoked ") .. concat(extra, ", ")
      end
      if #missing > 0 then
         stmts[#stmts + 1] = fmt("GRANT %s ON %s TO %s;", concat(missing, ", "), obj, q)
         said[#said + 1] = (sys.dry and "would grant " or "granted ") .. concat(missing, ", ")
      end
      stmts[#stmts + 1] = "COMMIT;\n"
      sql = concat(stmts, "\n")
      sys:note(fmt("%s on %s (role %s)", concat(said, "; "), object_shown(a), a.role))
   end
   execute(sys, what, sql, a.database)
   return "changed"
end

function impl.revoke.ensure(sys, a)
   local what = "postgresql.grant " .. a.role .. " on " .. object_shown(a) .. " revoked"
   if not sys:exists(PSQL) then return "ok" end
   if a.kind ~= "database" and not db_exists(sys, what, a.database) then return "ok" end
   if #query_rows(sys, what, "SELECT 1 FROM pg_roles WHERE rolname = " .. lit(a.role) .. ";\n") == 0 then
      return "ok"
   end
   local rows = grant_rows(sys, what, a)
   local want = {}
   for _, p in ipairs(a.privileges) do want[p] = true end
   local held = {}
   for _, r in ipairs(rows) do
      local p = a.kind == "tables" and r:match("^p%d+:(.*)$") or r:match("^p(.*)$")
      if p and want[p] then held[p] = true end
   end
   local list = {}
   for _, p in ipairs(a.privileges) do
      if held[p] then list[#list + 1] = p end
   end
   if #list == 0 then return "ok" end
   execute(sys, what, fmt("REVOKE %s ON %s FROM %s;\n", concat(list, ", "), object_sql(a), ident(a.role)),
           a.database)
   sys:note(fmt("%s %s on %s from %s", sys.dry and "would revoke" or "revoked", concat(list, ", "),
                object_shown(a), a.role))
   return "changed"
end

-- ---------------------------------------------------------------------
-- pg_hba.conf: prop's block.

local BEGIN = "# BEGIN prop (postgresql.hba): these lines are managed by prop, edits here are overwritten"
local END = "# END prop (postgresql.hba)"

-- The path of pg_hba.conf: the cluster's of version a.version, else the
-- one the running server reads (SHOW hba_file).
local function hba_path(sys, what, a)
   if a.path then return a.path end
   local rows = query_rows(sys, what, "SHOW hba_file;\n")
   if rows[1] == nil or rows[1]:sub(1, 1) ~= "/" then
      R.fail("%s: the server did not say where its pg_hba.conf is (SHOW hba_file)", what)
   end
   return rows[1]
end

-- content with prop's block (lines) in its place: where it was taken out,
-- right after Debian's "local all postgres peer" line (so that prop's own
-- access as postgres comes first), else before the first rule.  Also the
-- first and last line numbers of the block.
local function with_block(content, lines)
   local all = R.split_lines(content)
   local rest, inside = {}, false
   for _, l in ipairs(all) do
      if l == BEGIN then
         inside = true
      elseif inside then
         if l == END then inside = false end
      else
         rest[#rest + 1] = l
      end
   end
   local at
   for i, l in ipairs(rest) do
      if l:find("^%s*local%s+all%s+postgres%s+peer%s*$") then
         at = i + 1
         break
      end
   end
   if not at then
      at = #rest + 1
      for i, l in ipairs(rest) do
         if l:find("%S") and not l:find("^%s*#") then
            at = i
            break
         end
      end
   end
   local out = {}
   if lines == nil then
      if #rest == 0 then return "" end
      return concat(rest, "\n") .. "\n"
   end
   for i = 1, at - 1 do out[#out + 1] = rest[i] end
   local first = #out + 1
   out[#out + 1] = BEGIN
   for _, l in ipairs(lines) do out[#out + 1] = l end
   out[#out + 1] = END
   local last = #out
   for i = at, #rest do out[#out + 1] = rest[i] end
   return concat(out, "\n") .. "\n", first, last
end

-- The rows of pg_hba_file_rules: line number -> error ("" when none).
local function hba_rules(sys, what)
   local rules = {}
   for _, r in ipairs(query_rows(sys, what, "SELECT line_number || '|' || coalesce(replace(error, "
                             .. "E'\\n', ' '), '') FROM pg_hba_file_rules;\n")) do
      local n, e = r:match("^(%d+)|(.*)$")
      if n then rules[tonumber(n)] = e end
   end
   return rules
end

local function hba_errors(rules)
   local errs, lines = {}, {}
   for n, e in pairs(rules) do
      if e ~= "" then lines[#lines + 1] = n end
   end
   table.sort(lines)
   for _, n in ipairs(lines) do errs[#errs + 1] = fmt("line %d: %s", n, rules[n]) end
   return errs
end

local function reload(sys, what)
   execute(sys, what, "SELECT pg_reload_conf();\n")
end

local function hba_ensure(sys, a)
   local what = a.remove and "postgresql.hba removed" or "postgresql.hba"
   if a.remove and not sys:exists(PSQL) then return "ok" end
   if not ready(sys, what, "would write prop's lines in pg_hba.conf") then return "changed" end
   local path = hba_path(sys, what, a)
   local st = sys:stat(path)
   local content = st and sys:read(path)
   if content == nil then
      if a.remove then return "ok" end
      if sys.dry then
         sys:note(fmt("would write prop's lines in %s once it exists", path))
         return "changed"
      end
      R.fail("%s: %s does not exist: is the cluster made?", what, path)
   end
   local new = with_block(content, a.lines)
   if new == content then return "ok" end
   local o = { mode = st.mode, owner = st.owner, group = st.group }
   sys:write(path, new, o)
   if sys.dry then
      sys:note("the server would be reloaded (SELECT pg_reload_conf())")
      return "changed"
   end
   local errs = hba_errors(hba_rules(sys, what))
   if #errs > 0 then
      sys:write(path, content, o)
      R.fail("%s: PostgreSQL refuses %s with prop's lines, so it was put back as it was "
             .. "(and the server was not reloaded):\n%s", what, path, concat(errs, "\n"))
   end
   reload(sys, what)
   sys:note("the server was reloaded (SELECT pg_reload_conf())")
   return "changed"
end

-- The running server has loaded pg_hba.conf since it was last written,
-- without an error, and has a rule for each of prop's lines.
function impl.hba.verify(sys, a)
   local what = "postgresql.hba"
   local path = hba_path(sys, what, a)
   local content = sys:read(path)
   if content == nil then return false, path .. " does not exist" end
   local errs = hba_errors(hba_rules(sys, what))
   if #errs > 0 then return false, path .. ": " .. concat(errs, "; ") end
   local loaded = query_rows(sys, what, "SELECT (pg_stat_file(" .. lit(path) .. ")).modification <= "
                         .. "pg_conf_load_time();\n")
   if loaded[1] ~= "t" then
      return false, fmt("the server has not loaded %s since it was last written "
                        .. "(pg_conf_load_time() is older than the file)", path)
   end
   local want, first, last = with_block(content, a.lines)
   if want ~= content then
      return false, path .. " does not hold prop's lines"
   end
   local rules, n = hba_rules(sys, what), 0
   for i = first + 1, last - 1 do
      if rules[i] then n = n + 1 end
   end
   local nrules = 0
   for _, l in ipairs(a.lines) do
      if l:find("%S") and not l:find("^%s*#") then nrules = nrules + 1 end
   end
   if n ~= nrules then
      return false, fmt("pg_hba_file_rules has %d rules from prop's %d lines", n, nrules)
   end
   return true
end

impl.hba.ensure = hba_ensure
impl.hba_absent = { ensure = hba_ensure }

function impl.hba.repair(sys)
   reload(sys, "postgresql.hba")
   return "changed"
end

-- ---------------------------------------------------------------------
-- Extensions.

local function extension_exists(sys, what, a)
   return #query_rows(sys, what, "SELECT 1 FROM pg_extension WHERE extname = " .. lit(a.name) .. ";\n",
                  a.database) > 0
end

function impl.extension.ensure(sys, a)
   local what = "postgresql.extension " .. a.name
   local would = fmt("would create the extension %s in the database %s", a.name, a.database)
   if not ready(sys, what, would) then return "changed" end
   if not db_exists(sys, what, a.database) then
      if sys.dry then
         sys:note(fmt("%s once the database exists", would))
         return "changed"
      end
      R.fail("%s: the database %s does not exist", what, a.database)
   end
   if extension_exists(sys, what, a) then return "ok" end
   execute(sys, what, "CREATE EXTENSION " .. ident(a.name) .. ";\n", a.database)
   sys:note(fmt("%s the extension %s in the database %s", sys.dry and "would create" or "created",
                a.name, a.database))
   return "changed"
end

function impl.extension_absent.ensure(sys, a)
   local what = "postgresql.extension " .. a.name .. " dropped"
   if not sys:exists(PSQL) or not db_exists(sys, what, a.database) then return "ok" end
   if not extension_exists(sys, what, a) then return "ok" end
   execute(sys, what, "DROP EXTENSION " .. ident(a.name) .. ";\n", a.database)
   sys:note(fmt("%s the extension %s in the database %s", sys.dry and "would drop" or "dropped",
                a.name, a.database))
   return "changed"
end

-- ---------------------------------------------------------------------
-- Arguments.

-- A name of PostgreSQL's: any text but control characters, at most 63
-- bytes (NAMEDATALEN - 1); quotes are quoted.
local function check_name(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   if v:find("%c") then return fmt("%s %s must not contain control characters", what, args.show(v)) end
   if #v > 63 then
      return fmt("%s %s is %d bytes long: PostgreSQL's names have at most 63", what, args.show(v), #v)
   end
   return nil, v
end

local function name_of(v)
   return type(v) == "string" and v or "?"
end

--[[ postgresql.installed()
  DebianLike, not revertable, port 5432.
  Claims: package.installed postgresql, service.running postgresql.
  Run time: apt-installs postgresql when missing, then starts the
  postgresql service when it is not running.
  Example:
    postgresql.installed()
]]
function postgresql.installed(a, ...)
   local err = args.no_args("postgresql.installed", a, ...)
   if err then return core.invalid("postgresql installed", err) end
   return core.leaf{ desc = "postgresql installed", targets = "DebianLike", impl = impl.installed,
                     args = { package = "postgresql" },
                     claims = { claim.package_installed("postgresql"),
                                claim.service_running("postgresql") },
                     ports = { 5432 },
                     norevert = "postgresql.installed has no revert action: use apt.removed "
                        .. '"postgresql" to remove it' }
end

--[[ postgresql.database(name [, { owner=, encoding=, template= }])
  DebianLike, revertable (DROP DATABASE).  Uses service postgresql.
]]
function postgresql.database(name, opts)
   local desc = "postgresql database " .. name_of(name)
   local nerr = check_name(name, "name")
   local oerr, o = args.options(opts, {
      owner = check_name,
      template = check_name,
      encoding = function(v, what)
         return args.matching(v, what, "[%w][%w_-]*", 'an encoding name such as "UTF8"')
      end,
   }, "postgresql.database")
   local msg = args.join("postgresql.database", nerr, oerr)
   if msg then return core.invalid(desc, msg) end
   local up = core.leaf{ desc = desc, targets = "DebianLike", impl = impl.database, uses = USES,
                         args = { name = name, owner = o.owner, encoding = o.encoding,
                                  template = o.template } }
   local down = core.leaf{ desc = desc .. " dropped", targets = "DebianLike",
                           impl = impl.database_absent, uses = USES, args = { name = name } }
   return core.pair(up, down)
end

--[[ postgresql.role(name [, { password = secret "name", login=, superuser=, createdb=,
                             createrole=, replication=, inherit=, bypassrls= }])
  DebianLike, revertable (DROP ROLE).  Uses service postgresql.
]]
function postgresql.role(name, opts)
   local desc = "postgresql role " .. name_of(name)
   local nerr = check_name(name, "name")
   local schema = {
      password = function(v, what)
         if core.is_secret(v) then return nil, v end
         return fmt('%s must be a secret (secret "name" from the site\'s store), got %s: a '
                    .. "password is never written in the site", what, args.got(v))
      end,
   }
   for _, at in ipairs(ATTRS) do schema[at.key] = args.boolean end
   local oerr, o = args.options(opts, schema, "postgresql.role")
   local msg = args.join("postgresql.role", nerr, oerr)
   if msg then return core.invalid(desc, msg) end
   local a = { name = name, password = o.password }
   for _, at in ipairs(ATTRS) do
      if o[at.key] == nil then a[at.key] = at.default else a[at.key] = o[at.key] end
   end
   local up = core.leaf{ desc = desc, targets = "DebianLike", impl = impl.role, uses = USES, args = a }
   local down = core.leaf{ desc = desc .. " dropped", targets = "DebianLike", impl = impl.role_absent,
                           uses = USES, args = { name = name } }
   return core.pair(up, down)
end

local KINDS = {
   { prefix = "all tables in schema", kind = "tables" },
   { prefix = "database", kind = "database" },
   { prefix = "schema", kind = "schema" },
   { prefix = "table", kind = "table" },
}

local function check_on(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   local low = v:lower()
   for _, k in ipairs(KINDS) do
      local n = #k.prefix
      if low:sub(1, n) == k.prefix and low:sub(n + 1, n + 1):find("%s") then
         local name = v:sub(n + 1):match("^%s+(.-)%s*$")
         local t = { kind = k.kind, object = name }
         if k.kind == "table" then
            local s, tb = name:match("^([^.]+)%.(.+)$")
            t.schema, t.object = s or "public", tb or name
         end
         local e1 = check_name(t.object, what .. " (the name)")
         local e2 = t.schema and check_name(t.schema, what .. " (the schema)")
         if e1 or e2 then return e1 or e2 end
         return nil, t
      end
   end
   return fmt('%s %s must be "database NAME", "schema NAME", "table [SCHEMA.]NAME" or '
              .. '"all tables in schema NAME"', what, args.show(v))
end

--[[ postgresql.grant(role, { on = "database x" | "schema s" | "table [s.]t" |
                             "all tables in schema s", privileges = { ... }, database = })
  DebianLike, revertable (REVOKE of those privileges).  Uses service postgresql.
]]
function postgresql.grant(role, opts)
   local desc = "postgresql grant to " .. name_of(role)
   local rerr = check_name(role, "role")
   local oerr, o = args.options(opts, {
      on = check_on,
      database = check_name,
      privileges = function(v, what)
         return args.list(v, what, function(x, w)
            local e = args.nonempty_string(x, w)
            if e then return e end
            return nil, (x:upper():gsub("^TEMP$", "TEMPORARY"))
         end, { nonempty = true })
      end,
   }, "postgresql.grant")
   local perr
   if not oerr then
      if type(opts) ~= "table" or o.on == nil or o.privileges == nil then
         perr = 'takes a role and a table { on = "database x", privileges = { "CONNECT" } }: '
            .. "on and privileges are required"
      elseif o.on.kind == "database" and o.database then
         perr = "database= is for a schema or a table: a grant on a database names it in on="
      else
         local known, list, seen, bad = {}, {}, {}, {}
         for _, p in ipairs(PRIVS[o.on.kind]) do known[p] = true end
         for _, p in ipairs(o.privileges) do
            if p == "ALL" or p == "ALL PRIVILEGES" then
               for _, q in ipairs(PRIVS[o.on.kind]) do
                  if not seen[q] then list[#list + 1], seen[q] = q, true end
               end
            elseif known[p] then
               if not seen[p] then list[#list + 1], seen[p] = p, true end
            else
               bad[#bad + 1] = p
            end
         end
         if #bad > 0 then
            perr = fmt("privileges: %s %s not a privilege on a %s (expected %s or ALL)",
                       concat(bad, ", "), #bad > 1 and "are" or "is",
                       o.on.kind == "tables" and "table" or o.on.kind,
                       concat(PRIVS[o.on.kind], ", "))
         end
         o.privileges = list
      end
   end
   local msg = args.join("postgresql.grant", rerr, oerr, perr)
   if msg then return core.invalid(desc, msg) end
   local a = { role = role, kind = o.on.kind, object = o.on.object, schema = o.on.schema,
               privileges = o.privileges,
               database = o.on.kind ~= "database" and (o.database or "postgres") or nil }
   desc = fmt("postgresql grant %s on %s to %s", concat(a.privileges, ", "), object_shown(a), role)
   local up = core.leaf{ desc = desc, targets = "DebianLike", impl = impl.grant, uses = USES, args = a }
   local down = core.leaf{ desc = desc .. " revoked", targets = "DebianLike", impl = impl.revoke,
                           uses = USES, args = a }
   return core.pair(up, down)
end

local HBA_TYPES = { "local", "host", "hostssl", "hostnossl", "hostgssenc", "hostnogssenc" }

local function hba_field(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   if v:find("%s") or v:find("#", 1, true) then
      return fmt("%s %s must not contain blanks or #", what, args.show(v))
   end
   return nil, v
end

-- A line of pg_hba.conf from a string or a table.
local function hba_line(v, what)
   if type(v) == "string" then
      if v:find("[\r\n]") then return fmt("%s %s contains a newline", what, args.show(v)) end
      if v == BEGIN or v == END then return fmt("%s is prop's own marker line", what) end
      return nil, v
   end
   if type(v) ~= "table" then
      return fmt("%s must be a line (a string) or a table { type=, database=, user=, address=, "
                 .. "method= }, got %s", what, args.got(v))
   end
   local err, t = args.options(v, {
      type = function(x, w)
         if R.list_has(HBA_TYPES, x) then return nil, x end
         return fmt("%s %s must be one of %s%s", w, args.show(x), concat(HBA_TYPES, ", "),
                    type(x) == "string" and args.did_you_mean(x, HBA_TYPES) or "")
      end,
      database = hba_field, user = hba_field, address = hba_field, method = hba_field,
      options = args.nonempty_string,
   }, "postgresql.hba")
   if err then return err end
   local missing = {}
   for _, k in ipairs({ "type", "database", "user", "method" }) do
      if t[k] == nil then missing[#missing + 1] = k end
   end
   if t.type and t.type ~= "local" and t.address == nil then missing[#missing + 1] = "address" end
   if #missing > 0 then return fmt("%s lacks %s", what, concat(missing, ", ")) end
   if t.type == "local" and t.address then return fmt("%s: a local line has no address", what) end
   if t.options and t.options:find("[\r\n#]") then
      return fmt("%s: options must not contain a newline or #", what)
   end
   local f = { fmt("%-7s", t.type), fmt("%-15s", t.database), fmt("%-15s", t.user) }
   if t.address then f[#f + 1] = fmt("%-23s", t.address) end
   f[#f + 1] = t.method
   if t.options then f[#f + 1] = t.options end
   return nil, (concat(f, " "):gsub("%s+$", ""))
end

--[[ postgresql.hba(lines [, { version = }])
  DebianLike, revertable (its revert removes prop's block).  Uses service postgresql.
]]
function postgresql.hba(lines, opts)
   local desc = "postgresql pg_hba.conf lines"
   local lerr, list
   if type(lines) == "table" and lines[1] == nil and next(lines) ~= nil then
      local e, l = hba_line(lines, "lines")
      lerr, list = e, { l }
   else
      lerr, list = args.list(lines, "lines", hba_line, { nonempty = true })
   end
   local oerr, o = args.options(opts, {
      version = function(v, what)
         return args.matching(v, what, "%d+[%d.]*", 'a PostgreSQL version such as "15"')
      end,
   }, "postgresql.hba")
   local msg = args.join("postgresql.hba", lerr, oerr)
   if msg then return core.invalid(desc, msg) end
   local path = o.version and fmt("/etc/postgresql/%s/main/pg_hba.conf", o.version) or nil
   local claims, noclaims
   if path then
      claims, noclaims = {}, {}
      for _, l in ipairs(list) do
         claims[#claims + 1] = claim.file_line(path, l)
         noclaims[#noclaims + 1] = claim.file_noline(path, l)
      end
   end
   local up = core.leaf{ desc = desc, targets = "DebianLike", impl = impl.hba, uses = USES,
                         args = { lines = list, path = path }, claims = claims }
   local down = core.leaf{ desc = desc .. " removed", targets = "DebianLike", impl = impl.hba_absent,
                           uses = USES, args = { path = path, remove = true },
                           claims = noclaims }
   return core.pair(up, down)
end

--[[ postgresql.extension(name [, { database = }])
  DebianLike, revertable (DROP EXTENSION).  Uses service postgresql.
]]
function postgresql.extension(name, opts)
   local desc = "postgresql extension " .. name_of(name)
   local nerr = check_name(name, "name")
   local oerr, o = args.options(opts, { database = check_name }, "postgresql.extension")
   local msg = args.join("postgresql.extension", nerr, oerr)
   if msg then return core.invalid(desc, msg) end
   local a = { name = name, database = o.database or "postgres" }
   desc = desc .. " in " .. a.database
   local up = core.leaf{ desc = desc, targets = "DebianLike", impl = impl.extension, uses = USES,
                         args = a }
   local down = core.leaf{ desc = desc .. " dropped", targets = "DebianLike",
                           impl = impl.extension_absent, uses = USES, args = a }
   return core.pair(up, down)
end

return args.strict_module(postgresql, "postgresql")
