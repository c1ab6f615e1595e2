-- prop.connect: how a host is reached.
--
-- Each recipe is an info property: it carries facts for the executor and
-- changes nothing on the host.  Without one, a host named "localhost" is
-- this machine and any other is reached over SSH at its name.

local core = require "prop.core"
local args = require "prop.args"

local connect = {}

local fmt = string.format

local function norevert(what)
   return fmt("%s says how the host is reached; it has nothing to revert", what)
end

-- A key or known_hosts file on the machine running prop: absolute, or
-- under the user's home directory.
local function local_path(v, what)
   if type(v) == "string" and v:sub(1, 2) == "~/" and #v > 2 then return nil, v end
   local err = args.abs_path(v, what)
   if err then return err .. ' (or a path under your home directory, "~/...")' end
   return nil, v
end

local ssh_schema = {
   address = function(v, what)
      return args.matching(v, what, "[%w_.:%-%[%]%%]+",
                           'a host name or an IP address such as "192.0.2.10"')
   end,
   port = args.port,
   user = function(v, what)
      return args.matching(v, what, "[%w_][%w_.-]*%$?", 'a user name such as "root"')
   end,
   identity = local_path,
   known_hosts = local_path,
   sudo = args.boolean,
}

--[[ connect.ssh { address=, port=, user=, identity=, known_hosts=, sudo= }
  Info: connect = "ssh", and connect.address, connect.port, connect.user,
  connect.identity, connect.known_hosts, connect.sudo for each key given.
  Defaults: the host's name, 22, root, the agent then the default keys,
  ~/.ssh/known_hosts, no sudo.  Host keys are always checked.
  Example:
    connect.ssh { address = "192.0.2.10", port = 2222, user = "deploy", sudo = true }
]]
function connect.ssh(opts)
   local err, o = args.options(opts, ssh_schema, "connect.ssh")
   if err then return core.invalid("connect ssh", args.join("connect.ssh", err)) end
   local info = { "connect", "ssh" }
   for _, k in ipairs({ "address", "port", "user", "identity", "known_hosts", "sudo" }) do
      if o[k] ~= nil then
         info[#info + 1], info[#info + 2] = "connect." .. k, tostring(o[k])
      end
   end
   local desc = "connect ssh " .. (o.user and o.user .. "@" or "") .. (o.address or "(host name)")
      .. (o.port and ":" .. o.port or "") .. (o.sudo and " with sudo" or "")
   return core.leaf{ desc = desc, info = info, info_only = true, norevert = norevert("connect.ssh") }
end

--[[ connect["local"]()   (also connect.localhost())
  Info: connect = "local".  The host is this machine: no SSH.
  `local` is a Lua keyword, so connect.local() does not parse; write
  connect["local"]() or connect.localhost().
  Example:
    host "laptop" { connect.localhost(), os.debian("bookworm", "amd64") }
]]
local function this_machine(opts)
   local err = args.options(opts, {}, "connect.local")
   if err then return core.invalid("connect local", args.join("connect.local", err)) end
   return core.leaf{ desc = "connect local", info = { "connect", "local" }, info_only = true,
                     norevert = norevert("connect.local") }
end
connect["local"] = this_machine
connect.localhost = this_machine

--[[ connect.dir(path)
  Info: connect = "dir", connect.path = path.  The host is the directory tree
  at path on this machine, as if it were /: file properties work there;
  commands run via chroot when the tree is a system and prop runs as root.
  Example:
    host "demo" { connect.dir "/tmp/prop-demo", file.has_content("/etc/motd", "hi\n") }
]]
function connect.dir(path, opts)
   local desc = "connect dir " .. (type(path) == "string" and path or "?")
   local msg = args.join("connect.dir", args.abs_path(path, "path"),
                         (args.options(opts, {}, "connect.dir")))
   if msg then return core.invalid(desc, msg) end
   return core.leaf{ desc = desc, info = { "connect", "dir", "connect.path", path },
                     info_only = true, norevert = norevert("connect.dir") }
end

return args.strict_module(connect, "connect")
