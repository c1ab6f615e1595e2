-- prop.container: what the container recipes (chroot, systemd, docker,
-- jail) share: checking their arguments, the info a container carries
-- (container.*), and making a Debian or Ubuntu tree on the parent host,
-- from a cached tarball when there is one, else with debootstrap.
--
-- A tree is made in PATH.prop-new and renamed to PATH only once it is
-- complete, so a tree at PATH is never half-made: an interrupted
-- debootstrap leaves PATH.prop-new, which the next run removes and makes
-- again.  Daemons never start in a tree prop made: it gets a
-- /usr/sbin/policy-rc.d that refuses every start (invoke-rc.d and the
-- package scripts ask it).

local core = require "prop.core"
local args = require "prop.args"
local R = require "prop.runtime"

local M = {}

local fmt, concat = string.format, table.concat

M.default_cache = "/var/cache/prop/rootfs"

local mirrors = {
   debian = "http://deb.debian.org/debian",
   buntish = "http://archive.ubuntu.com/ubuntu",
}

-- An os.* property: nil and { family=, suite=, arch= }, or a message.
function M.check_os(v, what, families)
   if not core.is_property(v) or v.kind ~= "info" or not v.info.os then
      return fmt('%s must be an OS declaration such as os.debian("bookworm", "amd64"), got %s',
                 what, args.got(v))
   end
   local family, suite, arch = v.info.os[1]:match("^(%S+) (%S+) (%S+)$")
   if families and not families[family] then
      local names = {}
      for f in pairs(families) do names[#names + 1] = f end
      table.sort(names)
      return fmt("%s is %s: this kind of container runs %s", what, family, concat(names, " or "))
   end
   return nil, { family = family, suite = suite, arch = arch }
end

-- A container's path: absolute, and not / (it is removed on revert).
function M.check_path(v, what)
   local err = args.abs_path(v, what)
   if err then return err end
   local p = v:gsub("/+$", "")
   if p == "" then
      return fmt("%s must not be / : a container is a directory of its own", what)
   end
   return nil, p
end

-- A path of the parent given to a container (a Docker volume, a machine's
-- bind) that gives the container the parent's root: why, or nil (warning
-- W109).  The path is taken as the parent would ("/srv/..", "//" are "/").
function M.host_root(path)
   local parts = {}
   for part in path:gmatch("[^/]+") do
      if part == ".." then
         parts[#parts] = nil
      elseif part ~= "." then
         parts[#parts + 1] = part
      end
   end
   local p = "/" .. concat(parts, "/")
   local socket = "whoever talks to it runs containers of its choosing, as root on the host"
   if p == "/" then
      return "it is the host's root directory, with every file of the host"
   elseif p == "/run/docker.sock" or p == "/var/run/docker.sock" then
      return "it is the Docker socket, and " .. socket
   elseif p == "/run" or p == "/var/run" then
      return "it holds the Docker socket (docker.sock), and " .. socket
   end
   return nil
end

-- Warning W109 at the user's line: what (a recipe's argument, shown)
-- gives the container the host's root, because why.
function M.warn_host_root(recipe, what, why)
   core.warn("W109", fmt("%s: %s gives the container the host's root: %s (if that is meant, add "
                         .. "{ host_root = true } to its arguments)", recipe, what, why))
end

function M.check_name(v, what)
   return args.matching(v, what, "[%w][%w_.-]*", 'a name such as "web" (letters, digits, "_", ".", "-")')
end

-- A function in a host's list is a role that knows its host: it is called
-- with a read-only view of the host (name, os, suite, arch, info: what the
-- list's other entries declare) and its properties (one, a list, or none
-- as an empty list) take its place in the list.  So a role chooses by
-- release while the site is evaluated, where the checker sees the result.
local function host_view(name, list)
   local info = {}
   for _, v in ipairs(list) do
      if type(v) ~= "function" and type(v) ~= "table" or getmetatable(v) ~= nil then
         local ok, i = pcall(function() return v.info end)
         if ok and type(i) == "table" then
            for k, x in pairs(i) do if info[k] == nil then info[k] = x end end
         end
      end
   end
   local family, suite, arch
   local os_info = info.os
   if type(os_info) == "table" then os_info = os_info[1] end
   if type(os_info) == "string" then family, suite, arch = os_info:match("^(%S+)%s*(%S*)%s*(%S*)") end
   -- The properties of the list (nested lists flattened, roles left out).
   local props = {}
   local function collect(l, depth)
      for _, v in ipairs(l) do
         if core.is_property(v) then
            props[#props + 1] = v
         elseif depth < 32 and type(v) == "table" and getmetatable(v) == nil then
            collect(v, depth + 1)
         end
      end
   end
   collect(list, 0)
   local view = { name = name, os = family, suite = suite ~= "" and suite or nil,
                  arch = arch ~= "" and arch or nil, info = info, properties = props }
   return setmetatable({}, {
      __index = function(_, k)
         if view[k] ~= nil or k == "suite" or k == "arch" or k == "os" then return view[k] end
         error(string.format("a host given to a role has no field \"%s\" (it has name, os, suite, arch, info, properties)",
                             tostring(k)), 2)
      end,
      __newindex = function() error("the host given to a role is read-only", 2) end,
      __metatable = false,
   })
end

-- A plain list (not a property, a secret or another object of prop's).
local function is_list(v)
   return type(v) == "table" and getmetatable(v) == nil and not core.is_property(v)
end

local MAX_DEPTH = 32

local function has_role(list, depth)
   for _, v in ipairs(list) do
      if type(v) == "function" then return true end
      if depth < MAX_DEPTH and is_list(v) and has_role(v, depth + 1) then return true end
   end
   return false
end

-- Each list is copied once (done maps a list or a role to its copy), and
-- what a role returns is a list of its own even when it is one property:
-- the pre-pass tells the lists apart (the same property twice in one
-- list is W101, from two lists two needs that agree), so a list or a
-- role given twice stays one list.
local function expand(name, list, view, depth, done)
   local out = {}
   done[list] = out
   for i, v in ipairs(list) do
      if done[v] then
         out[#out + 1] = done[v]
      elseif type(v) == "function" then
         local r = v(view)
         if r == nil then
            error({ own = string.format('host "%s": the role at entry %d returned nothing; a role '
                                        .. "returns a property or a list of them (an empty list "
                                        .. "for none)", name, i) })
         end
         if core.is_property(r) then r = { r } end
         if depth < MAX_DEPTH then r = expand(name, r, view, depth + 1, done) end
         done[v] = r
         out[#out + 1] = r
      elseif depth < MAX_DEPTH and is_list(v) then
         out[#out + 1] = expand(name, v, view, depth + 1, done)
      else
         out[#out + 1] = v
      end
   end
   return out
end

-- list with every role in it (at any depth of nested lists, and in what
-- a role returns) replaced by what it returns; list itself when it has
-- none.  The view's os and info come from the entries of context (the
-- list itself when nil; a container passes its os property too).
function M.expand_roles(name, list, context)
   if not is_list(list) or not has_role(list, 0) then return list end
   local ok, r = pcall(expand, name, list, host_view(name, context or list), 0, {})
   if ok then return r end
   if type(r) == "table" and r.own then error(r.own, 3) end
   error(r, 0)
end

-- The properties of a container: a list (nested lists flattened).
function M.check_props(v, what)
   if type(v) ~= "table" or core.is_property(v) then
      return fmt("%s must be a list of properties { ... }, got %s", what, args.got(v))
   end
   return nil, v
end

-- An info leaf of the container: container.KEY = value, for each pair.
function M.info(desc, pairs_)
   local info = {}
   for i = 1, #pairs_, 2 do
      info[#info + 1], info[#info + 2] = "container." .. pairs_[i], tostring(pairs_[i + 1])
   end
   return core.leaf{ desc = desc, info = info, info_only = true,
                     norevert = desc .. " is information about the container; it has nothing to revert" }
end

-- Ports a recipe declares by default that another property of the same
-- machine replaces (apache.installed's 80, by apache.listen_ports):
-- each rule is { owner = the description prefix of the leaves whose ports
-- are replaced, by = function(leaf) -> the ports that replace them, or nil
-- for a leaf that replaces none }.  Recipes add theirs.
M.port_rules = {}
function M.replaced_ports(owner, by)
   M.port_rules[#M.port_rules + 1] = { owner = owner, by = by }
end

-- The ports the properties of container h use (their ports=), sorted:
-- those of the host too when the container shares its network namespace.
function M.used_ports(h)
   local seen, leaves = {}, {}
   local function walk(p, depth)
      if seen[p] or depth > 64 then return end
      seen[p] = true
      local children = p.children or {}
      if #children == 0 then leaves[#leaves + 1] = p end
      for _, c in ipairs(children) do walk(c, depth + 1) end
   end
   for _, p in ipairs(h.properties) do walk(p, 0) end
   local set, out = {}, {}
   local function add(x)
      if not set[x] then
         set[x] = true
         out[#out + 1] = x
      end
   end
   local replaced = {}
   for _, rule in ipairs(M.port_rules) do
      for _, l in ipairs(leaves) do
         local list = rule.by(l)
         if list then
            replaced[rule.owner] = true
            for _, x in ipairs(list) do add(x) end
         end
      end
   end
   for _, l in ipairs(leaves) do
      local desc, skip = l.desc, false
      for owner in pairs(replaced) do
         if type(desc) == "string" and desc:sub(1, #owner) == owner then skip = true end
      end
      if not skip then
         for _, x in ipairs(l.ports or {}) do add(x) end
      end
   end
   table.sort(out)
   return out
end

-- The first value of container.KEY on the container host h (eval or run time).
function M.get(h, key)
   return h:info("container." .. key)[1]
end

-- ---------------------------------------------------------------------
-- Run time: trees on the parent host.

-- What makes a tree: its suite, arch, debootstrap variant, mirror and
-- extra packages.  Two trees made alike share one cached tarball.
function M.tree_spec(h)
   return {
      family = M.get(h, "family"), suite = M.get(h, "suite"), arch = M.get(h, "arch"),
      variant = M.get(h, "variant") or "minbase", mirror = M.get(h, "mirror"),
      include = M.get(h, "include"), tarball = M.get(h, "tarball"),
      cache = M.get(h, "cache") or M.default_cache,
   }
end

local function cache_file(spec)
   local extra = (spec.mirror or "") .. "|" .. (spec.include or "")
   local sum = 0
   for i = 1, #extra do sum = (sum * 31 + extra:byte(i)) % 4294967296 end
   return fmt("%s/%s-%s-%s-%s-%08x.tar.gz", spec.cache, spec.family, spec.suite, spec.arch,
              spec.variant, sum)
end
M.cache_file = cache_file

local tar_keep = { "--numeric-owner", "--xattrs", "--xattrs-include=*", "--acls" }

local function tar_argv(...)
   local argv = { "tar" }
   for _, w in ipairs(tar_keep) do argv[#argv + 1] = w end
   for _, w in ipairs { ... } do argv[#argv + 1] = w end
   return argv
end

-- Remove a tree, on one file system only (never what is mounted below it).
function M.remove_tree(sys, what, path)
   if not sys:exists(path) then return false end
   -- Mounts a run left below it (a killed provisioning): unmounted first.
   local mounts = sys:read("/proc/self/mounts") or ""
   local below = {}
   for mp in mounts:gmatch("%S+ (%S+) [^\n]*\n") do
      if mp == path or mp:sub(1, #path + 1) == path .. "/" then below[#below + 1] = mp end
   end
   table.sort(below, function(a, b) return #a > #b end)
   for _, mp in ipairs(below) do R.run(sys, what, { "umount", "-l", mp }) end
   R.run(sys, what, { "rm", "-rf", "--one-file-system", "--", path })
   return true
end

-- The tree at path is there and complete: make it when it is not (from
-- spec.tarball, the cache, or debootstrap, which then fills the cache).
function M.ensure_tree(sys, what, path, spec)
   if sys:exists(path .. "/bin/sh") or sys:exists(path .. "/usr/bin/sh") then return false end
   if sys:exists(path) then
      local r = sys:query({ "ls", "-A", path })
      if r.code == 0 and r.stdout ~= "" then
         R.fail("%s: %s exists and is not a system (no /bin/sh in it): prop does not replace it",
                what, path)
      end
      sys:remove(path)
   end
   local staging = path .. ".prop-new"
   if sys:exists(staging) then
      sys:note("removing " .. staging .. ", left by an interrupted run")
      M.remove_tree(sys, what, staging)
   end
   local parent = path:match("^(.*)/[^/]+$")
   if parent ~= "" and not sys:exists(parent) then
      R.run(sys, what, { "mkdir", "-p", "--", parent })
   end
   R.run(sys, what, { "mkdir", "-m", "0755", "--", staging })
   local source = spec.tarball
   local cached = not source and cache_file(spec)
   if cached and sys:exists(cached) then source = cached end
   if source then
      R.run(sys, what, tar_argv("-C", staging, "-xpzf", source))
      sys:note((sys.dry and "would unpack " or "unpacked ") .. source)
   else
      local argv = { "debootstrap", "--variant=" .. spec.variant, "--arch=" .. spec.arch }
      if spec.include then argv[#argv + 1] = "--include=" .. spec.include end
      argv[#argv + 1] = spec.suite
      argv[#argv + 1] = staging
      argv[#argv + 1] = spec.mirror or mirrors[spec.family]
      local r = sys:run(argv, R.any)
      if r.code ~= 0 then
         M.remove_tree(sys, what, staging)
         R.command_failed(what, argv, r)
      end
      sys:note((sys.dry and "would debootstrap " or "debootstrapped ") .. spec.suite
               .. " into " .. path)
      if cached then
         R.run(sys, what, { "mkdir", "-p", "--", spec.cache })
         R.run(sys, what, tar_argv("-C", staging, "-czf", cached .. ".prop-new", "."))
         R.run(sys, what, { "mv", "-f", "--", cached .. ".prop-new", cached })
         sys:note((sys.dry and "would keep " or "kept ") .. cached .. " for the next tree")
      end
   end
   -- Daemons never start in it: package scripts and invoke-rc.d ask
   -- policy-rc.d, which refuses.
   sys:write(staging .. "/usr/sbin/policy-rc.d",
             "#!/bin/sh\n# Made by prop: no daemon starts in this tree.\nexit 101\n",
             { mode = tonumber("0755", 8) })
   R.run(sys, what, { "mv", "-T", "--", staging, path })
   return true
end

return M
