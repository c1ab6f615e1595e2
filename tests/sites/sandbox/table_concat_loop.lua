-- table.concat of a table of a million strings, again and again: one call
-- a round, its work all in C.
--! args --max-cpu 2
--! fatal * used more than 2 s of CPU; raise the limit with --max-cpu
local t = {}
for i = 1, 1000000 do t[i] = "x" end
local n = 0
while true do
  n = n + #table.concat(t)
end
