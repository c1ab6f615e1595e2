-- prop.user: local user accounts.
--
-- UnixLike.  Names follow the portable rule of useradd(8) and pw(8):
-- a lower-case letter or "_" first, then letters, digits, "_", "-", at
-- most 32 characters.

local core = require "prop.core"
local args = require "prop.args"
local R = require "prop.runtime"

local user = {}

local impl = { account = {}, absent = {} }

local fmt = string.format

-- Run time -------------------------------------------------------------
-- /etc/passwd and /etc/group are read once per host and run (sys.cache);
-- changes go through useradd/usermod/userdel (pw on FreeBSD).

local function account_argv(sys, verb, name)
   if R.is_freebsd(sys) then return { "pw", verb, name } end
   return { verb }
end

local function add(argv, ...)
   for _, w in ipairs({ ... }) do argv[#argv + 1] = w end
end

-- The password: its hash in /etc/shadow is compared with crypt(3) of the
-- secret under the same salt and method (perl, essential on Debian, calls
-- the system's crypt), its value reaching the target on standard input
-- only; chpasswd sets it when it differs.  Linux only.
local crypt_script = 'local $/; my $p = <STDIN>; my $h = $ARGV[0]; '
   .. 'print((defined $p && crypt($p, $h) eq $h) ? "same" : "differs")'

local function shadow_hash(sys, name)
   local shadow = sys:read("/etc/shadow")
   if shadow == nil then R.fail("user.account %s: /etc/shadow does not exist on the target", name) end
   for line in shadow:gmatch("[^\n]+") do
      local n, h = line:match("^([^:]*):([^:]*)")
      if n == name then return h end
   end
   return nil
end

local function ensure_password(sys, a, created)
   if R.is_freebsd(sys) then
      R.fail("user.account %s: password= is supported on Linux (chpasswd) only", a.name)
   end
   if sys.dry and created then
      sys:note("would set the password of " .. a.name)
      return true
   end
   local h = shadow_hash(sys, a.name)
   if h and h:find("^%$") then
      local r = sys:query({ "perl", "-e", crypt_script, h }, { stdin = a.password })
      if r.code == 0 and r.stdout == "same" then return false end
   end
   sys:run({ "chpasswd" }, { stdin = a.name .. ":" .. a.password .. "\n" })
   sys:note((sys.dry and "would set the password of " or "set the password of ") .. a.name)
   return true
end

function impl.account.ensure(sys, a)
   local name = a.name
   local users = R.passwd(sys)
   local groups = R.groups(sys)
   local u = users[name]
   -- The supplementary groups the account lacks (its primary group counts).
   local missing = {}
   for _, g in ipairs(a.groups or {}) do
      local grp = groups[g]
      if grp == nil and not sys.dry then
         R.fail("user.account %s: group %s does not exist (declare it with group.exists)", name, g)
      end
      if not (grp and (grp.members[name] or (u and grp.gid == u.gid))) then
         missing[#missing + 1] = g
      end
   end
   local freebsd = R.is_freebsd(sys)
   if u == nil then
      local argv = account_argv(sys, "useradd", name)
      add(argv, "-m")
      if a.uid then add(argv, "-u", tostring(a.uid)) end
      if a.gid then
         add(argv, "-g", tostring(a.gid))
      elseif groups[name] then
         -- useradd would try to make a group of the account's name.
         add(argv, "-g", name)
      end
      if a.shell then add(argv, "-s", a.shell) end
      if a.home then add(argv, "-d", a.home) end
      if a.comment then add(argv, "-c", a.comment) end
      if #missing > 0 then add(argv, "-G", table.concat(missing, ",")) end
      if not freebsd then add(argv, name) end
      R.run(sys, "user.account", argv)
      R.accounts_forget(sys)
      sys:note((sys.dry and "would create user " or "created user ") .. name)
      if a.password then ensure_password(sys, a, true) end
      return "changed"
   end
   local argv, what = account_argv(sys, "usermod", name), {}
   local function differs(flag, field, want, show)
      if want ~= nil and u[field] ~= want then
         add(argv, flag, tostring(want))
         what[#what + 1] = fmt("%s %s -> %s", show, tostring(u[field]), tostring(want))
      end
   end
   differs("-u", "uid", a.uid, "uid")
   differs("-g", "gid", a.gid, "gid")
   differs("-s", "shell", a.shell, "shell")
   differs("-d", "home", a.home, "home")
   differs("-c", "comment", a.comment, "comment")
   if #missing > 0 and not freebsd then
      add(argv, "-a", "-G", table.concat(missing, ","))
   end
   if #missing > 0 then
      what[#what + 1] = (sys.dry and "would add to " or "added to ") .. table.concat(missing, ",")
   end
   local pw_changed = a.password ~= nil and ensure_password(sys, a, false)
   if #what == 0 then return pw_changed and "changed" or "ok" end
   if #argv > (freebsd and 3 or 1) then
      if not freebsd then add(argv, name) end
      R.run(sys, "user.account", argv)
   end
   if freebsd then
      for _, g in ipairs(missing) do
         R.run(sys, "user.account", { "pw", "groupmod", g, "-m", name })
      end
   end
   R.accounts_forget(sys)
   sys:note(table.concat(what, "; "))
   return "changed"
end

function impl.absent.ensure(sys, a)
   if R.passwd(sys)[a.name] == nil then return "ok" end
   local argv = account_argv(sys, "userdel", a.name)
   if not R.is_freebsd(sys) then add(argv, a.name) end
   R.run(sys, "user.absent", argv)
   R.accounts_forget(sys)
   return "changed"
end

local function check_name(v, what)
   local err = args.matching(v, what, "[a-z_][a-z0-9_-]*%$?",
                             'a user name such as "alice" (lower case, digits, "_" and "-")')
   if err then return err end
   if #v > 32 then return fmt("%s %s is longer than 32 characters", what, args.show(v)) end
   return nil, v
end

local function check_group(v, what)
   return args.matching(v, what, "[a-z_][a-z0-9_-]*", 'a group name such as "adm"')
end

local schema = {
   uid = args.id,
   gid = args.id,
   shell = args.abs_path,
   home = args.abs_path,
   groups = function(v, what) return args.list(v, what, check_group) end,
   comment = function(v, what)
      local err = args.string(v, what)
      if not err and v:find("[:\n]") then err = what .. ' must not contain ":" or a newline' end
      return err, v
   end,
   -- A password is a secret: never plain text in the site.
   password = function(v, what)
      if core.is_secret(v) then return nil, v end
      return fmt('%s must be a secret (secret "name" from the site\'s store), got %s: a '
                 .. 'password is never written in the site', what, args.got(v))
   end,
}

local function account_leaf(name, o)
   local desc = "user " .. name .. " exists"
   if o.uid then desc = "user " .. name .. " exists (uid " .. o.uid .. ")" end
   local a = { name = name, uid = o.uid, gid = o.gid, shell = o.shell, home = o.home,
               groups = o.groups, comment = o.comment, password = o.password }
   return core.leaf(desc, nil, impl.account, a, { "user", name, o.uid or false })
end

local function absent_leaf(name)
   return core.leaf("user " .. name .. " absent", nil, impl.absent, { name = name },
                    { "user.absent", name, false })
end

--[[ user.account(name [, { uid=, gid=, shell=, home=, groups=, comment=, password= }])
  UnixLike, revertable: its revert is user.absent(name).
  Claims: user name = uid (or no id when uid is not given), so that the
  pre-pass finds one name with two uids or one uid with two names (P010).
  Creates the account when missing and sets what is given; groups lists
  supplementary groups (they must exist: see group.exists).
  Run time: reads /etc/passwd and /etc/group; a missing account is made
  with useradd -m (home directory created; without gid, a group of its
  name, or that group when it exists already); an existing one gets one
  usermod for what differs: -u, -g, -s, -d (the home is not moved), -c,
  and -a -G for the groups it is not in yet (other memberships are kept).
  Nothing differs: ok.  FreeBSD: pw useradd/usermod.
  password is a secret (secret "name"; plain text is refused): its hash
  in /etc/shadow is checked with crypt(3) under the stored salt (through
  perl, the value on standard input) and set with chpasswd when it
  differs; it never appears in a command line or the output.  Linux only.
  Example:
    user.account("alice", { uid = 1001, shell = "/bin/bash", groups = { "adm", "sudo" } })
    user.account("deploy", { password = secret "deploy_password" })
]]
function user.account(name, opts)
   local desc = "user " .. (type(name) == "string" and name or "?") .. " exists"
   local err = check_name(name, "user name")
   local oerr, o = args.options(opts, schema, "user.account")
   local msg = args.join("user.account", err, oerr)
   if msg then return core.invalid(desc, msg) end
   return core.pair(account_leaf(name, o), absent_leaf(name))
end

--[[ user.absent(name)
  UnixLike, revertable: its revert is user.account(name).
  Claims: user.absent name.  The home directory is kept.
  Run time: userdel NAME (not -r) when /etc/passwd has the account; the
  command fails, and so does the property, while the user has processes.
  Example:
    user.absent "games"
]]
function user.absent(name, opts)
   local desc = "user " .. (type(name) == "string" and name or "?") .. " absent"
   local msg = args.join("user.absent", check_name(name, "user name"),
                         (args.options(opts, {}, "user.absent")))
   if msg then return core.invalid(desc, msg) end
   return core.pair(absent_leaf(name), account_leaf(name, {}))
end

return args.strict_module(user, "user")
