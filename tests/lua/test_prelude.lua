-- prop.prelude: the environment a site runs in (this script runs in it).
local T = require "check"
local env = prop_module "prelude"

T.eq(rawequal(env, _G), true, "the script's globals are the prelude's environment")
T.eq(rawequal(_G._G, _G), true, "_G is the environment")

-- what a site may not see
for _, name in ipairs { "io", "debug", "package", "dofile", "loadfile", "collectgarbage" } do
   T.raises(function() return env[name] end, 'undefined global "' .. name .. '"', "no " .. name)
end
T.raises(function() return os.execute end, 'os has no recipe "execute"', "os is prop's, not Lua's")
T.raises(function() return fiel end, 'undefined global "fiel" (did you mean "file"?)', "a typo: a suggestion")
T.raises(function() return zzzzqqqq end, 'undefined global "zzzzqqqq"', "undefined global")
T.raises(function() require "prop.runtime" end, 'module "prop.runtime" is internal to prop',
         "internal modules refused to a site")

-- __gc refused; the string library a copy
T.raises(function() setmetatable({}, { __gc = print }) end, "setmetatable: a site may not set __gc",
         "no finalizers")
T.eq(getmetatable(setmetatable({}, { __index = { a = 1 } })).__index.a, 1, "setmetatable otherwise works")
string.upper = function() return "changed" end
T.eq(("abc"):upper(), "ABC", "changing string.* does not change string methods")
T.eq(getmetatable("").__index, string, "a string's metatable shows the site's copy")
string.upper = nil

-- recipe modules, loaded when named
T.eq(tostring(apt), "prop module apt", "apt is a global")
T.eq(tostring(letsencrypt), "prop module letsencrypt", "so is letsencrypt")
T.eq(type(property), "function", "property {}")
T.eq(type(ipv4), "function", "ipv4")

-- roles: a function in a host's list gets a read-only view of the host
local seen
local h = host "r1" {
   os.debian("bookworm", "amd64"),
   function(v)
      seen = { v.name, v.os, v.suite, v.arch }
      return apt.installed "x"
   end,
}
T.eq(seen, { "r1", "debian", "bookworm", "amd64" }, "role: the host's view")
T.eq(#h.properties, 2, "role: its property takes its place")
-- the view's properties: the list's own, nested lists flattened, roles out
local descs
host "r4" {
   os.debian("bookworm", "amd64"),
   { apt.installed "y", { apt.installed "z" } },
   function() return apt.installed "w" end,
   function(v)
      descs = {}
      for _, p in ipairs(v.properties) do descs[#descs + 1] = p.desc end
      return {}
   end,
}
T.eq(descs, { "os.debian \"bookworm\" amd64", "apt installed y", "apt installed z" },
     "role: the view's properties")
T.raises(function()
   host "r2" { function(v) return v.addr end }
end, 'a host given to a role has no field "addr" (it has name, os, suite, arch, info, properties)',
   "role: unknown field")
T.raises(function()
   host "r3" { function(v) v.name = "x" end }
end, "the host given to a role is read-only", "role: read-only")
T.raises(function()
   host "r4" { os.debian("bookworm", "amd64"), function() end }
end, 'host "r4": the role at entry 2 returned nothing', "role: returns nothing")
-- roles in nested lists, in what a role returns, in a container's list
local names = {}
local function rec(v) names[#names + 1] = v.name .. "/" .. tostring(v.suite); return {} end
h = host "r5" {
   os.debian("bookworm", "amd64"),
   { apt.installed "a", { rec } },
   function() return { rec, apt.installed "b" } end,
   systemd.nspawned(systemd.container("box", os.debian("trixie", "amd64"), { { rec } })),
}
-- rec is given twice to r5 (nested, and in what a role returns): one role,
-- called once for r5 (what it returns stands in both places, one list).
T.eq(names, { "box/trixie", "r5/bookworm" }, "role: nested, returned by a role, in a container")
T.raises(function()
   host "r6" { os.debian("bookworm", "amd64"), { function() end } }
end, 'host "r6": the role at entry 1 returned nothing', "role: nested, returns nothing")
do
   local ok, e = pcall(load('host "r7" { function() error("boom") end }', "=site.lua", "t", _G))
   T.eq({ ok, e }, { false, "(load:site.lua):1: boom" }, "role: its own error, as it is")
end

-- template and site
T.eq(template.text("a {{ b }}", { b = 1 }), "a 1", "template.text")
T.raises(function() return template.txt end,
         'template has no field "txt": template(path, vars) or template.text(text, vars)', "template: a typo")
T.raises(function() template.x = 1 end, "template is read-only", "template: read-only")
T.raises(function() template(1) end, 'template: the path must be a string such as "templates/vhost.conf", got number',
         "template: a path that is no string")
T.err(site.file("fakesys.lua"), "fakesys.lua: a target in memory", "site.file: a file beside the site")
T.raises(function() site.file("nonexistent.txt") end, "nonexistent.txt", "site.file: a missing file")

-- unknown fields of properties and hosts, with suggestions
T.raises(function() return apt.installed("x").dsc end, 'a property has no field "dsc" (did you mean "desc"?)',
         "a property's field")
T.raises(function() return h.nmae end, 'a host has no field "nmae" (did you mean "name"?)', "a host's field")

T.done()
