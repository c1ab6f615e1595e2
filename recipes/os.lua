-- prop.os: declaring a host's operating system.
--
-- Inside a site `os` is this module; Lua's os library is not available
-- there.  Each host declares its OS once (P004); OS-specific properties
-- need one (P003) and must fit it (P002).

local core = require "prop.core"
local args = require "prop.args"

local os_ = {}

local fmt = string.format

-- Debian's release architectures (prop's names for every OS).
local arches = { "amd64", "arm64", "i386", "armhf", "armel", "ppc64el", "s390x", "riscv64" }
local arch_set = {}
for _, a in ipairs(arches) do arch_set[a] = true end
local arch_list = table.concat(arches, ", ")
-- What uname -m and other tools call them.
local arch_aliases = { x86_64 = "amd64", aarch64 = "arm64", i686 = "i386", i586 = "i386",
                       x86 = "i386", armv7l = "armhf", armv7 = "armhf", armv6l = "armel",
                       armv5tel = "armel", ppc64le = "ppc64el" }

local function check_arch(v)
   if type(v) ~= "string" then
      return fmt("arch must be one of %s, got %s", arch_list, args.got(v))
   end
   if arch_set[v] then return nil end
   local hint = arch_aliases[v] and fmt(' (did you mean "%s"?)', arch_aliases[v])
      or args.did_you_mean(v, arches)
   return fmt('arch "%s" is not one of %s%s', v, arch_list, hint)
end

local norevert = "declaring the operating system has no revert action"

-- recipe: the os.* function ("os.rocky"); family: the OS family it declares.
local function declare_as(recipe, family, what, example, suite, arch, extra_args)
   if math.type(suite) == "integer" and suite >= 0 then suite = tostring(suite) end -- os.rhel(9, ...)
   local desc = fmt('%s "%s" %s', recipe, type(suite) == "string" and suite or "?",
                    type(arch) == "string" and arch or "?")
   local msg = args.join(recipe, args.matching(suite, what, "[%w][%w._+~-]*", example),
                         check_arch(arch), (args.options(extra_args, {}, recipe)))
   if msg then return core.invalid(desc, msg) end
   return core.leaf{ desc = desc, info = { "os", family .. " " .. suite .. " " .. arch },
                     info_only = true, os = family, norevert = norevert }
end

local function declare(family, what, example, suite, arch, extra_args)
   return declare_as("os." .. family, family, what, example, suite, arch, extra_args)
end

--[[ os.debian(suite, arch)
  Info: os = "debian SUITE ARCH".  Not revertable.
  suite: "bookworm", "trixie", "stable", "testing", "unstable", ...
  arch: amd64, arm64, i386 or armhf.
  Example:
    os.debian("bookworm", "amd64")
]]
function os_.debian(suite, arch, opts)
   return declare("debian", "suite", 'a Debian suite such as "bookworm" or "stable"',
                  suite, arch, opts)
end

--[[ os.buntish(release, arch)
  Info: os = "buntish RELEASE ARCH".  Not revertable.
  Example:
    os.buntish("noble", "amd64")
]]
function os_.buntish(release, arch, opts)
   return declare("buntish", "release", 'an Ubuntu release such as "noble" or "24.04"',
                  release, arch, opts)
end

--[[ os.freebsd(release, arch)
  Info: os = "freebsd RELEASE ARCH".  Not revertable.
  Example:
    os.freebsd("14.1-RELEASE", "amd64")
]]
function os_.freebsd(release, arch, opts)
   return declare("freebsd", "release", 'a FreeBSD release such as "14.1-RELEASE"',
                  release, arch, opts)
end

--[[ os.rhel(release, arch)
  Info: os = "rhel RELEASE ARCH".  Not revertable.  Red Hat Enterprise
  Linux: the rhel family, in the RedHatLike group (dnf, systemd).
  release: the major version ("9") or a minor one ("9.4").
  Example:
    os.rhel("9", "amd64")
]]
function os_.rhel(release, arch, opts)
   return declare("rhel", "release", 'a RHEL release such as "9" or "9.4"', release, arch, opts)
end

-- The rebuilds of RHEL are the rhel family: the same packages and tools.
local function rebuild(name, example)
   return function(release, arch, opts)
      return declare_as("os." .. name, "rhel", "release", example, release, arch, opts)
   end
end

--[[ os.centos(release, arch)
  Info: os = "rhel RELEASE ARCH".  Not revertable.  CentOS Stream (or an
  older CentOS Linux): a RHEL rebuild, so of the rhel family: a property
  for rhel fits it.
  Example:
    os.centos("9", "amd64")
]]
os_.centos = rebuild("centos", 'a CentOS release such as "9"')

--[[ os.rocky(release, arch)
  Info: os = "rhel RELEASE ARCH".  Not revertable.  Rocky Linux, of the
  rhel family (a RHEL rebuild).
  Example:
    os.rocky("9", "amd64")
]]
os_.rocky = rebuild("rocky", 'a Rocky Linux release such as "9" or "9.4"')

--[[ os.alma(release, arch)
  Info: os = "rhel RELEASE ARCH".  Not revertable.  AlmaLinux, of the
  rhel family (a RHEL rebuild).
  Example:
    os.alma("9", "amd64")
]]
os_.alma = rebuild("alma", 'an AlmaLinux release such as "9" or "9.4"')

--[[ os.fedora(release, arch)
  Info: os = "fedora RELEASE ARCH".  Not revertable.  Fedora Linux: the
  fedora family, in the RedHatLike group.
  release: "40", "41", ... or "rawhide".
  Example:
    os.fedora("41", "amd64")
]]
function os_.fedora(release, arch, opts)
   return declare("fedora", "release", 'a Fedora release such as "41" or "rawhide"',
                  release, arch, opts)
end

--[[ os.arch(arch)
  Info: os = "arch rolling ARCH".  Not revertable.  Arch Linux: the arch
  family (the ArchLinux group), a rolling release: no release to name.
  Example:
    os.arch "amd64"
]]
function os_.arch(arch, opts)
   local desc = fmt("os.arch %s", type(arch) == "string" and arch or "?")
   local msg = args.join("os.arch", check_arch(arch), (args.options(opts, {}, "os.arch")))
   if msg then return core.invalid(desc, msg) end
   return core.leaf{ desc = desc, info = { "os", "arch rolling " .. arch }, info_only = true,
                     os = "arch", norevert = norevert }
end

return args.strict_module(os_, "os",
                          "in a site, os is prop's OS module: Lua's os library is not available")
