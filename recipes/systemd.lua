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
-- note, as in a chroot).

local core = require "prop.core"
local args = require "prop.args"
local R = require "prop.runtime"
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
   return core.container("nspawn", n, { os_, C.info(desc, info), props })
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

--[[ systemd.bind(path [, container_path] [, { readonly = true }])
  A property of a systemd.container: the parent's directory path is
  mounted in the machine, at container_path (else at the same path);
  read-only when told.  Both paths are absolute, with no blank, quote,
  ":", ";", "%" or "\".
  Example:
    systemd.container("web", os.debian("bookworm", "amd64"), { systemd.bind("/srv/www", "/var/www") })
]]
function systemd.bind(path, inside, opts)
   if args.is_options(inside) and opts == nil then inside, opts = nil, inside end
   local perr, p = check_plain_path(path, "path")
   local ierr, i = nil, nil
   if inside ~= nil then ierr, i = check_plain_path(inside, "container path") end
   local oerr, o = args.options(opts, { readonly = args.boolean }, "systemd.bind")
   local msg = args.join("systemd.bind", perr, ierr, oerr)
   local desc = "systemd bind " .. tostring(path)
   if msg then return core.invalid(desc, msg) end
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
   local claims = { "file.owned", path, owner, "file.owned", path .. ".prop-new", owner,
                    "file.owned", settings_file(name), owner }
   if dropin then claims[#claims + 1], claims[#claims + 2], claims[#claims + 3] =
         "file.owned", dropin_file(name), owner end
   local a = { path = path, name = name, container = h, ports = published, binds = binds,
               private = C.get(h, "private_network") == "yes", dropin = dropin,
               start = o.start ~= false }
   local what = "systemd-nspawn machine " .. name
   if dropin then what = what .. " (" .. path .. ")" end
   local extra = { container = h }
   if #ports > 0 then extra.ports, extra.publishes = ports, true end
   local up = core.leaf(what .. " nspawned", "DebianLike", impl.nspawned, a, claims, extra)
   local down = core.leaf(what .. " removed", "DebianLike", impl.removed, a, claims,
                          { container = h, detaches = true })
   return core.pair(up, down)
end

return args.strict_module(systemd, "systemd")
