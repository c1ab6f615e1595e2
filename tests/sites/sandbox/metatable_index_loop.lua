-- A table with a metatable is not plain data: a recipe given one runs
-- under the budget, and a loop in the site's metamethods is stopped.
--! args --max-instructions 20000000
--! fatal * instruction
local function forever() while true do end end
local t = setmetatable({}, { __index = forever, __pairs = forever, __len = forever })
host "x" { user.account("alice", t) }
