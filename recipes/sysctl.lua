-- prop.sysctl: kernel settings, kept in one file of /etc/sysctl.d and
-- applied to the running kernel.
--
-- Every setting goes to /etc/sysctl.d/60-prop.conf, one "KEY = VALUE"
-- line each, edited in place: each property claims its line as a
-- setting of that file (file.setting), so settings of different keys
-- agree and one key given two values on a host is P007.

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local conf = require "prop.conf"
local R = require "prop.runtime"

local sysctl = {}

local fmt = string.format

local DIR = "/etc/sysctl.d"
local PATH = DIR .. "/60-prop.conf"
local HEADER = "# Kernel settings written by prop (sysctl.set), one a line; read at boot.\n"
local o = { sep = " = ", comment = "#" }

local impl = { set = {}, unset = {} }

local kernel_not_own = R.kernel_not_own

-- Blanks (sysctl prints tabs between the numbers of a vector) as one
-- space.
local function squeeze(s)
   return (s:gsub("%s+", " "):match("^ ?(.-) ?$"))
end

-- Whether the running value is the declared one: word by word, numbers
-- as numbers ("01" is 1, as the kernel reads it).
local function same_value(running, want)
   local r, w = {}, {}
   for x in running:gmatch("%S+") do r[#r + 1] = x end
   for x in want:gmatch("%S+") do w[#w + 1] = x end
   if #r ~= #w then return false end
   for i = 1, #r do
      local rn, wn = math.tointeger(tonumber(r[i])), math.tointeger(tonumber(w[i]))
      if r[i] ~= w[i] and not (rn and wn and rn == wn) then return false end
   end
   return true
end

function impl.set.ensure(sys, a)
   local why = kernel_not_own(sys)
   local running
   if not why then
      local argv = { "sysctl", "-n", a.key }
      local r = R.query(sys, "sysctl.set", argv)
      if r.code ~= 0 then
         R.fail("sysctl.set: the running kernel has no setting %s (%s)", a.key,
                R.tail(r.stderr, 2) ~= "" and R.tail(r.stderr, 2) or "sysctl -n failed")
      end
      running = squeeze(r.stdout)
   end
   local changed = false
   if not sys:exists(DIR) then
      sys:mkdir(DIR, { mode = tonumber("0755", 8) })
      changed = true
   end
   changed = conf.ensure_edit(sys, "sysctl.set", PATH, function(old)
      return conf.set_key(old or HEADER, a.key, a.value, o)
   end) or changed
   if why then
      if changed then
         sys:note(fmt("%s %s the file only, not applied to the running kernel: %s",
                      a.key, sys.dry and "would be set in" or "set in", why))
      end
   elseif not same_value(running, a.value) then
      R.run(sys, "sysctl.set", { "sysctl", "-w", a.key .. "=" .. a.value })
      sys:note(fmt("running %s: %s -> %s", a.key, running, a.value))
      changed = true
   end
   return changed and "changed" or "ok"
end

-- The probe: the value the running kernel holds now (sysctl -n, its
-- /proc/sys file), read back after sysctl -w: a value the kernel does
-- not keep as written, or one set again behind prop's back, is seen.
-- A kernel that is not the target's own is left alone: the file is all.
function impl.set.verify(sys, a)
   if kernel_not_own(sys) then return true end
   local r = R.query(sys, "sysctl.set", { "sysctl", "-n", a.key })
   if r.code ~= 0 then
      return false, fmt("the running kernel has no setting %s", a.key)
   end
   local running = squeeze(r.stdout)
   if same_value(running, a.value) then return true end
   return false, fmt("the running kernel holds %s = %s, want %s", a.key, running, a.value)
end

function impl.set.repair(sys, a)
   R.run(sys, "sysctl.set", { "sysctl", "-w", a.key .. "=" .. a.value })
end
-- sysctl -w is done when it returns: nothing to wait for.
impl.set.probe_timeout = 0

-- The line goes; a file left with nothing but comments goes too.
function impl.unset.ensure(sys, a)
   local old = sys:read(PATH)
   if old == nil then return "ok" end
   local new = conf.unset_key(old, a.key, a.value, o)
   if new == old then return "ok" end
   local keep = false
   for _, l in ipairs((R.split_lines(new))) do
      if l:find("%S") and not l:find("^%s*[#;]") then keep = true end
   end
   if keep then
      sys:write(PATH, new)
   else
      sys:remove(PATH)
   end
   sys:note(fmt("the running kernel keeps %s = %s until it boots again", a.key, a.value))
   return "changed"
end

-- A key in sysctl's dotted form: two or more words of letters, digits,
-- "_" and "-" joined by dots.
local function check_key(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   if not v:find("^[%w_-]+%.[%w_.-]*[%w_-]$") or v:find("..", 1, true) then
      return fmt('%s %s is not a sysctl key: expected dotted words of letters, digits, "_" '
                 .. 'and "-", such as "net.ipv4.ip_forward" (the slash form is not accepted)',
                 what, args.show(v))
   end
   return nil, v
end

--[[ sysctl.set(key, value)
  DebianLike, revertable: its revert removes the line (and the file once
  no setting is left in it); the running kernel keeps the value until it
  boots again.
  Claims: file.directory /etc/sysctl.d, and file.setting
  /etc/sysctl.d/60-prop.conf = "KEY=VALUE" (other
  keys agree; one key given two values on a host is P007).  The revert
  claims file.noline of that path = "KEY = VALUE".
  key: sysctl's dotted form ("vm.swappiness").  value: a string or an
  integer; a vector is written with blanks ("1024 65000").
  Run time: sets the line "KEY = VALUE" in /etc/sysctl.d/60-prop.conf
  (made when missing, with /etc/sysctl.d, which procps makes; other
  lines kept), then, when the running value
  (sysctl -n KEY) differs, runs sysctl -w KEY=VALUE.  A key the running
  kernel does not have is a failure, and the file is left alone.  In a
  container (chroot, nspawn, Docker) or a connect.dir tree, which share
  another machine's kernel, only the file is written, with a note: it
  takes effect when that system boots.  A later file of /etc/sysctl.d
  (99-sysctl.conf is /etc/sysctl.conf) setting the same key wins at boot.
  Verify: sysctl -n KEY (its /proc/sys file) reads back the value (word
  by word, numbers as numbers); repair: sysctl -w again.  A value the
  kernel does not keep as written fails with what it holds.  In a
  container or a tree: none, the file's effect is at next boot.
  Example:
    sysctl.set("net.ipv4.ip_forward", 1)
]]
function sysctl.set(key, value, opts)
   local desc = fmt("sysctl %s = %s", type(key) == "string" and key or "?",
                    (type(value) == "string" or math.type(value) == "integer") and value or "?")
   local kerr = check_key(key, "key")
   local verr, v = conf.check_value(value, "value")
   if not verr and v == "" then verr = "value must not be empty" end
   local msg = args.join("sysctl.set", kerr, verr, (args.options(opts, {}, "sysctl.set")))
   if msg then return core.invalid(desc, msg) end
   local a = { key = key, value = v }
   local set = core.leaf{ desc = fmt("sysctl %s = %s", key, v), targets = "DebianLike",
                          impl = impl.set, args = a,
                          claims = { claim.file_directory(DIR),
                                     claim.file_setting(PATH, conf.claim(key, v)) } }
   local unset = core.leaf{ desc = fmt("sysctl %s not set to %s", key, v), targets = "DebianLike",
                            impl = impl.unset, args = a,
                            claims = { claim.file_noline(PATH, conf.line(key, v, o)) } }
   return core.pair(set, unset)
end

return args.strict_module(sysctl, "sysctl")
