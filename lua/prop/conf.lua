-- prop.conf: editing one setting of a configuration file in place, shared
-- by the recipes that do it (conffile, sysctl, locale, and later sshd and
-- others).  Not a recipe module: it makes no properties.
--
-- Two layouts:
-- - key/value files ("key = value", "key=value" or "key value" lines,
--   comments starting with "#" or another prefix): sshd_config,
--   /etc/default/*, sysctl.conf, locale.gen's neighbours;
-- - INI files ("[section]" headers, then "key = value" lines, comments
--   starting with "#" or ";").
--
-- The pure functions (set_key, unset_key, set_ini, unset_ini) take the
-- file's content (nil when missing) and return the new content; the
-- ensure_* functions read the file through sys, write it atomically when
-- it changes (a diff in a dry run under --diff), and return whether it
-- did.  Lines other than the setting's are kept byte for byte.

local R = require "prop.runtime"
local args = require "prop.args"

local conf = {}

local fmt = string.format

-- A Lua pattern matching s literally.
local function literal(s)
   return (s:gsub("[%^%$%(%)%%%.%[%]%*%+%-%?]", "%%%0"))
end

local function trim(s)
   return (s:match("^%s*(.-)%s*$"))
end

-- The separator's kind: "=" (the key is followed by optional blanks and
-- "="), or " " (by blanks).
local function sep_kind(sep)
   return sep:find("=", 1, true) and "=" or " "
end

-- The value of line when it assigns key (after optional blanks), else nil.
-- body is the line with any comment prefix already taken off.
local function assigned(body, key, kind)
   local rest = body:match("^%s*" .. literal(key) .. "(.*)$")
   if rest == nil then return nil end
   if kind == "=" then
      local v = rest:match("^%s*=(.*)$")
      return v and trim(v)
   end
   local v = rest:match("^%s+(.*)$")
   if v then return trim(v) end
   if rest == "" then return "" end
   return nil
end

-- line with its comment prefix (one or more comment characters and
-- blanks) taken off, or nil when it is not a comment.
local function uncommented(line, comment)
   local c = literal(comment)
   return line:match("^%s*" .. c .. "[" .. c .. "%s]*(.*)$")
end

local function join(lines)
   if #lines == 0 then return "" end
   return table.concat(lines, "\n") .. "\n"
end

-- o: { sep = " = " | "=" | " ", comment = "#" }.
local function key_options(o)
   o = o or {}
   return o.sep or " = ", o.comment or "#"
end

-- The line that sets key to value.
function conf.line(key, value, o)
   local sep = key_options(o)
   return key .. sep .. value
end

-- Edits lines[first..last] (a whole file, or one INI section's body) so
-- that key is value: the first active assignment is replaced in place
-- (kept as is when it already has the value) and later ones removed;
-- with none, the first commented-out assignment is replaced; with none
-- either, nil is returned (the caller inserts).  Returns the new list
-- of lines, or nil.
local function set_in(lines, first, last, key, value, line, kind, comment)
   local active, commented = {}, nil
   for i = first, last do
      local l = lines[i]
      local body = uncommented(l, comment)
      if body == nil then
         if assigned(l, key, kind) then active[#active + 1] = i end
      elseif commented == nil and assigned(body, key, kind) then
         commented = i
      end
   end
   local out = {}
   if #active > 0 then
      local keep = active[1]
      local drop = {}
      for j = 2, #active do drop[active[j]] = true end
      for i, l in ipairs(lines) do
         if i == keep then
            out[#out + 1] = assigned(l, key, kind) == value and l or line
         elseif not drop[i] then
            out[#out + 1] = l
         end
      end
      return out
   end
   if commented then
      for i, l in ipairs(lines) do out[#out + 1] = i == commented and line or l end
      return out
   end
   return nil
end

-- Removes from lines[first..last] every active assignment of key to value
-- (value nil: to any value).  Returns the new list and how many went.
local function unset_in(lines, first, last, key, value, kind, comment)
   local out, removed = {}, 0
   for i, l in ipairs(lines) do
      local v = i >= first and i <= last and uncommented(l, comment) == nil
         and assigned(l, key, kind)
      if v and (value == nil or v == value) then
         removed = removed + 1
      else
         out[#out + 1] = l
      end
   end
   return out, removed
end

--[[ conf.set_key(content, key, value [, o]) -> new content
  o.sep (" = " by default, "=" or " ") and o.comment ("#").  An existing
  assignment of key keeps its place (and its spelling when the value is
  already right); a commented-out one is replaced by the setting; else
  the setting is appended. ]]
function conf.set_key(content, key, value, o)
   local sep, comment = key_options(o)
   local kind = sep_kind(sep)
   local lines = R.split_lines(content)
   local line = key .. sep .. value
   local out = set_in(lines, 1, #lines, key, value, line, kind, comment)
   if out == nil then
      out = lines
      out[#out + 1] = line
   end
   return join(out)
end

--[[ conf.unset_key(content, key, value [, o]) -> new content
  Removes each active line assigning value to key (any value when value
  is nil); comments and other keys stay. ]]
function conf.unset_key(content, key, value, o)
   local sep, comment = key_options(o)
   local lines = R.split_lines(content)
   local out, removed = unset_in(lines, 1, #lines, key, value, sep_kind(sep), comment)
   if removed == 0 then return content end
   return join(out)
end

-- The range of lines of section (first line after the header, last line
-- before the next header) and the header's index; nil when missing.
local function section_range(lines, section)
   local header = "^%s*%[%s*" .. literal(section) .. "%s*%]%s*$"
   for i, l in ipairs(lines) do
      if l:find(header) then
         local last = #lines
         for j = i + 1, #lines do
            if lines[j]:find("^%s*%[") then
               last = j - 1
               break
            end
         end
         return i + 1, last, i
      end
   end
   return nil
end

--[[ conf.set_ini(content, section, key, value [, o]) -> new content
  o.sep (" = " by default, or "=").  Within [section]: an existing
  assignment keeps its place, a commented-out one (";" or "#") is
  replaced, else the setting goes after the section's last non-blank
  line.  A missing section is appended, with the setting. ]]
function conf.set_ini(content, section, key, value, o)
   local sep = (o and o.sep) or " = "
   local lines = R.split_lines(content)
   local line = key .. sep .. value
   local first, last = section_range(lines, section)
   if first == nil then
      if #lines > 0 and lines[#lines]:find("%S") then lines[#lines + 1] = "" end
      lines[#lines + 1] = "[" .. section .. "]"
      lines[#lines + 1] = line
      return join(lines)
   end
   local out = set_in(lines, first, last, key, value, line, "=", ";")
      or set_in(lines, first, last, key, value, line, "=", "#")
   if out then return join(out) end
   local at = first - 1
   for i = first, last do
      if lines[i]:find("%S") then at = i end
   end
   table.insert(lines, at + 1, line)
   return join(lines)
end

--[[ conf.unset_ini(content, section, key, value) -> new content
  Removes each active line of [section] assigning value to key. ]]
function conf.unset_ini(content, section, key, value)
   local lines = R.split_lines(content)
   local first, last = section_range(lines, section)
   if first == nil then return content end
   local out, removed = unset_in(lines, first, last, key, value, "=", ";")
   if removed == 0 then return content end
   return join(out)
end

-- Writes path (symlinks followed, as file.contains_lines does) with
-- edit(old content) when it differs.  A missing file is created (0644)
-- unless new content is empty.  Returns whether it changed.
function conf.ensure_edit(sys, what, path, edit)
   local claimed = path
   local st
   path, st = R.follow(sys, path)
   if st and st.type ~= "file" then
      R.fail("%s: %s is a %s, not a file", what, path,
             st.type == "other" and "special file"
             or st.type == "link" and "chain of too many links" or st.type)
   end
   local old = sys:read(path)
   local new = edit(old)
   if new == (old or "") or (old == nil and new == "") then return false end
   sys:write(path, new, { via = claimed,
                          mode = old == nil and tonumber("0644", 8) or nil })
   return true
end

-- A value: a string, or an integer (written in decimal); one line, no
-- blanks at either end (they would not survive a read back).
function conf.check_value(v, what)
   if math.type(v) == "integer" then v = tostring(v) end
   if type(v) ~= "string" then
      return fmt("%s must be a string or an integer, got %s", what, args.show(v))
   end
   if v:find("[\n\r]") then
      return fmt("%s %s contains a newline: a setting is one line", what, args.show(v))
   end
   if v ~= v:match("^%s*(.-)%s*$") then
      return fmt("%s %s starts or ends with blanks, which a reader of the file drops",
                 what, args.show(v))
   end
   return nil, v
end

-- The claim value of a setting: "NAME=VALUE" (file.setting).
function conf.claim(name, value)
   return fmt("%s=%s", name, value)
end

return conf
