-- An error raised inside a recipe that runs without the budget's hook (a
-- Lua stack overflow, provoked by filling the stack before the call) must
-- not run the site's xpcall handler while the hook is still off: the
-- handler below would loop for ever.
--! args --max-instructions 100000000
--! fatal * instruction budget
local function handler(e)
  if tostring(e):find("^prop/") then
    while true do end
  end
  return e
end
local filler, count = {}, 0
for i = 1, 400 do filler[i] = i end
local function pad(...)
  count = count + 1
  return xpcall(file.absent, handler, "/tmp/prop-sandbox-" .. count)
end
local function attempt(n, k)
  if n == 0 then return pad(table.unpack(filler, 1, k)) end
  local a, b, c, d, e, f, g, h = 1, 2, 3, 4, 5, 6, 7, 8
  return (attempt(n - 1, k)), a, b, c, d, e, f, g, h
end
local lo, hi = 1, 200000 -- the depth where the stack runs out
while hi - lo > 1 do
  local mid = (lo + hi) // 2
  if pcall(attempt, mid, 0) then lo = mid else hi = mid end
end
for n = lo - 3, hi do
  for k = 0, 400 do pcall(attempt, n, k) end
end
error("the stack never overflowed inside a recipe")
