-- prop.runtime: what the recipes share at run time.  Not a recipe module
-- (it makes no properties and is not a global of a site): the helpers
-- below take the `sys` handle of the host being run (lua/README.md, "Run
-- time") and are called from the recipes' impl.ensure functions.
--
-- Conventions:
-- - every ensure helper returns true when it changed something (or, in a
--   dry run, would have), false when everything already held;
-- - a failure raises error(message, 0): the executor reports the message
--   as the failure of the property;
-- - what a host looks like (dpkg status, /etc/passwd, the init system) is
--   looked up once per host per run and kept in sys.cache, and dropped as
--   soon as a recipe changes it.

local R = {}

local fmt = string.format
local concat = table.concat

function R.fail(...)
   error(fmt(...), 0)
end

-- ---------------------------------------------------------------------
-- Commands.

-- The last n non-empty lines of a command's output, for messages.
function R.tail(s, n)
   n = n or 6
   local lines = {}
   for l in (s or ""):gmatch("[^\n]+") do
      if l:find("%S") then lines[#lines + 1] = l end
   end
   local from = math.max(1, #lines - n + 1)
   return concat(lines, "\n", from, #lines)
end

-- The paths find prints (argv ends in -print0) under dir, for recipe what
-- doing something ("purge", "recurse"): find that does not run, or exits
-- non-zero, fails the property with what it said.
function R.find_paths(sys, what, doing, dir, argv)
   local ok, r = pcall(sys.query, sys, argv)
   if not ok then
      R.fail("%s: %s: the entries of %s are listed with find, which did not run: %s",
             what, doing, dir, tostring(r))
   end
   if r.code ~= 0 then
      local said = R.tail(((r.stderr or "") .. (r.stdout or "")):gsub("\r", ""), 4)
      R.fail("%s: %s: find could not list %s (exit %d)%s", what, doing, dir, r.code,
             said ~= "" and ": " .. said or "")
   end
   local paths = {}
   for path in (r.stdout or ""):gmatch("([^%z]+)%z") do paths[#paths + 1] = path end
   return paths
end

-- The argv shell-quoted, for messages.  The environment and "-o OPTION"
-- pairs that prop adds to apt-get are left out: they hide what ran.
function R.show_argv(argv)
   local shown, i = {}, 1
   if argv[1] == "env" then
      i = 2
      while argv[i] and argv[i]:find("^[%w_]+=") do i = i + 1 end
   end
   local apt = argv[i] == "apt-get"
   while i <= #argv do
      if apt and argv[i] == "-o" and argv[i + 1] then
         i = i + 2
      else
         shown[#shown + 1] = argv[i]
         i = i + 1
      end
   end
   return require("prop.args").shell_join(shown)
end

-- "what: CMD exited with N: <stderr tail>".
function R.command_failed(what, argv, r)
   local out = R.tail(r.stderr)
   if out == "" then out = R.tail(r.stdout) end
   R.fail("%s: %s exited with %d%s", what, R.show_argv(argv), r.code,
          out ~= "" and ":\n" .. out or "")
end

-- Runs a command that changes the target; raises unless it succeeds,
-- with what in the message.
function R.run(sys, what, argv, opts)
   local o = { ok = "any" }
   if opts then
      for k, v in pairs(opts) do if k ~= "ok" then o[k] = v end end
   end
   local r = sys:run(argv, o)
   if r.code ~= 0 then R.command_failed(what, argv, r) end
   return r
end

-- Every exit code is the caller's to judge.
local any = { ok = "any" }
R.any = any

-- Runs a command that only looks; raises when it could not run at all
-- (exit 127: not installed), else returns its result whatever the code.
function R.query(sys, what, argv, opts)
   local r = sys:query(argv, opts)
   if r.code == 127 or r.code == -1 then R.command_failed(what, argv, r) end
   return r
end

-- The target's kernel, from uname -s ("Linux", "FreeBSD"), once per host.
function R.kernel(sys)
   local k = sys.cache["runtime.kernel"]
   if k then return k end
   local r = R.query(sys, "uname", { "uname", "-s" })
   if r.code ~= 0 then R.command_failed("uname", { "uname", "-s" }, r) end
   k = r.stdout:match("^%s*(%S+)") or "unknown"
   sys.cache["runtime.kernel"] = k
   return k
end

-- Whether the target is FreeBSD: its declared OS, else whether it has
-- freebsd-version(1) (no command needed: works on a bare tree too).
function R.is_freebsd(sys)
   if sys.os ~= nil then return sys.os == "freebsd" end
   local v = sys.cache["runtime.freebsd"]
   if v == nil then
      v = sys:exists("/bin/freebsd-version")
      sys.cache["runtime.freebsd"] = v
   end
   return v
end

-- Whether the target runs on a directory tree (connect.dir): there,
-- commands act on the machine running prop (a chroot shares its kernel,
-- its processes and its host name), so recipes skip what only makes sense
-- on a real system.
function R.is_dir_tree(sys)
   local t = sys.transport
   return type(t) == "string" and t:sub(1, 4) == "dir:"
end

-- Why the running kernel is left alone (sysctl -w, modprobe), or nil when
-- it is the target's own: a container or a directory tree shares the
-- kernel of the machine that holds it.
function R.kernel_not_own(sys)
   if R.is_dir_tree(sys) then
      return "a directory tree shares the kernel of the machine running prop"
   end
   local c = sys.container
   if c == "chroot" then return "a chroot shares this machine's kernel" end
   if c ~= nil then return fmt("a %s container shares its host's kernel", c) end
   return nil
end

-- ---------------------------------------------------------------------
-- Files.

-- Splits content into lines; the second result tells whether the last
-- line ended with a newline (true for "").
function R.split_lines(content)
   local lines = {}
   if content == nil or content == "" then return lines, true end
   for l in (content .. (content:sub(-1) == "\n" and "" or "\n")):gmatch("([^\n]*)\n") do
      lines[#lines + 1] = l
   end
   return lines, content:sub(-1) == "\n"
end

function R.mode_number(mode)
   if mode == nil then return nil end
   if math.type(mode) == "integer" then return mode end
   local n = tonumber(mode, 8)
   if n == nil then R.fail('"%s" is not an octal mode', tostring(mode)) end
   return n
end

-- Whether stat st has owner want (a name or a number as a string); nil
-- wants nothing.
local function account_matches(want, name, id)
   if want == nil or want == "" then return true end
   want = tostring(want)
   return want == name or want == tostring(id)
end

-- The attributes of st that differ from what o (mode, owner, group) asks
-- for, as a chattr table, or nil when all match.
function R.attrs_to_fix(st, o)
   local fix, any = {}, false
   local mode = R.mode_number(o.mode)
   if mode and (st == nil or st.mode ~= mode) then fix.mode, any = mode, true end
   if o.owner and (st == nil or not account_matches(o.owner, st.owner, st.uid)) then
      fix.owner, any = tostring(o.owner), true
   end
   if o.group and (st == nil or not account_matches(o.group, st.group, st.gid)) then
      fix.group, any = tostring(o.group), true
   end
   return any and fix or nil
end

-- path holds content, with the mode/owner/group of o when given.  A
-- symlink at path is replaced by a regular file; a directory is a
-- failure.  A new file without a mode gets 0644 (umask not applied), an
-- existing one keeps its mode.  o.secret keeps the content out of output.
function R.ensure_content(sys, what, path, content, o)
   o = o or {}
   local st = sys:stat(path)
   if st and st.type == "directory" then
      R.fail("%s: %s is a directory, not a file", what, path)
   end
   if st and st.type == "other" then
      R.fail("%s: %s is a device, socket or pipe, not a regular file", what, path)
   end
   -- A secret's bytes are compared in C (sys:has_content): they never
   -- enter Lua.
   local same
   if type(content) == "string" then
      same = st ~= nil and st.type ~= "link" and sys:read(path) == content
   else
      same = st ~= nil and st.type ~= "link" and sys:has_content(path, content)
   end
   if not same then
      sys:write(path, content, { mode = R.mode_number(o.mode), owner = o.owner,
                                 group = o.group, secret = o.secret })
      return true
   end
   local fix = R.attrs_to_fix(st, o)
   if fix then
      fix.hardlinks = o.hardlinks
      sys:chattr(path, fix)
      return true
   end
   return false
end

-- The file a path names once symlinks are followed (up to 16 links; a
-- relative target is relative to the link's directory), and its stat.
function R.follow(sys, path)
   local st = sys:stat(path)
   local n = 0
   while st and st.type == "link" and n < 16 do
      local t = st.target
      if t:sub(1, 1) ~= "/" then t = (path:match("^(.*)/[^/]*$") or "") .. "/" .. t end
      path, n = t, n + 1
      st = sys:stat(path)
   end
   return path, st
end

-- path contains each of lines (in this order when they are appended);
-- the other lines are kept.  A missing file is created with the lines.
-- A symlink is followed: the file it points to is edited.
function R.ensure_lines(sys, what, path, want)
   local st, claimed = nil, path
   path, st = R.follow(sys, path)
   if st and st.type ~= "file" then
      R.fail("%s: %s is a %s, not a file", what, path,
             st.type == "other" and "special file" or st.type == "link" and "chain of too many links"
             or st.type)
   end
   local content = sys:read(path)
   local have = {}
   for _, l in ipairs((R.split_lines(content))) do have[l] = true end
   local add = {}
   for _, l in ipairs(want) do
      if not have[l] then
         add[#add + 1] = l
         have[l] = true
      end
   end
   if #add == 0 then return false end
   local new = content or ""
   if new ~= "" and new:sub(-1) ~= "\n" then new = new .. "\n" end
   new = new .. concat(add, "\n") .. "\n"
   -- Written through the link the property claims (W104 knows it).
   sys:write(path, new, { via = claimed })
   return true
end

-- No line of path is one of lines; a missing file holds none.  A symlink
-- is followed.
function R.ensure_no_lines(sys, what, path, unwanted)
   local claimed = path
   path = R.follow(sys, path)
   local content = sys:read(path)
   if content == nil then return false end
   local drop = {}
   for _, l in ipairs(unwanted) do drop[l] = true end
   local lines, nl = R.split_lines(content)
   local keep, removed = {}, 0
   for _, l in ipairs(lines) do
      if drop[l] then removed = removed + 1 else keep[#keep + 1] = l end
   end
   if removed == 0 then return false end
   local new = concat(keep, "\n")
   if #keep > 0 and nl then new = new .. "\n" end
   sys:write(path, new, { via = claimed })
   return true
end

-- ---------------------------------------------------------------------
-- apt and dpkg.

local apt_env = { "env", "DEBIAN_FRONTEND=noninteractive", "APT_LISTCHANGES_FRONTEND=none" }

-- argv for apt-get with the non-interactive environment and options that
-- keep locally changed configuration files without asking.
function R.apt_get(...)
   local argv = {}
   for _, w in ipairs(apt_env) do argv[#argv + 1] = w end
   argv[#argv + 1] = "apt-get"
   for _, w in ipairs({ ... }) do argv[#argv + 1] = w end
   -- Another apt (unattended-upgrades, a person) may hold dpkg's lock:
   -- wait for it a while rather than fail at once.
   if not R.list_has(argv, "-s") then
      argv[#argv + 1], argv[#argv + 2] = "-o", "DPkg::Lock::Timeout=" .. R.apt_lock_timeout
   end
   return argv
end

R.apt_lock_timeout = 600

function R.list_has(list, x)
   for _, v in ipairs(list) do
      if v == x then return true end
   end
   return false
end

local conf_opts = { "-o", "Dpkg::Options::=--force-confdef", "-o", "Dpkg::Options::=--force-confold" }

-- What dpkg knows of every package, from one dpkg-query per host per
-- run: name -> status abbreviation ("ii ", "rc ", ...).  Unqualified
-- names stand for the native architecture or "all"; "name:arch" keys are
-- there for every entry.
function R.dpkg_status(sys)
   local st = sys.cache["apt.dpkg_status"]
   if st then return st end
   local argv = { "dpkg-query", "-W", "-f", "${Package}\t${Architecture}\t${db:Status-Abbrev}\n" }
   local r = R.query(sys, "dpkg-query", argv)
   if r.code ~= 0 then R.command_failed("dpkg-query", argv, r) end
   local entries, native = {}, nil
   for name, arch, abbrev in r.stdout:gmatch("([^\t\n]+)\t([^\t\n]*)\t([^\t\n]*)\n") do
      entries[#entries + 1] = { name, arch, abbrev }
      if name == "dpkg" then native = arch end -- dpkg is always native
   end
   native = native or sys.arch
   st = {}
   for _, e in ipairs(entries) do
      local name, arch, abbrev = e[1], e[2], e[3]
      if arch ~= "" then st[name .. ":" .. arch] = abbrev end
      if arch == "all" or arch == "" or arch == native or native == nil then
         st[name] = abbrev
      end
   end
   sys.cache["apt.dpkg_status"] = st
   return st
end

function R.dpkg_forget(sys)
   sys.cache["apt.dpkg_status"] = nil
end

-- Installed: dpkg's status is "installed" (second letter i), whatever is
-- desired (hold included), and no reinstallation is required.
local function is_installed(abbrev)
   return abbrev ~= nil and abbrev:sub(2, 2) == "i" and abbrev:sub(3, 3) ~= "R"
end
-- Removed: unknown to dpkg, not installed, or only configuration files left.
local function is_removed(abbrev)
   if abbrev == nil then return true end
   local s = abbrev:sub(2, 2)
   return s == "n" or s == "c"
end
R.dpkg_installed, R.dpkg_removed = is_installed, is_removed

local function stale_lists(r)
   local e = (r.stderr or "") .. (r.stdout or "")
   return e:find("Unable to locate package", 1, true) or e:find("has no installation candidate", 1, true)
      or e:find("404%s+Not Found") or e:find("Failed to fetch", 1, true)
end

-- Fresh package lists: apt-get update, at most once per host per run.  In
-- a real run it returns whether the lists changed (their names, sizes and
-- times compared before and after); in a dry run it is recorded, not
-- done, and counts as a change.
local lists_argv = { "find", "/var/lib/apt/lists", "-maxdepth", "1", "-type", "f",
                     "!", "-name", "lock", "-printf", "%f %s %T@\n" }

local function lists_snapshot(sys)
   local r = sys:query(lists_argv)
   if r.code ~= 0 then return nil end
   local names = {}
   for l in r.stdout:gmatch("[^\n]+") do names[#names + 1] = l end
   table.sort(names)
   return concat(names, "\n")
end

-- means_only: the update is a step of something else (apt.upgraded),
-- whose own result says what changed; in a dry run it is then only noted.
function R.apt_update(sys, what, means_only)
   if sys.cache["apt.updated"] ~= nil then return false end -- done this run
   local argv = R.apt_get("update", "-q")
   local changed
   if sys.dry and means_only then
      sys:note("would refresh the package lists first (apt-get update); "
               .. "what follows uses the lists as they are")
      return false
   elseif sys.dry then
      sys:run(argv)
      changed = true
   else
      -- Run through query: the change is measured below, so that a run
      -- that found the lists current is "ok" (sys:run would count it as a
      -- change whatever it did).
      local before = lists_snapshot(sys)
      local r = sys:query(argv)
      if r.code ~= 0 then R.command_failed(what, argv, r) end
      local warn = {}
      for l in (r.stdout .. "\n" .. r.stderr):gmatch("[^\n]+") do
         if l:find("^W: ") or l:find("^Err:") then warn[#warn + 1] = l end
      end
      if #warn > 0 then sys:note(concat(warn, "\n")) end
      changed = before == nil or lists_snapshot(sys) ~= before
      if changed then sys:note("apt-get update: the package lists changed") end
   end
   sys.cache["apt.updated"] = changed
   return changed
end

-- ---------------------------------------------------------------------
-- The package loop every package manager shares.

-- pm describes a manager at run time:
--   needs(sys, recipe, list, opts, want) -> the set of names of list that
--       are not as wanted (want: installed, or else removed); it only looks;
--       or instead missing(sys, recipe, list, opts) -> the set of names of
--       list not installed, when removed is simply its opposite;
--   argv(sys, opts, want, todo) -> the one command that makes them so;
--   run(sys, recipe, argv, want): optional, runs it (default: R.run);
--   after(sys, recipe, todo, want): optional, a look that the command did
--       what it said (not in a dry run).
-- R.ensure_packages makes each package of list as wanted with one command
-- for all that are not, and says which in a note ("installed: a b",
-- "would remove: c").  Returns whether the command ran (or would).
function R.ensure_packages(pm, sys, recipe, list, opts, want)
   local need
   if pm.needs then
      need = pm.needs(sys, recipe, list, opts, want)
   else
      local missing = pm.missing(sys, recipe, list, opts)
      need = {}
      for _, p in ipairs(list) do need[p] = (missing[p] == true) == want end
   end
   local todo = {}
   for _, p in ipairs(list) do
      if need[p] then todo[#todo + 1] = p end
   end
   if #todo == 0 then return false end
   local argv = pm.argv(sys, opts, want, todo)
   if pm.run then pm.run(sys, recipe, argv, want) else R.run(sys, recipe, argv) end
   local verb = want and (sys.dry and "would install" or "installed")
      or (sys.dry and "would remove" or "removed")
   sys:note(verb .. ": " .. concat(todo, " "))
   if pm.after and not sys.dry then pm.after(sys, recipe, todo, want) end
   return true
end

-- apt's: dpkg's status says what is installed (removed: not installed, or
-- only its configuration files left; apt-get remove keeps those).  When
-- apt cannot find a package, the lists are refreshed once and the install
-- tried again (a fresh system or container often has none).  Recommended
-- packages come too, unless opts.recommends is false.
local apt_pm = {}

function apt_pm.needs(sys, _, list, _, want)
   local st = R.dpkg_status(sys)
   local need = {}
   for _, p in ipairs(list) do
      if want then
         need[p] = not is_installed(st[p])
      else
         need[p] = not is_removed(st[p])
      end
   end
   return need
end

function apt_pm.argv(_, opts, want, todo)
   local argv = R.apt_get(want and "install" or "remove", "-y", "-q")
   if want and opts and opts.recommends == false then
      argv[#argv + 1] = "--no-install-recommends"
   end
   for _, w in ipairs(conf_opts) do argv[#argv + 1] = w end
   for _, p in ipairs(todo) do argv[#argv + 1] = p end
   return argv
end

function apt_pm.run(sys, what, argv, want)
   local r = sys:run(argv, any)
   if want and r.code ~= 0 and stale_lists(r) and sys.cache["apt.updated"] == nil then
      sys:note("apt-get could not find a package: refreshing the package lists")
      R.apt_update(sys, what)
      r = sys:run(argv, any)
   end
   R.dpkg_forget(sys)
   if r.code ~= 0 then R.command_failed(what, argv, r) end
end

function apt_pm.after(sys, what, todo, want)
   if not want then return end
   local st = R.dpkg_status(sys)
   for _, p in ipairs(todo) do
      if not is_installed(st[p]) then
         R.fail("%s: apt-get succeeded but %s is still not installed "
                .. "(a virtual package? name the package that provides it)", what, p)
      end
   end
end

-- Every package of list installed through apt; returns whether apt-get ran.
function R.apt_install(sys, what, list, opts)
   return R.ensure_packages(apt_pm, sys, what, list, opts, true)
end

-- No package of list installed (apt-get remove: configuration files stay).
function R.apt_remove(sys, what, list)
   return R.ensure_packages(apt_pm, sys, what, list, nil, false)
end

-- ---------------------------------------------------------------------
-- Services.

-- "systemd" when systemd is the running init (/run/systemd/system, as
-- sd_booted(3) checks), or in a systemd-nspawn machine whose tree has
-- systemd (its init once booted: systemctl enable works on it offline);
-- "rc.d" on FreeBSD, else "sysv" (service(8) and update-rc.d).
function R.init_system(sys)
   local i = sys.cache["service.init"]
   if i then return i end
   if sys:exists("/run/systemd/system") then
      i = "systemd"
   elseif sys.container == "nspawn"
      and (sys:exists("/lib/systemd/systemd") or sys:exists("/usr/lib/systemd/systemd")) then
      i = "systemd"
   elseif R.is_freebsd(sys) then
      i = "rc.d"
   else
      i = "sysv"
   end
   sys.cache["service.init"] = i
   return i
end

-- Where no daemon can run, why (else nil).  A chroot shares this
-- machine's kernel, network and processes: no daemon is ever started in
-- one (a service "started" there would listen on this machine's ports).
-- A systemd-nspawn machine that is not booted is provisioned in command
-- mode (systemd-nspawn --pipe, one shell and no init): a daemon started
-- there would end with that shell.  Its services are left stopped, with
-- a note; they start when the machine boots (if they are enabled).
local function no_daemons(sys)
   if sys.container == "chroot" then
      return "no daemon runs in a chroot (it would share this machine's network and processes)"
   end
   if sys.container == "nspawn" then
      local booted = sys.cache["service.booted"]
      if booted == nil then
         booted = sys:exists("/run/systemd/system")
         sys.cache["service.booted"] = booted
      end
      if not booted then
         return "the machine is not running (it is provisioned with systemd-nspawn in command "
            .. "mode, where no daemon stays); an enabled service starts when it boots"
      end
   end
   return nil
end
R.no_daemons = no_daemons

-- True in a chroot (kept for recipes that ask only that).
function R.in_chroot(sys)
   return sys.container == "chroot"
end

function R.service_is_running(sys, name)
   if no_daemons(sys) then return false end
   local init = R.init_system(sys)
   local argv
   if init == "systemd" then
      argv = { "systemctl", "is-active", "--quiet", name }
   elseif init == "rc.d" then
      argv = { "service", name, "onestatus" }
   else
      argv = { "service", name, "status" }
   end
   local r = R.query(sys, "service " .. name, argv)
   return r.code == 0
end

-- action: "start", "stop", "restart".
function R.service_do(sys, name, action)
   local why = no_daemons(sys)
   if why then
      if action ~= "stop" then
         sys:note(fmt("service %s not %sed: %s", name, action, why))
      end
      return
   end
   local init = R.init_system(sys)
   local argv
   if init == "systemd" then
      argv = { "systemctl", action, name }
   elseif init == "rc.d" then
      argv = { "service", name, "one" .. action }
   else
      argv = { "service", name, action }
   end
   R.run(sys, fmt("service %s %s", name, action), argv)
end

function R.ensure_running(sys, name)
   if no_daemons(sys) then
      R.service_do(sys, name, "start")
      return false
   end
   if R.service_is_running(sys, name) then return false end
   R.service_do(sys, name, "start")
   return true
end

-- ---------------------------------------------------------------------
-- Accounts: /etc/passwd and /etc/group, read once per host per run.

local function read_db(sys, path, key)
   local db = sys.cache[key]
   if db then return db end
   local content = sys:read(path)
   if content == nil then R.fail("%s does not exist on the target", path) end
   db = { by_name = {}, by_id = {} }
   for l in content:gmatch("[^\n]+") do
      local f = {}
      for x in (l .. ":"):gmatch("([^:]*):") do f[#f + 1] = x end
      if f[1] and f[1] ~= "" and not f[1]:find("^[+-]") then
         local e = { fields = f, name = f[1], id = tonumber(f[3]) }
         db.by_name[e.name] = e
         if e.id and not db.by_id[e.id] then db.by_id[e.id] = e end
      end
   end
   sys.cache[key] = db
   return db
end

-- name -> { name, id (uid), gid, comment, home, shell }
function R.passwd(sys)
   local db = read_db(sys, "/etc/passwd", "accounts.passwd")
   if not db.users then
      db.users = {}
      for name, e in pairs(db.by_name) do
         local f = e.fields
         db.users[name] = { name = name, uid = e.id, gid = tonumber(f[4]), comment = f[5] or "",
                            home = f[6] or "", shell = f[7] or "" }
      end
   end
   return db.users
end

-- name -> { name, gid, members = { user = true } }, and gid -> group.
function R.groups(sys)
   local db = read_db(sys, "/etc/group", "accounts.group")
   if not db.groups then
      db.groups, db.by_gid = {}, {}
      for name, e in pairs(db.by_name) do
         local members = {}
         for m in (e.fields[4] or ""):gmatch("[^,%s]+") do members[m] = true end
         local g = { name = name, gid = e.id, members = members }
         db.groups[name] = g
      end
      for id, e in pairs(db.by_id) do db.by_gid[id] = db.groups[e.name] end
   end
   return db.groups, db.by_gid
end

function R.accounts_forget(sys)
   sys.cache["accounts.passwd"] = nil
   sys.cache["accounts.group"] = nil
end

return R
