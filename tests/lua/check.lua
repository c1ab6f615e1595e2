-- check.lua: the assertions of the tests/lua scripts.  Each failed check
-- prints its place and what differs; T.done() raises when any failed, so
-- that the script (and prop_lua_test) fails.
--
--   local T = require "check"
--   T.eq(got, want, what)        equal (tables compared key by key)
--   T.ok(v, what)                v is true
--   T.raises(f, text, what)      f() raises an error whose message holds text
--   T.err(got, text, what)       got is a message (string) holding text
--   T.invalid(f, ...)            the message of the invalid property f(...)
--                                makes (the P012 lint reports), or nil
--   T.done()

local T = { checks = 0, failed = 0 }

-- "file:line" of the caller's caller (the test script's line).
local function place()
   local _, where = pcall(error, "", 4)
   return (where or ""):gsub(":%s*$", "")
end

local function show(v, seen)
   if type(v) == "string" then return string.format("%q", v) end
   if type(v) ~= "table" then return tostring(v) end
   seen = seen or {}
   if seen[v] then return "<cycle>" end
   seen[v] = true
   local keys = {}
   for k in pairs(v) do keys[#keys + 1] = k end
   table.sort(keys, function(a, b)
      if type(a) == type(b) and (type(a) == "number" or type(a) == "string") then return a < b end
      return type(a) < type(b)
   end)
   local parts = {}
   for _, k in ipairs(keys) do
      parts[#parts + 1] = (type(k) == "string" and k or "[" .. show(k, seen) .. "]") .. " = "
         .. show(v[k], seen)
   end
   seen[v] = nil
   return "{ " .. table.concat(parts, ", ") .. " }"
end
T.show = show

local function equal(a, b)
   if a == b then return true end
   if type(a) ~= "table" or type(b) ~= "table" then return false end
   for k, v in pairs(a) do if not equal(v, b[k]) then return false end end
   for k in pairs(b) do if a[k] == nil then return false end end
   return true
end

local function result(good, what, why)
   T.checks = T.checks + 1
   if good then return true end
   T.failed = T.failed + 1
   print(string.format("%s: FAIL: %s: %s", place(), what or "check", why))
   return false
end

function T.eq(got, want, what)
   return result(equal(got, want), what, "got " .. show(got) .. ", want " .. show(want))
end

function T.ok(v, what)
   return result(v and true or false, what, "not true: " .. show(v))
end

function T.err(got, text, what)
   if type(got) ~= "string" then
      return result(false, what, "no message (got " .. show(got) .. "), want one holding " .. show(text))
   end
   return result(got:find(text, 1, true) ~= nil, what,
                 "message " .. show(got) .. " does not hold " .. show(text))
end

function T.raises(f, text, what)
   local good, e = pcall(f)
   if good then return result(false, what, "no error, want one holding " .. show(text)) end
   return result(type(e) == "string" and e:find(text, 1, true) ~= nil, what,
                 "error " .. show(e) .. " does not hold " .. show(text))
end

-- Recipes make a property that fails the lint with core.invalid(desc,
-- msg); the message is kept by the engine, so it is caught on its way.
function T.invalid(f, ...)
   local core = prop_module "core"
   local orig, msg = core.invalid, nil
   core.invalid = function(desc, m)
      msg = m
      return orig(desc, m)
   end
   local ok, e = pcall(f, ...)
   core.invalid = orig
   if not ok then error(e, 0) end
   return msg
end

function T.done()
   if T.failed > 0 or T.checks == 0 then
      error(string.format("%d of %d checks failed", T.failed, T.checks), 0)
   end
   print(string.format("%d checks passed", T.checks))
end

return T
