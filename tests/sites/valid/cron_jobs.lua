-- Scheduled maintenance: backups, certificate renewal, a weekly report.

local function nightly(name, hour, argv, user)
  return cron.job(name, string.format("15 %d * * *", hour), argv, { user = user })
end

host "jobs.example.com" {
  os.buntish("noble", "amd64"),
  user.account("backup", { uid = 34, home = "/var/backups", shell = "/usr/sbin/nologin" }),
  apt.installed { "restic", "certbot" },
  nightly("restic-backup", 2, { "/usr/bin/restic", "backup", "--quiet", "/srv" }, "backup"),
  nightly("restic-prune", 4, { "/usr/bin/restic", "forget", "--keep-daily", "7", "--prune" }, "backup"),
  cron.job("certbot-renew", "@daily", { "/usr/bin/certbot", "renew", "--quiet" }),
  cron.job("weekly_report", "0 8 * * mon",
           { "/usr/local/bin/report", "--format", "100%", "--title", "it's monday" }),
  file.absent "/etc/cron.d/old-backup",
}
