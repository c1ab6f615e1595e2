-- prop.info: facts about a host that other properties (DNS zones, firewall
-- rules) read.  Its functions are globals of a site: ipv4, ipv6, alias.
--
-- Each is an info property: it changes nothing on the host.  One address
-- claimed by two hosts is P013.

local core = require "prop.core"
local args = require "prop.args"

local info = {}

local fmt = string.format

-- Dotted quad, four decimal numbers 0..255 without leading zeros (many
-- tools read "010" as octal 8).
local function check_ipv4(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   local parts = { v:match("^(%d+)%.(%d+)%.(%d+)%.(%d+)$") }
   local ok = #parts == 4
   for _, p in ipairs(parts) do
      if #p > 3 or tonumber(p) > 255 or (#p > 1 and p:sub(1, 1) == "0") then ok = false end
   end
   if not ok then
      return fmt('%s %s is not an IPv4 address: expected four numbers 0-255 without '
                 .. 'leading zeros, such as "192.0.2.10"', what, args.show(v))
   end
   return nil, v
end

-- The textual forms of RFC 4291 section 2.2: eight groups of 1-4 hex
-- digits, at most one "::" standing for one or more zero groups, and an
-- optional dotted-quad tail counting as two groups.
local function valid_ipv6(s)
   if #s < 2 or #s > 45 then return false end
   local head, tail = s, nil
   local ipv4_tail = s:match(":(%d+%.%d+%.%d+%.%d+)$")
   local groups_needed = 8
   if ipv4_tail then
      if check_ipv4(ipv4_tail, "x") then return false end
      head = s:sub(1, #s - #ipv4_tail)
      -- keep a trailing ":" only when it is part of "::"
      if head:sub(-2) ~= "::" then head = head:sub(1, -2) end
      groups_needed = 6
   end
   local dc = head:find("::", 1, true)
   if dc and head:find("::", dc + 1, true) then return false end
   local function groups(part)
      if part == "" then return 0 end
      local n = 0
      for g in (part .. ":"):gmatch("([^:]*):") do
         if not g:find("^%x%x?%x?%x?$") then return nil end
         n = n + 1
      end
      return n
   end
   if dc then
      local a, b = groups(head:sub(1, dc - 1)), groups(head:sub(dc + 2))
      tail = nil
      return a ~= nil and b ~= nil and a + b < groups_needed
   end
   local n = groups(head)
   return n == groups_needed
end

local function check_ipv6(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   if not valid_ipv6(v) then
      return fmt('%s %s is not an IPv6 address: expected groups of hex digits separated '
                 .. 'by ":", such as "2001:db8::10"', what, args.show(v))
   end
   return nil, v:lower()
end

local function check_name(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   local name = v:gsub("%.$", "")
   if #name > 253 then return fmt("%s is longer than 253 characters", what) end
   for label in (name .. "."):gmatch("([^.]*)%.") do
      if label == "" or #label > 63 or not label:find("^[%w_-]+$")
         or label:find("^%-") or label:find("%-$") then
         return fmt('%s %s is not a valid DNS name: expected labels of letters, digits '
                    .. 'and "-" separated by dots, such as "www.example.com"', what, args.show(v))
      end
   end
   return nil, name:lower()
end

local address_opts = { shared = args.boolean }
local no_opts = {}

local function fact(key, check, v, opts, schema)
   local desc = key .. " " .. (type(v) == "string" and v or "?")
   local err, norm = check(v, key)
   local oerr, o = args.options(opts, schema or no_opts, key)
   if err or oerr then return core.invalid(desc, args.join(key, err, oerr)) end
   local info = { key, norm }
   if o.shared then
      -- The mark the pre-pass reads (P013): every host holding a shared
      -- address must say so.
      info[3], info[4] = "address.shared", norm
      desc = key .. " " .. norm .. " (shared)"
   else
      desc = key .. " " .. norm
   end
   return core.leaf{ desc = desc, info = info, info_only = true,
                     norevert = key .. " is information about the host; it has nothing to revert" }
end

--[[ ipv4 "a.b.c.d"   or   ipv4("a.b.c.d", { shared = true })
  Info: ipv4 = the address.  One address on two hosts is P013, unless
  every host that holds it marks it shared (a floating or anycast
  address; info address.shared = the address).
  Example:  ipv4 "192.0.2.10"
]]
function info.ipv4(addr, opts) return fact("ipv4", check_ipv4, addr, opts, address_opts) end

--[[ ipv6 "..."   or   ipv6("...", { shared = true })
  Info: ipv6 = the address, lower case.  shared as for ipv4.
  Example:  ipv6 "2001:db8::10"
]]
function info.ipv6(addr, opts) return fact("ipv6", check_ipv6, addr, opts, address_opts) end

--[[ alias "name"   or   alias("name", { shared = true })
  Info: alias = another DNS name of the host (a CNAME in generated zones).
  One name on two hosts, or an alias that is another host's name, is
  P013, unless every host that holds it marks it shared (an anycast
  service name).
  Example:  alias "www.example.com"
]]
function info.alias(name, opts) return fact("alias", check_name, name, opts, address_opts) end

return args.strict_module(info, "info")
