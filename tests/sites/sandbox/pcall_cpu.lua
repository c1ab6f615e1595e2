-- Catching the CPU error does not buy more time: pcall raises it again as
-- the protected call returns, and xpcall's handler is not called for it.
--! args --max-cpu 2
--! fatal * used more than 2 s of CPU
local s = string.rep("x", 2 * 1024 * 1024)
local t = string.rep("x", 2 * 1024 * 1024)
local spin = function() while true do local _ = s == t end end
while true do
  pcall(spin)
  xpcall(spin, spin)
end
