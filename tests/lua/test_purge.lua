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

-- packaged: what dpkg says a package owns is kept.
local pk = fakesys.new { files = { ["/usr/bin/dpkg-query"] = "" },
                         replies = { ["dpkg-query -S /etc/cron.d/e2scrub_all"] =
                                        { code = 0, stdout = "e2fsprogs: /etc/cron.d/e2scrub_all\n" },
                                     ["dpkg-query"] = { code = 1, stderr = "no path found\n" } } }
local keep = P.packaged(pk)
T.eq(keep("e2scrub_all", "/etc/cron.d/e2scrub_all"), true, "packaged: a package's file")
T.eq(keep("stale", "/etc/cron.d/stale"), false, "packaged: a stale file")
T.eq(P.packaged(fakesys.new {}), nil, "packaged: no package manager")

-- The recipes built on it take no arguments, or { purge_sites = }.
local sudo, cron, apt = prop_module "sudo", prop_module "cron", prop_module "apt"
local nginx, apache = prop_module "nginx", prop_module "apache"
T.err(T.invalid(sudo.rules_purged, { dir = "/etc" }), 'unknown key "dir" for sudo.rules_purged',
      "sudo.rules_purged: no options")
T.err(T.invalid(cron.purged, "/etc/cron.d"), "cron.purged", "cron.purged: no path")
T.err(T.invalid(apt.sources_purged, {}, 1), "apt.sources_purged takes no arguments",
      "apt.sources_purged: no arguments")
T.eq(T.invalid(sudo.rules_purged), nil, "sudo.rules_purged: good")
T.eq(T.invalid(cron.purged), nil, "cron.purged: good")
T.eq(T.invalid(apt.sources_purged), nil, "apt.sources_purged: good")
T.err(T.invalid(nginx.installed, { purge_sites = "yes" }),
      "nginx.installed: purge_sites must be true or false", "nginx: purge_sites a boolean")
T.err(T.invalid(nginx.installed, { purge = true }), 'unknown key "purge" for nginx.installed',
      "nginx: misspelt")
T.err(T.invalid(apache.installed, { purge_sites = true }, 2),
      "apache.installed takes one options table at most", "apache: one table")
T.err(T.invalid(apache.installed, { purge_sites = 1 }),
      "apache.installed: purge_sites must be true or false", "apache: purge_sites a boolean")
T.eq(T.invalid(nginx.installed, { purge_sites = true }), nil, "nginx: good")
T.eq(T.invalid(apache.installed), nil, "apache: no options")

-- purge_sites (prop.vhost): stale entries of sites-enabled removed, the
-- configuration tested, the server reloaded only when something went; a
-- refused configuration puts the links back.
local V = prop_module "vhost"
local EN = "/etc/demo/sites-enabled"
local function web(o)
   local files = { [EN] = { type = "directory", mode = tonumber("0755", 8) },
                   [EN .. "/keep"] = { type = "link", target = "/etc/demo/sites-available/keep" } }
   local listing = { EN .. "/keep\0" }
   if not o.clean then
      files[EN .. "/stale"] = { type = "link", target = "/etc/demo/sites-available/stale" }
      listing[#listing + 1] = EN .. "/stale\0"
   end
   local replies = o.replies or {}
   replies.find = { code = 0, stdout = table.concat(listing) }
   local w = fakesys.new { files = files, replies = replies, dry = o.dry }
   w.claims = function()
      return { { kind = "file.directory", key = EN }, { kind = "file.purged", key = EN },
               { kind = "file.symlink", key = EN .. "/keep" } }
   end
   return w
end
local pa = { what = "demo.installed", service = "demo", install = "demo.installed()", dir = EN,
             test = { "demo", "-t" } }
local w = web {}
T.eq(V.purge_enabled(w, pa), true, "purge_sites: something removed")
T.eq(w.files[EN .. "/stale"], nil, "purge_sites: the stale link gone")
T.ok(w.files[EN .. "/keep"] ~= nil, "purge_sites: the declared link kept")
T.eq({ w.log[#w.log - 2], w.log[#w.log] }, { "demo -t", "service demo reload" },
     "purge_sites: tested, then reloaded")
T.eq(w.notes, { "removed " .. EN .. "/stale", "demo reloaded" }, "purge_sites: notes")
w = web { clean = true }
T.eq(V.purge_enabled(w, pa), false, "purge_sites, nothing stale: nothing removed")
T.ok(not table.concat(w.log, "\n"):find("reload"), "purge_sites, nothing stale: no reload")
w = web { replies = { ["demo -t"] = { code = 1, stderr = "keep: unknown upstream\n" } } }
T.raises(function() V.purge_enabled(w, pa) end,
         "demo.installed: demo -t refused the configuration with the stale sites removed, so it was "
            .. "put back as it was", "purge_sites refused: the message")
T.eq(w.files[EN .. "/stale"], { type = "link", target = "/etc/demo/sites-available/stale" },
     "purge_sites refused: the link is back")
T.ok(not table.concat(w.log, "\n"):find("reload"), "purge_sites refused: not reloaded")
w = web { dry = true }
T.eq(V.purge_enabled(w, pa), true, "purge_sites, dry run: would remove")
T.ok(w.files[EN .. "/stale"] ~= nil, "purge_sites, dry run: nothing removed")
T.eq(w.notes, { "would remove " .. EN .. "/stale", "the new configuration would be tested with demo -t",
                "demo would be reloaded" }, "purge_sites, dry run: notes")

-- ssh.authorized_keys { exact = }.
local ssh = prop_module "ssh"
local KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHandAddedKeyHandAddedKeyHandAddedKeyAAA hand"
T.err(T.invalid(ssh.authorized_keys, "alice", KEY, { exact = "yes" }),
      "ssh.authorized_keys: exact must be true or false", "exact: a boolean")
T.err(T.invalid(ssh.authorized_keys, "alice", KEY, { exakt = true }),
      'unknown key "exakt" for ssh.authorized_keys (did you mean "exact"?)', "exact: misspelt")
T.eq(T.invalid(ssh.authorized_keys, "alice", KEY, { exact = true }), nil, "exact: good")

T.done()
