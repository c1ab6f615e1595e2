-- prop.group: local groups.

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local R = require "prop.runtime"

local group = {}

local impl = { exists = {} }

local fmt = string.format

-- Run time: /etc/group (read once per host and run); groupadd when
-- missing, groupmod -g when the gid differs (pw on FreeBSD).
function impl.exists.ensure(sys, a)
   local groups = R.groups(sys)
   local g = groups[a.name]
   local freebsd = R.is_freebsd(sys)
   local argv
   if g == nil then
      argv = freebsd and { "pw", "groupadd", a.name } or { "groupadd" }
      if a.gid then
         argv[#argv + 1], argv[#argv + 2] = "-g", tostring(a.gid)
      end
      sys:note((sys.dry and "would create group " or "created group ") .. a.name)
   elseif a.gid and g.gid ~= a.gid then
      argv = freebsd and { "pw", "groupmod", a.name } or { "groupmod" }
      argv[#argv + 1], argv[#argv + 2] = "-g", tostring(a.gid)
      sys:note(fmt("gid %s -> %d", tostring(g.gid), a.gid))
   else
      return "ok"
   end
   if not freebsd then argv[#argv + 1] = a.name end
   R.run(sys, "group.exists", argv)
   R.accounts_forget(sys)
   return "changed"
end

--[[ group.exists(name [, { gid= }])
  UnixLike, not revertable.
  Claims: group name = gid (or no id), so that one name with two gids or
  one gid with two names is found before anything runs (P010).
  Run time: groupadd [-g GID] NAME when /etc/group lacks it; groupmod -g
  GID NAME when its gid differs (files keep the old number).  Members are
  left alone (see user.account's groups).
  Example:
    group.exists("deploy", { gid = 2000 })
]]
function group.exists(name, opts)
   local desc = "group " .. (type(name) == "string" and name or "?") .. " exists"
   local err = args.matching(name, "group name", "[a-z_][a-z0-9_-]*",
                             'a group name such as "deploy" (lower case, digits, "_" and "-")')
   local oerr, o = args.options(opts, { gid = args.id }, "group.exists")
   local msg = args.join("group.exists", err, oerr)
   if msg then return core.invalid(desc, msg) end
   if o.gid then desc = "group " .. name .. " exists (gid " .. o.gid .. ")" end
   return core.leaf{ desc = desc, impl = impl.exists, args = { name = name, gid = o.gid },
                     claims = { claim.group(name, o.gid or false) },
                     norevert = "group.exists has no revert action: removing a group could leave files owned by a bare number" }
end

return args.strict_module(group, "group")
