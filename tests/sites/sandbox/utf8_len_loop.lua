-- utf8.len scans its string in C: a few instructions a round, each taking
-- milliseconds.  The CPU clock stops the loop at its next instruction.
--! args --max-cpu 2
--! fatal * used more than 2 s of CPU; raise the limit with --max-cpu
local s = string.rep("x", 1e7)
while true do
  local n = utf8.len(s)
end
