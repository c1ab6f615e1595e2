-- prop.packages: package management whatever the OS.

local core = require "prop.core"
local args = require "prop.args"
local apt = require "prop.apt"
local pkg = require "prop.pkg"

local packages = {}

--[[ packages.upgraded()
  DebianLike or FreeBSD: pick_os(apt.upgraded(), pkg.upgraded()), so the
  host's OS chooses the package manager at run time.  Not revertable.
  Claims nothing.
  Example:
    packages.upgraded()
]]
function packages.upgraded(a, ...)
   if select("#", ...) > 0 or (a ~= nil and not (type(a) == "table" and next(a) == nil)) then
      local err = args.options(a, {}, "packages.upgraded")
      return core.invalid("packages upgraded", err or "packages.upgraded takes no arguments")
   end
   return core.describe(core.pick_os(apt.upgraded(), pkg.upgraded()), "packages upgraded")
end

return args.strict_module(packages, "packages")
