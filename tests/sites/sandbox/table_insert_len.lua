-- A __len that claims a huge length: table.insert at the front would
-- shift that many absent elements, in C.
--! args --max-instructions 50000000
--! fatal 6 instruction
local t = setmetatable({}, { __len = function() return math.maxinteger - 5 end })
table.insert(t, 1, "x")
host "x" { file.absent "/tmp/x" }
