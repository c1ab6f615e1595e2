-- fakesys.lua: a target in memory for the tests/lua scripts of the
-- run-time modules.  It has the methods of the sys a property's ensure
-- gets (stat, read, write, exists, remove, symlink, chattr, mkdir, query,
-- run, note, has_content) over a table of paths, and a list of the
-- commands it was given, answered from a table of replies.
--
--   local sys = fakesys.new { files = { ["/etc/x"] = "text" },
--                             replies = { ["uname -s"] = { code = 0, stdout = "Linux\n" } } }
--   sys.log      the commands run or queried, each joined by spaces
--   sys.notes    what sys:note was given

local F = {}

local S = {}
S.__index = S

function F.new(o)
   o = o or {}
   local sys = setmetatable({
      files = {}, log = {}, notes = {}, writes = {}, replies = o.replies or {},
      cache = {}, dry = o.dry or false, os = o.os, container = o.container,
      transport = o.transport or "local",
   }, S)
   for path, v in pairs(o.files or {}) do
      if type(v) == "string" then
         sys.files[path] = { type = "file", content = v, mode = tonumber("0644", 8),
                             owner = "root", group = "root", uid = 0, gid = 0 }
      else
         sys.files[path] = v
      end
   end
   return sys
end

function S:stat(path)
   local f = self.files[path]
   if f == nil then return nil end
   return { type = f.type, mode = f.mode, target = f.target, owner = f.owner,
            group = f.group, uid = f.uid, gid = f.gid, size = f.content and #f.content }
end

function S:exists(path)
   return self.files[path] ~= nil
end

function S:read(path)
   local f = self.files[path]
   if f == nil then return nil end
   if f.type ~= "file" then error("read of " .. path .. ", a " .. f.type, 0) end
   return f.content
end

function S:has_content(path, content)
   return self:read(path) == content
end

function S:write(path, content, o)
   o = o or {}
   self.writes[#self.writes + 1] = { path = path, content = content, o = o }
   if self.dry then return end
   local old = self.files[path]
   self.files[path] = { type = "file", content = content,
                        mode = o.mode or (old and old.type == "file" and old.mode)
                           or tonumber("0644", 8),
                        owner = o.owner or "root", group = o.group or "root", uid = 0, gid = 0 }
end

function S:chattr(path, fix)
   self.log[#self.log + 1] = "chattr " .. path
   if self.dry then return end
   local f = self.files[path]
   if fix.mode then f.mode = fix.mode end
   if fix.owner then f.owner = fix.owner end
   if fix.group then f.group = fix.group end
end

function S:remove(path)
   self.log[#self.log + 1] = "remove " .. path
   if not self.dry then self.files[path] = nil end
end

function S:symlink(target, path)
   self.log[#self.log + 1] = "symlink " .. target .. " " .. path
   if not self.dry then self.files[path] = { type = "link", target = target } end
end

function S:mkdir(path)
   self.log[#self.log + 1] = "mkdir " .. path
   if not self.dry then self.files[path] = { type = "directory", mode = tonumber("0755", 8) } end
end

function S:note(text)
   self.notes[#self.notes + 1] = text
end

-- The reply to argv: replies[joined], or replies[argv[1]], else code 0
-- with no output.  A reply may be a function of argv.
local function reply(self, argv)
   local line = table.concat(argv, " ")
   self.log[#self.log + 1] = line
   local r = self.replies[line] or self.replies[argv[1]] or { code = 0 }
   if type(r) == "function" then r = r(argv) end
   return { code = r.code or 0, stdout = r.stdout or "", stderr = r.stderr or "" }
end

function S:query(argv)
   return reply(self, argv)
end

function S:run(argv)
   if self.dry then
      self.log[#self.log + 1] = "dry: " .. table.concat(argv, " ")
      return { code = 0, stdout = "", stderr = "" }
   end
   return reply(self, argv)
end

return F
