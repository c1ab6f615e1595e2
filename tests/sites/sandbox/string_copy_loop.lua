-- Copying a large string again and again: a handful of instructions a
-- round, but each large block the copy allocates counts against the budget.
--! args --max-instructions 50000000
--! fatal * instruction
local s = string.rep("x", 1e7)
while true do
  local u = s:upper()
end
