-- Recursion through __close (each handler makes a new to-be-closed value):
-- a stack overflow inside prop's own setmetatable, reported at the site's
-- line, not prop's.
--! fatal 6 stack overflow
local mt
mt = { __close = function() local y <close> = setmetatable({}, mt); error("x") end }
local x <close> = setmetatable({}, mt)
