-- The default budget stops an endless loop too (the test allows 60 s).
--! fatal * instruction
local n = 0
while true do n = n + 1 end
