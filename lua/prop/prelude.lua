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
   local view = { name = name, os = family, suite = suite ~= "" and suite or nil,
                  arch = arch ~= "" and arch or nil, info = info }
   return setmetatable({}, {
      __index = function(_, k)
         if k == "name" or k == "os" or k == "suite" or k == "arch" or k == "info" then return view[k] end
         error(string.format("a host given to a role has no field \"%s\" (it has name, os, suite, arch, info)",
                             tostring(k)), 2)
      end,
      __newindex = function() error("the host given to a role is read-only", 2) end,
      __metatable = false,
   })
end

local function expand_roles(name, list)
   if type(list) ~= "table" then return list end
   local has
   for _, v in ipairs(list) do if type(v) == "function" then has = true break end end
   if not has then return list end
   local view = host_view(name, list)
   local out = {}
   for i, v in ipairs(list) do
      if type(v) == "function" then
         local r = v(view)
         if r == nil then
            error(string.format('host "%s": the role at entry %d returned nothing; a role returns a '
                                .. "property or a list of them (an empty list for none)", name, i), 3)
         end
         out[#out + 1] = r
      else
         out[#out + 1] = v
      end
   end
   return out
end

local core_host = core.host
env.host = function(name, list)
   if list == nil then
      local declare = core_host(name)
      return function(l) return declare(expand_roles(name, l)) end
   end
   return core_host(name, expand_roles(name, list))
end
env.secret = core.secret
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

-- The recipe library: each module is a global of its own name.
local recipe_modules = {
   "file", "apt", "dnf", "pacman", "pkg", "packages", "service", "user", "group", "cron", "cmd",
   "hostname", "apache", "tor", "os", "connect", "dns", "ssh", "chroot", "docker",
   "systemd", "jail", "conffile", "sudo", "sysctl", "timezone", "locale", "pull",
   "nginx", "firewall", "git", "kernel", "grub", "mount", "postfix", "fail2ban", "borg",
   "network", "letsencrypt", "zfs",
}
-- Loaded when first named: a site that writes files need not load the
-- other 39 modules (most of prop's start-up time).
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
