-- P012: DNS records a zone cannot serve.  A malformed MX, SRV, TXT or CAA
-- record (each in its own zone: a list reports its first bad item), an
-- MX, SRV or CNAME target in a zone of the site without an address there
-- (at the zone's line), and a secondary's master named by a host that is
-- not in the site or has no address.  Targets outside the site's zones,
-- targets with an A record or a host's address, and the older string form
-- are clean.
--! P012 26
--! P012 27
--! P012 28
--! P012 29
--! P012 30
--! P012 31
--! P012 32
--! P012 33
--! P012 34
--! P012 35
--! P012 35
--! P012 35
--! P012 48
--! P012 49
--! total 14
host "ns1.example.org" {
  os.debian("bookworm", "amd64"),
  ipv4 "192.0.2.53",
  dns.primary("a.example", { ns = { "ns1.example.org" }, records = { { "@", "MX", 70000, "mx.example.net." } } }),
  dns.primary("b.example", { ns = { "ns1.example.org" }, records = { { "@", "MX", "ten mail" } } }),
  dns.primary("c.example", { ns = { "ns1.example.org" }, records = { { "sip", "SRV", 1, 2, 3, "t.example.net." } } }),
  dns.primary("d.example", { ns = { "ns1.example.org" }, records = { { "_sip._tcp", "SRV", 1, 2, "t.example.net." } } }),
  dns.primary("e.example", { ns = { "ns1.example.org" }, records = { { "@", "CAA", 0, "isue", "ca.example.net" } } }),
  dns.primary("f.example", { ns = { "ns1.example.org" }, records = { { "@", "CAA", 256, "issue", "ca.example.net" } } }),
  dns.primary("g.example", { ns = { "ns1.example.org" }, records = { { "@", "TXT", {} } } }),
  dns.primary("h.example", { ns = { "ns1.example.org" }, records = { { "h", "A", "300.1.1.1" } } }),
  dns.primary("i.example", { ns = { "ns1.example.org" }, dnssec = "yes" }),
  dns.primary("example.org", { ns = { "ns1.example.org" }, records = {
    { "@", "MX", 10, "mail.example.org." },                     -- no address: P012
    { "_sip._tcp", "SRV", 10, 5, 5060, "sip.example.org." },     -- no address: P012
    { "www", "CNAME", "web" },                                   -- web.example.org: P012
    { "@", "MX", 20, "mx.example.net." },                        -- outside the site
    { "@", "MX", "30 backup" },                                  -- an A record below
    { "backup", "A", "192.0.2.26" },
    { "files", "CNAME", "ns1.example.org." },                    -- a host's address
    { "@", "TXT", "v=spf1 -all" },
    { "@", "CAA", 0, "issue", "letsencrypt.org" } } }),
}
host "ns2.example.org" {
  os.debian("bookworm", "amd64"),
  dns.secondary("example.org", { "nowhere.example.org" }),
  dns.secondary("example.com", { "cache" }),
  dns.secondary("example.net", { "ns1.example.org", "192.0.2.99" }),
}
host "cache" { os.debian("bookworm", "amd64") }
