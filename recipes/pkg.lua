-- prop.pkg: FreeBSD packages through pkg(8).
--
-- FreeBSD only.  A package is named by its name ("nginx") or its origin
-- ("www/nginx").

local args = require "prop.args"
local R = require "prop.runtime"
local packaging = require "prop.packaging"

local pkg = {}

local impl = { installed = {}, removed = {}, upgraded = {}, updated = {} }


-- Run time -------------------------------------------------------------

-- The recipes run only where uname says FreeBSD: pkg(8) elsewhere is
-- another program (or none), and guessing would be worse than failing.
local function freebsd_only(sys, recipe)
   local k = R.kernel(sys)
   if k ~= "FreeBSD" then
      R.fail("%s: this target is not FreeBSD (uname says %s)", recipe, k)
   end
end

-- Whether p (a name or an origin such as "www/nginx") is installed.
local function is_installed(sys, p)
   local argv = p:find("/", 1, true) and { "pkg", "info", "-e", "-O", p } or { "pkg", "info", "-e", p }
   return R.query(sys, "pkg info", argv).code == 0
end

-- pkg at run time, for the loop of prop.runtime (R.ensure_packages).
local runtime = {
   needs = function(sys, recipe, list, _, want)
      freebsd_only(sys, recipe)
      local need = {}
      for _, p in ipairs(list) do need[p] = is_installed(sys, p) ~= want end
      return need
   end,
   argv = function(_, _, want, todo)
      local argv = want and { "pkg", "install", "-y" } or { "pkg", "delete", "-y" }
      for _, p in ipairs(todo) do argv[#argv + 1] = p end
      return argv
   end,
}

-- pkg update, at most once per host and run (pkg.updated and
-- pkg.upgraded share it): whether it fetched a new catalogue (pkg says
-- "All repositories are up to date." when there was none).  A dry run
-- cannot know, and says it would run.
local function pkg_update(sys, what)
   local up = { "pkg", "update" }
   local done = sys.cache["pkg.update"]
   if done ~= nil then return false end
   if sys.dry then
      R.run(sys, what, up)
      sys.cache["pkg.update"] = true
      return true
   end
   local r = sys:query(up)
   if r.code ~= 0 then R.command_failed(what, up, r) end
   local fresh = not (r.stdout or ""):find("All repositories are up to date", 1, true)
   sys.cache["pkg.update"] = fresh
   return fresh
end

function impl.updated.ensure(sys)
   freebsd_only(sys, "pkg.updated")
   return pkg_update(sys, "pkg.updated") and "changed" or "ok"
end

function impl.upgraded.ensure(sys)
   freebsd_only(sys, "pkg.upgraded")
   -- pkg update only refreshes the catalogue: a look, like apt.upgraded's
   -- apt-get update, so that "nothing to upgrade" is ok.
   pkg_update(sys, "pkg.upgraded")
   -- pkg upgrade -n: what would be upgraded; exit 1 when something would.
   local r = R.query(sys, "pkg.upgraded", { "pkg", "upgrade", "-n" })
   if r.code == 0 then return "ok" end
   if r.code ~= 1 then R.command_failed("pkg.upgraded", { "pkg", "upgrade", "-n" }, r) end
   R.run(sys, "pkg.upgraded", { "pkg", "upgrade", "-y" })
   return "changed"
end

local function check_package(v, what)
   return args.matching(v, what, "[%w][%w_+.@-]*/?[%w_+.@-]*",
                        'a FreeBSD package name or origin such as "nginx" or "www/nginx"')
end

local M = packaging.manager { tool = "pkg", targets = "FreeBSD", impl = impl, check = check_package,
                             runtime = runtime }
local installed, removed = M.pair("installed", "removed"), M.pair("removed", "installed")
local updated = M.no_args("updated",
   "pkg.updated has no revert action: a refreshed catalogue cannot be un-refreshed")
local upgraded = M.no_args("upgraded",
   "pkg.upgraded has no revert action: pkg cannot downgrade to the versions that were installed before")

--[[ pkg.installed(pkgs)
  FreeBSD, revertable: its revert is pkg.removed(pkgs).
  Claims: package.installed for each package.
  Run time: on a target whose uname is not FreeBSD, fails ("this target
  is not FreeBSD").  Else pkg info -e (-O for an origin) for each
  package, and pkg install -y of the missing ones.
  Example:
    pkg.installed { "nginx", "py311-certbot" }
]]
function pkg.installed(...)
   return installed(...)
end

--[[ pkg.removed(pkgs)
  FreeBSD, revertable: its revert is pkg.installed(pkgs).
  Claims: package.removed for each package.
  Run time: FreeBSD only, as pkg.installed; pkg delete -y of the
  installed ones.
  Example:
    pkg.removed "sudo"
]]
function pkg.removed(...)
   return removed(...)
end

--[[ pkg.updated()
  FreeBSD, not revertable.  The package catalogue refreshed (pkg update).
  Claims nothing.
  Run time: FreeBSD only; pkg update at most once per host and run
  (shared with pkg.upgraded): changed when it fetched a new catalogue, ok
  when pkg says all repositories are up to date.  A dry run cannot know:
  it says it would run, changed.
  Example:
    pkg.updated():before(pkg.installed "nginx")
]]
function pkg.updated(...)
   return updated(...)
end

--[[ pkg.upgraded()
  FreeBSD, not revertable.  pkg update, then pkg upgrade -y.
  Claims nothing.
  Run time: FreeBSD only; pkg update, then pkg upgrade -n: nothing to
  upgrade is ok, else pkg upgrade -y and changed.
  Example:
    pkg.upgraded()
]]
function pkg.upgraded(...)
   return upgraded(...)
end

return args.strict_module(pkg, "pkg")
