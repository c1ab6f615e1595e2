-- prop.pkg: FreeBSD packages through pkg(8).
--
-- FreeBSD only.  A package is named by its name ("nginx") or its origin
-- ("www/nginx").

local args = require "prop.args"
local R = require "prop.runtime"
local packaging = require "prop.packaging"

local pkg = {}

local impl = { installed = {}, removed = {}, upgraded = {} }


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

function impl.upgraded.ensure(sys)
   freebsd_only(sys, "pkg.upgraded")
   -- pkg update only refreshes the catalogue: run as a look, like
   -- apt.upgraded's apt-get update, so that "nothing to upgrade" is ok.
   local up = { "pkg", "update", "-q" }
   if sys.dry then R.run(sys, "pkg.upgraded", up)
   else
      local r = sys:query(up)
      if r.code ~= 0 then R.command_failed("pkg.upgraded", up, r) end
   end
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
