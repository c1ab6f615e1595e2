-- A string larger than Lua allows: a clean error, not a crash.
--! fatal 3 too large
local s = string.rep("x", 1e10)
host "x" { file.has_content("/tmp/x", s) }
