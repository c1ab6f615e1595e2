-- Near P007: claims on one path that agree.
host "files.example.com" {
  os.debian("bookworm", "amd64"),
  file.has_content("/etc/a.conf", { "secure=1", "debug=0" }, { mode = "0640" }),
  file.contains_lines("/etc/a.conf", "secure=1"),
  file.lacks_lines("/etc/a.conf", "debug=1"),
  file.mode("/etc/a.conf", "640"),
  file.contains_lines("/etc/b.conf", { "x=1" }),
  file.lacks_lines("/etc/b.conf", { "x=2" }),
  file.directory("/srv/data", { mode = "0755" }),
  file.has_content("/srv/data/readme", "data lives here\n"),
  file.absent "/etc/old.conf",
  file.symlink("/etc/current.conf", "/etc/a.conf"),
}
