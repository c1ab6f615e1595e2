-- show.lua: the property tree of a host, as `prop show` prints it.
--
-- Each line is one node: its description, its type (targets, revertable,
-- info, ports), the combinator that made it, and where it was made; under
-- a leaf, one line for each resource it claims.
-- Children carry the role the combinator gives them ("requires:",
-- "on change:", ...), so that the tree reads the way it runs.  A
-- container is shown under the property that puts it on its host, headed
-- "container NAME (KIND) : OS", with its own tree below.

local core = require "prop.core"

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
         -- The alternative's targets as its type names them ("DebianLike").
         local set = type(kid.type) == "string" and kid.type:match("^([^,]+)")
         names[i] = "if " .. (set or table.concat(kid.targets, " | ")) .. ": "
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

-- The container a property puts on its host or removes from it (a
-- recipe's pair: its first side's), and "attached" or "removed".
local function container_of(p)
   local leaf = p
   local kind = p.kind
   if kind == "revertable" and p.paired then
      leaf = p.children[1]
   elseif kind ~= "property" then
      return nil
   end
   local c = leaf.container
   if c == nil then return nil end
   return c, c.attached_by == leaf and "attached" or "removed"
end

local function container_label(c, name, extra)
   return string.format("container %s (%s%s) : %s  (%s)", name, c.container, extra or "",
                        c.os or "no OS declared", c.origin)
end

-- Every container the tree under p puts on its host or removes, as the
-- walk below meets them: { c, how } each, in order.
local function containers_in(p, acc)
   local c, how = container_of(p)
   if c then acc[#acc + 1] = { c, how } end
   local kids = children_of(p)
   for _, kid in ipairs(kids) do containers_in(kid, acc) end
   return acc
end

local function member(list, h)
   for _, x in ipairs(list) do
      if x == h then return true end
   end
   return false
end

local walk, body

-- A container under the property that puts it there: its header, then
-- its own tree (none for one being removed).
local function put_container(c, how, prefix, last, out, ctx)
   out[#out + 1] = prefix .. (last and "└── " or "├── ")
      .. container_label(c, c.short_name, how == "removed" and ", removed" or nil)
   if how ~= "removed" then body(c, prefix .. (last and "    " or "│   "), out, ctx) end
end

-- ctx: nil for a lone value (its containers are not shown); a table for
-- a host.
walk = function(p, role, prefix, last, out, depth, ctx)
   local branch = depth == 0 and "" or (last and "└── " or "├── ")
   out[#out + 1] = prefix .. branch .. label(p, role)
   local kids, names = children_of(p)
   local next_prefix = depth == 0 and "" or prefix .. (last and "    " or "│   ")
   add_claims(p, next_prefix, out)
   local c, how
   if ctx then c, how = container_of(p) end
   local n = #kids + (c and 1 or 0)
   for i, kid in ipairs(kids) do
      walk(kid, names[i], next_prefix, i == n, out, depth + 1, ctx)
   end
   if c then put_container(c, how, next_prefix, true, out, ctx) end
end

-- The lines under a host's header: each top-level property as a tree,
-- a container under the property that puts it on the host; then any
-- container of the host that no property shown put there.
body = function(h, prefix, out, ctx)
   local props = h.properties
   local rest = {}
   local containers = h.containers
   if #containers > 0 then
      local found, shown = {}, {}
      for _, p in ipairs(props) do containers_in(p, found) end
      for _, f in ipairs(found) do
         if f[2] == "attached" then shown[#shown + 1] = f[1] end
      end
      for _, c in ipairs(containers) do
         if not member(shown, c) then rest[#rest + 1] = c end
      end
   end
   local n = #props + #rest
   for i, p in ipairs(props) do
      walk(p, nil, prefix, i == n, out, 1, ctx)
   end
   for i, c in ipairs(rest) do
      put_container(c, "attached", prefix, #props + i == n, out, ctx)
   end
end

-- The containers that hosts remove (revert) rather than put on them:
-- { {container, host name}, ... }, found once per call.
local function removals()
   local found = {}
   local function scan(h)
      for _, p in ipairs(h.properties) do
         for _, f in ipairs(containers_in(p, {})) do
            if f[2] == "removed" then found[#found + 1] = { f[1], h.name } end
         end
      end
      for _, c in ipairs(h.containers) do scan(c) end
   end
   for _, h in ipairs(core.hosts()) do scan(h) end
   return found
end

local function removed_by(c, found)
   for _, f in ipairs(found) do
      if f[1] == c then return f[2] end
   end
   return nil
end

-- Lines for one host: a header, then each top-level property as a tree,
-- with its containers nested.  A container ("box/web") is shown alone,
-- headed "container box/web (KIND) : OS".
function M.host(h)
   local head
   if h.container == nil then
      head = string.format("host %s : %s  (%s)", h.name, h.os or "no OS declared", h.origin)
   else
      local extra
      if h.parent == nil then
         local by = removed_by(h, removals())
         extra = by and ", removed by " .. by or ", put on no host"
      end
      head = container_label(h, h.name, extra)
   end
   local out = { head }
   body(h, "", out, {})
   return table.concat(out, "\n") .. "\n"
end

-- The containers of list (those on no parent) that no host takes, nor
-- removes: each as M.host shows it, "" when there is none.
function M.unattached(list)
   local found = removals()
   local blocks = {}
   for _, c in ipairs(list) do
      if not removed_by(c, found) then
         local out = { container_label(c, c.name, ", put on no host") }
         body(c, "", out, {})
         blocks[#blocks + 1] = table.concat(out, "\n") .. "\n"
      end
   end
   return table.concat(blocks, "\n")
end

-- Every host of a site (hosts: all of them, containers too), each with
-- its containers nested, then the containers no host takes.
function M.site(hosts)
   local blocks, lone = {}, {}
   for _, h in ipairs(hosts) do
      if h.container == nil then
         blocks[#blocks + 1] = M.host(h)
      elseif h.parent == nil then
         lone[#lone + 1] = h
      end
   end
   if #lone > 0 then
      local rest = M.unattached(lone)
      if rest ~= "" then blocks[#blocks + 1] = rest end
   end
   return table.concat(blocks, "\n")
end

-- One property and its parts (for the REPL and `prop show` of a value).
function M.property(p)
   local out = {}
   walk(p, nil, "", true, out, 0)
   return table.concat(out, "\n") .. "\n"
end

return M
