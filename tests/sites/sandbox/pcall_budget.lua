-- Catching the budget error does not buy a second, unbounded loop: pcall
-- raises it again as soon as the protected call returns.
--! args --max-instructions 20000000
--! fatal 5 instruction
pcall(function() while true do end end)
local n = 0
while true do n = n + 1 end
