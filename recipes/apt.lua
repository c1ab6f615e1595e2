-- prop.apt: Debian and Ubuntu packages through apt.
--
-- DebianLike.  Package names follow Debian policy (lower case, digits,
-- "+", "-", "."), optionally with an architecture qualifier ("libc6:i386").

local core = require "prop.core"
local args = require "prop.args"
local R = require "prop.runtime"
local packaging = require "prop.packaging"

local apt = {}

local impl = { installed = {}, installed_min = {}, removed = {}, update = {}, upgraded = {},
               std_sources_list = {} }

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
   return core.leaf(desc, "DebianLike", impl.std_sources_list, { mirror = mirror },
                    { "file.generated", "/etc/apt/sources.list",
                      "apt.std_sources_list " .. (mirror or "default") }, {
      norevert = "apt.std_sources_list has no revert action: the old sources.list is not known",
   })
end

return args.strict_module(apt, "apt")
