-- P006: a systemd-nspawn machine without a network of its own listens on
-- its host's ports, so nginx inside it and nginx on the host clash.
--! P006 10
--! note 9
--! total 1
local web = systemd.container("web", os.debian("bookworm", "amd64"), { nginx.installed() })
host "box.example.com" {
  os.debian("bookworm", "amd64"),
  nginx.installed(),
  systemd.nspawned(web),
}
