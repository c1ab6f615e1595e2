-- A property that holds itself twice, 64 levels deep, has 2^64 leaves:
-- listing its claims is refused at once instead of walking them in C.
--! fatal 6 too many leaves
local p = file.absent "/tmp/x"
for _ = 1, 64 do p = props { p, p } end
local claims = p.claims
host "x" { file.absent "/tmp/y" }
