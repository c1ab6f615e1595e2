-- A module next to the site that is a symlink to a file outside the
-- site's directory is refused (the test creates outside_link.lua).
--! setup symlink outside_link.lua
--! fatal 5
local m = require "outside_link"
