-- Trimming trailing blanks from a long run of blanks followed by text:
-- quadratic backtracking, stopped by the budget, also inside pcall.
--! args --max-instructions 50000000
--! fatal 6 instruction
local s = string.rep(" ", 200000) .. "x"
local ok = pcall(string.gsub, s, "%s+$", "")
host "x" { file.absent "/tmp/x" }
