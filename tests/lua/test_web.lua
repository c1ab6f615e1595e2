-- prop.web: web.site's argument errors (the lint reports each as P012 at
-- the line of web.site), the names a PEM certificate covers, and the
-- server text it makes.
local T = require "check"
local W = prop_module "web"
local core = prop_module "core"

local CERT = [[
-----BEGIN CERTIFICATE-----
MIIBqDCCAU6gAwIBAgIUZHvmnJ3AwhCl9M8fFmDeNjk9q58wCgYIKoZIzj0EAwIw
FjEUMBIGA1UEAwwLZXhhbXBsZS5vcmcwHhcNMjYxMjA3MjI0NjUxWhcNMzYxMjA0
MjI0NjUxWjAWMRQwEgYDVQQDDAtleGFtcGxlLm9yZzBZMBMGByqGSM49AgEGCCqG
SM49AwEHA0IABKOTgFQafpBaXTpJI3Hcb6tYarMqb7XRGqRDFXMmNVSLzeRf2Fx7
PSrIbSI2871dhJ9qZLwtA33Qve4u8fHCzcmjejB4MB0GA1UdDgQWBBTxjnK3bQIp
4n6rkp+aPcUxn+NTyDAfBgNVHSMEGDAWgBTxjnK3bQIp4n6rkp+aPcUxn+NTyDAP
BgNVHRMBAf8EBTADAQH/MCUGA1UdEQQeMByCC2V4YW1wbGUub3Jngg0qLmV4YW1w
bGUub3JnMAoGCCqGSM49BAMCA0gAMEUCIQDeS6BZ9a3QWs4Wyzp+ciSN4b3A7VBn
1UE9NkR5euUZDAIgJM+UXYghCODov4kIS5wERQwWTr67tORcjXF8hYB/Iy8=
-----END CERTIFICATE-----
]]
local CN_ONLY = [[
-----BEGIN CERTIFICATE-----
MIIBhzCCAS2gAwIBAgIUbW9n6xbZ0mbcADc7KbZCrB+77PwwCgYIKoZIzj0EAwIw
GTEXMBUGA1UEAwwOY24uZXhhbXBsZS5uZXQwHhcNMjYxMjA3MjI0NjUxWhcNMzYx
MjA0MjI0NjUxWjAZMRcwFQYDVQQDDA5jbi5leGFtcGxlLm5ldDBZMBMGByqGSM49
AgEGCCqGSM49AwEHA0IABMzeBYExYuWxAxAAwuhW/QO5KvQbJ5VTua9r8dRj43ao
iNeFaYD8HfrS4K2avEutEDHyoCrl+5I66u5JpzuiZq+jUzBRMB0GA1UdDgQWBBR4
zHx2gbVP0HsF4waWdYzSpOvzzTAfBgNVHSMEGDAWgBR4zHx2gbVP0HsF4waWdYzS
pOvzzTAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0gAMEUCIQC3nbuhaKYQ
nt/spIoCeujG3iQKvD/ugYS0PiS+1wvlZwIgfCgz7IHy6qWBz5Bi/kacwVYrMqO0
aHmW7d5p9qgCARM=
-----END CERTIFICATE-----
]]

local function bad(what, want, ...)
   T.eq(T.invalid(W.site, ...), want, what)
end

-- names
bad("a name with _", 'web.site: names[1] "bad_name.example.org" is not a DNS name such as "www.example.org"',
    "bad_name.example.org", { root = "/srv/a" })
bad("a name ending in -", 'web.site: names[2] "b-.example.org" is not a DNS name such as "www.example.org"',
    { "a.example.org", "b-.example.org" }, { root = "/srv/a" })
bad("no names", "web.site: names is empty: give at least one DNS name", {}, { root = "/srv/a" })
bad("a number", "web.site: names must be a list of strings or a single string, got number 3", 3, { root = "/srv/a" })
bad("one name twice, by case", "web.site: names has a.example.org twice",
    { "a.example.org", "A.Example.org" }, { root = "/srv/a" })
-- what it serves
bad("nothing served", "web.site: give what the site serves: one of root (a directory), proxy (a "
    .. "backend URL) or redirect (a URL)", "a.example.org", {})
bad("no options", "web.site: give what the site serves: one of root (a directory), proxy (a "
    .. "backend URL) or redirect (a URL)", "a.example.org")
bad("two served", "web.site: give one of root, proxy and redirect, not proxy and redirect", "a.example.org",
    { proxy = "http://127.0.0.1:8080", redirect = "https://example.org" })
bad("relative root", 'web.site: root must be an absolute path (starting with /), got relative path "srv"',
    "a.example.org", { root = "srv" })
bad("a blank in root", 'web.site: root "/srv/my site" must not contain a blank: it is written unquoted in '
    .. "the server's configuration", "a.example.org", { root = "/srv/my site" })
bad("a ; in root", 'web.site: root "/srv/a;b" must not contain ";": it is written unquoted in '
    .. "the server's configuration", "a.example.org", { root = "/srv/a;b" })
bad("a $ in a redirect", 'web.site: redirect "https://example.org/$host" is not valid: expected an http:// or '
    .. 'https:// URL such as "http://127.0.0.1:8080"', "a.example.org", { redirect = "https://example.org/$host" })
bad("proxy not a URL", 'web.site: proxy "127.0.0.1:8080" is not valid: expected an http:// or https:// URL '
    .. 'such as "http://127.0.0.1:8080"', "a.example.org", { proxy = "127.0.0.1:8080" })
-- port, server, options
bad("port 0", "web.site: port 0 is outside 1..65535", "a.example.org", { root = "/srv/a", port = 0 })
bad("port a string", 'web.site: port must be a port number (an integer in 1..65535), got string "80"',
    "a.example.org", { root = "/srv/a", port = "80" })
bad("unknown server", 'web.site: server "apache2" must be "nginx" or "apache" (did you mean "apache"?)',
    "a.example.org", { root = "/srv/a", server = "apache2" })
bad("unknown option", 'unknown key "rot" for web.site (did you mean "root"?)', "a.example.org", { rot = "/srv/a" })
bad("default not a boolean", 'web.site: default must be true or false, got string "yes"', "a.example.org",
    { root = "/srv/a", default = "yes" })
-- TLS
bad("letsencrypt without email",
    'web.site: tls = "letsencrypt" needs email (the ACME account\'s address, for expiry notices)',
    "a.example.org", { root = "/srv/a", tls = "letsencrypt" })
bad("a bad email", 'web.site: email "admin" is not an e-mail address such as "admin@example.org"',
    "a.example.org", { root = "/srv/a", tls = "letsencrypt", email = "admin" })
bad("email without letsencrypt", 'web.site: email is for tls = "letsencrypt"', "a.example.org",
    { root = "/srv/a", email = "admin@example.org" })
bad("tls true", 'web.site: tls must be false, "letsencrypt" or { cert = ..., key = secret "..." }, got true',
    "a.example.org", { root = "/srv/a", tls = true })
bad("tls without key", 'web.site: tls needs both cert (the certificate, PEM text or a secret) and key (secret "name")',
    "a.example.org", { root = "/srv/a", tls = { cert = CERT } })
bad("a plain key", 'web.site: tls.key must be a secret (secret "name" from the site\'s store), got a string: a '
    .. "private key is never written in the site", "a.example.org",
    { root = "/srv/a", tls = { cert = CERT, key = "-----BEGIN PRIVATE KEY-----" } })
bad("a cert that is not PEM", 'web.site: tls.cert must be a certificate in PEM (-----BEGIN CERTIFICATE-----) '
    .. 'or a secret, got "cert"', "a.example.org",
    { root = "/srv/a", tls = { cert = "cert", key = core.secret "k" } })
bad("TLS on port 80", "web.site: port 80 is the plain-HTTP site of a TLS site (its redirect): give the "
    .. "HTTPS port, or leave port out for 443", "a.example.org",
    { root = "/srv/a", tls = { cert = CERT, key = core.secret "k" }, port = 80 })
bad("a name the cert does not cover", "web.site: tls.cert does not cover x.y.example.org, other.net (it names "
    .. "example.org, *.example.org)", { "example.org", "www.example.org", "x.y.example.org", "other.net" },
    { root = "/srv/a", tls = { cert = CERT, key = core.secret "k" } })
T.eq(T.invalid(W.site, { "example.org", "www.example.org" },
               { root = "/srv/a", tls = { cert = CERT, key = core.secret "k" }, server = "nginx" }),
     nil, "the wildcard covers one label")
bad("CN only", "web.site: tls.cert does not cover www.cn.example.net (it names cn.example.net)",
    { "cn.example.net", "www.cn.example.net" }, { root = "/srv/a", tls = { cert = CN_ONLY, key = core.secret "k" } })
bad("garbage in the PEM", "web.site: tls.cert cannot be read: its certificate is not DER that prop reads",
    "a.example.org", { root = "/srv/a", tls = { cert = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
                                                key = core.secret "k" } })

-- cert_names
T.eq(W.cert_names(CERT), { "example.org", "*.example.org" }, "cert_names: the subjectAltName")
T.eq(W.cert_names(CN_ONLY), { "cn.example.net" }, "cert_names: the CN without a subjectAltName")
T.eq(select(2, W.cert_names("no pem")), "it has no certificate in PEM", "cert_names: no PEM")

-- Fine: a property for a server given, a role (a function) without.
T.eq(T.invalid(W.site, "a.example.org", { root = "/srv/a", server = "apache" }), nil, "root, apache: fine")
T.ok(core.is_property(W.site("a.example.org", { proxy = "http://127.0.0.1:8080", server = "nginx" })),
     "a server given: a property")
T.eq(type(W.site("a.example.org", { redirect = "https://example.org/" })), "function",
     "no server given: a role")

T.done()
