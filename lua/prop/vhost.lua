-- prop.vhost: what the web server recipes (nginx, apache) share at run
-- time: a configuration file in a "-available" directory enabled by a
-- symlink in the matching "-enabled" one, tested by the server's own
-- configuration check before the server is reloaded.  Not a recipe
-- module: it makes no properties.
--
-- A change is made in place, then tested; when the test fails, every
-- file the change touched is put back as it was and the property fails
-- with what the server said, so a broken configuration never stays
-- installed and the running server is never reloaded with it.

local R = require "prop.runtime"

local V = {}

local fmt = string.format

-- What a path is now, to put it back: nil (missing), or
-- { link = target } or { content = bytes, mode = n }.
local function save(sys, what, path)
   local st = sys:stat(path)
   if st == nil then return nil end
   if st.type == "link" then return { link = st.target } end
   if st.type == "file" then return { content = sys:read(path), mode = st.mode } end
   R.fail("%s: %s is a %s; a file or a symlink was expected there", what, path,
          st.type == "other" and "special file" or st.type)
end

local function restore(sys, path, saved)
   if saved == nil then
      if sys:stat(path) then sys:remove(path) end
   elseif saved.link then
      sys:symlink(saved.link, path)
   else
      sys:write(path, saved.content, { mode = saved.mode })
   end
end

-- The server's configuration test; on failure, undo (a list of
-- { path, saved }) and fail with its output.
local function test_or_undo(sys, a, undo, doing)
   local r = R.query(sys, a.what, a.test)
   if r.code == 0 then return end
   for i = #undo, 1, -1 do restore(sys, undo[i][1], undo[i][2]) end
   local out = R.tail(r.stderr ~= "" and r.stderr or r.stdout, 8)
   R.fail("%s: %s refused the configuration with %s, so it was put back as it was "
          .. "(%s is still running the previous one):\n%s", a.what, R.show_argv(a.test), doing,
          a.service, out)
end

-- How a server's reload is known to have taken effect, by service name:
-- { before = function(sys) -> token or nil, after = function(sys, token) }.
-- A reload only asks the server to read its configuration again; after
-- raises unless the server has taken it, so that "reloaded" means the new
-- configuration is served.  Set by the recipe of the server.
V.reload_awaits = {}

-- The server reloads its configuration when it is running; a stopped
-- server reads it when it starts.
local function reload(sys, a)
   if R.service_is_running(sys, a.service) then
      local await = not sys.dry and V.reload_awaits[a.service]
      local token = await and await.before(sys)
      R.service_do(sys, a.service, a.reload or "reload")
      if token ~= nil and token ~= false then await.after(sys, token) end
      sys:note(fmt("%s %s", a.service, sys.dry and "would be reloaded" or "reloaded"))
   end
end

-- False in a dry run where dir is missing (the server is not installed
-- yet: the property that installs it would have made it).
local function need_dir(sys, a, dir)
   local st = sys:stat(dir)
   if st == nil or st.type ~= "directory" then
      if sys.dry and st == nil then
         sys:note(fmt("%s would be written once %s is installed (%s is missing)",
                      a.available, a.service, dir))
         return false
      end
      R.fail("%s: %s is missing: is %s installed? (%s)", a.what, dir, a.service, a.install)
   end
   return true
end

-- a: { what =, service =, available = path, enabled = path, target =
-- what the link points at, content =, test = argv, install = hint }.
-- Without enabled, only the file is ensured (apache's ports.conf).
function V.ensure_site(sys, a)
   if not need_dir(sys, a, a.available:match("^(.*)/[^/]*$"))
      or (a.enabled and not need_dir(sys, a, a.enabled:match("^(.*)/[^/]*$"))) then
      return "changed"
   end
   local old = save(sys, a.what, a.available)
   local link = a.enabled and save(sys, a.what, a.enabled)
   local same_content = old ~= nil and old.content == a.content
   local same_link = not a.enabled or (link ~= nil and link.link == a.target)
   if same_content and same_link then return "ok" end
   local undo = {}
   if not same_content then
      sys:write(a.available, a.content, { mode = tonumber("0644", 8) })
      undo[#undo + 1] = { a.available, old }
   end
   if not same_link then
      sys:symlink(a.target, a.enabled)
      undo[#undo + 1] = { a.enabled, link }
   end
   if sys.dry then
      sys:note(fmt("the new configuration would be tested with %s", R.show_argv(a.test)))
   else
      test_or_undo(sys, a, undo, not same_content and "the new content" or "the site enabled")
   end
   reload(sys, a)
   return "changed"
end

-- The site's link is gone from the "-enabled" directory; its file in
-- "-available" is kept (as a2dissite does).
function V.ensure_disabled(sys, a)
   local link = save(sys, a.what, a.enabled)
   if link == nil then return "ok" end
   sys:remove(a.enabled)
   if not sys.dry then
      test_or_undo(sys, a, { { a.enabled, link } }, "the site disabled")
   end
   reload(sys, a)
   return "changed"
end

-- A command that changes the configuration (a2enmod), then the test;
-- when the test fails, undo runs and the property fails.
function V.run_tested(sys, a, argv, undo, doing)
   R.run(sys, a.what, argv)
   if sys.dry then
      sys:note(fmt("the new configuration would be tested with %s", R.show_argv(a.test)))
   else
      local r = R.query(sys, a.what, a.test)
      if r.code ~= 0 then
         R.run(sys, a.what, undo)
         R.fail("%s: %s refused the configuration with %s, so it was put back as it was "
                .. "(%s is still running the previous one):\n%s", a.what, R.show_argv(a.test),
                doing, a.service, R.tail(r.stderr ~= "" and r.stderr or r.stdout, 8))
      end
   end
   reload(sys, a)
   return "changed"
end

-- A site or module name: a file name without "/", not starting with "."
-- or "-".
function V.check_name(v, what)
   local args = require "prop.args"
   local err = args.matching(v, what, "[%w_][%w_.@+-]*",
                             'a file name of letters, digits, "_", ".", "@", "+" and "-" '
                             .. '(not starting with "." or "-"), such as "example.org"')
   if err then return err end
   return nil, v
end

return V
