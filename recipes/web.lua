-- prop.web: typed web sites.  One value says what a site serves (files,
-- a backend behind a reverse proxy, or a redirect), under which names,
-- on which port, with which certificate; the server's configuration is
-- made from it, nginx's or Apache's, so that the listen lines, the names,
-- the ports the checker sees and the certificate's names are one thing
-- and never kept in step by hand.
--
-- The files are written, tested and reloaded as nginx.site and
-- apache.site do (prop.vhost).

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local V = require "prop.vhost"
local nginx = require "prop.nginx" -- its reload wait (V.reload_awaits.nginx)
local apache = require "prop.apache"
local file = require "prop.file"
local letsencrypt = require "prop.letsencrypt"

local web = {}

local fmt, concat = string.format, table.concat

local SERVERS = {
   nginx = { service = "nginx", install = "nginx.installed()", test = { "nginx", "-t", "-q" },
             available = "/etc/nginx/sites-available/", enabled = "/etc/nginx/sites-enabled/",
             suffix = "", installed = "nginx installed" },
   apache = { service = "apache2", install = "apache.installed()",
              test = { "apache2ctl", "configtest" },
              available = "/etc/apache2/sites-available/", enabled = "/etc/apache2/sites-enabled/",
              suffix = ".conf", relative = "../sites-available/", installed = "apache installed" },
}

local SSL_DIR = "/etc/ssl/prop"
local ACME_ROOT = "/var/www/prop-acme"
local LIVE = "/etc/letsencrypt/live/"

-- ---------------------------------------------------------------------
-- Arguments.

-- A URL as a server's configuration takes it unquoted: no blank, and
-- none of the characters nginx reads as syntax (";" ends a directive, "$"
-- starts a variable, quotes and braces).
local function check_url(v, what)
   return args.matching(v, what, "https?://[%w%-%.:%[%]_~/%%@!&()*+,=]+",
                        'an http:// or https:// URL such as "http://127.0.0.1:8080"')
end

-- A directory the server serves files from, written unquoted in its
-- configuration: an absolute path without blanks or ; { } " ' $ #.
local function check_root(v, what)
   local err, p = args.abs_path(v, what)
   if err then return err end
   local c = p:match("[%s;{}\"'$#]")
   if c then
      return fmt("%s %s must not contain %s: it is written unquoted in the server's "
                 .. "configuration", what, args.show(p), c:find("%s") and "a blank" or '"' .. c .. '"')
   end
   return nil, p
end

local function check_server(v, what)
   if v == "nginx" or v == "apache" then return nil, v end
   if type(v) ~= "string" then
      return fmt('%s must be "nginx" or "apache", got %s', what, args.show(v))
   end
   return fmt('%s %s must be "nginx" or "apache"%s', what, args.show(v),
              args.did_you_mean(v, { nginx = true, apache = true }))
end

-- Raw directives put inside the server block: text, without a NUL.
local function check_extra(v, what)
   local err = args.string(v, what)
   if err then return err end
   if v:find("\0", 1, true) then return fmt("%s contains a NUL character", what) end
   return nil, v
end

-- tls: false, "letsencrypt", or { cert = PEM text or secret, key = secret }.
local function check_tls(v, what)
   if v == false or v == "letsencrypt" then return nil, v end
   if type(v) ~= "table" or core.is_property(v) then
      return fmt('%s must be false, "letsencrypt" or { cert = ..., key = secret "..." }, got %s',
                 what, args.show(v))
   end
   for k in pairs(v) do
      if k ~= "cert" and k ~= "key" then
         return fmt('%s has an unknown key %s (expected cert, key)', what, args.show(k))
      end
   end
   local cert, key = v.cert, v.key
   if cert == nil or key == nil then
      return fmt('%s needs both cert (the certificate, PEM text or a secret) and key (secret "name")',
                 what)
   end
   if not core.is_secret(cert) then
      if type(cert) ~= "string" or not cert:find("-----BEGIN CERTIFICATE-----", 1, true) then
         return fmt("%s.cert must be a certificate in PEM (-----BEGIN CERTIFICATE-----) or a "
                    .. "secret, got %s", what, args.show(cert))
      end
   end
   if not core.is_secret(key) then
      return fmt('%s.key must be a secret (secret "name" from the site\'s store), got %s: a '
                 .. "private key is never written in the site", what,
                 type(key) == "string" and "a string" or args.show(key))
   end
   return nil, { cert = cert, key = key }
end

local schema = {
   root = check_root, proxy = check_url, redirect = check_url, port = args.port,
   tls = check_tls, default = args.boolean, server = check_server, extra = check_extra,
   email = args.email, acme_server = check_url,
}

-- ---------------------------------------------------------------------
-- The names a certificate in PEM covers: its subjectAltName's dNSNames,
-- or its subject's CN when it has none.  Read from the DER.

-- The TLV at pos of der: tag, first byte of content, last byte; nil
-- when it does not fit.
local function tlv(der, pos, last)
   if pos + 1 > last then return nil end
   local tag, len = der:byte(pos), der:byte(pos + 1)
   local start = pos + 2
   if len >= 0x80 then
      local n = len - 0x80
      if n < 1 or n > 3 or start + n - 1 > last then return nil end
      len = 0
      for i = 0, n - 1 do len = len * 256 + der:byte(start + i) end
      start = start + n
   end
   if start + len - 1 > last then return nil end
   return tag, start, start + len - 1
end

-- The children of the constructed TLV spanning [s, e]: a list of
-- { tag, s, e }, nil when malformed.
local function children(der, s, e)
   local out, pos = {}, s
   while pos <= e do
      local tag, cs, ce = tlv(der, pos, e)
      if not tag then return nil end
      out[#out + 1] = { tag, cs, ce }
      pos = ce + 1
   end
   return out
end

local OID_SAN = "\x55\x1d\x11"
local OID_CN = "\x55\x04\x03"

-- The DNS names of the first certificate in pem (lower-cased), or nil and
-- why not.
function web.cert_names(pem)
   local b64 = pem:match("%-%-%-%-%-BEGIN CERTIFICATE%-%-%-%-%-(.-)%-%-%-%-%-END CERTIFICATE%-%-%-%-%-")
   local der = b64 and core.base64_decode((b64:gsub("%s", "")))
   if not der then return nil, "it has no certificate in PEM" end
   local bad = "its certificate is not DER that prop reads"
   local tag, s, e = tlv(der, 1, #der)
   if tag ~= 0x30 then return nil, bad end
   local cert = children(der, s, e)
   if not cert or #cert < 1 or cert[1][1] ~= 0x30 then return nil, bad end
   local tbs = children(der, cert[1][2], cert[1][3])
   if not tbs then return nil, bad end
   local i = 1
   if tbs[1] and tbs[1][1] == 0xa0 then i = 2 end -- version
   -- serial, signature, issuer, validity, subject, subjectPublicKeyInfo
   local subject = tbs[i + 4]
   local names = {}
   for j = i + 6, #tbs do
      if tbs[j][1] == 0xa3 then
         local seq = children(der, tbs[j][2], tbs[j][3])
         local exts = seq and seq[1] and children(der, seq[1][2], seq[1][3])
         for _, x in ipairs(exts or {}) do
            local f = children(der, x[2], x[3])
            if f and f[1] and f[1][1] == 0x06 and der:sub(f[1][2], f[1][3]) == OID_SAN then
               local oct = f[#f]
               local gs = oct[1] == 0x04 and children(der, oct[2], oct[3])
               local list = gs and gs[1] and children(der, gs[1][2], gs[1][3])
               for _, g in ipairs(list or {}) do
                  if g[1] == 0x82 then names[#names + 1] = der:sub(g[2], g[3]):lower() end
               end
            end
         end
      end
   end
   if #names == 0 and subject and subject[1] == 0x30 then
      for _, rdn in ipairs(children(der, subject[2], subject[3]) or {}) do
         for _, atv in ipairs(children(der, rdn[2], rdn[3]) or {}) do
            local f = children(der, atv[2], atv[3])
            if f and f[1] and f[1][1] == 0x06 and der:sub(f[1][2], f[1][3]) == OID_CN and f[2] then
               names[#names + 1] = der:sub(f[2][2], f[2][3]):lower()
            end
         end
      end
   end
   return names
end

-- Whether a certificate name (maybe "*.example.org", which covers one
-- label) covers name.
local function covers(pattern, name)
   if pattern == name then return true end
   local rest = pattern:match("^%*(%..+)$")
   if not rest then return false end
   local first, tail = name:match("^([^.]+)(%..+)$")
   return first ~= nil and tail == rest
end

-- The port of a proxy target on the host itself (127.0.0.0/8, ::1,
-- localhost), which something on the host must provide; nil for another
-- machine.
local function loopback_port(u)
   local scheme, hostport = u:match("^(https?)://([^/]+)")
   if not hostport then return nil end
   local host, port = hostport:match("^(.*):(%d+)$")
   host = host or hostport
   port = tonumber(port) or (scheme == "https" and 443 or 80)
   if host == "localhost" or host == "[::1]" or host:find("^127%.%d+%.%d+%.%d+$") then
      return port
   end
   return nil
end

-- ---------------------------------------------------------------------
-- The configuration text.

local function url_base(u)
   return (u:gsub("/+$", ""))
end

-- What the site does, as nginx directives (indented one tab).
local function nginx_body(s)
   local out = {}
   if s.root then
      out[#out + 1] = fmt("\troot %s;\n\tindex index.html index.htm;\n", s.root)
      out[#out + 1] = "\tlocation / {\n\t\ttry_files $uri $uri/ =404;\n\t}\n"
   elseif s.proxy then
      out[#out + 1] = fmt("\tlocation / {\n\t\tproxy_pass %s;\n", s.proxy)
      out[#out + 1] = "\t\tproxy_set_header Host $host;\n"
         .. "\t\tproxy_set_header X-Real-IP $remote_addr;\n"
         .. "\t\tproxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;\n"
         .. "\t\tproxy_set_header X-Forwarded-Proto $scheme;\n\t}\n"
   else
      out[#out + 1] = fmt("\treturn 301 %s$request_uri;\n", url_base(s.redirect))
   end
   if s.extra then out[#out + 1] = "\t" .. s.extra:gsub("\n$", ""):gsub("\n", "\n\t") .. "\n" end
   return concat(out)
end

local function nginx_listen(port, tls, default)
   return fmt("\tlisten %d%s%s;\n", port, tls and " ssl" or "", default and " default_server" or "")
end

local function https_base(s)
   return s.port == 443 and "https://$host" or fmt("https://$host:%d", s.port)
end

local HEADER = "# Written by prop (web.site %s): edits here are lost at the next run.\n"

local function nginx_conf(s)
   local names = concat(s.names, " ")
   local out = { fmt(HEADER, s.names[1]) }
   if s.tls then
      -- The plain-HTTP site of a TLS site: the ACME challenge, and a
      -- redirect of everything else.
      return fmt(HEADER, s.names[1]) .. "server {\n" .. nginx_listen(80, false, false)
         .. fmt("\tserver_name %s;\n", names)
         .. fmt("\tlocation /.well-known/acme-challenge/ {\n\t\troot %s;\n\t}\n", s.webroot)
         .. fmt("\tlocation / {\n\t\treturn 301 %s$request_uri;\n\t}\n}\n", https_base(s)),
         fmt(HEADER, s.names[1]) .. "server {\n" .. nginx_listen(s.port, true, s.default)
         .. fmt("\tserver_name %s;\n", names)
         .. fmt("\tssl_certificate %s;\n\tssl_certificate_key %s;\n", s.cert_file, s.key_file)
         .. nginx_body(s) .. "}\n"
   end
   out[#out + 1] = "server {\n" .. nginx_listen(s.port, false, s.default)
      .. fmt("\tserver_name %s;\n", names) .. nginx_body(s) .. "}\n"
   return concat(out)
end

local function apache_body(s)
   local out = {}
   if s.root then
      out[#out + 1] = fmt("\tDocumentRoot %s\n\t<Directory %s>\n\t\tRequire all granted\n"
                          .. "\t</Directory>\n", s.root, s.root)
   elseif s.proxy then
      local u = url_base(s.proxy)
      out[#out + 1] = fmt("\tProxyPreserveHost On\n\tProxyPass / %s/\n\tProxyPassReverse / %s/\n",
                          u, u)
   else
      out[#out + 1] = fmt("\tRedirect permanent / %s/\n", url_base(s.redirect))
   end
   if s.extra then out[#out + 1] = "\t" .. s.extra:gsub("\n$", ""):gsub("\n", "\n\t") .. "\n" end
   return concat(out)
end

local function apache_names(s)
   local out = fmt("\tServerName %s\n", s.names[1])
   if #s.names > 1 then
      out = out .. fmt("\tServerAlias %s\n", concat(s.names, " ", 2))
   end
   return out
end

local function apache_conf(s)
   if s.tls then
      local redirect = s.port == 443 and "https://%{HTTP_HOST}%{REQUEST_URI}"
         or fmt("https://%%{SERVER_NAME}:%d%%{REQUEST_URI}", s.port)
      return fmt(HEADER, s.names[1]) .. "<VirtualHost *:80>\n" .. apache_names(s)
         .. fmt("\tAlias /.well-known/acme-challenge/ %s/.well-known/acme-challenge/\n", s.webroot)
         .. fmt("\t<Directory %s>\n\t\tRequire all granted\n\t</Directory>\n", s.webroot)
         .. "\tRewriteEngine On\n\tRewriteCond %{REQUEST_URI} !^/\\.well-known/acme-challenge/\n"
         .. fmt("\tRewriteRule ^ %s [R=301,L]\n</VirtualHost>\n", redirect),
         fmt(HEADER, s.names[1]) .. fmt("<VirtualHost *:%d>\n", s.port) .. apache_names(s)
         .. fmt("\tSSLEngine on\n\tSSLCertificateFile %s\n\tSSLCertificateKeyFile %s\n",
                s.cert_file, s.key_file)
         .. apache_body(s) .. "</VirtualHost>\n"
   end
   return fmt(HEADER, s.names[1]) .. fmt("<VirtualHost *:%d>\n", s.port) .. apache_names(s)
      .. apache_body(s) .. "</VirtualHost>\n"
end

-- ---------------------------------------------------------------------
-- Properties.

local impl = { site = {}, disabled = {}, listen = {} }

function impl.site.ensure(sys, a)
   return V.ensure_site(sys, a)
end
function impl.site.verify(sys, a)
   return V.verify_site(sys, a)
end
impl.site.repair = V.repair_site

function impl.disabled.ensure(sys, a)
   return V.ensure_disabled(sys, a)
end

function impl.listen.ensure(sys, a)
   return V.ensure_site(sys, a)
end

-- The args of one site file of server srv named file.
local function file_args(srv, name)
   local d = SERVERS[srv]
   local f = name .. d.suffix
   return { what = "web.site " .. name, service = d.service, install = d.install, test = d.test,
            available = d.available .. f, enabled = d.enabled .. f,
            target = (d.relative or d.available) .. f }
end

-- One site file, enabled, with its claims, and the property that
-- disables it (its revert).
local function site_file(s, fname, content, port, default, desc, uses)
   local a = file_args(s.server, fname)
   a.content = content
   a.names = s.names
   local claims = { claim.file_content(a.available, content),
                    claim.file_symlink(a.enabled, a.target) }
   for _, n in ipairs(s.names) do
      claims[#claims + 1] = claim.web_name(n .. ":" .. port, s.server)
   end
   if default then claims[#claims + 1] = claim.web_default(tostring(port), s.server) end
   local on = core.leaf{ desc = desc, targets = "DebianLike", impl = impl.site, args = a,
                         claims = claims, uses = uses, ports = { port }, shares_ports = s.server }
   local d = file_args(s.server, fname)
   d.what = "web.site " .. fname .. " disabled"
   local off = core.leaf{ desc = desc .. " disabled", targets = "DebianLike", impl = impl.disabled,
                          args = d, claims = { claim.file_absent(d.enabled) } }
   return on, off
end

-- Apache listens on 80 and 443 (ports.conf); another port gets a Listen
-- of its own in conf-available/prop-listen-PORT.conf, which every site on
-- that port declares alike.
local function apache_listen(port)
   local f = fmt("prop-listen-%d.conf", port)
   local content = fmt("# Written by prop (web.site): Apache listens on port %d.\nListen %d\n",
                       port, port)
   local a = { what = "web.site listen " .. port, service = "apache2", install = "apache.installed()",
               test = SERVERS.apache.test, available = "/etc/apache2/conf-available/" .. f,
               enabled = "/etc/apache2/conf-enabled/" .. f, target = "../conf-available/" .. f,
               content = content }
   return core.leaf{ desc = "apache listens on port " .. port .. " (web.site)",
                     targets = "DebianLike", impl = impl.listen, args = a,
                     claims = { claim.file_content(a.available, content),
                                claim.file_symlink(a.enabled, a.target) },
                     norevert = "the Listen of a web.site port is shared by its sites: nothing "
                        .. "to revert" }
end

-- The properties of a site whose server is known.
local function build(s)
   local srv = s.server
   local first = s.names[1]
   local what = fmt("web site %s (%s)", first, srv)
   if #s.names > 1 then what = what .. fmt(" (+%d)", #s.names - 1) end
   local parts = {}
   -- The files are named by the first name, with the port when it is
   -- not the usual one (80, or 443 with TLS); an Apache default site
   -- sorts before Debian's 000-default, as Apache's default is the first
   -- site loaded for its port.
   local fname = first
   if s.port ~= (s.tls and 443 or 80) then fname = fname .. "-" .. s.port end
   if srv == "apache" and s.default then fname = "00-" .. fname end
   if srv == "nginx" and s.default and s.port == 80 then
      -- Debian's default site is default_server on 80: two defaults for
      -- one port are refused by nginx -t.
      parts[#parts + 1] = nginx.site_disabled "default"
   end
   if srv == "apache" then
      if s.proxy then
         parts[#parts + 1] = apache.module "proxy"
         parts[#parts + 1] = apache.module "proxy_http"
      end
      if s.tls then
         parts[#parts + 1] = apache.module "ssl"
         parts[#parts + 1] = apache.module "rewrite"
      end
      if s.port ~= 80 and s.port ~= 443 then parts[#parts + 1] = apache_listen(s.port) end
   end
   local conf = srv == "nginx" and nginx_conf or apache_conf
   local offs = {}
   local function add_site(...)
      local on, off = site_file(s, ...)
      parts[#parts + 1] = on
      table.insert(offs, 1, off)
   end
   if not s.tls then
      add_site(fname, conf(s), s.port, s.default, what, s.uses)
      return core.pair(core.props(parts):describe(what),
                       core.props(offs):describe(what .. " disabled"))
   end
   local http_text, https_text = conf(s)
   parts[#parts + 1] = file.directory(s.webroot)
   add_site(fname, http_text, 80, false, what .. " http")
   if s.tls == "letsencrypt" then
      parts[#parts + 1] = letsencrypt.certbot(s.names, s.email, {
         webroot = s.webroot, server = s.acme_server,
         web_server = SERVERS[srv].service, reload = SERVERS[srv].service })
   else
      parts[#parts + 1] = file.directory(SSL_DIR, { mode = "0755" })
      parts[#parts + 1] = file.has_content(s.cert_file, s.tls.cert, {
         mode = "0644", shared = core.is_secret(s.tls.cert) or nil })
      parts[#parts + 1] = file.has_content(s.key_file, s.tls.key, { mode = "0600" })
   end
   add_site(fname .. "-tls", https_text, s.port, s.default, what .. " https", s.uses)
   return core.pair(core.props(parts):describe(what), core.props(offs):describe(what .. " disabled"))
end

-- The server a host's list installs: "nginx", "apache", or nil and why
-- not (neither or both).
local function installed_server(props)
   local found, seen = {}, {}
   local function walk(p, depth)
      if seen[p] or depth > 64 then return end
      seen[p] = true
      local desc = p.desc
      if type(desc) == "string" then
         for name, d in pairs(SERVERS) do
            if desc:sub(1, #d.installed) == d.installed then found[name] = true end
         end
      end
      for _, c in ipairs(p.children) do walk(c, depth + 1) end
   end
   for _, p in ipairs(props) do walk(p, 0) end
   if found.nginx and found.apache then
      return nil, "the host installs both nginx and apache"
   elseif not found.nginx and not found.apache then
      return nil, "the host installs neither nginx (nginx.installed()) nor apache "
         .. "(apache.installed())"
   end
   return found.nginx and "nginx" or "apache"
end

--[[ web.site(names, { root= | proxy= | redirect=, port=, tls=, default=, server=, extra=, email=, acme_server= })
  DebianLike, revertable: its revert disables its site files (as
  nginx.site_disabled / apache.site_disabled); certificates and modules
  stay.
  A web site made from what it is: names (a DNS name or a list; the
  first names its files) served from root, proxied to proxy, or
  redirected (301, path kept) to redirect, on port (80, or 443 with
  tls), by server ("nginx" or "apache"; not given: web.site is a role
  that picks the one the host's list installs).  tls = "letsencrypt"
  (with email) or { cert = PEM or secret, key = secret } adds a plain
  HTTP site on 80 (ACME challenge, redirect to https) before the
  certificate and the HTTPS site.  See man prop-site(5), WEB SITES.
  Example:
    web.site({ "example.org", "www.example.org" }, { root = "/srv/www/example.org",
             tls = "letsencrypt", email = "admin@example.org" })
]]
function web.site(names, opts)
   local list = type(names) == "string" and { names } or names
   local nerr, ns = args.list(list, "names", args.host_name)
   if not nerr and #ns == 0 then nerr = "names is empty: give at least one DNS name" end
   local desc = "web site " .. (type(list) == "table" and type(list[1]) == "string" and list[1]
                                or "?")
   if not nerr then
      local seen = {}
      for _, n in ipairs(ns) do
         if seen[n] then nerr = fmt("names has %s twice", n) break end
         seen[n] = true
      end
   end
   local oerr, o = args.options(opts, schema, "web.site")
   local cerr
   if not oerr then
      local kinds = {}
      for _, k in ipairs { "root", "proxy", "redirect" } do
         if o[k] then kinds[#kinds + 1] = k end
      end
      if #kinds ~= 1 then
         cerr = #kinds == 0 and "give what the site serves: one of root (a directory), proxy (a "
            .. "backend URL) or redirect (a URL)"
            or fmt("give one of root, proxy and redirect, not %s", concat(kinds, " and "))
      elseif o.tls == "letsencrypt" and not o.email then
         cerr = 'tls = "letsencrypt" needs email (the ACME account\'s address, for expiry notices)'
      elseif o.tls ~= "letsencrypt" and (o.email or o.acme_server) then
         cerr = fmt('%s is for tls = "letsencrypt"', o.email and "email" or "acme_server")
      elseif o.tls and o.port == 80 then
         cerr = "port 80 is the plain-HTTP site of a TLS site (its redirect): give the HTTPS "
            .. "port, or leave port out for 443"
      elseif type(o.tls) == "table" and not nerr and not core.is_secret(o.tls.cert) then
         local got, why = web.cert_names(o.tls.cert)
         if not got then
            cerr = "tls.cert cannot be read: " .. why
         else
            local missing = {}
            for _, n in ipairs(ns) do
               local ok = false
               for _, p in ipairs(got) do
                  if covers(p, n) then ok = true break end
               end
               if not ok then missing[#missing + 1] = n end
            end
            if #missing > 0 then
               cerr = fmt("tls.cert does not cover %s (it names %s)", concat(missing, ", "),
                          #got > 0 and concat(got, ", ") or "no DNS name")
            end
         end
      end
   end
   local msg = args.join("web.site", nerr, oerr, cerr)
   if msg then return core.invalid(desc, msg) end
   local first = ns[1]
   local s = { names = ns, root = o.root, proxy = o.proxy, redirect = o.redirect,
               tls = o.tls or false, default = o.default or false, extra = o.extra,
               email = o.email, acme_server = o.acme_server, server = o.server }
   s.port = o.port or (s.tls and 443 or 80)
   if s.tls == "letsencrypt" then
      s.webroot = ACME_ROOT .. "/" .. first
      s.cert_file, s.key_file = LIVE .. first .. "/fullchain.pem", LIVE .. first .. "/privkey.pem"
   elseif s.tls then
      s.webroot = ACME_ROOT .. "/" .. first
      s.cert_file, s.key_file = SSL_DIR .. "/" .. first .. ".pem", SSL_DIR .. "/" .. first .. ".key"
   end
   local backend = s.proxy and loopback_port(s.proxy)
   if backend then s.uses = { ports = { backend } } end
   if s.server then return build(s) end
   -- No server given: a role of the host, which picks the server its list
   -- installs.  The site is made now for both, at this line, so that
   -- its place is the line of web.site; the role keeps one.
   s.server = "nginx"
   local for_nginx = build(s)
   s.server = "apache"
   local for_apache = build(s)
   return function(h)
      local srv, why = installed_server(h.properties)
      if not srv then
         core.error_at(for_nginx, "P012", fmt('web.site: %s: server is not given and %s: say '
                                             .. 'server = "nginx" or "apache"', first, why))
         return {}
      end
      return srv == "nginx" and for_nginx or for_apache
   end
end

return args.strict_module(web, "web")
