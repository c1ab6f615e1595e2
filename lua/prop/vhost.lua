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

-- ---------------------------------------------------------------------
-- What a site's text says it answers, read when the site is declared:
-- V.declared[server](content) -> { names = { "NAME:PORT", ... },
-- defaults = { PORT, ... }, ports = { PORT, ... } }, or nil and why the
-- text cannot be read (the site is then not checked for clashes, W110).
-- Names are lower-cased; a name given twice is listed once.  Empty text
-- declares nothing.
V.declared = {}

-- The declaration as sorted, duplicate-free lists.
local function declaration(blocks)
   local names, defaults, ports, seen = {}, {}, {}, {}
   local function add(list, v)
      if not seen[list] then seen[list] = {} end
      if not seen[list][v] then
         seen[list][v] = true
         list[#list + 1] = v
      end
   end
   for _, b in ipairs(blocks) do
      for _, p in ipairs(b.ports) do
         add(ports, p)
         for _, n in ipairs(b.names) do add(names, n:lower() .. ":" .. p) end
      end
      for _, p in ipairs(b.defaults) do add(defaults, p) end
   end
   table.sort(ports)
   table.sort(defaults)
   table.sort(names)
   return { names = names, defaults = defaults, ports = ports }
end

-- nginx's text (comments gone) split by braces: the text at the top
-- level outside every block, and the text of each top-level server
-- block without the blocks inside it (location { }: no listen or
-- server_name is allowed there).  Or nil and why not.
local function nginx_servers(text)
   local outside, servers, depth, i, cur = {}, {}, 0, 1, nil
   while true do
      local a, _, c = text:find("([{}])", i)
      local piece = text:sub(i, (a or #text + 1) - 1)
      if depth == 0 then
         outside[#outside + 1] = piece
      elseif depth == 1 and cur then
         cur[#cur + 1] = piece
      end
      if not a then break end
      if c == "{" then
         if depth == 0 and piece:find("%f[%w_]server%s*$") then cur = {} end
         depth = depth + 1
      else
         depth = depth - 1
         if depth < 0 then return nil, 'a "}" closes no block' end
         if depth == 0 and cur then
            servers[#servers + 1] = table.concat(cur, " ")
            cur = nil
         end
      end
      i = a + 1
   end
   if depth ~= 0 then return nil, 'a "{" is not closed' end
   return table.concat(outside, " "), servers
end

-- The port of a listen line's first word; nil for a unix socket.
local function nginx_port(first)
   if first:find("^%d+$") then return tonumber(first) end
   if first:find("^unix:") then return nil end
   return tonumber(first:match(":(%d+)$") or "80")
end

function V.declared.nginx(content)
   local text = content:gsub("#[^\n]*", "")
   local outside, servers = nginx_servers(text)
   if not outside then return nil, servers end
   for _, t in ipairs { outside, table.unpack(servers) } do
      if t:find("%f[%w_]include%s") then
         return nil, "it includes other files (include) where listen or server_name may be, "
            .. "which prop does not read"
      end
   end
   if #servers == 0 then
      -- Empty text (a site to be reverted, say) answers nothing.
      if not text:find("%S") then return declaration({}) end
      return nil, "no server { } block was found in it"
   end
   local blocks = {}
   for _, body in ipairs(servers) do
      local b = { names = {}, ports = {}, defaults = {} }
      local listens = 0
      for spec in body:gmatch("%f[%w_]listen%s+([^;]*);") do
         listens = listens + 1
         if spec:find("%$") then
            return nil, "a listen line holds a variable (listen " .. spec .. ")"
         end
         local port = nginx_port(spec:match("^%S*"))
         if port and (port < 1 or port > 65535) then
            return nil, "a listen line gives a port outside 1..65535 (listen " .. spec .. ")"
         end
         if port then
            b.ports[#b.ports + 1] = port
            if spec:find("%f[%w_]default_server%f[^%w_]") or spec:find("%f[%w_]default%f[^%w_]") then
               b.defaults[#b.defaults + 1] = port
            end
         end
      end
      -- A server without listen listens on 80.
      if listens == 0 then b.ports[1] = 80 end
      for spec in body:gmatch("%f[%w_]server_name%s+([^;]*);") do
         for w in spec:gmatch("%S+") do
            -- "_" and "" name nothing; a regular expression (~) is not a name.
            if w:find("^~") or w == "_" or w == '""' or w == "''" then
               w = nil
            elseif w:find("%$") then
               return nil, "a server_name line holds a variable (server_name " .. spec .. ")"
            end
            if w then b.names[#b.names + 1] = w end
         end
      end
      blocks[#blocks + 1] = b
   end
   return declaration(blocks)
end

function V.declared.apache2(content)
   local text = content:gsub("\n%s*#[^\n]*", "\n"):gsub("^%s*#[^\n]*", "")
   if ("\n" .. text):find("\n%s*[Ii]nclude") then
      return nil, "it includes other files (Include), which prop does not read"
   end
   if ("\n" .. text):find("\n%s*Use%s") then
      return nil, "it uses macros (Use), which prop does not expand"
   end
   local blocks, listen = {}, { names = {}, ports = {}, defaults = {} }
   for spec in ("\n" .. text):gmatch("\n%s*Listen%s+([^\n]+)") do
      if spec:find("%$") then return nil, "a Listen line holds a variable (" .. spec .. ")" end
      local w = spec:match("^%S+") or ""
      local port = tonumber(w:match("^(%d+)$") or w:match(":(%d+)$"))
      if not port or port < 1 or port > 65535 then
         return nil, "a Listen line is not one prop can read (" .. spec .. ")"
      end
      listen.ports[#listen.ports + 1] = port
   end
   blocks[1] = listen
   local found = false
   for specs, body in text:gmatch("<[Vv]irtual[Hh]ost%s+([^>]*)>(.-)</[Vv]irtual[Hh]ost>") do
      found = true
      if specs:find("%$") then return nil, "a <VirtualHost> holds a variable (" .. specs .. ")" end
      local tls = body:find("\n%s*SSLEngine%s+[Oo]n") ~= nil
      local b = { names = {}, ports = {}, defaults = {} }
      for spec in specs:gmatch("%S+") do
         local addr, port = spec:match("^(.*):(%d+)$")
         if not addr then addr, port = spec, (tls and 443 or 80) end
         port = tonumber(port)
         if port < 1 or port > 65535 then
            return nil, "a <VirtualHost> gives a port outside 1..65535 (" .. spec .. ")"
         end
         b.ports[#b.ports + 1] = port
         if addr == "_default_" then b.defaults[#b.defaults + 1] = port end
      end
      for _, d in ipairs { "ServerName", "ServerAlias" } do
         for line in ("\n" .. body):gmatch("\n%s*" .. d .. "%s+([^\n]+)") do
            if line:find("%$") then
               return nil, fmt("a %s line holds a variable (%s %s)", d, d, line)
            end
         end
      end
      for n in ("\n" .. body):gmatch("\n%s*ServerName%s+(%S+)") do
         b.names[#b.names + 1] = (n:gsub("^https?://", ""):gsub(":%d+$", ""))
      end
      for list in ("\n" .. body):gmatch("\n%s*ServerAlias%s+([^\n]+)") do
         for w in list:gmatch("%S+") do b.names[#b.names + 1] = w end
      end
      blocks[#blocks + 1] = b
   end
   if not found then
      if not text:find("%S") then return declaration({}) end
      return nil, "no <VirtualHost> block was found in it"
   end
   return declaration(blocks)
end

-- A site's declaration added to claims (web.name, web.default with
-- server as value); its ports returned (nil when none).  A text read()
-- cannot read is warning W110 at the user's line, naming the site and
-- why: it is then not checked for names or ports another site has.
function V.declare(claims, server, read, content, what, name)
   local core = require "prop.core"
   local d, why = read(content)
   if not d then
      core.warn("W110", fmt("%s %s: prop cannot read which names and ports the site answers, "
                            .. "as %s: it is not checked for a name, default site or port "
                            .. "that another site or service of the host has", what,
                            string.format("%q", name), why))
      return nil
   end
   for _, k in ipairs(d.names) do claims[#claims + 1] = core.claim.web_name(k, server) end
   for _, p in ipairs(d.defaults) do
      claims[#claims + 1] = core.claim.web_default(tostring(p), server)
   end
   return #d.ports > 0 and d.ports or nil
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
   -- Each name a.names gives (web.site's), else the first the text has.
   local names = a.names or { conf.names[1] or false }
   local host = l.addr:find(":") and "[" .. l.addr .. "]" or l.addr
   local default, st2, body2
   for _, name in ipairs(names) do
      local where = fmt("GET http://%s:%d/ with Host %s", host, l.port, name or "localhost")
      local st, h, body = sys:http { host = l.addr, port = l.port, name = name or "localhost",
                                     timeout = 2 }
      if not st then return false, fmt("%s: %s", where, h) end
      if not name or l.default then return true end
      if default == nil then default = V.is_default[a.service](sys, a, l.port) end
      if default then return true end
      if st2 == nil then
         st2, _, body2 = sys:http { host = l.addr, port = l.port, name = "prop-probe.invalid",
                                    timeout = 2 }
      end
      if st2 == st and body2 == body then
         return false, fmt("%s: answered %d with %d bytes, as a name no site has is answered (the "
                           .. "default server's answer): %s does not serve the site", where, st,
                           #body, a.service)
      end
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
