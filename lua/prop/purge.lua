-- prop.purge: a directory that holds exactly what the host's properties
-- declare.  One mechanism for file.directory's purge = true and the
-- recipes' options built on it (apt.sources_purged, sudo.rules_purged,
-- cron.purged, purge_sites = true of nginx and apache).
--
-- What is declared comes from the claims of the host's effective
-- properties (sys:claims(dir)): an entry directly in the directory is kept
-- when a file claim other than file.absent names it or a path below it (a
-- subdirectory that holds a claimed path is kept whole: the purge does
-- not descend).  Every other entry is removed: a file or a link with
-- sys:remove (a link is removed, never what it points to), a directory
-- with its tree (rm -rf, which follows no link).  In a dry run nothing is
-- removed and each entry is noted "would remove PATH".

local R = require "prop.runtime"

local P = {}

-- path without its trailing slashes ("/" stays "/").
local function trim(path)
   return (path:gsub("(.)/+$", "%1"))
end

-- Is path p the path d itself, or below it?
local function at_or_below(p, d)
   return p == d or p:sub(1, #d + 1) == d .. "/"
end
P.at_or_below = at_or_below

-- The claimed paths that keep entries of dir: every file claim at or below
-- dir (dir's own and file.absent claims keep nothing).
function P.kept_paths(sys, dir)
   local kept = {}
   for _, c in ipairs(sys:claims(dir)) do
      local kind, key = c.kind, c.key
      if type(kind) == "string" and kind:sub(1, 5) == "file." and kind ~= "file.absent"
         and type(key) == "string" then
         key = trim(key)
         if key ~= dir and at_or_below(key, dir) then kept[#kept + 1] = key end
      end
   end
   return kept
end

-- The entries directly in dir (a directory, or a link to one): a list of
-- { path =, name = } sorted by name.  Listed with find, which runs on
-- the target (a connect.dir tree runs no command: a failure there).
function P.entries(sys, what, dir)
   local st = sys:stat(dir)
   local real = dir
   if st and st.type == "link" then
      real = dir .. "/."
      st = sys:stat(real)
   end
   if st == nil then return {} end
   if st.type ~= "directory" then
      R.fail("%s: %s is a %s, not a directory", what, dir,
             st.type == "other" and "special file" or st.type)
   end
   if R.is_dir_tree(sys) then
      R.fail("%s: purge lists %s with find, and a directory tree (connect.dir) runs no "
             .. "command: purge on a host or container that runs commands", what, dir)
   end
   local list = {}
   for _, p in ipairs(R.find_paths(sys, what, "purge", dir,
                                   { "find", real, "-mindepth", "1", "-maxdepth", "1", "-print0" })) do
      local name = p:match("([^/]+)$")
      if name then list[#list + 1] = { name = name, path = (dir == "/" and "" or dir) .. "/" .. name } end
   end
   table.sort(list, function(x, y) return x.name < y.name end)
   return list
end

-- The entries of dir that no claim keeps (see P.kept_paths); keep(name,
-- path), when given, keeps more (what a recipe knows it must leave).
function P.unclaimed(sys, what, dir, keep)
   dir = trim(dir)
   local kept = P.kept_paths(sys, dir)
   local out = {}
   for _, e in ipairs(P.entries(sys, what, dir)) do
      local keepit = keep ~= nil and keep(e.name, e.path)
      for i = 1, #kept do
         if keepit then break end
         keepit = at_or_below(kept[i], e.path)
      end
      if not keepit then out[#out + 1] = e.path end
   end
   return out
end

-- Removes every unclaimed entry of dir and notes it ("removed PATH"; in a
-- dry run "would remove PATH" and nothing is removed).  Returns the list
-- of paths removed (or that would be).
function P.purge(sys, what, dir, keep)
   local gone = P.unclaimed(sys, what, dir, keep)
   for _, p in ipairs(gone) do
      if sys.dry then
         sys:note("would remove " .. p)
      else
         local st = sys:stat(p)
         if st and st.type == "directory" then
            R.run(sys, what, { "rm", "-rf", "--", p })
         elseif st then
            sys:remove(p)
         end
         sys:note("removed " .. p)
      end
   end
   return gone
end

-- A keep function for P.unclaimed: an entry a package installed (dpkg
-- on Debian and Ubuntu, rpm on the Red Hat family, pkg on FreeBSD says
-- it owns the path) is the package's: kept.  Nothing is kept when the
-- target has none of these.
function P.packaged(sys)
   local argv
   if sys:exists("/usr/bin/dpkg-query") then
      argv = { "dpkg-query", "-S" }
   elseif sys:exists("/usr/bin/rpm") or sys:exists("/bin/rpm") then
      argv = { "rpm", "-qf" }
   elseif sys:exists("/usr/sbin/pkg") then
      argv = { "pkg", "which", "-q" }
   else
      return nil
   end
   return function(_, path)
      local q = { table.unpack(argv) }
      q[#q + 1] = path
      local ok, r = pcall(sys.query, sys, q)
      if not ok then R.fail("purge: %s could not run: %s", argv[1], tostring(r)) end
      return r.code == 0 and (r.stdout or ""):find("%S") ~= nil
   end
end

-- The directory recipes: a leaf whose run purges dir, with a keep
-- function made at run time (keep(sys) -> function or nil).  claims:
-- file.directory and file.purged dir.
function P.leaf(o)
   local core = require "prop.core"
   local claim = core.claim
   local impl = {
      ensure = function(sys, a)
         -- A missing directory holds nothing the site does not declare.
         if sys:stat(a.dir) == nil then return "ok" end
         local keep = a.keep and a.keep(sys)
         return #P.purge(sys, a.what, a.dir, keep) > 0 and "changed" or "ok"
      end,
   }
   return core.leaf{ desc = o.desc, targets = o.targets, impl = impl,
                     args = { what = o.what, dir = o.dir, keep = o.keep },
                     claims = { claim.file_directory(o.dir), claim.file_purged(o.dir) },
                     norevert = o.what .. " has no revert action: what a purge removed is gone" }
end

return P
