-- prop.apt: Debian and Ubuntu packages through apt.
--
-- DebianLike.  Package names follow Debian policy (lower case, digits,
-- "+", "-", "."), optionally with an architecture qualifier ("libc6:i386").

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local conf = require "prop.conf"
local R = require "prop.runtime"
local purge = require "prop.purge"
local packaging = require "prop.packaging"
local debconf = require "prop.apt_debconf"
local openpgp = require "prop.openpgp"

local apt = {}

local impl = { installed = {}, installed_min = {}, removed = {}, update = {}, upgraded = {},
               std_sources_list = {}, auto_upgrades = {}, reconfigured = {}, cache_cleaned = {},
               file = {}, absent = {} }

local fmt = string.format

-- Run time -------------------------------------------------------------

local function result(changed)
   return changed and "changed" or "ok"
end

function impl.installed.ensure(sys, a)
   return result(R.apt_install(sys, "apt.installed", a.packages))
end

function impl.installed_min.ensure(sys, a)
   return result(R.apt_install(sys, "apt.installed_min", a.packages, { recommends = false }))
end

function impl.removed.ensure(sys, a)
   return result(R.apt_remove(sys, "apt.removed", a.packages))
end

function impl.update.ensure(sys)
   return result(R.apt_update(sys, "apt.update"))
end

function impl.upgraded.ensure(sys)
   R.apt_update(sys, "apt.upgraded", true)
   -- What dist-upgrade would do, from a simulation (it only looks).
   local sim = R.apt_get("-s", "-q", "dist-upgrade")
   local r = R.query(sys, "apt.upgraded", sim)
   if r.code ~= 0 then R.command_failed("apt.upgraded", sim, r) end
   local pkgs = {}
   for name in r.stdout:gmatch("\nInst (%S+)") do pkgs[#pkgs + 1] = name end
   if r.stdout:find("^Inst ") then pkgs[#pkgs + 1] = r.stdout:match("^Inst (%S+)") end
   if #pkgs == 0 then return "ok" end
   table.sort(pkgs)
   R.run(sys, "apt.upgraded", R.apt_get("dist-upgrade", "-y", "-q", "-o",
         "Dpkg::Options::=--force-confdef", "-o", "Dpkg::Options::=--force-confold"))
   R.dpkg_forget(sys)
   local shown = table.concat(pkgs, " ", 1, math.min(#pkgs, 20))
   if #pkgs > 20 then shown = shown .. " ..." end
   sys:note(fmt("%s %d package%s: %s", sys.dry and "would upgrade" or "upgraded", #pkgs,
                #pkgs == 1 and "" or "s", shown))
   return "changed"
end

-- Ubuntu's version numbers, for os.buntish("24.04", ...).
local ubuntu_codenames = {
   ["18.04"] = "bionic", ["20.04"] = "focal", ["22.04"] = "jammy", ["23.04"] = "lunar",
   ["23.10"] = "mantic", ["24.04"] = "noble", ["24.10"] = "oracular", ["25.04"] = "plucky",
   ["25.10"] = "questing",
}
-- Debian suites whose security archive is "SUITE/updates" and that have
-- no non-free-firmware component.
local debian_old = { jessie = "/updates", stretch = "/updates", buster = "/updates",
                     bullseye = "-security" }
-- Suites without updates or security archives.
local debian_unstable = { sid = true, unstable = true, experimental = true, rc = true }

-- The os-release fields of the target (for hosts without os.*).
local function os_release(sys)
   local t = {}
   for k, v in (sys:read("/etc/os-release") or ""):gmatch("([%w_]+)=\"?([^\"\n]*)\"?") do t[k] = v end
   return t
end

local function sources_content(sys, mirror)
   local family, suite, arch = sys.os, sys.suite, sys.arch
   if family == nil or suite == nil then
      local rel = os_release(sys)
      family = family or (rel.ID == "ubuntu" and "buntish" or rel.ID == "debian" and "debian" or nil)
      suite = suite or rel.VERSION_CODENAME
   end
   if family ~= "debian" and family ~= "buntish" then
      R.fail("apt.std_sources_list: the target is neither Debian nor Ubuntu "
             .. "(declare os.debian or os.buntish)")
   end
   if suite == nil or suite == "" then
      R.fail("apt.std_sources_list: the host's suite is not known (declare os.debian(suite, arch))")
   end
   local lines = { fmt("# %s %s: the standard sources, written by prop (apt.std_sources_list).",
                       family == "debian" and "Debian" or "Ubuntu", suite),
                   "# Edits here are overwritten." }
   local function add(url, s, comps) lines[#lines + 1] = fmt("deb %s %s %s", url, s, comps) end
   if family == "debian" then
      mirror = mirror or "http://deb.debian.org/debian"
      local old = debian_old[suite]
      local comps = old and "main contrib non-free" or "main contrib non-free non-free-firmware"
      add(mirror, suite, comps)
      if not debian_unstable[suite] then
         add(mirror, suite .. "-updates", comps)
         add("http://deb.debian.org/debian-security", suite .. (old or "-security"), comps)
      end
   else
      suite = ubuntu_codenames[suite] or suite
      if arch == nil then
         local r = R.query(sys, "dpkg", { "dpkg", "--print-architecture" })
         arch = r.code == 0 and r.stdout:match("%S+") or "amd64"
      end
      local ports = arch ~= "amd64" and arch ~= "i386"
      local default = ports and "http://ports.ubuntu.com/ubuntu-ports" or "http://archive.ubuntu.com/ubuntu"
      local security = ports and "http://ports.ubuntu.com/ubuntu-ports" or "http://security.ubuntu.com/ubuntu"
      local comps = "main restricted universe multiverse"
      mirror = mirror or default
      add(mirror, suite, comps)
      add(mirror, suite .. "-updates", comps)
      add(security, suite .. "-security", comps)
   end
   return table.concat(lines, "\n") .. "\n"
end

function impl.std_sources_list.ensure(sys, a)
   local content = sources_content(sys, a.mirror)
   local changed = R.ensure_content(sys, "apt.std_sources_list", "/etc/apt/sources.list", content,
                                    { mode = "0644" })
   if changed and (sys:exists("/etc/apt/sources.list.d/debian.sources")
                   or sys:exists("/etc/apt/sources.list.d/ubuntu.sources")) then
      sys:note("/etc/apt/sources.list.d/ also lists the standard sources "
               .. "(apt will warn about entries configured twice)")
   end
   return result(changed)
end

local function check_package(v, what)
   local expected = 'a Debian package name such as "openssh-server" or "libc6:i386"'
   local err = args.matching(v, what, "[a-z0-9][a-z0-9+.-]*", expected)
   if err and type(v) == "string" and v:find("^[a-z0-9][a-z0-9+.-]*:[a-z0-9][a-z0-9-]*$") then
      err = nil -- with an architecture qualifier
   end
   if err then return err end
   return nil, v
end

-- pkgs: a list of names or one name; several names as separate arguments
-- are accepted too (apt.installed("a", "b")).
local M = packaging.manager {
   tool = "apt", targets = "DebianLike", impl = impl, check = check_package,
   shown = { installed_min = "installed (without recommends)" },
}
local installed, installed_min, removed =
   M.pair("installed", "removed"), M.pair("installed_min", "removed"), M.pair("removed", "installed")

--[[ apt.installed(pkgs)
  DebianLike, revertable: its revert is apt.removed(pkgs).
  Claims: package.installed for each package.
  pkgs: a list of package names, or one name.
  Run time: one dpkg-query per host and run tells what is installed; the
  missing packages are installed with apt-get install -y, with the
  packages they recommend (as apt does by default, and as Propellor's
  Apt.installed does; apt.installed_min leaves them out), without
  prompts, changed configuration files kept.  When apt cannot find a
  package it runs apt-get update once and retries.
  Example:
    apt.installed { "nginx", "certbot" }
]]
function apt.installed(...)
   return installed(...)
end

--[[ apt.installed_min(pkgs)
  DebianLike, revertable: its revert is apt.removed(pkgs).
  As apt.installed, without the recommended packages
  (apt-get install --no-install-recommends): for minimal systems and
  containers.  Claims: package.installed for each package (the same
  claim as apt.installed: the two agree).
  Example:
    apt.installed_min { "openssh-server" }
]]
function apt.installed_min(...)
   return installed_min(...)
end

--[[ apt.removed(pkgs)
  DebianLike, revertable: its revert is apt.installed(pkgs).
  Claims: package.removed for each package.  Configuration files stay
  (apt-get remove, not purge).
  Run time: apt-get remove -y of those still installed (or half
  installed); a package with only configuration files left is removed.
  Example:
    apt.removed "telnet"
]]
function apt.removed(...)
   return removed(...)
end

local update = M.no_args("update",
   "apt.update has no revert action: refreshed package lists cannot be un-refreshed")
local upgraded = M.no_args("upgraded",
   "apt.upgraded has no revert action: apt cannot downgrade to the versions that were installed before")

--[[ apt.update()
  DebianLike, not revertable.  Refreshes the package lists (apt-get update).
  Claims nothing.
  Run time: runs apt-get update (once per host and run, shared with
  apt.upgraded and apt.installed's retry); changed when the lists in
  /var/lib/apt/lists changed (names, sizes, times), ok when the mirror had
  nothing new.  A dry run cannot know: it reports changed.
  Example:
    apt.update():before(apt.installed "nginx")
]]
function apt.update(...)
   return update(...)
end

--[[ apt.upgraded()
  DebianLike, not revertable.  Every installed package at its newest
  version (apt-get update, then dist-upgrade without prompts).
  Claims nothing.
  Run time: apt-get update, then apt-get -s dist-upgrade to see what
  would be upgraded: nothing is ok; else apt-get dist-upgrade -y (changed
  configuration files kept) and changed.  A dry run does not refresh the
  lists: it says what the lists it has would upgrade.
  Example:
    apt.upgraded()
]]
function apt.upgraded(...)
   return upgraded(...)
end

--[[ apt.std_sources_list([mirror])
  DebianLike, not revertable.
  Claims: file.generated /etc/apt/sources.list ("apt.std_sources_list <mirror>").
  Writes the standard sources for the host's suite (main, security,
  updates) from mirror, by default the OS's own (deb.debian.org for
  Debian, archive.ubuntu.com for Ubuntu).
  Run time: writes /etc/apt/sources.list (0644) when it differs.  The
  suite comes from os.debian/os.buntish (else the target's os-release).
  Debian: components main contrib non-free (and non-free-firmware from
  bookworm on); SUITE, SUITE-updates, and SUITE-security from
  deb.debian.org/debian-security whatever the mirror (sid/unstable: the
  suite alone).  Ubuntu: main restricted universe multiverse; SUITE,
  -updates, -security (ports.ubuntu.com for arm64/armhf).  No deb-src.
  It does not refresh the lists: chain :on_change(apt.update()).
  Example:
    apt.std_sources_list "http://ftp.fr.debian.org/debian"
]]
function apt.std_sources_list(mirror, opts)
   local desc = "apt standard sources.list"
   if type(mirror) == "table" and opts == nil then
      -- apt.std_sources_list { mirror = "..." }
      local err, o = args.options(mirror, { mirror = args.nonempty_string }, "apt.std_sources_list")
      if err then return core.invalid(desc, err) end
      mirror = o.mirror
   elseif opts ~= nil then
      local err = args.options(opts, {}, "apt.std_sources_list")
      if err then return core.invalid(desc, err) end
   end
   if mirror ~= nil then
      local err = args.matching(mirror, "mirror", "https?://[%w%-%.:%[%]_~/%%@]+",
                                'an http:// or https:// URL such as "http://deb.debian.org/debian"')
      if err then return core.invalid(desc, "apt.std_sources_list: " .. err) end
      mirror = mirror:gsub("/+$", "")
      desc = desc .. " from " .. mirror
   end
   return core.leaf{ desc = desc, targets = "DebianLike", impl = impl.std_sources_list,
                     args = { mirror = mirror },
                     claims = { claim.file_generated("/etc/apt/sources.list", "apt.std_sources_list " .. (mirror or "default")) },
                     norevert = "apt.std_sources_list has no revert action: the old sources.list is not known" }
end

-- ---------------------------------------------------------------------
-- Files of /etc/apt written whole: sources, keys, pins, 20auto-upgrades.

local KEYRINGS = "/etc/apt/keyrings"
local SOURCES_D = "/etc/apt/sources.list.d"
local PREFERENCES_D = "/etc/apt/preferences.d"
local AUTO_UPGRADES = "/etc/apt/apt.conf.d/20auto-upgrades"
local UU_SETTINGS = "/etc/apt/apt.conf.d/51prop-unattended-upgrades"

function impl.absent.ensure(sys, a)
   local st = sys:stat(a.path)
   if st == nil then return "ok" end
   if st.type == "directory" then R.fail("%s: %s is a directory", a.what, a.path) end
   sys:remove(a.path)
   return "changed"
end

local function file_leaf(desc, a)
   local claims = { claim.file_content(a.path, a.content) }
   if a.dir then claims[#claims + 1] = claim.file_directory(a.dir) end
   return core.leaf{ desc = desc, targets = "DebianLike", impl = impl.file, args = a,
                     claims = claims }
end

local function absent_leaf(desc, what, path)
   return core.leaf{ desc = desc, targets = "DebianLike", impl = impl.absent,
                     args = { what = what, path = path }, claims = { claim.file_absent(path) } }
end

-- A name that becomes a file name under /etc/apt: apt reads only names of
-- letters, digits, "_", "-" and ".".
local function check_file_name(v, what)
   local err = args.matching(v, what, "[%w][%w_.-]*",
                             'a name of letters, digits, "_", "-" and "." such as "docker"')
   if err then return err end
   if #v > 64 then return fmt("%s %s is longer than 64 characters", what, args.show(v)) end
   return nil, v
end

-- unattended-upgrades ----------------------------------------------------

-- What dpkg-reconfigure unattended-upgrades writes for "yes" and "no".
local function auto_upgrades_text(on)
   local v = on and "1" or "0"
   return fmt('APT::Periodic::Update-Package-Lists "%s";\nAPT::Periodic::Unattended-Upgrade "%s";\n',
              v, v)
end

-- debconf keeps the answer too: a later dpkg-reconfigure or upgrade of
-- the package writes the file from it.
local function auto_upgrades_debconf(sys, on)
   if not sys.dry and not R.dpkg_installed(R.dpkg_status(sys)["unattended-upgrades"]) then
      return
   end
   R.run(sys, "apt.unattended_upgrades", { "debconf-set-selections" }, {
      stdin = fmt("unattended-upgrades unattended-upgrades/enable_auto_updates boolean %s\n",
                  on and "true" or "false"),
   })
end

-- a: { what =, path =, content =, dir = (made 0755 when missing),
-- needs = (a file that must be there, else a failure: the key a source
-- names) }.
function impl.file.ensure(sys, a)
   local changed = false
   if a.dir and not sys:exists(a.dir) then
      sys:mkdir(a.dir, { mode = tonumber("0755", 8) })
      changed = true
   end
   if a.needs and not sys:exists(a.needs) then
      if not sys.dry then
         R.fail("%s: %s is missing: write the key first (apt.key, before this property); "
                .. "apt would refuse the source without it", a.what, a.needs)
      end
      sys:note(a.needs .. " is missing (an earlier property may write it)")
   end
   changed = R.ensure_content(sys, a.what, a.path, a.content, { mode = "0644" }) or changed
   if changed and a.auto ~= nil then auto_upgrades_debconf(sys, a.auto) end
   return result(changed)
end

function impl.auto_upgrades.ensure(sys, a)
   local changed = R.apt_install(sys, "apt.unattended_upgrades", { "unattended-upgrades" })
   if a.settings then
      changed = R.ensure_content(sys, a.what, UU_SETTINGS, a.settings, { mode = "0644" }) or changed
   end
   return result(impl.file.ensure(sys, a) == "changed" or changed)
end

-- The values apt reads for key (apt-config dump: every file of
-- apt.conf.d merged), in order: a list's items ("KEY:: ..."), or the
-- values of a plain setting ("KEY ...").
local function apt_config_values(sys, key, list)
   local r = R.query(sys, "apt.unattended_upgrades", { "apt-config", "dump" })
   if r.code ~= 0 then return nil, R.tail((r.stderr or "") .. (r.stdout or ""), 2) end
   local vals = {}
   local lk = key:gsub("%p", "%%%0") .. (list and "::" or "")
   for l in (r.stdout or ""):gmatch("[^\n]+") do
      local v = l:match("^" .. lk .. ' "(.*)";$')
      if v then vals[#vals + 1] = v end
   end
   return vals
end

-- The probe: apt reads the origins and the mail address prop wrote (an
-- apt.conf.d file read later could add to them or set another).
function impl.auto_upgrades.verify(sys, a)
   if not a.settings then return true end
   if a.origins then
      local have, err = apt_config_values(sys, "Unattended-Upgrade::Origins-Pattern", true)
      if have == nil then return false, "apt-config dump fails: " .. err end
      if table.concat(have, "\n") ~= table.concat(a.origins, "\n") then
         return false, fmt("apt-config says Unattended-Upgrade::Origins-Pattern is %s, want %s "
                           .. "(another apt.conf.d file sets it too)",
                           #have > 0 and table.concat(have, ", ") or "empty",
                           table.concat(a.origins, ", "))
      end
   end
   if a.mail then
      local have, err = apt_config_values(sys, "Unattended-Upgrade::Mail", false)
      if have == nil then return false, "apt-config dump fails: " .. err end
      if have[#have] ~= a.mail then
         return false, fmt("apt-config says Unattended-Upgrade::Mail is %s, want %s (another "
                           .. "apt.conf.d file read later sets it)", have[#have] or "unset", a.mail)
      end
   end
   return true
end

-- The settings file: the origins replace the package's list (#clear),
-- the mail address is set.
local function uu_settings_text(o)
   local lines = { "// Managed by prop (apt.unattended_upgrades): edits here are overwritten." }
   if o.origins then
      lines[#lines + 1] = "#clear Unattended-Upgrade::Origins-Pattern;"
      lines[#lines + 1] = "Unattended-Upgrade::Origins-Pattern {"
      for _, x in ipairs(o.origins) do lines[#lines + 1] = fmt('    "%s";', x) end
      lines[#lines + 1] = "};"
   end
   if o.mail then lines[#lines + 1] = fmt('Unattended-Upgrade::Mail "%s";', o.mail) end
   return table.concat(lines, "\n") .. "\n"
end

local function check_apt_conf_value(x, w)
   local err = args.nonempty_string(x, w)
   if err then return err end
   if x:find('["\\\r\n]') then
      return fmt("%s %s must not contain a double quote, a backslash or a newline", w,
                 args.show(x))
   end
   return nil, x
end

--[[ apt.unattended_upgrades()
  DebianLike, revertable: its revert turns the periodic runs off again
  (the package stays).
  Claims: package.installed unattended-upgrades, and file.content
  /etc/apt/apt.conf.d/20auto-upgrades (the revert: the same file with
  "0"s).
  Run time: installs unattended-upgrades when missing, then writes
  20auto-upgrades as dpkg-reconfigure unattended-upgrades does when told
  yes: APT::Periodic::Update-Package-Lists "1" and
  APT::Periodic::Unattended-Upgrade "1" (0644).  When the file changes,
  debconf's unattended-upgrades/enable_auto_updates is set to match, so
  that a later dpkg-reconfigure or upgrade of the package keeps the
  choice.  Which upgrades are applied stays the package's own
  50unattended-upgrades (security updates by default), unless:
  origins: a list of Origins-Pattern entries
  ("origin=Debian,codename=${distro_codename},label=Debian-Security"),
  which replace the package's list; mail: the address
  unattended-upgrades mails its reports to.  They are written to
  /etc/apt/apt.conf.d/51prop-unattended-upgrades (0644; the origins after
  "#clear Unattended-Upgrade::Origins-Pattern;", so that they replace
  the list of 50unattended-upgrades rather than add to it).  The revert
  turns the runs off and leaves that file.
  Verify (with origins or mail): apt-config dump gives exactly these
  origins, and this mail address.
  Example:
    apt.unattended_upgrades()
    apt.unattended_upgrades { origins = { "origin=Debian,codename=${distro_codename},label=Debian-Security" },
                              mail = "root" }
]]
function apt.unattended_upgrades(opts, ...)
   local err
   local o = {}
   if select("#", ...) > 0 then
      err = "apt.unattended_upgrades takes one table of options"
   elseif opts ~= nil then
      err, o = args.options(opts, {
         origins = function(v, what)
            return args.list(v, what, check_apt_conf_value, { nonempty = true })
         end,
         mail = function(v, what)
            local e, x = check_apt_conf_value(v, what)
            if not e and x:find("%s") then e = fmt("%s %s must not contain blanks", what, args.show(x)) end
            return e, x
         end,
      }, "apt.unattended_upgrades")
      if err then err = "apt.unattended_upgrades: " .. err end
   end
   if err then return core.invalid("apt unattended upgrades", err) end
   local settings = (o.origins or o.mail) and uu_settings_text(o) or nil
   local on = { what = "apt.unattended_upgrades", path = AUTO_UPGRADES,
                content = auto_upgrades_text(true), auto = true, settings = settings,
                origins = o.origins, mail = o.mail }
   local off = { what = "apt.unattended_upgrades (revert)", path = AUTO_UPGRADES,
                 content = auto_upgrades_text(false), auto = false }
   local up = core.leaf{ desc = "apt unattended upgrades on", targets = "DebianLike",
                         impl = impl.auto_upgrades, args = on,
                         claims = { claim.package_installed("unattended-upgrades"),
                                    claim.file_content(AUTO_UPGRADES, on.content),
                                    settings and claim.file_content(UU_SETTINGS, settings) or nil } }
   local down = core.leaf{ desc = "apt unattended upgrades off", targets = "DebianLike",
                           impl = impl.file, args = off,
                           claims = { claim.file_content(AUTO_UPGRADES, off.content) } }
   return core.pair(up, down)
end

-- debconf ------------------------------------------------------------------

local DEBCONF_DB = "/var/cache/debconf/config.dat"
impl.reconfigured.ensure = debconf.reconfigured_ensure

--[[ apt.reconfigured(pkg, selections)
  DebianLike, not revertable (the earlier answers are not kept).
  Answers debconf's questions of pkg, then reconfigures the package
  with them, as dpkg-reconfigure does when a person answers.
  selections: a list of triples { question, type, value } as
  debconf-set-selections reads them; a boolean's value may be true or
  false.
  Claims: file.setting /var/cache/debconf/config.dat = "QUESTION=VALUE"
  for each selection (debconf's database: one question given two values
  on a host is P007).  A password selection keeps the property's values
  secret.
  Run time: pkg must be installed, or the property fails.  The values
  debconf holds are read with debconf-communicate GET (it only looks);
  when every one already matches, ok.  Otherwise the selections go
  through debconf-set-selections, then dpkg-reconfigure -fnoninteractive
  pkg runs, and the note says which answers changed.  When the answers
  do not hold afterwards (a configuration script that takes them from the
  system, as tzdata's reads /etc/localtime and unattended-upgrades' its
  20auto-upgrades), the property fails, saying which.
  Example:
    apt.reconfigured("tzdata", { { "tzdata/Areas", "select", "Europe" },
                                 { "tzdata/Zones/Europe", "select", "Paris" } })
]]
function apt.reconfigured(pkg, selections, opts)
   local desc = "apt reconfigured " .. (type(pkg) == "string" and pkg or "?")
   local perr = check_package(pkg, "package")
   if not perr and pkg:find(":", 1, true) then
      perr = fmt("package %s: name the package without an architecture", args.show(pkg))
   end
   local serr, list = args.list(selections, "selection", debconf.check_selection, { nonempty = true })
   local msg = args.join("apt.reconfigured", perr, serr,
                         (args.options(opts, {}, "apt.reconfigured")))
   if msg then return core.invalid(desc, msg) end
   local claims, secret = {}, false
   for _, s in ipairs(list) do
      claims[#claims + 1] = claim.file_setting(DEBCONF_DB, conf.claim(s[1], s[3]))
      if s[2] == "password" then secret = true end
   end
   return core.leaf{ desc = desc, targets = "DebianLike", impl = impl.reconfigured,
                     args = { package = pkg, selections = list }, claims = claims,
                     norevert = "apt.reconfigured has no revert action: the earlier answers are not known",
                     secret = secret or nil }
end

-- The package cache ----------------------------------------------------------

-- The downloads: the *.bin caches apt-get clean removes too are made
-- again by any apt command (apt-cache, apt-get), so they do not count.
local cache_argv = { "find", "/var/cache/apt/archives", "-maxdepth", "2", "-type", "f", "(",
                     "-path", "/var/cache/apt/archives/*.deb", "-o",
                     "-path", "/var/cache/apt/archives/partial/*", ")", "-printf", "%s %p\n" }

function impl.cache_cleaned.ensure(sys)
   local r = R.query(sys, "apt.cache_cleaned", cache_argv)
   local n, bytes = 0, 0
   for size in r.stdout:gmatch("(%d+) [^\n]*\n") do
      n, bytes = n + 1, bytes + tonumber(size)
   end
   if n == 0 then return "ok" end
   R.run(sys, "apt.cache_cleaned", R.apt_get("clean"))
   sys:note(fmt("%s %d downloaded file%s (%.1f MB)", sys.dry and "would remove" or "removed",
                n, n == 1 and "" or "s", bytes / 1048576))
   return "changed"
end

--[[ apt.cache_cleaned()
  DebianLike, not revertable.  The downloaded packages and the cache
  files of /var/cache/apt removed (apt-get clean).
  Claims nothing.
  Run time: looks for downloaded packages in /var/cache/apt/archives
  (and its partial/); none is ok, else apt-get clean runs (which removes
  the *.bin caches too; any apt command makes them again, so they are
  not counted), and the note says how much it freed.  Put it after the
  properties that install packages.
  Example:
    apt.cache_cleaned()
]]
function apt.cache_cleaned(...)
   local err = packaging.no_args("apt.cache_cleaned", ..., select("#", ...))
   if err then return core.invalid("apt cache cleaned", err) end
   return core.leaf{ desc = "apt cache cleaned", targets = "DebianLike", impl = impl.cache_cleaned,
                     args = {},
                     norevert = "apt.cache_cleaned has no revert action: removed downloads are gone" }
end

-- Keys --------------------------------------------------------------------------

--[[ apt.key(name, armored)
  DebianLike, revertable: its revert removes the key file.
  Claims: file.directory /etc/apt/keyrings and file.content
  /etc/apt/keyrings/NAME.asc = the key.
  name: letters, digits, "_", "-", "."; armored: an ASCII-armored
  OpenPGP public key (gpg --armor --export), checked when the site is
  read: its armor lines, its base64, its checksum and its first packet,
  so a cut or garbled key is an error of the site, never a file apt
  cannot read.  No apt-key: the key is trusted only by the sources that
  name it (apt.sources' signed_by = NAME).
  Run time: makes /etc/apt/keyrings (0755) when missing and writes the
  key there (0644) when it differs.
  Example (the key kept beside the site):
    apt.key("docker", site.file "keys/docker.asc")
]]
function apt.key(name, armored, opts)
   local desc = "apt key " .. (type(name) == "string" and name or "?")
   local nerr = check_file_name(name, "name")
   local kerr, key = openpgp.check_public_key(armored, "key")
   local msg = args.join("apt.key", nerr, kerr, (args.options(opts, {}, "apt.key")))
   if msg then return core.invalid(desc, msg) end
   local path = KEYRINGS .. "/" .. name .. ".asc"
   local a = { what = "apt.key " .. name, path = path, content = key, dir = KEYRINGS }
   return core.pair(file_leaf(desc, a), absent_leaf("apt key " .. name .. " absent",
                                                    "apt.key " .. name .. " (revert)", path))
end

-- Sources -------------------------------------------------------------------------

-- A list of words: a string (blanks separate words) or a list of strings.
local function words(pattern, expected)
   local function one(v, what)
      return args.matching(v, what, pattern, expected)
   end
   return function(v, what)
      if type(v) == "string" then
         local list = {}
         for w in v:gmatch("%S+") do list[#list + 1] = w end
         if #list == 0 then return what .. " must not be empty" end
         v = list
      end
      return args.list(v, what, one, { nonempty = true })
   end
end

local source_schema = {
   types = function(v, what)
      local err, list = words("deb[%w-]*", '"deb" or "deb-src"')(v, what)
      if err then return err end
      for _, t in ipairs(list) do
         if t ~= "deb" and t ~= "deb-src" then
            return fmt('%s %s is not valid: expected "deb" or "deb-src"', what, args.show(t))
         end
      end
      return nil, list
   end,
   uris = words("%a[%w+.-]*:[^%s]+", 'a URI such as "https://download.docker.com/linux/debian"'),
   suites = words("[%w._~+/-]+", 'a suite such as "bookworm" (or "./" for a flat repository)'),
   components = words("[%w._+/-]+", 'a component such as "main"'),
   architectures = words("[%w-]+", 'an architecture such as "amd64"'),
   languages = words("[%w_-]+", 'a language such as "en"'),
   signed_by = function(v, what)
      if type(v) == "string" and v:sub(1, 1) == "/" then
         local err = args.abs_path(v, what)
         if not err and v:find("%s") then err = what .. " must not contain blanks" end
         if err then return err end
         return nil, v
      end
      local err = check_file_name(v, what)
      if err then
         return fmt("%s must name a key of apt.key (such as \"docker\") or be an absolute path, "
                    .. "got %s", what, args.show(v))
      end
      return nil, KEYRINGS .. "/" .. v .. ".asc"
   end,
   trusted = args.boolean,
   enabled = args.boolean,
   check_valid_until = args.boolean,
}

local function sources_text(name, o)
   local lines = { fmt('# Written by prop (apt.sources "%s"): edits here are overwritten.', name) }
   local function field(k, v)
      if v ~= nil then lines[#lines + 1] = k .. ": " .. v end
   end
   local function list(v) return v and table.concat(v, " ") or nil end
   local function yes(v) if v == nil then return nil end return v and "yes" or "no" end
   field("Types", list(o.types) or "deb")
   field("URIs", list(o.uris))
   field("Suites", list(o.suites))
   field("Components", list(o.components))
   field("Architectures", list(o.architectures))
   field("Languages", list(o.languages))
   field("Signed-By", o.signed_by)
   field("Trusted", yes(o.trusted))
   field("Check-Valid-Until", yes(o.check_valid_until))
   field("Enabled", yes(o.enabled))
   return table.concat(lines, "\n") .. "\n"
end

--[[ apt.sources(name, { uris=, suites=, components=, types=, signed_by=,
                         architectures=, languages=, trusted=, enabled=,
                         check_valid_until= })
  DebianLike, revertable: its revert removes the file.
  Claims: file.content /etc/apt/sources.list.d/NAME.sources.
  A source in apt's deb822 format.  uris, suites (required) and
  components, types ("deb" by default), architectures and languages are
  lists or one string of blank-separated words; components are required
  unless every suite ends with "/" (a flat repository), and refused
  then.  signed_by: the name of an apt.key (its
  /etc/apt/keyrings/NAME.asc) or an absolute path.  trusted, enabled,
  check_valid_until: true or false (Trusted: yes ...).
  Run time: writes the file (0644) when it differs.  With signed_by,
  the key file must be there (else the property fails: apt would refuse
  the source).  It does not refresh the lists: chain
  :on_change(apt.update()).
  Example:
    apt.key("docker", site.file "keys/docker.asc")
    apt.sources("docker", { uris = "https://download.docker.com/linux/debian",
                            suites = "bookworm", components = "stable",
                            signed_by = "docker" }):on_change(apt.update())
]]
function apt.sources(name, fields)
   local desc = "apt sources " .. (type(name) == "string" and name or "?")
   local nerr = check_file_name(name, "name")
   local ferr, o = args.options(fields, source_schema, "apt.sources")
   if not ferr and fields == nil then ferr = "the fields { uris =, suites =, ... } are missing" end
   if not ferr then
      local missing = {}
      for _, k in ipairs { "uris", "suites" } do
         if o[k] == nil then missing[#missing + 1] = k end
      end
      if #missing > 0 then ferr = "missing " .. table.concat(missing, " and ") end
   end
   if not ferr then
      local flat = 0
      for _, s in ipairs(o.suites) do if s:sub(-1) == "/" then flat = flat + 1 end end
      if flat > 0 and flat < #o.suites then
         ferr = 'suites mixes flat ("./") and named suites: make two sources'
      elseif flat > 0 and o.components then
         ferr = "components must be left out for a flat repository (a suite ending with \"/\")"
      elseif flat == 0 and not o.components then
         ferr = 'components are missing (such as "main")'
      end
   end
   local msg = args.join("apt.sources", nerr, ferr)
   if msg then return core.invalid(desc, msg) end
   local path = SOURCES_D .. "/" .. name .. ".sources"
   local a = { what = "apt.sources " .. name, path = path, content = sources_text(name, o),
               needs = o.signed_by }
   return core.pair(file_leaf(desc, a), absent_leaf(desc .. " absent",
                                                    "apt.sources " .. name .. " (revert)", path))
end

--[[ apt.sources_purged()
  DebianLike, not revertable (what a purge removed is gone).
  Claims: file.directory and file.purged /etc/apt/sources.list.d.
  /etc/apt/sources.list.d holds exactly the sources the host's properties
  declare (apt.sources, docker.installed's, and any other property
  claiming a file there): at run time every other entry is removed and
  named in a note (a dry run says "would remove ..."), as
  file.directory's purge = true does.  The system's standard sources
  (debian.sources, ubuntu.sources) stay unless the host declares them
  with apt.std_sources_list (in /etc/apt/sources.list): then they go, and
  apt no longer lists them twice.  Files a package installed there stay.
  It does not refresh the lists: chain :on_change(apt.update()).
  Example:
    apt.sources_purged():on_change(apt.update())
]]
function apt.sources_purged(a, ...)
   local err = args.no_args("apt.sources_purged", a, ...)
   if err then return core.invalid("apt sources purged", err) end
   return purge.leaf{
      desc = SOURCES_D .. " holds only the site's sources", targets = "DebianLike",
      what = "apt.sources_purged", dir = SOURCES_D,
      keep = function(sys)
         local packaged = purge.packaged(sys)
         local std = #sys:claims("/etc/apt/sources.list") == 0
         return function(name, path)
            if std and (name == "debian.sources" or name == "ubuntu.sources") then
               return true
            end
            return packaged ~= nil and packaged(name, path)
         end
      end,
   }
end

-- Pins ------------------------------------------------------------------------------

-- Names of archives (Pin: release a=...); other words are codenames (n=).
local archives = { stable = true, oldstable = true, oldoldstable = true, testing = true,
                   unstable = true, experimental = true, ["proposed-updates"] = true,
                   ["stable-updates"] = true, ["stable-backports"] = true,
                   ["oldstable-backports"] = true, ["testing-updates"] = true }

local function check_release(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   if v:find("^[%w._+-]+$") then return nil, v end
   -- Terms: "x=value" joined by ","; Lua patterns have no repetition
   -- of groups, so each term is checked on its own.
   local ok = not v:find("[%s]")
   for term in (v .. ","):gmatch("([^,]*),") do
      if not term:find("^%a=[^=]+$") then ok = false end
   end
   if ok then return nil, v end
   return fmt('%s %s is not valid: expected a suite or codename such as "bookworm-backports", '
              .. 'or apt_preferences terms such as "o=Debian,a=unstable"', what, args.show(v))
end

local function pin_expr(release)
   if release:find("=", 1, true) then return "release " .. release end
   return (archives[release] and "release a=" or "release n=") .. release
end

--[[ apt.pinned(pkg, release, priority)
  DebianLike, revertable: its revert removes the pin's file.
  Claims: file.content /etc/apt/preferences.d/prop-PKG-RELEASE.pref, so
  one package pinned twice to one release with different priorities is
  P007, while pins of one package to several releases agree.
  pkg: a package name; release: a codename ("bookworm-backports",
  written "Pin: release n=..."), an archive name ("unstable",
  "stable": a=...), or apt_preferences terms ("o=Debian,a=unstable");
  priority: an integer in -32768..32767 other than 0 (above 1000 allows
  downgrades; below 0 forbids the versions).
  Run time: writes the file (0644) when it differs.  In the file name,
  characters apt does not accept there are written "_".
  Example:
    apt.pinned("linux-image-amd64", "bookworm-backports", 990)
]]
function apt.pinned(pkg, release, priority)
   local desc = fmt("apt pinned %s to %s", type(pkg) == "string" and pkg or "?",
                    type(release) == "string" and release or "?")
   local perr = check_package(pkg, "package")
   if not perr and pkg:find(":", 1, true) then
      perr = fmt("package %s: pin the package without an architecture", args.show(pkg))
   end
   local rerr = check_release(release, "release")
   local prerr
   if math.type(priority) ~= "integer" then
      prerr = fmt("priority must be an integer, got %s", args.got(priority))
   elseif priority == 0 or priority < -32768 or priority > 32767 then
      prerr = fmt("priority %d is not valid: expected an integer in -32768..32767 other than 0",
                  priority)
   end
   local msg = args.join("apt.pinned", perr, rerr, prerr)
   if msg then return core.invalid(desc, msg) end
   local file = ("prop-" .. pkg .. "-" .. release):gsub("[^%w_.-]", "_")
   local path = PREFERENCES_D .. "/" .. file .. ".pref"
   local content = fmt("# Written by prop (apt.pinned): edits here are overwritten.\n"
                       .. "Package: %s\nPin: %s\nPin-Priority: %d\n", pkg, pin_expr(release),
                       priority)
   local a = { what = "apt.pinned " .. pkg, path = path, content = content }
   return core.pair(file_leaf(fmt("%s at %d", desc, priority), a),
                    absent_leaf(desc .. " not pinned", "apt.pinned " .. pkg .. " (revert)", path))
end

-- Services of packages -------------------------------------------------------

--[[ apt.service_installed_running(pkg)
  DebianLike, revertable: its revert is apt.removed(pkg) (removing a
  package stops its service).
  Claims: package.installed pkg and service.running pkg.
  The package installed (apt.installed), then its service, of the same
  name, running (service.running; started when it is not): Propellor's
  Apt.serviceInstalledRunning.
  Example:
    apt.service_installed_running "nginx"
]]
function apt.service_installed_running(pkg, opts)
   local desc = "apt service installed running " .. (type(pkg) == "string" and pkg or "?")
   local perr = check_package(pkg, "package")
   if not perr and pkg:find(":", 1, true) then
      perr = fmt("package %s: name the package without an architecture", args.show(pkg))
   end
   local msg = args.join("apt.service_installed_running", perr,
                         (args.options(opts, {}, "apt.service_installed_running")))
   if msg then return core.invalid(desc, msg) end
   local service = require "prop.service"
   local up = core.requires(service.running(pkg), M.leaf("installed", { pkg }))
   return core.pair(up, M.leaf("removed", { pkg }))
end

return args.strict_module(apt, "apt")
