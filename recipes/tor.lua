-- prop.tor: Tor relays.

local core = require "prop.core"
local args = require "prop.args"
local R = require "prop.runtime"

local tor = {}

local impl = { bridge = {} }

function impl.bridge.ensure(sys, a)
   local installed = R.apt_install(sys, "tor.bridge", { a.package })
   local conf = R.ensure_lines(sys, "tor.bridge", a.torrc, a.lines)
   if conf then
      -- A running tor (started by the package's installation, too) reads
      -- torrc only when it starts.
      R.service_do(sys, "tor", "restart")
      return "changed"
   end
   local started = R.ensure_running(sys, "tor")
   return (installed or conf or started) and "changed" or "ok"
end

local torrc = "/etc/tor/torrc"
local bridge_lines = { "BridgeRelay 1", "ORPort 443", "ExitPolicy reject *:*" }

--[[ tor.bridge()
  DebianLike, not revertable, port 443.
  Claims: package.installed tor, and the lines of /etc/tor/torrc that make
  a bridge relay (BridgeRelay 1, ORPort 443, ExitPolicy reject *:*).
  Run time: apt-installs tor when missing; appends the missing bridge
  lines to /etc/tor/torrc (the rest of the file is kept); restarts tor
  when torrc changed, else starts it when it is not running.
  Example:
    tor.bridge()
]]
function tor.bridge(a, ...)
   if select("#", ...) > 0 or (a ~= nil and not (type(a) == "table" and next(a) == nil)) then
      local err = args.options(a, {}, "tor.bridge")
      return core.invalid("tor bridge", err or "tor.bridge takes no arguments")
   end
   local claims = { "package.installed", "tor", false }
   for _, l in ipairs(bridge_lines) do
      claims[#claims + 1], claims[#claims + 2], claims[#claims + 3] = "file.line", torrc, l
   end
   return core.leaf("tor bridge", "DebianLike", impl.bridge,
                    { package = "tor", torrc = torrc, lines = bridge_lines }, claims, {
      ports = { 443 },
      norevert = "tor.bridge has no revert action: use apt.removed \"tor\" to remove it",
   })
end

return args.strict_module(tor, "tor")
