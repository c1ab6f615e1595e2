-- string.rep of empty strings is "" at once (Lua's own would loop 10^15
-- times in C to make it).  The error below proves it returned.
--! fatal 5 rep returned
assert(string.rep("", 1e15) == "" and string.rep("", 1e15, "") == "")
error("rep returned")
