-- A FreeBSD file server: packages through pkg, Samba, a scratch dataset.

host "nas.example.com" {
  os.freebsd("14.1-RELEASE", "amd64"),
  connect.ssh { address = "nas.example.com", user = "admin", sudo = true },
  ipv4 "192.0.2.40",
  pkg.installed { "samba419", "smartmontools", "tmux" },
  pkg.removed "sudo",
  pkg.upgraded(),
  file.contains_lines("/etc/rc.conf", { 'samba_server_enable="YES"', 'smartd_enable="YES"' }),
  file.has_content("/usr/local/etc/smb4.conf", {
    "[global]",
    "  workgroup = EXAMPLE",
    "[scratch]",
    "  path = /tank/scratch",
  }):on_change(service.restarted "samba_server"),
  file.directory("/tank/scratch", { mode = "1777" }),
  service.running "samba_server",
  group.exists("nas", { gid = 3000 }),
  user.account("share", { uid = 3001, gid = 3000, shell = "/usr/sbin/nologin" }),
}
