-- Catching the budget error does not buy a second, unbounded loop.
--! args --max-instructions 20000000
--! fatal 6 instruction
pcall(function() while true do end end)
local n = 0
while true do n = n + 1 end
