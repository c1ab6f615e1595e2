-- core.entry runs a function without the instruction budget's hook: it is
-- for prop's own recipe modules, and refused to a site, which could
-- otherwise loop for ever inside it.
--! fatal 6 core.entry is for prop's own recipe modules
local core = require "prop.core"
local f = core.entry(function() local i = 0 while true do i = i + 1 end end)
f()
