-- P007: two file.line with one match and different lines, fixed content
-- for a file a line of which is edited, a line both present and removed.
-- The same match with the same line, another match, and a pattern that
-- differs only by case agree.
--! W101 12
--! P007 15
--! P007 17
--! P007 19
host "lines.example.com" {
  os.debian("bookworm", "amd64"),
  file.line("/etc/ssh/sshd_config", "PermitRootLogin no", { match = "^PermitRootLogin%s" }),
  file.line("/etc/ssh/sshd_config", "PermitRootLogin no", { match = "^PermitRootLogin%s" }),
  file.line("/etc/ssh/sshd_config", "Port 22", { match = "^Port%s" }),
  file.line("/etc/ssh/sshd_config", "port 2222", { match = "^port%s" }),
  file.line("/etc/ssh/sshd_config", "PermitRootLogin yes", { match = "^PermitRootLogin%s" }),
  file.line("/etc/app.conf", "debug=0", { match = "^debug=" }),
  file.has_content("/etc/app.conf", "debug=0\n"),
  file.line("/etc/motd", "Managed by prop"),
  file.lacks_lines("/etc/motd", "Managed by prop"),
}
