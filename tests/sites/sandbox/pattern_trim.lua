-- Trimming trailing blanks from a long run of blanks followed by text:
-- quadratic backtracking in C, stopped by the CPU clock, also inside pcall.
--! args --max-cpu 2
--! fatal 6 used more than 2 s of CPU
local s = string.rep(" ", 1000000) .. "x"
local ok = pcall(string.gsub, s, "%s+$", "")
host "x" { file.absent "/tmp/x" }
