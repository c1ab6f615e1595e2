-- dns.primary and dns.secondary with what a small site's DNS needs: a
-- signed zone with typed records (MX, SRV, TXT, CAA) whose targets have
-- addresses in the site (a host's, or an A record's) or lie outside its
-- zones, the name server declared after the zone that names its mail
-- host, a secondary whose master is named by its host, and an old zone
-- reverted.  It lints clean.

host "ns1.example.org" {
  os.debian("bookworm", "amd64"),
  ipv4 "192.0.2.53",
  dns.primary("example.org", { ns = { "ns1.example.org", "ns2.example.org" }, dnssec = true, records = {
    { "@", "MX", 10, "mail.example.org." },
    { "@", "MX", 20, "mx.backup-provider.example." },
    { "_sip._tcp", "SRV", 10, 5, 5060, "sip.example.org." },
    { "_imaps._tcp", "SRV", 0, 0, 993, "mail.example.org." },
    { "sip", "A", "192.0.2.60" },
    { "@", "TXT", "v=spf1 mx -all" },
    { "@", "CAA", 0, "issue", "letsencrypt.org" },
    { "@", "CAA", 0, "iodef", "mailto:hostmaster@example.org" } } }),
  revert(dns.primary("old.example", { ns = { "ns1.example.org" } })),
}

host "ns2.example.org" {
  os.debian("bookworm", "amd64"),
  ipv4 "192.0.2.54",
  dns.secondary("example.org", { "ns1.example.org" }),
}

host "mail.example.org" {
  os.debian("bookworm", "amd64"),
  ipv4 "192.0.2.25",
  ipv6 "2001:db8::25",
}
