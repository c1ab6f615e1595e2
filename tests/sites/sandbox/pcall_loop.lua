-- Catching the budget error in a loop does not buy an endless one either:
-- pcall and xpcall raise it again when the protected call returns.
--! args --max-instructions 20000000
--! fatal 7 instruction budget
local spin = function() while true do end end
while true do
  pcall(spin)
  xpcall(spin, function(e) return e end)
end
