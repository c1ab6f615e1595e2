-- table.concat over a huge range of a table whose missing elements are
-- "" (table.concat itself, a C function, as __index): each element is a
-- call of a C function, where the CPU clock's stop takes effect.
--! args --max-cpu 2
--! fatal 7 used more than 2 s of CPU; raise the limit with --max-cpu
local t = setmetatable({}, { __index = table.concat })
local s = table.concat(t, "", 1, 1e15)
host "x" { file.absent "/tmp/x" }
