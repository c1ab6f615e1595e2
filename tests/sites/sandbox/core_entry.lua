-- core.entry runs a function without the instruction budget's hook, and
-- core.leaf makes properties with any claims: prop's core module is for
-- prop's own recipes.  A site cannot require it, even through pcall.
--! fatal 5 is internal to prop
local ok, err = pcall(require, "prop.core")
assert(not ok)
error(err, 0)
