-- A machine's published port is one of its parent's ports: the parent's
-- own web server already listens on 80, and two machines cannot both
-- take 8080.
local web = systemd.container("web", os.debian("bookworm", "amd64"), {
  apt.installed { "nginx" },
  systemd.publish(80, 80),
})
local api = systemd.container("api", os.debian("bookworm", "amd64"), { systemd.publish(8080, 80) })
local api2 = systemd.container("api2", os.debian("bookworm", "amd64"), { systemd.publish(8080, 80) })
host "box" {
  os.debian("bookworm", "amd64"),
  apache.installed(),
  systemd.nspawned(web),
  systemd.nspawned(api),
  systemd.nspawned(api2),
}

--! P014 13
--! P014 15
