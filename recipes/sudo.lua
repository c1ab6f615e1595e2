-- prop.sudo: who may run what as root, one file in /etc/sudoers.d per
-- user.
--
-- DebianLike.  Each file is checked by visudo before it replaces the old
-- one: a rule sudo refuses would stop sudo working for everyone, since
-- sudo refuses to run at all while any of its files has a syntax error.

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local R = require "prop.runtime"
local purge = require "prop.purge"

local sudo = {}

local impl = { enabled = {}, disabled = {} }

local fmt = string.format

local DIR = "/etc/sudoers.d"
local VISUDO = "/usr/sbin/visudo"

-- The check copy sits beside the file with a "." in its name: sudo skips
-- such files in sudoers.d, so the copy is never read as a rule, even
-- for the moment it exists.
local function check_path(path)
   return path .. ".prop-check"
end

-- sudo is installed and reads sudoers.d: otherwise the file would be
-- written for nothing.  In a dry run sudo may come from a property before
-- this one: nil then, with a note.
local function sudo_ready(sys, what)
   local why
   if not sys:exists(VISUDO) then
      why = fmt("sudo is not installed (%s is missing): install it first, for example with "
                .. 'apt.installed { "sudo" }', VISUDO)
   else
      local main = sys:read("/etc/sudoers")
      if main == nil then
         why = "/etc/sudoers does not exist"
      else
         local included = false
         for l in main:gmatch("[^\n]+") do
            if l:find("^%s*[#@]includedir%s+/etc/sudoers%.d/?%s*$") then included = true end
         end
         if not included then
            why = "/etc/sudoers has no \"@includedir /etc/sudoers.d\" line: sudo would not read "
               .. "the file"
         end
      end
   end
   if why == nil then return true end
   if not sys.dry then R.fail("%s: %s", what, why) end
   sys:note(why)
   return false
end

function impl.enabled.ensure(sys, a)
   local what = "sudo.enabled_for " .. a.name
   local ready = sudo_ready(sys, what)
   local path = a.path
   local st = sys:stat(path)
   if st and st.type ~= "file" then
      R.fail("%s: %s is a %s, not a file", what, path, st.type == "other" and "special file" or st.type)
   end
   local attrs = { mode = "0440", owner = "0", group = "0" }
   if st and sys:read(path) == a.content then
      local fix = R.attrs_to_fix(st, attrs)
      if fix == nil then return "ok" end
      sys:chattr(path, fix)
      return "changed"
   end
   if sys.dry or not ready then
      sys:write(path, a.content, { mode = R.mode_number(attrs.mode), owner = "0", group = "0" })
      sys:note("would check the new file with visudo -cf before it replaces the old one")
      return "changed"
   end
   -- The new rules are checked on a copy; the copy goes whatever happens,
   -- and the old file stays unless visudo accepts the new one.
   local check = a.check
   sys:write(check, a.content, { mode = tonumber("0440", 8), owner = "0", group = "0" })
   local ok, r = pcall(sys.query, sys, { VISUDO, "-c", "-f", check })
   local rok, rerr = pcall(sys.remove, sys, check)
   if not ok then error(r, 0) end
   if not rok then error(rerr, 0) end
   if r.code ~= 0 then
      local said = R.tail(((r.stderr or "") .. (r.stdout or "")):gsub("\r", ""), 4)
      said = said:gsub(check:gsub("%p", "%%%0"), path)
      R.fail("%s: visudo refuses the new rules, %s is left as it was: %s", what, path, said)
   end
   sys:write(path, a.content, { mode = R.mode_number(attrs.mode), owner = "0", group = "0" })
   return "changed"
end

function impl.disabled.ensure(sys, a)
   local st = sys:stat(a.path)
   if st == nil then return "ok" end
   if st.type == "directory" then R.fail("sudo.enabled_for %s (revert): %s is a directory", a.name, a.path) end
   sys:remove(a.path)
   return "changed"
end

local function check_name(v, what)
   local err = args.matching(v, what, "[a-z_][a-z0-9_-]*%$?",
                             'a user name such as "alice" (lower case, digits, "_" and "-")')
   if err then return err end
   if #v > 32 then return fmt("%s %s is longer than 32 characters", what, args.show(v)) end
   return nil, v
end

-- One command: an absolute path (or sudoedit) and its arguments as sudoers
-- reads them: a command with no arguments allows any, "" after it none,
-- and wildcards match.  A "#" starting a word would begin a comment and
-- silently drop the words after it (allowing any arguments), so it is
-- refused.
local function check_command(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   if v:find("[\0\r\n]") then return fmt("%s %s contains a newline or NUL", what, args.show(v)) end
   local first = v:match("^%s*(%S+)")
   if first == nil or (first:sub(1, 1) ~= "/" and first ~= "sudoedit") then
      return fmt('%s %s must start with an absolute path (such as "/usr/bin/systemctl restart '
                 .. 'nginx") or sudoedit', what, args.show(v))
   end
   if v:find("^#") or v:find("%s#") then
      return fmt('%s %s has a word starting with "#": sudoers reads it as a comment, and the '
                 .. "command would then allow any arguments", what, args.show(v))
   end
   -- Words joined by one space; , : = are sudoers separators, escaped so
   -- that they stay part of the command.
   local words = {}
   for w in v:gmatch("%S+") do words[#words + 1] = (w:gsub("[,:=]", "\\%0")) end
   return nil, table.concat(words, " ")
end

local schema = {
   nopasswd = args.boolean,
   commands = function(v, what)
      local err, list = args.list(v, what, check_command)
      if not err and #list == 0 then
         err = what .. " is empty: leave it out to allow every command"
      end
      return err, list
   end,
}

local function rules(name, o)
   local cmds = o.commands and table.concat(o.commands, ", ") or "ALL"
   return fmt("# sudo rules for %s, managed by prop: edits here are overwritten\n"
              .. "%s ALL=(ALL:ALL) %s%s\n", name, name, o.nopasswd and "NOPASSWD: " or "", cmds)
end

--[[ sudo.enabled_for(user [, { nopasswd=, commands= }])
  DebianLike, revertable: its revert removes the file.
  Lets user run commands as any user (root included) through sudo: every
  command, or only those in commands (each an absolute path and the
  arguments it must be given, as sudoers reads them: none given allows
  any, "" allows none, wildcards match; a word starting with "#" is
  refused).  nopasswd = true: without asking for the user's password.
  Claims: file.content /etc/sudoers.d/prop-USER = the generated rules (the
  whole file: another site line writing it differently is P007), and
  file.generated for its check copy.
  Run time: sudo must be installed (visudo present, /etc/sudoers reading
  /etc/sudoers.d), or the property fails saying so.  When the content
  differs, the new file is first written as prop-USER.prop-check beside
  it (sudo skips names with a dot), checked with visudo -cf, and removed;
  only when visudo accepts it does it replace prop-USER (0440, root:root).
  A refusal fails with visudo's message and leaves the old file.  Same
  content: ok (mode and owner are put right when they differ).  The
  revert removes the file.
  Example:
    sudo.enabled_for("alice")
    sudo.enabled_for("deploy", { nopasswd = true,
                                 commands = { "/usr/bin/systemctl restart myapp" } })
]]
function sudo.enabled_for(name, opts)
   local desc = "sudo for " .. (type(name) == "string" and name or "?")
   local oerr, o = args.options(opts, schema, "sudo.enabled_for")
   local msg = args.join("sudo.enabled_for", check_name(name, "user name"), oerr)
   if msg then return core.invalid(desc, msg) end
   local path = DIR .. "/prop-" .. name
   local content = rules(name, o)
   if o.nopasswd then desc = desc .. " (no password)" end
   if o.commands then
      desc = desc .. ": " .. #o.commands .. " command" .. (#o.commands == 1 and "" or "s")
   end
   local a = { name = name, path = path, check = check_path(path), content = content }
   local up = core.leaf{ desc = desc, targets = "DebianLike", impl = impl.enabled, args = a,
                         claims = { claim.file_content(path, content),
                                    claim.file_generated(a.check, "sudo.enabled_for") } }
   local down = core.leaf{ desc = "no sudo for " .. name, targets = "DebianLike",
                           impl = impl.disabled, args = a, claims = { claim.file_absent(path) } }
   return core.pair(up, down)
end

--[[ sudo.rules_purged()
  DebianLike, not revertable (what a purge removed is gone).
  Claims: file.directory and file.purged /etc/sudoers.d.
  /etc/sudoers.d holds exactly the rules the host's properties declare
  (sudo.enabled_for, and any other property claiming a file there): at
  run time every other entry is removed and named in a note (a dry run
  says "would remove ..."), as file.directory's purge = true does.
  Files a package installed there (Debian's README) are the package's and
  stay.  The pre-pass refuses nothing more than file.directory's purge.
  Example:
    sudo.rules_purged()
    sudo.enabled_for("alice")
]]
function sudo.rules_purged(a, ...)
   local err = args.no_args("sudo.rules_purged", a, ...)
   if err then return core.invalid("sudo rules purged", err) end
   return purge.leaf{ desc = "/etc/sudoers.d holds only the site's sudo rules",
                      targets = "DebianLike", what = "sudo.rules_purged", dir = DIR,
                      keep = purge.packaged }
end

return args.strict_module(sudo, "sudo")
