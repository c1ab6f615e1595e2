-- loadfile would read any file.
--! fatal 3 undefined global "loadfile"
local chunk = loadfile("/etc/passwd")
