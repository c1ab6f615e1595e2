-- prop.user: local user accounts.
--
-- UnixLike.  Names follow the portable rule of useradd(8) and pw(8):
-- a lower-case letter or "_" first, then letters, digits, "_", "-", at
-- most 32 characters.

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local R = require "prop.runtime"

local user = {}

local impl = { account = {}, absent = {}, shell = {}, locked = {}, unlocked = {},
               in_group = {}, not_in_group = {}, system = {} }

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

-- The shadow fields of an account without a password (useradd leaves
-- "!", passwd -d ""; "*", "!*" and "!!" are the other spellings of none).
local no_password = { [""] = true, ["!"] = true, ["*"] = true, ["!*"] = true, ["!!"] = true }

local function ensure_password(sys, a, created)
   if R.is_freebsd(sys) then
      R.fail("user.account %s: password= is supported on Linux (chpasswd) only", a.name)
   end
   if sys.dry and created then
      sys:note("would set the password of " .. a.name)
      return true
   end
   local h = shadow_hash(sys, a.name)
   if a.only_if_unset and h and not no_password[h] then
      -- The account has a password: only_if_unset never changes it.
      return false
   end
   if h and h:find("^%$") then
      local r = sys:query({ "perl", "-e", crypt_script, h }, { stdin = a.password })
      if r.code == 0 and r.stdout == "same" then return false end
   end
   sys:run({ "chpasswd" }, { stdin = a.name .. ":" .. a.password .. "\n" })
   sys:note((sys.dry and "would set the password of " or "set the password of ") .. a.name)
   return true
end

local function ensure_account(sys, a)
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

-- The account an attribute recipe changes: it must exist (user.account
-- makes it).  In a dry run it may not exist yet, when a property before
-- this one would have made it: nil then, and the caller says what it
-- would do.
local function existing(sys, what, name)
   local u = R.passwd(sys)[name]
   if u == nil and not sys.dry then
      R.fail("%s: user %s does not exist (declare it with user.account)", what, name)
   end
   return u
end

function impl.shell.ensure(sys, a)
   local u = existing(sys, "user.shell", a.name)
   if u and u.shell == a.shell then return "ok" end
   if not sys:exists(a.shell) then
      if not sys.dry then
         R.fail("user.shell %s: %s does not exist on the target (install the shell first)",
                a.name, a.shell)
      end
      sys:note(a.shell .. " does not exist yet")
   end
   local argv = account_argv(sys, "usermod", a.name)
   add(argv, "-s", a.shell)
   if not R.is_freebsd(sys) then add(argv, a.name) end
   R.run(sys, "user.shell", argv)
   R.accounts_forget(sys)
   sys:note(fmt("shell %s -> %s", u and u.shell or "(no account yet)", a.shell))
   return "changed"
end

-- Whether the password of an account is locked: its hash in /etc/shadow
-- starts with "!" (usermod -L, passwd -l); on FreeBSD, its hash in
-- /etc/master.passwd starts with "*LOCKED*" (pw lock).  Also the hash
-- itself, nil when the account has no line.
local function lock_state(sys, what, name)
   local freebsd = R.is_freebsd(sys)
   local path = freebsd and "/etc/master.passwd" or "/etc/shadow"
   local content = sys:read(path)
   if content == nil then R.fail("%s %s: %s does not exist on the target", what, name, path) end
   for line in content:gmatch("[^\n]+") do
      local n, h = line:match("^([^:]*):([^:]*)")
      if n == name then
         if freebsd then return h:sub(1, 8) == "*LOCKED*", h end
         return h:sub(1, 1) == "!", h
      end
   end
   return nil, nil
end

local function set_lock(sys, what, name, lock)
   local u = existing(sys, what, name)
   local locked, h = false, nil
   if u then
      locked, h = lock_state(sys, what, name)
      locked = locked or false
   end
   if u and locked == lock then return "ok" end
   local freebsd = R.is_freebsd(sys)
   if not lock and h and not freebsd and (h == "!" or h == "!*" or h == "!!") then
      -- usermod -U refuses: nothing behind the "!" would be a password.
      R.fail("%s %s: the account has no password to unlock (set one first, for example with "
             .. "user.account's password=)", what, name)
   end
   local argv
   if freebsd then
      argv = { "pw", lock and "lock" or "unlock", name }
   else
      argv = { "usermod", lock and "-L" or "-U", name }
   end
   R.run(sys, what, argv)
   local verb = lock and "lock" or "unlock"
   sys:note(fmt("%s the password of %s", sys.dry and "would " .. verb or verb .. "ed", name))
   return "changed"
end

function impl.locked.ensure(sys, a) return set_lock(sys, "user.locked", a.name, true) end
function impl.unlocked.ensure(sys, a) return set_lock(sys, "user.locked (revert)", a.name, false) end

-- password = "*": no password at all, as Puppet's "*" (the hash erased,
-- not only disabled): the shadow field "*" on Linux, as usermod -p '*'
-- sets it ("!", "!*" and "!!", useradd's spellings of none, are as
-- good); on FreeBSD "*" in master.passwd (pw usermod -w no).  Whether
-- it changed.
local function ensure_no_password(sys, a)
   local name, freebsd = a.name, R.is_freebsd(sys)
   local _, h = lock_state(sys, "user.account", name)
   if h == nil and not sys.dry then R.fail("user.account %s: the account has no entry in the shadow file", name) end
   if h == "*" or (not freebsd and (h == "!" or h == "!*" or h == "!!")) then return false end
   if freebsd then
      R.run(sys, "user.account", { "pw", "usermod", name, "-w", "no" })
   else
      R.run(sys, "user.account", { "usermod", "-p", "*", name })
   end
   sys:note(fmt("%s the password of %s (the account is locked: \"*\")",
                sys.dry and "would remove" or "removed", name))
   return true
end

function impl.account.ensure(sys, a)
   local r = ensure_account(sys, a)
   local changed = false
   if a.no_password then
      changed = ensure_no_password(sys, a)
   elseif a.locked ~= nil then
      changed = set_lock(sys, "user.account", a.name, a.locked) == "changed"
   end
   return (r == "changed" or changed) and "changed" or "ok"
end

-- Membership of a supplementary group: the account's primary group counts
-- as membership and cannot be taken away by this recipe.
local function set_member(sys, what, name, group, want)
   local u = existing(sys, what, name)
   local g = R.groups(sys)[group]
   -- No such group: nobody is in it.
   if g == nil and not want and u then return "ok" end
   if g == nil and not sys.dry then
      R.fail("%s: group %s does not exist (declare it with group.exists)", what, group)
   end
   local primary = u and g and g.gid == u.gid
   local member = g and (g.members[name] or primary)
   if u and g and (member and true or false) == want then return "ok" end
   if primary and not want then
      R.fail("%s: %s is the primary group of %s (change it with user.account's gid=)", what,
             group, name)
   end
   local argv
   if R.is_freebsd(sys) then
      argv = { "pw", "groupmod", group, want and "-m" or "-d", name }
   else
      argv = { "gpasswd", want and "-a" or "-d", name, group }
   end
   R.run(sys, what, argv)
   R.accounts_forget(sys)
   sys:note(fmt("%s %s %s %s", sys.dry and (want and "would add" or "would remove")
                or (want and "added" or "removed"), name, want and "to" or "from", group))
   return "changed"
end

function impl.in_group.ensure(sys, a) return set_member(sys, "user.has_group", a.name, a.group, true) end
function impl.not_in_group.ensure(sys, a)
   return set_member(sys, "user.has_group (revert)", a.name, a.group, false)
end

local NO_HOME = "/nonexistent"

-- A system account: useradd --system (a uid below UID_MIN, no aging, no
-- home made unless one is given), or, when it exists, usermod for the
-- attributes that differ.
function impl.system.ensure(sys, a)
   local name = a.name
   local u = R.passwd(sys)[name]
   local freebsd = R.is_freebsd(sys)
   if u == nil then
      local argv = account_argv(sys, "useradd", name)
      if freebsd then
         -- pw picks uids from 1000 up: the system range is below it.
         add(argv, "-s", a.shell, "-d", a.home or NO_HOME)
         if a.home then add(argv, "-m") end
      else
         add(argv, "--system", "-s", a.shell, "-d", a.home or NO_HOME)
         add(argv, a.home and "-m" or "-M")
      end
      if a.uid then add(argv, "-u", tostring(a.uid)) end
      if R.groups(sys)[name] then add(argv, "-g", name) elseif not freebsd then add(argv, "-U") end
      if a.comment then add(argv, "-c", a.comment) end
      if not freebsd then add(argv, name) end
      R.run(sys, "user.system_account", argv)
      R.accounts_forget(sys)
      sys:note((sys.dry and "would create system account " or "created system account ") .. name)
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
   differs("-s", "shell", a.shell, "shell")
   differs("-d", "home", a.home, "home")
   differs("-c", "comment", a.comment, "comment")
   if #what == 0 then return "ok" end
   if not freebsd then add(argv, name) end
   R.run(sys, "user.system_account", argv)
   R.accounts_forget(sys)
   sys:note(table.concat(what, "; "))
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

-- password = "*" or "!" (Puppet's spellings): no password, the account
-- locked.
local no_password_word = { ["*"] = true, ["!"] = true }

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
   -- A password is a secret: never plain text in the site; "*" or "!"
   -- (Puppet's spellings) is no password: the account locked.
   password = function(v, what)
      if core.is_secret(v) or no_password_word[v] then return nil, v end
      return fmt('%s must be a secret (secret "name" from the site\'s store), or "*" for no '
                 .. 'password (the account locked), got %s: a password is never written in '
                 .. 'the site', what, args.got(v))
   end,
   only_if_unset = args.boolean,
   locked = args.boolean,
}

-- The claims of an account and the attributes it sets: "user" name = uid,
-- and a user.setting "ATTR=VALUE" per attribute given, so that two
-- recipes setting one attribute of one account differently are found
-- before anything runs (P010).
local function account_claims(name, o)
   local claims = { claim.user(name, o.uid or false) }
   local function setting(attr, v)
      if v ~= nil then claims[#claims + 1] = claim.user_setting(name, attr .. "=" .. v) end
   end
   setting("shell", o.shell)
   setting("home", o.home)
   setting("comment", o.comment)
   for _, g in ipairs(o.groups or {}) do setting("member of " .. g, "yes") end
   -- No password, or locked = true: locked as user.locked claims it; a
   -- password set (chpasswd writes a hash without "!") or locked = false:
   -- unlocked, so that user.locked beside it is P010, not a flip each run.
   local no_password = no_password_word[o.password]
   if no_password or o.locked == true then
      setting("locked", "yes")
   elseif o.locked == false or (o.password ~= nil and not o.only_if_unset) then
      setting("locked", "no")
   end
   return claims
end

local function account_leaf(name, o)
   local desc = "user " .. name .. " exists"
   if o.uid then desc = "user " .. name .. " exists (uid " .. o.uid .. ")" end
   local no_password = no_password_word[o.password] or false
   local a = { name = name, uid = o.uid, gid = o.gid, shell = o.shell, home = o.home,
               groups = o.groups, comment = o.comment,
               password = not no_password and o.password or nil, no_password = no_password,
               locked = o.locked, only_if_unset = o.only_if_unset }
   return core.leaf{ desc = desc, impl = impl.account, args = a, claims = account_claims(name, o) }
end

local function absent_leaf(name)
   return core.leaf{ desc = "user " .. name .. " absent", impl = impl.absent,
                     args = { name = name }, claims = { claim.user_absent(name) } }
end

--[[ user.account(name [, { uid=, gid=, shell=, home=, groups=, comment=, password=, only_if_unset=, locked= }])
  UnixLike, revertable: its revert is user.absent(name).
  Claims: user name = uid (or no id when uid is not given), so that the
  pre-pass finds one name with two uids or one uid with two names (P010);
  and user.setting name = "shell=...", "home=...", "comment=...", and
  "member of GROUP=yes" per group, for what is given: another value for
  one of them on the same host (user.shell, user.has_group's revert,
  user.system_account) is P010.
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
  only_if_unset = true: the password is set only while the account has
  none (its /etc/shadow field is "!", "*", "!*", "!!" or empty, as
  useradd leaves it); once it has one, whoever set it, it is never
  compared or changed again (a user may change it).
  password = "*" (or "!", Puppet's spellings): no password, the account
  locked: the hash is erased (usermod -p '*'; pw usermod -w no on
  FreeBSD), ok when the field holds none ("*", "!", "!*", "!!").  Keys
  still log in.  locked = true locks the password as user.locked does
  (the hash kept behind "!"), locked = false unlocks it.  Claims
  user.setting name = "locked=yes" for both ("locked=no" for locked =
  false and for a password set), so user.locked's revert beside them is
  P010.
  Example:
    user.account("alice", { uid = 1001, shell = "/bin/bash", groups = { "adm", "sudo" } })
    user.account("deploy", { password = secret "deploy_password" })
    user.account("alice", { password = secret "alice_initial", only_if_unset = true })
    user.account("olduser", { password = "*" })
]]
function user.account(name, opts)
   local desc = "user " .. (type(name) == "string" and name or "?") .. " exists"
   local err = check_name(name, "user name")
   local oerr, o = args.options(opts, schema, "user.account")
   if not oerr and o.only_if_unset ~= nil and (o.password == nil or no_password_word[o.password]) then
      oerr = "only_if_unset is about password=: give the password (a secret) too"
   end
   if not oerr and o.locked ~= nil and o.password ~= nil then
      oerr = o.password == "*" and 'password = "*" locks the account already: leave out locked'
         or "password= and locked = contradict: a password set is unlocked (give one of them)"
   end
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

local function name_desc(name)
   return type(name) == "string" and name or "?"
end

local function setting_claim(name, attr, value)
   return { claim.user_setting(name, attr .. "=" .. value) }
end

--[[ user.shell(name, path)
  UnixLike, not revertable (the shell before is not known).
  Claims: user.setting name = "shell=PATH": another shell for the same
  account on the same host (here, or in user.account's shell=) is P010.
  Run time: reads /etc/passwd; usermod -s PATH NAME (pw usermod on
  FreeBSD) when the shell differs, else ok.  The account must exist (see
  user.account) and so must the shell: a missing one fails rather than
  leave an account nobody can log in to.
  Example:
    user.shell("alice", "/bin/zsh")
]]
function user.shell(name, path, ...)
   local desc = "user " .. name_desc(name) .. " has shell " .. (type(path) == "string" and path or "?")
   local msg = args.join("user.shell", check_name(name, "user name"), (args.abs_path(path, "shell")),
                         select("#", ...) > 0 and "takes a user name and a path" or nil)
   if msg then return core.invalid(desc, msg) end
   return core.leaf{ desc = desc, impl = impl.shell, args = { name = name, shell = path },
                     claims = setting_claim(name, "shell", path),
                     norevert = "user.shell has no revert action: the shell it replaces is not known" }
end

--[[ user.locked(name)
  UnixLike, revertable: its revert unlocks the password.
  Claims: user.setting name = "locked=yes" (the revert: "locked=no"), so
  that one host locking and unlocking one account is P010.
  Locks the password: nobody logs in with it, while SSH keys still work.
  Run time: reads /etc/shadow (a hash starting with "!" is locked) and
  runs usermod -L NAME when it is not; the revert runs usermod -U, and
  fails when there is no password behind the "!" (a new account has
  none).  FreeBSD: /etc/master.passwd ("*LOCKED*"), pw lock / pw unlock.
  The account must exist (see user.account).
  Example:
    user.locked "olduser"
]]
function user.locked(name, ...)
   local desc = "user " .. name_desc(name) .. " is locked"
   local msg = args.join("user.locked", check_name(name, "user name"),
                         select("#", ...) > 0 and "takes one user name" or nil)
   if msg then return core.invalid(desc, msg) end
   return core.pair(core.leaf{ desc = desc, impl = impl.locked, args = { name = name },
                               claims = setting_claim(name, "locked", "yes") },
                    core.leaf{ desc = "user " .. name .. " is unlocked", impl = impl.unlocked,
                               args = { name = name }, claims = setting_claim(name, "locked", "no") })
end

--[[ user.has_group(name, group)
  UnixLike, revertable: its revert takes the account out of the group.
  Claims: user.setting name = "member of GROUP=yes" (the revert: "=no");
  user.account's groups= claims the same, so that one host adding and
  removing one membership is P010.
  Run time: reads /etc/passwd and /etc/group; gpasswd -a NAME GROUP when
  the account is not a member (its primary group counts); the revert runs
  gpasswd -d NAME GROUP when it is, and fails for the primary group.
  Other memberships are left alone.  FreeBSD: pw groupmod GROUP -m/-d.
  The account and the group must exist (user.account, group.exists);
  for the revert, a missing group is ok (nobody is in it).
  Example:
    user.has_group("alice", "docker")
]]
function user.has_group(name, group, ...)
   local desc = "user " .. name_desc(name) .. " in group " .. name_desc(group)
   local msg = args.join("user.has_group", check_name(name, "user name"),
                         (check_group(group, "group name")),
                         select("#", ...) > 0 and "takes a user name and a group name" or nil)
   if msg then return core.invalid(desc, msg) end
   local a = { name = name, group = group }
   return core.pair(
      core.leaf{ desc = desc, impl = impl.in_group, args = a,
                 claims = setting_claim(name, "member of " .. group, "yes") },
      core.leaf{ desc = "user " .. name .. " not in group " .. group, impl = impl.not_in_group,
                 args = a, claims = setting_claim(name, "member of " .. group, "no") })
end

local system_schema = {
   uid = args.id, shell = args.abs_path, home = args.abs_path, comment = schema.comment,
}

--[[ user.system_account(name [, { uid=, shell=, home=, comment= }])
  UnixLike, revertable: its revert is user.absent(name).
  An account for a service, not a person: useradd --system (a uid from the
  system range, no password ageing), shell /usr/sbin/nologin unless shell=
  says otherwise, home /nonexistent (not made) unless home= is given (then
  it is made, owned by the account), and a group of its name.
  Claims: user name = uid (or no id), and user.setting name = "shell=...",
  "home=..." and "comment=..." for what it sets: user.account or
  user.shell giving the same account another value is P010.
  Run time: reads /etc/passwd; useradd --system when the account is
  missing; usermod for the shell, uid, home (not moved) and comment when
  they differ from what is given; else ok.  FreeBSD: pw useradd/usermod.
  Example:
    user.system_account("prometheus", { home = "/var/lib/prometheus", comment = "Prometheus" })
]]
function user.system_account(name, opts)
   local desc = "system account " .. name_desc(name) .. " exists"
   local oerr, o = args.options(opts, system_schema, "user.system_account")
   local msg = args.join("user.system_account", check_name(name, "user name"), oerr)
   if msg then return core.invalid(desc, msg) end
   local a = { name = name, uid = o.uid, shell = o.shell or "/usr/sbin/nologin", home = o.home,
               comment = o.comment }
   local claims = account_claims(name, { uid = o.uid, shell = a.shell, home = o.home,
                                         comment = o.comment })
   return core.pair(core.leaf{ desc = desc, impl = impl.system, args = a, claims = claims }, absent_leaf(name))
end

return args.strict_module(user, "user")
