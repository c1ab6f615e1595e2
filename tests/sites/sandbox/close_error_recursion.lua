-- The same, passing each error on: handling the error itself overflows,
-- and Lua says only "error in error handling"; prop adds the line.
--! fatal 5 error in error handling
local mt = {}
mt.__close = function(_, e) local y <close> = setmetatable({}, mt) error(e) end
local x <close> = setmetatable({}, mt)
error("boom")
