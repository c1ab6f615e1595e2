-- A loop that runs thousands of instructions of its own between recipe
-- calls: the budget counts them, a recipe call does not forgive them.
-- (test_sandbox.sh also checks how many rounds ran: about 200 here.)
--! args --max-instructions 1000000
--! fatal * instruction budget of 1000000 exceeded
local n = 0
while true do
  for _ = 1, 5000 do end
  local p = file.absent "/tmp/prop-budget"
  n = n + 1
  if n % 50 == 0 then print(n) end
end
