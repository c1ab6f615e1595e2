-- Lua runs finalizers with hooks off, so a __gc of the site's would run
-- outside the instruction budget: setmetatable refuses it.
--! fatal 5 may not set __gc
local function forever() while true do end end
setmetatable({}, { __gc = forever })
