-- prop.service: system services (systemd units on Linux: Debian, Ubuntu,
-- RHEL and its rebuilds, Fedora, Arch; rc.d scripts on FreeBSD).
--
-- UnixLike.  A service name is the unit or script name: "nginx",
-- "getty@tty1", "ssh.socket".

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local R = require "prop.runtime"

local service = {}

local impl = { running = {}, stopped = {}, restarted = {}, reloaded = {}, enabled = {} }

local fmt = string.format

-- Run time -------------------------------------------------------------
-- The init system is systemd when /run/systemd/system exists on the
-- target, FreeBSD's rc.d there, else SysV scripts through service(8) and
-- update-rc.d (see prop.runtime).

function impl.running.ensure(sys, a)
   return R.ensure_running(sys, a.name) and "changed" or "ok"
end

function impl.stopped.ensure(sys, a)
   if not R.service_is_running(sys, a.name) then return "ok" end
   R.service_do(sys, a.name, "stop")
   return "changed"
end

-- A restart is a change whenever it runs: it is meant to run only when
-- something it depends on changed (on_change).
function impl.restarted.ensure(sys, a)
   R.service_do(sys, a.name, "restart")
   return R.no_daemons(sys) and "ok" or "changed"
end

-- A reload, likewise, of a running service: one that is not running has
-- nothing to reread (it reads its files when it starts); one that cannot
-- reload fails with what systemctl (or its init script) said.
function impl.reloaded.ensure(sys, a)
   if R.no_daemons(sys) then
      R.service_do(sys, a.name, "reload")
      return "ok"
   end
   if not R.service_is_running(sys, a.name) then
      sys:note(fmt("service %s is not running: nothing to reload", a.name))
      return "ok"
   end
   R.service_do(sys, a.name, "reload")
   return "changed"
end

-- SysV: the start links update-rc.d makes in /etc/rc2.d .. /etc/rc5.d.
-- Enabled when there is an S link and no K link for name in those.
local function sysv_links(sys, name)
   local s, k = 0, 0
   for level = 2, 5 do
      local dir = fmt("/etc/rc%d.d", level)
      local r = sys:query({ "ls", "-1", dir })
      if r.code == 0 then
         for entry in r.stdout:gmatch("[^\n]+") do
            local kind, rest = entry:match("^([SK])%d%d(.+)$")
            if rest == name then
               if kind == "S" then s = s + 1 else k = k + 1 end
            end
         end
      end
   end
   return s, k
end

function impl.enabled.ensure(sys, a)
   local name = a.name
   local init = R.init_system(sys)
   if init == "systemd" then
      local r = R.query(sys, "service.enabled", { "systemctl", "is-enabled", name })
      local state = r.stdout:match("%S+")
      if r.code == 0 and (state == "enabled" or state == "enabled-runtime" or state == "static"
                          or state == "alias" or state == "indirect") then
         return "ok"
      end
      R.run(sys, "service.enabled", { "systemctl", "enable", name })
      return "changed"
   elseif init == "rc.d" then
      local var = name:gsub("[^%w_]", "_") .. "_enable"
      local r = R.query(sys, "service.enabled", { "sysrc", "-n", var })
      local v = r.code == 0 and r.stdout:match("%S+") or ""
      if v:upper() == "YES" then return "ok" end
      R.run(sys, "service.enabled", { "sysrc", var .. "=YES" })
      return "changed"
   end
   -- SysV links are Debian's (update-rc.d): the Red Hat family and Arch
   -- enable services through systemd only.
   local os = sys.os
   if os == "rhel" or os == "fedora" or os == "arch" then
      R.fail("service.enabled: systemd is not running on this %s target (no /run/systemd/system): "
             .. "its services are enabled with systemctl", os)
   end
   if not sys:exists("/etc/init.d/" .. name) then
      R.fail("service.enabled: there is no /etc/init.d/%s on the target", name)
   end
   local s, k = sysv_links(sys, name)
   if s > 0 and k == 0 then return "ok" end
   if s == 0 and k == 0 then
      -- No links at all: make them as the script's LSB header says.
      R.run(sys, "service.enabled", { "update-rc.d", name, "defaults" })
   else
      R.run(sys, "service.enabled", { "update-rc.d", name, "enable" })
   end
   return "changed"
end

-- Probes: the state the service is in now, looked at only (a chroot or a
-- machine not booted runs no daemon: nothing to see there, they hold).

-- Whether the service runs, and in words what was seen: systemctl
-- is-active's word, else the status command's exit code and last line.
local function seen_state(sys, name)
   local init = R.init_system(sys)
   local argv
   if init == "systemd" then
      argv = { "systemctl", "is-active", name }
   elseif init == "rc.d" then
      argv = { "service", name, "onestatus" }
   else
      argv = { "service", name, "status" }
   end
   local r = R.query(sys, "service " .. name, argv)
   if init == "systemd" then
      return r.code == 0, fmt("%s (systemctl is-active)", r.stdout:match("%S+") or "unknown")
   end
   local said = R.tail((r.stdout or "") .. (r.stderr or ""), 1)
   return r.code == 0, fmt("%s exits %d%s", R.show_argv(argv), r.code,
                           said ~= "" and ": " .. said or "")
end

function impl.running.verify(sys, a)
   if R.no_daemons(sys) then return true end
   local up, seen = seen_state(sys, a.name)
   if up then return true end
   return false, fmt("service %s is not running: %s", a.name, seen)
end

function impl.running.repair(sys, a)
   R.service_do(sys, a.name, "start")
end

function impl.stopped.verify(sys, a)
   if R.no_daemons(sys) then return true end
   local up, seen = seen_state(sys, a.name)
   if not up then return true end
   return false, fmt("service %s is still running: %s", a.name, seen)
end

function impl.stopped.repair(sys, a)
   R.service_do(sys, a.name, "stop")
end

-- Enabled as ensure sees it: true, or false and what was seen.
function impl.enabled.verify(sys, a)
   local name = a.name
   local init = R.init_system(sys)
   if init == "systemd" then
      local r = R.query(sys, "service.enabled", { "systemctl", "is-enabled", name })
      local state = r.stdout:match("%S+") or "unknown"
      if r.code == 0 and (state == "enabled" or state == "enabled-runtime" or state == "static"
                          or state == "alias" or state == "indirect") then
         return true
      end
      return false, fmt("service %s is %s (systemctl is-enabled), want enabled", name, state)
   elseif init == "rc.d" then
      local var = name:gsub("[^%w_]", "_") .. "_enable"
      local r = R.query(sys, "service.enabled", { "sysrc", "-n", var })
      local v = r.code == 0 and r.stdout:match("%S+") or ""
      if v:upper() == "YES" then return true end
      return false, fmt("%s is %s in rc.conf, want YES", var, v ~= "" and v or "not set")
   end
   local s, k = sysv_links(sys, name)
   if s > 0 and k == 0 then return true end
   return false, fmt("service %s has %d start and %d stop links in /etc/rc2.d../etc/rc5.d, "
                     .. "want start links only", name, s, k)
end

impl.enabled.repair = impl.enabled.ensure

local function check_name(recipe, name, opts)
   local err = args.matching(name, "service name", "[%w_@.:+-]+",
                             'a service name such as "nginx" or "getty@tty1"')
   if not err and name:sub(1, 1) == "-" then err = "service name must not start with \"-\"" end
   -- "." and ".." name directories (/etc/init.d/..), never a service.
   if not err and (name == "." or name == "..") then
      err = string.format('service name "%s" is not valid: it names a directory', name)
   end
   return args.join(recipe, err, (args.options(opts, {}, recipe)))
end

local function state_leaf(which, name)
   return core.leaf{ desc = "service " .. name .. " " .. which, impl = impl[which],
                     args = { name = name }, claims = { claim["service_" .. which](name) } }
end

local function pair(which, other, name, opts)
   local err = check_name("service." .. which, name, opts)
   if err then
      return core.invalid("service " .. (type(name) == "string" and name or "?") .. " " .. which, err)
   end
   return core.pair(state_leaf(which, name), state_leaf(other, name))
end

--[[ service.running(name)
  UnixLike, revertable: its revert is service.stopped(name).
  Claims: service.running name.  Starts the service if it is not running;
  does not enable it at boot (see service.enabled).
  Run time: systemctl is-active (service NAME status without systemd;
  service NAME onestatus on FreeBSD); when not running, systemctl start
  (service NAME start).
  Verify: the service runs (the same status command), waited for up to
  probe_timeout; repair: start it again.  A start that succeeds but a
  service that does not stay up fails with what the status said.
  Example:
    service.running "nginx"
]]
function service.running(name, opts)
   return pair("running", "stopped", name, opts)
end

--[[ service.stopped(name)
  UnixLike, revertable: its revert is service.running(name).
  Claims: service.stopped name.
  Run time: as service.running, then systemctl stop (service NAME stop)
  when it runs.
  Verify: the service does not run; repair: stop it again.
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
  Run time: systemctl restart (service NAME restart); always changed,
  because a restart is an action, not a state to compare.
  Example:
    file.has_content("/etc/foo.conf", conf):on_change(service.restarted "foo")
]]
function service.restarted(name, opts)
   local desc = "service " .. (type(name) == "string" and name or "?") .. " restarted"
   local err = check_name("service.restarted", name, opts)
   if err then return core.invalid(desc, err) end
   return core.leaf{ desc = desc, impl = impl.restarted, args = { name = name },
                     claims = { claim.service_restarted(name) },
                     norevert = "service.restarted has no revert action: a restart cannot be undone" }
end

--[[ service.reloaded(name)
  UnixLike, not revertable.  Tells a running service to read its
  configuration again, every time it runs: meant as the hook of
  on_change, where a restart would drop connections.
  Claims: service.restarted name (a reload, as a restart, wants the
  service up: service.stopped on the same host is P009).
  Run time: systemctl is-active, then systemctl reload (service NAME
  reload; onereload on FreeBSD) when it runs: changed.  Not running:
  ok, with a note (it reads its files when it starts).  A service that
  cannot reload (a unit without ExecReload, a script without reload)
  fails with what systemctl or the script said.
  Example:
    file.has_content("/etc/nginx/conf.d/a.conf", conf):on_change(service.reloaded "nginx")
]]
function service.reloaded(name, opts)
   local desc = "service " .. (type(name) == "string" and name or "?") .. " reloaded"
   local err = check_name("service.reloaded", name, opts)
   if err then return core.invalid(desc, err) end
   return core.leaf{ desc = desc, impl = impl.reloaded, args = { name = name },
                     claims = { claim.service_restarted(name) },
                     norevert = "service.reloaded has no revert action: a reload cannot be undone" }
end

--[[ service.enabled(name)
  UnixLike, not revertable.  The service starts at boot (systemctl enable;
  <name>_enable="YES" in rc.conf on FreeBSD).
  Claims nothing.
  Run time: systemctl is-enabled, then systemctl enable when needed
  (every Linux: Debian, Ubuntu, RHEL, Fedora, Arch).  Without systemd, on
  Debian and Ubuntu: enabled when /etc/rc2.d..rc5.d have S links for the
  script and no K link; else update-rc.d NAME defaults (no links yet) or
  update-rc.d NAME enable; on rhel, fedora and arch it fails (their
  services are systemd units).  FreeBSD: sysrc NAME_enable=YES.
  Verify: as the check (is-enabled, the rc links, rc.conf); repair: enable.
  Example:
    service.enabled "nginx"
]]
function service.enabled(name, opts)
   local desc = "service " .. (type(name) == "string" and name or "?") .. " enabled"
   local err = check_name("service.enabled", name, opts)
   if err then return core.invalid(desc, err) end
   return core.leaf{ desc = desc, impl = impl.enabled, args = { name = name },
                     norevert = "service.enabled has no revert action: whether the service was enabled before is not known" }
end

return args.strict_module(service, "service")
