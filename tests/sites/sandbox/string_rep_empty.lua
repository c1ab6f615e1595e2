-- string.rep of empty strings loops 10^15 times in C to make "": no
-- instruction, no allocation, only the CPU clock sees it.
--! args --max-cpu 2
--! fatal 5 used more than 2 s of CPU
local s = string.rep("", 1e15, "")
host "x" { file.absent "/tmp/x" }
