-- repl.lua: what `prop repl` shows and completes.
--
-- The C side (bindings/cmd_repl.c, its line editor bindings/repl_edit.c)
-- reads lines, runs them in the site's config environment and calls this
-- module for the policy: how a value is printed (a property as its tree,
-- a host as its name and size, a table nested to a few levels), what
-- `:type` says, and the candidates for tab completion.  cmd_repl.c sets
-- M.what(v) -> "property" | "host" | nil before anything here is called.

local core = require "prop.core"
local show = require "prop.show"
local args = require "prop.args"

local M = {}

local fmt, concat, sort = string.format, table.concat, table.sort

M.what = function() return nil end

-- The commands, for :help and completion (name, argument, what it does).
M.commands = {
   { "hosts", "", "list the hosts of the site, each container under its host" },
   { "show", "[HOST|EXPR]", "a host's tree (box/web: a container's; none: every host)" },
   { "type", "EXPR", "the type of a value: targets, revertable, ports, info, claims" },
   { "claims", "THING", "which properties on which hosts claim a path, package, service, port or account" },
   { "lint", "", "the pre-pass findings, as prop lint prints them" },
   { "plan", "HOST", "what a run of HOST would change (a dry run)" },
   { "reload", "", "read the site again, into a fresh state" },
   { "help", "", "this list" },
   { "quit", "", "leave (Ctrl-D too)" },
}

function M.help()
   local out = {
      "Type Lua: the site's globals, prop's API and the recipe modules are in scope;",
      "an expression prints its value, an unfinished statement continues on a >> line.",
      "",
   }
   for _, c in ipairs(M.commands) do
      out[#out + 1] = fmt("  %-20s %s", ":" .. c[1] .. (c[2] ~= "" and " " .. c[2] or ""), c[3])
   end
   out[#out + 1] = ""
   out[#out + 1] = "Tab completes globals, module members (apt.), fields (p.), commands and host names."
   return concat(out, "\n")
end

-- ---------------------------------------------------------------------
-- Printing values.

local MAX_DEPTH = 4     -- nested tables deeper than this print as {...}
local MAX_ITEMS = 60    -- entries of one table before "... N more"
local LINE = 76         -- a table that fits on a line of this width stays on one

local escapes = { ["\n"] = "\\n", ["\t"] = "\\t", ["\r"] = "\\r", ['"'] = '\\"', ["\\"] = "\\\\" }

local function quote(s)
   return '"' .. s:gsub('[%c"\\]', function(c)
      return escapes[c] or fmt("\\%d", c:byte())
   end) .. '"'
end

local function is_ident(k)
   return type(k) == "string" and k:match("^[%a_][%w_]*$") ~= nil
end

-- A module of recipes: its metatable is locked with a "prop module" label.
local function module_name(v)
   local mt = getmetatable(v)
   if type(mt) == "string" then return mt:match("^prop module (.+)$") end
   return nil
end

local function sorted_names(v)
   local names = {}
   local ok = pcall(function()
      for k in pairs(v) do
         if type(k) == "string" then names[#names + 1] = k end
      end
      -- The globals loaded when first named (the recipe modules).
      local mt = getmetatable(v)
      for _, k in ipairs(type(mt) == "table" and mt.lazy_globals or {}) do
         if rawget(v, k) == nil then names[#names + 1] = k end
      end
   end)
   if not ok then return {} end
   sort(names)
   return names
end

local function short_property(p)
   return fmt("%s : %s  (%s)", p.desc, p.type, p.origin)
end

local function host_line(h)
   return fmt("%s  (%s)", tostring(h), h.origin)
end

local function key_order(a, b)
   local ta, tb = type(a), type(b)
   if ta ~= tb then return ta < tb end
   if ta == "number" or ta == "string" then return a < b end
   return tostring(a) < tostring(b)
end

local format_value

local function format_table(t, depth, seen, indent)
   local mod = module_name(t)
   if mod then
      return fmt("prop module %s { %s }", mod, concat(sorted_names(t), ", "))
   end
   if seen[t] then return "{<cycle>}" end
   if depth >= MAX_DEPTH then return "{...}" end
   seen[t] = true
   local items, n = {}, 0
   local len = rawlen(t)
   for i = 1, len do
      n = n + 1
      if n > MAX_ITEMS then break end
      items[#items + 1] = format_value(rawget(t, i), depth + 1, seen, indent .. "  ")
   end
   local keys = {}
   for k in next, t do
      if not (math.type(k) == "integer" and k >= 1 and k <= len) then keys[#keys + 1] = k end
   end
   sort(keys, key_order)
   for _, k in ipairs(keys) do
      n = n + 1
      if n > MAX_ITEMS then break end
      local ks = is_ident(k) and k or "[" .. format_value(k, MAX_DEPTH, seen, indent) .. "]"
      items[#items + 1] = ks .. " = " .. format_value(rawget(t, k), depth + 1, seen, indent .. "  ")
   end
   local total = len + #keys
   if total > MAX_ITEMS then
      items[#items + 1] = fmt("... (%d more)", total - MAX_ITEMS)
   end
   seen[t] = nil
   if #items == 0 then return "{}" end
   local flat = "{ " .. concat(items, ", ") .. " }"
   if #flat + #indent <= LINE and not flat:find("\n", 1, true) then return flat end
   -- One entry per line, but short one-line entries share a line.
   local lines, cur = {}, nil
   for i, item in ipairs(items) do
      local piece = item .. (i < #items and "," or "")
      if cur and not item:find("\n", 1, true) and #cur + 1 + #piece + #indent + 2 <= LINE
         and not cur:find("\n", 1, true) then
         cur = cur .. " " .. piece
      else
         if cur then lines[#lines + 1] = cur end
         cur = piece
      end
   end
   lines[#lines + 1] = cur
   return "{\n" .. indent .. "  " .. concat(lines, "\n" .. indent .. "  ") .. "\n" .. indent .. "}"
end

format_value = function(v, depth, seen, indent)
   local what = M.what(v)
   if what == "property" then return short_property(v) end
   if what == "host" then return host_line(v) end
   local t = type(v)
   if t == "string" then return quote(v) end
   if t == "table" then return format_table(v, depth, seen, indent) end
   return tostring(v)
end

-- One value as the REPL prints it at the top level: a property as its
-- tree (each node with its type and origin), anything else as above.
local function format_top(v)
   if M.what(v) == "property" then
      return (show.property(v):gsub("\n$", ""))
   end
   return format_value(v, 0, {}, "")
end

-- The results of one input, one per line ("" when there are none).
function M.format(...)
   local n = select("#", ...)
   local out = {}
   for i = 1, n do
      out[i] = format_top((select(i, ...)))
   end
   return concat(out, "\n")
end

-- ---------------------------------------------------------------------
-- :type

local function list_or_none(t)
   if t == nil or #t == 0 then return "none" end
   return concat(t, ", ")
end

function M.type_of(v)
   local what = M.what(v)
   if what == "property" then
      local lines = { fmt("%s : %s", v.desc, v.type) }
      local function row(k, val) lines[#lines + 1] = fmt("  %-11s %s", k, val) end
      local kind = v.kind
      if v.paired then
         kind = "property, reverted by: " .. v.reverted.desc
      end
      row("kind", kind)
      row("targets", list_or_none(v.targets))
      row("revertable", v.revertable and "yes" or "no")
      local ports = {}
      for i, p in ipairs(v.ports) do ports[i] = tostring(p) end
      row("ports", list_or_none(ports))
      local info = {}
      for _, k in ipairs(sorted_names(v.info)) do
         info[#info + 1] = k .. " " .. concat(v.info[k], " ")
      end
      row("info", list_or_none(info))
      local claims = {}
      for _, c in ipairs(v.claims) do
         local s = c.kind .. " " .. c.key
         if c.id then s = s .. " (id " .. c.id .. ")" end
         if c.secret then
            s = s .. " (secret)"
         elseif c.value and #c.value <= 200 then
            s = s .. " " .. quote(c.value)
         elseif c.value then
            s = s .. " " .. quote(c.value:sub(1, 200)) .. fmt("... (%d bytes)", #c.value)
         end
         claims[#claims + 1] = s
      end
      row("claims", list_or_none(claims))
      row("origin", v.origin)
      return concat(lines, "\n")
   elseif what == "host" then
      if v.container then
         return fmt("container (%s) : %s, %d properties  (%s)", v.container,
                    v.os or "no OS declared", #v.properties, v.origin)
      end
      return fmt("host : %s, %d properties  (%s)", v.os or "no OS declared", #v.properties, v.origin)
   end
   local mod = type(v) == "table" and module_name(v)
   if mod then return "prop module " .. mod end
   if math.type(v) then return "number (" .. math.type(v) .. ")" end
   return type(v)
end

-- ---------------------------------------------------------------------
-- Completion.

local keywords = {
   "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if",
   "in", "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
}

local is_keyword = {}
for _, k in ipairs(keywords) do is_keyword[k] = true end

local property_fields = { "desc", "targets", "revertable", "ports", "info", "origin", "kind",
                          "type", "children", "claims", "reverted", "paired", "container" }
local property_methods = { "requires", "before", "on_change", "fallback", "describe" }
local host_fields = { "name", "os", "origin", "properties", "info", "container", "short_name",
                      "parent", "containers", "attached_by" }

-- The hosts' names and their containers' ("box/web"), for :show and :plan.
local function host_names()
   local names = {}
   local function add(h)
      names[#names + 1] = h.name
      for _, c in ipairs(h.containers) do add(c) end
   end
   for _, h in ipairs(core.hosts()) do add(h) end
   return names
end

local function claim_keys()
   local seen, keys = {}, {}
   for _, h in ipairs(core.hosts()) do
      for _, p in ipairs(h.properties) do
         for _, c in ipairs(p.claims) do
            if not seen[c.key] then
               seen[c.key] = true
               keys[#keys + 1] = c.key
            end
         end
      end
   end
   return keys
end

-- The names in list that start with prefix, each as before .. name,
-- sorted and without duplicates.
local function matching(list, prefix, before)
   local out, seen = {}, {}
   for _, name in ipairs(list) do
      if type(name) == "string" and name:sub(1, #prefix) == prefix and not seen[name] then
         seen[name] = true
         out[#out + 1] = (before or "") .. name
      end
   end
   sort(out)
   return out
end

-- The value a dotted chain of names ("apt", "web.props") stands for in env,
-- or nil.  Indexing is protected: a strict module raises for what it lacks.
local function resolve(env, chain)
   local v
   for name in chain:gmatch("[^.]+") do
      if not is_ident(name) then return nil end
      if v == nil then
         v = rawget(env, name)
         local mt = v == nil and getmetatable(env)
         if type(mt) == "table" and mt.lazy_globals then
            -- A recipe module not loaded yet: naming it loads it.
            for _, k in ipairs(mt.lazy_globals) do
               if k == name then v = env[name] break end
            end
         end
      else
         local ok, r = pcall(function() return v[name] end)
         if not ok then return nil end
         v = r
      end
      if v == nil then return nil end
   end
   return v
end

local function members(v, sep)
   local what = M.what(v)
   if what == "property" then
      return sep == ":" and property_methods or property_fields
   elseif what == "host" then
      return sep == ":" and { "info" } or host_fields
   elseif type(v) == "string" then
      return sep == ":" and sorted_names(string) or {}
   elseif type(v) == "table" then
      local names = {}
      for _, k in ipairs(sorted_names(v)) do
         -- t.local is not Lua: a keyword key is left out (t["local"] works).
         if is_ident(k) and not is_keyword[k] and (sep == "." or type(rawget(v, k)) == "function"
                             or module_name(v)) then
            names[#names + 1] = k
         end
      end
      return names
   end
   return {}
end

local function command_names()
   local names = { "q", "exit" }
   for _, c in ipairs(M.commands) do names[#names + 1] = c[1] end
   return names
end

-- complete(env, text, first): text is the line up to the cursor; first is
-- true when it starts a statement (so a ":command" may be typed).  Returns
-- the word being completed, how many of its bytes to leave out when the
-- candidates are listed, and the candidates (each starting with the word).
function M.complete(env, text, first)
   if first then
      local cmd = text:match("^%s*(:[%w_]*)$")
      if cmd then return cmd, 0, matching(command_names(), cmd:sub(2), ":") end
      local name, arg = text:match("^%s*:(%a+)%s+(%S*)$")
      if name == "show" or name == "plan" then
         return arg, 0, matching(host_names(), arg)
      elseif name == "claims" then
         return arg, 0, matching(claim_keys(), arg)
      end
   end
   local word = text:match("[%w_.:]*$")
   local chain, sep, partial = word:match("^(.*)([.:])([%w_]*)$")
   if chain == nil then
      if word:match("^%d") then return word, 0, {} end
      local names = sorted_names(env)
      for _, k in ipairs(keywords) do names[#names + 1] = k end
      return word, 0, matching(names, word)
   end
   if chain == "" or chain:find(":", 1, true) then return word, 0, {} end
   local v = resolve(env, chain)
   if v == nil then return word, 0, {} end
   return word, #chain + 1, matching(members(v, sep), partial, chain .. sep)
end

-- Did-you-mean for an unknown :command.
function M.suggest_command(name)
   return args.suggest(name, command_names())
end

return M
