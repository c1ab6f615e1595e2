-- prop.mount: file systems in /etc/fstab, and mounted.
--
-- Each entry is one line of /etc/fstab, found by its mount point (the
-- second field) and edited in place; the other lines stay.  Each
-- property claims its line as a setting of /etc/fstab named by the mount
-- point (file.setting), so two entries for one mount point on a host is
-- P007, and entries for other mount points agree.

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local R = require "prop.runtime"

local mount = {}

local fmt = string.format
local concat = table.concat

local FSTAB = "/etc/fstab"

local impl = { entry = {}, noentry = {}, mounted = {}, unmounted = {} }

-- fstab's own escapes for blanks and backslashes in a field.
local function escape(s)
   return (s:gsub("\\", "\\134"):gsub(" ", "\\040"):gsub("\t", "\\011"))
end

local function unescape(s)
   return (s:gsub("\\(%d%d%d)", function(o) return string.char(tonumber(o, 8)) end))
end

-- Active lines' fields: the list of { index, fields } whose mount point
-- is dir.
local function lines_for(lines, dir)
   local found = {}
   for i, l in ipairs(lines) do
      if not l:find("^%s*#") and l:find("%S") then
         local f = {}
         for w in l:gmatch("%S+") do f[#f + 1] = w end
         if f[2] and unescape(f[2]) == dir then found[#found + 1] = { i, f } end
      end
   end
   return found
end

local function same_fields(f, want)
   for i = 1, 6 do
      if (f[i] or (i >= 5 and "0") or nil) ~= want[i] then return false end
   end
   return #f <= 6
end

function impl.entry.ensure(sys, a)
   local path, st = R.follow(sys, FSTAB)
   if st and st.type ~= "file" then R.fail("mount.fstab_entry: %s is not a file", path) end
   local old = sys:read(path)
   local lines = R.split_lines(old)
   local found = lines_for(lines, a.dir)
   if #found == 1 and same_fields(found[1][2], a.fields) then return "ok" end
   local out, drop = {}, {}
   for j = 2, #found do drop[found[j][1]] = true end
   for i, l in ipairs(lines) do
      if found[1] and i == found[1][1] then
         out[#out + 1] = a.line
      elseif not drop[i] then
         out[#out + 1] = l
      end
   end
   if not found[1] then out[#out + 1] = a.line end
   sys:write(path, concat(out, "\n") .. "\n", { via = FSTAB,
                                                mode = old == nil and tonumber("0644", 8) or nil })
   return "changed"
end

function impl.noentry.ensure(sys, a)
   local path = R.follow(sys, FSTAB)
   local old = sys:read(path)
   if old == nil then return "ok" end
   local lines = R.split_lines(old)
   local drop = {}
   for _, x in ipairs(lines_for(lines, a.dir)) do
      if same_fields(x[2], a.fields) then drop[x[1]] = true end
   end
   if next(drop) == nil then return "ok" end
   local out = {}
   for i, l in ipairs(lines) do if not drop[i] then out[#out + 1] = l end end
   sys:write(path, #out > 0 and concat(out, "\n") .. "\n" or "", { via = FSTAB })
   return "changed"
end

-- Why nothing is mounted here, or nil: a directory tree runs no
-- commands, and its mounts would be this machine's.
local function cannot_mount(sys)
   if R.is_dir_tree(sys) then
      return "a directory tree runs no commands (its mounts would be this machine's)"
   end
   return nil
end

-- What is mounted at dir: { source =, fstype = } or nil.
local function mounted_at(sys, what, dir)
   local argv = { "findmnt", "-n", "-l", "-o", "SOURCE,FSTYPE", "--mountpoint", dir }
   local r = R.query(sys, what, argv)
   if r.code ~= 0 then return nil end
   local last = nil
   for l in r.stdout:gmatch("[^\n]+") do last = l end
   if last == nil then return nil end
   local src, fstype = last:match("^(%S+)%s+(%S+)")
   return { source = src, fstype = fstype }
end

-- Sources named by what they hold, or a file mounted through a loop
-- device, are shown by findmnt as the device: not compared.
local function comparable(a)
   return not a.src:find("^[%u]+=") and not (("," .. a.opts .. ","):find(",loop[,=]"))
end

function impl.mounted.ensure(sys, a)
   local what = "mount.mounted " .. a.dir
   local why = cannot_mount(sys)
   -- What is mounted is looked at first: a mount point holding something
   -- else fails before /etc/fstab is touched.
   local m = not why and mounted_at(sys, what, a.dir)
   if m then
      if m.fstype ~= a.fstype then
         R.fail("%s: %s has a %s file system mounted, not %s; unmount it first", what, a.dir,
                m.fstype, a.fstype)
      end
      if comparable(a) and m.source ~= a.src then
         R.fail("%s: %s has %s mounted, not %s; unmount it first", what, a.dir, m.source, a.src)
      end
   end
   local st = sys:stat(a.dir)
   if st and st.type ~= "directory" then
      R.fail("%s: %s is a %s, not a directory", what, a.dir, st.type)
   end
   local changed = impl.entry.ensure(sys, a) == "changed"
   if why then
      if changed then
         sys:note(fmt("%s %s in %s only, not mounted now: %s", a.dir,
                      sys.dry and "would be put" or "put", FSTAB, why))
      end
      return changed and "changed" or "ok"
   end
   if m then return changed and "changed" or "ok" end
   if st == nil then sys:mkdir(a.dir, { mode = tonumber("0755", 8) }) end
   R.run(sys, what, { "mount", "-t", a.fstype, "-o", a.opts, "--", a.src, a.dir })
   return "changed"
end

-- The probe (Linux): the top mount at dir in /proc/self/mountinfo, with
-- its source and type (as ensure compares them) and the generic flags of
-- the options (ro, rw, nosuid, nodev, noexec, noatime, ...: what the
-- kernel shows for every file system).  A file system's own options
-- (size=, mode=, ...) are shown in its own spelling: not compared.
local flag_opts = { ro = true, rw = true, nosuid = true, nodev = true, noexec = true,
                    noatime = true, nodiratime = true, relatime = true }
local cleared_by = { suid = "nosuid", dev = "nodev", exec = "noexec" }

local function mountinfo_at(sys, dir)
   local text = sys:read("/proc/self/mountinfo")
   if text == nil or text == "" then
      local r = sys:query({ "cat", "/proc/self/mountinfo" })
      if r.code ~= 0 then return nil, false end
      text = r.stdout
   end
   local top
   for l in text:gmatch("[^\n]+") do
      local f = {}
      for w in l:gmatch("%S+") do f[#f + 1] = w end
      if f[5] and unescape(f[5]) == dir then
         local dash
         for i = 7, #f do if f[i] == "-" then dash = i break end end
         if dash then
            top = { opts = f[6], fstype = f[dash + 1], source = f[dash + 2] and unescape(f[dash + 2]) }
         end
      end
   end
   return top, true
end

-- The declared options the mount at m lacks, as a list.
local function missing_flags(a, m)
   local have = {}
   for o in (m.opts .. ","):gmatch("([^,]*),") do have[o] = true end
   local miss = {}
   for o in (a.opts .. ","):gmatch("([^,]*),") do
      if flag_opts[o] and not have[o] then miss[#miss + 1] = o end
      if cleared_by[o] and have[cleared_by[o]] then miss[#miss + 1] = o end
   end
   return miss
end

function impl.mounted.verify(sys, a)
   if cannot_mount(sys) or R.is_freebsd(sys) then return true end
   local m, readable = mountinfo_at(sys, a.dir)
   if not readable then return true end
   if m == nil then return false, fmt("nothing is mounted on %s (/proc/self/mountinfo)", a.dir) end
   if m.fstype ~= a.fstype then
      return false, fmt("%s has a %s file system mounted, not %s", a.dir, m.fstype, a.fstype)
   end
   -- A bind mount's source is shown as the device that holds it.
   local bind = ("," .. a.opts .. ","):find(",r?bind,")
   if comparable(a) and not bind and m.source ~= a.src then
      return false, fmt("%s has %s mounted, not %s", a.dir, m.source, a.src)
   end
   local miss = missing_flags(a, m)
   if #miss > 0 then
      return false, fmt("%s is mounted with %s, without %s", a.dir, m.opts, concat(miss, ","))
   end
   return true
end

-- Not mounted: mounted; mounted without the declared flags: remounted
-- with the declared options.  Another file system there is left alone.
function impl.mounted.repair(sys, a)
   local what = "mount.mounted " .. a.dir
   local m = mountinfo_at(sys, a.dir)
   if m == nil then
      R.run(sys, what, { "mount", "-t", a.fstype, "-o", a.opts, "--", a.src, a.dir })
   elseif m.fstype == a.fstype and (not comparable(a) or m.source == a.src) then
      R.run(sys, what, { "mount", "-o", "remount," .. a.opts, "--", a.dir })
   end
end
-- A mount is there or not when mount returns: nothing to wait for.
impl.mounted.probe_timeout = 0

function impl.unmounted.ensure(sys, a)
   local what = "mount.mounted " .. a.dir .. " (revert)"
   local changed = impl.noentry.ensure(sys, a) == "changed"
   if cannot_mount(sys) then return changed and "changed" or "ok" end
   local m = mounted_at(sys, what, a.dir)
   if m and m.fstype == a.fstype and (not comparable(a) or m.source == a.src) then
      R.run(sys, what, { "umount", "--", a.dir })
      changed = true
   end
   return changed and "changed" or "ok"
end

local function check_field(v, what, example)
   local err = args.nonempty_string(v, what)
   if err then return err end
   if v:find("[%c]") or v:find("^#") then
      return fmt("%s %s must be one line without control characters, not starting with \"#\"",
                 what, args.show(v))
   end
   if example and v:find("%s") then
      return fmt("%s %s must be one word, such as %s", what, args.show(v), example)
   end
   return nil, v
end

local function check_opts(v, what)
   if type(v) == "table" then
      local err, list = args.string_list(v, what, { nonempty = true })
      if err then return err end
      v = concat(list, ",")
   end
   return check_field(v, what, '"defaults" or "noatime,nodev"')
end

local function check_pass(v, what)
   if math.type(v) ~= "integer" or v < 0 or v > 9 then
      return fmt("%s must be an integer in 0..9, got %s", what, args.show(v))
   end
   return nil, v
end

-- The arguments checked: nil and the table of the property, or the
-- message.
local function parse(recipe, src, dir, fstype, opts, more)
   local serr = check_field(src, "source")
   local derr = args.abs_path(dir, "mount point")
   if not derr and dir:find("=", 1, true) then
      derr = fmt('mount point %s must not contain "="', args.show(dir))
   end
   local terr = check_field(fstype, "fstype", '"ext4" or "tmpfs"')
   local oerr, o = check_opts(opts == nil and "defaults" or opts, "options")
   local merr, m = args.options(more, { dump = check_pass, pass = check_pass }, recipe)
   local msg = args.join(recipe, serr, derr, terr, oerr, merr)
   if msg then return msg end
   if #dir > 1 then dir = dir:gsub("/+$", "") end
   local fields = { escape(src), escape(dir), fstype, o, tostring(m.dump or 0),
                    tostring(m.pass or 0) }
   return nil, { src = src, dir = dir, fstype = fstype, opts = o, fields = fields,
                 line = concat(fields, " ") }
end

local function entry_claim(a)
   return concat({ a.fields[1], a.fstype, a.opts, a.fields[5], a.fields[6] }, " ")
end

--[[ mount.fstab_entry(src, dir, fstype [, opts] [, { dump=, pass= }])
  UnixLike, revertable: its revert removes the line (when it is still
  this entry).
  Claims: file.setting /etc/fstab = "DIR=SRC FSTYPE OPTS DUMP PASS": a
  second entry for one mount point on a host is P007.  The revert claims
  file.noline of /etc/fstab.
  src: a device, "UUID=...", "LABEL=...", a remote "host:/path", or a
  name such as "tmpfs".  opts: a string ("defaults", the default) or a
  list joined with ",".  dump and pass: the fifth and sixth fields (0).
  Run time: the line whose mount point is dir is replaced by
  "SRC DIR FSTYPE OPTS DUMP PASS" where it stands (other lines for dir
  go); with none it is appended.  Blanks in fields are written \040.
  Nothing is mounted: see mount.mounted.
  Example:
    mount.fstab_entry("UUID=3f1c...", "/srv", "ext4", "noatime", { pass = 2 })
]]
function mount.fstab_entry(src, dir, fstype, opts, more)
   local desc = fmt("fstab entry for %s", type(dir) == "string" and dir or "?")
   local msg, a = parse("mount.fstab_entry", src, dir, fstype, opts, more)
   if msg then return core.invalid(desc, msg) end
   local set = core.leaf{ desc = fmt("fstab: %s on %s (%s, %s)", a.src, a.dir, a.fstype, a.opts),
                          impl = impl.entry, args = a,
                          claims = { claim.file_setting(FSTAB, a.dir .. "=" .. entry_claim(a)) } }
   local unset = core.leaf{ desc = fmt("fstab: no %s on %s", a.src, a.dir), impl = impl.noentry,
                            args = a, claims = { claim.file_noline(FSTAB, a.line) } }
   return core.pair(set, unset)
end

--[[ mount.mounted(src, dir, fstype [, opts] [, { dump=, pass= }])
  UnixLike, revertable: its revert unmounts dir (when this file system
  is mounted there) and removes the fstab line.
  Claims: as mount.fstab_entry, and file.directory dir.
  Run time: the fstab entry as mount.fstab_entry, then, unless dir is
  already a mount point (findmnt), dir is made when missing and mount -t
  FSTYPE -o OPTS SRC DIR runs.  A mount point holding another file
  system type, or another source (sources given as UUID=/LABEL= or
  mounted with loop are not compared), fails: nothing is unmounted.  On
  a connect.dir tree only the fstab line is written, with a note.
  Verify (Linux): /proc/self/mountinfo has dir with that type and source
  (compared as above) and the generic flags of opts (ro, rw, nosuid,
  nodev, noexec, noatime, ...; a file system's own options such as
  size= are not compared); repair: mount, or mount -o remount,OPTS.
  Example:
    mount.mounted("tmpfs", "/var/cache/build", "tmpfs", { "size=2g", "mode=0755" })
]]
function mount.mounted(src, dir, fstype, opts, more)
   local desc = fmt("mounted %s", type(dir) == "string" and dir or "?")
   local msg, a = parse("mount.mounted", src, dir, fstype, opts, more)
   if msg then return core.invalid(desc, msg) end
   local set = core.leaf{ desc = fmt("%s mounted on %s (%s, %s)", a.src, a.dir, a.fstype, a.opts),
                          impl = impl.mounted, args = a,
                          claims = { claim.file_setting(FSTAB, a.dir .. "=" .. entry_claim(a)),
                                     claim.file_directory(a.dir) } }
   local unset = core.leaf{ desc = fmt("%s not mounted on %s", a.src, a.dir), impl = impl.unmounted,
                            args = a, claims = { claim.file_noline(FSTAB, a.line) } }
   return core.pair(set, unset)
end

return args.strict_module(mount, "mount")
