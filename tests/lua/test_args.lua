-- prop.args: the checks recipes make of their arguments, and the
-- messages they give.
local T = require "check"
local args = prop_module "args"

-- distance, suggest, did_you_mean
T.eq(args.distance("mode", "mode"), 0, "distance: equal words")
T.eq(args.distance("mdoe", "mode"), 1, "distance: a transposition is one step")
T.eq(args.distance("", "abc"), 3, "distance: from nothing")
T.eq(args.distance("kitten", "sitting"), 3, "distance: kitten/sitting")
T.eq(args.suggest("instaled", { "installed", "removed" }), "installed", "suggest: the close one")
T.eq(args.suggest("xyz", { "installed", "removed" }), nil, "suggest: none close")
T.eq(args.suggest("mode", { mode = true, owner = true }), nil, "suggest: the word itself is no suggestion")
T.eq(args.suggest("ownr", { mode = true, owner = true }), "owner", "suggest: keys of a table")
T.eq(args.suggest(42, { "a" }), nil, "suggest: not a word")
T.eq(args.did_you_mean("ownr", { "owner" }), ' (did you mean "owner"?)', "did_you_mean")
T.eq(args.did_you_mean("zzzzzz", { "owner" }), "", "did_you_mean: nothing")

-- show
T.eq(args.show("a\nb"), '"a\\nb"', "show: a newline")
T.eq(args.show(string.rep("x", 50)), '"' .. string.rep("x", 37) .. '..."', "show: long strings cut")
T.eq(args.show(nil), "nothing", "show: nil")
T.eq(args.show(12), "12", "show: a number")
T.eq(args.show({}), "a table", "show: a table")

-- scalars: each returns nil and the value, or a message
T.eq({ args.string("x", "name") }, { nil, "x" }, "string: ok")
T.eq(args.string(3, "name"), "name must be a string, got number 3", "string: a number")
T.eq(args.nonempty_string("", "name"), "name must not be empty", "nonempty_string: empty")
T.eq(args.nonempty_string(nil, "name"), "name must be a non-empty string, got nothing",
     "nonempty_string: nil")
T.eq({ args.matching("abc", "pkg", "%l+", "letters") }, { nil, "abc" }, "matching: ok")
T.eq(args.matching("ab1", "pkg", "%l+", "letters"), 'pkg "ab1" is not valid: expected letters',
     "matching: no match")
T.eq(args.matching("", "pkg", "%l+", "letters"), "pkg must not be empty", "matching: empty")
T.eq({ args.boolean(false, "b") }, { nil, false }, "boolean: ok")
T.eq(args.boolean("yes", "b"), 'b must be true or false, got string "yes"', "boolean: a string")

T.eq({ args.abs_path("/etc/x", "path") }, { nil, "/etc/x" }, "abs_path: ok")
T.eq(args.abs_path("etc/x", "path"),
     'path must be an absolute path (starting with /), got relative path "etc/x"', "abs_path: relative")
T.eq(args.abs_path(7, "path"),
     "path must be an absolute path (a string starting with /), got number 7", "abs_path: a number")
T.eq(args.abs_path("/a/../b", "path"), 'path "/a/../b" must not contain ".."', "abs_path: ..")
T.eq(args.abs_path("/a/..", "path"), 'path "/a/.." must not contain ".."', "abs_path: .. at the end")
T.eq({ args.abs_path("/a/..b", "path") }, { nil, "/a/..b" }, "abs_path: ..b is a name")
T.eq(args.abs_path("/a\nb", "path"), 'path "/a\\nb" contains a NUL or newline character',
     "abs_path: newline")

T.eq({ args.port(8080, "port") }, { nil, 8080 }, "port: ok")
T.eq(math.type(select(2, args.port(80.0, "port"))), "integer", "port: 80.0 becomes an integer")
T.eq(args.port(0, "port"), "port 0 is outside 1..65535", "port: 0")
T.eq(args.port(65536, "port"), "port 65536 is outside 1..65535", "port: too high")
T.eq(args.port(1.5, "port"), "port must be a port number (an integer in 1..65535), got number 1.5",
     "port: a fraction")
T.eq({ args.id(0, "uid") }, { nil, 0 }, "id: 0")
T.eq(args.id(-1, "uid"), "uid -1 is outside 0..4294967294", "id: negative")
T.eq(args.id("0", "uid"), 'uid must be an integer id >= 0, got string "0"', "id: a string")

T.eq({ args.mode("644", "mode") }, { nil, "0644" }, "mode: three digits")
T.eq({ args.mode("04755", "mode") }, { nil, "4755" }, "mode: five digits")
T.eq({ args.mode("0644", "mode") }, { nil, "0644" }, "mode: four digits")
T.eq(args.mode(644, "mode"),
     'mode must be a string such as "0644", got number 644 (Lua reads 0644 as the decimal number 644)',
     "mode: a number")
T.err(args.mode("0889", "mode"), 'mode "0889" is not an octal mode', "mode: not octal")
T.err(args.mode(true, "mode"), 'mode must be an octal mode string such as "0644", got boolean true',
      "mode: a boolean")

-- lists
T.eq({ args.string_list("a", "pkgs") }, { nil, { "a" } }, "string_list: one string")
T.eq({ args.string_list({ "a", "b" }, "pkgs") }, { nil, { "a", "b" } }, "string_list: a list")
T.eq(args.string_list({ "a", 2 }, "pkgs"), "pkgs[2] must be a string, got number 2",
     "string_list: the bad entry is named")
T.eq(args.string_list({ "a", x = 1 }, "pkgs"), 'pkgs must be a list, but has a key "x"',
     "string_list: a key")
T.eq(args.string_list({ [1] = "a", [3] = "c" }, "pkgs"),
     "pkgs must be a list without holes (entry 2 is missing)", "string_list: a hole")
T.eq(args.string_list({}, "pkgs", { nonempty = true }), "pkgs must not be an empty list",
     "string_list: nonempty")
T.eq(args.string_list("a", "pkgs", { single = false }),
     'pkgs must be a list of strings, got string "a"', "string_list: single = false")
T.eq(args.string_list(5, "pkgs"), "pkgs must be a list of strings or a single string, got number 5",
     "string_list: a number")
T.eq({ args.list({ "/a" }, "paths", args.abs_path) }, { nil, { "/a" } }, "list: item check")
T.eq(args.list({ "a" }, "paths", args.abs_path),
     'paths[1] must be an absolute path (starting with /), got relative path "a"', "list: bad item")

-- argv and shell quoting
T.eq({ args.argv({ "ls", "-l" }) }, { nil, { "ls", "-l" } }, "argv: ok")
T.err(args.argv("ls -l"), "prop never builds a shell command from a string", "argv: a string")
T.eq(args.argv({}, "cmd"), "cmd must not be an empty list", "argv: empty")
T.eq(args.argv({ "" }, "cmd"), "cmd[1], the program to run, must not be empty", "argv: empty program")
T.eq(args.argv({ "a", "b\0c" }, "cmd"), "cmd[2] contains a NUL character", "argv: NUL")
T.eq(args.shell_quote("abc/d.e"), "abc/d.e", "shell_quote: plain")
T.eq(args.shell_quote(""), "''", "shell_quote: empty")
T.eq(args.shell_quote("it's"), "'it'\\''s'", "shell_quote: a quote")
T.eq(args.shell_join({ "echo", "a b", "$x" }), "echo 'a b' '$x'", "shell_join")

-- options
local schema = { mode = args.mode, owner = args.string }
local err, o = args.options({ mode = "644", owner = "root" }, schema, "file.x")
T.eq({ err, o }, { nil, { mode = "0644", owner = "root" } }, "options: normalised")
err, o = args.options(nil, schema, "file.x")
T.eq({ err, o }, { nil, {} }, "options: nil is none")
T.raises(function() o.mode = "1" end, "the shared empty options are read-only",
         "options: the shared empty table is read-only")
T.eq(args.options({ mdoe = "644" }, schema, "file.x"),
     'unknown key "mdoe" for file.x (did you mean "mode"?)', "options: a typo")
T.eq(args.options({ colour = 1 }, schema, "file.x"),
     'unknown key "colour" for file.x (expected mode, owner)', "options: unknown key")
T.eq(args.options({ "pos" }, schema, "file.x"),
     'unexpected positional value "pos" in the options of file.x', "options: positional")
T.eq(args.options({ mode = 644, owner = 1 }, schema, "file.x"),
     'mode must be a string such as "0644", got number 644 (Lua reads 0644 as the decimal number 644)'
     .. "; owner must be a string, got number 1", "options: every problem, in order")
T.eq(args.options("x", schema, "file.x"),
     'the options of file.x must be a table { mode=, owner = ... }, got string "x"', "options: not a table")

-- check_all, join, is_options
T.eq({ args.check_all(args.string, "a", "x", args.port, 22, "p") }, { nil, { "a", 22 } },
     "check_all: both pass")
T.eq(args.check_all(args.string, 1, "x", args.port, 0, "p"),
     "x must be a string, got number 1; p 0 is outside 1..65535", "check_all: both fail")
T.eq(args.join("apt.installed", nil, nil), nil, "join: nothing")
T.eq(args.join("apt.installed", "a bad", nil, "c bad"), "apt.installed: a bad; c bad", "join: prefixed")
T.eq(args.join("apt.installed", 'unknown key "x" for apt.installed'),
     'unknown key "x" for apt.installed', "join: an unknown key names the recipe already")
T.eq(args.is_options({ root = "/" }), true, "is_options: keys")
T.eq(args.is_options({ "a" }), false, "is_options: a list")
T.eq(args.is_options({}), false, "is_options: empty")

-- strict_module: the recipe modules are made with it (it wraps their
-- functions with core.entry, which only prop's modules may use while they
-- load: a script gets one made).
local m = require "prop.apt"
T.eq(type(m.installed), "function", "strict_module: a member")
T.raises(function() return m.instaled end, 'apt has no recipe "instaled" (did you mean "installed"?)',
         "strict_module: a typo")
T.raises(function() return m.zzzzzzzzzz end, 'apt has no recipe "zzzzzzzzzz" (it has: ',
         "strict_module: unknown")
T.raises(function() return m[1] end, "apt has no recipe 1", "strict_module: not a name")
T.raises(function() m.x = 1 end, "cannot assign apt.x: prop's recipe modules are read-only",
         "strict_module: read-only")
T.eq(tostring(m), "prop module apt", "strict_module: tostring")
T.eq(getmetatable(m), "prop module apt", "strict_module: the metatable is hidden")
local names = {}
for k in pairs(m) do names[k] = true end
T.ok(names.installed and names.removed, "strict_module: pairs lists the recipes")
T.raises(function() return args.strict_module({ f = print }, "demo") end, "core.entry is for prop's own recipe modules",
         "strict_module: not from a script")

-- host_name: a web server's or a CA's host names, lower-cased.
T.eq({ args.host_name("WWW.Example.ORG", "n") }, { nil, "www.example.org" }, "host_name: lower-cased")
T.eq({ args.host_name("intranet", "n") }, { nil, "intranet" }, "host_name: one label is a name")
T.eq(args.host_name("intranet", "d", { dotted = true, noun = "domain name" }),
     'd "intranet" is not a domain name such as "www.example.org"', "host_name: dotted wants two labels")
for _, bad in ipairs({ "a..b", ".a.b", "a.b.", "-a.b", "a-.b", "a_b.c", "*.a.b", ("x"):rep(64) .. ".b" }) do
   T.eq(args.host_name(bad, "n"), 'n ' .. args.show(bad) .. ' is not a DNS name such as "www.example.org"',
        "host_name: " .. bad)
end
T.eq(args.host_name(7, "n"), "n must be a non-empty string, got number 7", "host_name: not a string")

T.done()
