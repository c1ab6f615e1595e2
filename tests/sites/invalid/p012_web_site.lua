-- web.site's argument errors: each is P012 at the line of web.site.
--! P012 32
--! P012 33
--! P012 34
--! P012 35
--! P012 36
--! P012 37
--! P012 38
--! P012 39
--! P012 40
--! P012 41
--! P012 42
--! P012 43
--! P012 47
--! total 13
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
host "web.example.org" {
  os.debian("bookworm", "amd64"),
  nginx.installed(),
  web.site("bad_name.example.org", { root = "/srv/a" }),
  web.site({ "a.example.org", "A.example.org" }, { root = "/srv/a" }),
  web.site("b.example.org", {}),
  web.site("c.example.org", { root = "/srv/a", proxy = "http://127.0.0.1:8080" }),
  web.site("d.example.org", { root = "/srv/a", port = 70000 }),
  web.site("e.example.org", { root = "/srv/a", tls = "letsencrypt" }),
  web.site("f.example.org", { root = "/srv/a", server = "lighttpd" }),
  web.site({ "example.org", "x.y.example.org" }, { root = "/srv/a", tls = { cert = CERT, key = secret "k" } }),
  web.site("g.example.org", { root = "/srv/a", tls = { cert = CERT, key = "-----BEGIN PRIVATE KEY-----" } }),
  web.site("h.example.org", { redirect = "ftp://example.org" }),
  web.site("i.example.org", { root = "srv/a" }),
  web.site("j.example.org", { root = "/srv/a", tls = { cert = CERT, key = secret "k" }, port = 80 }),
}
host "bare.example.org" {
  os.debian("bookworm", "amd64"),
  web.site("k.example.org", { root = "/srv/a" }),
}
