-- P012: bad arguments to file.line and file.line_absent.
--! P012 14
--! P012 15
--! P012 16
--! P012 17
--! P012 18
--! P012 19
--! P012 20
--! P012 21
--! P012 22
host "line.example.com" {
  os.debian("bookworm", "amd64"),
  file.line("/etc/foo.conf", "a = 1", { match = "^a%s*=" }),
  file.line("/etc/foo.conf", "b = 1", { match = "^b[" }),
  file.line("/etc/foo.conf", "c = 1", { after = "(%d" }),
  file.line("/etc/foo.conf", "d = 1", { before = "%" }),
  file.line("/etc/foo.conf", "e\nf"),
  file.line("/etc/foo.conf", "g = 1", { match = "^g", match_plain = "g" }),
  file.line("/etc/foo.conf", "h = 1", { validate = { "visudo", "-cf" } }),
  file.line("/etc/foo.conf", "i = 1", { validate = "visudo -cf %s" }),
  file.line_absent("/etc/foo.conf", "j = 1", { match = "[j" }),
  file.line_absent("/etc/foo.conf", "k = 1", { after = "^k" }),
}
