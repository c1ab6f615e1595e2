-- prop.postfix: the Postfix mail server on Debian and Ubuntu.
--
-- main.cf is edited one "name = value" setting at a time (the rest of the
-- file is kept), each claimed with its name, so that two recipes giving
-- one parameter two values are found before anything runs (P007).  Every
-- new main.cf is checked with postfix check on a copy before it replaces
-- the old one: a configuration Postfix refuses never replaces one it
-- accepts, and Postfix is reloaded only after a change.

local core = require "prop.core"
local claim = core.claim

-- The fields of a core.leaf{} with those of extra (a table or nil) added.
local function with_extra(t, extra)
   for k, v in pairs(extra or {}) do t[k] = v end
   return t
end
local args = require "prop.args"
local conf = require "prop.conf"
local R = require "prop.runtime"

local postfix = {}

local impl = { install = {}, setting = {}, reload = {}, mailname = {} }

local fmt = string.format
local concat = table.concat

local MAIN_CF = "/etc/postfix/main.cf"
local CHECK_DIR = "/etc/postfix/prop-check"
local DEBCONF_DB = "/var/cache/debconf/config.dat"
-- What hostname.sane claims /etc/mailname holds: the same words, so that
-- the two agree and hostname.mailname beside either is P007.
local OWN_NAME = "the host's own name (hostname.sane)"

-- Parameters that a reload does not apply: Postfix must be restarted.
local restart_params = { inet_interfaces = true, inet_protocols = true }

local function trim(s)
   return (s:match("^%s*(.-)%s*$"))
end

-- A value as Postfix reads it: blanks (and continuation lines) are one
-- space.
local function normal(v)
   return (trim(v):gsub("%s+", " "))
end

local function setting_line(name, value)
   if value == "" then return name .. " =" end
   return name .. " = " .. value
end

--[[ main.cf's logical lines: a line "name = value" and the lines after it
  that start with blanks (Postfix's continuation lines).  Returns the
  active entries of each name (a list of { first, last, value }) and the
  first commented-out assignment ("#name = ...") of each. ]]
local function scan(lines)
   local active, commented = {}, {}
   local i = 1
   while i <= #lines do
      local l = lines[i]
      local k, v = l:match("^([%w_]+)%s*=(.*)$")
      if k then
         local j = i
         while lines[j + 1] and lines[j + 1]:find("^%s+%S") and not lines[j + 1]:find("^%s*#") do
            j = j + 1
            v = v .. " " .. lines[j]
         end
         active[k] = active[k] or {}
         table.insert(active[k], { first = i, last = j, value = normal(v) })
         i = j + 1
      else
         local c = l:match("^#%s*([%w_]+)%s*=")
         if c and commented[c] == nil then commented[c] = i end
         i = i + 1
      end
   end
   return active, commented
end

-- content with each setting (a list of { name, value }) on one line: the
-- first entry of the name is replaced (kept byte for byte when it has the
-- value already) and later ones dropped; without one, its first
-- commented-out assignment is replaced; else the line is appended.
local function edit_main_cf(content, settings)
   local lines, nl = R.split_lines(content)
   local active, commented = scan(lines)
   local put, drop, append = {}, {}, {}
   for _, st in ipairs(settings) do
      local line = setting_line(st.name, st.value)
      local es = active[st.name]
      if es then
         local e = es[1]
         if e.value ~= normal(st.value) then
            put[e.first] = line
            for k = e.first + 1, e.last do drop[k] = true end
         end
         for n = 2, #es do
            for k = es[n].first, es[n].last do drop[k] = true end
         end
      elseif commented[st.name] then
         put[commented[st.name]] = line
      else
         append[#append + 1] = line
      end
   end
   local out = {}
   for i, l in ipairs(lines) do
      if not drop[i] then out[#out + 1] = put[i] or l end
   end
   for _, l in ipairs(append) do out[#out + 1] = l end
   local new = concat(out, "\n")
   if #out > 0 and (nl or #lines == 0 or #append > 0) then new = new .. "\n" end
   return new
end

-- Run time -------------------------------------------------------------

local function installed_hint()
   return "install it first with postfix.installed() or postfix.satellite(relay)"
end

-- Checks new as main.cf with postfix -c CHECK_DIR check, beside a copy of
-- master.cf; the copies go whatever happens.  Returns nil when Postfix
-- accepts it, else what it said.
local function check_copy(sys, new, mode)
   local master = sys:read("/etc/postfix/master.cf")
   if master == nil then R.fail("postfix.main_cf: /etc/postfix/master.cf is missing: %s", installed_hint()) end
   if not sys:exists(CHECK_DIR) then sys:mkdir(CHECK_DIR, { mode = tonumber("0755", 8) }) end
   local ok, r = pcall(function()
      sys:write(CHECK_DIR .. "/main.cf", new, { mode = mode })
      sys:write(CHECK_DIR .. "/master.cf", master, { mode = tonumber("0644", 8) })
      local r = sys:query({ "postfix", "-c", CHECK_DIR, "check" })
      if r.code ~= 0 and ((r.stderr or "") .. (r.stdout or "")):find("^%s*$") then
         -- postfix check logs to syslog only; postmap reads the same
         -- configuration first and says what it refuses on stderr (a
         -- lookup in a static: table only looks).
         local m = sys:query({ "postmap", "-c", CHECK_DIR, "-q", "prop-check", "static:ok" })
         r.stderr = m.code ~= 0 and m.stderr or ""
         if r.stderr:find("^%s*$") then
            r.stderr = "postfix check failed without a message (see the mail log)"
         end
      end
      return r
   end)
   local cleaned, cerr = pcall(function()
      for _, f in ipairs({ "/main.cf", "/master.cf" }) do
         if sys:stat(CHECK_DIR .. f) then sys:remove(CHECK_DIR .. f) end
      end
      sys:remove(CHECK_DIR)
   end)
   if not ok then error(r, 0) end
   if not cleaned then error(cerr, 0) end
   if r.code == 0 then return nil end
   local said = R.tail(((r.stderr or "") .. (r.stdout or "")):gsub("\r", ""), 4)
   return (said:gsub((CHECK_DIR .. "/main.cf"):gsub("%p", "%%%0"), MAIN_CF))
end

function impl.setting.ensure(sys, a)
   local what = "postfix.main_cf " .. a.name
   local st = sys:stat(MAIN_CF)
   if st and st.type ~= "file" then
      R.fail("%s: %s is a %s, not a file", what, MAIN_CF, st.type == "other" and "special file" or st.type)
   end
   local content = st and sys:read(MAIN_CF)
   if content == nil then
      if not sys.dry then R.fail("%s: %s does not exist: %s", what, MAIN_CF, installed_hint()) end
      sys:note(fmt("would set %s once postfix is installed (%s is missing)", a.name, MAIN_CF))
      return "changed"
   end
   local new = edit_main_cf(content, { a })
   if new == content then return "ok" end
   if sys.dry then
      sys:write(MAIN_CF, new)
      sys:note("would check the new main.cf with postfix check before it replaces the old one")
      return "changed"
   end
   local said = check_copy(sys, new, st.mode & tonumber("0777", 8))
   if said then
      R.fail("%s: postfix check refuses the new configuration, %s is left as it was: %s",
             what, MAIN_CF, said)
   end
   sys:write(MAIN_CF, new)
   if restart_params[a.name] then sys.cache["postfix.restart"] = true end
   return "changed"
end

function impl.reload.ensure(sys)
   local restart = sys.cache["postfix.restart"]
   sys.cache["postfix.restart"] = nil
   local why = R.no_daemons(sys)
   if R.is_dir_tree(sys) then why = "no daemon runs in a directory tree" end
   if why then
      sys:note("postfix not reloaded: " .. why)
      return "ok"
   end
   if not R.service_is_running(sys, "postfix") then
      sys:note("postfix is not running: it reads main.cf when it starts")
      return "ok"
   end
   -- inet_interfaces and inet_protocols take effect on a restart only.
   R.service_do(sys, "postfix", restart and "restart" or "reload")
   sys:note(fmt("postfix %s", restart and "restarted (inet_interfaces or inet_protocols changed)"
                or "reloaded"))
   return "changed"
end

-- Probes -----------------------------------------------------------------

-- Where no daemon runs (a chroot, a directory tree, a machine not
-- booted), there is nothing to probe.
local function no_probe(sys)
   return R.no_daemons(sys) or R.is_dir_tree(sys)
end

local function postfix_runs(sys)
   return sys:query({ "postfix", "status" }).code == 0
end

-- A TCP address of /proc/net/tcp or tcp6 (hex), whether it is loopback:
-- 127.0.0.0/8, ::1 or ::ffff:127.0.0.0/104.
local function loopback_hex(addr)
   if #addr == 8 then return addr:sub(7, 8) == "7F" end
   return addr == "00000000000000000000000001000000"
      or (addr:sub(1, 24) == "0000000000000000FFFF0000" and addr:sub(31, 32) == "7F")
end

-- The readable form of a hex address of /proc/net/tcp or tcp6.
local function show_hex(addr)
   if #addr == 8 then
      local b = {}
      for i = 7, 1, -2 do b[#b + 1] = tostring(tonumber(addr:sub(i, i + 1), 16)) end
      return concat(b, ".")
   end
   local w = {}
   for i = 1, 32, 8 do
      local word = addr:sub(i, i + 7)
      local le = word:sub(7, 8) .. word:sub(5, 6) .. word:sub(3, 4) .. word:sub(1, 2)
      w[#w + 1] = fmt("%x:%x", tonumber(le:sub(1, 4), 16), tonumber(le:sub(5, 8), 16))
   end
   return "[" .. concat(w, ":") .. "]"
end

-- The addresses something listens on at TCP port 25 that are not
-- loopback (Postfix's smtpd, per master.cf's smtp service).
local function smtp_off_loopback(sys)
   local r = sys:query({ "cat", "/proc/net/tcp", "/proc/net/tcp6" })
   local out = {}
   for addr, port, state in (r.stdout or ""):gmatch("%d+: (%x+):(%x+) %x+:%x+ (%x+)") do
      if state == "0A" and port == "0019" and not loopback_hex(addr) then
         out[#out + 1] = show_hex(addr) .. ":25"
      end
   end
   return out
end

-- The probe of a main.cf setting: postconf -n (Postfix's own reading of
-- main.cf) shows it with its value; and for inet_interfaces =
-- loopback-only (or localhost), a running Postfix listens on port 25 on
-- loopback only (it reads that setting only when it starts; not asked
-- when this run changed it: the restart it owes comes with postfix
-- reloaded, after it).
function impl.setting.verify(sys, a, changed)
   if R.is_dir_tree(sys) then return true end
   local r = sys:query({ "postconf", "-n", a.name })
   if r.code == 127 or r.code == -1 then return false, "postconf is not installed" end
   local got = (r.stdout or ""):match("^" .. a.name .. " =(.-)\n?$")
   if got == nil or normal(got) ~= normal(a.value) then
      return false, fmt("postconf -n shows %s, want %s",
                        got and setting_line(a.name, normal(got)) or "no " .. a.name,
                        setting_line(a.name, a.value))
   end
   if a.name == "inet_interfaces" and (a.value == "loopback-only" or a.value == "localhost")
      and not changed and not no_probe(sys) and postfix_runs(sys) then
      local off = smtp_off_loopback(sys)
      if #off > 0 then
         return false, fmt("postfix listens on %s, want loopback only (inet_interfaces = %s)",
                           concat(off, ", "), a.value)
      end
   end
   return true
end

-- A running Postfix reads main.cf again: reloaded, or restarted for
-- the settings it reads only when it starts.
function impl.setting.repair(sys, a)
   if no_probe(sys) then return end
   if not postfix_runs(sys) then
      R.service_do(sys, "postfix", "start")
      return
   end
   local how = restart_params[a.name] and "restart" or "reload"
   R.service_do(sys, "postfix", how)
   sys:note(fmt("postfix %s: it did not run with %s", how == "restart" and "restarted" or "reloaded",
                setting_line(a.name, a.value)))
end

-- The host's own name, as the site declares it ("box/mail" -> "mail").
local function own_name(sys, what)
   local name = (sys.host or ""):match("([^/]*)$")
   if not name:find("^[%w][%w.-]*$") or #name > 253 then
      R.fail("%s: the host's name %s is not a host name", what, args.show(name))
   end
   return name
end

function impl.mailname.ensure(sys)
   local name = own_name(sys, "postfix.satellite")
   local changed = R.ensure_content(sys, "postfix.satellite", "/etc/mailname", name .. "\n", {})
   return changed and "changed" or "ok"
end

-- Installs postfix with debconf's questions answered first (only when it
-- is not installed: the answers shape the main.cf its installation
-- writes), then starts it.
function impl.install.ensure(sys, a)
   local changed = false
   if not R.dpkg_installed(R.dpkg_status(sys).postfix) then
      local sel = { "postfix postfix/main_mailer_type select " .. a.mailer_type }
      if a.relay then
         sel[#sel + 1] = "postfix postfix/relayhost string " .. a.relay
         sel[#sel + 1] = "postfix postfix/mailname string "
            .. (a.mailname or own_name(sys, "postfix.satellite"))
      end
      R.run(sys, "postfix installed", { "debconf-set-selections" }, { stdin = concat(sel, "\n") .. "\n" })
      changed = R.apt_install(sys, "postfix installed", { "postfix" })
   end
   if R.ensure_running(sys, "postfix") then changed = true end
   return changed and "changed" or "ok"
end

-- Properties -------------------------------------------------------------

local function install_leaf(mailer_type, relay, mailname, extra)
   return core.leaf(with_extra({
      desc = "postfix installed (" .. mailer_type .. ")", targets = "DebianLike",
      impl = impl.install, args = { mailer_type = mailer_type, relay = relay, mailname = mailname },
      claims = { claim.package_installed("postfix"), claim.service_running("postfix"),
                 claim.file_setting(DEBCONF_DB, conf.claim("postfix/main_mailer_type", mailer_type)) },
   }, extra))
end

local function setting_leaf(name, value)
   return core.leaf{ desc = "main.cf: " .. setting_line(name, value), targets = "DebianLike",
                     impl = impl.setting, args = { name = name, value = value },
                     claims = { claim.file_setting(MAIN_CF, conf.claim(name, value)),
                                claim.file_generated(CHECK_DIR, "postfix.main_cf"),
                                claim.file_generated(CHECK_DIR .. "/main.cf", "postfix.main_cf"),
                                claim.file_generated(CHECK_DIR .. "/master.cf", "postfix.main_cf") },
                     norevert = "postfix.main_cf has no revert action: the old values are not known" }
end

-- It talks to the daemon: it uses the postfix service (W106 when nothing
-- on the host starts it, P016 when that runs after it).
local function reload_leaf()
   return core.leaf{ desc = "postfix reloaded", targets = "DebianLike", impl = impl.reload,
                     norevert = "a reload has nothing to revert",
                     uses = { services = { "postfix" } } }
end

local function check_param_name(k)
   if type(k) ~= "string" or not k:find("^[a-z][a-z0-9_]*$") then
      return fmt("setting names must be main.cf parameters such as relayhost or "
                 .. "smtpd_banner (lower case, digits and \"_\"), got %s", args.got(k))
   end
   return nil
end

-- A value: a string, an integer, a boolean (yes/no) or a list of strings
-- (joined with ", "); one line.
local function check_param_value(k, v)
   if v == true then return nil, "yes" end
   if v == false then return nil, "no" end
   if math.type(v) == "integer" then return nil, tostring(v) end
   if type(v) == "table" then
      local err, list = args.list(v, k, args.nonempty_string, { single = false, nonempty = true })
      if err then return err end
      v = concat(list, ", ")
   end
   if type(v) ~= "string" then
      return fmt("%s must be a string, an integer, a boolean or a list of strings, got %s",
                 k, args.got(v))
   end
   if v:find("[\r\n]") then return fmt("%s %s contains a newline: a setting is one line", k, args.show(v)) end
   return nil, normal(v)
end

-- The setting leaves of a table of settings, sorted by name, or nil and
-- a message.
local function settings_leaves(settings)
   if type(settings) ~= "table" or next(settings) == nil or settings[1] ~= nil then
      return nil, "give the settings as a table such as "
         .. '{ relayhost = "[smtp.example.org]:587", smtpd_banner = "$myhostname ESMTP" }, got '
         .. args.got(settings)
   end
   local names, errs = {}, {}
   for k in pairs(settings) do
      local err = check_param_name(k)
      if err then errs[#errs + 1] = err else names[#names + 1] = k end
   end
   table.sort(names)
   local parts, shown = {}, {}
   for _, k in ipairs(names) do
      local err, v = check_param_value(k, settings[k])
      if err then
         errs[#errs + 1] = err
      else
         parts[#parts + 1] = setting_leaf(k, v)
         shown[#shown + 1] = setting_line(k, v)
      end
   end
   if #errs > 0 then
      table.sort(errs)
      return nil, concat(errs, "; ")
   end
   return parts, shown
end

--[[ postfix.installed()
  DebianLike, not revertable, port 25.
  Claims: package.installed postfix, service.running postfix, and
  file.setting /var/cache/debconf/config.dat =
  "postfix/main_mailer_type=Internet Site" (so postfix.satellite beside
  it on one host is P007: the satellite installs postfix itself).
  Run time: when postfix is not installed, debconf's
  postfix/main_mailer_type is answered "Internet Site" and postfix is
  apt-installed without a question; then the postfix service is started
  when it is not running.  Such a Postfix listens on port 25 on every
  interface.
  Example:
    postfix.installed()
]]
function postfix.installed(a, ...)
   local err = args.no_args("postfix.installed", a, ...)
   if err then return core.invalid("postfix installed", err) end
   return install_leaf("Internet Site", nil, nil, {
      ports = { 25 },
      norevert = 'postfix.installed has no revert action: use apt.removed "postfix" to remove it',
   })
end

--[[ postfix.main_cf(settings)
  DebianLike, not revertable.
  settings: a table of main.cf parameters and values, such as
  { relayhost = "[smtp.example.org]:587", smtpd_banner = "$myhostname ESMTP" }
  (true and false are "yes" and "no"; a list is joined with ", "; ""
  leaves the parameter empty).  Each becomes one "name = value" line of
  /etc/postfix/main.cf: its first entry (with its continuation lines) is
  replaced, later ones dropped, or, without one, its first commented-out
  "#name = " line is replaced; else the line is appended.  Every other
  line is kept.
  Claims: file.setting /etc/postfix/main.cf = "NAME=VALUE" per setting
  (the same parameter with another value elsewhere on the host is P007),
  and file.generated for the check copy in /etc/postfix/prop-check.
  Run time: postfix must be installed (else the property fails and says
  so).  A new main.cf is written, with master.cf, into
  /etc/postfix/prop-check and checked with postfix -c DIR check; only
  when Postfix accepts it does it replace main.cf (the copy is removed
  either way), so a refused configuration fails the property with
  Postfix's message and the old file stays.  After a change a running
  Postfix is reloaded (restarted when inet_interfaces or inet_protocols
  changed).  Nothing differs: ok, no reload.  The reload uses service
  postfix: W106 when nothing on the host starts it (postfix.installed),
  P016 when that comes after.
  Example:
    postfix.main_cf { message_size_limit = 52428800, smtpd_banner = "$myhostname ESMTP" }
]]
function postfix.main_cf(settings, ...)
   if select("#", ...) > 0 then
      return core.invalid("main.cf", "postfix.main_cf takes one table of settings")
   end
   local parts, shown = settings_leaves(settings)
   if parts == nil then return core.invalid("main.cf", "postfix.main_cf: " .. shown) end
   return core.props(parts):on_change(reload_leaf()):describe("main.cf: " .. concat(shown, ", "))
end

-- A relay: a host name or address, bracketed or not, with an optional
-- port ("smtp.example.org", "[smtp.example.org]:587", "[192.0.2.1]").
local function check_relay(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   local host, port = v:match("^%[([^%]]+)%]:(%d+)$")
   if host == nil then host = v:match("^%[([^%]]+)%]$") end
   if host == nil then host, port = v:match("^([^%[%]:]+):(%d+)$") end
   if host == nil then host = v:match("^([^%[%]:]+)$") end
   if host == nil or not host:find("^[%w.:-]+$") then
      return fmt('%s %s must be a host name, with brackets to skip the MX lookup and an optional '
                 .. 'port, such as "smtp.example.org" or "[smtp.example.org]:587"', what, args.show(v))
   end
   if port then
      local perr = args.port(math.tointeger(tonumber(port)), "the port of " .. what)
      if perr then return perr end
   end
   return nil, v
end

--[[ postfix.satellite(relay [, { mailname= }])
  DebianLike, not revertable.
  A satellite (null client): Postfix sends every message, local ones
  included, to relay and receives none from the network.
  Installs postfix as debconf's "Satellite system" when it is not
  installed, starts it, writes /etc/mailname (the host's own name from
  the site, or mailname), and sets in main.cf (as postfix.main_cf does,
  checked with postfix check before it replaces the old file):
  relayhost = RELAY, mydestination = (empty: nothing is delivered here),
  inet_interfaces = loopback-only, myorigin = /etc/mailname.  Postfix is
  reloaded (restarted when inet_interfaces changed) after a change.
  relay: "smtp.example.org", "[smtp.example.org]:587" (brackets: no MX
  lookup).
  Claims: package.installed and service.running postfix; the debconf
  answer postfix/main_mailer_type=Satellite system (postfix.installed
  beside it is P007); file.setting main.cf for each setting above (a
  postfix.main_cf giving one of them another value is P007); and
  /etc/mailname as hostname.sane claims it (hostname.sane beside it
  agrees; with mailname, file.content as hostname.mailname).
  No port is declared: Postfix listens on loopback only.
  Example:
    postfix.satellite "[smtp.example.org]:587"
]]
function postfix.satellite(relay, opts)
   local desc = "postfix satellite relaying to " .. (type(relay) == "string" and relay or "?")
   local rerr, r = check_relay(relay, "relay")
   local oerr, o = args.options(opts, {
      mailname = function(v, what)
         local err = args.nonempty_string(v, what)
         if not err and (not v:find("^[%w][%w.-]*$") or #v > 253) then
            err = fmt('%s %s must be a host name such as "example.org"', what, args.show(v))
         end
         return err, v
      end,
   }, "postfix.satellite")
   local msg = args.join("postfix.satellite", rerr, oerr)
   if msg then return core.invalid(desc, msg) end
   local mailname
   if o.mailname then
      mailname = require("prop.hostname").mailname(o.mailname)
   else
      mailname = core.leaf{ desc = "mailname: the host's own name", targets = "DebianLike",
                            impl = impl.mailname, args = {},
                            claims = { claim.file_generated("/etc/mailname", OWN_NAME) },
                            norevert = "the mail name before is not known" }
   end
   local parts = settings_leaves({ relayhost = r, mydestination = "",
                                   inet_interfaces = "loopback-only", myorigin = "/etc/mailname" })
   return core.props {
      install_leaf("Satellite system", r, o.mailname, {
         norevert = "postfix.satellite has no revert action: the configuration before is not known",
      }),
      mailname,
      core.props(parts):on_change(reload_leaf()),
   }:describe(desc)
end

return args.strict_module(postfix, "postfix")
