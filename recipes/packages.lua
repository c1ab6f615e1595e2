-- prop.packages: package management whatever the OS: the host's OS picks
-- apt (DebianLike), dnf (RedHatLike), pacman (ArchLinux) or pkg (FreeBSD).

local core = require "prop.core"
local args = require "prop.args"
local packaging = require "prop.packaging"
local apt = require "prop.apt"
local dnf = require "prop.dnf"
local pacman = require "prop.pacman"
local pkg = require "prop.pkg"

local packages = {}

local fmt = string.format

-- A name every package manager takes: Debian's rules, the strictest.
local function check_package(v, what)
   return args.matching(v, what, "[a-z0-9][a-z0-9+.-]*",
                        'a package name such as "nginx" (lower case letters, digits, "+", "-", '
                        .. '"."; the same name on every OS)')
end

-- pick_os of each manager's recipe over the same names.
local function choose(which, recipe, ...)
   local v = ...
   if select("#", ...) > 1 then v = { ... } end
   local err, list = args.list(v, "packages", check_package, { nonempty = true })
   local desc = "packages " .. which .. " " .. (err and (type(v) == "string" and v or "...")
                                                or table.concat(list, " "))
   if err then return core.invalid(desc, fmt("%s: %s", recipe, err)) end
   return core.describe(core.pick_os(apt[which](list), dnf[which](list), pacman[which](list),
                                     pkg[which](list)), desc)
end

--[[ packages.installed(pkgs)
  UnixLike, revertable: its revert is packages.removed(pkgs).  The same
  as pick_os(apt.installed(pkgs), dnf.installed(pkgs),
  pacman.installed(pkgs), pkg.installed(pkgs)): the host's OS chooses
  the package manager, so the checker knows which runs where.
  Claims: package.installed for each package.
  pkgs: names that are the same on every OS ("nginx", "git"), lower case.
  Example:
    packages.installed { "git", "rsync" }
]]
function packages.installed(...)
   return choose("installed", "packages.installed", ...)
end

--[[ packages.removed(pkgs)
  UnixLike, revertable: its revert is packages.installed(pkgs).  As
  packages.installed, with apt.removed, dnf.removed, pacman.removed and
  pkg.removed.
  Claims: package.removed for each package.
  Example:
    packages.removed "telnet"
]]
function packages.removed(...)
   return choose("removed", "packages.removed", ...)
end

--[[ packages.upgraded()
  UnixLike: pick_os(apt.upgraded(), dnf.upgraded(), pacman.upgraded(),
  pkg.upgraded()), so the host's OS chooses the package manager at run
  time.  Not revertable.  Claims nothing.
  Example:
    packages.upgraded()
]]
function packages.upgraded(...)
   local err = packaging.no_args("packages.upgraded", ..., select("#", ...))
   if err then return core.invalid("packages upgraded", err) end
   return core.describe(core.pick_os(apt.upgraded(), dnf.upgraded(), pacman.upgraded(),
                                     pkg.upgraded()), "packages upgraded")
end

return args.strict_module(packages, "packages")
