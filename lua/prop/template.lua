-- prop.template: Jinja templates (the syntax Ansible roles are written
-- in), rendered while the site is evaluated (so the checker and `prop
-- show` see the result, and a mistake is found by `prop lint`, not on the
-- target).
--
--   {{ expr }}   {% if expr %} ... {% elif expr %} ... {% else %} ... {% endif %}
--   {% for x in expr [if expr] %} ... {% else %} ... {% endfor %}
--   {% for k, v in map.items() %}   {% set x = expr %}   {% raw %}...{% endraw %}
--   {# a comment #}    {%- -%} {{- -}} strip whitespace on that side
--
-- Expressions: literals ('s', "s", 1, 1.5, true, none, [a, b], {k: v}),
-- names, a.b, a["b"], a[0] (0-based, as in Jinja), a[1:], x if c else y,
-- and, or, not, == != < <= > >= in, not in, + - * / // % ** ~, filters
-- (x | f(args)) and tests (x is [not] t(args)).  Whitespace as Ansible's
-- template module has it: trim_blocks on (a block tag's newline is
-- removed), lstrip_blocks off, the template's trailing newlines kept; a
-- first line "#jinja2: lstrip_blocks: True" changes these.
--
-- The language cannot run code (it has only the filters, tests and
-- methods below), so a template cannot leave the sandbox, and every name
-- it uses is checked: a name the variables do not define is an error
-- naming the template's line, unless `is defined` or `default` looks at
-- it.  A secret substituted into a template makes the result a secret.
--
-- A template is compiled once (cached by name and text) into closures,
-- then rendered as many times as it is used.

local core = require "prop.core"

local M = {}

local fmt, concat, sort = string.format, table.concat, table.sort
local mtype, tointeger = math.type, math.tointeger

-- An error at line ln of the template called name, raised to the site.
local function fail(name, ln, msg, ...)
   error(fmt("%s:%d: %s", name, ln, fmt(msg, ...)), 0)
end

-- w is a place: { name = template, line = n }.
local function ferr(w, msg, ...) fail(w.name, w.line, msg, ...) end

-- ---------------------------------------------------------------------
-- Values.  Lua values stand for Jinja's; none is NONE (a Lua table cannot
-- hold nil), an undefined value is a table of UNDEF_MT naming its path,
-- so that `a.b.c` of an undefined a stays undefined until it is used.

local NONE = setmetatable({}, { __name = "none" })
local UNDEF_MT, NS_MT, LOOP_MT, MACRO_MT = {}, {}, {}, {}

local function undef(path) return setmetatable({ path = path }, UNDEF_MT) end
local function is_undef(v) return type(v) == "table" and getmetatable(v) == UNDEF_MT end
local function is_secret(v) return type(v) == "userdata" and core.is_secret ~= nil and core.is_secret(v) end
local function is_list(t) return t[1] ~= nil or next(t) == nil end

local function undef_err(v, w)
   ferr(w, "\"%s\" is not defined: the variables given to the template have no %s", v.path, v.path)
end

-- What v is, in words, for messages.
local function kind(v)
   local t = type(v)
   if t == "string" then return "a string" end
   if t == "number" then return "a number" end
   if t == "boolean" then return "a boolean" end
   if v == NONE then return "None" end
   if t == "table" then
      if getmetatable(v) == UNDEF_MT then return "undefined" end
      return is_list(v) and "a list" or "a mapping"
   end
   if is_secret(v) then return "a secret" end
   return "a " .. t
end

local function is_dict(v) return type(v) == "table" and v ~= NONE and not is_undef(v) and not is_list(v) end
local function is_seq(v) return type(v) == "table" and v ~= NONE and not is_undef(v) and is_list(v) end

-- The keys of a table in a stable order: numbers, then strings, sorted.
local function sorted_keys(t)
   local keys = {}
   for k in pairs(t) do keys[#keys + 1] = k end
   sort(keys, function(x, y)
      local tx, ty = type(x), type(y)
      if tx == ty and (tx == "number" or tx == "string") then return x < y end
      return tx < ty
   end)
   return keys
end

-- A float as Python writes it (repr): the shortest digits that read back
-- the same, fixed notation from 1e-4 up to 1e16, and always a point.
local function float_str(n)
   if n ~= n then return "nan" end
   if n == math.huge then return "inf" end
   if n == -math.huge then return "-inf" end
   if n == 0 then return 1 / n < 0 and "-0.0" or "0.0" end
   local e
   for p = 0, 16 do
      e = fmt("%." .. p .. "e", n)
      if tonumber(e) == n then break end
   end
   local sign, int, frac, exp = e:match("^(%-?)(%d)%.?(%d*)e([-+]%d+)$")
   local digits = (int .. frac):gsub("0+$", "")
   if digits == "" then digits = "0" end
   local x = tonumber(exp)
   if x >= -4 and x < 16 then
      local s
      if x >= 0 then
         if #digits <= x + 1 then
            s = digits .. ("0"):rep(x + 1 - #digits) .. ".0"
         else
            s = digits:sub(1, x + 1) .. "." .. digits:sub(x + 2)
         end
      else
         s = "0." .. ("0"):rep(-x - 1) .. digits
      end
      return sign .. s
   end
   local m = digits:sub(1, 1) .. (#digits > 1 and "." .. digits:sub(2) or "")
   return fmt("%s%se%s%02d", sign, m, x < 0 and "-" or "+", math.abs(x))
end

local function num_str(n)
   if mtype(n) == "integer" then return fmt("%d", n) end
   return float_str(n)
end

-- A string as Python's repr quotes it.
local function pyquote(s)
   local q = "'"
   if s:find("'", 1, true) and not s:find('"', 1, true) then q = '"' end
   local esc = { ["\\"] = "\\\\", ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }
   return q .. s:gsub("[%c\\'\"]", function(c)
      if esc[c] then return esc[c] end
      if c == q then return "\\" .. c end
      if c == "'" or c == '"' then return c end
      return fmt("\\x%02x", c:byte())
   end) .. q
end

local tostr

-- Python's repr of a value (lists and mappings written in a template).
local function repr(v, w, depth)
   if depth > 64 then ferr(w, "a value nested more than 64 deep cannot be written") end
   if type(v) == "string" then return pyquote(v) end
   if is_secret(v) then return "'" .. v .. "'" end
   if type(v) == "table" and v ~= NONE and not is_undef(v) then
      local parts = {}
      if is_list(v) then
         for i = 1, #v do parts[i] = repr(v[i], w, depth + 1) end
         local s = parts[1] or ""
         for i = 2, #parts do s = s .. ", " .. parts[i] end
         return "[" .. s .. "]"
      end
      local s = ""
      for i, k in ipairs(sorted_keys(v)) do
         s = s .. (i > 1 and ", " or "") .. repr(k, w, depth + 1) .. ": " .. repr(v[k], w, depth + 1)
      end
      return "{" .. s .. "}"
   end
   return tostr(v, w)
end

-- The text a value is written as (Python's str): True/False, None.
function tostr(v, w)
   local t = type(v)
   if t == "string" then return v end
   if t == "number" then return num_str(v) end
   if t == "boolean" then return v and "True" or "False" end
   if v == NONE then return "None" end
   if t == "table" then
      if getmetatable(v) == UNDEF_MT then undef_err(v, w) end
      return repr(v, w, 0)
   end
   if is_secret(v) then return v end
   ferr(w, "%s cannot be written in a template", kind(v))
end

-- Python's truth: False, None, 0, "", [] and {} are false.
local function truthy(v, w)
   local t = type(v)
   if t == "boolean" then return v end
   if v == NONE or v == nil then return false end
   if t == "number" then return v ~= 0 end
   if t == "string" then return v ~= "" end
   if t == "table" then
      if getmetatable(v) == UNDEF_MT then undef_err(v, w) end
      return next(v) ~= nil
   end
   if is_secret(v) then ferr(w, "a secret cannot be a condition in a template") end
   return true
end

local function no_secret(v, w, what)
   if is_secret(v) then ferr(w, "a secret cannot be %s in a template", what) end
   if is_undef(v) then undef_err(v, w) end
   return v
end

-- Python's ==, lists and mappings compared by value.
local function equal(a, b, w, depth)
   no_secret(a, w, "compared")
   no_secret(b, w, "compared")
   if a == b then return true end
   local ta, tb = type(a), type(b)
   if ta == "boolean" and tb == "number" then return (a and 1 or 0) == b end
   if tb == "boolean" and ta == "number" then return (b and 1 or 0) == a end
   if ta ~= "table" or tb ~= "table" or a == NONE or b == NONE then return false end
   if (depth or 0) > 64 then ferr(w, "values nested more than 64 deep cannot be compared") end
   for k, x in pairs(a) do
      if b[k] == nil or not equal(x, b[k], w, (depth or 0) + 1) then return false end
   end
   for k in pairs(b) do
      if a[k] == nil then return false end
   end
   return true
end

local function as_num(v)
   if type(v) == "boolean" then return v and 1 or 0 end
   return v
end

-- Python's <: numbers with numbers, strings with strings, lists item by item.
local function less(a, b, w)
   no_secret(a, w, "compared")
   no_secret(b, w, "compared")
   a, b = as_num(a), as_num(b)
   local ta, tb = type(a), type(b)
   if ta == "number" and tb == "number" then return a < b end
   if ta == "string" and tb == "string" then return a < b end
   if is_seq(a) and is_seq(b) then
      for i = 1, math.min(#a, #b) do
         if not equal(a[i], b[i], w) then return less(a[i], b[i], w) end
      end
      return #a < #b
   end
   ferr(w, "%s and %s cannot be compared with < or >", kind(a), kind(b))
end

local function contains(hay, needle, w)
   no_secret(hay, w, "searched")
   no_secret(needle, w, "searched for")
   if type(hay) == "string" then
      if type(needle) ~= "string" then ferr(w, "in: only a string can be looked for in a string, not %s", kind(needle)) end
      return hay:find(needle, 1, true) ~= nil
   end
   if is_seq(hay) then
      for i = 1, #hay do
         if equal(hay[i], needle, w) then return true end
      end
      return false
   end
   if is_dict(hay) then return hay[needle] ~= nil end
   ferr(w, "in needs a string, a list or a mapping on its right, not %s", kind(hay))
end

-- a.key and a[key]: a list's items from 0 (negative from the end).
local function getitem(v, key, path, w)
   if is_undef(v) or v == NONE then return undef(path) end
   local t = type(v)
   if t == "table" then
      if mtype(key) == "integer" and is_list(v) then
         local r = v[key >= 0 and key + 1 or #v + key + 1]
         if r == nil then return undef(path) end
         return r
      end
      if key == nil or key ~= key or is_undef(key) then return undef(path) end
      local r = v[key]
      if r == nil then return undef(path) end
      return r
   end
   if t == "string" and mtype(key) == "integer" then
      local i = key >= 0 and key + 1 or #v + key + 1
      if i < 1 or i > #v then return undef(path) end
      return v:sub(i, i)
   end
   if is_secret(v) then ferr(w, "a secret has no fields or items (%s)", path) end
   return undef(path)
end

-- Python's slice [a:b:c] of a list or a string.
local function slice(v, a, b, c, w)
   no_secret(v, w, "sliced")
   local n
   if type(v) == "string" then n = #v elseif is_seq(v) then n = #v else
      ferr(w, "only a list or a string can be sliced, not %s", kind(v))
   end
   for _, x in ipairs { a, b, c } do
      if x ~= NONE and mtype(x) ~= "integer" then ferr(w, "a slice takes integers, not %s", kind(x)) end
   end
   c = c == NONE and 1 or c
   if c == 0 then ferr(w, "a slice's step cannot be 0") end
   local function norm(x, dflt)
      if x == NONE then return dflt end
      if x < 0 then x = x + n end
      if c > 0 then return math.max(0, math.min(n, x)) end
      return math.max(-1, math.min(n - 1, x))
   end
   local i, j = norm(a, c > 0 and 0 or n - 1), norm(b, c > 0 and n or -1)
   local r = {}
   while (c > 0 and i < j) or (c < 0 and i > j) do
      r[#r + 1] = type(v) == "string" and v:sub(i + 1, i + 1) or v[i + 1]
      i = i + c
   end
   if type(v) == "string" then return concat(r) end
   return r
end

-- The items a {% for %} or a filter walks: a list's items, a mapping's
-- keys in sorted order.
local function items_of(v, w, what)
   if is_undef(v) then undef_err(v, w) end
   no_secret(v, w, what)
   if is_seq(v) then return v end
   if is_dict(v) then return sorted_keys(v) end
   if type(v) == "string" then
      local r = {}
      for _, c in utf8.codes(utf8.len(v) and v or "") do r[#r + 1] = utf8.char(c) end
      if not utf8.len(v) then
         for i = 1, #v do r[i] = v:sub(i, i) end
      end
      return r
   end
   ferr(w, "%s needs a list or a mapping, not %s", what, kind(v))
end

-- ---------------------------------------------------------------------
-- JSON, for to_json and to_nice_json: keys in sorted order, non-ASCII
-- written as \uXXXX (as Python's json.dumps does).

local json = require "prop.json"

local function json_str(s, w)
   return json.quote_string(s, function(msg) ferr(w, "to_json: %s", msg) end)
end

local function to_json(v, w, indent, depth)
   if depth > 64 then ferr(w, "to_json: a value nested more than 64 deep") end
   local t = type(v)
   if t == "string" then return json_str(v, w) end
   if t == "boolean" then return v and "true" or "false" end
   if v == NONE then return "null" end
   if t == "number" then
      if v ~= v or v == math.huge or v == -math.huge then ferr(w, "to_json: %s is not a JSON number", float_str(v)) end
      return num_str(v)
   end
   if is_undef(v) then undef_err(v, w) end
   if is_secret(v) then ferr(w, "a secret cannot be written with to_json (its value is known only at run time)") end
   if t ~= "table" then ferr(w, "to_json: %s cannot be written as JSON", kind(v)) end
   local list = is_list(v)
   local parts = {}
   if list then
      for i = 1, #v do parts[i] = to_json(v[i], w, indent, depth + 1) end
   else
      for _, k in ipairs(sorted_keys(v)) do
         local ks = type(k) == "string" and k or tostr(k, w)
         if type(k) == "boolean" then ks = k and "true" or "false" end
         parts[#parts + 1] = json_str(ks, w) .. ": " .. to_json(v[k], w, indent, depth + 1)
      end
   end
   local open, close = list and "[" or "{", list and "]" or "}"
   if #parts == 0 then return open .. close end
   if not indent then return open .. concat(parts, ", ") .. close end
   local pad, outer = "\n" .. indent:rep(depth + 1), "\n" .. indent:rep(depth)
   return open .. pad .. concat(parts, "," .. pad) .. outer .. close
end

-- ---------------------------------------------------------------------
-- Python's % formatting (the format filter and the % operator).

local function pyformat(f, args, w)
   local i = 0
   return (f:gsub("%%([-+ #0]*)(%d*)(%.?%d*)([%%sdirfFeEgGxXoc])", function(flags, width, prec, conv)
      if conv == "%" then return "%" end
      i = i + 1
      local v = args[i]
      if v == nil then ferr(w, "format: \"%s\" needs more arguments than the %d given", f, #args) end
      local spec = "%" .. flags .. width .. prec
      if conv == "s" or conv == "r" then
         local s = conv == "s" and tostr(v, w) or repr(v, w, 0)
         if is_secret(s) then return s end
         return fmt(spec .. "s", s)
      end
      v = as_num(v)
      if type(v) ~= "number" then ferr(w, "format: %%%s needs a number, got %s", conv, kind(v)) end
      if conv == "d" or conv == "i" or conv == "x" or conv == "X" or conv == "o" or conv == "c" then
         v = tointeger(v >= 0 and math.floor(v) or math.ceil(v)) or 0
         return fmt(spec .. (conv == "i" and "d" or conv), v)
      end
      return fmt(spec .. (conv == "F" and "f" or conv), v)
   end))
end

-- ---------------------------------------------------------------------
-- Versions, for the version test: numbers and words compared part by
-- part, numbers as numbers ("1.10" > "1.9").

local function version_parts(s)
   local parts = {}
   for num, word, other in s:gmatch("(%d*)(%a*)([^%d%a]*)") do
      if num ~= "" then parts[#parts + 1] = tonumber(num) end
      if word ~= "" then parts[#parts + 1] = word end
      if other ~= "" and other ~= "." then parts[#parts + 1] = other end
   end
   return parts
end

local function version_cmp(a, b, w)
   local pa, pb = version_parts(a), version_parts(b)
   for i = 1, math.max(#pa, #pb) do
      local x, y = pa[i], pb[i]
      if x == nil then return -1 end
      if y == nil then return 1 end
      if type(x) ~= type(y) then
         ferr(w, "version: \"%s\" and \"%s\" cannot be compared (%s against %s)", a, b, tostring(x), tostring(y))
      end
      if x ~= y then return x < y and -1 or 1 end
   end
   return 0
end

local version_ops = {
   ["<"] = function(c) return c < 0 end, lt = function(c) return c < 0 end,
   ["<="] = function(c) return c <= 0 end, le = function(c) return c <= 0 end,
   [">"] = function(c) return c > 0 end, gt = function(c) return c > 0 end,
   [">="] = function(c) return c >= 0 end, ge = function(c) return c >= 0 end,
   ["=="] = function(c) return c == 0 end, ["="] = function(c) return c == 0 end,
   eq = function(c) return c == 0 end,
   ["!="] = function(c) return c ~= 0 end, ["<>"] = function(c) return c ~= 0 end,
   ne = function(c) return c ~= 0 end,
}

-- ---------------------------------------------------------------------
-- Filters: { p = parameter names, fn(v, args, w), undef = takes an
-- undefined value, secret = takes a secret }.  p = false: any arguments,
-- fn(v, args, w, kwargs).

local function str_arg(v, w, what)
   if type(v) ~= "string" then ferr(w, "%s takes a string, got %s", what, kind(v)) end
   return v
end

local function int_arg(v, w, what)
   if mtype(v) ~= "integer" then ferr(w, "%s takes an integer, got %s", what, kind(v)) end
   return v
end

local function plain_replace(s, old, new, count)
   if old == "" then
      local r = { new }
      for i = 1, #s do r[#r + 1] = s:sub(i, i) .. new end
      return concat(r)
   end
   local out, pos, n = {}, 1, 0
   while not count or n < count do
      local a, b = s:find(old, pos, true)
      if not a then break end
      out[#out + 1] = s:sub(pos, a - 1)
      out[#out + 1] = new
      pos, n = b + 1, n + 1
   end
   out[#out + 1] = s:sub(pos)
   return concat(out)
end

local function strip(s, chars, left, right)
   local set = chars and "[" .. chars:gsub("[%^%]%%%-]", "%%%0") .. "]" or "%s"
   if chars == "" then return s end
   if left ~= false then s = s:gsub("^" .. set .. "+", "") end
   if right ~= false then s = s:gsub(set .. "+$", "") end
   return s
end

local function pysplit(s, sep, maxsplit, w)
   local r = {}
   maxsplit = maxsplit or -1
   if sep == nil or sep == NONE then
      local pos = s:match("^%s*()")
      while pos <= #s do
         if maxsplit >= 0 and #r >= maxsplit then
            r[#r + 1] = s:sub(pos):gsub("%s+$", "")
            break
         end
         local word, nxt = s:match("^(%S+)%s*()", pos)
         r[#r + 1] = word
         pos = nxt
      end
      return r
   end
   str_arg(sep, w, "split")
   if sep == "" then ferr(w, "split: the separator cannot be empty") end
   local pos = 1
   while maxsplit < 0 or #r < maxsplit do
      local a, b = s:find(sep, pos, true)
      if not a then break end
      r[#r + 1] = s:sub(pos, a - 1)
      pos = b + 1
   end
   r[#r + 1] = s:sub(pos)
   return r
end

local function num_of(v, w, what)
   v = as_num(v)
   if type(v) ~= "number" then ferr(w, "%s takes numbers, got %s", what, kind(v)) end
   return v
end

local function to_int(v, dflt, base)
   v = as_num(v)
   if type(v) == "number" then
      if v ~= v or v == math.huge or v == -math.huge then return dflt end
      return tointeger(v >= 0 and math.floor(v) or math.ceil(v)) or dflt
   end
   if type(v) ~= "string" then return dflt end
   local s = v:match("^%s*(.-)%s*$"):gsub("_", "")
   local neg, digits = s:match("^([+-]?)(.*)$")
   if base == 16 then digits = digits:gsub("^0[xX]", "") end
   if base == 8 then digits = digits:gsub("^0[oO]", "") end
   if base == 2 then digits = digits:gsub("^0[bB]", "") end
   local n = digits:match("^%w+$") and tonumber(digits, base)
   if n then return neg == "-" and -n or n end
   local f = base == 10 and tonumber(s)
   if f and s:match("^[+-]?[%d.]+[eE]?[+-]?%d*$") then return to_int(f, dflt, 10) end
   return dflt
end

local tests -- below; select, reject and map use them

local function run_test(name, v, args, w)
   local t = tests[name]
   if not t then ferr(w, "unknown test \"%s\"", tostring(name)) end
   if is_undef(v) and not t.undef then undef_err(v, w) end
   return t.fn(v, args, w)
end

local filters

local function attr_path(v, attr, w)
   if type(attr) == "number" then return getitem(v, attr, tostring(attr), w) end
   local cur = v
   for part in tostring(attr):gmatch("[^.]+") do
      cur = getitem(cur, tointeger(tonumber(part)) or part, attr, w)
   end
   return cur
end

local function merge(a, b, recursive, w, depth)
   if depth > 64 then ferr(w, "combine: mappings nested more than 64 deep") end
   local r = {}
   for k, x in pairs(a) do r[k] = x end
   for k, x in pairs(b) do
      if recursive and is_dict(r[k]) and is_dict(x) then
         r[k] = merge(r[k], x, true, w, depth + 1)
      else
         r[k] = x
      end
   end
   return r
end

local function select_items(v, args, w, kw, by_attr, keep)
   local list = items_of(v, w, by_attr and "selectattr" or "select")
   local r = {}
   local attr, test = nil, args[1]
   local targs = {}
   if by_attr then
      attr, test = args[1], args[2]
      if attr == nil then ferr(w, "selectattr and rejectattr need an attribute name") end
      for i = 3, #args do targs[#targs + 1] = args[i] end
   else
      for i = 2, #args do targs[#targs + 1] = args[i] end
   end
   if next(kw) then ferr(w, "select and selectattr take no named arguments") end
   for _, x in ipairs(list) do
      local y = x
      if by_attr then y = attr_path(x, attr, w) end
      local ok
      if test == nil then
         ok = not is_undef(y) and truthy(y, w)
      else
         ok = run_test(str_arg(test, w, "select's test"), y, targs, w)
      end
      if ok == keep then r[#r + 1] = x end
   end
   return r
end

local function sort_list(list, w, reverse, case, attr)
   local keyed = {}
   for i, x in ipairs(list) do
      local k = attr and attr_path(x, attr, w) or x
      if type(k) == "string" and not case then k = k:lower() end
      keyed[i] = { k = k, v = x, i = i }
   end
   sort(keyed, function(a, b)
      if equal(a.k, b.k, w) then return a.i < b.i end
      if reverse then return less(b.k, a.k, w) end
      return less(a.k, b.k, w)
   end)
   local r = {}
   for i, x in ipairs(keyed) do r[i] = x.v end
   return r
end

local function lines_of(s)
   local lines = {}
   for l in (s .. "\n"):gmatch("([^\n]*)\n") do lines[#lines + 1] = l end
   return lines
end

filters = {
   default = { p = { "default_value", "boolean" }, undef = true, secret = true, fn = function(v, a, w)
      local dv = a[1]
      if dv == nil then dv = "" end
      if is_undef(v) then return dv end
      if a[2] ~= nil and truthy(a[2], w) and not is_secret(v) and not truthy(v, w) then return dv end
      return v
   end },
   mandatory = { p = { "msg" }, undef = true, secret = true, fn = function(v, a, w)
      if is_undef(v) then
         if a[1] ~= nil then ferr(w, "%s", tostr(a[1], w)) end
         ferr(w, "mandatory variable \"%s\" is not defined", v.path)
      end
      return v
   end },
   bool = { p = {}, fn = function(v)
      if type(v) == "boolean" or v == NONE then return v end
      if type(v) == "string" then
         local s = v:lower()
         return s == "yes" or s == "on" or s == "1" or s == "true"
      end
      return v == 1
   end },
   int = { p = { "default", "base" }, fn = function(v, a, w)
      local base = a[2] ~= nil and int_arg(a[2], w, "int's base") or 10
      if base < 2 or base > 36 then ferr(w, "int: base %d is not from 2 to 36", base) end
      local d = a[1]
      if d == nil then d = 0 end
      return to_int(v, d, base)
   end },
   float = { p = { "default" }, fn = function(v, a)
      v = as_num(v)
      if type(v) == "string" then v = tonumber((v:match("^%s*(.-)%s*$"))) end
      if type(v) == "number" then return v + 0.0 end
      if a[1] ~= nil then return a[1] end
      return 0.0
   end },
   string = { p = {}, secret = true, fn = function(v, _, w) return tostr(v, w) end },
   join = { p = { "d", "attribute" }, secret = false, fn = function(v, a, w)
      local sep = a[1] ~= nil and tostr(a[1], w) or ""
      local out
      for _, x in ipairs(items_of(v, w, "join")) do
         if a[2] ~= nil then x = attr_path(x, a[2], w) end
         x = tostr(x, w)
         if out == nil then out = x else out = out .. sep .. x end
      end
      return out or ""
   end },
   indent = { p = { "width", "first", "blank" }, fn = function(v, a, w)
      local ind = a[1] == nil and "    " or type(a[1]) == "string" and a[1] or (" "):rep(int_arg(a[1], w, "indent"))
      local first, blank = a[2] ~= nil and truthy(a[2], w), a[3] ~= nil and truthy(a[3], w)
      local lines = lines_of(tostr(v, w) .. "\n")
      lines[#lines] = nil -- "s\n" splits into its lines, as str.splitlines
      local out = { lines[1] or "" }
      for i = 2, #lines do
         out[i] = (blank or lines[i] ~= "") and ind .. lines[i] or lines[i]
      end
      local s = concat(out, "\n")
      if first then s = ind .. s end
      return s
   end },
   upper = { p = {}, fn = function(v, _, w) return tostr(v, w):upper() end },
   lower = { p = {}, fn = function(v, _, w) return tostr(v, w):lower() end },
   capitalize = { p = {}, fn = function(v, _, w)
      local s = tostr(v, w)
      return s:sub(1, 1):upper() .. s:sub(2):lower()
   end },
   title = { p = {}, fn = function(v, _, w)
      return (tostr(v, w):lower():gsub("(%a)(%a*)", function(a, b) return a:upper() .. b end))
   end },
   replace = { p = { "old", "new", "count" }, fn = function(v, a, w)
      if a[1] == nil or a[2] == nil then ferr(w, "replace needs two arguments: replace(old, new)") end
      return plain_replace(tostr(v, w), tostr(a[1], w), tostr(a[2], w),
                           a[3] ~= nil and int_arg(a[3], w, "replace's count") or nil)
   end },
   trim = { p = { "chars" }, fn = function(v, a, w)
      return (strip(tostr(v, w), a[1] ~= nil and str_arg(a[1], w, "trim") or nil))
   end },
   to_json = { p = { "indent", "sort_keys" }, fn = function(v, a, w)
      local ind = a[1]
      if ind ~= nil and ind ~= NONE then ind = type(ind) == "string" and ind or (" "):rep(int_arg(ind, w, "to_json's indent")) else ind = nil end
      return to_json(v, w, ind, 0)
   end },
   to_nice_json = { p = { "indent", "sort_keys" }, fn = function(v, a, w)
      local ind = a[1] == nil and 4 or int_arg(a[1], w, "to_nice_json's indent")
      return to_json(v, w, (" "):rep(ind), 0)
   end },
   length = { p = {}, fn = function(v, _, w)
      if type(v) == "string" then return utf8.len(v) or #v end
      if is_seq(v) then return #v end
      if is_dict(v) then
         local n = 0
         for _ in pairs(v) do n = n + 1 end
         return n
      end
      ferr(w, "length needs a string, a list or a mapping, not %s", kind(v))
   end },
   first = { p = {}, fn = function(v, _, w)
      local l = items_of(v, w, "first")
      return l[1] == nil and undef("first of an empty list") or l[1]
   end },
   last = { p = {}, fn = function(v, _, w)
      local l = items_of(v, w, "last")
      return l[#l] == nil and undef("last of an empty list") or l[#l]
   end },
   list = { p = {}, fn = function(v, _, w)
      local r = {}
      for i, x in ipairs(items_of(v, w, "list")) do r[i] = x end
      return r
   end },
   sort = { p = { "reverse", "case_sensitive", "attribute" }, fn = function(v, a, w)
      return sort_list(items_of(v, w, "sort"), w, a[1] ~= nil and truthy(a[1], w),
                       a[2] ~= nil and truthy(a[2], w), a[3])
   end },
   unique = { p = { "case_sensitive", "attribute" }, fn = function(v, a, w)
      local r, seen = {}, {}
      local case = a[1] ~= nil and truthy(a[1], w)
      for _, x in ipairs(items_of(v, w, "unique")) do
         local k = a[2] ~= nil and attr_path(x, a[2], w) or x
         if type(k) == "string" and not case then k = k:lower() end
         local dup = false
         for _, s in ipairs(seen) do
            if equal(s, k, w) then
               dup = true
               break
            end
         end
         if not dup then
            seen[#seen + 1], r[#r + 1] = k, x
         end
      end
      return r
   end },
   reverse = { p = {}, fn = function(v, _, w)
      if type(v) == "string" then return v:reverse() end
      local l, r = items_of(v, w, "reverse"), {}
      for i = #l, 1, -1 do r[#r + 1] = l[i] end
      return r
   end },
   min = { p = { "case_sensitive", "attribute" }, fn = function(v, a, w)
      local l = sort_list(items_of(v, w, "min"), w, false, a[1] ~= nil and truthy(a[1], w), a[2])
      return l[1] == nil and undef("min of an empty list") or l[1]
   end },
   max = { p = { "case_sensitive", "attribute" }, fn = function(v, a, w)
      local l = sort_list(items_of(v, w, "max"), w, true, a[1] ~= nil and truthy(a[1], w), a[2])
      return l[1] == nil and undef("max of an empty list") or l[1]
   end },
   sum = { p = { "attribute", "start" }, fn = function(v, a, w)
      local s = a[2] ~= nil and num_of(a[2], w, "sum") or 0
      for _, x in ipairs(items_of(v, w, "sum")) do
         if a[1] ~= nil then x = attr_path(x, a[1], w) end
         s = s + num_of(x, w, "sum")
      end
      return s
   end },
   abs = { p = {}, fn = function(v, _, w) return math.abs(num_of(v, w, "abs")) end },
   round = { p = { "precision", "method" }, fn = function(v, a, w)
      local x = num_of(v, w, "round") + 0.0
      local p = a[1] ~= nil and int_arg(a[1], w, "round's precision") or 0
      local m = a[2] ~= nil and str_arg(a[2], w, "round's method") or "common"
      local f = 10.0 ^ p
      if m == "common" then
         -- Python's round: halves to the even neighbour
         local y = x * f
         local lo = math.floor(y)
         local d = y - lo
         if d > 0.5 or (d == 0.5 and lo % 2 == 1) then lo = lo + 1 end
         x = lo / f
      elseif m == "floor" then
         x = math.floor(x * f) / f
      elseif m == "ceil" then
         x = math.ceil(x * f) / f
      else
         ferr(w, "round: method must be common, floor or ceil, got \"%s\"", m)
      end
      return x
   end },
   ternary = { p = { "true_val", "false_val", "none_val" }, fn = function(v, a, w)
      if v == NONE and a[3] ~= nil then return a[3] end
      if truthy(v, w) then return a[1] == nil and NONE or a[1] end
      return a[2] == nil and NONE or a[2]
   end },
   quote = { p = {}, fn = function(v, _, w)
      local s = tostr(v, w)
      if s == "" then return "''" end
      if not s:find("[^%w@%%+=:,./_-]") then return s end
      return "'" .. s:gsub("'", "'\"'\"'") .. "'"
   end },
   format = { p = false, fn = function(v, a, w, kw)
      if next(kw) then ferr(w, "format takes no named arguments") end
      return pyformat(str_arg(v, w, "format"), a, w)
   end },
   combine = { p = false, fn = function(v, a, w, kw)
      local rec = kw.recursive ~= nil and truthy(kw.recursive, w)
      for k in pairs(kw) do
         if k ~= "recursive" and k ~= "list_merge" then ferr(w, "combine has no argument %s", k) end
      end
      if not is_dict(v) and not (type(v) == "table" and next(v) == nil) then
         ferr(w, "combine takes mappings, got %s", kind(v))
      end
      for _, b in ipairs(a) do
         if not is_dict(b) and not (type(b) == "table" and next(b) == nil) then
            ferr(w, "combine takes mappings, got %s", kind(b))
         end
         v = merge(v, b, rec, w, 0)
      end
      return v
   end },
   dict2items = { p = { "key_name", "value_name" }, fn = function(v, a, w)
      if not is_dict(v) and not (type(v) == "table" and next(v) == nil) then
         ferr(w, "dict2items takes a mapping, got %s", kind(v))
      end
      local kn, vn = a[1] or "key", a[2] or "value"
      local r = {}
      for _, k in ipairs(sorted_keys(v)) do r[#r + 1] = { [kn] = k, [vn] = v[k] } end
      return r
   end },
   items2dict = { p = { "key_name", "value_name" }, fn = function(v, a, w)
      local kn, vn = a[1] or "key", a[2] or "value"
      local r = {}
      for _, x in ipairs(items_of(v, w, "items2dict")) do
         local k = getitem(x, kn, kn, w)
         if is_undef(k) then ferr(w, "items2dict: an item has no %s", kn) end
         r[k] = getitem(x, vn, vn, w)
      end
      return r
   end },
   items = { p = {}, fn = function(v, _, w)
      local r = {}
      if not is_dict(v) and not (type(v) == "table" and next(v) == nil) then
         ferr(w, "items takes a mapping, got %s", kind(v))
      end
      for _, k in ipairs(sorted_keys(v)) do r[#r + 1] = { k, v[k] } end
      return r
   end },
   map = { p = false, fn = function(v, a, w, kw)
      local list, r = items_of(v, w, "map"), {}
      if kw.attribute ~= nil then
         for i, x in ipairs(list) do
            local y = attr_path(x, kw.attribute, w)
            if is_undef(y) and kw.default ~= nil then y = kw.default end
            r[i] = y
         end
         return r
      end
      local fname = a[1] and str_arg(a[1], w, "map's filter")
      local f = fname and filters[fname]
      if not f then ferr(w, "map needs a filter name or attribute=, got %s", tostring(fname)) end
      local fa = {}
      for i = 2, #a do fa[#fa + 1] = a[i] end
      for i, x in ipairs(list) do r[i] = f.fn(x, fa, w, kw) end
      return r
   end },
   select = { p = false, fn = function(v, a, w, kw) return select_items(v, a, w, kw, false, true) end },
   reject = { p = false, fn = function(v, a, w, kw) return select_items(v, a, w, kw, false, false) end },
   selectattr = { p = false, fn = function(v, a, w, kw) return select_items(v, a, w, kw, true, true) end },
   rejectattr = { p = false, fn = function(v, a, w, kw) return select_items(v, a, w, kw, true, false) end },
   split = { p = { "sep", "maxsplit" }, fn = function(v, a, w)
      return pysplit(tostr(v, w), a[1], a[2] ~= nil and int_arg(a[2], w, "split's maxsplit") or nil, w)
   end },
   basename = { p = {}, fn = function(v, _, w) return (tostr(v, w):match("([^/]*)$")) end },
   dirname = { p = {}, fn = function(v, _, w)
      local d = tostr(v, w):match("^(.*)/") or ""
      if d:match("[^/]") then d = d:gsub("/+$", "") elseif d ~= "" then d = d end
      return d == "" and (tostr(v, w):sub(1, 1) == "/" and "/" or "") or d
   end },
}
-- comment(style, name=value...): text as a comment block, as Ansible's
-- comment filter writes it ({{ ansible_managed | comment }}).
local comment_styles = {
   plain = { decoration = "# " },
   erlang = { decoration = "% " },
   c = { decoration = "// " },
   cblock = { beginning = "/*", decoration = " * ", ["end"] = " */" },
   xml = { beginning = "<!--", decoration = " - ", ["end"] = "-->" },
}
local comment_params = { newline = true, beginning = true, prefix = true, prefix_count = true, decoration = true,
                         postfix = true, postfix_count = true, ["end"] = true }

filters.comment = { p = false, fn = function(v, a, w, kw)
   local sname = a[1] == nil and "plain" or str_arg(a[1], w, "comment's style")
   local style = comment_styles[sname]
   if not style then ferr(w, "comment: unknown style \"%s\" (plain, erlang, c, cblock, xml)", sname) end
   if #a > 1 then ferr(w, "comment takes one style and named arguments") end
   for k, x in pairs(kw) do
      if not comment_params[k] then ferr(w, "comment has no argument %s", k) end
      if k:match("_count$") then int_arg(x, w, "comment's " .. k) else str_arg(x, w, "comment's " .. k) end
   end
   local pre = kw.decoration or style.decoration
   local p = { newline = "\n", beginning = "", prefix = (pre:gsub("%s+$", "")), prefix_count = 1, decoration = "",
               postfix = (pre:gsub("%s+$", "")), postfix_count = 1, ["end"] = "" }
   for k, x in pairs(style) do p[k] = x end
   for k, x in pairs(kw) do p[k] = x end
   local nl, dec = p.newline, p.decoration
   local out = {}
   if p.beginning ~= "" then out[#out + 1] = p.beginning .. nl end
   if p.prefix ~= "" then
      out[#out + 1] = ((p.prefix ~= nl and p.prefix or "") .. nl):rep(math.max(p.prefix_count, 0))
   end
   local text = dec .. plain_replace(tostr(v, w), nl, nl .. dec)
   out[#out + 1] = plain_replace(text, dec .. nl, (dec:gsub("%s+$", "")) .. nl)
   for _ = 1, p.postfix_count do out[#out + 1] = nl .. p.postfix end
   if p["end"] ~= "" then out[#out + 1] = nl .. p["end"] end
   return concat(out)
end }
filters.d = filters.default
filters.count = filters.length

-- Tests: { p = parameter names, fn(v, args, w) -> boolean, undef = takes
-- an undefined value }.
local function cmp_test(f)
   return { p = { "other" }, fn = function(v, a, w)
      if a[1] == nil then ferr(w, "this test needs a value to compare with") end
      return f(v, a[1], w)
   end }
end

tests = {
   defined = { p = {}, undef = true, fn = function(v) return not is_undef(v) end },
   undefined = { p = {}, undef = true, fn = function(v) return is_undef(v) end },
   none = { p = {}, fn = function(v) return v == NONE end },
   string = { p = {}, fn = function(v) return type(v) == "string" or is_secret(v) end },
   number = { p = {}, fn = function(v) return type(v) == "number" or type(v) == "boolean" end },
   integer = { p = {}, fn = function(v) return mtype(v) == "integer" end },
   float = { p = {}, fn = function(v) return mtype(v) == "float" end },
   boolean = { p = {}, fn = function(v) return type(v) == "boolean" end },
   mapping = { p = {}, fn = function(v) return is_dict(v) end },
   sequence = { p = {}, fn = function(v) return type(v) == "string" or is_seq(v) or is_dict(v) end },
   iterable = { p = {}, fn = function(v) return type(v) == "string" or is_seq(v) or is_dict(v) end },
   ["true"] = { p = {}, fn = function(v) return v == true end },
   ["false"] = { p = {}, fn = function(v) return v == false end },
   truthy = { p = {}, fn = function(v, _, w) return truthy(v, w) end },
   falsy = { p = {}, fn = function(v, _, w) return not truthy(v, w) end },
   lower = { p = {}, fn = function(v) return type(v) == "string" and v:find("%l") ~= nil and not v:find("%u") end },
   upper = { p = {}, fn = function(v) return type(v) == "string" and v:find("%u") ~= nil and not v:find("%l") end },
   even = { p = {}, fn = function(v, _, w) return int_arg(v, w, "even") % 2 == 0 end },
   odd = { p = {}, fn = function(v, _, w) return int_arg(v, w, "odd") % 2 == 1 end },
   divisibleby = { p = { "num" }, fn = function(v, a, w)
      local d = int_arg(a[1], w, "divisibleby")
      if d == 0 then ferr(w, "divisibleby 0") end
      return int_arg(v, w, "divisibleby") % d == 0
   end },
   sameas = { p = { "other" }, fn = function(v, a) return rawequal(v, a[1]) and math.type(v) == math.type(a[1]) end },
   eq = cmp_test(function(a, b, w) return equal(a, b, w) end),
   ne = cmp_test(function(a, b, w) return not equal(a, b, w) end),
   lt = cmp_test(function(a, b, w) return less(a, b, w) end),
   le = cmp_test(function(a, b, w) return not less(b, a, w) end),
   gt = cmp_test(function(a, b, w) return less(b, a, w) end),
   ge = cmp_test(function(a, b, w) return not less(a, b, w) end),
   ["in"] = { p = { "seq" }, fn = function(v, a, w) return contains(a[1], v, w) end },
   contains = { p = { "value" }, fn = function(v, a, w) return contains(v, a[1], w) end },
   version = { p = { "version", "operator", "strict", "version_type" }, fn = function(v, a, w)
      if a[1] == nil then ferr(w, "version needs the version to compare with: version('1.2', '>=')") end
      local op = a[2] == nil and "eq" or str_arg(a[2], w, "version's operator")
      local f = version_ops[op]
      if not f then
         ferr(w, "version: unknown operator \"%s\" (<, <=, >, >=, ==, !=, lt, le, gt, ge, eq, ne)", op)
      end
      local x, y = no_secret(v, w, "a version"), no_secret(a[1], w, "a version")
      if type(x) == "number" then x = num_str(x) end
      if type(y) == "number" then y = num_str(y) end
      return f(version_cmp(str_arg(x, w, "version"), str_arg(y, w, "version"), w))
   end },
}
tests.equalto, tests["=="] = tests.eq, tests.eq
tests["!="] = tests.ne
tests.lessthan, tests["<"] = tests.lt, tests.lt
tests["<="] = tests.le
tests.greaterthan, tests[">"] = tests.gt, tests.gt
tests[">="] = tests.ge
tests.version_compare = tests.version

local function names_of(t)
   local r = {}
   for k in pairs(t) do
      if k:match("^%a") then r[#r + 1] = k end
   end
   sort(r)
   return concat(r, ", ")
end

-- Methods of values: d.items(), s.split(","), loop.cycle(...).
local methods = {
   dict = {
      items = function(v) return filters.items.fn(v, {}) end,
      keys = function(v) return sorted_keys(v) end,
      values = function(v)
         local r = {}
         for _, k in ipairs(sorted_keys(v)) do r[#r + 1] = v[k] end
         return r
      end,
      get = function(v, a)
         local r = a[1] ~= nil and v[a[1]]
         if r == nil or r == false and v[a[1]] == nil then return a[2] == nil and NONE or a[2] end
         return r
      end,
   },
   string = {
      split = function(v, a, w) return pysplit(v, a[1], a[2], w) end,
      startswith = function(v, a, w) local p = str_arg(a[1], w, "startswith") return v:sub(1, #p) == p end,
      endswith = function(v, a, w) local p = str_arg(a[1], w, "endswith") return p == "" or v:sub(-#p) == p end,
      strip = function(v, a, w) return (strip(v, a[1] ~= nil and a[1] ~= NONE and str_arg(a[1], w, "strip") or nil)) end,
      lstrip = function(v, a, w) return (strip(v, a[1] ~= nil and a[1] ~= NONE and str_arg(a[1], w, "lstrip") or nil, true, false)) end,
      rstrip = function(v, a, w) return (strip(v, a[1] ~= nil and a[1] ~= NONE and str_arg(a[1], w, "rstrip") or nil, false, true)) end,
      lower = function(v) return v:lower() end,
      upper = function(v) return v:upper() end,
      title = function(v, _, w) return filters.title.fn(v, {}, w) end,
      capitalize = function(v, _, w) return filters.capitalize.fn(v, {}, w) end,
      replace = function(v, a, w) return filters.replace.fn(v, a, w) end,
      join = function(v, a, w)
         local parts = {}
         for i, x in ipairs(items_of(a[1], w, "join")) do parts[i] = tostr(x, w) end
         local out = parts[1] or ""
         for i = 2, #parts do out = out .. v .. parts[i] end
         return out
      end,
      splitlines = function(v) local l = lines_of(v) if l[#l] == "" then l[#l] = nil end return l end,
   },
   loop = {
      cycle = function(v, a, w)
         if #a == 0 then ferr(w, "loop.cycle needs at least one value") end
         return a[(v.index0 % #a) + 1]
      end,
   },
}

-- ---------------------------------------------------------------------
-- Expressions: tokens, then a parser that turns them into closures
-- f(ctx) -> value, ctx.s being the stack of scopes (the variables, the
-- template's own {% set %}, a scope per loop iteration).

local two_char = { ["=="] = true, ["!="] = true, ["<="] = true, [">="] = true, ["//"] = true, ["**"] = true }

local function tokenize(s, w)
   local toks, pos, n = {}, 1, #s
   while true do
      pos = s:match("^%s*()", pos)
      if pos > n then break end
      local c = s:sub(pos, pos)
      local tok
      if c:match("[%a_]") then
         local id = s:match("^[%a_][%w_]*", pos)
         tok = { t = "name", v = id, s = pos, e = pos + #id - 1 }
      elseif c:match("%d") then
         local num = s:match("^%d[%d_]*", pos)
         local after = s:sub(pos - 1, pos - 1) ~= "."
         local fl = after and (s:match("^%d[%d_]*%.%d[%d_]*[eE][-+]?%d+", pos) or s:match("^%d[%d_]*%.%d[%d_]*", pos)
                               or s:match("^%d[%d_]*[eE][-+]?%d+", pos))
         if fl then
            tok = { t = "num", v = tonumber((fl:gsub("_", ""))), s = pos, e = pos + #fl - 1 }
         else
            local v = tointeger(tonumber((num:gsub("_", ""))))
            if not v then ferr(w, "the number %s is too large", num) end
            tok = { t = "num", v = v, s = pos, e = pos + #num - 1 }
         end
      elseif c == "'" or c == '"' then
         local out, i = {}, pos + 1
         while true do
            local j = s:find("[\\" .. c .. "]", i)
            if not j then ferr(w, "a string is never closed in \"%s\"", s:match("^%s*(.-)%s*$")) end
            out[#out + 1] = s:sub(i, j - 1)
            if s:sub(j, j) == c then
               i = j
               break
            end
            local e = s:sub(j + 1, j + 1)
            local esc = { n = "\n", t = "\t", r = "\r", ["\\"] = "\\", ["'"] = "'", ['"'] = '"', ["0"] = "\0" }
            out[#out + 1] = esc[e] or ("\\" .. e)
            i = j + 2
         end
         tok = { t = "str", v = concat(out), s = pos, e = i }
      elseif two_char[s:sub(pos, pos + 1)] then
         tok = { t = s:sub(pos, pos + 1), s = pos, e = pos + 1 }
      elseif c:match("[-+*/%%~|.,:()%[%]{}<>=]") then
         tok = { t = c, s = pos, e = pos }
      else
         ferr(w, "unexpected character \"%s\" in \"%s\"", c, s:match("^%s*(.-)%s*$"))
      end
      toks[#toks + 1] = tok
      pos = tok.e + 1
   end
   toks[#toks + 1] = { t = "end", s = n + 1, e = n }
   return toks
end

local function describe(tok)
   if tok.t == "end" then return "the end" end
   if tok.t == "name" then return "\"" .. tok.v .. "\"" end
   if tok.t == "str" then return "a string" end
   if tok.t == "num" then return "the number " .. num_str(tok.v) end
   return "\"" .. tok.t .. "\""
end

local Parser = {}
Parser.__index = Parser

local function new_parser(src, w)
   return setmetatable({ src = src, w = w, toks = tokenize(src, w), i = 1, depth = 0 }, Parser)
end

function Parser:peek(k) return self.toks[self.i + (k or 0)] end

function Parser:next()
   local t = self.toks[self.i]
   if t.t ~= "end" then self.i = self.i + 1 end
   self.last = t.e
   return t
end

function Parser:bad(msg, ...)
   ferr(self.w, "%s in \"%s\"", fmt(msg, ...), self.src:match("^%s*(.-)%s*$"))
end

function Parser:expect(t, what)
   local tok = self:next()
   if tok.t ~= t then self:bad("expected %s, found %s", what or ("\"" .. t .. "\""), describe(tok)) end
   return tok
end

function Parser:is_name(v, k)
   local t = self:peek(k)
   return t.t == "name" and t.v == v
end

function Parser:text_from(s) return self.src:sub(s, self.last) end

-- The whole of the tokens as one expression.
function Parser:done()
   local t = self:peek()
   if t.t ~= "end" then self:bad("unexpected %s", describe(t)) end
end

local function const(v) return function() return v end end

-- Arguments of a call: positional, then name=value.
function Parser:args()
   local pos, kw, names = {}, {}, {}
   self:expect("(")
   while self:peek().t ~= ")" do
      if self:peek().t == "name" and self:peek(1).t == "=" then
         local k = self:next().v
         self:next()
         if kw[k] then self:bad("the argument %s is given twice", k) end
         kw[k] = self:expr()
         names[#names + 1] = k
      else
         if #names > 0 then self:bad("a positional argument after a named one") end
         pos[#pos + 1] = self:expr()
      end
      if self:peek().t ~= "," then break end
      self:next()
   end
   self:expect(")", "\")\" or \",\"")
   return pos, kw, names
end

-- Bind the arguments of a filter or test with parameters p: a list of
-- closures in parameter order (nil where not given).
function Parser:bind(what, fname, p, pos, kw, names)
   local bound = {}
   if #pos > #p then
      self:bad("%s %s takes at most %d argument%s, %d given", what, fname, #p, #p == 1 and "" or "s", #pos)
   end
   for i, f in ipairs(pos) do bound[i] = f end
   for _, k in ipairs(names) do
      local idx
      for i, pn in ipairs(p) do
         if pn == k then idx = i end
      end
      if not idx then self:bad("%s %s has no argument %s", what, fname, k) end
      if bound[idx] then self:bad("%s %s is given %s twice", what, fname, k) end
      bound[idx] = kw[k]
   end
   return bound
end

local function eval_args(ctx, bound, n)
   local a = {}
   for i = 1, n do
      local f = bound[i]
      if f then a[i] = f(ctx) end
   end
   return a
end

local globals = {
   range = function(a, w)
      local start, stop, step = 0, a[1], 1
      if #a >= 2 then start, stop = a[1], a[2] end
      if #a >= 3 then step = a[3] end
      for _, x in ipairs { start, stop, step } do int_arg(x, w, "range") end
      if step == 0 then ferr(w, "range: the step cannot be 0") end
      local r = {}
      for i = start, stop - (step > 0 and 1 or -1), step do
         r[#r + 1] = i
         if #r > 1000000 then ferr(w, "range: more than a million numbers") end
      end
      return r
   end,
}

function Parser:primary()
   local w = self.w
   local t = self:next()
   if t.t == "num" or t.t == "str" then
      local v = t.v
      -- adjacent strings join, as in Jinja: "a" "b"
      while t.t == "str" and self:peek().t == "str" do v = v .. self:next().v end
      return const(v)
   end
   if t.t == "name" then
      local v = t.v
      if v == "true" or v == "True" then return const(true) end
      if v == "false" or v == "False" then return const(false) end
      if v == "none" or v == "None" then return const(NONE) end
      if self:peek().t == "(" then
         local pos, kw, names = self:args()
         if v == "namespace" or v == "dict" then
            if #pos > 0 then self:bad("%s() takes only named arguments", v) end
            return function(ctx)
               local r = {}
               for _, k in ipairs(names) do r[k] = kw[k](ctx) end
               return v == "namespace" and setmetatable(r, NS_MT) or r
            end
         end
         local g = globals[v]
         if not g then
            -- a {% macro %} of the template
            return function(ctx)
               local s, m = ctx.s, nil
               for i = #s, 1, -1 do
                  if s[i][v] ~= nil then
                     m = s[i][v]
                     break
                  end
               end
               if getmetatable(m) ~= MACRO_MT then
                  ferr(w, "unknown function %s() (functions: range, dict, namespace, and the template's macros)", v)
               end
               local k = {}
               for _, name in ipairs(names) do k[name] = kw[name](ctx) end
               return m.call(ctx, eval_args(ctx, pos, #pos), k, w)
            end
         end
         if #names > 0 then self:bad("%s() takes no named arguments", v) end
         return function(ctx) return g(eval_args(ctx, pos, #pos), w) end
      end
      return function(ctx)
         local s = ctx.s
         for i = #s, 1, -1 do
            local r = s[i][v]
            if r ~= nil then return r end
         end
         return undef(v)
      end
   end
   if t.t == "(" then
      if self:peek().t == ")" then
         self:next()
         return const({})
      end
      local e = self:expr()
      if self:peek().t == "," then
         local items = { e }
         while self:peek().t == "," do
            self:next()
            if self:peek().t == ")" then break end
            items[#items + 1] = self:expr()
         end
         self:expect(")")
         return function(ctx)
            local r = {}
            for i, f in ipairs(items) do r[i] = f(ctx) end
            return r
         end
      end
      self:expect(")")
      return e
   end
   if t.t == "[" then
      local items = {}
      while self:peek().t ~= "]" do
         items[#items + 1] = self:expr()
         if self:peek().t ~= "," then break end
         self:next()
      end
      self:expect("]", "\"]\" or \",\"")
      return function(ctx)
         local r = {}
         for i, f in ipairs(items) do r[i] = f(ctx) end
         return r
      end
   end
   if t.t == "{" then
      local keys, vals = {}, {}
      while self:peek().t ~= "}" do
         keys[#keys + 1] = self:expr()
         self:expect(":")
         vals[#vals + 1] = self:expr()
         if self:peek().t ~= "," then break end
         self:next()
      end
      self:expect("}", "\"}\" or \",\"")
      return function(ctx)
         local r = {}
         for i, f in ipairs(keys) do
            local k = f(ctx)
            if k == NONE or is_undef(k) or is_secret(k) or type(k) == "table" then
               ferr(w, "a mapping's key cannot be %s", kind(k))
            end
            r[k] = vals[i](ctx)
         end
         return r
      end
   end
   if t.t == "end" then self:bad("an expression is missing") end
   self:bad("unexpected %s", describe(t))
end

-- a.b, a[b], a[b:c], a.method(...)
function Parser:postfix(f, start)
   local w = self.w
   while true do
      local t = self:peek()
      if t.t == "." then
         self:next()
         local k = self:next()
         local key
         if k.t == "name" then key = k.v elseif k.t == "num" and mtype(k.v) == "integer" then key = k.v else
            self:bad("expected a name after \".\", found %s", describe(k))
         end
         if self:peek().t == "(" then
            local pos, kw, names = self:args()
            if #names > 0 then self:bad("the method %s takes no named arguments", tostring(key)) end
            local obj, text = f, self:text_from(start)
            f = function(ctx)
               local v = obj(ctx)
               if is_undef(v) then undef_err(v, w) end
               no_secret(v, w, "given to a method")
               local set = type(v) == "string" and methods.string
                  or getmetatable(v) == LOOP_MT and methods.loop
                  or (is_dict(v) or type(v) == "table" and v ~= NONE and next(v) == nil) and methods.dict
               local m = set and set[key]
               if not m then ferr(w, "%s: %s has no method %s()", text, kind(v), tostring(key)) end
               return m(v, eval_args(ctx, pos, #pos), w)
            end
         else
            local obj, path = f, self:text_from(start)
            f = function(ctx) return getitem(obj(ctx), key, path, w) end
         end
      elseif t.t == "[" then
         self:next()
         local parts, colon = {}, 0
         local cur
         while true do
            local p = self:peek().t
            if p == ":" then
               self:next()
               colon = colon + 1
               parts[colon] = cur or const(NONE)
               cur = nil
            elseif p == "]" then
               break
            else
               if cur then self:bad("expected \"]\", found %s", describe(self:peek())) end
               cur = self:expr()
            end
         end
         self:expect("]")
         local obj, path = f, self:text_from(start)
         if colon == 0 then
            if not cur then self:bad("an empty subscript []") end
            local kf = cur
            f = function(ctx) return getitem(obj(ctx), kf(ctx), path, w) end
         else
            if colon > 2 then self:bad("a slice has at most two \":\"") end
            parts[colon + 1] = cur or const(NONE)
            local a, b, c = parts[1], parts[2], parts[3] or const(NONE)
            f = function(ctx)
               local v = obj(ctx)
               if is_undef(v) then undef_err(v, w) end
               return slice(v, a(ctx), b(ctx), c(ctx), w)
            end
         end
      elseif t.t == "(" then
         self:bad("only methods such as d.items() and the functions range(), dict() and namespace() can be called")
      else
         return f
      end
   end
end

-- x | filter(args) and x is [not] test(args), after a value.
function Parser:filters(f)
   local w = self.w
   while true do
      if self:peek().t == "|" then
         self:next()
         local fname = self:expect("name", "a filter name").v
         while self:peek().t == "." and self:peek(1).t == "name" do
            -- ansible.builtin.default and the like
            self:next()
            fname = self:next().v
         end
         local spec = filters[fname]
         if not spec then
            self:bad("unknown filter \"%s\" (filters: %s)", fname, names_of(filters))
         end
         local pos, kw, names = {}, {}, {}
         if self:peek().t == "(" then pos, kw, names = self:args() end
         local src, fn = f, spec.fn
         if spec.p then
            local bound = self:bind("the filter", fname, spec.p, pos, kw, names)
            local n = #spec.p
            f = function(ctx)
               local v = src(ctx)
               if is_undef(v) and not spec.undef then undef_err(v, w) end
               if is_secret(v) and not spec.secret then ferr(w, "a secret cannot go through the filter %s", fname) end
               return fn(v, eval_args(ctx, bound, n), w)
            end
         else
            f = function(ctx)
               local v = src(ctx)
               if is_undef(v) then undef_err(v, w) end
               if is_secret(v) then ferr(w, "a secret cannot go through the filter %s", fname) end
               local k = {}
               for _, name in ipairs(names) do k[name] = kw[name](ctx) end
               return fn(v, eval_args(ctx, pos, #pos), w, k)
            end
         end
      elseif self:is_name("is") then
         self:next()
         local negate = false
         if self:is_name("not") then
            self:next()
            negate = true
         end
         local tt = self:next()
         local tname = tt.v
         if tt.t ~= "name" and not tests[tt.t] then self:bad("expected a test name after \"is\", found %s", describe(tt)) end
         if tt.t ~= "name" then tname = tt.t end
         local spec = tests[tname]
         if not spec then self:bad("unknown test \"%s\" (tests: %s)", tname, names_of(tests)) end
         local pos, kw, names = {}, {}, {}
         local nt = self:peek()
         if nt.t == "(" then
            pos, kw, names = self:args()
         elseif nt.t == "num" or nt.t == "str" or nt.t == "[" or nt.t == "{"
            or (nt.t == "name" and nt.v ~= "else" and nt.v ~= "and" and nt.v ~= "or" and nt.v ~= "if"
                and nt.v ~= "is" and nt.v ~= "in" and nt.v ~= "not") then
            local s = self:peek().s
            pos = { self:postfix(self:primary(), s) }
         end
         local bound = self:bind("the test", tname, spec.p, pos, kw, names)
         local n, src, fn = #spec.p, f, spec.fn
         f = function(ctx)
            local v = src(ctx)
            if is_undef(v) and not spec.undef then undef_err(v, w) end
            local r = fn(v, eval_args(ctx, bound, n), w)
            if negate then return not r end
            return r
         end
      else
         return f
      end
   end
end

function Parser:unary(with_filter)
   self.depth = self.depth + 1
   if self.depth > 100 then self:bad("an expression nested more than 100 deep") end
   local t = self:peek()
   local w, f = self.w, nil
   if t.t == "-" or t.t == "+" then
      self:next()
      local e = self:unary(false)
      local neg = t.t == "-"
      f = function(ctx)
         local v = as_num(no_secret(e(ctx), w, "a number"))
         if type(v) ~= "number" then ferr(w, "%s%s: %s is not a number", neg and "-" or "+", "x", kind(v)) end
         return neg and -v or v
      end
   else
      local s = t.s
      f = self:postfix(self:primary(), s)
   end
   if with_filter ~= false then f = self:filters(f) end
   self.depth = self.depth - 1
   return f
end

local function arith(op, a, b, w)
   no_secret(a, w, "used in arithmetic")
   no_secret(b, w, "used in arithmetic")
   if op == "+" then
      if type(a) == "string" and type(b) == "string" then return a .. b end
      if is_seq(a) and is_seq(b) then
         local r = {}
         for i = 1, #a do r[i] = a[i] end
         for i = 1, #b do r[#a + i] = b[i] end
         return r
      end
   end
   if op == "*" and type(b) == "string" and mtype(a) == "integer" then a, b = b, a end
   if op == "*" and type(a) == "string" and mtype(b) == "integer" then
      if b > 0 and #a * (b + 0.0) > 64 * 1024 * 1024 then ferr(w, "a string of more than 64 MiB") end
      return a:rep(math.max(b, 0))
   end
   if op == "%" and type(a) == "string" then
      return pyformat(a, is_seq(b) and b or { b }, w)
   end
   local x, y = as_num(a), as_num(b)
   if type(x) ~= "number" or type(y) ~= "number" then
      ferr(w, "%s %s %s: these cannot be %s", kind(a), op, kind(b), op == "+" and "added" or "used together")
   end
   if mtype(x) == "integer" and mtype(y) == "integer" and (op == "+" or op == "-" or op == "*" or op == "**") then
      -- integers past 64 bits would wrap: an error, not a wrong number
      local fx, fy = x + 0.0, y + 0.0
      local est = op == "+" and fx + fy or op == "-" and fx - fy or op == "*" and fx * fy or fx ^ fy
      if est >= 2.0 ^ 63 or est < -(2.0 ^ 63) then
         ferr(w, "%s %s %s is too large for an integer", num_str(x), op, num_str(y))
      end
   end
   if op == "+" then return x + y end
   if op == "-" then return x - y end
   if op == "*" then return x * y end
   if op == "**" then
      if mtype(x) == "integer" and mtype(y) == "integer" and y >= 0 then
         local r = 1
         for _ = 1, y do r = r * x end
         return r
      end
      return x ^ y
   end
   if y == 0 then ferr(w, "division by zero") end
   if op == "/" then return x / y end
   if op == "//" then return x // y end
   return x % y
end

function Parser:binary(next_level, ops)
   local f = next_level(self)
   while ops[self:peek().t] do
      local op = self:next().t
      local a, b, w = f, next_level(self), self.w
      if op == "~" then
         f = function(ctx) return tostr(a(ctx), w) .. tostr(b(ctx), w) end
      else
         f = function(ctx) return arith(op, a(ctx), b(ctx), w) end
      end
   end
   return f
end

local pow_ops, mul_ops, cat_ops, add_ops = { ["**"] = true }, { ["*"] = true, ["/"] = true, ["//"] = true, ["%"] = true },
   { ["~"] = true }, { ["+"] = true, ["-"] = true }

function Parser:pow() return self:binary(Parser.unary, pow_ops) end
function Parser:mul() return self:binary(Parser.pow, mul_ops) end
function Parser:cat() return self:binary(Parser.mul, cat_ops) end
function Parser:add() return self:binary(Parser.cat, add_ops) end

local cmp_ops = {
   ["=="] = function(a, b, w) return equal(a, b, w) end,
   ["!="] = function(a, b, w) return not equal(a, b, w) end,
   ["<"] = function(a, b, w) return less(a, b, w) end,
   [">"] = function(a, b, w) return less(b, a, w) end,
   ["<="] = function(a, b, w) return not less(b, a, w) end,
   [">="] = function(a, b, w) return not less(a, b, w) end,
   ["in"] = function(a, b, w) return contains(b, a, w) end,
   ["not in"] = function(a, b, w) return not contains(b, a, w) end,
}

function Parser:compare()
   local first = self:add()
   local chain = {}
   while true do
      local t = self:peek()
      local op
      if cmp_ops[t.t] then
         op = t.t
         self:next()
      elseif t.t == "name" and t.v == "in" then
         op = "in"
         self:next()
      elseif t.t == "name" and t.v == "not" and self:is_name("in", 1) then
         op = "not in"
         self:next()
         self:next()
      else
         break
      end
      chain[#chain + 1] = { cmp_ops[op], self:add() }
   end
   if #chain == 0 then return first end
   local w = self.w
   return function(ctx)
      local a = first(ctx)
      for _, c in ipairs(chain) do
         local b = c[2](ctx)
         if not c[1](a, b, w) then return false end
         a = b
      end
      return true
   end
end

function Parser:not_()
   if self:is_name("not") then
      self:next()
      self.depth = self.depth + 1
      if self.depth > 100 then self:bad("an expression nested more than 100 deep") end
      local e, w = self:not_(), self.w
      self.depth = self.depth - 1
      return function(ctx) return not truthy(e(ctx), w) end
   end
   return self:compare()
end

-- and, or: the value of the operand that decides, as in Python.
function Parser:and_()
   local f = self:not_()
   while self:is_name("and") do
      self:next()
      local a, b, w = f, self:not_(), self.w
      f = function(ctx)
         local v = a(ctx)
         if not truthy(v, w) then return v end
         return b(ctx)
      end
   end
   return f
end

function Parser:or_()
   local f = self:and_()
   while self:is_name("or") do
      self:next()
      local a, b, w = f, self:and_(), self.w
      f = function(ctx)
         local v = a(ctx)
         if truthy(v, w) then return v end
         return b(ctx)
      end
   end
   return f
end

-- x if c else y; x if c (else: an undefined value, written as nothing).
function Parser:expr()
   self.depth = self.depth + 1
   if self.depth > 100 then self:bad("an expression nested more than 100 deep") end
   local f = self:or_()
   while self:is_name("if") do
      self:next()
      local c, w = self:or_(), self.w
      local e = const("")
      if self:is_name("else") then
         self:next()
         e = self:expr()
      end
      local a = f
      f = function(ctx)
         if truthy(c(ctx), w) then return a(ctx) end
         return e(ctx)
      end
   end
   self.depth = self.depth - 1
   return f
end

local function compile_expr(src, w)
   local p = new_parser(src, w)
   if p:peek().t == "end" then ferr(w, "an empty expression {{ }}") end
   local f = p:expr()
   p:done()
   return f
end

-- ---------------------------------------------------------------------
-- The template's text: pieces of text, {{ expressions }} and {% tags %},
-- whitespace control applied.

local function count_nl(s, a, b)
   local n = 0
   for _ in s:sub(a, b):gmatch("\n") do n = n + 1 end
   return n
end

-- The end of a {{ }} or {% %} body starting at i: the position of close
-- outside strings and brackets, or nil.
local function find_close(src, i, close)
   local depth = 0
   while true do
      local j = src:find("[\"'%(%)%[%]{}%%]", i)
      if not j then return nil end
      local c = src:sub(j, j)
      if c == '"' or c == "'" then
         local k = j + 1
         while true do
            local m = src:find("[\\" .. c .. "]", k)
            if not m then return nil end
            if src:sub(m, m) == c then
               k = m
               break
            end
            k = m + 2
         end
         i = k + 1
      elseif depth == 0 and src:sub(j, j + 1) == close then
         return j
      else
         if c == "(" or c == "[" or c == "{" then
            depth = depth + 1
         elseif (c == ")" or c == "]" or c == "}") and depth > 0 then
            depth = depth - 1
         end
         i = j + 1
      end
   end
end

local function lex(src, name, opts, line0)
   local pieces = {}
   local pos, n, line = 1, #src, line0
   local strip_next, line_start = false, true
   local function text(s)
      if strip_next then s = s:gsub("^%s+", "") end
      strip_next = false
      if s ~= "" then pieces[#pieces + 1] = { kind = "text", s = s } end
   end
   while pos <= n do
      local a = src:find("{[{%%#]", pos)
      if not a then
         text(src:sub(pos))
         break
      end
      local open = src:sub(a + 1, a + 1)
      local before = src:sub(pos, a - 1)
      local tline = line + count_nl(src, pos, a - 1)
      local w = { name = name, line = tline }
      local mod = src:sub(a + 2, a + 2)
      local body_start = a + 2
      if mod == "-" then
         before = before:gsub("%s+$", "")
         body_start = a + 3
      elseif mod == "+" and open ~= "{" then
         body_start = a + 3
      elseif open ~= "{" and opts.lstrip_blocks then
         local nl = before:find("\n[^\n]*$")
         local seg = nl and before:sub(nl + 1) or before
         if (nl or line_start) and seg:match("^[ \t]*$") then before = before:sub(1, #before - #seg) end
      end
      if strip_next and before:match("^%s*$") then before = "" end
      text(before)
      local close = ({ ["{"] = "}}", ["%"] = "%}", ["#"] = "#}" })[open]
      local c
      if open == "#" then
         c = src:find("#}", body_start, true)
      else
         -- unbalanced brackets: the first close, for the parser to report
         c = find_close(src, body_start, close) or src:find(close, body_start, true)
      end
      if not c then ferr(w, "\"{%s\" is never closed by \"%s\"", open, close) end
      local d = c + 1
      local endmod = c > body_start and src:sub(c - 1, c - 1) or ""
      local body_end = c - 1
      if endmod == "-" or (endmod == "+" and open ~= "{") then body_end = c - 2 end
      local body = src:sub(body_start, body_end)
      if open == "{" then
         pieces[#pieces + 1] = { kind = "expr", s = body, line = tline }
      elseif open == "%" then
         pieces[#pieces + 1] = { kind = "tag", s = body, line = tline }
      end
      -- {% raw %}: everything to {% endraw %} is text.
      if open == "%" and body:match("^%s*raw%s*$") then
         if endmod == "-" then d = d + #src:match("^%s*", d + 1) end
         pieces[#pieces] = nil
         local ra, rb, lm, rm = src:find("{%%([-+]?)%s*endraw%s*([-+]?)%%}", d + 1)
         if not ra then ferr(w, "{%% raw %%} is never closed by {%% endraw %%}") end
         local raw = src:sub(d + 1, ra - 1)
         if lm == "-" then raw = raw:gsub("%s+$", "") end
         if raw ~= "" then pieces[#pieces + 1] = { kind = "text", s = raw } end
         d, endmod = rb, rm
      end
      if endmod == "-" then
         strip_next = true
      elseif open ~= "{" and endmod ~= "+" and opts.trim_blocks and src:sub(d + 1, d + 1) == "\n" then
         d = d + 1
      end
      line_start = src:sub(d, d) == "\n"
      line = line + count_nl(src, pos, d)
      pos = d + 1
   end
   return pieces
end

-- ---------------------------------------------------------------------
-- Statements: the pieces become a runner run(ctx, out) that appends the
-- text it writes to out.

local function tag_word(p)
   return p.s:match("^%s*([%a_]+)")
end

local function run_all(nodes)
   if #nodes == 1 then return nodes[1] end
   return function(ctx, out)
      for i = 1, #nodes do nodes[i](ctx, out) end
   end
end

-- The pieces joined: a string, or a secret when one was written.
local join = json.join

local tag_names = "if, elif, else, endif, for, endfor, set, endset, macro, endmacro, raw, endraw"

local function compile_pieces(pieces, name)
   local i = 1
   local depth = 0
   local block

   -- A tag's tokens after its keyword.
   local function tag_parser(p)
      local w = { name = name, line = p.line }
      local parser = new_parser(p.s, w)
      parser:next()
      return parser, w
   end

   local function cond_of(p)
      local parser = tag_parser(p)
      if parser:peek().t == "end" then parser:bad("{%% %s %%} needs a condition", tag_word(p)) end
      local f = parser:expr()
      parser:done()
      return f
   end

   block = function(stop)
      depth = depth + 1
      local nodes = {}
      while i <= #pieces do
         local p = pieces[i]
         i = i + 1
         if p.kind == "text" then
            local s = p.s
            nodes[#nodes + 1] = function(_, out) out[#out + 1] = s end
         elseif p.kind == "expr" then
            local w = { name = name, line = p.line }
            local f = compile_expr(p.s, w)
            nodes[#nodes + 1] = function(ctx, out) out[#out + 1] = tostr(f(ctx), w) end
         else
            local word = tag_word(p)
            local w = { name = name, line = p.line }
            if depth > 100 then ferr(w, "tags nested more than 100 deep") end
            if word == "if" then
               local branches = { { cond = cond_of(p) } }
               while true do
                  local body, ended, ep = block { elif = true, ["else"] = true, endif = true }
                  branches[#branches].body = body
                  if ended == nil then ferr(w, "{%% if %%} is never closed by {%% endif %%}") end
                  if ended == "endif" then break end
                  if ended == "elif" then
                     branches[#branches + 1] = { cond = cond_of(ep) }
                  else
                     local body2, ended2 = block { endif = true }
                     if ended2 ~= "endif" then ferr(w, "{%% if %%} is never closed by {%% endif %%}") end
                     branches[#branches + 1] = { body = body2 }
                     break
                  end
               end
               nodes[#nodes + 1] = function(ctx, out)
                  for _, br in ipairs(branches) do
                     if not br.cond or truthy(br.cond(ctx), w) then return br.body(ctx, out) end
                  end
               end
            elseif word == "for" then
               local parser = tag_parser(p)
               local targets = {}
               repeat
                  local tt = parser:next()
                  if tt.t ~= "name" then
                     ferr(w, "{%% for %s %%} must be \"for x in list\" or \"for k, v in map.items()\"",
                          p.s:match("^%s*for%s*(.-)%s*$"))
                  end
                  targets[#targets + 1] = tt.v
                  local more = parser:peek().t == ","
                  if more then parser:next() end
               until not more
               if not parser:is_name("in") then
                  ferr(w, "{%% for %s %%} must be \"for x in list\" or \"for k, v in map.items()\"",
                       p.s:match("^%s*for%s*(.-)%s*$"))
               end
               parser:next()
               local iter = parser:or_()
               local filter
               if parser:is_name("if") then
                  parser:next()
                  filter = parser:or_()
               end
               parser:done()
               local body, ended = block { endfor = true, ["else"] = true }
               local else_body
               if ended == "else" then else_body, ended = block { endfor = true } end
               if ended ~= "endfor" then ferr(w, "{%% for %%} is never closed by {%% endfor %%}") end
               local nt = #targets
               local function bind(scope, x)
                  if nt == 1 then
                     scope[targets[1]] = x
                     return
                  end
                  if not is_seq(x) or #x ~= nt then
                     ferr(w, "{%% for %s %%}: an item is %s, not %d values to unpack", concat(targets, ", "),
                          is_seq(x) and fmt("a list of %d", #x) or kind(x), nt)
                  end
                  for k = 1, nt do scope[targets[k]] = x[k] end
               end
               nodes[#nodes + 1] = function(ctx, out)
                  local v = iter(ctx)
                  local list
                  if nt == 2 and is_dict(v) then
                     -- for k, v in map: the pairs in key order
                     list = filters.items.fn(v, {}, w)
                  else
                     list = items_of(v, w, "{% for %}")
                  end
                  local s = ctx.s
                  if filter then
                     local kept = {}
                     for _, x in ipairs(list) do
                        local sc = {}
                        s[#s + 1] = sc
                        bind(sc, x)
                        local ok = truthy(filter(ctx), w)
                        s[#s] = nil
                        if ok then kept[#kept + 1] = x end
                     end
                     list = kept
                  end
                  local len = #list
                  if len == 0 then
                     if else_body then else_body(ctx, out) end
                     return
                  end
                  local top = #s + 1
                  for k = 1, len do
                     local sc = {
                        loop = setmetatable({ index = k, index0 = k - 1, revindex = len - k + 1, revindex0 = len - k,
                                              first = k == 1, last = k == len, length = len, depth = 1, depth0 = 0,
                                              previtem = list[k - 1], nextitem = list[k + 1] }, LOOP_MT),
                     }
                     s[top] = sc
                     bind(sc, list[k])
                     body(ctx, out)
                  end
                  s[top] = nil
               end
            elseif word == "macro" then
               -- {% macro name(a, b='x') %}...{% endmacro %}: name(...) writes the body
               local parser = tag_parser(p)
               local mname = parser:expect("name", "the macro's name").v
               local params, defaults = {}, {}
               parser:expect("(")
               while parser:peek().t ~= ")" do
                  local pn = parser:expect("name", "a parameter name").v
                  params[#params + 1] = pn
                  if parser:peek().t == "=" then
                     parser:next()
                     defaults[pn] = parser:expr()
                  end
                  if parser:peek().t ~= "," then break end
                  parser:next()
               end
               parser:expect(")", "\")\" or \",\"")
               parser:done()
               local body, ended = block { endmacro = true }
               if ended ~= "endmacro" then ferr(w, "{%% macro %s %%} is never closed by {%% endmacro %%}", mname) end
               local function call(ctx, args, kw, cw)
                  if #args > #params then
                     ferr(cw, "the macro %s takes at most %d arguments, %d given", mname, #params, #args)
                  end
                  local scope = {}
                  for k, pn in ipairs(params) do scope[pn] = args[k] end
                  for k, x in pairs(kw) do
                     local known = false
                     for _, pn in ipairs(params) do known = known or pn == k end
                     if not known then ferr(cw, "the macro %s has no argument %s", mname, k) end
                     scope[k] = x
                  end
                  local s = ctx.s
                  local depth = (ctx.macro_depth or 0) + 1
                  if depth > 50 then ferr(cw, "macros called more than 50 deep") end
                  local inner = { s = { s[1], s[2] }, macro_depth = depth }
                  for _, pn in ipairs(params) do
                     if scope[pn] == nil then
                        scope[pn] = defaults[pn] and defaults[pn](inner) or undef(pn)
                     end
                  end
                  inner.s[3] = scope
                  inner.s[4] = {}
                  local o = {}
                  body(inner, o)
                  return join(o)
               end
               nodes[#nodes + 1] = function(ctx)
                  ctx.s[#ctx.s][mname] = setmetatable({ call = call }, MACRO_MT)
               end
            elseif word == "set" then
               local parser = tag_parser(p)
               local target = parser:expect("name", "a variable name").v
               local attr
               local more = {}
               if parser:peek().t == "." then
                  parser:next()
                  attr = parser:expect("name", "a name").v
               end
               while not attr and parser:peek().t == "," do
                  -- {% set a, b = x, y %}
                  parser:next()
                  more[#more + 1] = parser:expect("name", "a variable name").v
               end
               if #more > 0 then
                  parser:expect("=", "\"=\"")
                  local fs = { parser:expr() }
                  while parser:peek().t == "," do
                     parser:next()
                     fs[#fs + 1] = parser:expr()
                  end
                  parser:done()
                  local names = { target, table.unpack(more) }
                  nodes[#nodes + 1] = function(ctx)
                     local vals = {}
                     if #fs == 1 then
                        local v = fs[1](ctx)
                        if is_undef(v) then undef_err(v, w) end
                        if not is_seq(v) then ferr(w, "{%% set %s %%}: %s cannot be unpacked", concat(names, ", "), kind(v)) end
                        vals = v
                     else
                        for k, f in ipairs(fs) do vals[k] = f(ctx) end
                     end
                     if #vals ~= #names then
                        ferr(w, "{%% set %s %%}: %d values for %d names", concat(names, ", "), #vals, #names)
                     end
                     local top = ctx.s[#ctx.s]
                     for k, nm in ipairs(names) do top[nm] = vals[k] end
                  end
                  goto continue
               end
               if parser:peek().t == "end" and not attr then
                  local body, ended = block { endset = true }
                  if ended ~= "endset" then ferr(w, "{%% set %s %%} is never closed by {%% endset %%}", target) end
                  nodes[#nodes + 1] = function(ctx)
                     local o = {}
                     body(ctx, o)
                     ctx.s[#ctx.s][target] = join(o)
                  end
               else
                  parser:expect("=", "\"=\"")
                  local f = parser:expr()
                  parser:done()
                  if attr then
                     nodes[#nodes + 1] = function(ctx)
                        local s, ns = ctx.s, nil
                        for k = #s, 1, -1 do
                           if s[k][target] ~= nil then
                              ns = s[k][target]
                              break
                           end
                        end
                        if getmetatable(ns) ~= NS_MT then
                           ferr(w, "{%% set %s.%s %%}: %s is not a namespace() (only a namespace's fields can be set)",
                                target, attr, target)
                        end
                        ns[attr] = f(ctx)
                     end
                  else
                     nodes[#nodes + 1] = function(ctx) ctx.s[#ctx.s][target] = f(ctx) end
                  end
               end
            elseif stop and stop[word] then
               depth = depth - 1
               if word ~= "else" and word ~= "elif" then
                  local rest = p.s:match("^%s*[%a_]+%s*(.-)%s*$")
                  if rest ~= "" then ferr(w, "{%% %s %%} takes nothing after it, found \"%s\"", word, rest) end
               elseif word == "else" and p.s:match("^%s*else%s*(.-)%s*$") ~= "" then
                  ferr(w, "{%% else %%} takes nothing after it (a condition goes in {%% elif %%})")
               end
               return run_all(nodes), word, p
            elseif word == "endif" or word == "endfor" or word == "elif" or word == "else" or word == "endset"
               or word == "endraw" or word == "endmacro" then
               ferr(w, "{%% %s %%} without the {%% %s %%} it closes", word,
                    ({ endfor = "for", endset = "set", endraw = "raw", endmacro = "macro" })[word] or "if")
            elseif not word then
               ferr(w, "an empty tag {%% %s %%}", p.s:match("^%s*(.-)%s*$"))
            else
               ferr(w, "unknown tag {%% %s %%} (tags: %s)", p.s:match("^%s*(.-)%s*$"), tag_names)
            end
         end
         ::continue::
      end
      depth = depth - 1
      return run_all(nodes), nil
   end
   return (block(nil))
end

local function compile(text, name)
   local opts = { trim_blocks = true, lstrip_blocks = false, keep_trailing_newline = false }
   local src = text:gsub("\r\n?", "\n")
   local line0 = 1
   -- "#jinja2: lstrip_blocks: True, trim_blocks: False" on the first line
   if src:sub(1, 8) == "#jinja2:" then
      local eol = src:find("\n", 1, true)
      local hdr = src:sub(9, (eol or #src + 1) - 1)
      src = eol and src:sub(eol + 1) or ""
      line0 = 2
      for pair in (hdr .. ","):gmatch("([^,]*),") do
         local k, v = pair:match("^%s*([%w_]+)%s*:%s*(.-)%s*$")
         if not k then
            fail(name, 1, "#jinja2: takes name: value pairs such as \"lstrip_blocks: True\", got \"%s\"",
                 pair:match("^%s*(.-)%s*$"))
         end
         if opts[k] == nil then
            fail(name, 1, "#jinja2: %s is not one of trim_blocks, lstrip_blocks, keep_trailing_newline", k)
         end
         if v ~= "True" and v ~= "False" and v ~= "true" and v ~= "false" then
            fail(name, 1, "#jinja2: %s takes True or False, got \"%s\"", k, v)
         end
         opts[k] = v == "True" or v == "true"
      end
   end
   local tnl = #src:match("\n*$")
   if not opts.keep_trailing_newline and tnl > 0 then src = src:sub(1, -2) end
   return { run = compile_pieces(lex(src, name, opts, line0), name), tnl = tnl }
end

-- Compiled templates by name and text: at most 256 of them and 8 MiB of
-- text (then the cache starts again empty).
local cache, cached, cached_bytes = {}, 0, 0

-- Render text (named name in messages) with the variables vars.
function M.render(text, vars, name)
   if type(text) ~= "string" then
      error(fmt("template: the text must be a string, got %s", type(text)), 3)
   end
   if vars ~= nil and type(vars) ~= "table" then
      error(fmt("template: the variables must be a table { name = value, ... }, got %s", type(vars)), 3)
   end
   name = name or "template"
   local key = name .. "\0" .. text
   local c = cache[key]
   if not c then
      c = compile(text, name)
      if cached >= 256 or cached_bytes + #key > 8 * 1024 * 1024 then cache, cached, cached_bytes = {}, 0, 0 end
      cache[key], cached, cached_bytes = c, cached + 1, cached_bytes + #key
   end
   local out = {}
   c.run({ s = { vars or {}, {} } }, out)
   -- As Ansible does: the template's trailing newlines are kept.
   local have = 0
   for k = #out, 1, -1 do
      local p = out[k]
      if type(p) ~= "string" then break end
      local nl = #p:match("\n*$")
      have = have + nl
      if nl < #p then break end
   end
   for _ = have + 1, c.tnl do out[#out + 1] = "\n" end
   return join(out)
end

-- For tests: how many templates are compiled and kept.
function M.cached() return cached end

return M
