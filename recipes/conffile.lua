-- prop.conffile: one setting of a configuration file, edited in place.
--
-- The rest of the file is left as it is: comments, other settings, the
-- order of lines.  Each setting is claimed with its name (file.setting),
-- so the pre-pass sees one setting of one file given two values (P007),
-- or fixed content for a file whose settings are edited, whichever
-- recipes said so; other settings of the same file agree.

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local conf = require "prop.conf"

local conffile = {}

local fmt = string.format

local impl = { set = {}, unset = {}, ini_set = {}, ini_unset = {} }

local function result(changed)
   return changed and "changed" or "ok"
end

function impl.set.ensure(sys, a)
   return result(conf.ensure_edit(sys, "conffile.key_value", a.path, function(old)
      return conf.set_key(old, a.key, a.value, a)
   end))
end

function impl.unset.ensure(sys, a)
   return result(conf.ensure_edit(sys, "conffile.key_value", a.path, function(old)
      if old == nil then return "" end
      return conf.unset_key(old, a.key, a.value, a)
   end))
end

function impl.ini_set.ensure(sys, a)
   return result(conf.ensure_edit(sys, "conffile.ini_setting", a.path, function(old)
      return conf.set_ini(old, a.section, a.key, a.value, a)
   end))
end

function impl.ini_unset.ensure(sys, a)
   return result(conf.ensure_edit(sys, "conffile.ini_setting", a.path, function(old)
      if old == nil then return "" end
      return conf.unset_ini(old, a.section, a.key, a.value)
   end))
end

-- A key of a key/value file: no blanks (with sep " " they would end the
-- key), no "=", no newline, not starting with the comment prefix.
local function check_key(v, what, comment, spaces)
   local err = args.nonempty_string(v, what)
   if err then return err end
   if v:find("[=\n\r]") or v:find("^%s") or v:find("%s$") or (not spaces and v:find("%s")) then
      return fmt('%s %s must be one word without "="%s', what, args.show(v),
                 spaces and " and without blanks at either end" or " or blanks")
   end
   if comment and v:sub(1, #comment) == comment then
      return fmt("%s %s starts with the comment prefix %s", what, args.show(v),
                 args.show(comment))
   end
   if v:find("^%[") then return fmt('%s %s must not start with "["', what, args.show(v)) end
   return nil, v
end

local seps = { [" = "] = true, ["="] = true, [" "] = true }

local key_value_schema = {
   sep = function(v, what)
      if seps[v] then return nil, v end
      return fmt('%s must be " = ", "=" or " ", got %s', what, args.show(v))
   end,
   comment = function(v, what)
      return args.matching(v, what, "[^%s%w]+", 'a prefix of punctuation such as "#" or ";"')
   end,
}

--[[ conffile.key_value(path, key, value [, { sep = " = " | "=" | " ", comment = "#" }])
  UnixLike, revertable: its revert removes the line(s) setting key to value.
  Claims: file.setting path = "KEY=VALUE" (one key given two values on a
  host is P007, other keys of the same file agree; fixed content of the
  file conflicts).  The revert claims file.noline path = the line.
  sep: what goes between key and value (" = " by default; "=" for shell
  style files such as /etc/default/*, " " for sshd_config).  comment: the
  comment prefix ("#").  value: a string or an integer.
  Run time: the first line assigning key is replaced by "KEY SEP VALUE"
  where it stands (kept byte for byte when it already has the value;
  later assignments of key are removed); with none, the first
  commented-out assignment ("#KEY ...") is replaced; with none either, the
  line is appended.  A missing file is created (0644); a symlink is
  followed.  Nothing is written when the value is already there.
  Example:
    conffile.key_value("/etc/ssh/sshd_config", "PermitRootLogin", "no", { sep = " " })
]]
function conffile.key_value(path, key, value, opts)
   local desc = fmt("%s: %s = %s", type(path) == "string" and path or "?",
                    type(key) == "string" and key or "?",
                    (type(value) == "string" or math.type(value) == "integer") and value or "?")
   local oerr, o = args.options(opts, key_value_schema, "conffile.key_value")
   local comment = (not oerr and o.comment) or "#"
   local sep = (not oerr and o.sep) or " = "
   local perr = args.abs_path(path, "path")
   local kerr = check_key(key, "key", comment, false)
   local verr, v = conf.check_value(value, "value")
   local msg = args.join("conffile.key_value", perr, kerr, verr, oerr)
   if msg then return core.invalid(desc, msg) end
   local a = { path = path, key = key, value = v, sep = sep, comment = comment }
   local line = conf.line(key, v, a)
   local set = core.leaf{ desc = fmt("%s: %s set to %s", path, key, v), impl = impl.set, args = a,
                          claims = { claim.file_setting(path, conf.claim(key, v)) } }
   local unset = core.leaf{ desc = fmt("%s: %s not set to %s", path, key, v), impl = impl.unset,
                            args = a, claims = { claim.file_noline(path, line) } }
   return core.pair(set, unset)
end

--[[ conffile.ini_setting(path, section, key, value [, { sep = " = " | "=" }])
  UnixLike, revertable: its revert removes the line(s) of [section]
  setting key to value.
  Claims: file.setting path = "[SECTION] KEY=VALUE" (one key of one
  section given two values on a host is P007).  The revert claims
  file.noline path = the line.
  section and key: one line each, without "=" or "]"; key may hold
  blanks inside (smb.conf's "server string").  value: a string or an
  integer.
  Run time: within [section], the first line assigning key is replaced
  (kept when it already has the value); with none, a commented-out
  assignment (";" or "#") is replaced; else the line goes after the
  section's last non-blank line.  A missing section is appended with the
  line, after a blank line; a missing file is created (0644).
  Example:
    conffile.ini_setting("/etc/php/8.2/fpm/php.ini", "Date", "date.timezone", "UTC")
]]
function conffile.ini_setting(path, section, key, value, opts)
   local desc = fmt("%s: [%s] %s = %s", type(path) == "string" and path or "?",
                    type(section) == "string" and section or "?",
                    type(key) == "string" and key or "?",
                    (type(value) == "string" or math.type(value) == "integer") and value or "?")
   local oerr, o = args.options(opts, { sep = function(v, what)
      if v == " = " or v == "=" then return nil, v end
      return fmt('%s must be " = " or "=", got %s', what, args.show(v))
   end }, "conffile.ini_setting")
   local perr = args.abs_path(path, "path")
   local serr = args.nonempty_string(section, "section")
   if not serr and (section:find("[%]\n\r=]") or section ~= section:match("^%s*(.-)%s*$")) then
      serr = fmt('section %s must be one line without "]", "=" or blanks at either end',
                 args.show(section))
   end
   local kerr = check_key(key, "key", nil, true)
   if not kerr and (key:find("^[;#]")) then
      kerr = fmt("key %s starts with a comment character", args.show(key))
   end
   local verr, v = conf.check_value(value, "value")
   local msg = args.join("conffile.ini_setting", perr, serr, kerr, verr, oerr)
   if msg then return core.invalid(desc, msg) end
   local a = { path = path, section = section, key = key, value = v, sep = o.sep or " = " }
   local line = key .. a.sep .. v
   local set = core.leaf{ desc = fmt("%s: [%s] %s set to %s", path, section, key, v),
                          impl = impl.ini_set, args = a,
                          claims = { claim.file_setting(path, conf.claim("[" .. section .. "] " .. key, v)) } }
   local unset = core.leaf{ desc = fmt("%s: [%s] %s not set to %s", path, section, key, v),
                            impl = impl.ini_unset, args = a,
                            claims = { claim.file_noline(path, line) } }
   return core.pair(set, unset)
end

return args.strict_module(conffile, "conffile")
