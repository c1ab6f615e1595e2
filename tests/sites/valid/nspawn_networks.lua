-- nginx on a host and in systemd-nspawn machines that have a network of
-- their own (systemd.private_network, or a port published to another
-- port of the host), or that share it but listen elsewhere (an Apache
-- moved to port 1994 by apache.listen_ports): no port is shared.
local private = systemd.container("private", os.debian("bookworm", "amd64"), {
  systemd.private_network(),
  nginx.installed(),
})
local published = systemd.container("published", os.debian("bookworm", "amd64"), {
  systemd.publish(8080, 80),
  nginx.installed(),
})
local shared = systemd.container("shared", os.debian("bookworm", "amd64"), {
  apt.installed "curl",
})
local ancient = systemd.container("ancient", os.debian("buster", "amd64"), {
  apache.installed(),
  apache.listen_ports { 1994 },
})
host "box.example.com" {
  os.debian("bookworm", "amd64"),
  nginx.installed(),
  systemd.nspawned(private),
  systemd.nspawned(published),
  systemd.nspawned(shared),
  systemd.nspawned(ancient),
}
