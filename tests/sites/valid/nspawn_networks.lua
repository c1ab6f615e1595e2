-- nginx on a host and in systemd-nspawn machines that have a network of
-- their own (systemd.private_network, or a port published to another
-- port of the host): no port is shared.
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
host "box.example.com" {
  os.debian("bookworm", "amd64"),
  nginx.installed(),
  systemd.nspawned(private),
  systemd.nspawned(published),
  systemd.nspawned(shared),
}
