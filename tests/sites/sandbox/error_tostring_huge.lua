-- An error object whose __tostring makes 200 MB: the message printed is
-- cut to a few kilobytes, and names the line of the error (test_sandbox.sh
-- checks that no message of these sites is long).
--! fatal 7 more bytes]
local huge = setmetatable({}, { __tostring = function() return string.rep("x", 200 * 1024 * 1024) end })
host "x" { file.absent "/tmp/x" }
error(huge)
