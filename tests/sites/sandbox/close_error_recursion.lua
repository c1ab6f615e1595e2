-- The same, passing each error on: every handler raises again, and the
-- messages and handlers pile up until the memory limit (or Lua's "error in
-- error handling") stops it, at the site's line either way.
--! args --max-memory 64
--! fatal 7
local mt = {}
mt.__close = function(_, e) local y <close> = setmetatable({}, mt) error(e) end
local x <close> = setmetatable({}, mt)
error("boom")
