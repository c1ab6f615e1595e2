-- A __len that claims a huge length: table.insert at the front shifts
-- that many absent elements, in C.
--! args --max-cpu 2
--! fatal 6 used more than 2 s of CPU
local t = setmetatable({}, { __len = function() return math.maxinteger - 5 end })
table.insert(t, 1, "x")
host "x" { file.absent "/tmp/x" }
