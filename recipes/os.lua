-- prop.os: declaring a host's operating system.
--
-- Inside a site `os` is this module; Lua's os library is not available
-- there.  Each host declares its OS once (P004); OS-specific properties
-- need one (P003) and must fit it (P002).

local core = require "prop.core"
local args = require "prop.args"

local os_ = {}

local fmt = string.format

local arches = { "amd64", "arm64", "i386", "armhf" }
local arch_set = { amd64 = true, arm64 = true, i386 = true, armhf = true }
-- What uname -m and other tools call them.
local arch_aliases = { x86_64 = "amd64", aarch64 = "arm64", i686 = "i386", i586 = "i386",
                       x86 = "i386", armv7l = "armhf", armv7 = "armhf" }

local function check_arch(v)
   if type(v) ~= "string" then
      return fmt("arch must be one of amd64, arm64, i386, armhf, got %s", args.got(v))
   end
   if arch_set[v] then return nil end
   local hint = arch_aliases[v] and fmt(' (did you mean "%s"?)', arch_aliases[v])
      or args.did_you_mean(v, arches)
   return fmt('arch "%s" is not one of amd64, arm64, i386, armhf%s', v, hint)
end

local norevert = "declaring the operating system has no revert action"

local function declare(family, what, example, suite, arch, extra_args)
   local recipe = "os." .. family
   local desc = fmt('%s "%s" %s', recipe, type(suite) == "string" and suite or "?",
                    type(arch) == "string" and arch or "?")
   local msg = args.join(recipe, args.matching(suite, what, "[%w][%w._+~-]*", example),
                         check_arch(arch), (args.options(extra_args, {}, recipe)))
   if msg then return core.invalid(desc, msg) end
   return core.leaf(desc, nil, nil, nil, nil, {
      info = { "os", family .. " " .. suite .. " " .. arch },
      info_only = true,
      os = family,
      norevert = norevert,
   })
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

return args.strict_module(os_, "os",
                          "in a site, os is prop's OS module: Lua's os library is not available")
