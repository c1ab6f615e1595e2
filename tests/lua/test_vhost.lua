-- prop.vhost: a web server's site, written, tested by the server, put
-- back when refused, and the server reloaded (on a target in memory).
local T = require "check"
local V = prop_module "vhost"
local fakesys = require "fakesys"

local function site(content)
   return { what = "demo.site", service = "demo", install = "demo.installed()",
            available = "/etc/demo/sites-available/s", enabled = "/etc/demo/sites-enabled/s",
            target = "/etc/demo/sites-available/s", content = content, test = { "demo", "-t" } }
end
local function target(o)
   o = o or {}
   local files = { ["/etc/demo/sites-available"] = { type = "directory" },
                   ["/etc/demo/sites-enabled"] = { type = "directory" } }
   for k, v in pairs(o.files or {}) do files[k] = v end
   return fakesys.new { files = files, dry = o.dry, replies = o.replies }
end

-- a new site: written, linked, tested, the running server reloaded
local sys = target()
T.eq(V.ensure_site(sys, site("server a\n")), "changed", "new site: changed")
T.eq(sys.files["/etc/demo/sites-available/s"].content, "server a\n", "new site: the file")
T.eq(sys.files["/etc/demo/sites-available/s"].mode, tonumber("0644", 8), "new site: 0644")
T.eq(sys.files["/etc/demo/sites-enabled/s"], { type = "link", target = "/etc/demo/sites-available/s" },
     "new site: the link")
T.eq({ sys.log[2], sys.log[3], sys.log[4] }, { "demo -t", "service demo status", "service demo reload" },
     "new site: tested, then reloaded")
T.eq(sys.notes, { "demo reloaded" }, "new site: the note")
local n = #sys.log
T.eq(V.ensure_site(sys, site("server a\n")), "ok", "the same site: ok")
T.eq(#sys.log, n, "the same site: neither tested nor reloaded")

-- a stopped server is not reloaded
sys = target { replies = { ["service demo status"] = { code = 3 } } }
T.eq(V.ensure_site(sys, site("x\n")), "changed", "stopped server: changed")
T.eq(sys.log[#sys.log], "service demo status", "stopped server: not reloaded")

-- refused: everything put back
local old = { ["/etc/demo/sites-available/s"] = "server old\n" }
sys = target { files = old, replies = { ["demo -t"] = { code = 1, stderr = "line 1: unknown directive\n" } } }
T.raises(function() V.ensure_site(sys, site("server bad\n")) end,
         "demo.site: demo -t refused the configuration with the new content, so it was put back as it was "
         .. "(demo is still running the previous one):\nline 1: unknown directive", "refused: the message")
T.eq(sys.files["/etc/demo/sites-available/s"].content, "server old\n", "refused: the old content back")
T.eq(sys.files["/etc/demo/sites-enabled/s"], nil, "refused: the new link gone")
T.ok(not sys.log[#sys.log]:find("reload"), "refused: not reloaded")

-- a dry run tests nothing and says so
sys = target { dry = true }
T.eq(V.ensure_site(sys, site("x\n")), "changed", "dry run: changed")
T.eq(sys.notes[1], "the new configuration would be tested with demo -t", "dry run: the note")
T.eq(sys.notes[2], "demo would be reloaded", "dry run: would reload")
T.ok(not sys.files["/etc/demo/sites-available/s"], "dry run: nothing written")

-- without the server's directories
sys = fakesys.new {}
T.raises(function() V.ensure_site(sys, site("x\n")) end,
         "demo.site: /etc/demo/sites-available is missing: is demo installed? (demo.installed())",
         "no server: what is missing")
sys = fakesys.new { dry = true }
T.eq(V.ensure_site(sys, site("x\n")), "changed", "no server, dry run: changed")
T.eq(sys.notes[1], "/etc/demo/sites-available/s would be written once demo is installed "
     .. "(/etc/demo/sites-available is missing)", "no server, dry run: the note")
sys = target { files = { ["/etc/demo/sites-available/s"] = { type = "directory" } } }
T.raises(function() V.ensure_site(sys, site("x\n")) end,
         "demo.site: /etc/demo/sites-available/s is a directory; a file or a symlink was expected there",
         "a directory in the way")

-- the server's reload awaited
local seen = {}
V.reload_awaits.demo = {
   before = function(s) seen[#seen + 1] = "before " .. #s.log; return "token" end,
   after = function(s, token) seen[#seen + 1] = "after " .. token .. " " .. s.log[#s.log] end,
}
sys = target()
V.ensure_site(sys, site("y\n"))
T.eq(seen, { "before 3", "after token service demo reload" }, "await: before the reload and after it")
seen = {}
V.ensure_site(target { dry = true }, site("y\n"))
T.eq(seen, {}, "await: not in a dry run")
V.reload_awaits.demo = { before = function() return nil end, after = function() seen[1] = "after" end }
V.ensure_site(target(), site("y\n"))
T.eq(seen, {}, "await: nothing to wait for")
V.reload_awaits.demo = {
   before = function() return {} end,
   after = function() error("demo did not take it", 0) end,
}
T.raises(function() V.ensure_site(target(), site("y\n")) end, "demo did not take it",
         "await: a reload not taken fails")
V.reload_awaits.demo = nil

-- disabled
sys = target { files = { ["/etc/demo/sites-enabled/s"] = { type = "link", target = "x" } } }
T.eq(V.ensure_disabled(sys, site()), "changed", "disabled: changed")
T.eq(sys.files["/etc/demo/sites-enabled/s"], nil, "disabled: the link gone")
T.eq(V.ensure_disabled(sys, site()), "ok", "disabled again: ok")
sys = target { files = { ["/etc/demo/sites-enabled/s"] = { type = "link", target = "x" } },
               replies = { ["demo -t"] = { code = 1, stderr = "needed\n" } } }
T.raises(function() V.ensure_disabled(sys, site()) end, "refused the configuration with the site disabled",
         "disabled, refused")
T.eq(sys.files["/etc/demo/sites-enabled/s"], { type = "link", target = "x" }, "disabled, refused: the link back")

-- run_tested
sys = target { replies = { ["demo -t"] = { code = 1, stdout = "bad module\n" } } }
T.raises(function() V.run_tested(sys, site(), { "demo-enmod", "m" }, { "demo-dismod", "m" }, "the module") end,
         "refused the configuration with the module, so it was put back as it was (demo is still running "
         .. "the previous one):\nbad module", "run_tested: refused")
T.eq({ sys.log[1], sys.log[2], sys.log[3] }, { "demo-enmod m", "demo -t", "demo-dismod m" },
     "run_tested: undone")
sys = target()
T.eq(V.run_tested(sys, site(), { "demo-enmod", "m" }, { "demo-dismod", "m" }, "the module"), "changed",
     "run_tested: accepted")

-- check_name
T.eq({ V.check_name("example.org", "name") }, { nil, "example.org" }, "check_name")
T.err(V.check_name("../x", "name"), 'name "../x" is not valid', "check_name: a path")
T.err(V.check_name(".hidden", "name"), 'name ".hidden" is not valid', "check_name: a dot first")

-- What a site's text declares, read when the site is declared (P017, W110).
local d = V.declared.nginx([[
# a comment: listen 9999;
server {
  listen 80 default_server;
  listen [::]:80 default_server;
  listen 127.0.0.1:8080;
  listen unix:/run/www.sock;
  server_name WWW.Example.com example.com _ "" ~^(?<u>.+)\.example\.net$;
  location / { include snippets/proxy.conf; listen 1; }
}
server { server_name other.example.com; }
]])
T.eq(d, { names = { "example.com:80", "example.com:8080", "other.example.com:80",
                    "www.example.com:80", "www.example.com:8080" },
          defaults = { 80 }, ports = { 80, 8080 } }, "nginx declared: names, defaults, ports")
local none, why = V.declared.nginx("include sites/*.conf;\n")
T.ok(none == nil and why:find("include", 1, true), "nginx declared: an include")
none, why = V.declared.nginx("server { listen 80; server_name $host; }")
T.ok(none == nil and why:find("variable", 1, true), "nginx declared: a variable")
none, why = V.declared.nginx("server { listen 70000; }")
T.ok(none == nil and why:find("outside 1..65535", 1, true), "nginx declared: a bad port")
none, why = V.declared.nginx("map $a $b { }\n")
T.ok(none == nil and why:find("no server", 1, true), "nginx declared: no server block")
T.eq(V.declared.nginx("server { }"), { names = {}, defaults = {}, ports = { 80 } },
     "nginx declared: no listen is port 80")
d = V.declared.apache2([[
Listen 8443
# <VirtualHost *:9999>
<VirtualHost *:80 [::]:80>
  ServerName http://Shop.example.com:80
  ServerAlias www.shop.example.com *.shop.example.com
</VirtualHost>
<VirtualHost _default_:443>
  ServerName shop.example.com
  SSLEngine on
</VirtualHost>
]])
T.eq(d, { names = { "*.shop.example.com:80", "shop.example.com:443", "shop.example.com:80",
                    "www.shop.example.com:80" },
          defaults = { 443 }, ports = { 80, 443, 8443 } }, "apache declared: names, defaults, ports")
none, why = V.declared.apache2("<VirtualHost *:80>\n  IncludeOptional conf.d/*.conf\n</VirtualHost>\n")
T.ok(none == nil and why:find("Include", 1, true), "apache declared: an Include")
none, why = V.declared.apache2("ServerName localhost\n")
T.ok(none == nil and why:find("no <VirtualHost>", 1, true), "apache declared: no VirtualHost")

T.done()
