-- The argument checks the recipes share are prop's own: a site that could
-- replace one would change what every recipe does, and run its own code
-- inside a recipe, outside the instruction budget.
--! fatal 5 module "prop.args" is internal to prop
local args = require "prop.args"
args.list = function() while true do end end
host "x" { os.debian("bookworm", "amd64"), apt.installed "curl" }
