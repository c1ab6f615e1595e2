-- gmatch backtracks at every start, all inside one call in C.
--! args --max-cpu 2
--! fatal 5 used more than 2 s of CPU
local n = 0
for _ in string.rep("a", 100000):gmatch("a*a*a*b") do n = n + 1 end
host "x" { file.absent "/tmp/x" }
