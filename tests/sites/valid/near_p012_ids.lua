-- Numeric owners and groups, as numbers or strings of digits alike: the
-- same id claims the same owner, so these agree instead of clashing.
host "ids.example.com" {
  os.debian("bookworm", "amd64"),
  file.has_content("/etc/app.conf", "x\n", { owner = "1000", group = 1000 }),
  file.owner("/etc/app.conf", 1000, "1000"),
  file.directory("/srv/data", { owner = 4294967294, group = "0" }),
  file.owner("/srv/data", "4294967294", 0),
  service.running "ssh.socket",
  service.running ".hidden",
}
