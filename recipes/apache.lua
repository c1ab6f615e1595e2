-- prop.apache: the Apache HTTP server on Debian and Ubuntu.

local core = require "prop.core"
local args = require "prop.args"
local R = require "prop.runtime"

local apache = {}

local impl = { installed = {} }

function impl.installed.ensure(sys, a)
   local changed = R.apt_install(sys, "apache.installed", { a.package })
   if R.ensure_running(sys, a.package) then changed = true end
   return changed and "changed" or "ok"
end

--[[ apache.installed()
  DebianLike, not revertable, ports 80 and 443.
  Claims: package.installed apache2.  Installs apache2 with Debian's
  default configuration, which listens on both ports.
  Run time: apt-installs apache2 when missing (as apt.installed), then
  starts the apache2 service when it is not running (as service.running).
  Example:
    apache.installed()
]]
function apache.installed(a, ...)
   if select("#", ...) > 0 or (a ~= nil and not (type(a) == "table" and next(a) == nil)) then
      local err = args.options(a, {}, "apache.installed")
      return core.invalid("apache installed", err or "apache.installed takes no arguments")
   end
   return core.leaf("apache installed", "DebianLike", impl.installed, { package = "apache2" },
                    { "package.installed", "apache2", false }, {
      ports = { 80, 443 },
      norevert = 'apache.installed has no revert action: use apt.removed "apache2" to remove it',
   })
end

return args.strict_module(apache, "apache")
