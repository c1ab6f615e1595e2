-- A string larger than the memory limit: a clean error, not an OOM.
--! args --max-memory 64
--! fatal 4 memory
local s = string.rep("x", 100000000)
host "x" { file.has_content("/tmp/x", s) }
