-- prop.apache: the Apache HTTP server on Debian and Ubuntu.

local core = require "prop.core"
local claim = core.claim

-- The fields of a core.leaf{} with those of extra (a table or nil) added.
local function with_extra(t, extra)
   for k, v in pairs(extra or {}) do t[k] = v end
   return t
end
local args = require "prop.args"
local R = require "prop.runtime"
local V = require "prop.vhost"

local apache = {}

local fmt = string.format
local concat = table.concat

local ETC = "/etc/apache2/"
local TEST = { "apache2ctl", "configtest" }
local INSTALL = "apache.installed()"

local impl = { installed = {}, site = {}, disabled = {}, module = {}, nomodule = {}, ports = {} }

function impl.installed.ensure(sys, a)
   local changed = R.apt_install(sys, "apache.installed", { a.package })
   if R.ensure_running(sys, a.package) then changed = true end
   if a.purge and V.purge_enabled(sys, a.purge) then changed = true end
   return changed and "changed" or "ok"
end

--[[ apache.installed()
  DebianLike, not revertable, port 80 (shared with Apache's sites).
  Claims: package.installed apache2.  Installs apache2 with Debian's
  default configuration, whose default site listens on port 80; a site
  declares its own ports (a TLS site 443), which Apache's sites share
  among them without P006.
  Run time: apt-installs apache2 when missing (as apt.installed), then
  starts the apache2 service when it is not running (as service.running).
  Example:
    apache.installed()
]]
function apache.installed(opts, ...)
   local err = select("#", ...) > 0 and "apache.installed takes one options table at most" or nil
   local oerr, o = args.options(opts, { purge_sites = args.boolean }, "apache.installed")
   local msg = args.join("apache.installed", err, oerr)
   if msg then return core.invalid("apache installed", msg) end
   local claims = { claim.package_installed("apache2") }
   local a = { package = "apache2" }
   local desc = "apache installed"
   if o.purge_sites then
      local dir = ETC .. "sites-enabled"
      a.purge = { what = "apache.installed", service = "apache2", install = INSTALL,
                  dir = dir, test = TEST }
      claims[#claims + 1] = claim.file_directory(dir)
      claims[#claims + 1] = claim.file_purged(dir)
      desc = "apache installed, sites-enabled purged"
   end
   return core.leaf{ desc = desc, targets = "DebianLike", impl = impl.installed,
                     args = a, claims = claims, ports = { 80 }, shares_ports = "apache",
                     norevert = 'apache.installed has no revert action: use apt.removed "apache2" to remove it' }
end

function impl.site.ensure(sys, a)
   return V.ensure_site(sys, a)
end
impl.site.verify = V.verify_site
impl.site.repair = V.repair_site

function impl.disabled.ensure(sys, a)
   return V.ensure_disabled(sys, a)
end

function impl.ports.ensure(sys, a)
   return V.ensure_site(sys, a)
end

-- A module is enabled when mods-enabled has its .load link (a2enmod
-- makes it, with its .conf and those of the modules it depends on).
local function module_enabled(sys, name)
   local st = sys:stat(ETC .. "mods-enabled/" .. name .. ".load")
   return st ~= nil
end

local function module_change(sys, a, enable)
   local st = sys:stat(ETC .. "mods-available")
   if st == nil or st.type ~= "directory" then
      if sys.dry and st == nil and enable then
         sys:note(fmt("a2enmod %s would run once apache2 is installed", a.name))
         return "changed"
      end
      if not enable and st == nil then return "ok" end
      R.fail("%s: %smods-available is missing: is apache2 installed? (%s)", a.what, ETC, INSTALL)
   end
   if module_enabled(sys, a.name) == enable then return "ok" end
   if enable and not sys:exists(ETC .. "mods-available/" .. a.name .. ".load") then
      R.fail("%s: there is no module %s (no %smods-available/%s.load)", a.what, a.name, ETC, a.name)
   end
   local on = { "a2enmod", "-q", a.name }
   local off = { "a2dismod", "-q", "-f", a.name }
   return V.run_tested(sys, a, enable and on or off, enable and off or on,
                       enable and "the module enabled" or "the module disabled")
end

function impl.module.ensure(sys, a)
   return module_change(sys, a, true)
end

function impl.nomodule.ensure(sys, a)
   return module_change(sys, a, false)
end

local function site_args(name)
   local file = name .. ".conf"
   return {
      what = "apache.site", service = "apache2", install = INSTALL, test = TEST,
      available = ETC .. "sites-available/" .. file, enabled = ETC .. "sites-enabled/" .. file,
      target = "../sites-available/" .. file,
   }
end

local function disabled_leaf(name, extra)
   local a = site_args(name)
   a.what = "apache.site_disabled"
   return core.leaf(with_extra({ desc = "apache site " .. name .. " disabled",
                                 targets = "DebianLike", impl = impl.disabled, args = a,
                                 claims = { claim.file_absent(a.enabled) } }, extra))
end

-- A site name as a2ensite takes it: without ".conf".
local function check_site_name(v, what)
   local err = V.check_name(v, what)
   if err then return err end
   if v:find("%.conf$") then
      return fmt('%s %s must be given without ".conf" (the file is NAME.conf)', what, args.show(v))
   end
   return nil, v
end

--[[ apache.site(name, content)
  DebianLike, revertable: its revert is apache.site_disabled(name).
  Claims: file.content /etc/apache2/sites-available/NAME.conf = content,
  and file.symlink /etc/apache2/sites-enabled/NAME.conf =
  ../sites-available/NAME.conf (as a2ensite makes it); and what its
  <VirtualHost> blocks say: web.name NAME:PORT for each ServerName and
  ServerAlias and port of a block (*:PORT; 80, or 443 with SSLEngine on,
  when it gives none), web.default PORT for <VirtualHost _default_:PORT>.
  Two sites of a host (or of one network) answering one name on one
  port, or two default sites of one port, are P017.  Ports: those of its
  blocks and of its Listen lines, shared with Apache's other sites
  (another service on one of them is P006).  A text prop cannot read (no
  <VirtualHost>, Include, Use, a variable in those lines) is warning
  W110: the site is then not checked.
  name: without ".conf" ("example.org", "000-default").  content: the
  VirtualHost blocks, a string.  Needs apache.installed().
  Run time: writes the file and makes the link when either differs, then
  runs apachectl configtest; when Apache refuses the configuration, the
  file and the link are put back as they were (a new site is removed)
  and the property fails with Apache's message.  When the test passes, a
  running apache2 is reloaded (gracefully).  A dry run tests nothing and
  says it would; before apache2 is installed, it says the site would be
  written once it is.
  Verify: its first plain-HTTP port answers for its first name, and not
  as a name no site has is answered (unless it is the default server for
  that port); repair: start, reload, else restart the server.
  Example:
    apache.site("example.org",
                "<VirtualHost *:80>\n  ServerName example.org\n  DocumentRoot /srv/www\n</VirtualHost>\n")
]]
function apache.site(name, content, opts)
   local desc = "apache site " .. (type(name) == "string" and name or "?")
   local msg = args.join("apache.site", (check_site_name(name, "name")),
                         (args.string(content, "content")),
                         (args.options(opts, {}, "apache.site")))
   if msg then return core.invalid(desc, msg) end
   local a = site_args(name)
   a.content = content
   local claims = { claim.file_content(a.available, content),
                    claim.file_symlink(a.enabled, a.target) }
   local ports = V.declare(claims, "apache", V.declared.apache2, content, "apache.site", name)
   local site = core.leaf{ desc = desc, targets = "DebianLike", impl = impl.site, args = a,
                           claims = claims, ports = ports,
                           shares_ports = ports and "apache" or nil }
   return core.pair(site, disabled_leaf(name))
end

--[[ apache.site_disabled(name)
  DebianLike, not revertable (use apache.site to enable a site).
  Claims: file.absent /etc/apache2/sites-enabled/NAME.conf; the file in
  sites-available is kept (as a2dissite does).
  Run time: removes the link when there is one, runs apachectl
  configtest (putting the link back and failing when Apache refuses),
  then reloads a running apache2.
  Example:
    apache.site_disabled "000-default"
]]
function apache.site_disabled(name, opts)
   local desc = "apache site " .. (type(name) == "string" and name or "?") .. " disabled"
   local msg = args.join("apache.site_disabled", (check_site_name(name, "name")),
                         (args.options(opts, {}, "apache.site_disabled")))
   if msg then return core.invalid(desc, msg) end
   return disabled_leaf(name, {
      norevert = "apache.site_disabled has no revert action: apache.site(name, content) "
         .. "enables a site with its content",
   })
end

--[[ apache.module(name)
  DebianLike, revertable: its revert disables the module (a2dismod -f).
  Claims: file.symlink /etc/apache2/mods-enabled/NAME.load =
  ../mods-available/NAME.load; the revert claims file.absent of that link.
  Run time: when mods-enabled/NAME.load is missing, a2enmod NAME (which
  enables the modules it depends on too), then apachectl configtest
  (a2dismod again and a failure when Apache refuses), then a running
  apache2 is restarted, as a new module needs.  A module that
  mods-available does not have is a failure.
  Example:
    apache.module "rewrite"
]]
function apache.module(name, opts)
   local desc = "apache module " .. (type(name) == "string" and name or "?")
   local err = args.matching(name, "name", "[%w_][%w_.-]*",
                             'a module name such as "rewrite" or "proxy_http"')
   local msg = args.join("apache.module", err, (args.options(opts, {}, "apache.module")))
   if msg then return core.invalid(desc, msg) end
   local link = ETC .. "mods-enabled/" .. name .. ".load"
   local a = { what = "apache.module", name = name, service = "apache2", test = TEST,
               reload = "restart" }
   local on = core.leaf{ desc = desc, targets = "DebianLike", impl = impl.module, args = a,
                         claims = { claim.file_symlink(link, "../mods-available/" .. name .. ".load") } }
   local off = core.leaf{ desc = desc .. " disabled", targets = "DebianLike", impl = impl.nomodule,
                          args = a, claims = { claim.file_absent(link) } }
   return core.pair(on, off)
end

--[[ apache.listen_ports(ports)
  DebianLike, not revertable.  The ports Apache listens on.
  Claims: file.content /etc/apache2/ports.conf (one "Listen PORT" line
  each).  Ports: those given, shared with apache.installed and Apache's
  sites (so apache.listen_ports { 80, 8080 } beside them is no P006;
  another service on 8080 is).
  ports: a non-empty list of port numbers.
  Run time: writes ports.conf when it differs, runs apachectl configtest
  (putting the old file back and failing when Apache refuses), then
  reloads a running apache2, which then listens on the new ports.
  Example:
    apache.listen_ports { 80, 443, 8080 }
]]
function apache.listen_ports(ports, opts)
   local err, list
   if type(ports) ~= "table" then
      err = fmt("ports must be a list of port numbers such as { 80, 8080 }, got %s",
                args.show(ports))
   else
      err, list = args.list(ports, "ports", args.port, { single = false, nonempty = true })
   end
   local msg = args.join("apache.listen_ports", err, (args.options(opts, {}, "apache.listen_ports")))
   if msg then return core.invalid("apache listen ports", msg) end
   local sorted, seen = {}, {}
   for _, p in ipairs(list) do
      if not seen[p] then
         seen[p] = true
         sorted[#sorted + 1] = p
      end
   end
   table.sort(sorted)
   local lines = { "# Written by prop (apache.listen_ports): the ports Apache listens on." }
   for _, p in ipairs(sorted) do
      lines[#lines + 1] = "Listen " .. p
   end
   local content = concat(lines, "\n") .. "\n"
   local a = { what = "apache.listen_ports", service = "apache2", install = INSTALL, test = TEST,
               available = ETC .. "ports.conf", content = content }
   return core.leaf{ desc = "apache listens on " .. concat(sorted, " "), targets = "DebianLike",
                     impl = impl.ports, args = a,
                     claims = { claim.file_content(a.available, content) },
                     ports = sorted, shares_ports = "apache",
                     norevert = "apache.listen_ports has no revert action: the ports.conf it replaced is not kept" }
end

-- In a machine that shares its host's network, apache.listen_ports says
-- which ports apache.installed's Apache takes there (prop.container):
-- they replace the port apache.installed declares.
require("prop.container").replaced_ports("apache installed", function(leaf)
   local list = type(leaf.desc) == "string" and leaf.desc:match("^apache listens on ([%d ]+)$")
   if not list then return nil end
   local ports = {}
   for p in list:gmatch("%d+") do ports[#ports + 1] = math.tointeger(tonumber(p)) end
   return ports
end)

return args.strict_module(apache, "apache")
