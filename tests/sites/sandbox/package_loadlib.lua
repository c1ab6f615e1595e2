-- Native libraries cannot be loaded.
--! fatal 3 undefined global "package"
local f = package.loadlib("/lib/x86_64-linux-gnu/libc.so.6", "system")
