-- prop.jail: FreeBSD jails, provisioned as hosts of their own.
--
-- A jail is a FreeBSD tree (the release's base.txz, unpacked) started by
-- the host's rc.d jail script from /etc/jail.conf.d/NAME.conf.  Its
-- properties run inside it through jexec, after the host's own.  The
-- pre-pass puts jail.running only on FreeBSD hosts (P002) and checks the
-- jail's own properties against FreeBSD.

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local R = require "prop.runtime"
local C = require "prop.container"

local jail = {}

local fmt, concat = string.format, table.concat

local jails_dir = "/usr/local/jails"
local conf_dir = "/etc/jail.conf.d"
local default_cache = "/var/cache/prop/jails"

-- A jail name: letters, digits and "_" (a "." would make it a child of
-- another jail).
local function check_jail_name(v, what)
   return args.matching(v, what, "[%a_][%w_]*", 'a jail name such as "www" (letters, digits, "_")')
end

-- Paths and addresses go into jail.conf between double quotes.
local function check_plain_path(v, what)
   local err, p = args.abs_path(v, what)
   if err then return err end
   if p:find("[%s\"'\\$;{}]") then
      return fmt("%s %s must not contain blanks, quotes, \"\\\", \"$\", \";\" or braces: it is "
                 .. "written into jail.conf", what, args.show(p))
   end
   p = p:gsub("/+$", "")
   if p == "" then return fmt("%s must not be / : a jail is a directory of its own", what) end
   return nil, p
end

local opts_schema = {
   path = check_plain_path,
   ip4 = function(v, what)
      return args.matching(v, what, "[%w.:|/-]+", 'an address such as "192.0.2.50", '
                           .. '"em0|192.0.2.50" or "inherit"')
   end,
   mirror = function(v, what)
      return args.matching(v, what, "https?://[%w%-%.:%[%]_~/%%@]+",
                           'a URL such as "https://download.freebsd.org/ftp/releases"')
   end,
}

--[[ jail.container(name, os.freebsd(release, arch), props [, { path=, ip4=, mirror= }])
  A container: a FreeBSD jail called name, of the release given, whose
  properties are props, checked against FreeBSD.  Its tree is
  /usr/local/jails/NAME unless path is given; ip4 is its jail.conf ip4
  ("inherit", the default, shares the host's addresses; "em0|192.0.2.50"
  adds an alias on em0).  Its tree is the release's base.txz, fetched
  from mirror (https://download.freebsd.org/ftp/releases by default).
  Example:
    local www = jail.container("www", os.freebsd("14.1-RELEASE", "amd64"), {
      pkg.installed { "nginx" }, service.running "nginx",
    }, { ip4 = "em0|192.0.2.50" })
]]
function jail.container(name, os_, props, opts)
   local desc = "jail " .. (type(name) == "string" and name or "?")
   local oerr, o = args.options(opts, opts_schema, "jail.container")
   local nerr, n = check_jail_name(name, "name")
   local serr, s = C.check_os(os_, "os", { freebsd = true })
   local lerr = C.check_props(props, "properties")
   local msg = args.join("jail.container", nerr, serr, lerr, oerr)
   if msg then return core.invalid(desc, msg) end
   local info = { "path", o.path or (jails_dir .. "/" .. n), "name", n, "family", s.family,
                  "release", s.suite, "arch", s.arch, "ip4", o.ip4 or "inherit",
                  "mirror", o.mirror or "https://download.freebsd.org/ftp/releases" }
   return core.container("jail", n, { os_, C.info(desc, info), C.expand_roles(n, props, { os_ }) })
end

-- ---------------------------------------------------------------------
-- Run time, on the FreeBSD host.

local impl = { running = {}, removed = {} }

local function conf_file(name)
   return conf_dir .. "/" .. name .. ".conf"
end

local function conf_text(a)
   local ip
   if a.ip4 == "inherit" then
      ip = "  ip4 = inherit;"
   else
      ip = fmt('  ip4.addr = "%s";', a.ip4)
   end
   return concat({
      "# Made by prop for the jail " .. a.name .. ": edit the site, not this file.",
      a.name .. " {",
      fmt('  path = "%s";', a.path),
      fmt('  host.hostname = "%s";', a.name),
      ip,
      '  exec.start = "/bin/sh /etc/rc";',
      '  exec.stop = "/bin/sh /etc/rc.shutdown jail";',
      "  exec.clean;",
      "  mount.devfs;",
      "}",
      "",
   }, "\n")
end

-- The tree: base.txz of the release, kept in the cache, unpacked into
-- PATH.prop-new and renamed once complete.
local function ensure_tree(sys, what, a)
   if sys:exists(a.path .. "/bin/sh") then return false end
   local staging = a.path .. ".prop-new"
   if sys:exists(staging) then
      sys:note("removing " .. staging .. ", left by an interrupted run")
      R.run(sys, what, { "chflags", "-R", "noschg", staging })
      R.run(sys, what, { "rm", "-rfx", staging })
   end
   local base = fmt("%s/%s-%s-base.txz", default_cache, a.release, a.arch)
   if not sys:exists(base) then
      R.run(sys, what, { "mkdir", "-p", default_cache })
      R.run(sys, what, { "fetch", "-o", base .. ".prop-new",
                         fmt("%s/%s/%s/base.txz", a.mirror, a.arch, a.release) })
      R.run(sys, what, { "mv", "-f", base .. ".prop-new", base })
   end
   R.run(sys, what, { "mkdir", "-p", staging })
   R.run(sys, what, { "tar", "-xpf", base, "-C", staging })
   R.run(sys, what, { "cp", "/etc/resolv.conf", staging .. "/etc/resolv.conf" })
   R.run(sys, what, { "mv", staging, a.path })
   sys:note((sys.dry and "would unpack " or "unpacked ") .. base .. " into " .. a.path)
   return true
end

local function is_running(sys, name)
   return sys:query({ "jls", "-j", name, "jid" }).code == 0
end

local function jail_list(sys)
   local r = R.query(sys, "jail_list", { "sysrc", "-n", "jail_list" })
   local list = {}
   if r.code == 0 then
      for w in r.stdout:gmatch("%S+") do list[#list + 1] = w end
   end
   return list
end

local function listed(list, name)
   for _, w in ipairs(list) do if w == name then return true end end
   return false
end

function impl.running.ensure(sys, a)
   local what = "jail " .. a.name
   local changed = ensure_tree(sys, what, a)
   local conf = false
   local text = conf_text(a)
   if sys:read(conf_file(a.name)) ~= text then
      if not sys:exists(conf_dir) then R.run(sys, what, { "mkdir", "-p", conf_dir }) end
      sys:write(conf_file(a.name), text, { mode = tonumber("0644", 8) })
      conf = true
   end
   local r = R.query(sys, "jail_enable", { "sysrc", "-n", "jail_enable" })
   if r.code ~= 0 or not r.stdout:upper():find("YES") then
      R.run(sys, what, { "sysrc", "jail_enable=YES" })
      changed = true
   end
   if not listed(jail_list(sys), a.name) then
      R.run(sys, what, { "sysrc", "jail_list+=" .. a.name })
      changed = true
   end
   if not is_running(sys, a.name) then
      R.run(sys, what, { "service", "jail", "start", a.name })
      changed = true
   elseif conf then
      R.run(sys, what, { "service", "jail", "restart", a.name })
      changed = true
   end
   return (changed or conf) and "changed" or "ok"
end

function impl.removed.ensure(sys, a)
   local what = "jail " .. a.name
   local changed = false
   if is_running(sys, a.name) then
      R.run(sys, what, { "service", "jail", "stop", a.name })
      changed = true
   end
   if listed(jail_list(sys), a.name) then
      R.run(sys, what, { "sysrc", "jail_list-=" .. a.name })
      changed = true
   end
   if sys:exists(conf_file(a.name)) then
      sys:remove(conf_file(a.name))
      changed = true
   end
   if sys:exists(a.path) then
      R.run(sys, what, { "chflags", "-R", "noschg", a.path })
      R.run(sys, what, { "rm", "-rfx", a.path })
      changed = true
   end
   return changed and "changed" or "ok"
end

local function container_of(v, recipe)
   if not (type(v) == "userdata" and pcall(function() return v.container end)
           and v.container == "jail") then
      return nil, fmt("%s needs a jail made by jail.container, got %s", recipe, args.got(v))
   end
   return v
end

--[[ jail.running(c)
  FreeBSD, revertable.  Makes the jail c on its host and starts it: its
  tree (base.txz of its release, fetched once into /var/cache/prop/jails),
  /etc/jail.conf.d/NAME.conf, jail_enable and jail_list in rc.conf, then
  service jail start NAME (restart when its conf changed).  Then prop run
  provisions it through jexec: every property of c runs inside it.
  Revert stops it, takes it out of jail_list and removes its conf and
  tree.  Claims: the tree (owned whole) and the conf file.
  Example:
    host "nas" { os.freebsd("14.1-RELEASE", "amd64"), jail.running(www) }
]]
function jail.running(c)
   -- A container whose arguments were wrong is reported already.
   if core.is_property(c) and c.kind == "invalid" then return c end
   local h, err = container_of(c, "jail.running")
   if not h then return core.invalid("jail running", err) end
   local name, path = C.get(h, "name"), C.get(h, "path")
   local owner = "jail " .. name .. " (" .. h.origin .. ")"
   local claims = { claim.file_owned(path, owner), claim.file_owned(path .. ".prop-new", owner),
                    claim.file_owned(conf_file(name), owner) }
   local a = { name = name, path = path, release = C.get(h, "release"), arch = C.get(h, "arch"),
               ip4 = C.get(h, "ip4"), mirror = C.get(h, "mirror"), container = h }
   local up = core.leaf{ desc = "jail " .. name .. " running", targets = "FreeBSD",
                         impl = impl.running, args = a, claims = claims, container = h }
   local down = core.leaf{ desc = "jail " .. name .. " removed", targets = "FreeBSD",
                           impl = impl.removed, args = a, claims = claims, container = h,
                           detaches = true }
   return core.pair(up, down)
end

return args.strict_module(jail, "jail")
