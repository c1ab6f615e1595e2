-- P007: fixed content of /etc/resolv.conf against hostname.search_domain
-- when the content does not set the same search line: another domain, a
-- second search line, or none.
--! P007 11
--! P007 16
--! P007 21
--! total 3
host "ns1.example.com" {
  os.debian("bookworm", "amd64"),
  file.has_content("/etc/resolv.conf", "search other.org\nnameserver 192.0.2.53\n"),
  hostname.search_domain("example.com"),
}
host "ns2.example.com" {
  os.debian("bookworm", "amd64"),
  file.has_content("/etc/resolv.conf", "search example.com\nsearch other.org\n"),
  hostname.search_domain("example.com"),
}
host "ns3.example.com" {
  os.debian("bookworm", "amd64"),
  file.has_content("/etc/resolv.conf", "nameserver 192.0.2.53\n"),
  hostname.search_domain("example.com"),
}
