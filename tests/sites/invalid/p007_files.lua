-- P007: one path given incompatible contents or states, across recipes.
--! P007 11
--! P007 13
--! P007 15
--! P007 17
--! P007 19
--! P007 21
host "files.example.com" {
  os.debian("bookworm", "amd64"),
  file.has_content("/etc/a.conf", "x=1\n"),
  file.absent "/etc/a.conf",
  file.contains_lines("/etc/b.conf", { "secure=1", "debug=0" }),
  file.lacks_lines("/etc/b.conf", "debug=0"),
  file.has_content("/etc/c.conf", { "a=1", "b=2" }),
  file.contains_lines("/etc/c.conf", { "secure=1" }),
  file.directory "/srv/data",
  file.has_content("/srv/data", "not a directory\n"),
  file.mode("/etc/d.conf", "0644"),
  file.mode("/etc/d.conf", "0600"),
  file.has_content("/etc/e.conf", "one\n"),
  file.has_content("/etc/e.conf", "two\n"),
}
