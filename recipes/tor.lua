-- prop.tor: Tor relays.

local core = require "prop.core"
local args = require "prop.args"

local tor = {}

local impl = { bridge = {} }

local torrc = "/etc/tor/torrc"
local bridge_lines = { "BridgeRelay 1", "ORPort 443", "ExitPolicy reject *:*" }

--[[ tor.bridge()
  DebianLike, not revertable, port 443.
  Claims: package.installed tor, and the lines of /etc/tor/torrc that make
  a bridge relay (BridgeRelay 1, ORPort 443, ExitPolicy reject *:*).
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
