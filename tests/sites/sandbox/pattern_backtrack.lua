-- A pattern that backtracks through n^4 ways of splitting its subject.
-- The matcher runs in C, where the count hook never fires: its steps are
-- counted against the budget instead, so this stops instead of running
-- for days.
--! args --max-instructions 50000000
--! fatal 8 instruction
local s = string.rep("a", 100000)
local found = s:find(".-.-.-.-x")
host "x" { file.absent "/tmp/x" }
