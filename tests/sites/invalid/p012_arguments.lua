-- P012: bad arguments, all reported in one pass.
--! P012 18
--! P012 19
--! P012 20
--! P012 21
--! P012 22
--! P012 23
--! P012 24
--! P012 25
--! P012 26
--! P012 27
--! P012 28
--! P012 29
--! P012 30
--! P012 31
host "args.example.com" {
  os.debian("bookworm", "amd64"),
  file.has_content("/etc/motd", 42),
  file.has_content("/etc/issue", "hi\n", { mdoe = "0644" }),
  file.directory "srv/www",
  connect.ssh { address = "192.0.2.1", port = 0 },
  property { desc = "listener", ports = { 70000 }, apply = function() end },
  file.mode("/etc/shadow", "999"),
  file.directory("/var/www", { mode = 0755 }),
  cmd.run "systemctl restart nginx",
  apt.installed { "Not A Package" },
  user.account("alice", { uid = -5, shel = "/bin/sh" }),
  cron.job("backup.daily", "@daily", { "/usr/local/bin/backup" }),
  ipv4 "192.0.2.300",
  os.debian("bookworm", "x86_64"),
  service.running(nil),
}
