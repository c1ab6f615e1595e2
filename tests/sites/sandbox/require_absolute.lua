-- require of an absolute path is refused.
--! fatal 3
local m = require "/etc/passwd"
