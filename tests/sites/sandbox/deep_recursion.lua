-- Unbounded recursion is a stack overflow, reported with its place.
--! fatal 4 stack overflow
local function down(n)
  return 1 + down(n + 1)
end
down(1)
