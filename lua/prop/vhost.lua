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

-- purge_sites = true of the server's installed recipe: every entry of
-- the "-enabled" directory a.dir that no property of the host claims is
-- removed (prop.purge); then the configuration is tested (a refusal puts
-- the links and files back and fails) and the running server reloaded,
-- only when something was removed.  Whether anything was.
function V.purge_enabled(sys, a)
   local P = require "prop.purge"
   local st = sys:stat(a.dir)
   if st == nil and sys.dry then
      sys:note(fmt("%s would be purged once %s is installed (%s is missing)", a.dir,
                   a.service, a.dir))
      return false
   end
   local stale = P.unclaimed(sys, a.what, a.dir)
   if #stale == 0 then return false end
   local undo = {}
   for _, p in ipairs(stale) do
      local pst = sys:stat(p)
      if pst and pst.type ~= "directory" then undo[#undo + 1] = { p, save(sys, a.what, p) } end
   end
   P.purge(sys, a.what, a.dir)
   if sys.dry then
      sys:note(fmt("the new configuration would be tested with %s", R.show_argv(a.test)))
   else
      test_or_undo(sys, a, undo, "the stale sites removed")
   end
   reload(sys, a)
   return true
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

-- ---------------------------------------------------------------------
-- Probes: the site is served, by the server, from the site itself.

-- The address a listener is reached on from the target: a wildcard is
-- its loopback.
local function reach(addr)
   if addr == nil or addr == "*" or addr == "0.0.0.0" or addr == "" or addr == "localhost" then
      return "127.0.0.1"
   end
   if addr == "[::]" or addr == "[::1]" then return "::1" end
   return (addr:gsub("^%[(.*)%]$", "%1"))
end

-- What a site's configuration says of where it is served, by server:
-- parse(content) -> { listens = { { addr =, port =, tls =, default = } },
-- names = { ... } } (names: the exact ones, no wildcard or pattern).
V.parsers = {}

function V.parsers.nginx(content)
   local text = content:gsub("#[^\n]*", "")
   local listens, names = {}, {}
   for spec in text:gmatch("%f[%w_]listen%s+([^;]*);") do
      local words = {}
      for w in spec:gmatch("%S+") do words[#words + 1] = w end
      local first = words[1] or ""
      local addr, port
      if first:find("^%d+$") then
         port = tonumber(first)
      elseif not first:find("^unix:") then
         addr, port = first:match("^(.*):(%d+)$")
         if not addr then addr, port = first, 80 end
         port = tonumber(port)
      end
      local l = port and { addr = reach(addr), port = port, tls = false, default = false }
      for i = 2, #words do
         if not l then break end
         if words[i] == "ssl" then l.tls = true
         elseif words[i] == "default_server" or words[i] == "default" then l.default = true
         elseif words[i] == "quic" then l = nil end
      end
      if l then listens[#listens + 1] = l end
   end
   for spec in text:gmatch("%f[%w_]server_name%s+([^;]*);") do
      for w in spec:gmatch("%S+") do
         if w ~= "_" and w ~= '""' and not w:find("[*~$]") then names[#names + 1] = w end
      end
   end
   if #listens == 0 and text:find("%f[%w_]server%s*{") then
      listens[1] = { addr = "127.0.0.1", port = 80, tls = false, default = false }
   end
   return { listens = listens, names = names }
end

function V.parsers.apache2(content)
   local listens, names = {}, {}
   for specs, body in content:gmatch("<[Vv]irtual[Hh]ost%s+([^>]*)>(.-)</[Vv]irtual[Hh]ost>") do
      local tls = body:find("\n%s*SSLEngine%s+[Oo]n") ~= nil
      for spec in specs:gmatch("%S+") do
         local addr, port = spec:match("^(.*):(%d+)$")
         if not addr then addr, port = spec, (tls and 443 or 80) end
         listens[#listens + 1] = { addr = reach(addr), port = tonumber(port), tls = tls,
                                   default = false }
      end
      for n in body:gmatch("\n%s*ServerName%s+(%S+)") do
         names[#names + 1] = (n:gsub("^https?://", ""):gsub(":%d+$", ""))
      end
      for list in body:gmatch("\n%s*ServerAlias%s+([^\n]+)") do
         for w in list:gmatch("%S+") do
            if not w:find("[*?]") then names[#names + 1] = w end
         end
      end
   end
   return { listens = listens, names = names }
end

-- Whether the site (a.enabled) is the server's default one for port: the
-- one that answers a name no site has.  By server; false when it cannot
-- be told (the answers are then compared).
V.is_default = {}

-- nginx -T: the configuration from disk, each file after "# configuration
-- file PATH:".  The default for a port is the file whose listen says
-- default_server, else the first file listening there.
function V.is_default.nginx(sys, a, port)
   local r = sys:query { "nginx", "-T", "-q" }
   if r.code ~= 0 then return false end
   local first, marked, path
   for line in r.stdout:gmatch("[^\n]+") do
      local file = line:match("^# configuration file (.-):$")
      if file then
         path = file
      else
         line = line:gsub("#.*", "")
         for spec in line:gmatch("%f[%w_]listen%s+([^;]*);") do
            local p = spec:match("^%S*:(%d+)") or spec:match("^(%d+)")
                      or (not spec:find("^unix:") and "80")
            if tonumber(p) == port and path then
               first = first or path
               if spec:find("%f[%w_]default_server%f[^%w_]") then marked = marked or path end
            end
         end
      end
   end
   local def = marked or first
   return def ~= nil and (def == a.enabled or def == a.available)
end

-- apache2ctl -S: each address's "default server NAME (FILE:LINE)", or the
-- one virtual host of an address as "ADDR:PORT NAME (FILE:LINE)".
function V.is_default.apache2(sys, a, port)
   local r = sys:query { "apache2ctl", "-S" }
   if r.code ~= 0 then return false end
   local cur
   for line in r.stdout:gmatch("[^\n]+") do
      local p = line:match("^%S*:(%d+)%s")
      if p then
         cur = tonumber(p)
         local file = line:match("^%S+%s+%S+%s+%(([^:]+):%d+%)%s*$")
         if cur == port and file then return file == a.enabled or file == a.available end
      elseif cur == port then
         local file = line:match("^%s+default server %S+ %(([^:]+):%d+%)")
         if file then return file == a.enabled or file == a.available end
      end
   end
   return false
end

-- verify of a site: its port answers HTTP for its first name (a TLS-only
-- site: its port takes a connection), and, unless it is the server's
-- default for that port, not as a name no site has is answered (the
-- default server's answer: the site is not loaded).  Nothing to probe in
-- a tree or where no daemon runs.
function V.verify_site(sys, a)
   if R.is_dir_tree(sys) or R.no_daemons(sys) then return true end
   local parse = V.parsers[a.service]
   local conf = parse and parse(a.content or "")
   if not conf or #conf.listens == 0 then return true end
   local l
   for _, x in ipairs(conf.listens) do
      if not x.tls and (l == nil or (l.addr:find(":") and not x.addr:find(":"))) then l = x end
   end
   if l == nil then
      l = conf.listens[1]
      local ok, why = sys:tcp { host = l.addr, port = l.port, framing = "connect", timeout = 2 }
      if ok then return true end
      return false, fmt("%s takes no connection on %s port %d (the site's TLS port): %s",
                        a.service, l.addr, l.port, why)
   end
   local name = conf.names[1]
   local where = fmt("GET http://%s:%d/ with Host %s", l.addr:find(":") and "[" .. l.addr .. "]"
                     or l.addr, l.port, name or "localhost")
   local st, h, body = sys:http { host = l.addr, port = l.port, name = name or "localhost",
                                  timeout = 2 }
   if not st then return false, fmt("%s: %s", where, h) end
   if not name or l.default or V.is_default[a.service](sys, a, l.port) then return true end
   local st2, _, body2 = sys:http { host = l.addr, port = l.port, name = "prop-probe.invalid",
                                    timeout = 2 }
   if st2 == st and body2 == body then
      return false, fmt("%s: answered %d with %d bytes, as a name no site has is answered (the "
                        .. "default server's answer): %s does not serve the site", where, st,
                        #body, a.service)
   end
   return true
end

-- repair of a site: a stopped server is started; a running one reloaded,
-- and restarted when that is not enough (it runs a configuration that is
-- not the one on disk).
function V.repair_site(sys, a)
   if not R.service_is_running(sys, a.service) then
      R.service_do(sys, a.service, "start")
      sys:note(a.service .. " started: the site was not served")
      return
   end
   reload(sys, a)
   if V.verify_site(sys, a) then return end
   R.service_do(sys, a.service, "restart")
   sys:note(a.service .. " restarted: a reload did not make it serve the site")
end

return V
