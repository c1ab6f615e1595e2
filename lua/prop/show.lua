-- show.lua: the property tree of a host, as `prop show` prints it.
--
-- Each line is one node: its description, its type (targets, revertable,
-- info, ports), the combinator that made it, and where it was made; under
-- a leaf, one line for each resource it claims.
-- Children carry the role the combinator gives them ("requires:",
-- "on change:", ...), so that the tree reads the way it runs.

local M = {}

-- How each combinator names its second part (the first is plain).
local roles = {
   requires = { nil, "requires: " },
   before = { nil, "then: " },
   on_change = { nil, "on change: " },
   fallback = { nil, "if it fails: " },
   revertable = { nil, "reverted: " },
}

local function label(p, role)
   local kind = p.kind
   local tag = ""
   if kind ~= "property" and kind ~= "info" and not p.paired then
      tag = "[" .. kind .. "] "
   end
   return string.format("%s%s%s : %s  (%s)", role or "", tag, p.desc, p.type, p.origin)
end

local function children_of(p)
   local kind = p.kind
   if p.paired or kind == "property" or kind == "info" or kind == "invalid" then
      return {}, {}
   end
   if kind == "revert" then
      local r = p.reverted
      if r then return { r }, { "runs: " } end
      return {}, {}
   end
   local kids = p.children
   local names = {}
   local r = roles[kind]
   for i, kid in ipairs(kids) do
      if r then
         names[i] = r[i]
      elseif kind == "pick_os" then
         names[i] = "if " .. table.concat(kid.targets, " | ") .. ": "
      end
   end
   return kids, names
end

-- A claim in words: "file.line /etc/x \"a=1\"".  Values are quoted with
-- control characters escaped; a long one gives its length; a secret's is
-- never shown.
local function claim_text(c)
   local s = c.kind .. " " .. c.key
   if c.id then s = s .. " (id " .. c.id .. ")" end
   if c.secret then return s .. " (secret)" end
   if c.value then
      if #c.value <= 80 and not c.value:find("\n.", 1) then
         s = s .. " " .. string.format("%q", c.value):gsub("\\\n", "\\n")
      else
         s = s .. string.format(" (%d bytes)", #c.value)
      end
   end
   return s
end

-- The claims of a leaf (a recipe's pair: its first side's), under it.
local function add_claims(p, prefix, out)
   local kind = p.kind
   if kind ~= "property" and not p.paired then return end
   for _, c in ipairs(p.claims) do
      out[#out + 1] = prefix .. "    claims " .. claim_text(c)
   end
end

local function walk(p, role, prefix, last, out, depth)
   local branch = depth == 0 and "" or (last and "└── " or "├── ")
   out[#out + 1] = prefix .. branch .. label(p, role)
   local kids, names = children_of(p)
   local next_prefix = depth == 0 and "" or prefix .. (last and "    " or "│   ")
   add_claims(p, next_prefix, out)
   for i, kid in ipairs(kids) do
      walk(kid, names[i], next_prefix, i == #kids, out, depth + 1)
   end
end

-- Lines for one host: a header, then each top-level property as a tree.
function M.host(h)
   local out = {}
   out[1] = string.format("host %s : %s  (%s)", h.name, h.os or "no OS declared", h.origin)
   local props = h.properties
   for i, p in ipairs(props) do
      local last = i == #props
      out[#out + 1] = (last and "└── " or "├── ") .. label(p)
      add_claims(p, last and "    " or "│   ", out)
      local kids, names = children_of(p)
      for j, kid in ipairs(kids) do
         walk(kid, names[j], last and "    " or "│   ", j == #kids, out, 1)
      end
   end
   return table.concat(out, "\n") .. "\n"
end

-- One property and its parts (for the REPL and `prop show` of a value).
function M.property(p)
   local out = {}
   walk(p, nil, "", true, out, 0)
   return table.concat(out, "\n") .. "\n"
end

return M
