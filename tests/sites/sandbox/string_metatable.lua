-- The string metatable a site sees is a stand-in: changing its methods
-- changes the site's own string table, never what prop's recipes use.
--! fatal 12 sandbox intact
local mt = getmetatable("")
for _, name in ipairs { "find", "match", "gmatch", "gsub", "sub", "format", "rep", "byte",
                        "lower", "upper", "len" } do
   mt.__index[name] = function() return "hijacked" end
end
local p = file.has_content("/tmp/prop-sandbox-a", "a")
local ok = tostring(p) == "file /tmp/prop-sandbox-a has content : UnixLike"
assert(string.find("x", "y") == "hijacked") -- the site's own copy did change
error(ok and "sandbox intact" or "sandbox broken: " .. tostring(p))
