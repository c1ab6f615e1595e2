-- table.concat over a huge range of a table whose missing elements are
-- "" (table.concat itself, a C function, as __index): charged as it walks.
--! args --max-instructions 50000000
--! fatal 6 instruction
local t = setmetatable({}, { __index = table.concat })
local s = table.concat(t, "", 1, 1e15)
host "x" { file.absent "/tmp/x" }
