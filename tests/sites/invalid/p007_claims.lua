-- P007 with hand-written properties: claims.files owns a file whole and
-- claims.lines edits it, checked against every file recipe in both
-- orders (the later of the two carries the error).
local function nop(sys) end

host "owned.example.com" {
  os.debian("bookworm", "amd64"),
  property { desc = "owns a", claims = { files = { "/etc/a" } }, apply = nop },
  file.has_content("/etc/a", "x\n"),
  file.has_content("/etc/b", "x\n"),
  property { desc = "owns b", claims = { files = { "/etc/b" } }, apply = nop },
  property { desc = "owns c", claims = { files = { "/etc/c" } }, apply = nop },
  file.contains_lines("/etc/c", "x"),
  file.lacks_lines("/etc/d", "x"),
  property { desc = "owns d", claims = { files = { "/etc/d" } }, apply = nop },
  property { desc = "owns e", claims = { files = { "/etc/e" } }, apply = nop },
  file.directory "/etc/e",
  file.symlink("/etc/f", "/x"),
  property { desc = "owns f", claims = { files = { "/etc/f" } }, apply = nop },
  property { desc = "owns g", claims = { files = { "/etc/g" } }, apply = nop },
  file.absent "/etc/g",
}

host "tree.example.com" {
  os.debian("bookworm", "amd64"),
  property { desc = "owns /srv/app", claims = { files = { "/srv/app" } }, apply = nop },
  file.has_content("/srv/app/config.ini", "x=1\n"),
  property { desc = "another owner", claims = { files = { "/srv/app" } }, apply = nop },
  property { desc = "owns below", claims = { files = { "/srv/app/cache" } }, apply = nop },
}

host "lines.example.com" {
  os.debian("bookworm", "amd64"),
  property { desc = "no passwords", claims = { lines = { ["/etc/ssh/sshd_config"] = "PasswordAuthentication no" } }, apply = nop },
  file.lacks_lines("/etc/ssh/sshd_config", "PasswordAuthentication no"),
  file.has_content("/etc/ssh/sshd_config", "Port 22\n"),
  file.has_content("/etc/y", "b=1\n"),
  property { desc = "b=2", claims = { lines = { ["/etc/y"] = { "b=2" } } }, apply = nop },
}

-- Near misses: a mode and an owner beside a file owned whole; a line edit
-- that agrees with the content and with another edit; the same owner
-- listed twice (W101 only).
host "near.example.com" {
  os.debian("bookworm", "amd64"),
  property { desc = "owns app.conf", claims = { files = { "/etc/app.conf" } }, apply = nop },
  file.mode("/etc/app.conf", "0600"),
  file.owner("/etc/app.conf", "root", "root"),
  file.has_content("/etc/z", "c=1\nd=2\n"),
  property { desc = "d=2", claims = { lines = { ["/etc/z"] = "d=2" } }, apply = nop },
  file.contains_lines("/etc/z", "d=2"),
  property { desc = "owns w", claims = { files = { "/srv/w" } }, apply = nop },
}

-- What lint must find (P007 at each of these lines):
--! P007 11
--! P007 13
--! P007 15
--! P007 17
--! P007 19
--! P007 21
--! P007 27
--! P007 28
--! P007 29
--! P007 35
--! P007 36
--! P007 38
--! P007 9
