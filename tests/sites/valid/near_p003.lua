-- Near P003: a host without an OS that uses only UnixLike properties.
host "anything.example.com" {
  file.has_content("/etc/motd", "hi\n"),
  service.running "sshd",
  user.account("ops"),
  cron.job("tick", "*/5 * * * *", { "/usr/bin/logger", "tick" }),
}
