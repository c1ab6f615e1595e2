-- Nor does any other function of Lua's os library.
--! fatal 3 os has no recipe "getenv"
local home = os.getenv("HOME")
