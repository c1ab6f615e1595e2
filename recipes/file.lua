-- prop.file: files, directories, links, modes and owners.
--
-- Every recipe here is UnixLike.  Paths are absolute: a site never names a
-- file relative to wherever prop happens to run.  Claims let the pre-pass
-- see one path given two different contents or states (P007) whichever
-- recipes said so.

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local R = require "prop.runtime"
local purge = require "prop.purge"

local file = {}

local fmt, concat = string.format, table.concat

-- Run time: each impl.ensure(sys, a) looks at the target once and changes
-- only what differs, returning "changed" or "ok".
local impl = {
   has_content = {}, contains_lines = {}, lacks_lines = {}, directory = {},
   absent = {}, symlink = {}, mode = {}, owner = {}, line = {}, line_absent = {},
   touched = {},
}

local function result(changed)
   return changed and "changed" or "ok"
end

-- The mode of a file whose content comes from the secret store, when
-- the site gives none: readable by its owner alone.
local SECRET_MODE = "0600"

-- content given as a function: called with the host's facts, and what it
-- returns checked as a content given in the site is.
local check_content

-- An argv holding "%s" (validate =); defined with file.line's options.
local check_validate

local function computed_content(sys, a)
   local ok, v = pcall(a.content, sys.facts)
   local where = a.defined_at and " (" .. a.defined_at .. ")" or ""
   if not ok then
      R.fail("file.has_content %s: the content function%s failed: %s", a.path, where,
             tostring(v))
   end
   local err, content = check_content(v, "its result")
   if type(v) == "function" then err = "its result must be a string or a list of lines, got a function" end
   if err then R.fail("file.has_content %s: the content function%s: %s", a.path, where, err) end
   return content, core.is_secret(content)
end

-- Defined with file.line's code below: a write after a validate command
-- accepted a copy of the new content.
local write_checked

-- has_content with replace = false or validate: an existing file is
-- left as it is (replace = false), or new content is checked first.
local function content_checked(sys, a, content, o)
   local what = "file.has_content"
   local st = sys:stat(a.path)
   -- A symlink is replaced by the file, as without these options; with
   -- replace = false it is something there, not the file: a failure.
   if st and st.type ~= "file" and (st.type ~= "link" or a.replace == false) then
      R.fail("%s: %s is a %s, not a regular file", what, a.path,
             st.type == "other" and "device, socket or pipe"
             or st.type == "link" and "symbolic link" or st.type)
   end
   local same
   if st == nil or st.type == "link" then
      same = false
   elseif a.replace == false then
      same = true
   elseif type(content) == "string" then
      same = sys:read(a.path) == content
   else
      same = sys:has_content(a.path, content)
   end
   if not same then
      write_checked(sys, what, a.validate, a.path, content,
                    { mode = R.mode_number(o.mode), owner = o.owner, group = o.group,
                      secret = o.secret })
      return true
   end
   local fix = R.attrs_to_fix(st, o)
   if fix then
      fix.hardlinks = o.hardlinks
      sys:chattr(a.path, fix)
      return true
   end
   return false
end

function impl.has_content.ensure(sys, a)
   local ensure = (a.replace == false or a.validate) and content_checked
      or function(_, o, content, opts)
         return R.ensure_content(sys, "file.has_content", o.path, content, opts)
      end
   if type(a.content) ~= "function" then
      return result(ensure(sys, a, a.content, a))
   end
   local content, secret = computed_content(sys, a)
   -- Content from the secret store is the file owner's alone unless a
   -- mode says otherwise (as for a secret given in the site).
   local o = { mode = a.mode or (secret and SECRET_MODE) or nil, owner = a.owner,
               group = a.group, secret = a.secret or secret, hardlinks = a.hardlinks }
   return result(ensure(sys, a, content, o))
end

-- file.touched: an empty file made when missing; content never changed.
function impl.touched.ensure(sys, a)
   local st = sys:stat(a.path)
   if st == nil then
      sys:write(a.path, "", { mode = R.mode_number(a.mode) or tonumber("0644", 8),
                              owner = a.owner, group = a.group })
      return "changed"
   end
   if st.type ~= "file" then
      R.fail("file.touched: %s is a %s, not a regular file", a.path,
             st.type == "other" and "device, socket or pipe"
             or st.type == "link" and "symbolic link" or st.type)
   end
   local fix = R.attrs_to_fix(st, a)
   if not fix then return "ok" end
   fix.hardlinks = a.hardlinks
   sys:chattr(a.path, fix)
   return "changed"
end

-- recurse = true: every entry below dir (not dir itself), listed by find
-- on the target (symlinks are neither followed nor changed), is given
-- o's owner, group and mode; a directory's mode gets x wherever it has r
-- (0640 -> 0750), so that the tree stays searchable.  Whether anything
-- changed.
local function dir_mode(mode)
   local m = R.mode_number(mode)
   local x = 0
   if m & 256 ~= 0 then x = x | 64 end
   if m & 32 ~= 0 then x = x | 8 end
   if m & 4 ~= 0 then x = x | 1 end
   return m | x
end

local function fix_below(sys, what, dir, o)
   local changed = false
   for _, p in ipairs(R.find_paths(sys, what, "recurse", dir,
                                   { "find", dir, "-mindepth", "1", "-print0" })) do
      local st = sys:stat(p)
      if st and st.type ~= "link" then
         local want = { owner = o.owner, group = o.group }
         if o.mode then
            want.mode = st.type == "directory" and dir_mode(o.mode) or R.mode_number(o.mode)
         end
         local fix = R.attrs_to_fix(st, want)
         if fix then
            fix.hardlinks = o.hardlinks
            sys:chattr(p, fix)
            changed = true
         end
      end
   end
   return changed
end

-- "Key value" lines of content, by lower-cased key: the first value each
-- key is given, and its line number.  Comments, blank lines and lines
-- holding "=" (shell assignments, "key = value" files, where the last
-- value counts) are left out.
local function keyword_of(l)
   if l:find("=", 1, true) then return nil end
   local k, v = l:match("^%s*([%a][%w]*)%s+(%S.-)%s*$")
   if not k then return nil end
   return k:lower(), (v:gsub("%s+", " "))
end

-- Lines that contains_lines would append as "Key value" to a file that
-- already gives Key another value: a program that takes the first value
-- (sshd does) keeps the old one.  Said as a note, with the recipes that
-- replace a line instead.
local function warn_shadowed(sys, path, content, want)
   if content == nil then return end
   local lines = R.split_lines(content)
   local present, first = {}, {}
   for i, l in ipairs(lines) do
      present[l] = true
      local k, v = keyword_of(l)
      if k and not first[k] then first[k] = { i, v, l } end
   end
   for _, l in ipairs(want) do
      local k, v = keyword_of(l)
      local old = k and not present[l] and first[k]
      if old and old[2] ~= v then
         local key = l:match("^%s*(%S+)")
         sys:note(fmt("warning: %s already sets %s on line %d (%s); %s \"%s\" leaves it in "
                      .. "force for a program that takes the first value (sshd does): "
                      .. "use file.line(path, line, { match = \"^%%s*%s%%s\" }) to replace it%s",
                      path, key, old[1], args.show(old[3]),
                      sys.dry and "appending" or "appended", l, key,
                      path:find("sshd_config", 1, true) and ", or ssh.sshd_config" or ""))
      end
   end
end

function impl.contains_lines.ensure(sys, a)
   local _, st = R.follow(sys, a.path)
   local before = st and st.type == "file" and sys:read((R.follow(sys, a.path))) or nil
   local changed = R.ensure_lines(sys, "file.contains_lines", a.path, a.lines)
   if changed then warn_shadowed(sys, a.path, before, a.lines) end
   return result(changed)
end

function impl.lacks_lines.ensure(sys, a)
   return result(R.ensure_no_lines(sys, "file.lacks_lines", a.path, a.lines))
end

-- The parent directory of an absolute path ("/" for "/x").
local function parent(path)
   return path:match("^(.*)/[^/]*$") or "/"
end

-- st for path, where a symlink to a directory counts as the directory
-- (path .. "/." resolves the link); the second result is the path that
-- names the directory itself.
local function dir_stat(sys, path)
   local st = sys:stat(path)
   if st and st.type == "link" then
      local through = sys:stat(path .. "/.")
      if through and through.type == "directory" then return through, path .. "/." end
   end
   return st, path
end

function impl.directory.ensure(sys, a)
   local path = a.path:gsub("(.)/+$", "%1")
   local st, real = dir_stat(sys, path)
   if st and st.type ~= "directory" then
      R.fail("file.directory: %s exists and is a %s, not a directory", path,
             st.type == "other" and "special file" or st.type)
   end
   if st == nil then
      -- Missing parents are made too (mode 0755, owned by root), as
      -- mkdir -p does; mode/owner/group apply to path itself only.
      local missing = { path }
      local p = parent(path)
      while p ~= "/" and p ~= "" do
         local pst = dir_stat(sys, p)
         if pst then
            if pst.type ~= "directory" then
               R.fail("file.directory: cannot make %s: %s is a %s, not a directory", path, p,
                      pst.type == "other" and "special file" or pst.type)
            end
            break
         end
         table.insert(missing, 1, p)
         p = parent(p)
      end
      for i = 1, #missing - 1 do sys:mkdir(missing[i], { mode = tonumber("0755", 8) }) end
      sys:mkdir(path, { mode = R.mode_number(a.mode) or tonumber("0755", 8),
                        owner = a.owner, group = a.group })
      return "changed"
   end
   local fix = R.attrs_to_fix(st, a)
   if fix then sys:chattr(real, fix) end
   -- The purge first: recurse then gives attributes only to what stays.
   local purged = a.purge and #purge.purge(sys, "file.directory", path) > 0
   local below = a.recurse and fix_below(sys, "file.directory", real, a)
   return result(fix or below or purged)
end

function impl.absent.ensure(sys, a)
   local st = sys:stat(a.path)
   if st == nil then return "ok" end
   if st.type == "directory" and not sys.dry then
      local ok, err = pcall(sys.remove, sys, a.path)
      if not ok then
         if tostring(err):find("not empty", 1, true) then
            R.fail("file.absent: %s is a directory that is not empty (prop removes files, "
                   .. "links and empty directories only)", a.path)
         end
         error(err, 0)
      end
      return "changed"
   end
   sys:remove(a.path)
   return "changed"
end

function impl.symlink.ensure(sys, a)
   local st = sys:stat(a.link)
   if st and st.type == "link" and st.target == a.target then return "ok" end
   if st and st.type ~= "link" then
      R.fail("file.symlink: %s exists and is a %s; prop replaces only a link "
             .. "(remove it first, with file.absent)", a.link,
             st.type == "other" and "special file" or st.type)
   end
   sys:symlink(a.target, a.link)
   return "changed"
end

-- st of an existing file for mode/owner; a missing file fails (in a dry
-- run, an earlier property may be about to make it: the change is
-- recorded instead).
local function existing(sys, what, path)
   local st = sys:stat(path)
   if st == nil and not sys.dry then R.fail("%s: %s does not exist", what, path) end
   if st and st.type == "link" then
      R.fail("%s: %s is a symbolic link; name the file it points to", what, path)
   end
   return st
end

-- file.mode and file.owner: path itself, then with recurse = true what
-- is below it when it is a directory.
local function ensure_attrs(sys, what, a, want)
   local st = existing(sys, what, a.path)
   local fix = R.attrs_to_fix(st, want)
   if fix then
      fix.hardlinks = a.hardlinks
      sys:chattr(a.path, fix)
   end
   local below = false
   if a.recurse and st and st.type == "directory" then
      want.hardlinks = a.hardlinks
      below = fix_below(sys, what, a.path, want)
   end
   return result(fix or below)
end

function impl.mode.ensure(sys, a)
   return ensure_attrs(sys, "file.mode", a, { mode = a.mode })
end

function impl.owner.ensure(sys, a)
   return ensure_attrs(sys, "file.owner", a, { owner = a.owner, group = a.group })
end

-- content: a string, or a list of lines joined with "\n" and ending with
-- one (an empty list is an empty file), or a function of the facts that
-- returns one of those at run time.
function check_content(v, what)
   if type(v) == "string" or type(v) == "function" then return nil, v end
   if core.is_secret(v) then return nil, v end
   if type(v) ~= "table" then
      return fmt("%s must be a string or a list of lines, got %s", what, args.got(v))
   end
   local err, lines = args.string_list(v, what, { single = false })
   if err then return err end
   for i, l in ipairs(lines) do
      if l:find("\n", 1, true) then
         return fmt("%s[%d] contains a newline: give each line as its own list entry", what, i)
      end
   end
   if #lines == 0 then return nil, "" end
   return nil, table.concat(lines, "\n") .. "\n"
end

local function check_line(v, what)
   local err = args.string(v, what)
   if err then return err end
   if v:find("\n", 1, true) then
      return fmt("%s %s contains a newline: a line cannot span lines", what, args.show(v))
   end
   return nil, v
end

local function check_lines(v, what)
   return args.list(v, what, check_line, { nonempty = true })
end

-- owner and group names as the account recipes accept them, or numeric
-- ids, given as numbers or as strings of digits alike: both are checked
-- as user.account checks a uid (0..4294967294), and both claim the id in
-- decimal, so that 1000 and "1000" are the same owner.
local function check_account(v, what)
   if type(v) == "string" and v:find("^%d+$") then
      local n = math.tointeger(tonumber(v))
      if n == nil then return fmt("%s %s is outside 0..4294967294", what, v) end
      v = n
   end
   if type(v) == "number" then
      local err, n = args.id(v, what)
      if err then return err end
      return nil, tostring(n)
   end
   return args.matching(v, what, "[A-Za-z_][A-Za-z0-9_.-]*%$?",
                        "a user or group name such as \"www-data\", or a numeric id")
end

local ownership_schema = { mode = args.mode, owner = check_account, group = check_account }

-- Appends the mode and owner claims an options table asks for.
local function ownership_claims(claims, path, o)
   if o.mode then claims[#claims + 1] = claim.file_mode(path, o.mode) end
   if o.owner or o.group then
      claims[#claims + 1] = claim.file_owner(path, (o.owner or "") .. ":" .. (o.group or ""))
   end
   return claims
end

--[[ file.has_content(path, content [, { mode=, owner=, group=, secret=, shared=, hardlinks=,
                                        replace=, validate= }])
  UnixLike, not revertable.
  Claims: file.content path = content (file.generated for a function);
  file.mode / file.owner when given (file.mode 0600 for a secret without
  a mode).
  content is a string, or a list of lines (joined with "\n", ending with one),
  or a secret (secret "name", or strings joined with one, or a template
  that writes one): its value comes from the site's store at run time
  and is never shown.  Such a file gets mode 0600 unless mode is given
  (an existing file too), so that only its owner (root, for a new file
  prop writes as root) reads it; a mode that lets the group or others
  read it is warning W108, unless shared = true says it is meant (a
  key a service's group must read).
  secret = true keeps a plain content out of output too (its mode is as
  for any content).
  content may also be a function(facts) returning one of those: it is
  called at run time (dry runs too) with sys.facts, and the path is
  claimed as file.generated "the content function at FILE:LINE (computed
  at run time)"; an error in it, or a result that is no content, fails
  the property with the function's place.
  Run time: rewrites the file atomically when its content differs (a
  symlink at path is replaced by a regular file; a directory fails), then
  sets mode/owner/group when they differ.  A new file without mode is
  0644; an existing one keeps its mode.  The parent directory must exist.
  In a tree (a chroot, connect.dir), mode/owner/group are not changed on
  a file of the right content that has more than one hard link (its other
  names may be outside the tree): that fails, unless hardlinks = true.
  replace = false (Ansible's force: no): an existing file keeps its
  content, only mode/owner/group are set; a link or directory at path
  fails.  validate: an argv holding "%s", as file.line's: new content
  goes to PATH.prop-check first (claimed), the command runs on it, and
  only when it exits 0 is path written; else nothing is written and the
  property fails with what the command said.
  Example:
    file.has_content("/etc/motd", { "Welcome to web1", "Managed by prop" },
                     { mode = "0644", owner = "root" })
]]
local has_content_schema = { mode = args.mode, owner = check_account, group = check_account,
                             secret = args.boolean, shared = args.boolean,
                             hardlinks = args.boolean, replace = args.boolean,
                             validate = function(v, what) return check_validate(v, what) end }
local has_content_extra = {
   norevert = "file.has_content has no revert action: the old content is not known",
}
local has_secret_content_extra = {
   norevert = has_content_extra.norevert,
   secret = true, -- the pre-pass compares the content, nothing shows it
}

function file.has_content(path, content, opts)
   local desc = "file " .. (type(path) == "string" and path or "?") .. " has content"
   local err, v = args.check_all(args.abs_path, path, "path", check_content, content, "content")
   local oerr, o = args.options(opts, has_content_schema, "file.has_content")
   local serr
   if not err and not oerr and o.shared and core.secret_token(v[2]) == nil
      and type(v[2]) ~= "function" then
      serr = "shared = true is for content from the secret store (secret \"name\"): "
         .. "it says a group or others may read it"
   end
   local msg = args.join("file.has_content", err, oerr, serr)
   if msg then return core.invalid(desc, msg) end
   -- Content from the secret store is secret whatever secret= says, and
   -- its file is 0600 unless the site gives a mode.
   local token = core.secret_token(v[2])
   local secret = o.secret or token ~= nil
   if secret then desc = desc .. " (secret)" end
   local a = { path = v[1], content = v[2], mode = o.mode, owner = o.owner, group = o.group,
               secret = secret, hardlinks = o.hardlinks, replace = o.replace,
               validate = o.validate }
   if token ~= nil and a.mode == nil then a.mode = SECRET_MODE end
   local claims
   if type(a.content) == "function" then
      -- The path is known now, the content only at run time: the claim
      -- says where it comes from, so that two functions for one file
      -- clash and one function used twice does not.
      a.defined_at = core.defined_at(a.content)
      local by = a.defined_at and "the content function at " .. a.defined_at .. " "
         or "a content function "
      claims = ownership_claims({ claim.file_generated(a.path, by .. "(computed at run time)") },
                                a.path, o)
   else
      claims = ownership_claims({ claim.file_content(a.path, token or a.content) }, a.path, a)
   end
   if a.validate then
      claims[#claims + 1] = claim.file_generated(a.path .. ".prop-check",
                                                 "a copy checked before it replaces the file")
   end
   local extra = secret and has_secret_content_extra or has_content_extra
   if o.shared then
      -- The pre-pass reads it: secret content readable by group or others
      -- is meant (no W108).
      extra = { norevert = extra.norevert, secret = extra.secret,
                info = { "secret.shared", a.path } }
   end
   return core.leaf{ desc = desc, impl = impl.has_content, args = a, claims = claims,
                     norevert = extra.norevert, secret = extra.secret, info = extra.info }
end

--[[ file.touched(path [, { mode=, owner=, group=, hardlinks= }])
  UnixLike, not revertable.  Ansible's file with state=touch, Puppet's
  file with ensure => file and no content.
  Claims: file.generated path (an empty file when missing, its content
  left alone); file.mode / file.owner when given.
  Run time: a missing path is made an empty regular file (mode given, or
  0644); an existing file's content is never read or changed, only its
  mode/owner/group when they differ.  A converged touch changes nothing:
  unlike Ansible's state=touch, prop does not set the times on every run
  (a run that changed nothing leaves the file as it was).  A directory,
  link or special file at path is a failure.  The parent directory must
  exist.  A file that file.has_content or file.line (create = true) also
  writes needs no file.touched: they make it.
  Example:
    file.touched("/var/log/app.log", { owner = "app", mode = "0640" })
]]
function file.touched(path, opts)
   local desc = "file " .. (type(path) == "string" and path or "?") .. " exists"
   local err = args.abs_path(path, "path")
   local oerr, o = args.options(opts, { mode = args.mode, owner = check_account,
                                        group = check_account, hardlinks = args.boolean },
                                "file.touched")
   local msg = args.join("file.touched", err, oerr)
   if msg then return core.invalid(desc, msg) end
   local a = { path = path, mode = o.mode, owner = o.owner, group = o.group,
               hardlinks = o.hardlinks }
   local claims = { claim.file_generated(path, "file.touched (an empty file when missing)") }
   return core.leaf{ desc = desc, impl = impl.touched, args = a,
                     claims = ownership_claims(claims, path, o),
                     norevert = "file.touched has no revert action: whether the file was "
                        .. "there before is not known" }
end

local function lines_leaf(which, path, lines)
   local verb = which == "contains_lines" and "contains" or "lacks"
   local kind = which == "contains_lines" and claim.file_line or claim.file_noline
   local desc = "file " .. path .. " " .. verb .. " lines"
   local claims = {}
   for _, l in ipairs(lines) do
      claims[#claims + 1] = kind(path, l)
   end
   return core.leaf{ desc = desc, impl = impl[which], args = { path = path, lines = lines },
                     claims = claims }
end

local function lines_pair(which, other, path, lines)
   local desc = "file " .. (type(path) == "string" and path or "?") .. " "
      .. (which == "contains_lines" and "contains" or "lacks") .. " lines"
   local err, v = args.check_all(args.abs_path, path, "path", check_lines, lines, "lines")
   if err then return core.invalid(desc, args.join("file." .. which, err)) end
   return core.pair(lines_leaf(which, v[1], v[2]), lines_leaf(other, v[1], v[2]))
end

--[[ file.contains_lines(path, lines)
  UnixLike, revertable: its revert is file.lacks_lines(path, lines).
  Claims: file.line path = each line.  Other lines of the file are kept;
  missing ones are appended.  lines: a list of strings, or one string.
  Run time: appends the missing lines in the order given (after adding a
  final newline if the file lacked one); a missing file is created (0644)
  holding them.  Nothing is written when every line is there.  A symlink
  is followed: the file it points to is edited, its mode kept.
  Example:
    file.contains_lines("/etc/foo", { "secure=1", "log=syslog" })
]]
function file.contains_lines(path, lines)
   return lines_pair("contains_lines", "lacks_lines", path, lines)
end

--[[ file.lacks_lines(path, lines)
  UnixLike, revertable: its revert is file.contains_lines(path, lines).
  Claims: file.noline path = each line.  Every line equal to one of them
  is removed; the rest of the file is kept.
  Run time: rewrites the file without those lines (every occurrence) when
  it has any, keeping its mode; a missing file already lacks them (ok).
  A symlink is followed.
  Example:
    file.lacks_lines("/etc/ssh/sshd_config", "PermitRootLogin yes")
]]
function file.lacks_lines(path, lines)
   return lines_pair("lacks_lines", "contains_lines", path, lines)
end

-- ---------------------------------------------------------------------
-- file.line: one line, replacing the line a pattern finds (Ansible's
-- lineinfile).

-- regex = expressions compiled at run time, by their text (compiled
-- once per run; the site's check compiled them already).
local compiled = setmetatable({}, { __mode = "v" })

local function regex_of(re)
   local c = compiled[re]
   if c == nil then
      local why
      c, why = core.regex_compile(re)
      if c == nil then R.fail("regex %s: %s", args.show(re), why) end
      compiled[re] = c
   end
   return c
end

-- Whether line l is one a.match (a Lua pattern), a.regex (a POSIX
-- extended regular expression) or a.match_plain (a plain string) finds.
local function line_matches(a, l)
   if a.match then return l:find(a.match) ~= nil end
   if a.regex then return regex_of(a.regex):match(l) end
   return l:find(a.match_plain, 1, true) ~= nil
end

local function join_lines(lines, nl)
   if #lines == 0 then return "" end
   return concat(lines, "\n") .. (nl and "\n" or "")
end

-- content with a.line in place (file.line's rules, in this order): the
-- last line the match finds is replaced by it; else, when some line is
-- already a.line, nothing changes; else it is inserted after the last
-- line a.after finds, or before the first line a.before finds, or at the
-- end (also when the anchor finds no line).  Returns the new content and
-- what was done ({ "replace", "replaced", "line", N }).
local function put_line(content, a)
   local lines, nl = R.split_lines(content)
   if a.match or a.match_plain or a.regex then
      local last
      for i, l in ipairs(lines) do
         if line_matches(a, l) then last = i end
      end
      if last then
         if lines[last] == a.line then return content, nil end
         lines[last] = a.line
         return join_lines(lines, nl), { "replace", "replaced", "line", last }
      end
   end
   for _, l in ipairs(lines) do
      if l == a.line then return content, nil end
   end
   local at = #lines + 1
   if a.after then
      for i, l in ipairs(lines) do
         if l:find(a.after) then at = i + 1 end
      end
   elseif a.before then
      for i, l in ipairs(lines) do
         if l:find(a.before) then
            at = i
            break
         end
      end
   end
   table.insert(lines, at, a.line)
   -- A line added at the end ends with a newline, as the file's others.
   if at == #lines then nl = true end
   return join_lines(lines, nl), { "insert", "inserted", "at line", at }
end

-- content without the lines the match finds (every one), or, without a
-- match, without the lines equal to a.line.
local function drop_lines(content, a)
   local lines, nl = R.split_lines(content)
   local keep = {}
   for _, l in ipairs(lines) do
      local drop
      if a.match or a.match_plain or a.regex then
         drop = line_matches(a, l)
      else
         drop = l == a.line
      end
      if not drop then keep[#keep + 1] = l end
   end
   if #keep == #lines then return content, 0 end
   return join_lines(keep, nl), #lines - #keep
end

-- argv with every "%s" replaced by path.
local function validate_argv(argv, path)
   local out = {}
   for i, w in ipairs(argv) do
      out[i] = (w:gsub("%%s", function() return path end))
   end
   return out
end

-- Writes new to path (wopts: sys:write's options; wopts.via the claimed
-- path, else path), after validate (an argv holding "%s", or nil: no
-- check) accepts a copy written beside the claimed path as
-- PATH.prop-check, with the same options (mode check_mode when given).
-- A refusal fails the property with what the command said (not for a
-- secret), and path is left as it was.  In a dry run the write is
-- recorded (with its diff under --diff) and the check only said.
-- file.line, file.line_absent and file.has_content share it.
function write_checked(sys, what, validate, path, new, wopts, check_mode)
   if not validate then
      sys:write(path, new, wopts)
      return
   end
   local check = (wopts.via or path) .. ".prop-check"
   local argv = validate_argv(validate, check)
   if sys.dry then
      sys:write(path, new, wopts)
      sys:note("would check the new content with " .. R.show_argv(validate)
               .. " before it replaces the old one")
      return
   end
   local copts = {}
   for k, v in pairs(wopts) do copts[k] = v end
   copts.via, copts.mode = nil, check_mode or wopts.mode
   sys:write(check, new, copts)
   local ok, r = pcall(sys.query, sys, argv)
   sys:remove(check)
   if not ok then error(r, 0) end
   if r.code ~= 0 then
      local said = R.tail(((r.stderr or "") .. (r.stdout or "")):gsub("\r", ""), 4)
      said = said:gsub(check:gsub("%p", "%%%0"), function() return path end)
      -- A checker may print what it read: nothing of a secret is shown.
      if wopts.secret and said ~= "" then
         said = "(what it said is not shown: the content is secret)"
      end
      R.fail("%s: %s %s the new content (exit %d), %s is left as it was%s", what,
             R.show_argv(validate), r.code == 127 and "could not run to check" or "refuses",
             r.code, path, said ~= "" and ": " .. said or "")
   end
   sys:write(path, new, wopts)
end

-- Writes new to path (the file a.path names, st its stat or nil), after
-- a.validate accepts a copy beside a.path.
local function replace_checked(sys, what, a, path, st, new)
   local keep = st and (st.mode & tonumber("0777", 8)) or tonumber("0644", 8)
   write_checked(sys, what, a.validate, path, new,
                 { via = a.path, mode = st == nil and keep or nil }, keep)
end

-- The file a.path names (a symlink followed), its stat and content; a
-- missing file has content nil.
local function read_target(sys, what, a)
   local path, st = R.follow(sys, a.path)
   if st and st.type ~= "file" then
      R.fail("%s: %s is a %s, not a file", what, path,
             st.type == "other" and "special file"
             or st.type == "link" and "chain of too many links" or st.type)
   end
   return path, st, st and sys:read(path)
end

function impl.line.ensure(sys, a)
   local what = "file.line"
   local path, st, old = read_target(sys, what, a)
   if old == nil and not a.create then
      if sys.dry then
         -- An earlier property may be about to make it.
         sys:note("would edit " .. path .. " (it does not exist yet; without create = true "
                  .. "a real run fails unless something makes it first)")
         return "changed"
      end
      R.fail("%s: %s does not exist (create = true makes it)", what, path)
   end
   local new, done = put_line(old or "", a)
   if old ~= nil and new == old then return "ok" end
   replace_checked(sys, what, a, path, st, new)
   if old == nil then
      sys:note((sys.dry and "would create " or "created ") .. path)
   else
      sys:note(fmt("%s %s %d", sys.dry and "would " .. done[1] or done[2], done[3], done[4]))
   end
   return "changed"
end

function impl.line_absent.ensure(sys, a)
   local what = "file.line_absent"
   local path, st, old = read_target(sys, what, a)
   if old == nil then return "ok" end
   local new, n = drop_lines(old, a)
   if n == 0 then return "ok" end
   replace_checked(sys, what, a, path, st, new)
   sys:note(fmt("%s %d line%s", sys.dry and "would remove" or "removed", n, n == 1 and "" or "s"))
   return "changed"
end

-- What is wrong with Lua pattern p, in string.find's words, or nil.
-- string.find reads a pattern only as far as a subject lets it, so a
-- trial match cannot tell: this walks all of it as lstrlib.c does.
local function pattern_error(p)
   local n, i = #p, 1
   local open, closed, level = {}, {}, 0
   -- The position after the class "[...]" starting at j.
   local function class_end(j)
      j = j + 1
      if p:sub(j, j) == "^" then j = j + 1 end
      repeat
         if j > n then return nil end
         local c = p:sub(j, j)
         j = j + 1
         if c == "%" and j <= n then j = j + 1 end
      until p:sub(j, j) == "]"
      return j + 1
   end
   if p:sub(1, 1) == "^" then i = 2 end
   while i <= n do
      local c = p:sub(i, i)
      if c == "(" then
         level = level + 1
         if level > 32 then return "too many captures" end
         if p:sub(i + 1, i + 1) == ")" then
            closed[level], i = true, i + 2
         else
            open[#open + 1], i = level, i + 1
         end
      elseif c == ")" then
         if #open == 0 then return "invalid pattern capture" end
         closed[table.remove(open)], i = true, i + 1
      elseif c == "%" then
         local d = p:sub(i + 1, i + 1)
         if d == "" then return "malformed pattern (ends with '%')" end
         if d == "b" then
            if i + 3 > n then return "missing arguments to '%b'" end
            i = i + 4
         elseif d == "f" then
            if p:sub(i + 2, i + 2) ~= "[" then return "missing '[' after '%f' in pattern" end
            i = class_end(i + 2)
            if not i then return "malformed pattern (missing ']')" end
         elseif d:find("%d") then
            local l = tonumber(d)
            if l == 0 or l > level or not closed[l] then
               return fmt("invalid capture index %%%d", l)
            end
            i = i + 2
         else
            i = i + 2
         end
      elseif c == "[" then
         i = class_end(i)
         if not i then return "malformed pattern (missing ']')" end
      else
         i = i + 1
      end
   end
   if #open > 0 then return "unfinished capture" end
   return nil
end

-- A Lua pattern (as string.find takes it).
local function check_pattern(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   local why = pattern_error(v)
   if not why then
      local ok, e = pcall(string.find, "", v)
      if not ok then why = tostring(e):gsub("^[^:]*:%d+: ", "") end
   end
   if why then return fmt("%s %s is not a Lua pattern: %s", what, args.show(v), why) end
   return nil, v
end

function check_validate(v, what)
   local err, argv = args.argv(v, what)
   if err then return err end
   for _, w in ipairs(argv) do
      if w:find("%s", 1, true) then return nil, argv end
   end
   return fmt('%s %s must hold "%%s", which stands for the file to check', what,
              R.show_argv(argv))
end

-- A POSIX extended regular expression, compiled by libc's regcomp as it
-- will be at run time: an expression it refuses is an error now, in
-- regerror's words.
local function check_regex(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   local re, why = core.regex_compile(v)
   if re == nil then
      return fmt("%s %s is not a POSIX extended regular expression: %s", what, args.show(v), why)
   end
   return nil, v
end

local line_schema = {
   match = check_pattern, match_plain = args.nonempty_string, regex = check_regex,
   after = check_pattern, before = check_pattern, validate = check_validate,
   create = args.boolean,
}

-- What in Lua pattern p is regular-expression syntax that Lua patterns do
-- not have (so that p finds other lines than its author meant), or nil:
-- warning W107.  "%" escapes: "%|" is a literal bar and is not flagged.
local function regex_syntax(p)
   local i, n = 1, #p
   while i <= n do
      local c, d = p:sub(i, i), p:sub(i + 1, i + 1)
      if c == "%" then
         i = i + 2
      elseif c == "|" then
         return '"|" (alternation)'
      elseif c == "\\" and d:find("^[sdwbSDWB]$") then
         return '"\\' .. d .. '"'
      elseif c == "\\" and d:find("^[%(%)%.%[%]%{%}%+%*%?]$") then
         return '"\\' .. d .. '" (a backslash escape)'
      elseif c == "(" and d == "?" then
         return '"(?"'
      elseif c == "[" and p:sub(i + 1, i + 2) == "[:" then
         return '"[[:" (a POSIX class)'
      elseif c == "{" and p:find("^{%d+,?%d*}", i) and i > 1 then
         return fmt('"%s" (a repetition count)', p:match("^{%d+,?%d*}", i))
      else
         i = i + 1
      end
   end
   return nil
end

local function warn_regex_syntax(recipe, o)
   for _, k in ipairs({ "match", "after", "before" }) do
      local why = o[k] and regex_syntax(o[k])
      if why then
         core.warn("W107", fmt("%s: %s %s is a Lua pattern, and Lua patterns have no %s: it "
                               .. "does not find the lines a regular expression would; give "
                               .. "the expression as regex = %s instead%s", recipe, k,
                               args.show(o[k]), why, args.show(o[k]),
                               k == "match" and "" or " (or write a Lua pattern)"))
      end
   end
end

-- A name for the claim file.setting (NAME=VALUE, split at the first
-- "="): the match in a form without "=" ("\" is doubled, "=" becomes
-- "\x3d", so two different matches never share a name).  The engine
-- compares names starting with "lines " with regard to case.
local function match_name(a)
   local m = a.match or a.regex or a.match_plain
   m = m:gsub("\\", "\\\\"):gsub("=", "\\x3d")
   return (a.match and "lines matching " or a.regex and "lines matching regex "
           or "lines containing ") .. m
end

-- line may be nil (file.line_absent given only a match).
local function line_args(recipe, path, line, opts)
   local err, v
   if line == nil then
      err = args.abs_path(path, "path")
      v = { path }
   else
      err, v = args.check_all(args.abs_path, path, "path", check_line, line, "line")
   end
   local oerr, o = args.options(opts, line_schema, recipe)
   local xerr
   if not oerr then
      local n = (o.match and 1 or 0) + (o.match_plain and 1 or 0) + (o.regex and 1 or 0)
      if n > 1 then
         xerr = "give one of match (a Lua pattern), regex (a POSIX extended regular "
            .. "expression) and match_plain (a plain string), not " .. (n == 3 and "all three"
                                                                        or "two")
      elseif o.after and o.before then
         xerr = "give after or before, not both"
      elseif line == nil and n == 0 then
         xerr = "give the line to remove, or what finds the lines to remove "
            .. "(match, regex or match_plain)"
      end
      warn_regex_syntax(recipe, o)
   end
   local msg = args.join(recipe, err, oerr, xerr)
   if msg then return msg end
   return nil, { path = v[1], line = v[2], match = o.match, match_plain = o.match_plain,
                 regex = o.regex, after = o.after, before = o.before, validate = o.validate,
                 create = o.create or false }
end

local function line_leaves(a)
   local m = a.match or a.regex or a.match_plain
   local upd = fmt('file %s has line "%s"', a.path, a.line)
   local downd = m and fmt("file %s has no line %s %s", a.path,
                           a.match and "matching" or a.regex and "matching regex"
                              or "containing", args.show(m))
      or fmt('file %s lacks line "%s"', a.path, a.line)
   local up = { claim.file_line(a.path, a.line) }
   if m then up[#up + 1] = claim.file_setting(a.path, match_name(a) .. "=" .. a.line) end
   local down = { claim.file_noline(a.path, a.line) }
   if a.validate then
      for _, c in ipairs({ up, down }) do
         c[#c + 1] = claim.file_generated(a.path .. ".prop-check",
                                          "a copy checked before it replaces the file")
      end
   end
   return core.leaf{ desc = upd, impl = impl.line, args = a, claims = up },
          core.leaf{ desc = downd, impl = impl.line_absent, args = a, claims = down }
end

--[[ file.line(path, line [, { match=, regex=, match_plain=, after=, before=, validate=,
                              create= }])
  UnixLike, revertable: its revert is file.line_absent with the same
  arguments.  Ansible's lineinfile (state=present).
  Claims: file.line path = line; with match (or match_plain) also
  file.setting path = "lines matching PATTERN=line", so that two
  file.line on one file with the same match and different lines are
  P007, as is fixed content for the file (file.has_content); with
  validate, file.generated PATH.prop-check.
  match: a Lua pattern (string.find, unanchored: "^PermitRootLogin%s"
  finds lines that start with the keyword); regex: a POSIX extended
  regular expression (regcomp, REG_EXTENDED; one that does not compile
  is P012 with regcomp's words); match_plain: a plain string instead.
  One of the three at most.  A match written as a regular expression
  ("|", "\s", "(?"...) is warning W107.  after / before: Lua patterns naming where a new line goes
  (before = "^" puts it first).  validate: an argv holding "%s", such as
  { "visudo", "-cf", "%s" }.  create: make a missing file (0644).
  Run time, in this order: the LAST line the match finds is replaced by
  line (ok when it already is line); else, when some line is line
  already, ok; else line is inserted after the last line after finds,
  or before the first line before finds, or at the end (also when the
  anchor finds no line).  The file keeps its mode and owner; it is
  written whole and atomically.  With validate, the new content goes to
  PATH.prop-check first and the command runs on it; only when it exits 0
  does it replace the file, else the property fails with what the
  command said and the file is left as it was.  A missing file fails
  unless create = true.  A symlink is followed.
  Example:
    file.line("/etc/ssh/sshd_config", "PermitRootLogin no",
              { match = "^#?PermitRootLogin%s", validate = { "/usr/sbin/sshd", "-t", "-f", "%s" } })
]]
function file.line(path, line, opts)
   local desc = "file " .. (type(path) == "string" and path or "?") .. " has line"
   local err, a = line_args("file.line", path, line, opts)
   if err then return core.invalid(desc, err) end
   return core.pair(line_leaves(a))
end

--[[ file.line_absent(path [, line] [, { match=, regex=, match_plain=, validate= }])
  UnixLike, revertable: its revert is file.line with the same arguments;
  without line (a match only) not revertable, and claimed as the setting
  "lines matching PATTERN" given no line, so file.line with the same
  match is P007.
  Ansible's lineinfile with state=absent.
  Claims: file.noline path = line (and PATH.prop-check with validate).
  Run time: with match (or match_plain), removes EVERY line it finds,
  whatever they say; without, every line equal to line.  The rest of the
  file is kept, with its mode and owner; a missing file lacks them (ok).
  validate checks the new content first, as for file.line.
  Example:
    file.line_absent("/etc/sudoers", "Defaults !authenticate",
                     { validate = { "visudo", "-cf", "%s" } })
]]
function file.line_absent(path, line, opts)
   local desc = "file " .. (type(path) == "string" and path or "?") .. " lacks line"
   if type(line) == "table" and opts == nil then line, opts = nil, line end
   local err, a = line_args("file.line_absent", path, line, opts)
   if not err and (a.after or a.before or a.create) then
      err = "file.line_absent: after, before and create place a line that is added; "
         .. "file.line_absent removes lines (give match, regex, match_plain or validate)"
   end
   if err then return core.invalid(desc, err) end
   if a.line == nil then
      -- No line to put back: not revertable.  The claim says that no
      -- line the match finds is there, so that file.line with the same
      -- match is P007.
      local m = a.match or a.regex or a.match_plain
      local claims = { claim.file_setting(a.path, match_name(a) .. "=") }
      if a.validate then
         claims[2] = claim.file_generated(a.path .. ".prop-check",
                                          "a copy checked before it replaces the file")
      end
      return core.leaf{ desc = fmt("file %s has no line %s %s", a.path,
                                   a.match and "matching" or a.regex and "matching regex"
                                      or "containing", args.show(m)),
                        impl = impl.line_absent, args = a, claims = claims,
                        norevert = "file.line_absent without a line has no revert action: "
                           .. "there is no line to put back" }
   end
   local up, down = line_leaves(a)
   return core.pair(down, up)
end

--[[ file.directory(path [, { mode=, owner=, group=, recurse=, hardlinks=, purge= }])
  UnixLike, not revertable.
  Claims: file.directory path; file.mode / file.owner when given;
  file.purged path with purge = true.
  Run time: makes the directory when missing, and its missing parents too
  (as mkdir -p: parents 0755, root); mode/owner/group (default 0755) apply
  to path itself and are corrected when they differ.  A file or link at
  path is a failure (a link to a directory counts as the directory).
  recurse = true: every entry below gets them too, as file.mode's.
  purge = true: every entry directly in the directory that no property of
  the host claims is removed (prop.purge); a subdirectory holding a
  claimed path is kept whole.
  Example:
    file.directory("/srv/www", { mode = "0755", owner = "www-data" })
    file.directory("/etc/sudoers.d", { purge = true })
]]
local directory_schema = { mode = args.mode, owner = check_account, group = check_account,
                           recurse = args.boolean, hardlinks = args.boolean,
                           purge = args.boolean }

function file.directory(path, opts)
   local desc = "directory " .. (type(path) == "string" and path or "?") .. " exists"
   local err = args.abs_path(path, "path")
   local oerr, o = args.options(opts, directory_schema, "file.directory")
   local rerr
   if not oerr and o.recurse and not (o.mode or o.owner or o.group) then
      rerr = "recurse = true gives mode, owner or group to what is below: give one of them"
   end
   local msg = args.join("file.directory", err, oerr, rerr)
   if msg then return core.invalid(desc, msg) end
   local a = { path = path, mode = o.mode, owner = o.owner, group = o.group,
               recurse = o.recurse, hardlinks = o.hardlinks, purge = o.purge }
   local claims = { claim.file_directory(path) }
   if o.purge then
      claims[2] = claim.file_purged(path)
      desc = "directory " .. path .. " holds only what the site declares"
   end
   return core.leaf{ desc = desc, impl = impl.directory, args = a,
                     claims = ownership_claims(claims, path, o),
                     norevert = o.purge and "file.directory with purge = true has no revert "
                        .. "action: what a purge removed is gone"
                        or "file.directory has no revert action: removing a directory "
                 .. "would remove whatever else was put in it" }
end

--[[ file.absent(path)
  UnixLike, not revertable.
  Claims: file.absent path.
  Run time: removes a file, a link (not what it points to) or an empty
  directory; a directory that is not empty is a failure, never removed
  recursively.  Nothing there: ok.
  Example:
    file.absent("/etc/cron.daily/popularity-contest")
]]
function file.absent(path, opts)
   local desc = "file " .. (type(path) == "string" and path or "?") .. " absent"
   local msg = args.join("file.absent", args.abs_path(path, "path"),
                         (args.options(opts, {}, "file.absent")))
   if msg then return core.invalid(desc, msg) end
   return core.leaf{ desc = desc, impl = impl.absent, args = { path = path },
                     claims = { claim.file_absent(path) },
                     norevert = "file.absent has no revert action: the removed file's content is not known" }
end

-- A link's target: any path, but one that a link can hold.
local function check_target(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   if v:find("\0", 1, true) or v:find("\n", 1, true) then
      return fmt("%s %s contains a NUL or newline character", what, args.show(v))
   end
   return nil, v
end

--[[ file.symlink(link, target)
  UnixLike, not revertable.
  Claims: file.symlink link = target.  link is absolute; target is any
  non-empty path, relative targets are relative to the link's directory.
  Run time: makes the link, or repoints a link that points elsewhere
  (atomically).  A file or directory at link is a failure: prop replaces
  only a link.  The target need not exist.
  Example:
    file.symlink("/etc/nginx/sites-enabled/site", "../sites-available/site")
]]
function file.symlink(link, target, opts)
   local desc = "symlink " .. (type(link) == "string" and link or "?") .. " -> "
      .. (type(target) == "string" and target or "?")
   local err = args.check_all(args.abs_path, link, "link", check_target, target, "target")
   local msg = args.join("file.symlink", err, (args.options(opts, {}, "file.symlink")))
   if msg then return core.invalid(desc, msg) end
   return core.leaf{ desc = desc, impl = impl.symlink, args = { link = link, target = target },
                     claims = { claim.file_symlink(link, target) },
                     norevert = "file.symlink has no revert action: what was at the link's path before is not known" }
end

--[[ file.mode(path, mode [, { hardlinks = true, recurse = true }])
  UnixLike, not revertable.
  Claims: file.mode path = mode, normalised to four digits ("644" -> "0644").
  Run time: chmod when the mode differs.  A missing path, or a symlink
  (name the file it points to), is a failure.  In a tree (a chroot,
  connect.dir), a regular file with more than one hard link is refused:
  its other names may be outside the tree, and chmod changes them all.
  hardlinks = true changes it all the same.  On the host itself every
  name is on the host, and the file is changed.
  recurse = true: when path is a directory, every entry below it (listed
  by find on the target: a connect.dir tree fails) is made to match;
  symlinks are neither followed nor changed; a directory below gets x
  wherever the mode has r.  A converged run changes nothing.
  Example:
    file.mode("/etc/shadow", "0640")
]]
local hardlinks_schema = { hardlinks = args.boolean, recurse = args.boolean }

function file.mode(path, mode, opts)
   local desc = "file " .. (type(path) == "string" and path or "?") .. " has mode "
      .. (type(mode) == "string" and mode or "?")
   local err, v = args.check_all(args.abs_path, path, "path", args.mode, mode, "mode")
   local oerr, o = args.options(opts, hardlinks_schema, "file.mode")
   local msg = args.join("file.mode", err, oerr)
   if msg then return core.invalid(desc, msg) end
   desc = "file " .. v[1] .. " has mode " .. v[2]
   return core.leaf{ desc = desc, impl = impl.mode,
                     args = { path = v[1], mode = v[2], hardlinks = o.hardlinks,
                              recurse = o.recurse },
                     claims = { claim.file_mode(v[1], v[2]) },
                     norevert = "file.mode has no revert action: the old mode is not known" }
end

--[[ file.owner(path, user [, group] [, { hardlinks = true, recurse = true }])
  UnixLike, not revertable.
  Claims: file.owner path = "user:group" (group may be empty: unchanged).
  Run time: chown when the owner (or group) differs, by name or number as
  given.  A missing path, or a symlink, is a failure.  In a tree, a
  regular file with more than one hard link is refused unless
  hardlinks = true, as for file.mode; recurse = true as for file.mode.
  Example:
    file.owner("/srv/www", "www-data", "www-data")
]]
function file.owner(path, user, group, opts)
   local desc = fmt("file %s owned by %s", type(path) == "string" and path or "?",
                    (type(user) == "string" or math.type(user) == "integer") and user or "?")
   if type(group) == "table" and opts == nil then group, opts = nil, group end
   local err, v = args.check_all(args.abs_path, path, "path", check_account, user, "user")
   local gerr, g = nil, ""
   if group ~= nil then gerr, g = check_account(group, "group") end
   local oerr, o = args.options(opts, hardlinks_schema, "file.owner")
   local msg = args.join("file.owner", err, gerr, oerr)
   if msg then return core.invalid(desc, msg) end
   if g ~= "" then desc = desc .. ":" .. g end
   return core.leaf{ desc = desc, impl = impl.owner,
                     args = { path = v[1], owner = v[2], group = group and g,
                              hardlinks = o.hardlinks, recurse = o.recurse },
                     claims = { claim.file_owner(v[1], v[2] .. ":" .. g) },
                     norevert = "file.owner has no revert action: the old owner is not known" }
end

-- Fragments -----------------------------------------------------------
--
-- A file built from parts that several properties (several roles of a
-- host) give: file.fragment puts one part in it, file.fragments owns it
-- and assembles the parts.  At run time both find the parts with
-- sys:claims(path): each fragment's leaf args hold its name, order and
-- text.

impl.fragments, impl.fragment = {}, {}

local FRAGMENT_ORDER = 50
local CHECK_COPY = "a copy checked before it replaces the file"

-- A text: a string, or a list of lines (joined with "\n"); it ends with
-- a newline in the file (one is added when it lacks it).
local function check_text(v, what)
   if type(v) == "table" then
      local err, lines = args.string_list(v, what, { single = false, nonempty = true })
      if err then return err end
      v = concat(lines, "\n")
   elseif type(v) ~= "string" then
      return fmt("%s must be a string or a list of lines, got %s", what, args.got(v))
   end
   if v == "" then return fmt("%s must not be empty", what) end
   if v:find("\0", 1, true) then return fmt("%s must not contain a NUL byte", what) end
   if v:sub(-1) ~= "\n" then v = v .. "\n" end
   return nil, v
end

local function check_fragment_name(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   if v:find("[%z\n]") then
      return fmt("%s %s must not contain a newline or NUL byte", what, args.show(v))
   end
   return nil, v
end

local function check_order(v, what)
   if math.type(v) ~= "integer" and not (type(v) == "number" and v == math.floor(v)) then
      return fmt("%s must be an integer (fragments are sorted by order, then name), got %s",
                 what, args.got(v))
   end
   v = math.tointeger(v)
   if v == nil or v < -99999999 or v > 99999999 then
      return fmt("%s must be within -99999999..99999999", what)
   end
   return nil, v
end

-- The fragments of path, as its file.fragment leaves gave them: their
-- args, sorted by (order, name); a name given twice counts once.
local function fragments_of(sys, what, path)
   local parts, seen = {}, {}
   for _, c in ipairs(sys:claims(path)) do
      if c.kind == "file.fragment" and c.key == path then
         local f = c.args
         if type(f) ~= "table" or type(f.text) ~= "string" or type(f.name) ~= "string" then
            R.fail("%s: %s: \"%s\" gives a fragment that is not file.fragment's (it has no "
                   .. "name and text)", what, path, tostring(c.desc))
         end
         if not seen[f.name] then
            seen[f.name] = true
            parts[#parts + 1] = f
         end
      end
   end
   table.sort(parts, function(x, y)
      if x.order ~= y.order then return x.order < y.order end
      return x.name < y.name
   end)
   return parts
end

-- The text of the file: the header, then each fragment's text.  What the
-- site claims does not change during a run: it is assembled once per
-- host per run (kept in sys.cache), not once per fragment.
local function assembled(sys, a)
   local key = "file.fragments " .. a.path
   local text = sys.cache[key]
   if text then return text end
   local out = { a.header }
   for _, f in ipairs(fragments_of(sys, "file.fragments", a.path)) do
      out[#out + 1] = f.text
   end
   text = concat(out)
   sys.cache[key] = text
   return text
end

-- Makes a.path (a file.fragments' args) the assembled text, checked by
-- a.validate first when given; whether anything changed.
local function ensure_assembled(sys, what, a)
   local text = assembled(sys, a)
   local st = sys:stat(a.path)
   if st and st.type ~= "file" and st.type ~= "link" then
      R.fail("%s: %s is a %s, not a regular file", what, a.path,
             st.type == "other" and "device, socket or pipe" or st.type)
   end
   if st == nil or st.type == "link" or sys:read(a.path) ~= text then
      write_checked(sys, what, a.validate, a.path, text,
                    { mode = R.mode_number(a.mode), owner = a.owner, group = a.group })
      return true
   end
   local fix = R.attrs_to_fix(st, a)
   if fix then
      sys:chattr(a.path, fix)
      return true
   end
   return false
end

function impl.fragments.ensure(sys, a)
   return result(ensure_assembled(sys, "file.fragments", a))
end

-- A fragment makes the whole file true as its owner does (so that the
-- order of the roles does not matter): the owner's args are found with
-- sys:claims; the file then holds this fragment's text among the others.
local function assembler_of(sys, path)
   local key = "file.fragments of " .. path
   local c = sys.cache[key]
   if c then return c end
   for _, e in ipairs(sys:claims(path)) do
      if e.kind == "file.fragments" and e.key == path then
         sys.cache[key] = e
         return e
      end
   end
   return nil
end

function impl.fragment.ensure(sys, a)
   local c = assembler_of(sys, a.path)
   if c == nil then
      R.fail("file.fragment %s: no file.fragments(\"%s\") on this host assembles the file",
             a.path, a.path)
   end
   if type(c.args) ~= "table" or c.args.assembler ~= "file.fragments" then
      R.fail("file.fragment %s: \"%s\" assembles this file, not file.fragments: add to it "
             .. "with its own recipe", a.path, tostring(c.desc))
   end
   return result(ensure_assembled(sys, "file.fragment " .. a.name, c.args))
end

local fragment_schema = { order = check_order }

--[[ file.fragment(path, name, text [, { order = 50 }])
  UnixLike, not revertable (removing it from the site is its revert: the
  next run's file.fragments leaves it out).
  One part of a file that file.fragments(path) assembles: several
  properties (several roles of one host) each add theirs.
  Claims: file.fragment path, with its name, order and text; file.generated
  path.prop-check (the copy a validate of file.fragments checks).  Two
  fragments of one name with different text or order are P007; the same
  fragment given twice (two roles alike) is one.  A fragment of a path
  without file.fragments on the host is P012; a fragment and a fixed
  content (file.has_content, a template) of one path are P007.
  name: the fragment's name (no newline); text: a string or a list of
  lines, put in the file ending with a newline.  order: an integer
  (default 50); the file holds its fragments sorted by order, then name.
  Run time: finds its file.fragments with sys:claims and makes the whole
  file what that assembles (the same bytes, the same validate), so it
  is ok when the file already is; it never writes anything else.
  Example:
    file.fragment("/etc/hosts", "db", "10.0.0.5 db.internal", { order = 20 })
]]
function file.fragment(path, name, text, opts, ...)
   local desc = fmt("file %s has fragment %s", type(path) == "string" and path or "?",
                    type(name) == "string" and name or "?")
   local err, v = args.check_all(args.abs_path, path, "path", check_fragment_name, name, "name",
                                 check_text, text, "text")
   local oerr, o = args.options(opts, fragment_schema, "file.fragment")
   local xerr = select("#", ...) > 0
      and "takes (path, name, text [, { order = }]): too many arguments" or nil
   local msg = args.join("file.fragment", err, oerr, xerr)
   if msg then return core.invalid(desc, msg) end
   local a = { path = v[1], name = v[2], text = v[3], order = o.order or FRAGMENT_ORDER }
   -- It writes the whole file as file.fragments does, and so the copy
   -- that file.fragments' validate checks.
   return core.leaf{ desc = desc, impl = impl.fragment, args = a,
                     claims = { claim.file_fragment(a.path, fmt("%s\n%d\n%s", a.name, a.order,
                                                                a.text)),
                                claim.file_generated(a.path .. ".prop-check", CHECK_COPY) },
                     norevert = "file.fragment has no revert action: leave it out of the site "
                        .. "and file.fragments drops it from the file" }
end

-- What an assembler makes besides its fragments, in words: the value of
-- its claim (two file.fragments of one path that differ are P007).
local function fragments_summary(a)
   local parts = { "file.fragments" }
   if a.header then parts[#parts + 1] = "header \"" .. a.header:gsub("\n", "\\n") .. "\"" end
   if a.validate then parts[#parts + 1] = "validate " .. R.show_argv(a.validate) end
   return concat(parts, " ")
end

local fragments_schema = {
   header = check_text, mode = args.mode, owner = check_account, group = check_account,
   validate = function(v, what) return check_validate(v, what) end,
}

--[[ file.fragments(path [, { header =, mode =, owner =, group =, validate = }])
  UnixLike, revertable: its revert removes the file.
  Owns path, and writes it assembled from the host's file.fragment(path,
  ...): header first, then each fragment's text, sorted by order (default
  50), then name.  A fragment left out of the site leaves the file at the
  next run.
  Claims: file.fragments path (two different ones of one path are P007);
  file.mode / file.owner when given; path.prop-check with validate.  The
  revert claims file.absent path.
  header: a text put first (a string or a list of lines), such as
  "# managed by prop".  validate: an argv holding "%s", as
  file.has_content's: the assembled text goes to PATH.prop-check first,
  the command runs on it, and only when it exits 0 is path written; else
  the file is left as it was and the property fails with what the
  command said.
  Run time: finds the fragments with sys:claims(path), and writes the
  file atomically when its bytes differ from the assembled text (ok only
  when they are equal), then sets mode/owner/group when they differ.  A
  new file without mode is 0644.  A directory at path fails.
  Example:
    file.fragments("/etc/sudoers.d/roles", { header = "# managed by prop",
                   mode = "0440", validate = { "visudo", "-c", "-f", "%s" } })
]]
function file.fragments(path, opts, ...)
   local desc = "file " .. (type(path) == "string" and path or "?") .. " assembled from fragments"
   local err = args.abs_path(path, "path")
   local oerr, o = args.options(opts, fragments_schema, "file.fragments")
   local xerr = select("#", ...) > 0
      and "takes (path [, { header =, mode =, owner =, group =, validate = }]): too many "
         .. "arguments" or nil
   local msg = args.join("file.fragments", err, oerr, xerr)
   if msg then return core.invalid(desc, msg) end
   local a = { assembler = "file.fragments", path = path, header = o.header or "",
               mode = o.mode, owner = o.owner, group = o.group, validate = o.validate }
   local claims = ownership_claims({ claim.file_fragments(path, fragments_summary(o)) }, path, o)
   if a.validate then
      claims[#claims + 1] = claim.file_generated(path .. ".prop-check", CHECK_COPY)
   end
   local on = core.leaf{ desc = desc, impl = impl.fragments, args = a, claims = claims }
   local off = core.leaf{ desc = "file " .. path .. " absent (fragments reverted)",
                          impl = impl.absent, args = { path = path },
                          claims = { claim.file_absent(path) } }
   return core.pair(on, off)
end

--[[ file.downloaded(path, url, { sha256=, owner=, group=, mode= })
  See prop.download (lua/prop/download.lua): sha256 is required.
]]
function file.downloaded(path, url, opts)
   return require("prop.download").downloaded(path, url, opts)
end

return args.strict_module(file, "file")
