-- P012 and P007: sudo.enabled_for's arguments, checked before anything
-- runs, and one user's rules file given two contents.
--! P012 11
--! P012 12
--! P012 13
--! P012 14
--! P012 15
--! P007 17
host "sudo.example.com" {
  os.debian("bookworm", "amd64"),
  sudo.enabled_for("Alice"),
  sudo.enabled_for("bob", { commands = { "not an absolute path" } }),
  sudo.enabled_for("carol", { commands = { "/usr/bin/apt-get #update" } }),
  sudo.enabled_for("dave", { nopassword = true }),
  sudo.enabled_for("erin", { commands = {}, nopasswd = "yes" }),
  sudo.enabled_for("frank", { nopasswd = true }),
  sudo.enabled_for("frank"),
}
