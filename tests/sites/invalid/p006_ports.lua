-- P006: two services on one port.  A clash is reported where the value
-- that clashes was made (for proxy: its property {} call).
--! P006 5
--! P006 15
local proxy = property {
  desc = "haproxy listening",
  targets = "DebianLike",
  ports = { 80 },
  apply = function(sys) sys:run { "systemctl", "start", "haproxy" } end,
}

host "web1.example.com" {
  os.debian("bookworm", "amd64"),
  apache.installed(),
  tor.bridge(),
  proxy,
}
