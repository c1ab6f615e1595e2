-- prop.download: file.downloaded, a file fetched from a URL and checked
-- against its SHA-256.
--
-- The target fetches it itself (curl, else wget) into a temporary file
-- beside the destination, its checksum is checked there, and it is
-- renamed into place; a target that has neither, or cannot reach the
-- URL, gets the bytes fetched on this machine (curl) and sent through the
-- transport.  A checksum that does not match writes nothing.

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local R = require "prop.runtime"

local M = {}

local fmt = string.format

local impl = { downloaded = {} }

-- path's SHA-256 on the target: sha256sum there, else the file read back
-- and hashed here (a tree of files, a target without coreutils).
local function target_sha256(sys, path)
   local ok, r = pcall(sys.query, sys, { "sha256sum", "--", path })
   if ok and r.code == 0 then
      local h = (r.stdout or ""):match("^\\?(%x+)")
      if h and #h == 64 then return h:lower() end
   end
   return core.sha256(sys:read(path))
end

-- Which of curl and wget the target runs (nil: neither, or commands do
-- not run there at all).
local function fetcher(sys)
   for _, tool in ipairs({ "curl", "wget" }) do
      local ok, r = pcall(sys.query, sys, { tool, "--version" })
      if ok and r.code == 0 then return tool end
   end
   return nil
end

local function remove_quietly(sys, path)
   pcall(sys.run, sys, { "rm", "-f", "--", path }, R.any)
end

local function attrs(a)
   return { mode = R.mode_number(a.mode or "0644"), owner = a.owner, group = a.group }
end

-- Fetched by the target into tmp, checked, renamed: true when done, false
-- when the target could not fetch it (the caller fetches it here).
local function fetch_on_target(sys, a, what, tool)
   local tmp = a.path:gsub("/([^/]*)$", "/.%1.prop-download")
   local argv
   if tool == "curl" then
      argv = { "curl", "-fsSL", "--proto", "=http,https,ftp", "-o", tmp, "--url", a.url }
   else
      argv = { "wget", "-q", "-O", tmp, "--", a.url }
   end
   local r = sys:run(argv, R.any)
   if r.code ~= 0 then
      remove_quietly(sys, tmp)
      sys:note(fmt("the target could not fetch %s with %s (exit %d): fetched here instead",
                   a.url, tool, r.code))
      return false
   end
   local got = target_sha256(sys, tmp)
   if got ~= a.sha256 then
      remove_quietly(sys, tmp)
      R.fail("%s: the SHA-256 of %s is %s, not the expected %s; nothing was written", what,
             a.url, got, a.sha256)
   end
   local at = attrs(a)
   R.run(sys, what, { "chmod", fmt("%04o", at.mode), "--", tmp })
   if a.owner or a.group then
      R.run(sys, what, { "chown", (a.owner or "") .. (a.group and ":" .. a.group or ""), "--", tmp })
   end
   R.run(sys, what, { "mv", "-f", "--", tmp, a.path })
   return true
end

function impl.downloaded.ensure(sys, a)
   local what = "file.downloaded " .. a.path
   local st = sys:stat(a.path)
   if st and st.type ~= "file" then
      R.fail("%s: %s is a %s, not a regular file", what, a.path, st.type)
   end
   if st and target_sha256(sys, a.path) == a.sha256 then
      local fix = R.attrs_to_fix(st, a)
      if not fix then return "ok" end
      sys:chattr(a.path, fix)
      return "changed"
   end
   if sys.dry then
      sys:note(fmt("would download %s to %s", a.url, a.path))
      return "changed"
   end
   local tool = fetcher(sys)
   if tool and fetch_on_target(sys, a, what, tool) then return "changed" end
   local bytes, err = core.fetch_url(a.url)
   if bytes == nil then R.fail("%s: cannot fetch %s: %s", what, a.url, err) end
   local got = core.sha256(bytes)
   if got ~= a.sha256 then
      R.fail("%s: the SHA-256 of %s is %s, not the expected %s; nothing was written", what,
             a.url, got, a.sha256)
   end
   sys:write(a.path, bytes, attrs(a))
   return "changed"
end

-- The content's checksum, which is also what shows the file is right.
function impl.downloaded.verify(sys, a)
   local st = sys:stat(a.path)
   if not st then return false, a.path .. " is missing" end
   local got = target_sha256(sys, a.path)
   if got ~= a.sha256 then return false, fmt("SHA-256 %s, want %s", got, a.sha256) end
   return true
end

local function check_account(v, what)
   if math.type(v) == "integer" and v >= 0 then return nil, tostring(v) end
   return args.matching(v, what, "[%w_][%w_.-]*", "a user or group name, or a number")
end

local schema = {
   sha256 = function(v, what)
      if type(v) ~= "string" or not v:find("^%x+$") or #v ~= 64 then
         return fmt("%s must be the file's SHA-256, 64 hex digits (sha256sum FILE), got %s",
                    what, args.show(v))
      end
      return nil, v:lower()
   end,
   owner = check_account, group = check_account, mode = args.mode,
}

local function check_url(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   if not v:find("^https?://[^%s]+$") and not v:find("^ftp://[^%s]+$") then
      return fmt("%s %s must be an http://, https:// or ftp:// URL without blanks", what,
                 args.show(v))
   end
   return nil, v
end

-- The path a file.downloaded property downloads to, read from the
-- property itself (its file.generated claim, whose value names the URL and
-- the checksum), or nil for any other value.  Not a table kept beside the
-- properties: a recipe call equal to an earlier one may be served by
-- making the earlier call's nodes again, without running the recipe.
function M.path_of(v)
   if not core.is_property(v) or v.kind ~= "property" or v.paired then return nil end
   local desc = v.desc
   if type(desc) ~= "string" or not desc:find("^file .* downloaded$") then return nil end
   local claims = v.claims
   local c = claims[1]
   if c and c.kind == "file.generated" and type(c.value) == "string"
      and c.value:find(" %(sha256 %x+%)$") and desc == "file " .. c.key .. " downloaded" then
      return c.key
   end
   return nil
end

function M.downloaded(path, url, opts)
   local desc = "file " .. (type(path) == "string" and path or "?") .. " downloaded"
   local err, v = args.check_all(args.abs_path, path, "path", check_url, url, "url")
   local oerr, o = args.options(opts, schema, "file.downloaded")
   local serr
   if not oerr and o.sha256 == nil then
      serr = "sha256 is required: the file's SHA-256 (sha256sum FILE), so that what is "
         .. "downloaded is what was meant"
   end
   local msg = args.join("file.downloaded", err, oerr, serr)
   if msg then return core.invalid(desc, msg) end
   local a = { path = v[1], url = v[2], sha256 = o.sha256, owner = o.owner, group = o.group,
               mode = o.mode }
   local claims = { claim.file_generated(a.path, fmt("%s (sha256 %s)", a.url, a.sha256)) }
   if o.mode then claims[#claims + 1] = claim.file_mode(a.path, o.mode) end
   if o.owner or o.group then
      claims[#claims + 1] = claim.file_owner(a.path, (o.owner or "") .. ":" .. (o.group or ""))
   end
   local node = core.leaf{ desc = desc, impl = impl.downloaded, args = a, claims = claims,
                           norevert = "file.downloaded has no revert action: what was at the "
                              .. "path before is not known" }
   return node
end

return M
