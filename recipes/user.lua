-- prop.user: local user accounts.
--
-- UnixLike.  Names follow the portable rule of useradd(8) and pw(8):
-- a lower-case letter or "_" first, then letters, digits, "_", "-", at
-- most 32 characters.

local core = require "prop.core"
local args = require "prop.args"

local user = {}

local impl = { account = {}, absent = {} }

local fmt = string.format

local function check_name(v, what)
   local err = args.matching(v, what, "[a-z_][a-z0-9_-]*%$?",
                             'a user name such as "alice" (lower case, digits, "_" and "-")')
   if err then return err end
   if #v > 32 then return fmt("%s %s is longer than 32 characters", what, args.show(v)) end
   return nil, v
end

local function check_group(v, what)
   return args.matching(v, what, "[a-z_][a-z0-9_-]*", 'a group name such as "adm"')
end

local schema = {
   uid = args.id,
   gid = args.id,
   shell = args.abs_path,
   home = args.abs_path,
   groups = function(v, what) return args.list(v, what, check_group) end,
   comment = function(v, what)
      local err = args.string(v, what)
      if not err and v:find("[:\n]") then err = what .. ' must not contain ":" or a newline' end
      return err, v
   end,
}

local function account_leaf(name, o)
   local desc = fmt("user %s exists", name)
   if o.uid then desc = fmt("user %s exists (uid %d)", name, o.uid) end
   local a = { name = name, uid = o.uid, gid = o.gid, shell = o.shell, home = o.home,
               groups = o.groups, comment = o.comment }
   return core.leaf(desc, nil, impl.account, a, { "user", name, o.uid or false })
end

local function absent_leaf(name)
   return core.leaf(fmt("user %s absent", name), nil, impl.absent, { name = name },
                    { "user.absent", name, false })
end

--[[ user.account(name [, { uid=, gid=, shell=, home=, groups=, comment= }])
  UnixLike, revertable: its revert is user.absent(name).
  Claims: user name = uid (or no id when uid is not given), so that the
  pre-pass finds one name with two uids or one uid with two names (P010).
  Creates the account when missing and sets what is given; groups lists
  supplementary groups (they must exist: see group.exists).
  Example:
    user.account("alice", { uid = 1001, shell = "/bin/bash", groups = { "adm", "sudo" } })
]]
function user.account(name, opts)
   local desc = fmt("user %s exists", type(name) == "string" and name or "?")
   local err = check_name(name, "user name")
   local oerr, o = args.options(opts, schema, "user.account")
   local msg = args.join("user.account", err, oerr)
   if msg then return core.invalid(desc, msg) end
   return core.pair(account_leaf(name, o), absent_leaf(name))
end

--[[ user.absent(name)
  UnixLike, revertable: its revert is user.account(name).
  Claims: user.absent name.  The home directory is kept.
  Example:
    user.absent "games"
]]
function user.absent(name, opts)
   local desc = fmt("user %s absent", type(name) == "string" and name or "?")
   local msg = args.join("user.absent", check_name(name, "user name"),
                         (args.options(opts, {}, "user.absent")))
   if msg then return core.invalid(desc, msg) end
   return core.pair(absent_leaf(name), account_leaf(name, {}))
end

return args.strict_module(user, "user")
