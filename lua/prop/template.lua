-- prop.template: text with substitutions, conditions and loops, rendered
-- while the site is evaluated (so the checker and `prop show` see the
-- result, and a mistake is found by `prop lint`, not on the target).
--
--   {{ name }}  {{ a.b.c }}  {{ name | default("x") }}  {{ list | join(", ") }}
--   {% if cond %} ... {% elif cond %} ... {% else %} ... {% endif %}
--   {% for x in list %} ... {% endfor %}    {% for k, v in map %} ... {% endfor %}
--   {# a comment #}
--
-- cond is `expr`, `not expr`, `expr == literal`, `expr != literal`,
-- `expr is defined`, `expr is not defined`.  Inside a loop, loop.index,
-- loop.first and loop.last.  A line holding only a {% %} or {# #} tag
-- leaves no blank line behind (as Ansible's template module does).
--
-- The language is small on purpose: a template cannot run code, so it
-- cannot leave the sandbox, and every name it uses is checked: a name the
-- variables do not define is an error naming the template's line and the
-- site's.  A secret substituted into a template makes the result a secret.

local core = require "prop.core"

local M = {}

local fmt, concat = string.format, table.concat

-- An error at line ln of the template called name, raised to the site.
local function fail(name, ln, msg, ...)
   error(fmt("%s:%d: %s", name, ln, fmt(msg, ...)), 0)
end

-- ---------------------------------------------------------------------
-- Parsing: the text becomes a list of pieces, then a tree of blocks.

local function is_blank(s) return s:match("^[ \t]*$") ~= nil end

-- Pieces: { kind = "text"|"expr"|"tag", s = ..., line = n }.
local function lex(text, name)
   local pieces, pos, line = {}, 1, 1
   local function count(s)
      local _, n = s:gsub("\n", "")
      return n
   end
   while pos <= #text do
      local a, b, open = text:find("{([{%%#])", pos)
      if not a then
         pieces[#pieces + 1] = { kind = "text", s = text:sub(pos), line = line }
         break
      end
      local close = ({ ["{"] = "}}", ["%"] = "%}", ["#"] = "#}" })[open]
      local c, d = text:find(close, b + 1, true)
      if not c then fail(name, line + count(text:sub(pos, a)), "\"{%s\" is never closed by \"%s\"", open, close) end
      local before = text:sub(pos, a - 1)
      local body = text:sub(b + 1, c - 1)
      local tag_line = line + count(before)
      -- A line holding only a block tag or a comment leaves nothing behind.
      if open ~= "{" then
         local lead = before:match("([^\n]*)$")
         local rest = text:sub(d + 1):match("^([^\n]*)")
         if is_blank(lead) and is_blank(rest) and (a - #lead == 1 or text:sub(a - #lead - 1, a - #lead - 1) == "\n") then
            before = before:sub(1, #before - #lead)
            d = d + #rest
            if text:sub(d + 1, d + 1) == "\n" then
               d = d + 1
            end
         end
      end
      if before ~= "" then pieces[#pieces + 1] = { kind = "text", s = before, line = line } end
      if open == "{" then
         pieces[#pieces + 1] = { kind = "expr", s = body, line = tag_line }
      elseif open == "%" then
         pieces[#pieces + 1] = { kind = "tag", s = body, line = tag_line }
      end
      line = line + count(text:sub(pos, d))
      pos = d + 1
   end
   return pieces
end

local ident = "[%a_][%w_]*"

-- "a.b.c" -> { "a", "b", "c" }, or nil.
local function path_of(s)
   s = s:match("^%s*(.-)%s*$")
   if not s:match("^" .. ident .. "[%w_.]*$") or s:match("%.%.") or s:match("%.$") then return nil end
   local parts = {}
   for p in s:gmatch("[^.]+") do
      if not p:match("^" .. ident .. "$") then return nil end
      parts[#parts + 1] = p
   end
   return parts
end

-- A literal: "str", 'str', a number, true, false.  Returns ok, value.
local function literal(s)
   s = s:match("^%s*(.-)%s*$")
   local q = s:match('^"(.*)"$') or s:match("^'(.*)'$")
   if q then return true, q end
   if s == "true" then return true, true end
   if s == "false" then return true, false end
   local n = tonumber(s)
   if n and s:match("^%-?[%d.]+$") then return true, n end
   return false
end

-- An expression: a path, then filters.  { path = {...}, filters = {...} }
local function parse_expr(s, name, ln)
   local head, rest = s:match("^%s*([^|]-)%s*(|.*)$")
   if not head then head, rest = s, "" end
   local path = path_of(head)
   if not path then
      fail(name, ln, "\"%s\" is not a variable name (names such as port or site.domain)",
           head:match("^%s*(.-)%s*$"))
   end
   local filters = {}
   for f in rest:gmatch("|%s*([^|]+)") do
      f = f:match("^(.-)%s*$")
      local fname, arg = f:match("^(" .. ident .. ")%s*%((.*)%)$")
      if not fname then fname = f:match("^(" .. ident .. ")$") end
      local known = { default = true, join = true, upper = true, lower = true }
      if not fname or not known[fname] then
         fail(name, ln, "unknown filter \"%s\" (filters: default(x), join(sep), upper, lower)", f)
      end
      local value
      if arg then
         local ok, v = literal(arg)
         if not ok then fail(name, ln, "%s(...) takes a literal such as \", \" or 80, got %s", fname, arg) end
         value = v
      elseif fname == "default" or fname == "join" then
         fail(name, ln, "%s needs an argument: %s(...)", fname, fname)
      end
      filters[#filters + 1] = { name = fname, arg = value }
   end
   return { path = path, filters = filters, text = s:match("^%s*(.-)%s*$") }
end

local function parse_cond(s, name, ln)
   s = s:match("^%s*(.-)%s*$")
   local e, neg = s:match("^(.-)%s+is%s+(not%s+)defined$")
   if e then return { defined = parse_expr(e, name, ln), negate = true } end
   e = s:match("^(.-)%s+is%s+defined$")
   if e then return { defined = parse_expr(e, name, ln) } end
   local inner = s:match("^not%s+(.+)$")
   if inner then
      local c = parse_cond(inner, name, ln)
      c.negate = not c.negate
      return c
   end
   local l, op, r = s:match("^(.-)%s*([=!]=)%s*(.-)$")
   if l then
      local ok, v = literal(r)
      local rhs = ok and { value = v } or { expr = parse_expr(r, name, ln) }
      return { expr = parse_expr(l, name, ln), op = op, rhs = rhs }
   end
   return { expr = parse_expr(s, name, ln) }
end

-- Blocks: a list of nodes; "if" and "for" nodes hold lists of their own.
local function parse(pieces, name)
   local i = 1
   local function block(stop)
      local nodes = {}
      while i <= #pieces do
         local p = pieces[i]
         i = i + 1
         if p.kind == "text" then
            nodes[#nodes + 1] = p
         elseif p.kind == "expr" then
            nodes[#nodes + 1] = { kind = "expr", e = parse_expr(p.s, name, p.line), line = p.line }
         else
            local word, rest = p.s:match("^%s*(%a+)%s*(.-)%s*$")
            if word == "if" then
               local node = { kind = "if", branches = {}, line = p.line }
               local cond = parse_cond(rest, name, p.line)
               while true do
                  local body, ended, erest, eline = block { elif = true, ["else"] = true, endif = true }
                  node.branches[#node.branches + 1] = { cond = cond, body = body }
                  if ended == "endif" then break end
                  if ended == "elif" then
                     cond = parse_cond(erest, name, eline)
                  else
                     local body2, ended2 = block { endif = true }
                     node.branches[#node.branches + 1] = { body = body2 }
                     if ended2 ~= "endif" then fail(name, p.line, "{%% if %%} is never closed by {%% endif %%}") end
                     break
                  end
               end
               nodes[#nodes + 1] = node
            elseif word == "for" then
               local a, b, e = rest:match("^(" .. ident .. ")%s*,%s*(" .. ident .. ")%s+in%s+(.+)$")
               if not a then
                  a, e = rest:match("^(" .. ident .. ")%s+in%s+(.+)$")
               end
               if not a then
                  fail(name, p.line, "{%% for %s %%} must be \"for x in list\" or \"for k, v in map\"", rest)
               end
               local body, ended = block { endfor = true }
               if ended ~= "endfor" then fail(name, p.line, "{%% for %%} is never closed by {%% endfor %%}") end
               nodes[#nodes + 1] = { kind = "for", a = a, b = b, e = parse_expr(e, name, p.line),
                                     body = body, line = p.line }
            elseif stop and stop[word] then
               return nodes, word, rest, p.line
            elseif word == "endif" or word == "endfor" or word == "elif" or word == "else" then
               fail(name, p.line, "{%% %s %%} without the {%% %s %%} it closes", word,
                    word == "endfor" and "for" or "if")
            else
               fail(name, p.line, "unknown tag {%% %s %%} (tags: if, elif, else, endif, for, endfor)",
                    p.s:match("^%s*(.-)%s*$"))
            end
         end
      end
      if stop then return nodes, nil end
      return nodes
   end
   local nodes, ended = block(nil)
   return nodes, ended
end

-- ---------------------------------------------------------------------
-- Rendering.

local UNDEF = {}

local function lookup(scopes, path)
   local v = UNDEF
   for s = #scopes, 1, -1 do
      local t = scopes[s]
      if type(t) == "table" and t[path[1]] ~= nil then
         v = t[path[1]]
         break
      end
   end
   for i = 2, #path do
      if v == UNDEF then return UNDEF end
      if type(v) ~= "table" then return UNDEF end
      local nv = v[path[i]]
      if nv == nil then return UNDEF end
      v = nv
   end
   return v
end

local function is_secret(v) return core.is_secret and core.is_secret(v) end

local function show(v, name, ln, text)
   local t = type(v)
   if t == "string" then return v end
   if t == "number" then
      if math.type(v) == "integer" then return fmt("%d", v) end
      return fmt("%.14g", v)
   end
   if t == "boolean" then return tostring(v) end
   if is_secret(v) then return v end
   if t == "table" then
      fail(name, ln, "\"%s\" is a table: write it with {%% for %%} or | join(\", \")", text)
   end
   fail(name, ln, "\"%s\" is a %s, which a template cannot write", text, t)
end

local function eval(e, scopes, name, ln, allow_undef)
   local v = lookup(scopes, e.path)
   for _, f in ipairs(e.filters) do
      if f.name == "default" then
         if v == UNDEF then v = f.arg end
      elseif v == UNDEF then
         break
      elseif f.name == "join" then
         if type(v) ~= "table" then fail(name, ln, "join takes a list; \"%s\" is a %s", e.text, type(v)) end
         local parts = {}
         for i, x in ipairs(v) do parts[i] = show(x, name, ln, e.text) end
         local out = ""
         for i, x in ipairs(parts) do
            if i > 1 then out = out .. f.arg end
            out = out .. x
         end
         v = out
      else
         if type(v) ~= "string" then fail(name, ln, "%s takes a string; \"%s\" is a %s", f.name, e.text, type(v)) end
         v = f.name == "upper" and v:upper() or v:lower()
      end
   end
   if v == UNDEF and not allow_undef then
      fail(name, ln, "\"%s\" is not defined: the variables given to the template have no %s",
           e.text, concat(e.path, "."))
   end
   return v
end

local function truth(c, scopes, name, ln)
   local r
   if c.defined then
      r = eval(c.defined, scopes, name, ln, true) ~= UNDEF
   else
      local v = eval(c.expr, scopes, name, ln)
      if c.op then
         local w = c.rhs.value
         if c.rhs.expr then w = eval(c.rhs.expr, scopes, name, ln) end
         if is_secret(v) or is_secret(w) then fail(name, ln, "a secret cannot be compared in a template") end
         r = (v == w)
         if c.op == "!=" then r = not r end
      else
         if is_secret(v) then fail(name, ln, "a secret cannot be a condition in a template") end
         r = v ~= false and v ~= nil and v ~= "" and v ~= 0 and not (type(v) == "table" and next(v) == nil)
      end
   end
   if c.negate then r = not r end
   return r
end

local function render(nodes, scopes, out, name)
   for _, n in ipairs(nodes) do
      if n.kind == "text" then
         out[#out + 1] = n.s
      elseif n.kind == "expr" then
         out[#out + 1] = show(eval(n.e, scopes, name, n.line), name, n.line, n.e.text)
      elseif n.kind == "if" then
         for _, br in ipairs(n.branches) do
            if not br.cond or truth(br.cond, scopes, name, n.line) then
               render(br.body, scopes, out, name)
               break
            end
         end
      else
         local v = eval(n.e, scopes, name, n.line)
         if type(v) ~= "table" then
            fail(name, n.line, "{%% for %%} needs a list or a table; \"%s\" is a %s", n.e.text, type(v))
         end
         local keys = {}
         if n.b then
            for k in pairs(v) do keys[#keys + 1] = k end
            table.sort(keys, function(x, y)
               if type(x) == type(y) and (type(x) == "number" or type(x) == "string") then return x < y end
               return type(x) < type(y)
            end)
         else
            for i = 1, #v do keys[i] = i end
         end
         for i, k in ipairs(keys) do
            local scope = { loop = { index = i, first = i == 1, last = i == #keys } }
            if n.b then scope[n.a], scope[n.b] = k, v[k] else scope[n.a] = v[k] end
            scopes[#scopes + 1] = scope
            render(n.body, scopes, out, name)
            scopes[#scopes] = nil
         end
      end
   end
end

-- The pieces joined: a string, or a secret when one was written.
local function join(out)
   local plain, acc, secret = {}, nil, false
   for _, x in ipairs(out) do
      if type(x) == "string" then
         plain[#plain + 1] = x
      else
         local s = concat(plain)
         plain = {}
         acc = (acc == nil and s or acc .. s) .. x
         secret = true
      end
   end
   if not secret then return concat(plain) end
   return acc .. concat(plain)
end

-- Render text (named name in messages) with the variables vars.
function M.render(text, vars, name)
   if type(text) ~= "string" then
      error(fmt("template: the text must be a string, got %s", type(text)), 3)
   end
   if vars ~= nil and type(vars) ~= "table" then
      error(fmt("template: the variables must be a table { name = value, ... }, got %s", type(vars)), 3)
   end
   local nodes = parse(lex(text, name), name)
   local out = {}
   render(nodes, { vars or {} }, out, name)
   return join(out)
end

return M
