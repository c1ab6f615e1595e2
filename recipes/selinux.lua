-- prop.selinux: SELinux on Debian and the Red Hat family: the mode in
-- /etc/selinux/config, and the local customisations of the policy store
-- (booleans, file contexts, port types, policy modules) made with
-- semanage and semodule.
--
-- The policy store (/var/lib/selinux/TYPE) is changed whether the
-- running kernel enforces SELinux or not: semanage and semodule work on
-- it offline, and what they write is loaded at the next boot with
-- SELinux.  Only what needs the running kernel (setenforce, setsebool
-- without persistence, restorecon's labels) waits for one that has
-- SELinux enabled (/sys/fs/selinux/enforce), and a container never
-- touches its host's kernel.
--
-- The store's customisations are claimed as settings of /var/lib/selinux
-- (claim file.setting, "boolean NAME=on", "port tcp/8080=TYPE",
-- "fcontext PATTERN (FTYPE)=TYPE", "module NAME=SOURCE"): one boolean
-- given two values on a host, or one port two types, is P007.

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local conf = require "prop.conf"
local R = require "prop.runtime"
local apt = require "prop.apt"
local dnf = require "prop.dnf"

local selinux = {}

local fmt = string.format
local concat = table.concat

local CONFIG = "/etc/selinux/config"
local STORE = "/var/lib/selinux"
local ENFORCE = "/sys/fs/selinux/enforce"
local TARGETS = { "DebianLike", "RedHatLike" }

-- The packages each kind of property needs, per OS family.  Debian:
-- selinux-utils has getenforce, setenforce, getsebool and setsebool;
-- policycoreutils semodule and restorecon; policycoreutils-python-utils
-- semanage (which reads /etc/protocols, from netbase: a minimal system
-- lacks it); checkpolicy checkmodule; semodule-utils semodule_package.
-- The Red Hat family: libselinux-utils, policycoreutils (semodule,
-- restorecon and semodule_package), policycoreutils-python-utils,
-- checkpolicy.  Each installs the policy, which makes the store.
local PACKAGES = {
   debian = {
      base = { "selinux-utils", "policycoreutils", "selinux-policy-default" },
      semanage = { "policycoreutils-python-utils", "netbase" },
      module = { "checkpolicy", "semodule-utils" },
   },
   redhat = {
      base = { "libselinux-utils", "policycoreutils", "selinux-policy-targeted" },
      semanage = { "policycoreutils-python-utils" },
      module = { "checkpolicy" },
   },
}

local function package_list(family, kinds)
   local list = {}
   for _, k in ipairs(kinds) do
      for _, p in ipairs(PACKAGES[family][k]) do list[#list + 1] = p end
   end
   return list
end

-- The packages as a property the host's OS picks: apt.installed_min
-- (no recommends: Debian's policy recommends more than it needs) or
-- dnf.installed.
local function tools(kinds)
   return core.pick_os(apt.installed_min(package_list("debian", kinds)),
                       dnf.installed(package_list("redhat", kinds)))
end

local function with_tools(p, kinds)
   return core.requires(p, tools(kinds))
end

-- Run time -------------------------------------------------------------

local impl = { mode = {}, boolean = {}, boolean_default = {}, fcontext = {}, fcontext_gone = {},
               port = {}, port_gone = {}, module = {}, module_gone = {} }

-- Why the running kernel's SELinux is left alone, or nil when it is the
-- target's own and has SELinux enabled.
local function not_live(sys)
   local why = R.kernel_not_own(sys)
   if why then return why end
   if not sys:exists(ENFORCE) then
      return "SELinux is disabled in the running kernel (no " .. ENFORCE .. ")"
   end
   return nil
end

-- 1 (enforcing) or 0 (permissive) as the running kernel has it.
local function live_enforce(sys)
   local v = sys:read(ENFORCE)
   return v and v:match("%d")
end

local config_o = { sep = "=", comment = "#" }

-- The mode /etc/selinux/config gives (nil when the file or the line is
-- missing).
local function config_mode(content)
   for l in (content or ""):gmatch("[^\n]+") do
      local v = l:match("^%s*SELINUX%s*=%s*(%S*)%s*$")
      if v then return v end
   end
   return nil
end

function impl.mode.ensure(sys, a)
   local what = "selinux.mode"
   local old = sys:read(CONFIG)
   local changed = false
   if config_mode(old) ~= a.mode then
      local base = old
      if base == nil then
         base = fmt("# SELinux's mode at boot, written by prop (selinux.mode).\nSELINUXTYPE=%s\n",
                    (sys.os == "rhel" or sys.os == "fedora") and "targeted" or "default")
      end
      changed = conf.ensure_edit(sys, what, CONFIG, function()
         return conf.set_key(base, "SELINUX", a.mode, config_o)
      end)
      if changed then
         sys:note(fmt("%s: SELINUX=%s (was %s)", CONFIG, a.mode, config_mode(old) or "not set"))
      end
   end
   local why = not_live(sys)
   if R.kernel_not_own(sys) then
      if changed then
         sys:note(fmt("the file only: %s; %s takes effect when the system boots",
                      R.kernel_not_own(sys), a.mode))
      end
   elseif why then
      if a.mode ~= "disabled" then
         sys:note(fmt("reboot needed: %s; %s takes effect at the next boot (which relabels "
                      .. "the files first)", why, a.mode))
      end
   elseif a.mode == "disabled" then
      sys:note("reboot needed: SELinux runs in the kernel until the next boot, which leaves it "
               .. "disabled; until then it is " .. (live_enforce(sys) == "1" and "enforcing"
                                                   or "permissive"))
   else
      local want = a.mode == "enforcing" and "1" or "0"
      if live_enforce(sys) ~= want then
         R.run(sys, what, { "setenforce", want })
         sys:note(fmt("running kernel: setenforce %s (%s now)", want, a.mode))
         changed = true
      end
   end
   return changed and "changed" or "ok"
end

-- The probe: the running kernel's mode, where it can be had.
function impl.mode.verify(sys, a)
   if not_live(sys) or a.mode == "disabled" then return true end
   local want = a.mode == "enforcing" and "1" or "0"
   local got = live_enforce(sys)
   if got == want then return true end
   return false, fmt("the running kernel is %s (%s is %s), want %s",
                     got == "1" and "enforcing" or "permissive", ENFORCE, tostring(got), a.mode)
end

function impl.mode.repair(sys, a)
   R.run(sys, "selinux.mode", { "setenforce", a.mode == "enforcing" and "1" or "0" })
end
impl.mode.probe_timeout = 0

-- semanage ----------------------------------------------------------

local function semanage(sys, what, ...)
   local argv = { "semanage", ... }
   local r = R.query(sys, what, argv)
   if r.code ~= 0 then R.command_failed(what, argv, r) end
   return r.stdout
end

-- semanage boolean -l (or -l -C): name -> { active = bool, store = bool }.
local function booleans(sys, what, local_only)
   local out = local_only and semanage(sys, what, "boolean", "-l", "-n", "-C")
      or semanage(sys, what, "boolean", "-l", "-n")
   local t = {}
   for l in out:gmatch("[^\n]+") do
      local name, cur, store = l:match("^(%S+)%s+%(%s*(%a+)%s*,%s*(%a+)%s*%)")
      if name then t[name] = { active = cur == "on", store = store == "on" } end
   end
   return t
end

local function onoff(v)
   return v and "on" or "off"
end

-- The running value of boolean name (getsebool), or nil.
local function live_boolean(sys, what, name)
   local r = R.query(sys, what, { "getsebool", name })
   if r.code ~= 0 then return nil end
   local v = r.stdout:match("%-%->%s*(%a+)")
   return v == "on"
end

function impl.boolean.ensure(sys, a)
   local what = "selinux.boolean " .. a.name
   local why = not_live(sys)
   local changed = false
   if a.persistent then
      local all = booleans(sys, what, false)
      local b = all[a.name]
      if b == nil then R.fail("%s: the policy has no boolean %s (semanage boolean -l)", what, a.name) end
      if b.store ~= a.value then
         R.run(sys, what, { "semanage", "boolean", "-m", a.value and "--on" or "--off", a.name })
         sys:note(fmt("policy store: %s %s -> %s", a.name, onoff(b.store), onoff(a.value)))
         changed = true
      end
   elseif why then
      R.fail("%s: %s: a boolean that is not persistent has nowhere to be set "
             .. "(persistent = true writes it to the policy store)", what, why)
   end
   if not why then
      local live = live_boolean(sys, what, a.name)
      if live == nil and not a.persistent then
         R.fail("%s: the running policy has no boolean %s (getsebool)", what, a.name)
      end
      if live ~= nil and live ~= a.value and not (changed and sys.dry) then
         R.run(sys, what, { "setsebool", a.name, onoff(a.value) })
         sys:note(fmt("running policy: %s -> %s", a.name, onoff(a.value)))
         changed = true
      end
   elseif changed then
      sys:note(fmt("the running kernel is left alone: %s", why))
   end
   return changed and "changed" or "ok"
end

function impl.boolean.verify(sys, a)
   if not_live(sys) then return true end
   local what = "selinux.boolean " .. a.name
   local live = live_boolean(sys, what, a.name)
   if live == a.value then return true end
   return false, fmt("getsebool %s says %s, want %s", a.name,
                     live == nil and "nothing" or onoff(live), onoff(a.value))
end

function impl.boolean.repair(sys, a)
   R.run(sys, "selinux.boolean " .. a.name, { "setsebool", a.name, onoff(a.value) })
end
impl.boolean.probe_timeout = 0

-- semanage has no deletion of one boolean's customisation: the local
-- ones are exported, and imported again in one transaction without it
-- after they are all dropped (boolean -D).
function impl.boolean_default.ensure(sys, a)
   local what = "selinux.boolean " .. a.name .. " default"
   if not sys:exists("/usr/sbin/semanage") and not sys:exists("/sbin/semanage") then
      return "ok" -- no semanage, no customisation
   end
   local custom = booleans(sys, what, true)
   if custom[a.name] == nil then return "ok" end
   local lines = { "boolean -D" }
   local names = {}
   for n in pairs(custom) do
      if n ~= a.name then names[#names + 1] = n end
   end
   table.sort(names)
   for _, n in ipairs(names) do
      lines[#lines + 1] = fmt("boolean -m %s %s", custom[n].store and "--on" or "--off", n)
   end
   R.run(sys, what, { "semanage", "import" }, { stdin = concat(lines, "\n") .. "\n" })
   sys:note(fmt("policy store: %s no longer customised (back to the policy's default)", a.name))
   return "changed"
end

-- semanage fcontext -l -C: list of { pattern, ftype (its words), type }.
local FTYPES = {
   a = "all files", f = "regular file", d = "directory", c = "character device",
   b = "block device", s = "socket", l = "symbolic link", p = "named pipe",
}

local function fcontexts(sys, what)
   local out = semanage(sys, what, "fcontext", "-l", "-n", "-C")
   local t = {}
   for l in out:gmatch("[^\n]+") do
      for letter, words in pairs(FTYPES) do
         local pat, ctx = l:match("^(%S+)%s+" .. words:gsub(" ", "%%s+") .. "%s+(%S+)%s*$")
         if pat then
            t[#t + 1] = { pattern = pat, ftype = letter, context = ctx,
                          type = ctx:match("^[^:]*:[^:]*:([^:]+)") or ctx }
            break
         end
      end
   end
   return t
end

local function find_fcontext(list, a)
   for _, e in ipairs(list) do
      if e.pattern == a.pattern and e.ftype == a.ftype then return e end
   end
   return nil
end

-- The directory the pattern's paths are below: its part before the first
-- regular-expression character, up to its last slash unless the pattern
-- continues with an optional group ("/srv/web(/.*)?" -> /srv/web).
local function pattern_root(p)
   local i = p:find("[%(%)%[%]%.%*%+%?%^%$|\\{}]")
   if i == nil then return p end
   local head = p:sub(1, i - 1)
   if p:sub(i, i) == "(" and head:sub(-1) ~= "/" then return head end
   head = head:match("^(.*)/[^/]*$") or "/"
   return head == "" and "/" or head
end

local function restorecon(sys, what, a, verb)
   local why = not_live(sys)
   local root = pattern_root(a.pattern)
   if not a.restorecon then return end
   if why then
      sys:note(fmt("restorecon %s skipped: %s (no file can be labelled; a boot with SELinux "
                   .. "relabels)", root, why))
      return
   end
   if not sys:exists(root) then return end
   R.run(sys, what, { "restorecon", "-R", "--", root })
   sys:note(fmt("%s %s", verb, root))
end

function impl.fcontext.ensure(sys, a)
   local what = "selinux.fcontext " .. a.pattern
   local e = find_fcontext(fcontexts(sys, what), a)
   if e and e.type == a.type then return "ok" end
   local op = e and "-m" or "-a"
   R.run(sys, what, { "semanage", "fcontext", op, "-f", a.ftype, "-t", a.type, "--", a.pattern })
   sys:note(fmt("policy store: %s (%s) -> %s%s", a.pattern, FTYPES[a.ftype], a.type,
                e and " (was " .. e.type .. ")" or ""))
   restorecon(sys, what, a, sys.dry and "would relabel" or "relabelled")
   return "changed"
end

-- The probe: restorecon -n -v lists nothing it would relabel below the
-- pattern's directory.
function impl.fcontext.verify(sys, a)
   if not a.restorecon or not_live(sys) then return true end
   local root = pattern_root(a.pattern)
   if not sys:exists(root) then return true end
   local argv = { "restorecon", "-n", "-v", "-R", "--", root }
   local r = R.query(sys, "selinux.fcontext " .. a.pattern, argv)
   if r.code ~= 0 then return false, fmt("%s exited with %d", R.show_argv(argv), r.code) end
   local first = r.stdout:match("[^\n]+")
   if first == nil then return true end
   return false, "files are not labelled as the policy says: " .. first
end

function impl.fcontext.repair(sys, a)
   R.run(sys, "selinux.fcontext " .. a.pattern, { "restorecon", "-R", "--", pattern_root(a.pattern) })
end
impl.fcontext.probe_timeout = 0

local function have_semanage(sys)
   return sys:exists("/usr/sbin/semanage") or sys:exists("/sbin/semanage")
end

function impl.fcontext_gone.ensure(sys, a)
   local what = "selinux.fcontext " .. a.pattern .. " removed"
   if not have_semanage(sys) then return "ok" end
   local e = find_fcontext(fcontexts(sys, what), a)
   if e == nil then return "ok" end
   R.run(sys, what, { "semanage", "fcontext", "-d", "-f", a.ftype, "--", a.pattern })
   sys:note(fmt("policy store: %s (%s) removed (was %s)", a.pattern, FTYPES[a.ftype], e.type))
   restorecon(sys, what, a, sys.dry and "would relabel" or "relabelled")
   return "changed"
end

-- semanage port -l -C: list of { type, proto, ports = { "8080", "9000-9010" } }.
local function ports(sys, what)
   local out = semanage(sys, what, "port", "-l", "-n", "-C")
   local t = {}
   for l in out:gmatch("[^\n]+") do
      local ty, proto, rest = l:match("^(%S+)%s+(%a+)%s+(.-)%s*$")
      if ty then
         for p in rest:gmatch("[^,%s]+") do t[#t + 1] = { type = ty, proto = proto, port = p } end
      end
   end
   return t
end

local function find_port(list, a)
   for _, e in ipairs(list) do
      if e.proto == a.proto and e.port == a.port then return e end
   end
   return nil
end

function impl.port.ensure(sys, a)
   local what = fmt("selinux.port %s/%s", a.proto, a.port)
   local e = find_port(ports(sys, what), a)
   if e and e.type == a.type then return "ok" end
   local function argv(op)
      return { "semanage", "port", op, "-t", a.type, "-p", a.proto, a.port }
   end
   if e then
      R.run(sys, what, argv("-m"))
   else
      local r = sys:run(argv("-a"), R.any)
      local err = (r.stderr or "") .. (r.stdout or "")
      if r.code ~= 0 and err:find("already defined", 1, true) then
         -- Defined by the policy itself: -m makes the local one.
         R.run(sys, what, argv("-m"))
      elseif r.code ~= 0 then
         R.command_failed(what, argv("-a"), r)
      end
   end
   sys:note(fmt("policy store: %s/%s -> %s%s", a.proto, a.port, a.type,
                e and " (was " .. e.type .. ")" or ""))
   return "changed"
end

function impl.port_gone.ensure(sys, a)
   local what = fmt("selinux.port %s/%s removed", a.proto, a.port)
   if not have_semanage(sys) then return "ok" end
   local e = find_port(ports(sys, what), a)
   if e == nil then return "ok" end
   R.run(sys, what, { "semanage", "port", "-d", "-p", a.proto, a.port })
   sys:note(fmt("policy store: %s/%s removed (was %s)", a.proto, a.port, e.type))
   return "changed"
end

-- Modules ---------------------------------------------------------------

-- One script for the look and the install, in a directory of its own
-- that goes when it ends.  "hash NAME [PP]" prints the SHA-256 of the
-- wanted .pp (PP, or the one compiled from the .te on stdin), then that
-- of the installed module (semodule -E extracts it) or "none".
-- "install NAME [PP]" compiles the .te again when there is no PP and
-- installs it (semodule -i).
local MODULE_SH = [=[
set -eu
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
op=$1 name=$2 pp=${3:-}
if [ -z "$pp" ]; then
  cat >"$d/$name.te"
  checkmodule -M -m -o "$d/$name.mod" "$d/$name.te" >"$d/log" 2>&1 || { cat "$d/log" >&2; exit 3; }
  semodule_package -o "$d/$name.pp" -m "$d/$name.mod"
  pp=$d/$name.pp
elif [ ! -f "$pp" ]; then
  echo "$pp: no such file" >&2
  exit 4
fi
if [ "$op" = install ]; then
  semodule -i "$pp"
  exit 0
fi
sha256sum <"$pp" | cut -d' ' -f1
if semodule -l | grep -qx "$name"; then
  mkdir "$d/x"
  (cd "$d/x" && semodule -E "$name" >/dev/null)
  f=$(ls "$d/x" | head -n 1)
  if [ -n "$f" ]; then sha256sum <"$d/x/$f" | cut -d' ' -f1; else echo none; fi
else
  echo none
fi
]=]

local function module_argv(op, a)
   local argv = { "sh", "-c", MODULE_SH, "sh", op, a.name }
   if a.path then argv[#argv + 1] = a.path end
   return argv
end

function impl.module.ensure(sys, a)
   local what = "selinux.module " .. a.name
   local argv = module_argv("hash", a)
   local r = R.query(sys, what, argv, { stdin = a.source })
   if r.code == 3 then
      R.fail("%s: checkmodule refused the source:\n%s", what, R.tail(r.stderr))
   elseif r.code ~= 0 then
      R.command_failed(what, argv, r)
   end
   local want, have = r.stdout:match("^(%x+)\n(%S+)")
   if want == nil then R.fail("%s: unexpected output of the module look: %s", what, R.tail(r.stdout, 2)) end
   if want == have then return "ok" end
   R.run(sys, what, module_argv("install", a), { stdin = a.source })
   sys:note(fmt("policy store: module %s %s", a.name, have == "none" and "installed" or "replaced"))
   return "changed"
end

function impl.module_gone.ensure(sys, a)
   local what = "selinux.module " .. a.name .. " removed"
   if not sys:exists("/usr/sbin/semodule") and not sys:exists("/sbin/semodule") then return "ok" end
   local r = R.query(sys, what, { "semodule", "-l" })
   if r.code ~= 0 then R.command_failed(what, { "semodule", "-l" }, r) end
   local found = false
   for l in r.stdout:gmatch("[^\n]+") do
      if l:match("^(%S+)") == a.name then found = true end
   end
   if not found then return "ok" end
   R.run(sys, what, { "semodule", "-r", a.name })
   sys:note(fmt("policy store: module %s removed", a.name))
   return "changed"
end

-- Arguments -------------------------------------------------------------

local MODES = { enforcing = true, permissive = true, disabled = true }

local function check_name(v, what)
   return args.matching(v, what, "[%a_][%w_]*", 'a name of letters, digits and "_" such as '
                        .. '"httpd_can_network_connect"')
end

local function check_type(v, what)
   local err = args.matching(v, what, "[%a][%w_]*_t",
                             'an SELinux type such as "httpd_sys_content_t" (letters, digits, '
                             .. '"_", ending in "_t")')
   return err, v
end

-- A short digest of a module's source for its claim (FNV-1a, 32 bits):
-- two sources for one module differ in it.
local function digest(s)
   local h = 2166136261
   for i = 1, #s do h = ((h ~ s:byte(i)) * 16777619) & 0xffffffff end
   return fmt("%08x", h)
end

local function store_claim(key, value)
   return claim.file_setting(STORE, conf.claim(key, value))
end

--[[ selinux.mode(mode)
  DebianLike and RedHatLike, not revertable (the mode before is not
  known: give the one wanted).
  Claims: file.setting /etc/selinux/config = "SELINUX=MODE"; needs the
  SELinux packages (requires apt.installed_min / dnf.installed of
  them).
  mode: "enforcing", "permissive" or "disabled".
  Run time: edits the SELINUX= line of /etc/selinux/config (the rest is
  kept; the file is made when missing).  When the running kernel has
  SELinux enabled (/sys/fs/selinux/enforce), setenforce 1 or 0 puts it in
  the mode now; a change to or from disabled needs a reboot, and the
  result says so in a note ("reboot needed: ...") on every run until
  then.  A container or a directory tree shares another kernel: only the
  file.
  Verify: /sys/fs/selinux/enforce holds the mode; repair: setenforce.
  Example:
    selinux.mode "enforcing"
]]
function selinux.mode(mode, opts)
   local desc = "selinux mode " .. (type(mode) == "string" and mode or "?")
   local err
   if type(mode) ~= "string" or not MODES[mode] then
      err = fmt('mode must be "enforcing", "permissive" or "disabled", got %s', args.show(mode))
   end
   local msg = args.join("selinux.mode", err, (args.options(opts, {}, "selinux.mode")))
   if msg then return core.invalid(desc, msg) end
   local p = core.leaf{ desc = desc, targets = TARGETS, impl = impl.mode, args = { mode = mode },
                        claims = { claim.file_setting(CONFIG, conf.claim("SELINUX", mode)) },
                        norevert = "selinux.mode has no revert action: the mode before is not "
                           .. "known (give the one wanted)" }
   return with_tools(p, { "base" })
end

--[[ selinux.boolean(name, value [, { persistent = true }])
  DebianLike and RedHatLike.  Revertable when persistent: its revert
  takes the local customisation of the boolean out of the policy store,
  which gives it the policy's default again (the default is read by
  semanage itself: prop does not need to know it).  A boolean that is not
  persistent is not revertable (its value before is not kept anywhere).
  Claims: file.setting /var/lib/selinux = "boolean NAME=on|off" when
  persistent: one boolean given two values on a host is P007.
  Run time: persistent (the default): semanage boolean -l reads the
  store, semanage boolean -m --on/--off sets it when it differs (that
  works with SELinux disabled too: the store is read at the next boot);
  then, when the running kernel has SELinux, getsebool reads the running
  value and setsebool sets it when it differs.  persistent = false:
  setsebool only, which needs a running SELinux (else it fails and says
  so).  A boolean the policy does not have is a failure.
  Verify: getsebool NAME shows the value; repair: setsebool.  Without
  SELinux in the running kernel: none.
  Example:
    selinux.boolean("httpd_can_network_connect", true)
]]
function selinux.boolean(name, value, opts)
   local desc = fmt("selinux boolean %s %s", type(name) == "string" and name or "?",
                    type(value) == "boolean" and onoff(value) or "?")
   local nerr = check_name(name, "name")
   local verr = args.boolean(value, "value")
   local oerr, o = args.options(opts, { persistent = args.boolean }, "selinux.boolean")
   local msg = args.join("selinux.boolean", nerr, verr, oerr)
   if msg then return core.invalid(desc, msg) end
   local persistent = o.persistent ~= false
   local a = { name = name, value = value, persistent = persistent }
   local claims = persistent and { store_claim("boolean " .. name, onoff(value)) } or nil
   if not persistent then
      return with_tools(core.leaf{ desc = desc .. " (running only)", targets = TARGETS,
                                   impl = impl.boolean, args = a, claims = claims,
                                   norevert = "selinux.boolean with persistent = false has no "
                                      .. "revert action: the running value before is not kept" },
                        { "base", "semanage" })
   end
   local up = core.leaf{ desc = desc, targets = TARGETS, impl = impl.boolean, args = a,
                         claims = claims }
   local down = core.leaf{ desc = fmt("selinux boolean %s at the policy's default", name),
                           targets = TARGETS, impl = impl.boolean_default, args = a }
   return core.pair(with_tools(up, { "base", "semanage" }), down)
end

local FTYPE_NAMES = {}
for letter, words in pairs(FTYPES) do FTYPE_NAMES[letter] = letter; FTYPE_NAMES[words] = letter end

local function check_ftype(v, what)
   if FTYPE_NAMES[v] then return nil, FTYPE_NAMES[v] end
   return fmt('%s must be one of "a" (all files), "f" (regular file), "d" (directory), "c", '
              .. '"b", "s", "l", "p" (as semanage fcontext -f takes), got %s', what, args.show(v))
end

local function check_pattern(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   if v:sub(1, 1) ~= "/" then
      return fmt("%s %s must be an absolute path pattern (starting with /)", what, args.show(v))
   end
   if v:find("[%s%c]") then
      return fmt("%s %s must not contain blanks or control characters", what, args.show(v))
   end
   return nil, v
end

--[[ selinux.fcontext(pattern, type [, { ftype = "a", restorecon = true }])
  DebianLike and RedHatLike, revertable: its revert deletes the rule
  (semanage fcontext -d) and relabels as the first did.
  Claims: file.setting /var/lib/selinux = "fcontext PATTERN (FTYPE)=TYPE".
  pattern: the regular expression semanage takes ("/srv/web(/.*)?").
  type: the file type ("httpd_sys_content_t").  ftype: which files, as
  semanage fcontext -f: "a" all (the default), "f", "d", "l", "s", "p",
  "c", "b" (or their names, "directory").  restorecon = false: no
  relabelling.
  Run time: semanage fcontext -l -C (the local rules) tells whether the
  rule is there with that type; -a adds it, -m changes its type.  After
  a change, restorecon -R relabels the pattern's directory (its part
  before the first regular-expression character, "/srv/web") when it
  exists and the running kernel has SELinux; without it no file can be
  labelled, and a note says restorecon was skipped.
  Verify: restorecon -n -v -R on that directory would change nothing;
  repair: restorecon -R.
  Example:
    selinux.fcontext("/srv/web(/.*)?", "httpd_sys_content_t")
]]
function selinux.fcontext(pattern, ty, opts)
   local desc = fmt("selinux fcontext %s %s", type(pattern) == "string" and pattern or "?",
                    type(ty) == "string" and ty or "?")
   local perr = check_pattern(pattern, "pattern")
   local terr = check_type(ty, "type")
   local oerr, o = args.options(opts, { ftype = check_ftype, restorecon = args.boolean },
                                "selinux.fcontext")
   local msg = args.join("selinux.fcontext", perr, terr, oerr)
   if msg then return core.invalid(desc, msg) end
   local a = { pattern = pattern, type = ty, ftype = o.ftype or "a", restorecon = o.restorecon ~= false }
   local key = fmt("fcontext %s (%s)", pattern, a.ftype)
   local up = core.leaf{ desc = desc, targets = TARGETS, impl = impl.fcontext, args = a,
                         claims = { store_claim(key, ty) } }
   local down = core.leaf{ desc = fmt("selinux fcontext %s removed", pattern), targets = TARGETS,
                           impl = impl.fcontext_gone, args = a }
   return core.pair(with_tools(up, { "base", "semanage" }), down)
end

local PROTOS = { tcp = true, udp = true, dccp = true, sctp = true }

local function check_port(v, what)
   if type(v) == "string" then
      local lo, hi = v:match("^(%d+)%-(%d+)$")
      lo, hi = tonumber(lo), tonumber(hi)
      if lo and hi and lo >= 1 and hi <= 65535 and lo <= hi then return nil, v end
      return fmt('%s %s is not a port or a range such as "8080-8090" (in 1..65535)', what,
                 args.show(v))
   end
   local err, n = args.port(v, what)
   if err then return err end
   return nil, tostring(n)
end

--[[ selinux.port(port, proto, type)
  DebianLike and RedHatLike, revertable: its revert deletes the local
  definition (semanage port -d); the policy's own, if any, holds again.
  Claims: file.setting /var/lib/selinux = "port PROTO/PORT=TYPE": one
  port given two types on a host is P007.  It declares no port (ports=):
  it says which type a port has, which services of that type may bind,
  not that anything listens there.
  port: a number, or a range "8080-8090".  proto: "tcp", "udp", "dccp"
  or "sctp".  type: a port type ("http_port_t").
  Run time: semanage port -l -C (the local definitions) tells whether the
  port has the type; -a adds it (-m when the policy itself defines the
  port, or a local definition has another type).
  Example:
    selinux.port(8081, "tcp", "http_port_t")
]]
function selinux.port(port, proto, ty, opts)
   local perr, p = check_port(port, "port")
   local rerr
   if not PROTOS[proto] then
      rerr = fmt('proto must be "tcp", "udp", "dccp" or "sctp", got %s', args.show(proto))
   end
   local terr = check_type(ty, "type")
   local msg = args.join("selinux.port", perr, rerr, terr, (args.options(opts, {}, "selinux.port")))
   local desc = fmt("selinux port %s/%s %s", type(proto) == "string" and proto or "?",
                    p or "?", type(ty) == "string" and ty or "?")
   if msg then return core.invalid(desc, msg) end
   local a = { port = p, proto = proto, type = ty }
   local up = core.leaf{ desc = desc, targets = TARGETS, impl = impl.port, args = a,
                         claims = { store_claim(fmt("port %s/%s", proto, p), ty) } }
   local down = core.leaf{ desc = fmt("selinux port %s/%s removed", proto, p), targets = TARGETS,
                           impl = impl.port_gone, args = a }
   return core.pair(with_tools(up, { "base", "semanage" }), down)
end

--[[ selinux.module(name, { source = TE } | { path = PP })
  DebianLike and RedHatLike, revertable: its revert removes the module
  (semodule -r).
  Claims: file.setting /var/lib/selinux = "module NAME=..." (the path,
  or a digest of the source): one module given two sources is P007.
  name: the module's name, as its "module NAME VERSION;" line says.
  source: the text of a .te file (a type enforcement module; read from
  beside the site with site.file or template); path: a compiled .pp on the
  target.  One of them.
  Run time: compiles the source with checkmodule -M -m and
  semodule_package in a temporary directory on the target (a source
  checkmodule refuses fails with its message), then compares the
  SHA-256 of that .pp with the installed module's (semodule -E extracts
  it): a module missing or with other content is installed with
  semodule -i.
  Example:
    selinux.module("myapp", { source = site.file "selinux/myapp.te" })
]]
function selinux.module(name, opts)
   local desc = "selinux module " .. (type(name) == "string" and name or "?")
   local nerr = check_name(name, "name")
   local oerr, o = args.options(opts, { source = args.nonempty_string, path = args.abs_path },
                                "selinux.module")
   if not oerr and o then
      if o.source == nil and o.path == nil then
         oerr = "give one of source (the text of a .te) or path (a .pp on the target)"
      elseif o.source ~= nil and o.path ~= nil then
         oerr = "give source or path, not both"
      elseif o.source and not nerr then
         local mname = o.source:match("^%s*module%s+([%w_]+)") or o.source:match("\n%s*module%s+([%w_]+)")
         if mname == nil then
            oerr = 'source has no "module NAME VERSION;" line'
         elseif mname ~= name then
            oerr = fmt('source declares module %s, not %s', args.show(mname), args.show(name))
         end
      end
   end
   if opts == nil then oerr = "give one of source (the text of a .te) or path (a .pp on the target)" end
   local msg = args.join("selinux.module", nerr, oerr)
   if msg then return core.invalid(desc, msg) end
   local a = { name = name, source = o.source, path = o.path }
   local up = core.leaf{ desc = desc, targets = TARGETS, impl = impl.module, args = a,
                         claims = { store_claim("module " .. name,
                                                o.path or "source " .. digest(o.source)) } }
   local down = core.leaf{ desc = desc .. " removed", targets = TARGETS, impl = impl.module_gone,
                           args = a }
   return core.pair(with_tools(up, { "base", "module" }), down)
end

return args.strict_module(selinux, "selinux")
