-- prop.locale: locales generated on a Debian system, and the one it uses.

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local conf = require "prop.conf"
local R = require "prop.runtime"

local locale = {}

local fmt = string.format

local GEN = "/etc/locale.gen"
local SUPPORTED = "/usr/share/i18n/SUPPORTED"
local DEFAULT = "/etc/default/locale"
local gen_o = { sep = " ", comment = "#" }
local default_o = { sep = "=", comment = "#" }

local impl = { available = {}, unavailable = {}, selected = {}, unselected = {} }

-- The codeset of a locale name, as locale.gen and SUPPORTED spell it:
-- "en_US.UTF-8" -> "UTF-8", "sr_RS.UTF-8@latin" -> "UTF-8".
local function codeset(l)
   return l:match("^[^.@]+%.([^@]+)")
end

-- The name locale -a lists for l: the codeset in lower case without
-- punctuation ("en_US.UTF-8" -> "en_US.utf8").
local function normalized(l)
   local lang, cs, mod = l:match("^([^.@]+)%.([^@]+)(.*)$")
   if not lang then return l end
   return lang .. "." .. cs:lower():gsub("[^%w]", "") .. mod
end

-- Whether locale -a lists l.
local function generated(sys, l)
   local r = R.query(sys, "locale.available", { "locale", "-a" })
   if r.code ~= 0 then R.command_failed("locale.available", { "locale", "-a" }, r) end
   local want = normalized(l)
   for name in r.stdout:gmatch("[^\n]+") do
      if name == l or name == want then return true end
   end
   return false
end

-- The line of SUPPORTED for l; an unknown locale fails, with the
-- nearest known name.
local function supported_line(sys, l)
   local content = sys:read(SUPPORTED)
   if content == nil then
      R.fail("locale.available: %s is missing: the locales package is not installed", SUPPORTED)
   end
   local names = {}
   for line in content:gmatch("[^\n]+") do
      local name = line:match("^(%S+)")
      if name == l then return line end
      if name then names[#names + 1] = name end
   end
   local best = args.suggest(l, names)
   R.fail("locale.available: unknown locale %s: not in %s%s", l, SUPPORTED,
          best and fmt(' (did you mean "%s"?)', best) or "")
end

function impl.available.ensure(sys, a)
   local changed = R.apt_install(sys, "locale.available", { "locales" })
   if changed and sys.dry then
      sys:note(fmt("would then enable %s in %s and run locale-gen", a.locale, GEN))
      return "changed"
   end
   local line = supported_line(sys, a.locale)
   local charset = line:match("^%S+%s+(%S+)")
   if charset ~= a.charset then
      R.fail("locale.available: %s is %s in %s, not %s", a.locale, charset or "?", SUPPORTED,
             a.charset)
   end
   local edited = conf.ensure_edit(sys, "locale.available", GEN, function(old)
      return conf.set_key(old, a.locale, a.charset, gen_o)
   end)
   if edited or not generated(sys, a.locale) then
      R.run(sys, "locale.available", { "locale-gen" })
      changed = true
   end
   return (changed or edited) and "changed" or "ok"
end

-- The line is commented out (as Debian ships it) and the locales are
-- generated again without it.
function impl.unavailable.ensure(sys, a)
   local line = conf.line(a.locale, a.charset, gen_o)
   local edited = conf.ensure_edit(sys, "locale.available", GEN, function(old)
      if old == nil then return "" end
      local out, found = {}, false
      for _, l in ipairs((R.split_lines(old))) do
         local key, v = l:match("^%s*(%S+)%s+(%S+)%s*$")
         if key == a.locale and v == a.charset then
            out[#out + 1] = "# " .. line
            found = true
         else
            out[#out + 1] = l
         end
      end
      if not found then return old end
      return table.concat(out, "\n") .. "\n"
   end)
   if not sys:exists(GEN) and not edited then return "ok" end
   if edited or generated(sys, a.locale) then
      R.run(sys, "locale.unavailable", { "locale-gen" })
      return "changed"
   end
   return "ok"
end

function impl.selected.ensure(sys, a)
   local changed = conf.ensure_edit(sys, "locale.selected", DEFAULT, function(old)
      return conf.set_key(old, "LANG", a.locale, default_o)
   end)
   return changed and "changed" or "ok"
end

function impl.unselected.ensure(sys, a)
   local changed = conf.ensure_edit(sys, "locale.selected", DEFAULT, function(old)
      if old == nil then return "" end
      return conf.unset_key(old, "LANG", a.locale, default_o)
   end)
   return changed and "changed" or "ok"
end

-- A locale name with its codeset: "en_US.UTF-8", "de_CH.UTF-8",
-- "sr_RS.UTF-8@latin", "C.UTF-8".
local function check_locale(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   if not v:find("^[%a][%w_]*%.[%w-]+@?[%w]*$") or v:find("@$") then
      return fmt('%s %s is not a locale name with its codeset: expected one such as '
                 .. '"en_US.UTF-8" or "sr_RS.UTF-8@latin"', what, args.show(v))
   end
   return nil, v
end

local function available(l)
   local a = { locale = l, charset = codeset(l) }
   local line = conf.line(l, a.charset, gen_o)
   local up = core.leaf{ desc = "locale " .. l .. " available", targets = "DebianLike",
                         impl = impl.available, args = a,
                         claims = { claim.package_installed("locales"),
                                    claim.file_setting(GEN, conf.claim(l, a.charset)) } }
   local down = core.leaf{ desc = "locale " .. l .. " not available", targets = "DebianLike",
                           impl = impl.unavailable, args = a,
                           claims = { claim.file_noline(GEN, line) } }
   return core.pair(up, down)
end

--[[ locale.available(locale)
  DebianLike, revertable: its revert comments the line out again and
  runs locale-gen, which drops the locale.
  Claims: package.installed locales, and file.setting /etc/locale.gen =
  "LOCALE=CODESET" (the line "LOCALE CODESET").  The revert claims
  file.noline /etc/locale.gen = that line.
  locale: a name with its codeset, as in /usr/share/i18n/SUPPORTED
  ("en_US.UTF-8", "sr_RS.UTF-8@latin").
  Run time: installs the locales package when missing; a locale that
  SUPPORTED does not list fails, naming the nearest one.  Enables the
  line "LOCALE CODESET" in /etc/locale.gen (uncommenting it where Debian
  ships it commented out, else adding it), then runs locale-gen when the
  file changed or locale -a does not list the locale.
  Example:
    locale.available "de_DE.UTF-8"
]]
function locale.available(l, opts)
   local desc = "locale " .. (type(l) == "string" and l or "?") .. " available"
   local err = check_locale(l, "locale")
   local msg = args.join("locale.available", err, (args.options(opts, {}, "locale.available")))
   if msg then return core.invalid(desc, msg) end
   return available(l)
end

--[[ locale.selected(locale)
  DebianLike, revertable: its revert removes the LANG line.
  Requires locale.available(locale).
  Claims: file.setting /etc/default/locale = "LANG=LOCALE": two
  selections on one host are P007.  The revert claims file.noline
  /etc/default/locale = "LANG=LOCALE".
  Run time: makes the locale available, then sets LANG=LOCALE in
  /etc/default/locale (the other lines, LC_* included, are kept; the
  file is made when missing).  Logins and services started afterwards
  use it.
  Example:
    locale.selected "en_US.UTF-8"
]]
function locale.selected(l, opts)
   local desc = "locale " .. (type(l) == "string" and l or "?") .. " selected"
   local err = check_locale(l, "locale")
   local msg = args.join("locale.selected", err, (args.options(opts, {}, "locale.selected")))
   if msg then return core.invalid(desc, msg) end
   local a = { locale = l }
   local up = core.leaf{ desc = "locale " .. l .. " selected", targets = "DebianLike",
                         impl = impl.selected, args = a,
                         claims = { claim.file_setting(DEFAULT, conf.claim("LANG", l)) } }
   local down = core.leaf{ desc = "locale " .. l .. " not selected", targets = "DebianLike",
                           impl = impl.unselected, args = a,
                           claims = { claim.file_noline(DEFAULT, conf.line("LANG", l, default_o)) } }
   return core.pair(core.requires(up, available(l)), down)
end

return args.strict_module(locale, "locale")
