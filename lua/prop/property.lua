-- property.lua: `property { ... }`, a property written in Lua (SPEC 2.4,
-- 2.7).
--
-- The check, apply and revert functions are kept for the executor; here
-- the type is made: targets, ports, info, the resources it claims, and
-- revertable when a revert function is given (the revert side is a
-- property of its own whose apply is that function).  Claims make a
-- hand-written property as visible to the pre-pass (P007-P010), to
-- `prop claims` and to `:claims` as a recipe is.

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"

local M = {}

local fmt = string.format

local keys = { "desc", "targets", "ports", "claims", "uses", "info", "check", "apply", "revert",
               "verify", "repair", "probe_timeout" }
local known = {}
for _, k in ipairs(keys) do known[k] = true end

local function bad(desc, msg)
   return core.invalid(desc or "property", "property: " .. msg)
end

-- ---------------------------------------------------------------------
-- claims = { files=, lines=, packages=, services=, users=, groups= }

-- Names of packages, services and accounts: what the recipes accept for
-- each, loosely (the recipe of the system that runs it checks further).
local function name_check(pattern, expected)
   return function(v, what)
      local err = args.matching(v, what, pattern, expected)
      if err then return err end
      if v == "." or v == ".." then
         return fmt('%s "%s" is not a name', what, v)
      end
      return nil, v
   end
end

local package_name = name_check("[%w][%w+.:_-]*", 'a package name such as "openssh-server"')
local service_name = name_check("[%w_@.:+-]+", 'a service name such as "nginx" or "getty@tty1"')
local account_name = name_check("[A-Za-z_][A-Za-z0-9_.-]*%$?", 'an account name such as "deploy"')

local function check_line(v, what)
   local err = args.string(v, what)
   if err then return err end
   if v:find("\n", 1, true) then
      return fmt("%s %s contains a newline: a line cannot span lines", what, args.show(v))
   end
   return nil, v
end

-- lines = { ["/etc/x"] = { "a", "b" } } or { ["/etc/x"] = "a" }: path -> lines.
local function check_lines_map(v, what)
   if type(v) ~= "table" then
      return fmt('%s must be a table of path = lines, such as { ["/etc/foo"] = { "a=1" } }, got %s',
                 what, args.got(v))
   end
   local paths = {}
   for k in pairs(v) do
      if type(k) ~= "string" then
         return fmt('%s must be a table of path = lines (keys are absolute paths), got a %s key',
                    what, type(k))
      end
      paths[#paths + 1] = k
   end
   table.sort(paths) -- claims in a stable order, whatever the traversal order
   local out = {}
   for _, path in ipairs(paths) do
      local err = args.abs_path(path, what .. " path")
      if err then return err end
      local lerr, lines = args.list(v[path], fmt('%s["%s"]', what, path), check_line,
                                    { nonempty = true })
      if lerr then return lerr end
      out[#out + 1] = { path, lines }
   end
   return nil, out
end

local function list_of(check)
   return function(v, what) return args.list(v, "claims." .. what, check) end
end

local claims_schema = {
   files = list_of(args.abs_path),
   lines = function(v, what) return check_lines_map(v, "claims." .. what) end,
   packages = list_of(package_name),
   services = list_of(service_name),
   users = list_of(account_name),
   groups = list_of(account_name),
}

-- The claims table as core.leaf's triples.
local function claim_list(c)
   local claim, t = core.claim, {}
   local function add(v) t[#t + 1] = v end
   for _, p in ipairs(c.files or {}) do add(claim.file_owned(p)) end
   for _, pl in ipairs(c.lines or {}) do
      for _, l in ipairs(pl[2]) do add(claim.file_line(pl[1], l)) end
   end
   for _, p in ipairs(c.packages or {}) do add(claim.package_installed(p)) end
   for _, s in ipairs(c.services or {}) do add(claim.service_running(s)) end
   for _, u in ipairs(c.users or {}) do add(claim.user(u)) end
   for _, g in ipairs(c.groups or {}) do add(claim.group(g)) end
   return t
end

-- ---------------------------------------------------------------------
-- info = { key = value or { values } }

-- Keys prop itself sets, with what sets them: a property that set them
-- could change how its host is reached or what OS it is checked against.
local function reserved_info(k)
   if k == "os" then return "os.debian(...), os.rhel(...), os.arch(...) or another os.*" end
   if k == "connect" or k:find("^connect%.") then return "connect.ssh{...}, connect.dir(...)" end
   if k == "ipv4" or k == "ipv6" or k == "alias" then return fmt('%s "..."', k) end
   if k == "address.shared" then return 'ipv4("...", { shared = true })' end
   if k == "secret" then return "the secrets a property uses (found by prop)" end
   return nil
end

local function info_value(v, what)
   local t = type(v)
   if t == "string" then return nil, v end
   if t == "number" or t == "boolean" then return nil, tostring(v) end
   return fmt("%s must be a string, a number, a boolean or a list of those, got %s", what,
              args.got(v))
end

local function check_info(v, what)
   if type(v) ~= "table" then
      return fmt('%s must be a table of key = value, such as { ["backup.dir"] = "/srv" }, got %s',
                 what, args.got(v))
   end
   local ks = {}
   for k in pairs(v) do
      if type(k) ~= "string" then
         return fmt("%s keys must be strings, got a %s key", what, type(k))
      end
      ks[#ks + 1] = k
   end
   table.sort(ks)
   local flat = {}
   for _, k in ipairs(ks) do
      local name_ok = k:find("^[%a_]") ~= nil
      for part in (k .. "."):gmatch("([^.]*)%.") do
         if not part:find("^[%w_][%w_-]*$") then name_ok = false end
      end
      if not name_ok then
         return fmt('%s key %s is not a name: use letters, digits, "_", "-" and dots, such as '
                    .. '"backup.dir"', what, args.show(k))
      end
      local owner = reserved_info(k)
      if owner then
         return fmt('%s key "%s" is prop\'s own: it is set by %s', what, k, owner)
      end
      local x = v[k]
      if type(x) == "table" then
         local err, list = args.list(x, fmt('%s["%s"]', what, k), info_value, { nonempty = true })
         if err then return err end
         for _, s in ipairs(list) do flat[#flat + 1], flat[#flat + 2] = k, s end
      else
         local err, s = info_value(x, fmt('%s["%s"]', what, k))
         if err then return err end
         flat[#flat + 1], flat[#flat + 2] = k, s
      end
   end
   return nil, flat
end

-- ---------------------------------------------------------------------

function M.property(t)
   if type(t) ~= "table" then
      return bad(nil, "expects a table { desc = ..., check = ..., apply = ... }, got a " .. type(t))
   end
   local desc = t.desc
   if type(desc) ~= "string" or desc == "" then
      return bad(nil, "desc must be a non-empty string, got " .. args.got(desc))
   end
   for k in pairs(t) do
      if not known[k] then
         local msg = fmt("unknown key \"%s\"", tostring(k))
         local best = type(k) == "string" and args.suggest(k, keys) or nil
         if best then msg = msg .. fmt(" (did you mean \"%s\"?)", best) end
         return bad(desc, msg)
      end
   end
   for _, k in ipairs { "check", "apply", "revert", "verify", "repair" } do
      if t[k] ~= nil and type(t[k]) ~= "function" then
         return bad(desc, fmt("%s must be a function, got a %s", k, type(t[k])))
      end
   end
   if t.repair ~= nil and t.verify == nil then
      return bad(desc, "repair needs verify: it runs when verify finds the effect missing")
   end
   if t.probe_timeout ~= nil and (type(t.probe_timeout) ~= "number"
                                  or not (t.probe_timeout >= 0 and t.probe_timeout <= 600)) then
      return bad(desc, "probe_timeout must be a number of seconds in 0..600, got "
                       .. args.got(t.probe_timeout))
   end
   local facts_only = t.apply == nil and t.check == nil and t.revert == nil and t.info ~= nil
                      and t.claims == nil and t.ports == nil and t.uses == nil
   if t.apply == nil and not facts_only then
      return bad(desc, "apply is required: a function(sys) that makes the property true "
                       .. "(only a property that carries nothing but info goes without)")
   end
   local targets = t.targets
   local terr = core.check_targets(targets)
   if terr then return bad(desc, terr) end
   local ports
   if t.ports ~= nil then
      if type(t.ports) ~= "table" then
         return bad(desc, "ports must be a list of port numbers")
      end
      ports = {}
      for i, p in ipairs(t.ports) do
         if math.type(p) ~= "integer" or p < 1 or p > 65535 then
            return bad(desc, fmt("port %s (entry %d) is outside 1..65535", tostring(p), i))
         end
         ports[#ports + 1] = p
      end
   end
   local claims
   if t.claims ~= nil then
      if type(t.claims) ~= "table" then
         return bad(desc, fmt("claims must be a table such as { files = { \"/etc/app.conf\" } }, "
                              .. "got %s", args.got(t.claims)))
      end
      local err, c = args.options(t.claims, claims_schema, "claims")
      if err then return bad(desc, err) end
      claims = claim_list(c)
   end
   local info
   if t.info ~= nil then
      local err, flat = check_info(t.info, "info")
      if err then return bad(desc, err) end
      info = flat
   end
   if facts_only then
      -- Facts for other hosts (a key, an address): it changes nothing,
      -- and a host with nothing else is never reached.
      return core.leaf{ desc = desc, targets = targets, info = info, info_only = true,
                        norevert = fmt("property \"%s\" carries information only; it has nothing to revert", desc) }
   end
   -- The executor checks a write against these (a warning when a
   -- property that declared claims writes a file it does not claim).
   local impl = { check = t.check, apply = t.apply, verify = t.verify, repair = t.repair,
                  probe_timeout = t.probe_timeout, declared = claims ~= nil }
   -- uses = { services=, ports= }: checked by core.leaf (P012), then by
   -- the pre-pass against what the host provides (W106, P016).
   local p = core.leaf{ desc = desc, targets = targets, impl = impl, claims = claims,
                        ports = ports, uses = t.uses, info = info,
                        norevert = fmt("property \"%s\" has no revert function", desc) }
   if t.revert then
      local undo = core.leaf{ desc = "revert " .. desc, targets = targets,
                              impl = { apply = t.revert, declared = claims ~= nil },
                              claims = claims }
      return core.pair(p, undo)
   end
   return p
end

-- ---------------------------------------------------------------------
-- p:period(every): p at most once a period (SPEC: scheduled properties).
--
-- The time of p's last successful run is kept on the target, in
-- /var/lib/prop/period/NAME, written atomically through the transport
-- (so it works the same over SSH, in containers and on directory trees).
-- NAME is made of the host's name and p's description, never of
-- anything that changes from one run to the next.  The whole is
--   only_if(due, stamp):requires(only_if(due, p))
-- so p runs when it is due, and the stamp is written only when p
-- succeeded; a failed p runs again next time.

local PERIOD_DIR = "/var/lib/prop/period"
local periods = { daily = 86400, weekly = 7 * 86400, monthly = 30 * 86400 }
local period_names = { "daily", "weekly", "monthly" }

-- FNV-1a, 64 bits, as 16 hex digits (Lua integers wrap).
local function fnv(text)
   local h = 0xcbf29ce484222325
   for i = 1, #text do
      h = (h ~ text:byte(i)) * 0x100000001b3
   end
   return fmt("%016x", h)
end

-- The stamp's path for this host: a readable part of the description
-- and a hash of host and description.
local function stamp_path(host, desc)
   local slug = desc:lower():gsub("[^%w]+", "-"):gsub("^%-+", ""):sub(1, 40):gsub("%-+$", "")
   return fmt("%s/%s%s%s", PERIOD_DIR, slug, slug ~= "" and "-" or "", fnv(host .. "\n" .. desc))
end

local function duration(secs)
   if secs >= 86400 then return fmt("%dd %dh", secs // 86400, secs % 86400 // 3600) end
   if secs >= 3600 then return fmt("%dh %dm", secs // 3600, secs % 3600 // 60) end
   if secs >= 60 then return fmt("%dm %ds", secs // 60, secs % 60) end
   return fmt("%ds", secs)
end

-- When p last ran on this target (seconds since the epoch), or nil.  A
-- stamp that cannot be read counts as none: p is due.
local function last_run(sys, a)
   local text = sys:read(stamp_path(sys.host, a.desc))
   local t = text and text:match("^last=(%d+)\n")
   return t and math.tointeger(tonumber(t))
end

-- The test of p (says why under it) or of the stamp (quiet).  A stamp
-- from the future (a clock set back) counts as due.
local function due_test(a, quiet)
   return function(sys)
      local last, now = last_run(sys, a), core.now()
      local age = last and now - last
      local due = age == nil or age < 0 or age >= a.every
      if quiet then return due end
      if age == nil then
         sys:note(fmt("due (%s): no run recorded", a.label))
      elseif due then
         sys:note(fmt("due (%s): last run %s ago", a.label, duration(math.max(age, 0))))
      else
         sys:note(fmt("not due (%s): last run %s ago, due again in %s", a.label, duration(age),
                      duration(a.every - age)))
      end
      return due
   end
end

local stamp_impl = {}

function stamp_impl.ensure(sys, a)
   local path = stamp_path(sys.host, a.desc)
   local dir = ""
   for part in PERIOD_DIR:gmatch("/[^/]+") do
      dir = dir .. part
      if not sys:exists(dir) then sys:mkdir(dir, { mode = tonumber("0755", 8) }) end
   end
   local now = core.now()
   sys:write(path, fmt("last=%d\nhost=%s\nproperty=%s\nevery=%d\n", now, sys.host,
                       a.desc:gsub("\n", " "), a.every), { mode = tonumber("0644", 8) })
   -- Bookkeeping, not a change of the system.
   return "ok"
end

function M.period(p, every)
   local desc = p.desc
   local secs, label
   if type(every) == "string" then
      secs, label = periods[every], every
      if secs == nil then
         return core.invalid(desc, fmt('period: "%s" is not a period: use "daily", "weekly", '
                                       .. '"monthly" or a number of seconds%s', every,
                                       args.did_you_mean(every, period_names)))
      end
   elseif math.type(every) == "integer" and every > 0 then
      secs, label = every, fmt("every %s", duration(every))
   else
      return core.invalid(desc, fmt('period: expected "daily", "weekly", "monthly" or a whole '
                                    .. "number of seconds > 0, got %s", args.show(every)))
   end
   local a = { desc = desc, every = secs, label = label }
   local stamp = core.leaf{ desc = fmt("%s: time of this run kept", desc), impl = stamp_impl,
                            args = a, claims = { claim.file_directory(PERIOD_DIR) },
                            norevert = "a period's record has nothing to revert" }
   local guarded = core.only_if(due_test(a), p)
   return core.only_if(due_test(a, true), stamp):requires(guarded)
              :describe(fmt("%s (%s)", desc, label))
end

return M
