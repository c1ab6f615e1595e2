-- P017 across one network: the sites of a chroot, which shares its host's
-- network, are checked with their host's; those of a Docker container and
-- of a systemd-nspawn machine with a private network are not (each has a
-- network of its own).  (An nspawn machine without one is checked with
-- its host too, and its nginx beside the host's is P006 already:
-- p006_shared_network.lua.)
--! P017 26
--! note 11
--! total 1
local old = chroot.debootstrapped("/srv/chroot/old", os.debian("bookworm", "amd64"), {
  nginx.site("old", "server { listen 80; server_name www.example.com; root /srv/old; }\n"),
})
local own = systemd.container("own", os.debian("bookworm", "amd64"), {
  systemd.private_network(),
  nginx.installed(),
  nginx.site("www", "server { listen 80; server_name www.example.com; }\n"),
})
local app = docker.container("app", "debian:bookworm", {
  os.debian("bookworm", "amd64"),
  nginx.installed(),
  nginx.site("www", "server { listen 80; server_name www.example.com; }\n"),
})
host "box.example.com" {
  os.debian("bookworm", "amd64"),
  nginx.installed(),
  nginx.site("www", "server { listen 80; server_name www.example.com; }\n"),
  chroot.provisioned(old),
  systemd.nspawned(own),
  docker.running(app),
}
