-- prop.purge: which entries of a directory the host's claims keep (on a
-- target in memory, its claims given as sys:claims would), and the
-- argument errors of file.directory's purge = true.
local T = require "check"
local P = prop_module "purge"
local F = prop_module "file"
local fakesys = require "fakesys"

-- A target holding dir's entries (names), listed by find as on a real
-- one, and claims as sys:claims gives them.
local function target(dir, names, claims, dry)
   local files = { [dir] = { type = "directory", mode = tonumber("0755", 8), uid = 0, gid = 0 } }
   local out = {}
   for _, n in ipairs(names) do
      local kind = n:sub(-1) == "/" and "directory" or "file"
      n = n:gsub("/$", "")
      files[dir .. "/" .. n] = { type = kind, content = "", mode = tonumber("0644", 8) }
      out[#out + 1] = dir .. "/" .. n .. "\0"
   end
   local sys = fakesys.new { files = files, dry = dry,
                             replies = { find = { code = 0, stdout = table.concat(out) } } }
   sys.claims = function(_, thing)
      local list = {}
      for _, c in ipairs(claims) do
         if P.at_or_below(c.key, thing) then list[#list + 1] = c end
      end
      return list
   end
   return sys
end

local D = "/etc/sudoers.d"
local claims = {
   { kind = "file.directory", key = D },
   { kind = "file.purged", key = D },
   { kind = "file.content", key = D .. "/admins" },
   { kind = "file.mode", key = D .. "/admins" },
   { kind = "file.owned", key = D .. "/hand" },
   { kind = "file.line", key = D .. "/lines" },
   { kind = "file.setting", key = D .. "/set" },
   { kind = "file.absent", key = D .. "/absent" },
   { kind = "file.content", key = D .. "/sub/deep/x" },
   { kind = "package.installed", key = "sudo" },
   { kind = "file.content", key = D .. "/adminsX" },
}
local sys = target(D, { "admins", "hand", "lines", "set", "absent", "old", "sub/", "stale/",
                        "admins~" }, claims)
T.eq(P.unclaimed(sys, "t", D),
     { D .. "/absent", D .. "/admins~", D .. "/old", D .. "/stale" },
     "unclaimed: file.absent keeps nothing, a claim below keeps its directory")
T.eq(P.unclaimed(sys, "t", D .. "/"), { D .. "/absent", D .. "/admins~", D .. "/old", D .. "/stale" },
     "unclaimed: a trailing slash")
T.eq(P.unclaimed(sys, "t", D, function(name) return name == "old" end),
     { D .. "/absent", D .. "/admins~", D .. "/stale" }, "unclaimed: a recipe's own keep")

-- purge: files removed, a directory with rm -rf, each noted.
local gone = P.purge(sys, "t", D)
T.eq(#gone, 4, "purge: four entries")
T.eq(sys.files[D .. "/old"], nil, "purge: a file removed")
T.ok(sys.files[D .. "/admins"] ~= nil, "purge: a claimed file kept")
T.eq(sys.log[#sys.log], "rm -rf -- " .. D .. "/stale", "purge: a directory removed whole")
T.eq(sys.notes, { "removed " .. D .. "/absent", "removed " .. D .. "/admins~",
                  "removed " .. D .. "/old", "removed " .. D .. "/stale" }, "purge: notes")

-- dry run: noted, nothing removed.
local dry = target(D, { "old", "stale/" }, claims, true)
P.purge(dry, "t", D)
T.ok(dry.files[D .. "/old"] ~= nil and dry.files[D .. "/stale"] ~= nil, "dry: nothing removed")
T.eq(dry.notes, { "would remove " .. D .. "/old", "would remove " .. D .. "/stale" }, "dry: notes")

-- A missing directory holds nothing; a file where the directory should be fails.
local none = fakesys.new {}
none.claims = function() return {} end
T.eq(P.unclaimed(none, "t", D), {}, "missing directory: nothing to remove")
local notdir = fakesys.new { files = { [D] = "x" } }
notdir.claims = function() return {} end
T.raises(function() P.unclaimed(notdir, "t", D) end, "is a file, not a directory",
         "a file at the path")
local tree = target(D, { "old" }, claims)
tree.transport = "dir:/srv/tree"
T.raises(function() P.unclaimed(tree, "file.directory", D) end,
         "a directory tree (connect.dir) runs no command", "a tree runs no find")
local bad = target(D, {}, claims)
bad.replies.find = { code = 1, stderr = "find: permission denied\n" }
T.raises(function() P.unclaimed(bad, "t", D) end, "find could not list " .. D .. " (exit 1)",
         "find fails")

-- file.directory's option.
T.err(T.invalid(F.directory, D, { purge = "yes" }), "file.directory: purge",
      "purge: a boolean")
T.err(T.invalid(F.directory, D, { pruge = true }), 'did you mean "purge"', "purge: misspelt")
T.eq(T.invalid(F.directory, D, { purge = true, mode = "0750" }), nil, "purge: good")

T.done()
