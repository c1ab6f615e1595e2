-- prop.args: argument checking for recipes.
--
-- Every check returns nil when the value is acceptable, or a message that
-- says what was wrong and what is expected.  Checks never raise: a recipe
-- turns a message into core.invalid(desc, message) so that evaluation goes
-- on and every bad argument of a site is reported in one pass (P012).
-- Checks that normalise their value (modes, lists) return it as a second
-- result: `local err, mode = args.mode(v, "mode")`.

local args = {}

local type, tostring, pairs, ipairs, next = type, tostring, pairs, ipairs, next
local math_type, string_format, table_concat = math.type, string.format, table.concat

-- ---------------------------------------------------------------------
-- Suggestions.

-- Optimal string alignment distance (Damerau-Levenshtein restricted to
-- adjacent transpositions): "mdoe" is one step from "mode", as a typist
-- would expect, where plain Levenshtein counts two.
function args.distance(a, b)
   local la, lb = #a, #b
   if la == 0 then return lb end
   if lb == 0 then return la end
   local prev2, prev, cur = {}, {}, {}
   for j = 0, lb do prev[j] = j end
   for i = 1, la do
      cur = {}
      cur[0] = i
      local ca = a:byte(i)
      for j = 1, lb do
         local cb = b:byte(j)
         local cost = (ca == cb) and 0 or 1
         local d = prev[j] + 1
         if cur[j - 1] + 1 < d then d = cur[j - 1] + 1 end
         if prev[j - 1] + cost < d then d = prev[j - 1] + cost end
         if i > 1 and j > 1 and ca == b:byte(j - 1) and a:byte(i - 1) == cb then
            local t = prev2[j - 2] + 1
            if t < d then d = t end
         end
         cur[j] = d
      end
      prev2, prev = prev, cur
   end
   return prev[lb]
end

-- The candidate closest to word, or nil when none is close enough.  The
-- limit grows with the word (about a third of its length, at least one
-- edit, two from four letters on) so that short words do not "match"
-- unrelated ones.  candidates is a list of strings or a table whose
-- string keys are the candidates.  Ties go to the first in sorted order so
-- that the message does not depend on table iteration order.
function args.suggest(word, candidates)
   if type(word) ~= "string" or type(candidates) ~= "table" then return nil end
   local list = {}
   if candidates[1] ~= nil then
      for _, c in ipairs(candidates) do
         if type(c) == "string" then list[#list + 1] = c end
      end
   else
      for c in pairs(candidates) do
         if type(c) == "string" then list[#list + 1] = c end
      end
   end
   table.sort(list)
   local limit
   if #word <= 3 then limit = 1 else limit = math.max(2, #word // 3) end
   local lw = word:lower()
   local best, best_d = nil, limit + 1
   for _, c in ipairs(list) do
      local d = args.distance(lw, c:lower())
      if d < best_d then best, best_d = c, d end
   end
   if best == word then return nil end
   return best
end

-- " (did you mean "x"?)" or "".
function args.did_you_mean(word, candidates)
   local s = args.suggest(word, candidates)
   if s then return string_format(' (did you mean "%s"?)', s) end
   return ""
end

-- ---------------------------------------------------------------------
-- Describing values in messages.

-- A short rendering of a value for "got ..." in messages.
function args.show(v)
   local t = type(v)
   if t == "string" then
      if #v > 40 then v = v:sub(1, 37) .. "..." end
      return (string_format("%q", v):gsub("\\\n", "\\n"))
   elseif t == "number" or t == "boolean" then
      return tostring(v)
   elseif t == "nil" then
      return "nothing"
   end
   return "a " .. t
end

local is_secret = require("prop.core").is_secret

local function got(v)
   local t = type(v)
   if t == "string" or t == "number" or t == "boolean" then
      return t .. " " .. args.show(v)
   elseif t == "nil" then
      return "nothing"
   elseif is_secret(v) then
      return "a secret (" .. tostring(v) .. "): a secret can only be content, a password, a private key "
         .. "or a command's standard input"
   end
   return args.show(v)
end
args.got = got

-- ---------------------------------------------------------------------
-- Scalars.

-- Values a check has already accepted, so that the thousands of hosts of
-- a site naming the same path or package are checked once.  Only
-- acceptance is remembered (a refusal is worded anew, with its `what`),
-- and a set is emptied when it grows past a bound.
local MEMO_MAX = 4096
local function memo_set()
   return { n = 0, ok = {} }
end
local function memo_add(m, v, norm)
   if m.n >= MEMO_MAX then m.n, m.ok = 0, {} end
   m.n = m.n + 1
   m.ok[v] = norm
end
args.memo_set, args.memo_add = memo_set, memo_add


function args.string(v, what)
   if type(v) ~= "string" then
      return string_format("%s must be a string, got %s", what, got(v))
   end
   return nil, v
end

function args.nonempty_string(v, what)
   if type(v) ~= "string" then
      return string_format("%s must be a non-empty string, got %s", what, got(v))
   end
   if v == "" then
      return string_format("%s must not be empty", what)
   end
   return nil, v
end

-- "^pattern$", made once per pattern: recipes check every argument of
-- every property, and a large site has millions of them.
local anchored = setmetatable({}, {
   __index = function(t, p)
      local a = "^" .. p .. "$"
      t[p] = a
      return a
   end,
})

local matched = setmetatable({}, {
   __index = function(t, p)
      local m = memo_set()
      t[p] = m
      return m
   end,
})

-- A host name as a web server or a certificate authority takes it:
-- labels of letters, digits and "-" (neither first nor last), 63
-- characters each and 253 in all; lower-cased.  o: { dotted = true }
-- wants at least two labels, o.noun names the kind ("DNS name" unless
-- told) in the message.
function args.host_name(v, what, o)
   local err = args.nonempty_string(v, what)
   if err then return err end
   local ok = #v <= 253 and not v:find("%.%.") and not v:find("^%.") and not v:find("%.$")
      and not (o and o.dotted and not v:find(".", 1, true))
   if ok then
      for label in v:gmatch("[^.]+") do
         if #label > 63 or not label:find("^%w[%w-]*$") or label:find("-$") then ok = false end
      end
   end
   if not ok then
      return string_format('%s %s is not a %s such as "www.example.org"', what, args.show(v),
                           o and o.noun or "DNS name")
   end
   return nil, v:lower()
end

-- An e-mail address (a certificate authority's account, say).
function args.email(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   if not v:find("^[^@%s,]+@[%w.-]+%.[%w-]+$") then
      return string_format('%s %s is not an e-mail address such as "admin@example.org"', what,
                           args.show(v))
   end
   return nil, v
end

-- A string matched entirely by pattern; expected says in words what fits.
function args.matching(v, what, pattern, expected)
   local m = matched[pattern]
   if m.ok[v] then return nil, v end
   if type(v) ~= "string" or v == "" then return args.nonempty_string(v, what) end
   if not v:find(anchored[pattern]) then
      return string_format("%s %s is not valid: expected %s", what, args.show(v), expected)
   end
   memo_add(m, v, v)
   return nil, v
end

function args.boolean(v, what)
   if type(v) ~= "boolean" then
      return string_format("%s must be true or false, got %s", what, got(v))
   end
   return nil, v
end

local abs_paths = memo_set()

-- An absolute path: the target's files are never named relative to
-- wherever prop happens to run.
function args.abs_path(v, what)
   if abs_paths.ok[v] then return nil, v end
   if type(v) ~= "string" then
      return string_format("%s must be an absolute path (a string starting with /), got %s",
                           what, got(v))
   end
   if v:sub(1, 1) ~= "/" then
      return string_format("%s must be an absolute path (starting with /), got relative path %s",
                           what, args.show(v))
   end
   if v:find("\0", 1, true) or v:find("\n", 1, true) then
      return string_format("%s %s contains a NUL or newline character", what, args.show(v))
   end
   if v:find("/..", 1, true) and (v:find("/%.%./") or v:find("/%.%.$")) then
      return string_format("%s %s must not contain \"..\"", what, args.show(v))
   end
   memo_add(abs_paths, v, v)
   return nil, v
end

local function integral(v)
   if math_type(v) == "integer" then return v end
   if math_type(v) == "float" and v == math.floor(v) and v >= math.mininteger
      and v <= math.maxinteger then
      return math.tointeger(v)
   end
   return nil
end

function args.port(v, what)
   local n = integral(v)
   if n == nil then
      return string_format("%s must be a port number (an integer in 1..65535), got %s",
                           what, got(v))
   end
   if n < 1 or n > 65535 then
      return string_format("%s %d is outside 1..65535", what, n)
   end
   return nil, n
end

-- A user or group id.  65535 and 4294967295 stay allowed although they
-- are "nobody"/invalid on some systems: the pre-pass catches clashes, the
-- target system the rest.
function args.id(v, what)
   local n = integral(v)
   if n == nil then
      return string_format("%s must be an integer id >= 0, got %s", what, got(v))
   end
   if n < 0 or n > 4294967294 then
      return string_format("%s %d is outside 0..4294967294", what, n)
   end
   return nil, n
end

-- An octal mode as a string: "644", "0644", "4755", "04755".  Normalised
-- to four digits ("04755" -> "4755", "644" -> "0644").  Numbers are refused because 0644 in Lua is the decimal
-- number 644, which would silently become mode 1204.
local modes = memo_set()

function args.mode(v, what)
   local known = modes.ok[v]
   if known then return nil, known end
   if type(v) == "number" then
      return string_format('%s must be a string such as "0644", got number %s '
                           .. '(Lua reads 0644 as the decimal number 644)', what, tostring(v))
   end
   if type(v) ~= "string" then
      return string_format('%s must be an octal mode string such as "0644", got %s', what, got(v))
   end
   local given = v
   if v:find("^0[0-7][0-7][0-7][0-7]$") then v = v:sub(2) end -- "04755"
   if not v:find("^[0-7][0-7][0-7][0-7]?$") then
      return string_format('%s %s is not an octal mode: expected 3 or 4 digits 0-7, such as "0644" or "04755"',
                           what, args.show(v))
   end
   if #v == 3 then v = "0" .. v end
   memo_add(modes, given, v)
   return nil, v
end

-- Plain names (packages, services, users) never contain blanks or
-- control characters; each recipe narrows further with its own pattern.
local no_opts = {}
local function list_of(v, what, item_check, opts)
   opts = opts or no_opts
   if type(v) == "string" and opts.single ~= false then
      local err, x = item_check(v, what)
      if err then return err end
      return nil, { x }
   end
   if type(v) ~= "table" then
      local expect = opts.single ~= false and "a list of strings or a single string"
         or "a list of strings"
      return string_format("%s must be %s, got %s", what, expect, got(v))
   end
   local n = #v
   for k in pairs(v) do
      if math_type(k) ~= "integer" or k < 1 or k > n then
         -- Name the first string key in sorted order: traversal order
         -- changes from one run to the next.
         local names = {}
         for s in pairs(v) do
            if type(s) == "string" then names[#names + 1] = s end
         end
         if #names > 0 then
            table.sort(names)
            return string_format('%s must be a list, but has a key "%s"', what, names[1])
         end
         return string_format("%s must be a list without holes (entry %s is missing)",
                              what, tostring(n + 1))
      end
   end
   if n == 0 and opts.nonempty then
      return string_format("%s must not be an empty list", what)
   end
   local out = {}
   for i = 1, n do
      local err, x = item_check(v[i], what)
      if err then
         -- Name the entry only when there is something to say about it.
         return (item_check(v[i], string_format("%s[%d]", what, i)))
      end
      out[i] = x
   end
   return nil, out
end

-- A list of strings; a single string counts as a list of one unless
-- opts.single == false.  opts.nonempty refuses an empty list.
function args.string_list(v, what, opts)
   return list_of(v, what, args.string, opts)
end

-- A list whose items are checked by item_check(v, what) -> err, value.
function args.list(v, what, item_check, opts)
   return list_of(v, what, item_check, opts)
end

-- An argv: a non-empty list of strings, never a single string, because
-- prop never builds a shell command by splitting or quoting a string.
function args.argv(v, what)
   what = what or "argv"
   if type(v) == "string" then
      return string_format('%s must be a list such as { "systemctl", "reload", "nginx" }; '
                           .. "prop never builds a shell command from a string, got %s",
                           what, args.show(v))
   end
   local err, list = list_of(v, what, args.string, { single = false, nonempty = true })
   if err then return err end
   if list[1] == "" then
      return string_format("%s[1], the program to run, must not be empty", what)
   end
   for i, a in ipairs(list) do
      if a:find("\0", 1, true) then
         return string_format("%s[%d] contains a NUL character", what, i)
      end
   end
   return nil, list
end

-- One word for a POSIX shell: kept as is when it holds only characters no
-- shell treats specially, else single-quoted (a ' becomes '\'').
function args.shell_quote(s)
   if s ~= "" and not s:find("[^%w_%-%./=:,+@%%]") then return s end
   return "'" .. s:gsub("'", "'\\''") .. "'"
end

function args.shell_join(argv)
   local out = {}
   for i, a in ipairs(argv) do out[i] = args.shell_quote(a) end
   return table_concat(out, " ")
end

-- ---------------------------------------------------------------------
-- Options tables.

-- Checks an options table against schema { key = check, ... } where each
-- check is function(v, what) -> err, normalised.  nil stands for {}.
-- Every problem is reported, joined with "; ", so that one run of lint
-- shows them all.  recipe names the caller in messages ("file.has_content").
local slow_options

-- The options a recipe got, checked against schema (key -> check).  The
-- common case (every key known and valid) walks the table once; anything
-- else takes the slow path, which reports every mistake in a stable order.
local no_options = setmetatable({}, {
   __newindex = function() error("prop.args: the shared empty options are read-only", 2) end,
})

-- For a recipe that takes nothing (or an empty table): nil, or what is
-- wrong with what it was given (an unknown key named as args.options
-- names it, else "RECIPE takes no arguments").
function args.no_args(recipe, a, ...)
   if select("#", ...) > 0 or (a ~= nil and not (type(a) == "table" and next(a) == nil)) then
      return args.options(a, {}, recipe) or (recipe .. " takes no arguments")
   end
   return nil
end

-- The normalised table returned is shared when v is nil: callers read it
-- and never write to it.
function args.options(v, schema, recipe)
   if v == nil then return nil, no_options end
   if type(v) ~= "table" then return slow_options(v, schema, recipe) end
   local out = {}
   for k, x in pairs(v) do
      local check = type(k) == "string" and schema[k]
      if not check then return slow_options(v, schema, recipe) end
      local err, norm = check(x, k)
      if err then return slow_options(v, schema, recipe) end
      out[k] = norm
   end
   return nil, out
end

slow_options = function(v, schema, recipe)
   if v == nil then return nil, {} end
   if type(v) ~= "table" then
      local keys = {}
      for k in pairs(schema) do keys[#keys + 1] = k end
      table.sort(keys)
      return string_format("the options of %s must be a table { %s = ... }, got %s",
                           recipe, table_concat(keys, "=, "), got(v))
   end
   local errs, out = {}, {}
   local unknown = {}
   for k in pairs(v) do
      if type(k) ~= "string" then
         unknown[#unknown + 1] = string_format("unexpected positional value %s in the options of %s",
                                               args.show(v[k]), recipe)
      elseif schema[k] == nil then
         local hint = args.did_you_mean(k, schema)
         if hint == "" then
            local keys = {}
            for s in pairs(schema) do keys[#keys + 1] = s end
            table.sort(keys)
            hint = " (expected " .. (#keys > 0 and table_concat(keys, ", ") or "no options") .. ")"
         end
         unknown[#unknown + 1] = string_format('unknown key "%s" for %s%s', k, recipe, hint)
      end
   end
   table.sort(unknown)
   for _, e in ipairs(unknown) do errs[#errs + 1] = e end
   local keys = {}
   for k in pairs(schema) do keys[#keys + 1] = k end
   table.sort(keys)
   for _, k in ipairs(keys) do
      local x = v[k]
      if x ~= nil then
         local err, norm = schema[k](x, k)
         if err then
            errs[#errs + 1] = err
         else
            out[k] = norm
         end
      end
   end
   if #errs > 0 then return table_concat(errs, "; "), nil end
   return nil, out
end

-- Runs checks given as triples (check, value, what) and returns every
-- message joined with "; " (nil when all pass) and the normalised values
-- in order.
function args.check_all(...)
   local n = select("#", ...)
   if n == 6 then
      local c1, v1, w1, c2, v2, w2 = ...
      local e1, n1 = c1(v1, w1)
      local e2, n2 = c2(v2, w2)
      if not e1 and not e2 then return nil, { n1, n2 } end
   end
   local t = { ... }
   local errs, vals = {}, {}
   for i = 1, n, 3 do
      local err, norm = t[i](t[i + 1], t[i + 2])
      if err then errs[#errs + 1] = err else vals[#vals + 1] = norm end
   end
   if #errs > 0 then return table_concat(errs, "; "), vals end
   return nil, vals
end

-- The message of a recipe's P012 from the messages of its checks (nils
-- are skipped): "recipe: msg; msg", or nil when there is none.  A message
-- about an unknown key already names the recipe.
function args.join(recipe, ...)
   local e1, e2, e3, e4 = ...
   if e1 == nil and e2 == nil and e3 == nil and e4 == nil and select("#", ...) <= 4 then
      return nil
   end
   local errs = {}
   for i = 1, select("#", ...) do
      local e = select(i, ...)
      if e then errs[#errs + 1] = e end
   end
   if #errs == 0 then return nil end
   local msg = table_concat(errs, "; ")
   if not msg:find("^unknown key") and msg:sub(1, #recipe + 1) ~= recipe .. " " then
      msg = recipe .. ": " .. msg
   end
   return msg
end

-- Splits a recipe's arguments when its last parameter is an options table
-- and a table may stand for the first argument too (apt.installed { "a" }):
-- a table with string keys only and no list part is options.
function args.is_options(v)
   if type(v) ~= "table" then return false end
   if v[1] ~= nil then return false end
   return next(v) ~= nil
end

-- ---------------------------------------------------------------------
-- Recipe modules.

-- Returns a read-only view of recipe module M.  Reading a member that does
-- not exist raises at the caller's line, with a suggestion: a typo such as
-- apt.instaled must not turn into a nil that vanishes in a host list.
-- Assigning to the module is refused, so that one site cannot change a
-- recipe under another part of itself.  pairs() lists the recipes.
-- note, if given, is added when no recipe name is close (for `os`, whose
-- name users know from Lua's own library).
function args.strict_module(M, name, note)
   local entry = require("prop.core").entry
   local names = {}
   local wrapped = {}
   for k, v in pairs(M) do
      if type(k) == "string" then names[#names + 1] = k end
      -- Keep the user's helper frames in origins (see core.entry).
      wrapped[k] = type(v) == "function" and entry(v) or v
   end
   M = wrapped
   table.sort(names)
   local proxy = {}
   -- Known names are found by a plain table lookup (proxy -> M); only a
   -- miss reaches the function, which raises at the caller's line.
   setmetatable(M, {
      __index = function(_, k)
         if type(k) ~= "string" then
            error(string_format("%s has no recipe %s", name, args.show(k)), 2)
         end
         local hint = args.did_you_mean(k, names)
         if hint == "" then
            hint = " (it has: " .. table_concat(names, ", ") .. ")"
            if note then hint = hint .. "; " .. note end
         end
         error(string_format('%s has no recipe "%s"%s', name, k, hint), 2)
      end,
   })
   setmetatable(proxy, {
      __index = M,
      __newindex = function(_, k)
         error(string_format("cannot assign %s.%s: prop's recipe modules are read-only",
                             name, tostring(k)), 2)
      end,
      -- An iterator over M, never M itself: recipes read it when called
      -- (packages.upgraded calls apt.upgraded through it).
      __pairs = function()
         return function(_, k) return next(M, k) end, proxy, nil
      end,
      __len = function() return 0 end,
      __tostring = function() return "prop module " .. name end,
      __metatable = "prop module " .. name,
   })
   return proxy
end

return args
