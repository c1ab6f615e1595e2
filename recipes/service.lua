-- prop.service: system services (systemd units on Debian and Ubuntu, rc.d
-- scripts on FreeBSD).
--
-- UnixLike.  A service name is the unit or script name: "nginx",
-- "getty@tty1", "ssh.socket".

local core = require "prop.core"
local args = require "prop.args"

local service = {}

local impl = { running = {}, stopped = {}, restarted = {}, enabled = {} }

local fmt = string.format

local function check_name(recipe, name, opts)
   local err = args.matching(name, "service name", "[%w_@.:+-]+",
                             'a service name such as "nginx" or "getty@tty1"')
   if not err and name:sub(1, 1) == "-" then err = "service name must not start with \"-\"" end
   return args.join(recipe, err, (args.options(opts, {}, recipe)))
end

local function state_leaf(which, name)
   return core.leaf(fmt("service %s %s", name, which), nil, impl[which], { name = name },
                    { "service." .. which, name, false })
end

local function pair(which, other, name, opts)
   local err = check_name("service." .. which, name, opts)
   if err then
      return core.invalid(fmt("service %s %s", type(name) == "string" and name or "?", which), err)
   end
   return core.pair(state_leaf(which, name), state_leaf(other, name))
end

--[[ service.running(name)
  UnixLike, revertable: its revert is service.stopped(name).
  Claims: service.running name.  Starts the service if it is not running;
  does not enable it at boot (see service.enabled).
  Example:
    service.running "nginx"
]]
function service.running(name, opts)
   return pair("running", "stopped", name, opts)
end

--[[ service.stopped(name)
  UnixLike, revertable: its revert is service.running(name).
  Claims: service.stopped name.
  Example:
    service.stopped "apache2"
]]
function service.stopped(name, opts)
   return pair("stopped", "running", name, opts)
end

--[[ service.restarted(name)
  UnixLike, not revertable.  Restarts the service every time it runs:
  meant as the hook of on_change.
  Claims: service.restarted name.
  Example:
    file.has_content("/etc/foo.conf", conf):on_change(service.restarted "foo")
]]
function service.restarted(name, opts)
   local desc = fmt("service %s restarted", type(name) == "string" and name or "?")
   local err = check_name("service.restarted", name, opts)
   if err then return core.invalid(desc, err) end
   return core.leaf(desc, nil, impl.restarted, { name = name },
                    { "service.restarted", name, false }, {
      norevert = "service.restarted has no revert action: a restart cannot be undone",
   })
end

--[[ service.enabled(name)
  UnixLike, not revertable.  The service starts at boot (systemctl enable;
  <name>_enable="YES" in rc.conf on FreeBSD).
  Claims nothing.
  Example:
    service.enabled "nginx"
]]
function service.enabled(name, opts)
   local desc = fmt("service %s enabled", type(name) == "string" and name or "?")
   local err = check_name("service.enabled", name, opts)
   if err then return core.invalid(desc, err) end
   return core.leaf(desc, nil, impl.enabled, { name = name }, nil, {
      norevert = "service.enabled has no revert action: whether the service was enabled before is not known",
   })
end

return args.strict_module(service, "service")
