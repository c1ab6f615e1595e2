-- prop.systemd: systemd-nspawn machines (Propellor's Systemd.Container):
-- a Debian or Ubuntu tree that boots its own systemd, in namespaces of
-- its own, run by the parent's systemd as systemd-nspawn@NAME.service.
--
-- The tree is made as a chroot's is (see prop.container), with systemd
-- and dbus in it, so that it can boot.  Its settings are
-- /etc/systemd/nspawn/NAME.nspawn on the parent, written from the
-- container's own properties (systemd.publish, systemd.bind,
-- systemd.private_network).  Its properties run inside it: through its
-- init's namespaces (nsenter) when it runs, else with systemd-nspawn in
-- command mode, where no daemon stays (service.running is then ok with a
-- note, as in a chroot).  A running machine is entered only when its init
-- is root's and has the tree as its root (transport_container.c): another
-- user's systemd-nspawn naming the tree is refused.

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local R = require "prop.runtime"
local conf = require "prop.conf"
local C = require "prop.container"

local systemd = {}

local fmt, concat = string.format, table.concat

local machines = "/var/lib/machines"
local settings_dir = "/etc/systemd/nspawn"
local units_dir = "/etc/systemd/system"

-- What a booted tree needs besides minbase: its init, and the bus that
-- machinectl and logind talk over.
local boot_packages = "systemd,dbus"

local debian_like = { debian = true, buntish = true }

-- A machine name is a host name (systemd's rule): letters, digits, "-"
-- and ".", at most 64 characters.
local function check_machine(v, what)
   local err, n = args.matching(v, what, "[%w][%w.-]*", 'a machine name such as "web" (letters, '
                                .. 'digits, "-", ".")')
   if err then return err end
   if #n > 64 then return fmt("%s %s is longer than 64 characters", what, args.show(n)) end
   return nil, n
end

-- A path that goes into unit and settings files as it is: absolute, and
-- no blank, quote, colon, "%" or "\" (which those files would read
-- otherwise).
local function check_plain_path(v, what)
   local err, p = args.abs_path(v, what)
   if err then return err end
   if p:find("[%s\"'\\%%:;]") then
      return fmt("%s %s must not contain blanks, quotes, \":\", \";\", \"%%\" or \"\\\": "
                 .. "it is written into systemd's files", what, args.show(p))
   end
   return nil, p
end

local function unit_of(name)
   return "systemd-nspawn@" .. name .. ".service"
end

local function settings_file(name)
   return settings_dir .. "/" .. name .. ".nspawn"
end

local function dropin_dir(name)
   return units_dir .. "/" .. unit_of(name) .. ".d"
end

local function dropin_file(name)
   return dropin_dir(name) .. "/prop-directory.conf"
end

-- ---------------------------------------------------------------------
-- What the parent's files say.

-- The .nspawn file: boot the tree's init, no user namespace (the tree
-- stays owned by the parent's root, as prop made and provisions it), the
-- network and the binds the container's properties ask for.
local function settings_text(a)
   local lines = {
      "# Made by prop for the machine " .. a.name .. ": edit the site, not this file.",
      "[Exec]", "Boot=yes", "PrivateUsers=no", "",
   }
   if #a.binds > 0 then
      lines[#lines + 1] = "[Files]"
      for _, b in ipairs(a.binds) do lines[#lines + 1] = b end
      lines[#lines + 1] = ""
   end
   local veth = #a.ports > 0
   lines[#lines + 1] = "[Network]"
   lines[#lines + 1] = "Private=" .. ((a.private or veth) and "yes" or "no")
   lines[#lines + 1] = "VirtualEthernet=" .. (veth and "yes" or "no")
   for _, p in ipairs(a.ports) do lines[#lines + 1] = "Port=" .. p end
   return concat(lines, "\n") .. "\n"
end

-- The unit's drop-in when the tree is not /var/lib/machines/NAME: the
-- same command as systemd-nspawn@.service's, with --directory.  Its
-- network and user namespace come from the .nspawn file
-- (--settings=override).
local function dropin_text(a)
   return concat({
      "# Made by prop: the tree of the machine " .. a.name .. " is " .. a.path .. ".",
      "[Service]",
      "ExecStart=",
      "ExecStart=systemd-nspawn --quiet --keep-unit --boot --link-journal=try-guest "
         .. "--settings=override --machine=%i --directory=" .. a.path,
      "",
   }, "\n")
end

-- ---------------------------------------------------------------------
-- Run time, on the parent.

local impl = { nspawned = {}, removed = {} }

local function systemd_runs(sys)
   return sys:exists("/run/systemd/system")
end

-- Writes path when its content differs; true when it did.
local function put(sys, path, text)
   if sys:read(path) == text then return false end
   local dir = path:match("^(.*)/[^/]+$")
   if not sys:exists(dir) then R.run(sys, "mkdir " .. dir, { "mkdir", "-p", "--", dir }) end
   sys:write(path, text, { mode = tonumber("0644", 8) })
   return true
end

local function drop(sys, path)
   if not sys:exists(path) then return false end
   sys:remove(path)
   return true
end

local function systemctl_ok(sys, ...)
   return sys:query({ "systemctl", ... }).code == 0
end

function impl.nspawned.ensure(sys, a)
   local what = "systemd-nspawn machine " .. a.name
   local changed = C.ensure_tree(sys, what, a.path, C.tree_spec(a.container))
   local conf = put(sys, settings_file(a.name), settings_text(a))
   local unit_changed
   if a.dropin then
      unit_changed = put(sys, dropin_file(a.name), dropin_text(a))
   else
      unit_changed = drop(sys, dropin_file(a.name))
      if unit_changed then drop(sys, dropin_dir(a.name)) end
   end
   changed = changed or conf or unit_changed
   if not systemd_runs(sys) then
      if a.start then
         R.fail("systemd is not running on this host: %s cannot be started (its tree and "
                .. "settings are made; systemd.nspawned(c, { start = false }) provisions the tree "
                .. "without running it)", unit_of(a.name))
      end
      sys:note("systemd is not running on this host: " .. unit_of(a.name)
               .. " is not started (start = false)")
      return changed and "changed" or "ok"
   end
   local unit = unit_of(a.name)
   if unit_changed then R.run(sys, "systemctl daemon-reload", { "systemctl", "daemon-reload" }) end
   if not a.start then
      if conf and systemctl_ok(sys, "is-active", "--quiet", unit) then
         sys:note(unit .. " runs: restart it for its new settings (start = false: prop does not)")
      end
      return changed and "changed" or "ok"
   end
   for _, u in ipairs { "machines.target", unit } do
      if not systemctl_ok(sys, "is-enabled", "--quiet", u) then
         R.run(sys, "enable " .. u, { "systemctl", "enable", u })
         changed = true
      end
   end
   if not systemctl_ok(sys, "is-active", "--quiet", unit) then
      R.run(sys, "start " .. unit, { "systemctl", "start", unit })
      sys:note((sys.dry and "would start " or "started ") .. unit)
      changed = true
   elseif conf or unit_changed then
      R.run(sys, "restart " .. unit, { "systemctl", "restart", unit })
      sys:note((sys.dry and "would restart " or "restarted ") .. unit .. " for its new settings")
      changed = true
   end
   return changed and "changed" or "ok"
end

function impl.removed.ensure(sys, a)
   local what = "systemd-nspawn machine " .. a.name
   local unit = unit_of(a.name)
   local changed = false
   if systemd_runs(sys) then
      if systemctl_ok(sys, "is-active", "--quiet", unit) then
         R.run(sys, "stop " .. unit, { "systemctl", "stop", unit })
         changed = true
      end
      if systemctl_ok(sys, "is-enabled", "--quiet", unit) then
         R.run(sys, "disable " .. unit, { "systemctl", "disable", unit })
         changed = true
      end
   end
   changed = drop(sys, settings_file(a.name)) or changed
   if drop(sys, dropin_file(a.name)) then
      drop(sys, dropin_dir(a.name))
      if systemd_runs(sys) then
         R.run(sys, "systemctl daemon-reload", { "systemctl", "daemon-reload" })
      end
      changed = true
   end
   changed = C.remove_tree(sys, what, a.path) or changed
   return changed and "changed" or "ok"
end

-- ---------------------------------------------------------------------
-- The container and its properties.

local container_opts = {
   path = check_plain_path,
   variant = function(v, what)
      return args.matching(v, what, "[%w-]+", 'a debootstrap variant such as "minbase"')
   end,
   mirror = function(v, what)
      return args.matching(v, what, "https?://[%w%-%.:%[%]_~/%%@]+",
                           'a URL such as "http://deb.debian.org/debian"')
   end,
   include = function(v, what)
      local err, list = args.list(v, what, function(x, w)
         return args.matching(x, w, "[a-z0-9][a-z0-9+.-]*", "a package name")
      end, { nonempty = true })
      if err then return err end
      return nil, concat(list, ",")
   end,
   cache = args.abs_path,
   tarball = args.abs_path,
}

--[[ systemd.container(name, os, props [, { path=, include=, variant=, mirror=, cache=, tarball= }])
  A container: a systemd-nspawn machine called name (a host name: letters,
  digits, "-", "."), running Debian or Ubuntu (os.debian(...) or
  os.buntish(...)), whose properties are props, checked against that OS.
  Its tree is /var/lib/machines/NAME unless path is given (absolute, with
  no blank, quote, ":", ";", "%" or "\").  It is made by systemd.nspawned
  as a chroot's is (debootstrap, variant minbase unless told, then the
  tarball cache), with systemd and dbus added to include so that it can
  boot; a tarball given instead is unpacked as it is, and must hold
  systemd to boot.  Among props, systemd.publish, systemd.bind and
  systemd.private_network say how it is run.  Its name for prop run is
  "box/NAME".
  Example:
    local web = systemd.container("web", os.debian("bookworm", "amd64"), {
      apt.installed { "nginx" }, service.running "nginx",
      systemd.publish(8080, 80),
    })
]]
function systemd.container(name, os_, props, opts)
   local desc = "systemd-nspawn machine " .. (type(name) == "string" and name or "?")
   local oerr, o = args.options(opts, container_opts, "systemd.container")
   local nerr, n = check_machine(name, "name")
   local serr, s = C.check_os(os_, "os", debian_like)
   local lerr = C.check_props(props, "properties")
   local msg = args.join("systemd.container", nerr, serr, lerr, oerr)
   if msg then return core.invalid(desc, msg) end
   local path = o.path and o.path:gsub("/+$", "") or machines .. "/" .. n
   if path == "" then
      return core.invalid(desc, "systemd.container: path must not be / : a machine's tree is a "
                          .. "directory of its own")
   end
   local include = boot_packages
   if o.include then include = include .. "," .. o.include end
   local info = { "path", path, "name", n, "family", s.family, "suite", s.suite, "arch", s.arch }
   if not o.tarball then info[#info + 1], info[#info + 2] = "include", include end
   for _, k in ipairs { "variant", "mirror", "cache", "tarball" } do
      if o[k] then info[#info + 1], info[#info + 2] = k, o[k] end
   end
   return core.container("nspawn", n, { os_, C.info(desc, info), C.expand_roles(n, props, { os_ }) })
end

--[[ systemd.publish(host_port, container_port [, { protocol = "tcp" | "udp" }])
  A property of a systemd.container: the parent's host_port is forwarded
  to the machine's container_port (Port= in its .nspawn file; the
  machine then gets a network of its own, a veth link to the parent).
  host_port is one of the parent's ports: the pre-pass checks it against
  the parent's own ports and other containers' (P014).
  Example:
    systemd.container("web", os.debian("bookworm", "amd64"), { systemd.publish(8080, 80) })
]]
function systemd.publish(host_port, container_port, opts)
   local herr, h = args.port(host_port, "host port")
   local cerr, c = args.port(container_port, "container port")
   local oerr, o = args.options(opts, {
      protocol = function(v, what) return args.matching(v, what, "[tu][cd]p", '"tcp" or "udp"') end,
   }, "systemd.publish")
   local msg = args.join("systemd.publish", herr, cerr, oerr)
   local desc = fmt("systemd publish %s -> %s", tostring(host_port), tostring(container_port))
   if msg then return core.invalid(desc, msg) end
   local proto = o.protocol or "tcp"
   return C.info(fmt("systemd publish %s %d -> %d", proto, h, c),
                 { "publish", fmt("%s:%d:%d", proto, h, c) })
end

--[[ systemd.bind(path [, container_path] [, { readonly = true, host_root = true }])
  A property of a systemd.container: the parent's directory path is
  mounted in the machine, at container_path (else at the same path);
  read-only when told.  Both paths are absolute, with no blank, quote,
  ":", ";", "%" or "\".  A path that gives the machine the parent's root
  (/ itself, the Docker socket /run/docker.sock or /var/run/docker.sock,
  or /run and /var/run that hold it) is warning W109 unless host_root =
  true says it is meant.
  Example:
    systemd.container("web", os.debian("bookworm", "amd64"), { systemd.bind("/srv/www", "/var/www") })
]]
function systemd.bind(path, inside, opts)
   if args.is_options(inside) and opts == nil then inside, opts = nil, inside end
   local perr, p = check_plain_path(path, "path")
   local ierr, i = nil, nil
   if inside ~= nil then ierr, i = check_plain_path(inside, "container path") end
   local oerr, o = args.options(opts, { readonly = args.boolean, host_root = args.boolean },
                                "systemd.bind")
   local msg = args.join("systemd.bind", perr, ierr, oerr)
   local desc = "systemd bind " .. tostring(path)
   if msg then return core.invalid(desc, msg) end
   local why = not o.host_root and C.host_root(p)
   if why then C.warn_host_root("systemd.bind", "path " .. args.show(path), why) end
   local key = o.readonly and "BindReadOnly=" or "Bind="
   local spec = i and i ~= p and (p .. ":" .. i) or p
   return C.info("systemd bind " .. spec .. (o.readonly and " (read-only)" or ""),
                 { "bind", key .. spec })
end

--[[ systemd.private_network()
  A property of a systemd.container: the machine gets a network of its
  own with only a loopback interface (Private=yes), instead of sharing the
  parent's.  (systemd.publish gives it a veth link to the parent.)
  Example:
    systemd.container("batch", os.debian("bookworm", "amd64"), { systemd.private_network() })
]]
function systemd.private_network()
   return C.info("systemd private network", { "private_network", "yes" })
end

local function container_of(v, recipe)
   if not (type(v) == "userdata" and pcall(function() return v.container end)
           and v.container == "nspawn") then
      return nil, fmt("%s needs a machine made by systemd.container, got %s", recipe, args.got(v))
   end
   return v
end

--[[ systemd.nspawned(c [, { start = false }])
  DebianLike, revertable.  Makes the machine c on its host and runs it:
  its tree (see systemd.container), /etc/systemd/nspawn/NAME.nspawn, a
  drop-in for systemd-nspawn@NAME.service when the tree is not
  /var/lib/machines/NAME, then the unit enabled and started (restarted
  when its settings changed).  Then prop run provisions the machine:
  every property of c runs inside it.  This needs systemd as the host's
  init: where it is not, the property fails, saying so, unless start =
  false, which makes and provisions the tree and writes its settings but
  neither enables nor starts the machine.  Revert stops and disables it
  and removes its settings, drop-in and tree.
  Claims: the tree (owned whole), the .nspawn file and the drop-in.
  Ports: each systemd.publish's host port.
  Example:
    host "box" { os.debian("bookworm", "amd64"), systemd.nspawned(web) }
]]
function systemd.nspawned(c, opts)
   -- A container whose arguments were wrong is reported already.
   if core.is_property(c) and c.kind == "invalid" then return c end
   local h, err = container_of(c, "systemd.nspawned")
   local oerr, o = args.options(opts, { start = args.boolean }, "systemd.nspawned")
   local msg = args.join("systemd.nspawned", err, oerr)
   if msg then return core.invalid("systemd nspawned", msg) end
   local path, name = C.get(h, "path"), C.get(h, "name")
   local ports, published = {}, {}
   for _, p in ipairs(h:info("container.publish")) do
      published[#published + 1] = p
      ports[#ports + 1] = math.tointeger(tonumber(p:match(":(%d+):")))
   end
   local binds = {}
   for _, b in ipairs(h:info("container.bind")) do binds[#binds + 1] = b end
   -- The value names the container (and where it is declared): two
   -- machines of one name own one tree, which is P007.
   local owner = "systemd-nspawn machine " .. name .. " (" .. h.origin .. ")"
   local dropin = path ~= machines .. "/" .. name
   local claims = { claim.file_owned(path, owner), claim.file_owned(path .. ".prop-new", owner),
                    claim.file_owned(settings_file(name), owner) }
   if dropin then claims[#claims + 1] = claim.file_owned(dropin_file(name), owner) end
   local a = { path = path, name = name, container = h, ports = published, binds = binds,
               private = C.get(h, "private_network") == "yes", dropin = dropin,
               start = o.start ~= false }
   local what = "systemd-nspawn machine " .. name
   if dropin then what = what .. " (" .. path .. ")" end
   -- Without a network of its own the machine's services listen on the
   -- host's ports: they are the host's, for P006 and sys.ports.
   local shared = nil
   if #ports == 0 and not a.private then
      shared = C.used_ports(h)
      if #shared == 0 then shared = nil end
   end
   local up = core.leaf{ desc = what .. " nspawned", targets = "DebianLike", impl = impl.nspawned,
                         args = a, claims = claims, container = h,
                         ports = #ports > 0 and ports or shared, publishes = #ports > 0 }
   local down = core.leaf{ desc = what .. " removed", targets = "DebianLike", impl = impl.removed,
                           args = a, claims = claims, container = h, detaches = true }
   return core.pair(up, down)
end

-- ---------------------------------------------------------------------
-- Units of the host's own systemd: unit files, their state (enabled,
-- started, masked) and journald's settings.  Linux: Debian, Ubuntu, the
-- Red Hat family and Arch have the same systemctl and unit paths.  In a
-- chroot or a machine that is not booted, systemctl works on the files only, as it
-- does offline, and nothing is started, reloaded or restarted.  A
-- connect.dir tree runs no command: unit files, masks and journald's
-- drop-ins (files and links) are written there, enabling fails.

local unit_impl = { unit = {}, unit_absent = {}, enabled = {}, disabled = {}, started = {},
                    stopped = {}, masked = {}, unmasked = {}, dropin = {}, dropin_absent = {} }

local CHECK_DIR = "/run/prop-unit-check"
local JOURNALD_D = "/etc/systemd/journald.conf.d"

local function systemctl(...)
   return { "systemctl", ... }
end

-- Why the target's systemd cannot be asked to reload or (re)start
-- anything now, or nil when it can.
local function not_live(sys)
   if R.is_dir_tree(sys) then return "a directory tree runs no systemd of its own" end
   local why = R.no_daemons(sys)
   if why then return why end
   if not sys:exists("/run/systemd/system") then return "systemd is not running there" end
   return nil
end

local function has_systemctl(sys, what)
   if sys:exists("/bin/systemctl") or sys:exists("/usr/bin/systemctl") then
      return true
   end
   if not sys.dry then R.fail("%s: systemd is not installed on the target (no systemctl)", what) end
   sys:note("systemd is not installed (an earlier property may install it)")
   return false
end

local function daemon_reload(sys)
   local why = not_live(sys)
   if why then return end
   R.run(sys, "systemctl daemon-reload", systemctl("daemon-reload"))
end

function unit_impl.unit.ensure(sys, a)
   local what = "systemd.unit " .. a.name
   local st = sys:stat(a.path)
   if st and st.type ~= "file" then
      R.fail("%s: %s is a %s, not a file%s", what, a.path, st.type,
             st.type == "link" and st.target == "/dev/null" and " (a masked unit: unmask it first)"
             or "")
   end
   if st and sys:read(a.path) == a.content then
      local fix = R.attrs_to_fix(st, { mode = "0644" })
      if fix == nil then return "ok" end
      sys:chattr(a.path, fix)
      return "changed"
   end
   local analyze = not R.is_dir_tree(sys) and (sys:exists("/usr/bin/systemd-analyze")
                                               or sys:exists("/bin/systemd-analyze"))
   if sys.dry then
      if analyze and not a.template then
         sys:note("would check the new unit with systemd-analyze verify before it replaces the old one")
      end
   elseif a.template then
      sys:note("a template is not checked with systemd-analyze verify (only its instances could be)")
   elseif R.is_dir_tree(sys) then
      sys:note("not checked with systemd-analyze verify: a directory tree runs no command")
   elseif not analyze then
      sys:note("not checked: systemd-analyze is not installed on the target")
   else
      -- The check copy has the unit's own name, in a directory of its own
      -- that systemd never loads units from.
      if not sys:exists(CHECK_DIR) then sys:mkdir(CHECK_DIR, { mode = tonumber("0700", 8) }) end
      sys:write(a.check, a.content, { mode = tonumber("0644", 8) })
      -- Its messages to stderr, always: run as the first process of a
      -- namespace (a chroot's), systemd's tools would log to the kernel.
      local ok, r = pcall(sys.query, sys, { "env", "SYSTEMD_LOG_TARGET=console", "systemd-analyze",
                                            "verify", "--man=no", a.check })
      local rok, rerr = pcall(sys.remove, sys, a.check)
      pcall(sys.remove, sys, CHECK_DIR)
      if not ok then error(r, 0) end
      if not rok then error(rerr, 0) end
      local said = R.tail((((r.stderr or "") .. "\n" .. (r.stdout or "")):gsub("\r", "")), 6)
      said = said:gsub((a.check:gsub("%p", "%%%0")), (a.path:gsub("%%", "%%%%")))
      said = said:gsub("\n", "; ")
      if r.code ~= 0 then
         R.fail("%s: systemd-analyze verify refuses the new unit, %s is left as it was: %s",
                what, a.path, said)
      end
      if said ~= "" then sys:note("systemd-analyze verify: " .. said) end
   end
   sys:write(a.path, a.content, { mode = tonumber("0644", 8) })
   daemon_reload(sys)
   return "changed"
end

function unit_impl.unit_absent.ensure(sys, a)
   local st = sys:stat(a.path)
   if st == nil then return "ok" end
   if st.type == "directory" then R.fail("systemd.unit %s (revert): %s is a directory", a.name, a.path) end
   sys:remove(a.path)
   daemon_reload(sys)
   return "changed"
end

-- systemctl is-enabled's word for the unit ("enabled", "masked", ...).
local function unit_state(sys, what, name)
   local r = R.query(sys, what, systemctl("is-enabled", name))
   return r.stdout:match("%S+") or "", r
end

local enabled_states = { enabled = true, ["enabled-runtime"] = true, static = true, alias = true,
                         indirect = true, generated = true }

function unit_impl.enabled.ensure(sys, a)
   local what = "systemd.enabled " .. a.name
   if not has_systemctl(sys, what) then return "changed" end
   local state, r = unit_state(sys, what, a.name)
   if enabled_states[state] then return "ok" end
   if state == "masked" or state == "masked-runtime" then
      R.fail("%s: the unit is masked (systemd.masked's revert unmasks it)", what)
   end
   if state == "" and not sys.dry then
      R.fail("%s: systemctl does not know the unit: %s", what, R.tail(r.stderr, 2))
   end
   R.run(sys, what, systemctl("enable", a.name))
   return "changed"
end

function unit_impl.disabled.ensure(sys, a)
   local what = "systemd.enabled " .. a.name .. " (revert)"
   if not has_systemctl(sys, what) then return "changed" end
   local state = unit_state(sys, what, a.name)
   if state ~= "enabled" and state ~= "enabled-runtime" then return "ok" end
   R.run(sys, what, systemctl("disable", a.name))
   return "changed"
end

function unit_impl.started.ensure(sys, a)
   local why = not_live(sys)
   if why then
      sys:note(fmt("%s not started: %s", a.name, why))
      return "ok"
   end
   local r = R.query(sys, "systemd.started " .. a.name, systemctl("is-active", "--quiet", a.name))
   if r.code == 0 then return "ok" end
   R.run(sys, "systemd.started " .. a.name, systemctl("start", a.name))
   return "changed"
end

function unit_impl.stopped.ensure(sys, a)
   if not_live(sys) then return "ok" end
   local r = R.query(sys, "systemd.started " .. a.name, systemctl("is-active", "--quiet", a.name))
   if r.code ~= 0 then return "ok" end
   R.run(sys, "systemd.started " .. a.name .. " (revert)", systemctl("stop", a.name))
   return "changed"
end

-- Probes: the unit's state now, from systemctl show.  Where no systemd
-- runs there is nothing to see: they hold.
local function unit_show(sys, name)
   local r = R.query(sys, "systemd " .. name, systemctl("show", name, "-p", "ActiveState", "-p",
                                                      "SubState", "-p", "Result", "-p", "Type",
                                                      "-p", "RemainAfterExit"))
   local p = {}
   for k, v in (r.stdout or ""):gmatch("(%w+)=([^\n]*)") do p[k] = v end
   return p
end

local function shown(name, p)
   return fmt("%s is %s (%s%s)", name, p.ActiveState or "unknown", p.SubState or "?",
              p.Result and p.Result ~= "success" and ", result " .. p.Result or "")
end

function unit_impl.started.verify(sys, a)
   if not_live(sys) then return true end
   local p = unit_show(sys, a.name)
   if p.ActiveState == "active" or p.ActiveState == "reloading" then return true end
   -- A oneshot service without RemainAfterExit is done once it ran well.
   if p.Type == "oneshot" and p.RemainAfterExit ~= "yes" and p.ActiveState == "inactive"
      and p.Result == "success" then
      return true
   end
   return false, shown(a.name, p) .. ", want active (systemctl show)"
end

function unit_impl.started.repair(sys, a)
   R.run(sys, "systemd.started " .. a.name, systemctl("start", a.name))
end

function unit_impl.stopped.verify(sys, a)
   if not_live(sys) then return true end
   local p = unit_show(sys, a.name)
   if p.ActiveState == "inactive" or p.ActiveState == "failed" then return true end
   return false, shown(a.name, p) .. ", want inactive (systemctl show)"
end

function unit_impl.stopped.repair(sys, a)
   R.run(sys, "systemd.started " .. a.name .. " (revert)", systemctl("stop", a.name))
end

function unit_impl.enabled.verify(sys, a)
   if not (sys:exists("/bin/systemctl") or sys:exists("/usr/bin/systemctl")) then return true end
   local state = unit_state(sys, "systemd.enabled " .. a.name, a.name)
   if enabled_states[state] then return true end
   return false, fmt("%s is %s (systemctl is-enabled), want enabled", a.name,
                     state ~= "" and state or "unknown")
end

unit_impl.enabled.repair = unit_impl.enabled.ensure

function unit_impl.masked.ensure(sys, a)
   local what = "systemd.masked " .. a.name
   local st = sys:stat(a.path)
   if st and st.type == "link" and st.target == "/dev/null" then return "ok" end
   if st and st.type == "file" then
      R.fail("%s: %s is a unit file of its own, which systemctl mask would not replace "
             .. "(remove it first: revert the systemd.unit that writes it)", what, a.path)
   end
   if st and st.type ~= "link" then
      R.fail("%s: %s is a %s", what, a.path, st.type)
   end
   if not not_live(sys) then
      local r = R.query(sys, what, systemctl("is-active", "--quiet", a.name))
      if r.code == 0 then
         R.run(sys, what, systemctl("stop", a.name))
         sys:note((sys.dry and "would stop " or "stopped ") .. a.name)
      end
   end
   -- The link systemctl mask makes, made as a file operation: it works
   -- where no command runs (a tree) and without systemd installed.
   sys:symlink("/dev/null", a.path)
   daemon_reload(sys)
   return "changed"
end

function unit_impl.unmasked.ensure(sys, a)
   local st = sys:stat(a.path)
   if not (st and st.type == "link" and st.target == "/dev/null") then return "ok" end
   sys:remove(a.path)
   daemon_reload(sys)
   return "changed"
end

local function restart_journald(sys)
   local why = not_live(sys)
   if why then
      sys:note("systemd-journald not restarted: " .. why)
      return
   end
   R.run(sys, "restart systemd-journald", systemctl("restart", "systemd-journald"))
end

function unit_impl.dropin.ensure(sys, a)
   local changed = false
   if not sys:exists(JOURNALD_D) then
      sys:mkdir(JOURNALD_D, { mode = tonumber("0755", 8) })
      changed = true
   end
   changed = R.ensure_content(sys, a.what, a.path, a.content, { mode = "0644" }) or changed
   if changed then restart_journald(sys) end
   return changed and "changed" or "ok"
end

function unit_impl.dropin_absent.ensure(sys, a)
   if sys:stat(a.path) == nil then return "ok" end
   sys:remove(a.path)
   restart_journald(sys)
   return "changed"
end

-- A unit name: a name and a type that has unit files.  "@" makes a
-- template (name@.service) or an instance (name@x.service).
local unit_types = { service = true, socket = true, timer = true, target = true, path = true,
                     mount = true, automount = true, swap = true, slice = true, device = true }

local function check_unit(v, what)
   local err = args.matching(v, what, "[%w:_.\\@-]+",
                             'a unit name such as "backup.service" or "getty@tty1.service"')
   if err then return err end
   local suffix = v:match("%.(%a+)$")
   if not suffix or not unit_types[suffix] then
      return fmt("%s %s has no unit type: expected a name ending in .service, .socket, .timer, "
                 .. ".target, .path, .mount, .automount, .swap or .slice", what, args.show(v))
   end
   if v:sub(1, 1) == "." or v:sub(1, 1) == "-" or #v > 255 then
      return fmt("%s %s is not a valid unit name", what, args.show(v))
   end
   return nil, v
end

-- A unit whose state is set: a plain name is a service.
local function check_unit_or_service(v, what)
   if type(v) == "string" and not v:find("%.%a+$") and v:find("^[%w:_.\\@-]+$") then
      v = v .. ".service"
   end
   return check_unit(v, what)
end

local function unit_path(name)
   return units_dir .. "/" .. name
end

--[[ systemd.unit(name, content)
  Linux, revertable: its revert removes the unit file (and reloads
  systemd); a unit still running keeps running until stopped.
  Claims: file.content /etc/systemd/system/NAME = content, and
  file.generated for its check copy /run/prop-unit-check/NAME and that
  directory.
  name: a unit name with its type (".service", ".socket", ".timer", ...);
  a template ("name@.service") is not checked.  content: the unit file.
  Run time: when the file differs, the new content is first written as
  /run/prop-unit-check/NAME and checked with systemd-analyze verify
  --man=no (when the target has it); a refusal fails with its message and
  leaves the old file; warnings are noted.  Then the file is written
  (0644) and, where systemd runs, systemctl daemon-reload: only on a
  change.  It neither enables nor starts the unit (systemd.enabled,
  systemd.started), nor restarts it: chain :on_change(service.restarted(name)).
  Example:
    systemd.unit("backup.service", [=[
    [Unit]
    Description=Nightly backup
    [Service]
    Type=oneshot
    ExecStart=/usr/local/bin/backup
    ]=])
]]
function systemd.unit(name, content, opts)
   local desc = "systemd unit " .. (type(name) == "string" and name or "?")
   local nerr = check_unit(name, "name")
   local cerr = args.nonempty_string(content, "content")
   local msg = args.join("systemd.unit", nerr, cerr, (args.options(opts, {}, "systemd.unit")))
   if msg then return core.invalid(desc, msg) end
   if content:sub(-1) ~= "\n" then content = content .. "\n" end
   local a = { name = name, path = unit_path(name), check = CHECK_DIR .. "/" .. name,
               content = content, template = name:find("@%.%a+$") ~= nil }
   local up = core.leaf{ desc = desc, targets = "Linux", impl = unit_impl.unit, args = a,
                         claims = { claim.file_content(a.path, content),
                                    claim.file_generated(CHECK_DIR, "systemd.unit"),
                                    claim.file_generated(a.check, "systemd.unit") } }
   local down = core.leaf{ desc = desc .. " absent", targets = "Linux",
                           impl = unit_impl.unit_absent, args = a,
                           claims = { claim.file_absent(a.path) } }
   return core.pair(up, down)
end

-- The state of a unit as a setting of /etc/systemd/system, where
-- systemctl keeps it (links): enabled, disabled and masked of one unit
-- on a host are P007.
local function state_claim(name, state)
   return { claim.file_setting(units_dir, conf.claim(name, state)) }
end

local function state_pair(recipe, name, opts, up_which, down_which, up_state, down_state, extra)
   local desc = "systemd " .. (type(name) == "string" and name or "?")
   local nerr, n = check_unit_or_service(name, "unit")
   local msg = args.join("systemd." .. recipe, nerr, (args.options(opts, {}, "systemd." .. recipe)))
   if msg then return core.invalid(desc .. " " .. recipe, msg) end
   local a = { name = n, path = unit_path(n) }
   local upc = up_state and state_claim(n, up_state) or {}
   for _, x in ipairs(extra or {}) do upc[#upc + 1] = x end -- claims too
   local downc = down_state and state_claim(n, down_state) or nil
   local up = core.leaf{ desc = "systemd " .. n .. " " .. up_which, targets = "Linux",
                         impl = unit_impl[up_which], args = a, claims = upc }
   local down = core.leaf{ desc = "systemd " .. n .. " " .. down_which, targets = "Linux",
                           impl = unit_impl[down_which], args = a, claims = downc }
   return core.pair(up, down)
end

--[[ systemd.enabled(unit)
  Linux, revertable: its revert disables the unit.
  Claims: file.setting /etc/systemd/system = "UNIT=enabled" (the revert:
  "UNIT=disabled"; systemd.masked claims "UNIT=masked"), so two of them
  for one unit on a host are P007.
  unit: a unit name; a name without a type is a service ("nginx").
  Run time: systemctl is-enabled: enabled, static, alias, indirect or
  generated is ok; masked fails; else systemctl enable (which works on the
  files alone where systemd does not run, such as a chroot; a connect.dir
  tree runs no command, so it fails there).
  Verify: systemctl is-enabled says so; repair: enable.
  Example:
    systemd.enabled "backup.timer"
]]
function systemd.enabled(name, opts)
   return state_pair("enabled", name, opts, "enabled", "disabled", "enabled", "disabled")
end

--[[ systemd.started(unit)
  Linux, revertable: its revert stops the unit.
  Claims: service.running UNIT (the revert: service.stopped); a service
  is claimed by its bare name, as service.running claims it, so
  service.stopped "nginx" beside systemd.started "nginx.service" is a
  conflict.
  Run time: systemctl is-active; when inactive, systemctl start.  Where
  no systemd runs (a chroot, a machine that is not booted, a tree) it is
  ok with a note: the unit starts at boot if it is enabled.
  Verify: systemctl show: ActiveState active (a timer: waiting; a
  oneshot service without RemainAfterExit: inactive after a successful
  run), waited for up to probe_timeout; repair: systemctl start.  The
  revert's: inactive or failed; repair: systemctl stop.  Where no
  systemd runs: none.
  Example:
    systemd.started "backup.timer"
]]
function systemd.started(name, opts)
   local desc = "systemd " .. (type(name) == "string" and name or "?") .. " started"
   local nerr, n = check_unit_or_service(name, "unit")
   local msg = args.join("systemd.started", nerr, (args.options(opts, {}, "systemd.started")))
   if msg then return core.invalid(desc, msg) end
   local a = { name = n }
   -- Claimed as service.running claims it: "nginx", not "nginx.service".
   local svc = n:gsub("%.service$", "")
   return core.pair(core.leaf{ desc = "systemd " .. n .. " started", targets = "Linux",
                               impl = unit_impl.started, args = a,
                               claims = { claim.service_running(svc) } },
                    core.leaf{ desc = "systemd " .. n .. " stopped", targets = "Linux",
                               impl = unit_impl.stopped, args = a,
                               claims = { claim.service_stopped(svc) } })
end

--[[ systemd.masked(unit)
  Linux, revertable: its revert unmasks the unit.
  Claims: file.symlink /etc/systemd/system/UNIT = /dev/null and
  file.setting /etc/systemd/system = "UNIT=masked" (so a systemd.unit or a
  systemd.enabled of the same unit on the host is P007); the revert
  claims nothing (an unmasked unit may be enabled or not).
  Run time: ok when /etc/systemd/system/UNIT is already a link to
  /dev/null; a unit file of its own there fails (systemctl mask would
  not replace it); else a running unit is stopped, the link is made
  (what systemctl mask does, as a file operation: it works on a
  connect.dir tree too) and systemd reloaded where it runs.  The revert
  removes the link when it is there.
  Example:
    systemd.masked "apt-daily-upgrade.timer"
]]
function systemd.masked(name, opts)
   local _, n = check_unit_or_service(name, "unit")
   return state_pair("masked", name, opts, "masked", "unmasked", "masked", nil,
                     n and { claim.file_symlink(unit_path(n), "/dev/null") } or nil)
end

-- journald -------------------------------------------------------------------

local journald_keys = {
   "Storage", "Compress", "Seal", "SplitMode", "SyncIntervalSec", "RateLimitIntervalSec",
   "RateLimitBurst", "SystemMaxUse", "SystemKeepFree", "SystemMaxFileSize", "SystemMaxFiles",
   "RuntimeMaxUse", "RuntimeKeepFree", "RuntimeMaxFileSize", "RuntimeMaxFiles", "MaxFileSec",
   "MaxRetentionSec", "ForwardToSyslog", "ForwardToKMsg", "ForwardToConsole", "ForwardToWall",
   "ForwardToSocket", "TTYPath", "MaxLevelStore", "MaxLevelSyslog", "MaxLevelKMsg",
   "MaxLevelConsole", "MaxLevelWall", "MaxLevelSocket", "ReadKMsg", "Audit", "LineMax",
}
local journald_schema = {}
for _, k in ipairs(journald_keys) do
   journald_schema[k] = function(v, what)
      if type(v) == "boolean" then return nil, v and "yes" or "no" end
      local err, s = conf.check_value(v, what)
      if err then return err end
      if s == "" then return what .. " must not be empty" end
      return nil, s
   end
end

local function journald_text(recipe, o)
   local lines = { fmt("# Written by prop (%s): edits here are overwritten.", recipe), "[Journal]" }
   for _, k in ipairs(journald_keys) do
      if o[k] ~= nil then lines[#lines + 1] = k .. "=" .. o[k] end
   end
   return table.concat(lines, "\n") .. "\n"
end

local function journald_pair(recipe, desc, file, text)
   local path = JOURNALD_D .. "/" .. file
   local a = { what = recipe, path = path, content = text }
   local up = core.leaf{ desc = desc, targets = "Linux", impl = unit_impl.dropin, args = a,
                         claims = { claim.file_directory(JOURNALD_D),
                                    claim.file_content(path, text) } }
   local down = core.leaf{ desc = desc .. " (removed)", targets = "Linux",
                           impl = unit_impl.dropin_absent, args = a,
                           claims = { claim.file_absent(path) } }
   return core.pair(up, down)
end

--[[ systemd.journald_persistent()
  Linux, revertable: its revert removes the drop-in (journald's
  default, Storage=auto, then keeps the journal on disk only where
  /var/log/journal exists).
  Claims: file.directory /etc/systemd/journald.conf.d and file.content
  of its 50-prop-persistent.conf.
  The journal kept on disk across boots: Storage=persistent, in a
  drop-in.  Run time: writes the drop-in (0644) when it differs, then
  restarts systemd-journald where systemd runs (journald makes
  /var/log/journal itself).
  Example:
    systemd.journald_persistent()
]]
function systemd.journald_persistent(...)
   local n = select("#", ...)
   local o = ...
   if n > 1 or (o ~= nil and not (type(o) == "table" and next(o) == nil)) then
      return core.invalid("systemd journald persistent",
                          "systemd.journald_persistent takes no arguments")
   end
   return journald_pair("systemd.journald_persistent", "systemd journald persistent",
                        "50-prop-persistent.conf",
                        journald_text("systemd.journald_persistent", { Storage = "persistent" }))
end

--[[ systemd.journald_configured(settings)
  Linux, revertable: its revert removes the drop-in.
  Claims: file.directory /etc/systemd/journald.conf.d and file.content
  of its 60-prop.conf (give every setting in one call: two calls with
  different settings on a host are P007).
  settings: a table of journald.conf's [Journal] keys ("SystemMaxUse",
  "Compress", ...; an unknown key is an error, with the nearest known
  one) and their values (strings, integers, or true/false for yes/no).
  Run time: writes the drop-in (0644; keys in journald.conf(5)'s order)
  when it differs, then restarts systemd-journald where systemd runs.
  It is read after 50-prop-persistent.conf: its Storage wins.
  Example:
    systemd.journald_configured { SystemMaxUse = "500M", Compress = true }
]]
function systemd.journald_configured(settings)
   local desc = "systemd journald configured"
   local err, o = args.options(settings, journald_schema, "systemd.journald_configured")
   if not err and (settings == nil or next(o) == nil) then
      err = "systemd.journald_configured: settings must not be empty (such as { SystemMaxUse = \"500M\" })"
   end
   if err then return core.invalid(desc, err) end
   local keys = {}
   for _, k in ipairs(journald_keys) do if o[k] then keys[#keys + 1] = k .. "=" .. o[k] end end
   return journald_pair("systemd.journald_configured", desc .. " " .. table.concat(keys, " "),
                        "60-prop.conf", journald_text("systemd.journald_configured", o))
end

return args.strict_module(systemd, "systemd")
