-- prop.grub: the kernel command line GRUB boots with, and the other
-- settings of /etc/default/grub.
--
-- Settings of /etc/default/grub, edited in place (the other lines stay),
-- then update-grub to write /boot/grub/grub.cfg from them.

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local conf = require "prop.conf"
local R = require "prop.runtime"

local grub = {}

local fmt = string.format

local PATH = "/etc/default/grub"
local KEY = "GRUB_CMDLINE_LINUX_DEFAULT"
local UPDATE = "/usr/sbin/update-grub"
local o = { sep = "=", comment = "#" }

local LINUX = "GRUB_CMDLINE_LINUX"

local impl = { set = {}, unset = {}, update = {}, word = {}, no_word = {} }

function impl.set.ensure(sys, a)
   local changed = conf.ensure_edit(sys, a.recipe, PATH, function(old)
      return conf.set_key(old, a.key, a.value, o)
   end)
   return changed and "changed" or "ok"
end

function impl.unset.ensure(sys, a)
   local changed = conf.ensure_edit(sys, a.recipe, PATH, function(old)
      if old == nil then return "" end
      return conf.unset_key(old, a.key, a.value, o)
   end)
   return changed and "changed" or "ok"
end

-- The words of a GRUB_CMDLINE_LINUX value as the file has it: "..." or
-- '...' or a bare word (nil for a value prop does not read: one with
-- "$", "`" or "\", or quoting it cannot follow).
local function cmdline_words(v)
   local inner = v:match('^"([^"]*)"$') or v:match("^'([^']*)'$")
   if inner == nil then
      if v:find("[\"'%s]") then return nil end
      inner = v
   end
   if inner:find("[$`\\]") then return nil end
   local words = {}
   for w in inner:gmatch("%S+") do words[#words + 1] = w end
   return words
end

-- The value of the active GRUB_CMDLINE_LINUX line of content (the last
-- one: the shell reads them all), or nil.
local function linux_value(content)
   local v
   for l in (content or ""):gmatch("[^\n]+") do
      local x = l:match("^%s*" .. LINUX .. "%s*=(.*)$")
      if x then v = x:match("^%s*(.-)%s*$") end
   end
   return v
end

-- Adds (want) or removes word in GRUB_CMDLINE_LINUX, the other words
-- kept in their order.
local function edit_word(sys, recipe, word, want)
   local changed = conf.ensure_edit(sys, recipe, PATH, function(old)
      if old == nil and not want then return "" end
      local v = linux_value(old)
      local words = {}
      if v then words = cmdline_words(v) end
      if words == nil then
         R.fail("%s: %s=%s in %s is not a quoted list of words prop can edit", recipe, LINUX, v,
                PATH)
      end
      local out, has = {}, false
      for _, w in ipairs(words) do
         if w == word then
            has = true
            if want then out[#out + 1] = w end
         else
            out[#out + 1] = w
         end
      end
      if has == want and (v or not want) then return old end
      if want then out[#out + 1] = word end
      return conf.set_key(old, LINUX, '"' .. table.concat(out, " ") .. '"', o)
   end)
   if changed then
      sys:note(fmt("%s %s %s %s", sys.dry and (want and "would add" or "would remove")
                   or (want and "added" or "removed"), word, want and "to" or "from", LINUX))
   end
   return changed and "changed" or "ok"
end

function impl.word.ensure(sys, a) return edit_word(sys, "grub.cmdline_word", a.word, true) end
function impl.no_word.ensure(sys, a)
   return edit_word(sys, "grub.cmdline_word_absent", a.word, false)
end

-- Run only when the setting changed (on_change).  A directory tree runs
-- no commands: there the new grub.cfg is left to that system.
function impl.update.ensure(sys)
   if R.is_dir_tree(sys) then
      sys:note("update-grub not run: a directory tree runs no commands; run it inside that "
               .. "system before it boots")
      return "ok"
   end
   if not sys:exists(UPDATE) then
      if not sys.dry then
         R.fail("update-grub: %s is missing (grub is not installed): the new setting is in %s "
                .. "but /boot/grub/grub.cfg was not written", UPDATE, PATH)
      end
      sys:note(UPDATE .. " is missing: the run fails unless grub is installed before it")
   end
   R.run(sys, "update-grub", { UPDATE })
   return "changed"
end

local function update_leaf()
   return core.leaf{ desc = "update-grub", targets = "DebianLike", impl = impl.update,
                     claims = { claim.file_generated("/boot/grub/grub.cfg", "update-grub") },
                     norevert = "update-grub has nothing to revert" }
end

-- The arguments: a string, or a list of words joined with blanks; none
-- may hold a double quote, a backslash, "$" or "`" (the file is read by
-- the shell), nor a newline.
local function check_args(v, what)
   local s = v
   if type(v) == "table" then
      local err, list = args.string_list(v, what)
      if err then return err end
      s = table.concat(list, " ")
   elseif type(v) ~= "string" then
      return fmt('%s must be a string such as "quiet splash" or a list of strings, got %s', what,
                 args.got(v))
   end
   if s:find('["\\$`\n\r]') then
      return fmt('%s %s must not contain a double quote, "\\", "$", "`" or a newline', what,
                 args.show(s))
   end
   return nil, (s:gsub("%s+", " "):match("^ ?(.-) ?$"))
end

--[[ grub.cmdline_default(args)
  DebianLike, revertable: its revert removes the line when it still has
  this value (GRUB then adds nothing), and runs update-grub.
  Claims: file.setting /etc/default/grub =
  GRUB_CMDLINE_LINUX_DEFAULT="ARGS" (two values on a host is P007), and
  /boot/grub/grub.cfg as generated by update-grub.
  args: a string ("quiet splash") or a list of words; "" for none.
  Run time: sets GRUB_CMDLINE_LINUX_DEFAULT="ARGS" in /etc/default/grub
  where it stands (other lines kept; the file made when missing); when
  the file changed, update-grub runs (on_change).  On a connect.dir tree
  update-grub is not run, with a note.  The new command line is used
  from the next boot.
  Example:
    grub.cmdline_default { "quiet", "console=ttyS0,115200" }
]]
function grub.cmdline_default(v, opts)
   local desc = "grub default command line"
   local err, s = check_args(v, "args")
   local msg = args.join("grub.cmdline_default", err,
                         (args.options(opts, {}, "grub.cmdline_default")))
   if msg then return core.invalid(desc, msg) end
   local value = '"' .. s .. '"'
   local a = { value = value, key = KEY, recipe = "grub.cmdline_default" }
   local set = core.leaf{ desc = fmt("grub default command line %s", value), targets = "DebianLike",
                          impl = impl.set, args = a,
                          claims = { claim.file_setting(PATH, conf.claim(KEY, value)) } }
   local unset = core.leaf{ desc = fmt("grub default command line not %s", value),
                            targets = "DebianLike", impl = impl.unset, args = a,
                            claims = { claim.file_noline(PATH, conf.line(KEY, value, o)) } }
   return core.pair(set:on_change(update_leaf()), unset:on_change(update_leaf()))
end

-- A setting's value as the line writes it: bare when it is one plain
-- word, else in double quotes.
local function check_value(v, what)
   if math.type(v) == "integer" then v = tostring(v) end
   if type(v) ~= "string" then
      return fmt('%s must be a string or an integer such as "3", got %s', what, args.got(v))
   end
   if v:find('["\\$`\n\r]') then
      return fmt('%s %s must not contain a double quote, "\\", "$", "`" or a newline', what,
                 args.show(v))
   end
   if v:find("^[%w%._,:/+=@-]+$") then return nil, v end
   return nil, '"' .. v .. '"'
end

--[[ grub.setting(name, value)
  DebianLike, revertable: its revert removes the line when it still has
  this value, and runs update-grub.
  Any variable of /etc/default/grub (GRUB_TIMEOUT, GRUB_TERMINAL,
  GRUB_DISABLE_OS_PROBER...): NAME=VALUE where it stands (the other lines
  kept; the file made when missing), VALUE bare when it is one plain word
  and in double quotes otherwise; update-grub runs when it changed.  The
  command lines have their own recipes: grub.cmdline_default, and
  grub.cmdline_word for the words of GRUB_CMDLINE_LINUX.
  Claims: file.setting /etc/default/grub = NAME=VALUE (two values on a
  host is P007), /boot/grub/grub.cfg as generated by update-grub.
  Example:
    grub.setting("GRUB_TIMEOUT", 3)
]]
function grub.setting(name, value, ...)
   local desc = "grub setting " .. (type(name) == "string" and name or "?")
   local nerr = args.matching(name, "name", "GRUB_[A-Z0-9_]+",
                              'a variable of /etc/default/grub such as "GRUB_TIMEOUT"')
   if not nerr and name == KEY then
      nerr = "GRUB_CMDLINE_LINUX_DEFAULT has its own recipe: grub.cmdline_default"
   elseif not nerr and name == LINUX then
      nerr = "GRUB_CMDLINE_LINUX is edited word by word: grub.cmdline_word, grub.cmdline_word_absent"
   end
   local verr, v = check_value(value, "value")
   local msg = args.join("grub.setting", nerr, verr,
                         select("#", ...) > 0 and "takes a name and a value" or nil)
   if msg then return core.invalid(desc, msg) end
   local a = { value = v, key = name, recipe = "grub.setting" }
   local set = core.leaf{ desc = fmt("grub %s=%s", name, v), targets = "DebianLike", impl = impl.set,
                          args = a, claims = { claim.file_setting(PATH, conf.claim(name, v)) } }
   local unset = core.leaf{ desc = fmt("grub %s not %s", name, v), targets = "DebianLike",
                            impl = impl.unset, args = a,
                            claims = { claim.file_noline(PATH, conf.line(name, v, o)) } }
   return core.pair(set:on_change(update_leaf()), unset:on_change(update_leaf()))
end

local function check_word(v, what)
   if type(v) ~= "string" or v == "" then
      return fmt('%s must be one word of the kernel command line such as "console=ttyS0", got %s',
                 what, args.got(v))
   end
   if v:find("%s") then return fmt("%s %s is more than one word", what, args.show(v)) end
   if v:find('["\'\\$`]') then
      return fmt('%s %s must not contain a quote, "\\", "$" or "`"', what, args.show(v))
   end
   return nil, v
end

local function word_leaf(w, present)
   local desc = fmt("grub %s %s %s", LINUX, present and "has" or "lacks", w)
   -- The setting's name holds the word (its "=" spelt %3D: a setting
   -- claim's name ends at the first "="), so that one word present and
   -- absent on a host is P007, and two words are two settings.
   local claims = { claim.file_setting(PATH, conf.claim(LINUX .. " word " .. w:gsub("=", "%%3D"),
                                                        present and "present" or "absent")) }
   return core.leaf{ desc = desc, targets = "DebianLike", impl = present and impl.word or impl.no_word,
                     args = { word = w }, claims = claims }
end

local function word_recipe(recipe, w, present, ...)
   local err = check_word(w, "word")
   local msg = args.join(recipe, err, select("#", ...) > 0 and "takes one word" or nil)
   if msg then
      return core.invalid(fmt("grub %s %s %s", LINUX, present and "has" or "lacks",
                              type(w) == "string" and w or "?"), msg)
   end
   return core.pair(word_leaf(w, present):on_change(update_leaf()),
                    word_leaf(w, not present):on_change(update_leaf()))
end

--[[ grub.cmdline_word(word)
  DebianLike, revertable: its revert is grub.cmdline_word_absent(word).
  One word of GRUB_CMDLINE_LINUX (the command line of every entry,
  recovery included), added at its end when it is not there; the other
  words stay as they are, in their order.  A missing line is added as
  GRUB_CMDLINE_LINUX="WORD".  The word is compared whole:
  "console=ttyS0" is not "console=ttyS0,115200".  update-grub runs when
  it changed.  A value prop cannot read as words (with "$", "`" or "\\")
  fails, the file left alone.
  Claims: a file.setting of /etc/default/grub for the word, present (the
  same word absent on the host is P007), /boot/grub/grub.cfg.
  Example:
    grub.cmdline_word "console=ttyS0,115200"
]]
function grub.cmdline_word(w, ...)
   return word_recipe("grub.cmdline_word", w, true, ...)
end

--[[ grub.cmdline_word_absent(word)
  DebianLike, revertable: its revert is grub.cmdline_word(word).
  Every occurrence of word removed from GRUB_CMDLINE_LINUX, the other
  words kept; update-grub runs when it changed.  No line, or no such
  word: ok.
  Example:
    grub.cmdline_word_absent "quiet"
]]
function grub.cmdline_word_absent(w, ...)
   return word_recipe("grub.cmdline_word_absent", w, false, ...)
end

return args.strict_module(grub, "grub")
