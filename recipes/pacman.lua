-- prop.pacman: Arch Linux packages through pacman.
--
-- ArchLinux.  A package is named by its name ("nginx", "python-pip").

local args = require "prop.args"
local R = require "prop.runtime"
local packaging = require "prop.packaging"

local pacman = {}

local impl = { installed = {}, removed = {}, upgraded = {} }

local fmt = string.format
local concat = table.concat

-- Run time -------------------------------------------------------------

-- pacman with the options (--root, --config), in the C locale: prop reads
-- its messages.
local function pacman_argv(opts, ...)
   local argv = { "env", "LC_ALL=C", "pacman" }
   if opts.root then argv[#argv + 1], argv[#argv + 2] = "--root", opts.root end
   if opts.config then argv[#argv + 1], argv[#argv + 2] = "--config", opts.config end
   for i = 1, select("#", ...) do argv[#argv + 1] = select(i, ...) end
   return argv
end

-- The packages of list that are not installed, as a set: pacman -Q says
-- "error: package 'NAME' was not found" for each.
-- Whether the target has pacman's local database (of the tree, with the
-- options).  pacman -Q makes one where there is none: a tree without one
-- has nothing installed, and a look must not change it.
local function has_local_db(sys, recipe, opts)
   if not (opts.root or opts.config) then return true end
   local conf = { "pacman-conf" }
   if opts.root then conf[#conf + 1], conf[#conf + 2] = "--root", opts.root end
   if opts.config then conf[#conf + 1], conf[#conf + 2] = "--config", opts.config end
   conf[#conf + 1] = "DBPath"
   local r = R.query(sys, recipe, conf)
   local dbpath = r.code == 0 and r.stdout:match("^%s*(/[^\n]-)/*%s*$")
   if not dbpath then R.command_failed(recipe, conf, r) end
   return sys:exists(dbpath .. "/local/ALPM_DB_VERSION")
end

local function not_installed(sys, recipe, list, opts)
   if not has_local_db(sys, recipe, opts) then
      local all = {}
      for _, p in ipairs(list) do all[p] = true end
      return all
   end
   local argv = pacman_argv(opts, "-Q", "--")
   for _, p in ipairs(list) do argv[#argv + 1] = p end
   local r = R.query(sys, recipe, argv)
   local missing, n = {}, 0
   for name in r.stderr:gmatch("package '([^'\n]+)' was not found") do
      missing[name] = true
      n = n + 1
   end
   if r.code ~= 0 and n == 0 then R.command_failed(recipe, argv, r) end
   return missing
end

-- pacman at run time, for the loop of prop.runtime (R.ensure_packages).
local runtime = {
   missing = not_installed,
   argv = function(_, opts, want, todo)
      local argv = want and pacman_argv(opts, "-S", "--noconfirm", "--needed", "--")
         or pacman_argv(opts, "-R", "--noconfirm", "--")
      for _, p in ipairs(todo) do argv[#argv + 1] = p end
      return argv
   end,
}

-- pacman-conf's whole configuration (with the options): its DBPath and
-- its repositories, each { name =, server = the first Server }.
local function read_conf(sys, recipe, opts)
   local conf = { "pacman-conf" }
   if opts.root then conf[#conf + 1], conf[#conf + 2] = "--root", opts.root end
   if opts.config then conf[#conf + 1], conf[#conf + 2] = "--config", opts.config end
   local r = R.query(sys, recipe, conf)
   if r.code ~= 0 then R.command_failed(recipe, conf, r) end
   local c, repo = { repos = {} }, nil
   for line in r.stdout:gmatch("[^\n]+") do
      local section = line:match("^%[(.-)%]%s*$")
      if section then
         repo = section ~= "options" and { name = section } or nil
         if repo then c.repos[#c.repos + 1] = repo end
      else
         local k, v = line:match("^(%w+) = (.-)%s*$")
         if k == "DBPath" and not repo then
            c.dbpath = v:gsub("/+$", "")
         elseif k == "Server" and repo and not repo.server then
            repo.server = v
         end
      end
   end
   return c
end

-- Whether pacman -Sy left a repository on the target's own files
-- (Server = file://...) behind: pacman asks for a database only when it
-- is newer than its copy, to the second, so one rebuilt within the second
-- its copy was taken in looks unchanged.  Their copies are compared with
-- the repositories' files (sha256sum, of coreutils, which every system
-- with pacman has); servers elsewhere are left to -Sy.
local function local_repo_stale(sys, opts)
   local c = read_conf(sys, "pacman.upgraded", opts)
   if not c.dbpath then return false end
   for _, repo in ipairs(c.repos) do
      local dir = repo.server and repo.server:match("^file://(/.*)$")
      if dir then
         local argv = { "sha256sum", "--", fmt("%s/sync/%s.db", c.dbpath, repo.name),
                        fmt("%s/%s.db", dir:gsub("/+$", ""), repo.name) }
         local r = R.query(sys, "pacman.upgraded", argv)
         -- Not 0: one is missing, which -Sy has said already.
         local copy, there = r.stdout:match("^(%x+) [^\n]*\n(%x+) ")
         if r.code == 0 and copy and copy ~= there then return true end
      end
   end
   return false
end

function impl.upgraded.ensure(sys, a)
   -- pacman -Sy refreshes the sync databases only: run as a look, like
   -- pkg.upgraded's pkg update, so that "nothing to upgrade" is ok.  A
   -- local repository it missed (rebuilt within the second of its copy)
   -- is fetched again with -Syy.  A dry run does not refresh them: it says
   -- what the databases it has would upgrade.
   if not sys.dry then
      local sync = pacman_argv(a.opts, "-Sy")
      local r = sys:query(sync)
      if r.code ~= 0 then R.command_failed("pacman.upgraded", sync, r) end
      if local_repo_stale(sys, a.opts) then
         sync = pacman_argv(a.opts, "-Syy")
         r = sys:query(sync)
         if r.code ~= 0 then R.command_failed("pacman.upgraded", sync, r) end
      end
   end
   if not has_local_db(sys, "pacman.upgraded", a.opts) then return "ok" end
   -- pacman -Qu: the packages with a newer version; exit 1 when none.
   local qu = pacman_argv(a.opts, "-Qu")
   local r = R.query(sys, "pacman.upgraded", qu)
   local pkgs = {}
   for line in r.stdout:gmatch("[^\n]+") do pkgs[#pkgs + 1] = line:match("^(%S+)") end
   if #pkgs == 0 then
      -- Exit 1 and nothing listed: nothing to upgrade (a warning such as a
      -- sync database not yet downloaded may come with it).
      if r.code == 0 or r.code == 1 then return "ok" end
      R.command_failed("pacman.upgraded", qu, r)
   end
   R.run(sys, "pacman.upgraded", pacman_argv(a.opts, "-Su", "--noconfirm"))
   local shown = concat(pkgs, " ", 1, math.min(#pkgs, 20))
   if #pkgs > 20 then shown = shown .. " ..." end
   sys:note(fmt("%s %d package%s: %s", sys.dry and "would upgrade" or "upgraded", #pkgs,
                #pkgs == 1 and "" or "s", shown))
   return "changed"
end

-- Properties -------------------------------------------------------------

local function check_package(v, what)
   return args.matching(v, what, "[%w@_+][%w@._+-]*",
                        'an Arch Linux package name such as "nginx" or "python-pip"')
end

local M = packaging.manager {
   tool = "pacman", targets = "ArchLinux", impl = impl, check = check_package, runtime = runtime,
   options = { root = args.abs_path, config = args.abs_path },
   where = function(o) return o.root and " in " .. o.root or nil end,
}
local installed, removed = M.pair("installed", "removed"), M.pair("removed", "installed")
local upgraded = M.no_args("upgraded",
   "pacman.upgraded has no revert action: pacman cannot downgrade to the versions that were installed before")

--[[ pacman.installed(pkgs [, { root=, config= }])
  ArchLinux, revertable: its revert is pacman.removed(pkgs) with the
  same options.
  Claims: package.installed for each package (" in ROOT" after the name
  with root).
  pkgs: a list of package names, or one name; the options may be given
  in the list: pacman.installed { "base", root = "/mnt" }.
  root: install into the tree at that path of the target (pacman --root;
  its database and log are the tree's); config: another pacman.conf
  (pacman --config), as pacstrap -C.
  Run time: pacman -Q tells which are missing; pacman -S --noconfirm
  --needed of those.  pacman's message says why it could not ("target
  not found").
  Example:
    pacman.installed { "nginx", "certbot" }
]]
function pacman.installed(...)
   return installed(...)
end

--[[ pacman.removed(pkgs [, { root=, config= }])
  ArchLinux, revertable: its revert is pacman.installed(pkgs).
  Claims: package.removed for each package.
  Run time: pacman -Q, then pacman -R --noconfirm of the installed ones.
  Example:
    pacman.removed "telnet"
]]
function pacman.removed(...)
   return removed(...)
end

--[[ pacman.upgraded([{ root=, config= }])
  ArchLinux, not revertable.  Every package at its newest version.
  Claims nothing.
  Run time: pacman -Sy (the sync databases), then pacman -Qu: nothing
  newer is ok; else pacman -Su --noconfirm and changed.  pacman -Sy
  fetches a database only when it is newer than its copy, to the second:
  a repository on the target's files (Server = file://...) whose
  database differs from its copy (sha256sum) is fetched again with pacman
  -Syy, so one rebuilt within the same second is not missed.  A dry run
  does not refresh the databases.
  Example:
    pacman.upgraded()
]]
function pacman.upgraded(...)
   return upgraded(...)
end

return args.strict_module(pacman, "pacman")
