-- prop.apt_debconf: apt.reconfigured's selections checked when the site
-- is read, and at run time debconf's answers read (debconf-communicate),
-- set, the package reconfigured, and read back (on a target in memory).
local T = require "check"
local D = prop_module "apt_debconf"
local fakesys = require "fakesys"

-- check_selection
T.eq({ D.check_selection({ "tzdata/Areas", "select", "Europe" }, "s") },
     { nil, { "tzdata/Areas", "select", "Europe" } }, "selection: a triple")
T.eq(select(2, D.check_selection({ "pkg/flag", "boolean", true }, "s")),
     { "pkg/flag", "boolean", "true" }, "selection: a boolean's value as debconf writes it")
T.eq(select(2, D.check_selection({ "pkg/n", "string", 3 }, "s")), { "pkg/n", "string", "3" },
     "selection: an integer as text")
T.err(D.check_selection({ "tzdata/Areas", "select" }, "s"), "s must be a triple", "selection: two")
T.err(D.check_selection({ "Areas", "select", "x" }, "s"), "s question", "selection: no owner/")
T.err(D.check_selection({ "a/b", "sel", "x" }, "s"), 'type "sel" is not a debconf type',
      "selection: an unknown type")
T.err(D.check_selection({ "a/b", "string", "x\ny" }, "s"), "s value contains a newline",
      "selection: a newline")
T.err(D.check_selection({ "a/b", "boolean", "yes" }, "s"), "must be true or false",
      "selection: a boolean that is not")

-- At run time.  held: what debconf answers, before and after a set.
local function target(installed, before, after, dry)
   local calls = 0
   return fakesys.new {
      dry = dry,
      replies = {
         ["dpkg-query"] = { code = 0, stdout = installed and "tzdata\tall\tii \n" or "" },
         ["debconf-communicate"] = function()
            calls = calls + 1
            local held = calls == 1 and before or after
            local out = {}
            for _, q in ipairs { "tzdata/Areas", "tzdata/Zones/Europe", "pkg/secret" } do
               out[#out + 1] = held[q] and ("0 " .. held[q]) or "10 " .. q .. " doesn't exist"
            end
            return { code = 0, stdout = table.concat(out, "\n") .. "\n" }
         end,
      },
   }
end
local a = { package = "tzdata", selections = { { "tzdata/Areas", "select", "Europe" },
                                               { "tzdata/Zones/Europe", "select", "Paris" },
                                               { "pkg/secret", "password", "s3cret" } } }
local all = { ["tzdata/Areas"] = "Europe", ["tzdata/Zones/Europe"] = "Paris",
              ["pkg/secret"] = "s3cret" }

local sys = target(true, all, all)
T.eq(D.reconfigured_ensure(sys, a), "ok", "every answer held: ok")
T.eq(#sys.log, 2, "every answer held: only looked (dpkg-query, debconf-communicate)")

sys = target(true, { ["tzdata/Areas"] = "America", ["tzdata/Zones/Europe"] = "Paris" }, all)
T.eq(D.reconfigured_ensure(sys, a), "changed", "an answer differs: changed")
T.eq(sys.notes, { "tzdata/Areas: \"America\" -> \"Europe\"\npkg/secret: (a password)" },
     "the note: what changed, a password never shown")
T.ok(sys.log[3]:find("^debconf%-set%-selections") ~= nil, "the selections set")
T.ok(sys.log[4]:find("dpkg%-reconfigure %-fnoninteractive tzdata$") ~= nil, "then reconfigured")

sys = target(true, { ["tzdata/Areas"] = "America" }, { ["tzdata/Areas"] = "America" })
T.raises(function() D.reconfigured_ensure(sys, a) end,
         "dpkg-reconfigure replaced the answers to tzdata/Areas (debconf holds \"America\")",
         "answers that do not hold afterwards fail, naming them")

T.raises(function() D.reconfigured_ensure(target(false, all, all), a) end,
         "the package tzdata is not installed", "not installed: fails")
sys = target(false, {}, {}, true)
T.eq(D.reconfigured_ensure(sys, a), "changed", "not installed, dry run: would change")
T.eq(sys.notes[1], "tzdata is not installed (an earlier property may install it)",
     "not installed, dry run: says so")

T.done()
