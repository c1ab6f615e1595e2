-- Two equal strings of 2 MB: == is one instruction and a full memcmp.
-- At the default budget this loop would take over an hour; the CPU clock
-- stops it at its next instruction.
--! args --max-cpu 2
--! fatal * used more than 2 s of CPU; raise the limit with --max-cpu
local a = string.rep("x", 2 * 1024 * 1024)
local b = string.rep("x", 2 * 1024 * 1024)
local n = 0
while true do
  if a == b then n = n + 1 end
end
