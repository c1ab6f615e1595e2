-- prop.group: local groups.

local core = require "prop.core"
local args = require "prop.args"

local group = {}

local impl = { exists = {} }

local fmt = string.format

--[[ group.exists(name [, { gid= }])
  UnixLike, not revertable.
  Claims: group name = gid (or no id), so that one name with two gids or
  one gid with two names is found before anything runs (P010).
  Example:
    group.exists("deploy", { gid = 2000 })
]]
function group.exists(name, opts)
   local desc = fmt("group %s exists", type(name) == "string" and name or "?")
   local err = args.matching(name, "group name", "[a-z_][a-z0-9_-]*",
                             'a group name such as "deploy" (lower case, digits, "_" and "-")')
   local oerr, o = args.options(opts, { gid = args.id }, "group.exists")
   local msg = args.join("group.exists", err, oerr)
   if msg then return core.invalid(desc, msg) end
   if o.gid then desc = fmt("group %s exists (gid %d)", name, o.gid) end
   return core.leaf(desc, nil, impl.exists, { name = name, gid = o.gid },
                    { "group", name, o.gid or false }, {
      norevert = "group.exists has no revert action: removing a group could leave files owned by a bare number",
   })
end

return args.strict_module(group, "group")
