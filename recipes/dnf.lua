-- prop.dnf: packages of Red Hat Enterprise Linux, its rebuilds (CentOS,
-- Rocky, Alma) and Fedora, through dnf and rpm.
--
-- RedHatLike.  A package is named by its RPM name ("httpd",
-- "python3-dnf"), optionally with an architecture ("glibc.i686").

local args = require "prop.args"
local R = require "prop.runtime"
local packaging = require "prop.packaging"

local dnf = {}

local impl = { installed = {}, removed = {}, update = {}, upgraded = {} }

local fmt = string.format
local concat = table.concat

-- Run time -------------------------------------------------------------

-- dnf's own arguments for the options: --installroot, and with it the
-- release, which an empty tree cannot tell (the declared os.* release
-- unless releasever is given).
local function dnf_argv(sys, opts, ...)
   local argv = { "dnf", "-y" }
   if opts.installroot then
      argv[#argv + 1] = "--installroot=" .. opts.installroot
      local rel = opts.releasever or sys.suite
      if rel then argv[#argv + 1] = "--releasever=" .. rel end
   end
   for i = 1, select("#", ...) do argv[#argv + 1] = select(i, ...) end
   return argv
end

-- The packages of list that are not installed, as a set.  rpm -q says
-- "package NAME is not installed" for each (LC_ALL=C: that sentence).
local function not_installed(sys, recipe, list, opts)
   local argv = { "env", "LC_ALL=C", "rpm", "-q" }
   local all = {}
   for _, p in ipairs(list) do all[p] = true end
   if opts.installroot then
      -- rpm -q makes an empty database where there is none: a tree without
      -- one has nothing installed, and a look must not change it.
      local e = R.query(sys, recipe, { "rpm", "--eval", "%{_dbpath}" })
      local dbpath = e.code == 0 and e.stdout:match("^%s*(/%S*)")
      if not dbpath then R.command_failed(recipe, { "rpm", "--eval", "%{_dbpath}" }, e) end
      if not sys:exists(opts.installroot .. dbpath) then return all end
      argv[#argv + 1], argv[#argv + 2] = "--root", opts.installroot
   end
   argv[#argv + 1] = "--"
   for _, p in ipairs(list) do argv[#argv + 1] = p end
   local r = R.query(sys, recipe, argv)
   local missing, n = {}, 0
   for name in r.stdout:gmatch("package (%S+) is not installed") do
      missing[name] = true
      n = n + 1
   end
   -- rpm's exit code is the number of packages it did not find.
   if r.code ~= n and not (r.code == 255 and n > 255) then R.command_failed(recipe, argv, r) end
   return missing
end

-- dnf at run time, for the loop of prop.runtime (R.ensure_packages).
local runtime = {
   missing = not_installed,
   argv = function(sys, opts, want, todo)
      return dnf_argv(sys, opts, want and "install" or "remove", table.unpack(todo))
   end,
}

-- The repository metadata dnf keeps (dnf 4 and dnf5; in the tree with
-- installroot), by checksum: what makecache changed.
local function metadata(sys, opts)
   local root = opts.installroot or ""
   local argv = { "find", root .. "/var/cache/dnf", root .. "/var/cache/libdnf5", "-name",
                  "repomd.xml", "-exec", "cksum", "{}", "+" }
   local r = sys:query(argv)
   local lines = {}
   for l in r.stdout:gmatch("[^\n]+") do lines[#lines + 1] = l end
   table.sort(lines)
   return concat(lines, "\n")
end

function impl.update.ensure(sys, a)
   local argv = dnf_argv(sys, a.opts, "makecache")
   if sys.dry then
      R.run(sys, "dnf.update", argv)
      return "changed"
   end
   local before = metadata(sys, a.opts)
   R.run(sys, "dnf.update", argv)
   return metadata(sys, a.opts) ~= before and "changed" or "ok"
end

function impl.upgraded.ensure(sys, a)
   -- check-update: 100 when something would be upgraded, 0 when nothing,
   -- 1 on an error.  It only looks (refreshing the metadata if stale).
   local check = dnf_argv(sys, a.opts, "check-update")
   local r = R.query(sys, "dnf.upgraded", check)
   if r.code == 0 then return "ok" end
   if r.code ~= 100 then R.command_failed("dnf.upgraded", check, r) end
   local pkgs = {}
   for name in ("\n" .. r.stdout):gmatch("\n([%w_+.~-]+)%.[%w_]+%s+%S+%s+%S+") do
      pkgs[#pkgs + 1] = name
   end
   R.run(sys, "dnf.upgraded", dnf_argv(sys, a.opts, "upgrade"))
   local shown = concat(pkgs, " ", 1, math.min(#pkgs, 20))
   if #pkgs > 20 then shown = shown .. " ..." end
   sys:note(fmt("%s %d package%s%s", sys.dry and "would upgrade" or "upgraded", #pkgs,
                #pkgs == 1 and "" or "s", #pkgs > 0 and ": " .. shown or ""))
   return "changed"
end

-- Properties -------------------------------------------------------------

local function check_package(v, what)
   return args.matching(v, what, "[%w_][%w_+.~-]*",
                        'an RPM package name such as "httpd" or "glibc.i686"')
end

local function check_release(v, what)
   return args.matching(v, what, "[%w][%w._-]*", 'a release such as "9" or "41"')
end

local M = packaging.manager {
   tool = "dnf", targets = "RedHatLike", impl = impl, check = check_package, runtime = runtime,
   options = { installroot = args.abs_path, releasever = check_release },
   where = function(o) return o.installroot and " in " .. o.installroot or nil end,
}
local installed, removed = M.pair("installed", "removed"), M.pair("removed", "installed")
local update = M.no_args("update",
   "dnf.update has no revert action: refreshed metadata cannot be un-refreshed")
local upgraded = M.no_args("upgraded",
   "dnf.upgraded has no revert action: dnf cannot downgrade to the versions that were installed before")

--[[ dnf.installed(pkgs [, { installroot=, releasever= }])
  RedHatLike, revertable: its revert is dnf.removed(pkgs) with the same
  options.
  Claims: package.installed for each package (" in ROOT" after the name
  with installroot: a tree's packages are not the host's).
  pkgs: a list of RPM package names, or one name; the options may be
  given in the list: dnf.installed { "httpd", installroot = "/srv/img" }.
  installroot: install into the tree at that path of the target (dnf
  --installroot, which reads the tree's /etc/dnf and /etc/yum.repos.d
  when it has them, else the host's, and keeps its cache, logs and rpm
  database in the tree), with --releasever from releasever or else the
  host's os.* release.
  Run time: rpm -q tells which are missing; dnf -y install of those.
  dnf's message says why an install failed ("Unable to find a match").
  Example:
    dnf.installed { "httpd", "mod_ssl" }
]]
function dnf.installed(...)
   return installed(...)
end

--[[ dnf.removed(pkgs [, { installroot=, releasever= }])
  RedHatLike, revertable: its revert is dnf.installed(pkgs).
  Claims: package.removed for each package.
  Run time: rpm -q, then dnf -y remove of the installed ones (dnf removes
  what depends on them too).
  Example:
    dnf.removed "telnet"
]]
function dnf.removed(...)
   return removed(...)
end

--[[ dnf.update([{ installroot=, releasever= }])
  RedHatLike, not revertable.  Refreshes the repository metadata
  (dnf makecache), of the tree at installroot when given.
  Claims nothing.
  Run time: dnf -y makecache; changed when a repository's repomd.xml in
  dnf's cache changed, ok otherwise.  A dry run cannot know: changed.
  Example:
    dnf.update()
]]
function dnf.update(...)
   return update(...)
end

--[[ dnf.upgraded([{ installroot=, releasever= }])
  RedHatLike, not revertable.  Every package at its newest version (in
  the tree at installroot when given).
  Claims nothing.
  Run time: dnf check-update (it only looks): nothing to upgrade is ok;
  else dnf -y upgrade and changed.
  Example:
    dnf.upgraded()
]]
function dnf.upgraded(...)
   return upgraded(...)
end

return args.strict_module(dnf, "dnf")
