-- utf8.len scans its string in C: charged by the length scanned.
--! args --max-instructions 50000000
--! fatal * instruction
local s = string.rep("x", 1e7)
while true do
  local n = utf8.len(s)
end
