-- Near P002: per-OS properties on hosts of that OS, pick_os for both.
local editors = pick_os(apt.installed { "vim" }, pkg.installed { "vim" })

host "bsd.example.com" {
  os.freebsd("14.1-RELEASE", "amd64"),
  pkg.installed { "nginx" },
  editors,
  file.has_content("/etc/motd", "hi\n"),
}

host "deb.example.com" {
  os.debian("bookworm", "amd64"),
  apt.installed { "nginx" },
  editors,
  apache.installed(),
}
