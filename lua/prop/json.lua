-- prop.json: JSON text made from Lua values (json.encode), and one string
-- or secret as a quoted JSON or YAML value (json.quote, yaml.quote), for
-- content that holds secrets.  A secret stays a secret: its value is
-- quoted only when it is revealed at run time (core.secret_json), and
-- what holds one is a secret too.  Text comes out as ASCII: every other
-- character is \uXXXX, as Python's json.dumps writes it.

local core = require "prop.core"

local fmt, concat, sort = string.format, table.concat, table.sort
local mtype = math.type

local M = {}

local null = setmetatable({}, {
   __name = "json.null",
   __tostring = function() return "json.null" end,
   __newindex = function() error("json.null is read-only", 2) end,
   __metatable = false,
})
M.null = null

-- Tables json.object marked: written as an object even when empty.
local objects = setmetatable({}, { __mode = "k" })

local esc = { ['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t",
              ["\b"] = "\\b", ["\f"] = "\\f" }

-- Characters above ASCII that a YAML double-quoted scalar may not hold
-- raw: C1 controls, the line and paragraph separators, the byte-order
-- mark, U+FFFE and U+FFFF.
local function yaml_escapes(c)
   return (c >= 0x80 and c <= 0x9f) or c == 0x2028 or c == 0x2029 or c == 0xfeff
      or c == 0xfffe or c == 0xffff
end

-- s as a JSON string, quotes included (yaml: as a YAML double-quoted
-- scalar, whose other characters stay UTF-8); fail(msg) when s is not
-- UTF-8.  The same rules as core.secret_json's for a secret's value.
function M.quote_string(s, fail, yaml)
   if not utf8.len(s) then
      return fail(fmt("a string that is not UTF-8 cannot be written as %s", yaml and "YAML" or "JSON"))
   end
   local out = {}
   for _, c in utf8.codes(s) do
      local ch = utf8.char(c)
      if esc[ch] then
         out[#out + 1] = esc[ch]
      elseif (c >= 0x20 and c < 0x7f) or (c == 0x7f and not yaml) then
         out[#out + 1] = ch
      elseif yaml and c >= 0x80 and not yaml_escapes(c) then
         out[#out + 1] = ch
      elseif c < 0x10000 then
         out[#out + 1] = fmt("\\u%04x", c)
      else
         c = c - 0x10000
         out[#out + 1] = fmt("\\u%04x\\u%04x", 0xd800 + (c >> 10), 0xdc00 + (c & 0x3ff))
      end
   end
   return '"' .. concat(out) .. '"'
end

local function number(n, fail)
   if mtype(n) == "integer" then return fmt("%d", n) end
   if n ~= n or n == math.huge or n == -math.huge then
      return fail(fmt("%s is not a JSON number", tostring(n)))
   end
   local s
   for p = 1, 17 do
      s = fmt("%." .. p .. "g", n)
      if tonumber(s) == n then break end
   end
   if not s:find("[.eE]") then s = s .. ".0" end
   return s
end

-- Strings and secrets, joined: a string, or a secret when one is (the
-- template's output is joined so too).
local function join(parts)
   local out, run = nil, {}
   for _, p in ipairs(parts) do
      if type(p) == "string" then
         run[#run + 1] = p
      else
         local s = concat(run)
         run = {}
         if out == nil then
            out = s .. p
         elseif s == "" then
            out = out .. p
         else
            out = out .. s .. p
         end
      end
   end
   local s = concat(run)
   if out == nil then return s end
   if s == "" then return out end
   return out .. s
end

local function is_list(t)
   if objects[t] then return false end
   local n = 0
   for _ in pairs(t) do n = n + 1 end
   return n == #t
end

local function encode(v, parts, fail, indent, depth)
   if depth > 64 then return fail("a value nested more than 64 deep") end
   local t = type(v)
   if t == "string" then
      parts[#parts + 1] = M.quote_string(v, fail)
   elseif t == "boolean" then
      parts[#parts + 1] = v and "true" or "false"
   elseif t == "number" then
      parts[#parts + 1] = number(v, fail)
   elseif v == null then
      parts[#parts + 1] = "null"
   elseif core.is_secret(v) then
      parts[#parts + 1] = core.secret_json(v)
   elseif t == "table" and getmetatable(v) == nil then
      local list = is_list(v)
      local keys = {}
      if list then
         for i = 1, #v do keys[i] = i end
      else
         for k in pairs(v) do
            if type(k) ~= "string" and type(k) ~= "number" then
               return fail(fmt("a %s key cannot be a JSON object's key (only strings and numbers)", type(k)))
            end
            keys[#keys + 1] = k
         end
         sort(keys, function(a, b)
            if type(a) == type(b) then return a < b end
            return type(a) == "number"
         end)
      end
      local open, close = list and "[" or "{", list and "]" or "}"
      parts[#parts + 1] = open
      local pad = indent and "\n" .. indent:rep(depth + 1) or ""
      for i, k in ipairs(keys) do
         if i > 1 then parts[#parts + 1] = indent and "," or ", " end
         parts[#parts + 1] = pad
         if not list then
            parts[#parts + 1] = M.quote_string(type(k) == "string" and k or number(k, fail), fail)
            parts[#parts + 1] = ": "
         end
         encode(v[k], parts, fail, indent, depth + 1)
      end
      if indent and #keys > 0 then parts[#parts + 1] = "\n" .. indent:rep(depth) end
      parts[#parts + 1] = close
   else
      return fail(fmt("a %s cannot be written as JSON", t == "table" and "table with a metatable" or t))
   end
end

-- Errors of json.encode and the quote functions are the caller's: raised
-- at the line that called them.
local Fail = {}
local function fail(msg) error(setmetatable({ msg = msg }, Fail), 0) end
local function caught(what, ok, r)
   if ok then return r end
   if getmetatable(r) == Fail then error(what .. ": " .. r.msg, 3) end
   error(r, 0)
end

--[[ json.encode(value [, { indent = N }])
  The JSON text of value: a table with keys 1..n is an array, any other
  table an object (keys sorted; json.object{} for an empty object),
  strings, numbers, booleans, json.null, and secrets, whose values are
  quoted when they are revealed: the result is then a secret.
]]
function M.encode(v, opts)
   local indent
   if opts ~= nil then
      if type(opts) ~= "table" or getmetatable(opts) ~= nil then
         error(fmt("json.encode: the options must be a table such as { indent = 2 }, got %s", type(opts)), 2)
      end
      for k in pairs(opts) do
         if k ~= "indent" then error(fmt('json.encode: unknown option "%s" (expected indent)', tostring(k)), 2) end
      end
      local n = opts.indent
      if n ~= nil and (mtype(n) ~= "integer" or n < 0 or n > 16) then
         error("json.encode: indent must be a whole number of spaces from 0 to 16", 2)
      end
      indent = n and (" "):rep(n)
   end
   return caught("json.encode", pcall(function()
      local parts = {}
      encode(v, parts, fail, indent, 0)
      return join(parts)
   end))
end

-- A string, a number or a secret as one quoted value.
local function quote(what, yaml)
   return function(v)
      return caught(what, pcall(function()
         if type(v) == "string" then return M.quote_string(v, fail, yaml) end
         if type(v) == "number" then return M.quote_string(number(v, fail), fail, yaml) end
         if core.is_secret(v) then return core.secret_json(v, yaml and "yaml" or nil) end
         return fail(fmt("needs a string, a number or a secret, got %s", type(v)))
      end))
   end
end

--[[ json.quote(v): v as one JSON string (quotes included). ]]
M.quote = quote("json.quote")

--[[ yaml.quote(v): v as one YAML double-quoted scalar (text other than
  ASCII stays UTF-8: YAML's \u is 16 bits wide). ]]
M.yaml_quote = quote("yaml.quote", true)

M.join = join

function M.object(t)
   if t == nil then t = {} end
   if type(t) ~= "table" or getmetatable(t) ~= nil then
      error(fmt("json.object needs a table, got %s", type(t)), 2)
   end
   objects[t] = true
   return t
end

return M
