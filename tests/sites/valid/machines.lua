-- systemd-nspawn machines on a Debian host and a jail on a FreeBSD one:
-- each container's properties are checked against its own OS, and the
-- published ports are the parent's (8080 and 8443 here, while the parent
-- itself serves 80).
local web = systemd.container("web", os.debian("bookworm", "amd64"), {
  apt.installed { "nginx" },
  service.running "nginx",
  file.has_content("/var/www/html/index.html", "web\n"),
  systemd.publish(8080, 80),
  systemd.publish(8443, 443),
  systemd.bind("/srv/www", "/var/www/shared", { readonly = true }),
})
local batch = systemd.container("batch", os.buntish("noble", "amd64"), {
  user.account "worker",
  systemd.private_network(),
}, { path = "/srv/machines/batch" })

host "box.example.com" {
  os.debian("bookworm", "amd64"),
  apache.installed(),
  systemd.nspawned(web),
  systemd.nspawned(batch, { start = false }),
  revert(systemd.nspawned(systemd.container("old", os.debian("bullseye", "amd64"), {}))),
}

local www = jail.container("www", os.freebsd("14.1-RELEASE", "amd64"), {
  pkg.installed { "nginx" },
  service.running "nginx",
}, { ip4 = "em0|192.0.2.50" })

host "nas.example.com" {
  os.freebsd("14.1-RELEASE", "amd64"),
  jail.running(www),
}
