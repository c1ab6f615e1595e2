-- Near P001: every revert here has an undo action.
local conf = file.contains_lines("/etc/x.conf", "a=1")
local composite = apt.installed { "x" }:requires(conf)
local motd = revertable(file.has_content("/etc/motd", "hello\n"), file.absent "/etc/motd")

host "h1.example.com" {
  os.debian("bookworm", "amd64"),
  revert(composite),
  revert(motd),
  revert(user.account("olduser")),
  revert(cron.job("old-job", "@hourly", { "/bin/true" })),
  revert(service.running "cups"),
}
