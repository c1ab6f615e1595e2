-- load() of a long comment: one call, and the parser scans 2 MB in C that
-- make no instruction.  At the default budget this loop would run for days.
--! args --max-cpu 2
--! fatal * used more than 2 s of CPU; raise the limit with --max-cpu
local chunk = "--[[" .. string.rep("x", 2 * 1024 * 1024) .. "]]"
local n = 0
while true do
  load(chunk)
  n = n + 1
end
