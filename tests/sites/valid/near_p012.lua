-- Near P012: the same recipes as the P012 site, with good arguments,
-- including every accepted spelling.
host "args.example.com" {
  os.debian("bookworm", "amd64"),
  file.has_content("/etc/motd", "42\n"),
  file.has_content("/etc/issue", { "hi" }, { mode = "644" }),
  file.directory("/srv/www", { mode = "04755" }),
  connect.ssh { address = "192.0.2.1", port = 65535 },
  property { desc = "listener", ports = { 1 }, apply = function() end },
  file.mode("/etc/shadow", "0640"),
  cmd.run({ "systemctl", "restart", "nginx" }, { creates = "/run/nginx.pid" }),
  apt.installed "libc6:i386",
  apt.installed("git", "make"),
  user.account("alice", { uid = 0, shell = "/bin/sh" }),
  cron.job("backup-daily", "@daily", { "/usr/local/bin/backup" }),
  ipv4 "192.0.2.255",
  ipv6 "::ffff:192.0.2.1",
  service.running "getty@tty1",
}
