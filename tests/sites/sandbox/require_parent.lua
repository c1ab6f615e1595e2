-- require cannot climb out of the site's directory.
--! fatal 3
local m = require "../valid/lib/roles"
