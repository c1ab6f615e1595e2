-- gmatch backtracks at every start: counted too.
--! args --max-instructions 50000000
--! fatal 5 instruction
local n = 0
for _ in string.rep("a", 100000):gmatch("a*a*b") do n = n + 1 end
host "x" { file.absent "/tmp/x" }
