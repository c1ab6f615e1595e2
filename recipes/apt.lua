-- prop.apt: Debian and Ubuntu packages through apt.
--
-- DebianLike.  Package names follow Debian policy (lower case, digits,
-- "+", "-", "."), optionally with an architecture qualifier ("libc6:i386").

local core = require "prop.core"
local args = require "prop.args"

local apt = {}

local impl = { installed = {}, removed = {}, update = {}, upgraded = {}, std_sources_list = {} }

local fmt = string.format

local function check_package(v, what)
   local expected = 'a Debian package name such as "openssh-server" or "libc6:i386"'
   local err = args.matching(v, what, "[a-z0-9][a-z0-9+.-]*", expected)
   if err and type(v) == "string" and v:find("^[a-z0-9][a-z0-9+.-]*:[a-z0-9][a-z0-9-]*$") then
      err = nil -- with an architecture qualifier
   end
   if err then return err end
   return nil, v
end

-- pkgs: a list of names or one name; several names as separate arguments
-- are accepted too (apt.installed("a", "b")).
local function packages(recipe, ...)
   local v = ...
   if select("#", ...) > 1 then v = { ... } end
   local err, list = args.list(v, "packages", check_package, { nonempty = true })
   if err then return fmt("%s: %s", recipe, err) end
   return nil, list
end

local function packages_leaf(which, list)
   local desc = fmt("apt %s %s", which, table.concat(list, " "))
   local kind = which == "installed" and "package.installed" or "package.removed"
   local claims = {}
   for _, p in ipairs(list) do
      claims[#claims + 1], claims[#claims + 2], claims[#claims + 3] = kind, p, false
   end
   return core.leaf(desc, "DebianLike", impl[which], { packages = list }, claims)
end

local function pair(which, other, ...)
   local err, list = packages("apt." .. which, ...)
   if err then
      local v = ...
      local names = type(v) == "string" and v or "..."
      return core.invalid(fmt("apt %s %s", which, names), err)
   end
   return core.pair(packages_leaf(which, list), packages_leaf(other, list))
end

--[[ apt.installed(pkgs)
  DebianLike, revertable: its revert is apt.removed(pkgs).
  Claims: package.installed for each package.
  pkgs: a list of package names, or one name.
  Example:
    apt.installed { "nginx", "certbot" }
]]
function apt.installed(...)
   return pair("installed", "removed", ...)
end

--[[ apt.removed(pkgs)
  DebianLike, revertable: its revert is apt.installed(pkgs).
  Claims: package.removed for each package.  Configuration files stay
  (apt-get remove, not purge).
  Example:
    apt.removed "telnet"
]]
function apt.removed(...)
   return pair("removed", "installed", ...)
end

-- Recipes without arguments accept an empty options table, nothing else.
local function no_args(recipe, a, n)
   if n > 1 or (a ~= nil and not (type(a) == "table" and next(a) == nil)) then
      local err = args.options(a, {}, recipe)
      return err or fmt("%s takes no arguments", recipe)
   end
   return nil
end

--[[ apt.update()
  DebianLike, not revertable.  Refreshes the package lists (apt-get update).
  Claims nothing.
  Example:
    apt.update():before(apt.installed "nginx")
]]
function apt.update(...)
   local err = no_args("apt.update", ..., select("#", ...))
   if err then return core.invalid("apt update", err) end
   return core.leaf("apt update", "DebianLike", impl.update, {}, nil, {
      norevert = "apt.update has no revert action: refreshed package lists cannot be un-refreshed",
   })
end

--[[ apt.upgraded()
  DebianLike, not revertable.  Every installed package at its newest
  version (apt-get update, then dist-upgrade without prompts).
  Claims nothing.
  Example:
    apt.upgraded()
]]
function apt.upgraded(...)
   local err = no_args("apt.upgraded", ..., select("#", ...))
   if err then return core.invalid("apt upgraded", err) end
   return core.leaf("apt upgraded", "DebianLike", impl.upgraded, {}, nil, {
      norevert = "apt.upgraded has no revert action: apt cannot downgrade to the versions that were installed before",
   })
end

--[[ apt.std_sources_list([mirror])
  DebianLike, not revertable.
  Claims: file.generated /etc/apt/sources.list ("apt.std_sources_list <mirror>").
  Writes the standard sources for the host's suite (main, security,
  updates) from mirror, by default the OS's own (deb.debian.org for
  Debian, archive.ubuntu.com for Ubuntu).
  Example:
    apt.std_sources_list "http://ftp.fr.debian.org/debian"
]]
function apt.std_sources_list(mirror, opts)
   local desc = "apt standard sources.list"
   if type(mirror) == "table" and opts == nil then
      -- apt.std_sources_list { mirror = "..." }
      local err, o = args.options(mirror, { mirror = args.nonempty_string }, "apt.std_sources_list")
      if err then return core.invalid(desc, err) end
      mirror = o.mirror
   elseif opts ~= nil then
      local err = args.options(opts, {}, "apt.std_sources_list")
      if err then return core.invalid(desc, err) end
   end
   if mirror ~= nil then
      local err = args.matching(mirror, "mirror", "https?://[%w%-%.:%[%]_~/%%@]+",
                                'an http:// or https:// URL such as "http://deb.debian.org/debian"')
      if err then return core.invalid(desc, "apt.std_sources_list: " .. err) end
      mirror = mirror:gsub("/+$", "")
      desc = desc .. " from " .. mirror
   end
   return core.leaf(desc, "DebianLike", impl.std_sources_list, { mirror = mirror },
                    { "file.generated", "/etc/apt/sources.list",
                      "apt.std_sources_list " .. (mirror or "default") }, {
      norevert = "apt.std_sources_list has no revert action: the old sources.list is not known",
   })
end

return args.strict_module(apt, "apt")
