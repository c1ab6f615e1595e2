-- A table bomb hits the memory limit.
--! args --max-memory 256
--! fatal * memory
local t = {}
for i = 1, 1e10 do
  t[i] = { i, i + 1, i + 2, tostring(i) }
end
