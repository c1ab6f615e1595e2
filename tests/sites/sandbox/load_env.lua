-- A chunk made by load sees the site's environment, not Lua's globals.
--! fatal ? undefined global "io"
local f = load("return io.open('/etc/passwd')")
local h = f()
