-- A pattern that backtracks through more ways of splitting its subject
-- than there are atoms in the world.  Lua's matcher runs in C, where no
-- hook runs and nothing is allocated: the CPU clock ends it, naming the
-- line of the call (test_sandbox.sh allows 120 s; it takes about 3).
--! args --max-cpu 2
--! fatal 8 used more than 2 s of CPU
local s = string.rep("a", 100000)
local found = s:find((".-"):rep(30) .. "x")
host "x" { file.absent "/tmp/x" }
