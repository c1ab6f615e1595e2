-- prop.letsencrypt: TLS certificates from Let's Encrypt (or another ACME
-- server) with certbot's webroot method, Propellor's LetsEncrypt.
--
-- The certificate is what decides: a run asks the ACME server only when
-- /etc/letsencrypt/live/FIRST/cert.pem is missing, does not name every
-- domain, or expires within 30 days, as openssl reads it.  certbot's own
-- timer (installed with the package) renews it in between.

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local R = require "prop.runtime"

local letsencrypt = {}

local fmt, concat = string.format, table.concat

local LIVE = "/etc/letsencrypt/live/"
-- certbot renews what expires within 30 days: so does a run.
local RENEW_SECONDS = 30 * 24 * 3600

local function check_domain(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   if v:find("^%*%.") then
      return fmt("%s %s is a wildcard: the webroot method cannot prove it (certbot needs DNS for "
                 .. "wildcards)", what, args.show(v))
   end
   return args.host_name(v, what, { dotted = true, noun = "domain name" })
end

local schema = {
   webroot = args.abs_path,
   web_server = function(v, what)
      return args.matching(v, what, "[%w_.@-]+", 'the name of the web server\'s service, such as "nginx"')
   end,
   reload = function(v, what)
      return args.matching(v, what, "[%w_][%w_.@-]*",
                           'the name of the service to reload, such as "nginx" or "apache2"')
   end,
   server = function(v, what)
      return args.matching(v, what, "https?://[%w%-%.:%[%]_~/%%@]+",
                           'an ACME directory URL such as '
                           .. '"https://acme-staging-v02.api.letsencrypt.org/directory"')
   end,
}

local impl = {}

local HOOKS = "/etc/letsencrypt/renewal-hooks/deploy/"

-- The deploy hook that reloads service after each renewal (certbot runs
-- every executable file of renewal-hooks/deploy once a certificate of
-- this machine is renewed).
local function hook_text(service)
   return fmt([[#!/bin/sh
# Written by prop (letsencrypt.certbot reload = "%s"): certbot runs this
# after it renews a certificate, so that %s serves the new one.
if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
  exec systemctl reload %s
fi
exec service %s reload
]], service, service, service, service)
end

-- The hook of a.reload in place; whether it changed.
local function ensure_hook(sys, a)
   if not a.reload then return false end
   if sys.dry and not sys:exists(HOOKS) then
      sys:note(fmt("%s would be written", a.hook))
      return true
   end
   R.run(sys, a.what, { "mkdir", "-p", HOOKS })
   return R.ensure_content(sys, a.what, a.hook, hook_text(a.reload), { mode = "0755" })
end

-- The DNS names of the certificate at path, and whether it is still
-- valid for RENEW_SECONDS; nil when there is none.
local function cert_state(sys, what, path)
   if not sys:exists(path) then return nil end
   local argv = { "openssl", "x509", "-in", path, "-noout", "-ext", "subjectAltName" }
   local r = R.query(sys, what, argv)
   if r.code ~= 0 then
      sys:note(fmt("%s cannot be read by openssl: %s", path, R.tail(r.stderr, 2)))
      return nil
   end
   local names = {}
   for n in r.stdout:gmatch("DNS:([^,%s]+)") do names[n:lower()] = true end
   local e = R.query(sys, what, { "openssl", "x509", "-in", path, "-noout", "-checkend",
                                  tostring(RENEW_SECONDS) })
   return names, e.code == 0
end

-- Why the certificate at path is not the one wanted, or nil.
local function why_request(sys, what, a)
   local names, fresh = cert_state(sys, what, a.cert)
   if names == nil then return "there is no certificate " .. a.cert end
   local missing = {}
   for _, d in ipairs(a.domains) do
      if not names[d] then missing[#missing + 1] = d end
   end
   if #missing > 0 then return "the certificate does not cover " .. concat(missing, ", ") end
   if not fresh then return "the certificate expires within 30 days" end
   return nil
end

-- certbot certonly for the domains of a, with how (--keep-until-expiring,
-- --force-renewal).
local function certbot_argv(a, how)
   local argv = { "certbot", "certonly", "--webroot", "-w", a.webroot, "--non-interactive",
                  "--agree-tos", "--no-eff-email", "-m", a.email, "--cert-name", a.domains[1],
                  "--expand", how }
   if a.server then argv[#argv + 1], argv[#argv + 2] = "--server", a.server end
   for _, d in ipairs(a.domains) do argv[#argv + 1], argv[#argv + 2] = "-d", d end
   return argv
end

function impl.ensure(sys, a)
   local what = a.what
   local installed = R.apt_install(sys, what, { "certbot", "openssl" })
   if installed and sys.dry then
      sys:note(fmt("would request a certificate for %s once certbot is installed",
                   concat(a.domains, " ")))
      return "changed"
   end
   local why = why_request(sys, what, a)
   if why == nil then
      local hooked = ensure_hook(sys, a)
      return (installed or hooked) and "changed" or "ok"
   end
   local st = sys:stat(a.webroot)
   if not st or st.type ~= "directory" then
      local msg = fmt("the webroot %s is not a directory: the web server must serve it for the "
                      .. "ACME server to read the challenge", a.webroot)
      if not sys.dry then R.fail("%s: %s", what, msg) end
      sys:note(msg)
   end
   local r = sys:run(certbot_argv(a, "--keep-until-expiring"), R.any)
   if sys.dry then
      sys:note(fmt("%s: would ask %s for one (certbot certonly --webroot)", why,
                   a.server or "Let's Encrypt"))
      return "changed"
   end
   if r.code ~= 0 then
      local said = R.tail((r.stderr or "") .. "\n" .. (r.stdout or ""), 6)
      R.fail("%s: %s; certbot exited with %d, the certificate in %s is left as it was:\n%s",
             what, why, r.code, a.live, said)
   end
   local still = why_request(sys, what, a)
   if still then R.fail("%s: certbot succeeded, but %s", what, still) end
   sys:note(fmt("%s: certificate obtained for %s", why, concat(a.domains, " ")))
   ensure_hook(sys, a)
   return "changed"
end

-- The probe: what the web server reads, fullchain.pem and privkey.pem,
-- is the certificate wanted.  Its first certificate names every domain
-- and does not expire within 30 days, and privkey.pem is its key.
function impl.verify(sys, a)
   local chain, key = a.live .. "/fullchain.pem", a.live .. "/privkey.pem"
   for _, f in ipairs({ chain, key }) do
      if not sys:exists(f) then return false, f .. " is missing" end
   end
   local names, fresh = cert_state(sys, a.what, chain)
   if names == nil then return false, chain .. " is not a certificate openssl reads" end
   local missing = {}
   for _, d in ipairs(a.domains) do
      if not names[d] then missing[#missing + 1] = d end
   end
   if #missing > 0 then
      return false, fmt("%s does not cover %s", chain, concat(missing, ", "))
   end
   if not fresh then return false, chain .. " expires within 30 days" end
   local pub = R.query(sys, a.what, { "openssl", "x509", "-in", chain, "-noout", "-pubkey" })
   local kpub = R.query(sys, a.what, { "openssl", "pkey", "-in", key, "-pubout" })
   if pub.code ~= 0 or kpub.code ~= 0 or pub.stdout ~= kpub.stdout then
      return false, fmt("%s is not the key of the certificate in %s", key, chain)
   end
   return true
end

-- Files: no wait.
impl.probe_timeout = 0

-- The certificate asked for again (certbot certonly --force-renewal):
-- new files in place of the broken ones.
function impl.repair(sys, a)
   local r = sys:run(certbot_argv(a, "--force-renewal"), R.any)
   if r.code ~= 0 then
      R.fail("%s: the certificate in %s is not what the web server needs, and certbot exited "
             .. "with %d renewing it:\n%s", a.what, a.live, r.code,
             R.tail((r.stderr or "") .. "\n" .. (r.stdout or ""), 6))
   end
   sys:note(fmt("certificate renewed for %s (its files were broken)", concat(a.domains, " ")))
end

--[[ letsencrypt.certbot(domains, email [, { webroot=, server=, web_server=, reload= }])
  DebianLike, not revertable (certbot delete --cert-name FIRST removes a
  certificate).
  A certificate for domains (a name or a list: the first names it) from
  Let's Encrypt, or from the ACME server at server (an ACME directory
  URL: Let's Encrypt's staging one, a private CA), proved with files
  certbot writes under webroot (/var/www/html unless told), which the
  web server must serve at http://DOMAIN/.well-known/acme-challenge/.
  email gets the CA's expiry notices.  The files are in
  /etc/letsencrypt/live/FIRST/ (fullchain.pem, privkey.pem).
  Claims: file.generated /etc/letsencrypt/live/FIRST (one name given two
  domain lists is P007), package.installed certbot and openssl.
  Run time: installs certbot and openssl; ok when
  /etc/letsencrypt/live/FIRST/cert.pem names every domain and does not
  expire within 30 days (openssl x509); otherwise runs certbot certonly
  --webroot --non-interactive --agree-tos --cert-name FIRST --expand and
  checks the certificate again.  A refusal (the challenge not served,
  the server unreachable) fails with certbot's words and leaves the old
  certificate.  Use on_change to reload the web server after a run; reload
  = SERVICE ("nginx", "apache2") also installs certbot's deploy hook
  /etc/letsencrypt/renewal-hooks/deploy/prop-reload-SERVICE (claim
  file.content), which reloads SERVICE after each renewal by certbot's
  timer.
  Uses port 80 of the host (the web server that serves webroot, such as
  nginx.installed or apache.installed), or the service web_server names
  ("nginx", "apache2"): W106 when nothing on the host provides it, P016
  when it is made after the certificate.
  Example:
    letsencrypt.certbot({ "example.org", "www.example.org" }, "admin@example.org")
      :on_change(service.restarted "nginx")
]]
function letsencrypt.certbot(domains, email, opts)
   local list = type(domains) == "string" and { domains } or domains
   local derr, ds = args.list(list, "domains", check_domain)
   if not derr and #ds == 0 then derr = "domains is empty: give at least one domain" end
   local eerr = args.email(email, "email")
   local oerr, o = args.options(opts, schema, "letsencrypt.certbot")
   local msg = args.join("letsencrypt.certbot", derr, eerr, oerr)
   local desc = "letsencrypt certificate " .. (type(list) == "table" and type(list[1]) == "string"
                                               and list[1] or "?")
   if msg then return core.invalid(desc, msg) end
   local seen = {}
   for _, d in ipairs(ds) do
      if seen[d] then
         return core.invalid(desc, fmt("letsencrypt.certbot: domains names %s twice", d))
      end
      seen[d] = true
   end
   local live = LIVE .. ds[1]
   local a = { what = "letsencrypt.certbot " .. ds[1], domains = ds, email = email,
               webroot = o.webroot or "/var/www/html", server = o.server, live = live,
               cert = live .. "/cert.pem", reload = o.reload,
               hook = o.reload and HOOKS .. "prop-reload-" .. o.reload }
   if #ds > 1 then desc = desc .. " (+" .. (#ds - 1) .. ")" end
   local claims = { claim.file_generated(live, "certbot " .. concat(ds, " ")),
                    claim.package_installed("certbot"), claim.package_installed("openssl") }
   if a.hook then claims[#claims + 1] = claim.file_content(a.hook, hook_text(a.reload)) end
   return core.leaf{ desc = desc, targets = "DebianLike", impl = impl, args = a,
                     claims = claims,
                     norevert = "letsencrypt.certbot has no revert action: certbot delete --cert-name "
         .. ds[1] .. " removes the certificate",
                     -- The challenge is served by the host's web server: its port 80, or
      -- the service named.
      uses = o.web_server and { services = { o.web_server } } or { ports = { 80 } } }
end

return args.strict_module(letsencrypt, "letsencrypt")
