-- The debug library is not available.
--! fatal 3 undefined global "debug"
local info = debug.getinfo(1)
