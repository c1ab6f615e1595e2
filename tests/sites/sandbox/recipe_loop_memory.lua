-- Properties made without end fill the graph's arena, which shares the
-- memory limit: the error is still reported, with its place.
--! args --max-memory 32
--! fatal * memory limit
local all = {}
while true do
  all[#all + 1] = file.has_content("/tmp/x" .. #all, "x")
end
