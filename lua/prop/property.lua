-- property.lua: `property { ... }`, a property written in Lua (SPEC 2.4).
--
-- The check, apply and revert functions are kept for the executor; here
-- only the type is made: targets, ports, and revertable when a revert
-- function is given (the revert side is a property of its own whose apply
-- is that function).

local core = require "prop.core"
local args = require "prop.args"

local M = {}

local keys = { "desc", "targets", "ports", "check", "apply", "revert" }
local known = {}
for _, k in ipairs(keys) do known[k] = true end

local function bad(desc, msg)
   return core.invalid(desc or "property", "property: " .. msg)
end

function M.property(t)
   if type(t) ~= "table" then
      return bad(nil, "expects a table { desc = ..., check = ..., apply = ... }, got a " .. type(t))
   end
   local desc = t.desc
   if type(desc) ~= "string" or desc == "" then
      return bad(nil, "desc must be a non-empty string")
   end
   for k in pairs(t) do
      if not known[k] then
         local msg = string.format("unknown key \"%s\"", tostring(k))
         local best = type(k) == "string" and args.suggest(k, keys) or nil
         if best then msg = msg .. string.format(" (did you mean \"%s\"?)", best) end
         return bad(desc, msg)
      end
   end
   for _, k in ipairs { "check", "apply", "revert" } do
      if t[k] ~= nil and type(t[k]) ~= "function" then
         return bad(desc, string.format("%s must be a function, got a %s", k, type(t[k])))
      end
   end
   if t.apply == nil then
      return bad(desc, "apply is required: a function(sys) that makes the property true")
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
            return bad(desc, string.format("port %s (entry %d) is outside 1..65535", tostring(p), i))
         end
         ports[#ports + 1] = p
      end
   end
   local extra = {
      ports = ports,
      norevert = string.format("property \"%s\" has no revert function", desc),
   }
   local impl = { check = t.check, apply = t.apply }
   local p = core.leaf(desc, targets, impl, nil, nil, extra)
   if t.revert then
      local undo = core.leaf("revert " .. desc, targets, { apply = t.revert }, nil, nil, nil)
      return core.pair(p, undo)
   end
   return p
end

return M
