-- P012: names that are directories, and numeric owners out of range,
-- whether given as numbers or as strings of digits.
--! P012 13
--! P012 14
--! P012 15
--! P012 16
--! P012 17
--! P012 18
--! P012 19
--! P012 20
host "ids.example.com" {
  os.debian("bookworm", "amd64"),
  service.running ".",
  service.stopped "..",
  file.has_content("/etc/a", "x", { owner = 4294967295 }),
  file.owner("/etc/b", "4294967295"),
  file.owner("/etc/c", 4294967295),
  file.directory("/srv/d", { group = "99999999999999999999" }),
  file.owner("/etc/e", "root", -1),
  file.has_content("/etc/f", "x", { group = 12.5 }),
}
