-- prelude.lua: builds the environment a site file runs in.
--
-- The state itself holds only the safe libraries (no io, os, debug or
-- package); this file picks what a site may see, adds prop's API and the
-- recipe modules, and makes reading an undefined global an error with a
-- suggestion, so that a typo never turns silently into nil.

local core = require "prop.core"
local args = require "prop.args"

local G = _G
local env = {}

local safe_base = {
   "assert", "error", "ipairs", "next", "pairs", "pcall", "select", "tonumber",
   "tostring", "type", "xpcall", "rawequal", "rawget", "rawlen", "rawset",
   "setmetatable", "getmetatable", "print", "require", "load",
}
for _, name in ipairs(safe_base) do env[name] = G[name] end
env._VERSION = G._VERSION

-- Lua runs finalizers with hooks off: a __gc of the site's would run
-- outside the instruction budget and the CPU clock's stop.  Lua marks an object for finalization
-- only when its metatable has __gc as it is set, so refusing it here is
-- enough.
local raw_setmetatable, rawget, error = G.setmetatable, G.rawget, G.error
function env.setmetatable(t, mt)
   if type(mt) == "table" and rawget(mt, "__gc") ~= nil then
      error("setmetatable: a site may not set __gc (finalizers would run outside "
            .. "the instruction budget)", 2)
   end
   return raw_setmetatable(t, mt)
end

-- Copies, so that a site changing string.format cannot affect prop's own
-- modules (string methods on values still reach the real table, which
-- holds nothing a site may not call).
local function copy(t)
   local c = {}
   for k, v in pairs(t) do c[k] = v end
   return c
end
env.string = copy(G.string)
-- Every string of the state shares one metatable, prop's own included: a
-- site that reads it gets a stand-in whose methods are its own copy, so
-- that it cannot change what a string method does inside a recipe.
getmetatable("").__metatable = { __index = env.string }
env.table = copy(G.table)
env.math = copy(G.math)
env.utf8 = copy(G.utf8)

-- Combinators, as functions (they are also methods of every property).
for _, name in ipairs { "requires", "before", "on_change", "fallback", "pick_os",
                        "revertable", "revert", "props", "describe", "only_if", "tag", "host" } do
   env[name] = core[name]
end
env.property = core.entry(require("prop.property").property)

-- A function in a host's list is a role (prop.container.expand_roles).
local expand_roles = require("prop.container").expand_roles

-- dnf came with RHEL 8 and Fedora 22; before them the package manager
-- is yum, which prop has no recipes for.  A host declared with such a
-- release gets P002 at each top-level property that would run dnf.
local function dnf_release(h)
   local family = h.os
   if family ~= "rhel" and family ~= "fedora" then return end
   local decl = h:info("os")[1]
   local major = decl and tonumber(decl:match("^%S+%s+(%d+)"))
   if major == nil or major >= (family == "rhel" and 8 or 22) then return end
   local function runs_dnf(p, depth, seen)
      if seen[p] or depth > 64 then return false end
      seen[p] = true
      local desc = p.desc
      if type(desc) == "string" and desc:find("^dnf ") and #p.children == 0 then return true end
      for _, c in ipairs(p.children) do
         if runs_dnf(c, depth + 1, seen) then return true end
      end
      return false
   end
   local shown = family == "rhel" and "RHEL (or a rebuild) " .. major or "Fedora " .. major
   for _, top in ipairs(h.properties) do
      if runs_dnf(top, 0, {}) then
         core.error_at(top, "P002", string.format(
            '"%s" runs dnf, but host "%s" is %s, whose package manager is yum (dnf is '
            .. "%s's from release %d on); prop has no yum recipes: manage this host's "
            .. "packages with cmd.run, or declare the release it runs",
            top.desc, h.name, shown, family == "rhel" and "RHEL" or "Fedora",
            family == "rhel" and 8 or 22))
      end
   end
end

local core_host = core.host
env.host = function(name, list)
   if list == nil then
      local declare = core_host(name)
      return function(l)
         local h = declare(expand_roles(name, l))
         dnf_release(h)
         return h
      end
   end
   local h = core_host(name, expand_roles(name, list))
   dnf_release(h)
   return h
end
env.secret = core.secret

-- fact "name" { cmd = { ... }, parse = function(out, err) ... end }: a
-- value read from each target at run time, on first use, as
-- sys.facts.name (prop.facts).  Declared at the site's top level.
local site_facts = require "prop.facts"
env.fact = function(name)
   -- "FILE:LINE: " of the call, from an error raised at that level.
   local _, where = pcall(error, "", 3)
   where = type(where) == "string" and where:match("^(.-):%s*$") or "?"
   if type(name) ~= "string" then
      error(string.format('fact: the name must be a string, as in fact "nginx_version" '
                          .. "{ cmd = { ... }, parse = ... }, got %s", args.got(name)), 2)
   end
   return function(def)
      local err = site_facts.define(name, def, where)
      if err then error(err, 2) end
   end
end
env.site = {
   hosts = core.hosts, host = core.find_host,
   file = function(path) return (core.site_file(path)) end,
}

-- template(path, vars) renders a file beside the site; template.text(text,
-- vars) a string (see prop.template).
local tmpl = require "prop.template"
env.template = setmetatable({
   text = function(text, vars) return tmpl.render(text, vars, "template") end,
}, {
   __call = function(_, path, vars)
      if type(path) ~= "string" then
         error(string.format('template: the path must be a string such as "templates/vhost.conf", got %s',
                             type(path)), 2)
      end
      local text, shown = core.site_file(path)
      return tmpl.render(text, vars, shown)
   end,
   __index = function(_, k)
      error(string.format('template has no field "%s": template(path, vars) or template.text(text, vars)',
                          tostring(k)), 2)
   end,
   __newindex = function() error("template is read-only", 2) end,
   __metatable = false,
})

-- json.encode / json.quote / yaml.quote: structured content that may hold
-- secrets, each quoted for its format when revealed (see prop.json).
local json = require "prop.json"
local function library(name, fields)
   return setmetatable(fields, {
      __index = function(_, k)
         local names = {}
         for n in pairs(fields) do names[#names + 1] = n end
         table.sort(names)
         error(string.format('%s has no field "%s" (it has %s)', name, tostring(k),
                             table.concat(names, ", ")), 2)
      end,
      __newindex = function() error(name .. " is read-only", 2) end,
      __metatable = false,
   })
end
env.json = library("json", { encode = json.encode, quote = json.quote, null = json.null,
                             object = json.object })
env.yaml = library("yaml", { quote = json.yaml_quote })

-- The recipe library: each module is a global of its own name.
local recipe_modules = {
   "file", "apt", "dnf", "pacman", "pkg", "packages", "service", "user", "group", "cron", "cmd",
   "hostname", "apache", "tor", "os", "connect", "dns", "ssh", "chroot", "docker",
   "systemd", "jail", "conffile", "sudo", "sysctl", "timezone", "locale", "pull",
   "nginx", "firewall", "git", "kernel", "grub", "mount", "postfix", "fail2ban", "borg",
   "network", "letsencrypt", "postgresql", "selinux", "mysql", "archive", "zfs", "web",
}
-- Loaded when first named: a site that writes files need not load the
-- other 43 modules (most of prop's start-up time).
local lazy = {}
for _, name in ipairs(recipe_modules) do lazy[name] = "prop." .. name end
local info = require "prop.info"
env.ipv4, env.ipv6, env.alias = info.ipv4, info.ipv6, info.alias

env._G = env

local function global_names()
   local names = {}
   for k in pairs(env) do
      if type(k) == "string" then names[#names + 1] = k end
   end
   for k in pairs(lazy) do
      if rawget(env, k) == nil then names[#names + 1] = k end
   end
   table.sort(names)
   return names
end

setmetatable(env, {
   -- The recipe modules not loaded yet (for the REPL's completion).
   lazy_globals = recipe_modules,
   __index = function(_, key)
      local module = lazy[key]
      if module then
         local m = require(module)
         rawset(env, key, m)
         return m
      end
      local msg = string.format("undefined global \"%s\"", tostring(key))
      if type(key) == "string" then
         local best = args.suggest(key, global_names())
         if best then msg = msg .. string.format(" (did you mean \"%s\"?)", best) end
      end
      error(msg, 2)
   end,
})

-- Used by the bindings when a property or host is asked for a field it
-- does not have.
local fields = {
   property = { "desc", "targets", "revertable", "ports", "info", "origin", "kind", "type",
                "children", "claims", "reverted", "paired", "requires", "before", "on_change",
                "fallback", "describe", "only_if", "tag", "container", "period" },
   host = { "name", "os", "origin", "properties", "info", "container", "short_name", "parent",
            "containers", "attached_by" },
}
local registry_hook = core.set_unknown_field
if registry_hook then
   registry_hook(function(what, key)
      local msg = string.format("a %s has no field \"%s\"", what, tostring(key))
      local best = type(key) == "string" and args.suggest(key, fields[what]) or nil
      if best then msg = msg .. string.format(" (did you mean \"%s\"?)", best) end
      return msg
   end)
end

return env
