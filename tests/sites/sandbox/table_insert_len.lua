-- A __len that claims a huge length: table.insert at the front would
-- shift that many absent elements, in C.
--! fatal 5 instruction
local t = setmetatable({}, { __len = function() return math.maxinteger - 5 end })
table.insert(t, 1, "x")
host "x" { file.absent "/tmp/x" }
