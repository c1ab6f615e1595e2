-- prop.packaging: the recipes of a package manager, made from its
-- description.
local T = require "check"
local packaging = prop_module "packaging"
local args = prop_module "args"
local show = prop_module "show"
local R = prop_module "runtime"
local fakesys = require "fakesys"

local impl = { installed = {}, removed = {}, upgraded = {} }
local function check(v, what)
   return args.matching(v, what, "[%l][%l%d-]*", "a demo package name")
end
local M = packaging.manager {
   tool = "demo", targets = "DebianLike", impl = impl, check = check,
   options = { root = args.abs_path },
   where = function(o) return o.root and " in " .. o.root or nil end,
   shown = { installed = "installed (pinned)" },
}
local installed = M.pair("installed", "removed")
local upgraded = M.no_args("upgraded", "demo.upgraded has no revert action")

-- no_args
T.eq(packaging.no_args("x.y", nil, 0), nil, "no_args: none")
T.eq(packaging.no_args("x.y", {}, 1), nil, "no_args: an empty table")
T.eq(packaging.no_args("x.y", "a", 1), "x.y takes no arguments", "no_args: a string")
T.eq(packaging.no_args("x.y", nil, 2), "x.y takes no arguments", "no_args: two")
T.eq(packaging.no_args("x.y", { k = 1 }, 1), 'unknown key "k" for x.y (expected no options)',
     "no_args: an options table")

-- pair: one name, a list, names as arguments, options in or after the list
local p = installed("a")
T.eq({ p.desc, p.kind, p.type }, { "demo installed (pinned) a", "revertable", "DebianLike, revertable" },
     "pair: one name")
T.eq({ p.claims[1].kind, p.claims[1].key }, { "package.installed", "a" }, "pair: its claim")
p = installed({ "a", "b" })
T.eq(#p.claims, 2, "pair: a list claims each")
p = installed("a", "b", "c")
T.eq(p.desc, "demo installed (pinned) a b c", "pair: names as arguments")
p = installed({ "a", root = "/srv" })
T.eq({ p.desc, p.claims[1].key }, { "demo installed (pinned) a in /srv", "a in /srv" },
     "pair: options in the list move the claim")
p = installed("a", { root = "/srv" })
T.eq(p.desc, "demo installed (pinned) a in /srv", "pair: options after the names")
p = revert(installed("a"))
T.err(show.property(p), "runs: demo removed a : DebianLike", "pair: reverted by the other")

T.eq(T.invalid(installed, {}), "demo.installed: packages must not be an empty list", "pair: an empty list")
T.eq(T.invalid(installed, 3), "demo.installed: packages must be a list of strings or a single string, got number 3",
     "pair: a number")
T.eq(T.invalid(installed, "Bad"), 'demo.installed: packages "Bad" is not valid: expected a demo package name',
     "pair: the recipe's own check")
T.eq(T.invalid(installed, { "a", "B" }),
     'demo.installed: packages[2] "B" is not valid: expected a demo package name', "pair: the bad entry")
T.eq(T.invalid(installed, { "a", root = "/x" }, { root = "/y" }),
     "demo.installed: options are given twice (in the list and after it)", "pair: options twice")
T.eq(T.invalid(installed, "a", { root = "rel" }),
     'demo.installed: root must be an absolute path (starting with /), got relative path "rel"',
     "pair: a bad option")
T.eq(T.invalid(installed, "a", { rot = "/" }), 'unknown key "rot" for demo.installed (did you mean "root"?)',
     "pair: an unknown option")
T.eq(T.invalid(installed, "a"), nil, "pair: a good call is not invalid")

-- no_args
p = upgraded()
T.eq({ p.desc, p.revertable }, { "demo upgraded", false }, "no_args: the leaf")
T.eq(upgraded({ root = "/m" }).desc, "demo upgraded in /m", "no_args: with options")
T.eq(T.invalid(upgraded, "x"), "demo.upgraded takes no arguments", "no_args: an argument")
T.eq(T.invalid(upgraded, { root = 1 }),
     "root must be an absolute path (a string starting with /), got number 1", "no_args: a bad option")
T.eq(revert(upgraded()).reverted, nil, "no_args: a revert has nothing to run")
T.eq(revert(installed("a")).reverted.desc, "demo removed a", "pair: a revert runs the other")

-- leaf
p = M.leaf("removed", { "x" }, { root = "/t" })
T.eq({ p.desc, p.claims[1].kind, p.claims[1].key }, { "demo removed x in /t", "package.removed", "x in /t" },
     "leaf")

-- The run-time half: one loop for every manager (R.ensure_packages), and
-- the manager's impl.installed/removed made from it.
local rt_impl = { installed = {}, removed = {} }
local after = {}
local rt = {
   needs = function(sys, _, list, _, want)
      local need = {}
      for _, n in ipairs(list) do need[n] = (sys.files["/db/" .. n] ~= nil) ~= want end
      return need
   end,
   argv = function(_, opts, want, todo)
      local argv = { "pm", want and "add" or "del", opts.root or "/" }
      for _, n in ipairs(todo) do argv[#argv + 1] = n end
      return argv
   end,
   after = function(_, recipe, todo, want) after[#after + 1] = { recipe, table.concat(todo, " "), want } end,
}
local RM = packaging.manager {
   tool = "rt", targets = "DebianLike", impl = rt_impl, check = check, runtime = rt,
   options = { root = args.abs_path },
}
local rtinstalled = RM.pair("installed", "removed")
T.ok(type(rt_impl.installed.ensure) == "function" and type(rt_impl.removed.ensure) == "function",
     "runtime: the manager makes installed's and removed's ensure")
local sys = fakesys.new { files = { ["/db/b"] = "" } }
T.eq(rt_impl.installed.ensure(sys, { packages = { "c", "b", "a" }, opts = {} }), "changed",
     "runtime: installed, two missing: changed")
T.eq(sys.log, { "pm add / c a" }, "runtime: one command for the missing, in the list's order")
T.eq(sys.notes, { "installed: c a" }, "runtime: the note names them")
T.eq(after, { { "rt.installed", "c a", true } }, "runtime: after looks, with the recipe's name")
sys = fakesys.new { files = { ["/db/a"] = "", ["/db/b"] = "" } }
T.eq(rt_impl.installed.ensure(sys, { packages = { "a", "b" }, opts = {} }), "ok",
     "runtime: all installed: ok")
T.eq(#sys.log + #sys.notes, 0, "runtime: all installed: nothing run or said")
sys = fakesys.new { files = { ["/db/a"] = "" }, dry = true }
after = {}
T.eq(rt_impl.removed.ensure(sys, { packages = { "a", "b" }, opts = { root = "/m" } }), "changed",
     "runtime: removed, dry: would change")
T.eq({ sys.log, sys.notes, #after }, { { "dry: pm del /m a" }, { "would remove: a" }, 0 },
     "runtime: dry: the command not run, said as would, no look after")
-- A recipe's own ensure stays.
local own = { installed = { ensure = function() return "own" end }, removed = {} }
packaging.manager { tool = "own", targets = "DebianLike", impl = own, check = check, runtime = rt }
T.eq(own.installed.ensure(), "own", "runtime: a recipe's own ensure is kept")
T.eq(R.ensure_packages(rt, fakesys.new(), "x", {}, {}, true), false, "runtime: an empty list: false")
-- A manager that says only which are missing: removed is its opposite.
local by_missing = { missing = function(sys, _, list)
                        local m = {}
                        for _, n in ipairs(list) do m[n] = sys.files["/db/" .. n] == nil end
                        return m
                     end, argv = rt.argv }
sys = fakesys.new { files = { ["/db/a"] = "" } }
T.eq(R.ensure_packages(by_missing, sys, "x", { "a", "b" }, {}, true), true, "missing: installs b")
T.eq(R.ensure_packages(by_missing, sys, "x", { "a", "b" }, {}, false), true, "missing: removes a")
T.eq(sys.log, { "pm add / b", "pm del / a" }, "missing: each the other's opposite")
T.eq(type(rtinstalled("a")), "userdata", "runtime: the recipe still makes properties")

T.done()
