-- P012: an alias of a host that has no address and no DNS name of its
-- own: nothing for a zone to point it at.  With an address, or a full
-- name, it is clean.
--! P012 7
--! note 7
host "db" { ipv4 "192.0.2.10", alias "db.example.com" }
host "cache" { alias "cache.example.com" }
host "web.hosting.example" { alias "www.example.com" }
host "ns1.example.com" {
  os.debian("bookworm", "amd64"),
  ipv4 "192.0.2.53",
  dns.primary("example.com", { ns = { "ns1.example.com" } }),
}
