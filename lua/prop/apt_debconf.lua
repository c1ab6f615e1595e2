-- prop.apt_debconf: the debconf half of apt.reconfigured (recipes/apt.lua):
-- a selection checked when the site is read, and at run time the answers
-- debconf holds read, set and read back.

local args = require "prop.args"
local R = require "prop.runtime"

local debconf = {}

local fmt = string.format

-- The values debconf holds for questions, from one debconf-communicate
-- (part of debconf itself): question -> value, nil when it has none.
local function debconf_values(sys, what, questions)
   local cmds = {}
   for i, q in ipairs(questions) do cmds[i] = "GET " .. q end
   local argv = { "debconf-communicate" }
   local r = R.query(sys, what, argv, { stdin = table.concat(cmds, "\n") .. "\n" })
   if r.code ~= 0 and r.stdout == "" then R.command_failed(what, argv, r) end
   local values, i = {}, 0
   for l in r.stdout:gmatch("[^\n]*\n") do
      i = i + 1
      local code, v = l:match("^(%d+) ?(.-)\n$")
      if questions[i] and code == "0" then values[questions[i]] = v end
   end
   return values
end

function debconf.reconfigured_ensure(sys, a)
   local what = "apt.reconfigured " .. a.package
   if not R.dpkg_installed(R.dpkg_status(sys)[a.package]) then
      if not sys.dry then
         R.fail("%s: the package %s is not installed (install it first, for example with "
                .. "apt.installed)", what, a.package)
      end
      sys:note(a.package .. " is not installed (an earlier property may install it)")
   end
   local qs = {}
   for i, s in ipairs(a.selections) do qs[i] = s[1] end
   local have = debconf_values(sys, what, qs)
   local lines, differ = {}, {}
   for _, s in ipairs(a.selections) do
      lines[#lines + 1] = fmt("%s %s %s %s", a.package, s[1], s[2], s[3])
      if have[s[1]] ~= s[3] then
         if s[2] == "password" then
            differ[#differ + 1] = s[1] .. ": (a password)"
         else
            differ[#differ + 1] = fmt("%s: %s -> %s", s[1], have[s[1]] == nil and "(unset)"
                                      or args.show(have[s[1]]), args.show(s[3]))
         end
      end
   end
   if #differ == 0 then return "ok" end
   sys:note(table.concat(differ, "\n"))
   R.run(sys, what, { "debconf-set-selections" }, { stdin = table.concat(lines, "\n") .. "\n" })
   R.run(sys, what, { "env", "DEBIAN_FRONTEND=noninteractive", "dpkg-reconfigure",
                      "-fnoninteractive", a.package })
   if sys.dry then return "changed" end
   -- Some configuration scripts answer from the system's state instead
   -- (tzdata from /etc/localtime): the answers did not hold, and every
   -- run would reconfigure again.
   have = debconf_values(sys, what, qs)
   local lost = {}
   for _, s in ipairs(a.selections) do
      if have[s[1]] ~= s[3] then
         lost[#lost + 1] = s[2] == "password" and s[1]
            or fmt("%s (debconf holds %s)", s[1], have[s[1]] == nil and "nothing"
                   or args.show(have[s[1]]))
      end
   end
   if #lost > 0 then
      R.fail("%s: dpkg-reconfigure replaced the answers to %s: the package's configuration "
             .. "script takes them from the system itself; change that instead", what,
             table.concat(lost, ", "))
   end
   return "changed"
end

local debconf_types = { string = true, boolean = true, select = true, multiselect = true,
                        note = true, text = true, password = true, title = true, error = true }

function debconf.check_selection(v, what)
   if type(v) ~= "table" or #v ~= 3 then
      return fmt('%s must be a triple { question, type, value } such as '
                 .. '{ "tzdata/Areas", "select", "Europe" }, got %s', what, args.show(v))
   end
   local q, t, val = v[1], v[2], v[3]
   local err = args.matching(q, what .. " question", "[%w][%w._+-]*/[%w._+/-]+",
                             'a debconf question such as "tzdata/Areas"')
   if err then return err end
   if not debconf_types[t] then
      return fmt("%s type %s is not a debconf type (string, boolean, select, multiselect, "
                 .. "password, note, text, title, error)", what, args.show(t))
   end
   if type(val) == "boolean" then val = tostring(val) end
   if math.type(val) == "integer" then val = tostring(val) end
   if type(val) ~= "string" then
      return fmt("%s value must be a string, got %s", what, args.got(val))
   end
   if val:find("[\n\r]") then return fmt("%s value contains a newline", what) end
   if t == "boolean" and val ~= "true" and val ~= "false" then
      return fmt("%s value of a boolean must be true or false, got %s", what, args.show(val))
   end
   return nil, { q, t, val }
end

return debconf
