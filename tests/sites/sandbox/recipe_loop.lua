-- An endless loop of recipe calls: recipes run outside the count hook,
-- but each call is charged, so the budget still stops it.
--! args --max-instructions 20000000
--! fatal * instruction
local n = 0
while true do
  local p = file.absent("/tmp/x" .. (n % 10))
  n = n + 1
end
