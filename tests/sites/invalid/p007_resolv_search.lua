-- P007: fixed content of /etc/resolv.conf against hostname.search_domain
-- when the content does not set the same search line (another domain, a
-- second search line, or none), or keeps the domain line it removes.
--! P007 12
--! P007 17
--! P007 22
--! P007 27
--! total 4
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
host "ns4.example.com" {
  os.debian("bookworm", "amd64"),
  file.has_content("/etc/resolv.conf", "nameserver 127.0.0.1\ndomain example.com\nsearch example.com\n"),
  hostname.search_domain("example.com"),
}
