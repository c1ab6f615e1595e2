-- prop.fail2ban: fail2ban and its jails on Debian and Ubuntu.
--
-- Each jail is one file, /etc/fail2ban/jail.d/NAME.local, written whole.
-- Every change is tested with fail2ban-client -t (the whole
-- configuration, as fail2ban would read it) before fail2ban is reloaded;
-- a configuration fail2ban refuses is put back as it was, and the
-- property fails with what fail2ban said.

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local R = require "prop.runtime"
local V = require "prop.vhost"

local fail2ban = {}

local impl = { installed = {}, jail = {}, absent = {} }

local fmt = string.format
local concat = table.concat

local JAIL_D = "/etc/fail2ban/jail.d/"
local TEST = { "fail2ban-client", "-t" }

function impl.installed.ensure(sys)
   local changed = R.apt_install(sys, "fail2ban.installed", { "fail2ban" })
   if not R.no_daemons(sys) and not R.service_is_running(sys, "fail2ban") and not sys.dry then
      -- fail2ban will not start with a configuration it refuses: say why.
      local r = R.query(sys, "fail2ban.installed", TEST)
      if r.code ~= 0 then
         R.fail("fail2ban.installed: fail2ban cannot start, fail2ban-client -t refuses its "
                .. "configuration:\n%s", R.tail(r.stderr ~= "" and r.stderr or r.stdout, 4))
      end
   end
   if R.ensure_running(sys, "fail2ban") then changed = true end
   return changed and "changed" or "ok"
end

function impl.jail.ensure(sys, a)
   return V.ensure_site(sys, a)
end

-- Where no daemon runs (a chroot, a directory tree, a machine not
-- booted), there is nothing to probe.
local function no_probe(sys)
   return R.no_daemons(sys) or R.is_dir_tree(sys)
end

-- fail2ban answers: nil, else what fail2ban-client ping said.
local function not_answering(sys)
   local r = sys:query({ "fail2ban-client", "ping" })
   if r.code == 0 then return nil end
   return fmt("fail2ban is not running (fail2ban-client ping: %s)",
              R.tail((r.stderr or "") .. (r.stdout or ""), 1):gsub("%s+$", ""))
end

-- The probe of a jail: fail2ban runs it (fail2ban-client status NAME),
-- unless it is DEFAULT or declared enabled = false.
function impl.jail.verify(sys, a)
   if not a.active or no_probe(sys) then return true end
   local why = not_answering(sys)
   if why then return false, why end
   local r = sys:query({ "fail2ban-client", "status", a.jail })
   if r.code == 0 then return true end
   return false, fmt("jail %s is not active (fail2ban-client status %s: %s)", a.jail, a.jail,
                     R.tail((r.stderr or "") .. (r.stdout or ""), 1):gsub("%s+$", ""))
end

-- fail2ban reads its jails again (fail2ban-client reload), or starts.
function impl.jail.repair(sys, a)
   if not_answering(sys) then
      R.service_do(sys, "fail2ban", "start")
   else
      R.run(sys, a.what, { "fail2ban-client", "reload" })
   end
   sys:note("fail2ban reloaded: jail " .. a.jail .. " was not active")
end

function impl.absent.ensure(sys, a)
   return V.ensure_disabled(sys, a)
end

--[[ fail2ban.installed()
  DebianLike, not revertable.
  Claims: package.installed fail2ban, service.running fail2ban.
  Run time: apt-installs fail2ban when missing, then starts the service
  when it is not running; when fail2ban-client -t refuses the
  configuration (Debian's sshd jail reads /var/log/auth.log, which a
  system without rsyslog lacks), the property fails with its message.
  Example:
    fail2ban.installed()
]]
function fail2ban.installed(a, ...)
   local err = args.no_args("fail2ban.installed", a, ...)
   if err then return core.invalid("fail2ban installed", err) end
   return core.leaf{ desc = "fail2ban installed", targets = "DebianLike", impl = impl.installed,
                     claims = { claim.package_installed("fail2ban"),
                                claim.service_running("fail2ban") },
                     norevert = 'fail2ban.installed has no revert action: use apt.removed "fail2ban" to remove it' }
end

local function check_name(v, what)
   local err = args.matching(v, what, "[%w][%w_-]*",
                             'a jail name of letters, digits, "_" and "-", such as "sshd"')
   if err then return err end
   if v == "INCLUDES" then return fmt("%s INCLUDES is not a jail", what) end
   return nil, v
end

local function check_key(k)
   if type(k) ~= "string" or not k:find("^[%a][%w_.]*$") then
      return fmt('setting names must be jail options such as maxretry or bantime.increment, got %s',
                 args.got(k))
   end
   return nil
end

-- A value: a string, an integer, a boolean (true/false), or a list of
-- strings (one per line, as logpath takes several files).
local function check_value(k, v)
   if type(v) == "boolean" or math.type(v) == "integer" then return nil, tostring(v) end
   if type(v) == "table" then
      local err, list = args.list(v, k, args.nonempty_string, { single = false, nonempty = true })
      if err then return err end
      for _, x in ipairs(list) do
         if x:find("[\r\n]") then return fmt("%s %s contains a newline", k, args.show(x)) end
      end
      return nil, concat(list, "\n" .. string.rep(" ", #k + 3))
   end
   if type(v) ~= "string" then
      return fmt("%s must be a string, an integer, a boolean or a list of strings, got %s",
                 k, args.got(v))
   end
   if v:find("[\r\n]") then
      return fmt("%s %s contains a newline: give several lines as a list", k, args.show(v))
   end
   return nil, (v:match("^%s*(.-)%s*$"))
end

local function jail_args(name)
   return { what = "fail2ban.jail " .. name, service = "fail2ban", install = "fail2ban.installed()",
            available = JAIL_D .. name .. ".local", test = TEST }
end

--[[ fail2ban.jail(name, settings)
  DebianLike, revertable: its revert removes the jail's file.
  Claims: file.content /etc/fail2ban/jail.d/NAME.local = the generated
  file: a [NAME] section with enabled = true (unless settings say
  otherwise; not for DEFAULT, whose settings are every jail's defaults)
  and each setting, sorted.  The revert claims file.absent.
  settings: jail options such as { port = "ssh", maxretry = 3,
  bantime = "1h", filter = "sshd", logpath = "/var/log/auth.log" }; a list
  is written one item a line (logpath of several files).
  Run time: fail2ban must be installed (jail.d exists), or the property
  fails and says so.  When the file differs it is written, then the
  whole configuration is tested with fail2ban-client -t; when fail2ban
  refuses it (an unknown filter, a missing log file), the file is put
  back as it was (a new one removed) and the property fails with
  fail2ban's message; otherwise a running fail2ban is reloaded.  The
  revert removes the file, tests and reloads the same way.
  Example:
    fail2ban.jail("sshd", { maxretry = 3, bantime = "1h" })
    fail2ban.jail("nginx-http-auth", { port = "http,https", logpath = "/var/log/nginx/error.log" })
]]
function fail2ban.jail(name, settings, ...)
   local desc = "fail2ban jail " .. (type(name) == "string" and name or "?")
   local nerr = check_name(name, "name")
   local serr
   local lines = {}
   if type(settings) ~= "table" or settings[1] ~= nil then
      serr = "settings must be a table of jail options such as { maxretry = 3, bantime = \"1h\" }, got "
         .. args.got(settings)
   else
      local keys, errs = {}, {}
      for k in pairs(settings) do
         local err = check_key(k)
         if err then errs[#errs + 1] = err else keys[#keys + 1] = k end
      end
      table.sort(keys)
      if settings.enabled == nil and name ~= "DEFAULT" then lines[1] = "enabled = true" end
      for _, k in ipairs(keys) do
         local err, v = check_value(k, settings[k])
         if err then errs[#errs + 1] = err else lines[#lines + 1] = k .. " = " .. v end
      end
      table.sort(errs)
      if #errs > 0 then serr = concat(errs, "; ") end
   end
   local msg = args.join("fail2ban.jail", nerr, serr,
                         select("#", ...) > 0 and "takes a name and a table of settings" or nil)
   if msg then return core.invalid(desc, msg) end
   local a = jail_args(name)
   a.content = fmt("# fail2ban jail %s, managed by prop: edits here are overwritten\n[%s]\n%s\n",
                   name, name, concat(lines, "\n"))
   a.jail = name
   -- fail2ban reads enabled as a boolean: false, no, off or 0 (any case).
   local off = { ["false"] = true, no = true, off = true, ["0"] = true }
   a.active = name ~= "DEFAULT" and not off[tostring(settings.enabled):lower()]
   -- The reload talks to fail2ban: W106 when nothing on the host starts
   -- it (fail2ban.installed), P016 when that comes after.
   local uses = { services = { "fail2ban" } }
   local up = core.leaf{ desc = desc, targets = "DebianLike", impl = impl.jail, args = a,
                         claims = { claim.file_content(a.available, a.content) }, uses = uses }
   local d = jail_args(name)
   d.enabled = d.available
   local down = core.leaf{ desc = desc .. " removed", targets = "DebianLike", impl = impl.absent,
                           args = d, claims = { claim.file_absent(d.available) }, uses = uses }
   return core.pair(up, down)
end

return args.strict_module(fail2ban, "fail2ban")
