-- P006: a systemd-nspawn machine without a network of its own listens on
-- its host's ports, so nginx inside it and nginx on the host clash, as
-- do an Apache inside that still listens on 80 and one on the host.
--! P006 13
--! note 12
--! P006 22
--! note 21
--! total 2
local web = systemd.container("web", os.debian("bookworm", "amd64"), { nginx.installed() })
host "box.example.com" {
  os.debian("bookworm", "amd64"),
  nginx.installed(),
  systemd.nspawned(web),
}
local old = systemd.container("old", os.debian("bookworm", "amd64"), {
  apache.installed(),
  apache.listen_ports { 80, 1994 },
})
host "kite.example.com" {
  os.debian("bookworm", "amd64"),
  apache.installed(),
  systemd.nspawned(old),
}
