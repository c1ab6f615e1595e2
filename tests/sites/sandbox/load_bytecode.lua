-- Precompiled chunks could crash the VM: load takes text only (it may
-- raise itself or return nil and a message, which error() raises).
--! fatal * binary
local chunk = string.dump and string.dump(function() return 1 end)
  or "\27Lua\84\0\25\147\13\10\26\10\4\8\8\120\86\0\0\0\0\0\0\0\0\0\0\0\40\119\64\1"
local f, err = load(chunk, "chunk", "b")
if not f then error(err) end
