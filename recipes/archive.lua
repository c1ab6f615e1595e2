-- prop.archive: archives (tar with gzip, bzip2, xz or zstd; zip)
-- extracted into a directory of the target.
--
-- prop reads the archive itself (engine/src/archive.c, through
-- core.archive_entries): the target needs no tar.  Each entry is
-- compared with the target (stat, then the content for a file of the
-- right size) and only those that differ are written, each file
-- atomically.  An archive beside the site is read when the site is, so
-- lint sees a corrupt one and the pre-pass sees its files; one on the
-- target (a path, or what file.downloaded fetched) is read at run time.

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local R = require "prop.runtime"

local archive = {}

local fmt = string.format

local impl = { extracted = {} }

local function entries_of(bytes, name, a)
   return core.archive_entries(bytes, name, { strip = a.strip, exclude = a.exclude })
end

-- The directory dir (below dest, or dest itself) exists and is no link:
-- made (0755) when missing.  known caches what was seen.
local function ensure_dir(sys, what, dir, known)
   if known[dir] then return false end
   local st = sys:stat(dir)
   if st == nil then
      local parent = dir:match("^(.*)/[^/]+$")
      if parent and parent ~= "" then ensure_dir(sys, what, parent, known) end
      sys:mkdir(dir, { mode = 493 })
      known[dir] = true
      return true
   end
   if st.type ~= "directory" then
      R.fail("%s: %s is a %s, not a directory; an entry of the archive is below it", what, dir,
             st.type)
   end
   known[dir] = true
   return false
end

local function join(dest, path)
   return (dest == "/" and "" or dest) .. "/" .. path
end

local function file_mode(e, default)
   return (e.mode ~= nil and e.mode ~= 0) and e.mode or default
end

-- One entry against the target: true when something was written.
local function ensure_entry(sys, what, a, e, by_path, known)
   local full = join(a.dest, e.path)
   local parent = full:match("^(.*)/[^/]+$")
   local changed = ensure_dir(sys, what, parent, known)
   local o = { owner = a.owner, group = a.group }
   local st = sys:stat(full)
   if e.type == "directory" then
      o.mode = file_mode(e, 493)
      if st == nil then
         sys:mkdir(full, o)
         known[full] = true
         return true
      end
      if st.type ~= "directory" then
         R.fail("%s: %s is a %s; the archive has a directory there", what, full, st.type)
      end
      known[full] = true
      local fix = R.attrs_to_fix(st, o)
      if fix then sys:chattr(full, fix) return true end
      return changed
   end
   if e.type == "symlink" then
      if st and st.type == "link" and st.target == e.target then return changed end
      if st and st.type ~= "link" then
         R.fail("%s: %s is a %s; the archive has a symbolic link there (to %s)", what, full,
                st.type, e.target)
      end
      sys:symlink(e.target, full)
      return true
   end
   -- A file; a hard link is extracted as a copy of its file.
   local content = e.content
   if e.type == "hardlink" then content = by_path[e.target].content end
   o.mode = file_mode(e, 420)
   if st and st.type == "directory" then
      R.fail("%s: %s is a directory; the archive has a file there", what, full)
   end
   if st and st.type == "file" and st.size == #content and sys:has_content(full, content) then
      local fix = R.attrs_to_fix(st, o)
      if fix then sys:chattr(full, fix) return true end
      return changed
   end
   sys:write(full, content, o)
   return true
end

function impl.extracted.ensure(sys, a)
   local what = "archive.extracted " .. a.dest
   if a.creates and sys:exists(a.creates) then return "ok" end
   local list = a.entries
   if list == nil then
      local st = sys:stat(a.src)
      if st == nil then
         if sys.dry and a.downloaded then
            sys:note(fmt("would extract %s into %s once it is downloaded", a.src, a.dest))
            return "changed"
         end
         R.fail("%s: the archive %s is not on the target", what, a.src)
      end
      local err
      list, err = entries_of(sys:read(a.src), a.src, a)
      if list == nil then R.fail("%s: %s", what, err) end
   end
   local dst = sys:stat(a.dest)
   if dst and dst.type ~= "directory" then
      R.fail("%s: %s is a %s, not a directory", what, a.dest, dst.type)
   end
   local known, by_path, changed = {}, {}, false
   changed = ensure_dir(sys, what, a.dest, known)
   for _, e in ipairs(list) do
      if e.type == "file" then by_path[e.path] = e end
      if ensure_entry(sys, what, a, e, by_path, known) then changed = true end
   end
   return changed and "changed" or "ok"
end

local function check_account(v, what)
   if math.type(v) == "integer" and v >= 0 then return nil, tostring(v) end
   return args.matching(v, what, "[%w_][%w_.-]*", "a user or group name, or a number")
end

local schema = {
   strip = function(v, what)
      if math.type(v) ~= "integer" or v < 0 or v > 1000 then
         return fmt("%s must be a count of leading path components (0..1000), got %s", what,
                    args.show(v))
      end
      return nil, v
   end,
   owner = check_account, group = check_account,
   creates = args.abs_path,
   exclude = function(v, what)
      if type(v) == "string" then v = { v } end
      return args.list(v, what, function(x, w)
         local err = args.nonempty_string(x, w)
         if err then return err end
         return nil, x
      end, { nonempty = true })
   end,
}

-- What src names: a table { kind = "site" | "target", path =, node = }.
local function check_src(v, what)
   if type(v) == "string" then
      if v == "" then return fmt("%s must not be empty", what) end
      if v:sub(1, 1) == "/" then return nil, { kind = "target", path = v } end
      return nil, { kind = "site", path = v }
   end
   local dl = require "prop.download"
   local path = dl.path_of(v)
   if path then return nil, { kind = "target", path = path, node = v } end
   return fmt('%s must be a file beside the site ("files/app.tar.gz"), an absolute path on '
              .. "the target, or a file.downloaded property, got %s", what, args.got(v))
end

-- The claims of an archive read when the site is: each entry's path.
local function entry_claims(dest, list, o)
   local claims, by_path = { claim.file_directory(dest) }, {}
   for _, e in ipairs(list) do
      local full = join(dest, e.path)
      if e.type == "file" then
         by_path[e.path] = e
         claims[#claims + 1] = claim.file_content(full, e.content)
      elseif e.type == "hardlink" then
         claims[#claims + 1] = claim.file_content(full, by_path[e.target].content)
      elseif e.type == "directory" then
         claims[#claims + 1] = claim.file_directory(full)
      else
         claims[#claims + 1] = claim.file_symlink(full, e.target)
      end
      if o.owner or o.group then
         claims[#claims + 1] = claim.file_owner(full, (o.owner or "") .. ":" .. (o.group or ""))
      end
   end
   return claims
end

--[[ archive.extracted(dest, src [, { strip=, owner=, group=, creates=, exclude= }])
  UnixLike, not revertable.  See man/prop-site.5, "archive".
]]
function archive.extracted(dest, src, opts)
   local desc = "archive extracted into " .. (type(dest) == "string" and dest or "?")
   local err, v = args.check_all(args.abs_path, dest, "dest", check_src, src, "src")
   local oerr, o = args.options(opts, schema, "archive.extracted")
   local msg = args.join("archive.extracted", err, oerr)
   if msg then return core.invalid(desc, msg) end
   local s = v[2]
   local a = { dest = v[1]:gsub("/+$", ""), strip = o.strip, exclude = o.exclude,
               owner = o.owner, group = o.group, creates = o.creates }
   if a.dest == "" then a.dest = "/" end
   local claims
   if s.kind == "site" then
      local bytes, shown = core.site_file(s.path)
      local list, aerr = entries_of(bytes, shown, a)
      if list == nil then return core.invalid(desc, "archive.extracted: " .. aerr) end
      a.entries = list
      a.src = shown
      claims = entry_claims(a.dest, list, o)
   else
      a.src = s.path
      a.downloaded = s.node ~= nil
      claims = { claim.file_directory(a.dest) }
   end
   desc = fmt("archive %s extracted into %s", a.src, a.dest)
   local node = core.leaf{ desc = desc, impl = impl.extracted, args = a, claims = claims,
                           norevert = "archive.extracted has no revert action: what its "
                              .. "entries replaced is not known" }
   if s.node then return core.requires(node, s.node) end
   return node
end

return args.strict_module(archive, "archive")
