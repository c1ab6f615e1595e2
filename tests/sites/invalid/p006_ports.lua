-- P006: two services on one port.  A clash is reported where the value
-- that clashes was made (for proxy: its property {} call).  Apache's
-- sites share its ports; a Tor bridge on the TLS site's port does not.
--! P006 6
--! P006 18
local proxy = property {
  desc = "haproxy listening",
  targets = "DebianLike",
  ports = { 80 },
  apply = function(sys) sys:run { "systemctl", "start", "haproxy" } end,
}

host "web1.example.com" {
  os.debian("bookworm", "amd64"),
  apache.installed(),
  apache.site("tls", "<VirtualHost *:443>\n  ServerName web1.example.com\n  SSLEngine on\n</VirtualHost>\n"),
  apache.site("www", "<VirtualHost *:80>\n  ServerName web1.example.com\n</VirtualHost>\n"),
  tor.bridge(),
  proxy,
}
