-- A fixed /etc/resolv.conf that holds the search line beside
-- hostname.search_domain setting the same line: equal content, no P007.
host "ns.example.com" {
  os.debian("bookworm", "amd64"),
  file.has_content("/etc/resolv.conf", "# managed\nsearch example.com\nnameserver 192.0.2.53\n"),
  hostname.search_domain("example.com"),
}
