-- prop.hostname: the host's name.

local core = require "prop.core"
local args = require "prop.args"

local hostname = {}

local impl = { set = {} }

local fmt = string.format

-- RFC 1123: dot-separated labels of letters, digits and "-", 1 to 63
-- characters each, not starting or ending with "-"; 253 in all.
local function check_hostname(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   if #v > 253 then return fmt("%s is longer than 253 characters", what) end
   for label in (v .. "."):gmatch("([^.]*)%.") do
      if label == "" or #label > 63 or not label:find("^[%w-]+$")
         or label:find("^%-") or label:find("%-$") then
         return fmt('%s %s is not a valid host name: expected labels of letters, digits '
                    .. 'and "-" separated by dots, such as "web1.example.com"', what, args.show(v))
      end
   end
   return nil, v
end

--[[ hostname.set(name)
  UnixLike, not revertable.
  Claims: hostname = name (two different names on one host are P013), and
  file.content /etc/hostname = the first label of name and a newline, as
  Debian expects; the full name goes to /etc/hosts.
  Example:
    hostname.set "web1.example.com"
]]
function hostname.set(name, opts)
   local desc = fmt("hostname %s", type(name) == "string" and name or "?")
   local err = check_hostname(name, "hostname")
   local msg = args.join("hostname.set", err, (args.options(opts, {}, "hostname.set")))
   if msg then return core.invalid(desc, msg) end
   local short = name:match("^[^.]+")
   return core.leaf(desc, nil, impl.set, { name = name, short = short },
                    { "hostname", "hostname", name, "file.content", "/etc/hostname", short .. "\n" }, {
      norevert = "hostname.set has no revert action: the old name is not known",
   })
end

return args.strict_module(hostname, "hostname")
