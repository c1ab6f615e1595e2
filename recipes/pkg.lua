-- prop.pkg: FreeBSD packages through pkg(8).
--
-- FreeBSD only.  A package is named by its name ("nginx") or its origin
-- ("www/nginx").

local core = require "prop.core"
local args = require "prop.args"

local pkg = {}

local impl = { installed = {}, removed = {}, upgraded = {} }

local fmt = string.format

local function check_package(v, what)
   return args.matching(v, what, "[%w][%w_+.@-]*/?[%w_+.@-]*",
                        'a FreeBSD package name or origin such as "nginx" or "www/nginx"')
end

local function packages(recipe, ...)
   local v = ...
   if select("#", ...) > 1 then v = { ... } end
   local err, list = args.list(v, "packages", check_package, { nonempty = true })
   if err then return fmt("%s: %s", recipe, err) end
   return nil, list
end

local function packages_leaf(which, list)
   local desc = fmt("pkg %s %s", which, table.concat(list, " "))
   local kind = which == "installed" and "package.installed" or "package.removed"
   local claims = {}
   for _, p in ipairs(list) do
      claims[#claims + 1], claims[#claims + 2], claims[#claims + 3] = kind, p, false
   end
   return core.leaf(desc, "FreeBSD", impl[which], { packages = list }, claims)
end

local function pair(which, other, ...)
   local err, list = packages("pkg." .. which, ...)
   if err then
      local v = ...
      return core.invalid(fmt("pkg %s %s", which, type(v) == "string" and v or "..."), err)
   end
   return core.pair(packages_leaf(which, list), packages_leaf(other, list))
end

--[[ pkg.installed(pkgs)
  FreeBSD, revertable: its revert is pkg.removed(pkgs).
  Claims: package.installed for each package.
  Example:
    pkg.installed { "nginx", "py311-certbot" }
]]
function pkg.installed(...)
   return pair("installed", "removed", ...)
end

--[[ pkg.removed(pkgs)
  FreeBSD, revertable: its revert is pkg.installed(pkgs).
  Claims: package.removed for each package.
  Example:
    pkg.removed "sudo"
]]
function pkg.removed(...)
   return pair("removed", "installed", ...)
end

--[[ pkg.upgraded()
  FreeBSD, not revertable.  pkg update, then pkg upgrade -y.
  Claims nothing.
  Example:
    pkg.upgraded()
]]
function pkg.upgraded(a, ...)
   if select("#", ...) > 0 or (a ~= nil and not (type(a) == "table" and next(a) == nil)) then
      local err = args.options(a, {}, "pkg.upgraded")
      return core.invalid("pkg upgraded", err or "pkg.upgraded takes no arguments")
   end
   return core.leaf("pkg upgraded", "FreeBSD", impl.upgraded, {}, nil, {
      norevert = "pkg.upgraded has no revert action: pkg cannot downgrade to the versions that were installed before",
   })
end

return args.strict_module(pkg, "pkg")
