-- Lua's io library is not available in a site.
--! fatal 4 undefined global "io"
host "x" { file.absent "/tmp/x" }
local f = io.open("/etc/passwd")
