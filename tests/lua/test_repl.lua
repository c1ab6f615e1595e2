-- prop.repl: what the REPL prints (values, :type), its help and its
-- completion.  The REPL tells properties and hosts apart with M.what,
-- which its C side sets; here core.is_property stands in.
local T = require "check"
local repl = prop_module "repl"
local core = prop_module "core"
repl.what = function(v)
   if core.is_property(v) then return "property" end
   if type(v) == "userdata" and pcall(function() return v.properties end) then return "host" end
   return nil
end

-- help
local help = repl.help()
T.err(help, "  :show [HOST|EXPR]    a host's tree", ":help lists :show")
T.err(help, "  :quit                leave (Ctrl-D too)", ":help lists :quit")
T.eq(repl.suggest_command("hots"), "hosts", "suggest_command: a typo")
T.eq(repl.suggest_command("zzzzzz"), nil, "suggest_command: nothing close")

-- format
T.eq(repl.format(1, "a\n\"b\"", true, nil), '1\n"a\\n\\"b\\""\ntrue\nnil', "format: scalars, one a line")
T.eq(repl.format(), "", "format: nothing")
T.eq(repl.format({ 1, 2, x = "y", [true] = 0 }), '{ 1, 2, [true] = 0, x = "y" }', "format: a table, keys in order")
local t = {}
t.self = t
T.eq(repl.format(t), "{ self = {<cycle>} }", "format: a cycle")
T.eq(repl.format({ { { { { 1 } } } } }), "{ { { { {...} } } } }", "format: deep tables cut")
local big = {}
for i = 1, 70 do big[i] = i end
T.err(repl.format(big), "... (10 more)", "format: long tables cut")
local wide = {}
for i = 1, 8 do wide["key" .. i] = string.rep("v", 10) end
T.ok(repl.format(wide):find("^{\n  key1 = \"vvvvvvvvvv\",") ~= nil, "format: a wide table over lines")
T.eq(repl.format(apt):sub(1, 24), "prop module apt { cache_", "format: a module and its members")
T.err(repl.format(apt), ", installed, ", "format: a module's members, sorted")
local p = apt.installed "x"
T.err(repl.format(p), "apt installed x : DebianLike, revertable  (", "format: a property as its tree")
T.err(repl.format(p), "\n    claims package.installed x", "format: with its claims")
-- (on one line or over several, as the origin's path is long or short)
T.ok(repl.format({ p }):find("^{%s+apt installed x : DebianLike, revertable  %(") ~= nil,
     "format: a property inside a table, on a line of its own")

-- :type
local ty = repl.type_of(p)
T.err(ty, "apt installed x : DebianLike, revertable\n", ":type: the header")
T.err(ty, "  kind        property, reverted by: apt removed x", ":type: the kind")
T.err(ty, "  targets     buntish, debian", ":type: targets")
T.err(ty, "  revertable  yes", ":type: revertable")
T.err(ty, "  ports       none", ":type: no ports")
T.err(ty, "  claims      package.installed x", ":type: claims")
T.err(repl.type_of(nginx.installed()), "  ports       80\n", ":type: ports")
T.err(repl.type_of(file.has_content("/x", string.rep("z", 300))), '... (300 bytes)', ":type: a long claim cut")
local h = host "rh" { os.debian("bookworm", "amd64") }
T.err(repl.type_of(h), "host : debian, 1 properties  (", ":type: a host")
T.eq(repl.type_of(apt), "prop module apt", ":type: a module")
T.eq(repl.type_of(1), "number (integer)", ":type: an integer")
T.eq(repl.type_of(1.5), "number (float)", ":type: a float")
T.eq(repl.type_of("s"), "string", ":type: a string")

-- completion
local env = prop_module "prelude"
local function complete(text, first)
   local word, skip, list = repl.complete(env, text, first)
   return { word, skip, list }
end
T.eq(complete(":sh", true), { ":sh", 0, { ":show" } }, "complete: a command")
T.eq(complete(":q", true)[3], { ":q", ":quit" }, "complete: q and quit")
T.eq(complete(":show r", true), { "r", 0, { "rh" } }, "complete: host names")
T.eq(complete("apt.instal", true), { "apt.instal", 4, { "apt.installed", "apt.installed_min" } },
     "complete: module members")
T.eq(complete("x = pacman.upg", false), { "pacman.upg", 7, { "pacman.upgraded" } }, "complete: a lazy module")
T.eq(complete("whil", true)[3], { "while" }, "complete: a keyword")
T.eq(complete("nosuchthing.", true)[3], {}, "complete: nothing for an unknown name")
T.eq(complete("12", true)[3], {}, "complete: nothing for a number")
T.eq(complete(":sh", false)[3], {}, "complete: no command inside a statement")

T.done()
