-- Lua calls an xpcall handler where the error is raised, and a spent
-- budget is raised inside the count hook, where hooks are off: the site's
-- handler is not called then, or it would loop uncounted.
--! args --max-instructions 1000000
--! fatal 7 instruction budget
local forever = function() while true do end end
xpcall(forever, forever)
