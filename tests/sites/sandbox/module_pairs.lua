-- pairs() on a recipe module iterates over it without handing out the
-- table behind it: recipes read that table when called (packages.upgraded
-- calls apt.upgraded), so a site that could change it would run its own
-- code inside a recipe.
--! fatal 10 cannot assign apt.upgraded
local f, s = pairs(apt)
local k, v = f(s, nil)
assert(type(k) == "string" and type(v) == "function")
assert(s == apt)
s.upgraded = function() while true do end end
