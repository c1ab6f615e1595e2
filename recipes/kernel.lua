-- prop.kernel: kernel modules, loaded now and at every boot.
--
-- A module is loaded at boot by its own file of /etc/modules-load.d
-- (systemd-modules-load and Debian's kmod both read it), and now by
-- modprobe.  A module is loaded when /sys/module/NAME exists (a module
-- built into the kernel has one too, and modprobe accepts it).

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local R = require "prop.runtime"

local kernel = {}

local fmt = string.format

local DIR = "/etc/modules-load.d"

local impl = { loaded = {}, unloaded = {} }

local kernel_not_own = R.kernel_not_own

-- /sys/module names modules with "_" where modprobe accepts "-" too.
local function sys_name(name)
   return "/sys/module/" .. name:gsub("-", "_")
end

function impl.loaded.ensure(sys, a)
   local what = "kernel.module_loaded " .. a.name
   local changed = false
   if not sys:exists(DIR) then
      sys:mkdir(DIR, { mode = tonumber("0755", 8) })
      changed = true
   end
   if R.ensure_content(sys, what, a.path, a.content, { mode = "0644", owner = "0", group = "0" }) then
      changed = true
   end
   local why = kernel_not_own(sys)
   if why then
      if changed then
         sys:note(fmt("%s %s to load at boot, not loaded now: %s", a.name,
                      sys.dry and "would be set" or "set", why))
      end
   elseif not sys:exists(sys_name(a.name)) then
      R.run(sys, what, { "modprobe", "--", a.name })
      changed = true
   end
   return changed and "changed" or "ok"
end

-- The probe: /sys/module/NAME is there, its initstate (a loadable
-- module's) "live"; a module built into the kernel without parameters
-- has no /sys/module entry, so modules.builtin of the running kernel is
-- asked then.  A kernel that is not the target's own: the file is all.
function impl.loaded.verify(sys, a)
   if kernel_not_own(sys) then return true end
   local m = sys_name(a.name)
   if sys:exists(m) then
      local st = sys:read(m .. "/initstate")
      st = st and st:match("%S+")
      if st == nil or st == "live" then return true end
      return false, fmt("module %s is %s (%s/initstate), want live", a.name, st, m)
   end
   local r = sys:query({ "uname", "-r" })
   local rel = r.code == 0 and r.stdout:match("%S+")
   local builtin = rel and sys:read("/lib/modules/" .. rel .. "/modules.builtin")
   if builtin then
      local want = a.name:gsub("-", "_")
      for l in builtin:gmatch("[^\n]+") do
         local base = l:match("([^/]+)%.ko$")
         if base and base:gsub("-", "_") == want then return true end
      end
   end
   return false, fmt("module %s is not loaded (no %s)", a.name, m)
end

function impl.loaded.repair(sys, a)
   R.run(sys, "kernel.module_loaded " .. a.name, { "modprobe", "--", a.name })
end
-- modprobe is done when it returns: nothing to wait for.
impl.loaded.probe_timeout = 0

-- The file goes; a loaded module is unloaded (modprobe -r), which fails
-- when something uses it.  A module built into the kernel stays.
function impl.unloaded.ensure(sys, a)
   local what = "kernel.module_loaded " .. a.name .. " (revert)"
   local changed = false
   local st = sys:stat(a.path)
   if st then
      if st.type == "directory" then R.fail("%s: %s is a directory", what, a.path) end
      sys:remove(a.path)
      changed = true
   end
   local why = kernel_not_own(sys)
   local m = sys_name(a.name)
   if why == nil and sys:exists(m) then
      if sys:exists(m .. "/initstate") then
         R.run(sys, what, { "modprobe", "-r", "--", a.name })
         changed = true
      else
         sys:note(fmt("%s is built into the kernel: it stays loaded", a.name))
      end
   end
   return changed and "changed" or "ok"
end

--[[ kernel.module_loaded(name)
  DebianLike, revertable: its revert removes the file and unloads the module
  (modprobe -r, which fails while the module is in use; one built into
  the kernel stays).
  Claims: file.directory /etc/modules-load.d and file.content
  /etc/modules-load.d/NAME.conf = the module's name.
  name: a module name ("br_netfilter", "wireguard").
  Run time: writes /etc/modules-load.d/NAME.conf (0644, root:root), read
  at boot, then runs modprobe NAME unless /sys/module/NAME exists.  In a
  container or a connect.dir tree, which share another machine's kernel,
  only the file is written, with a note.
  Verify: /sys/module/NAME is there (its initstate live), or the running
  kernel's modules.builtin has it; repair: modprobe.  In a container or
  a tree: none, the file's effect is at next boot.
  Example:
    kernel.module_loaded "br_netfilter"
]]
function kernel.module_loaded(name, opts)
   local desc = "kernel module " .. (type(name) == "string" and name or "?") .. " loaded"
   local err = args.matching(name, "module name", "[%w_][%w_-]*",
                             'a kernel module name such as "br_netfilter" (letters, digits, "_" '
                             .. 'and "-")')
   local msg = args.join("kernel.module_loaded", err,
                         (args.options(opts, {}, "kernel.module_loaded")))
   if msg then return core.invalid(desc, msg) end
   local path = DIR .. "/" .. name .. ".conf"
   local content = fmt("# written by prop (kernel.module_loaded): loaded at boot\n%s\n", name)
   local a = { name = name, path = path, content = content }
   local up = core.leaf{ desc = desc, targets = "DebianLike", impl = impl.loaded, args = a,
                         claims = { claim.file_directory(DIR), claim.file_content(path, content) } }
   local down = core.leaf{ desc = "kernel module " .. name .. " not loaded", targets = "DebianLike",
                           impl = impl.unloaded, args = a, claims = { claim.file_absent(path) } }
   return core.pair(up, down)
end

return args.strict_module(kernel, "kernel")
