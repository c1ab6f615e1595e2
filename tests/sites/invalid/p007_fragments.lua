-- P007 over a file built from fragments: one fragment name with two
-- texts, or two orders (one from a role); a fixed content, a line or an
-- absent file beside a file.fragments; two different file.fragments of
-- one file; two different firewalls of one host (each role adds its
-- ports with firewall.allow instead).  Fragments of other names and a
-- mode beside the fragments agree.
--! P007 21
--! P007 15
--! P007 27
--! P007 29
--! P007 31
--! P007 33
--! P007 39
local function app(h)
  return { file.fragment("/etc/hosts", "app", "10.0.0.2 app", { order = 10 }) }
end
host "frag.example.com" {
  os.debian("bookworm", "amd64"),
  file.fragments("/etc/hosts", { header = "# managed by prop" }),
  file.fragment("/etc/hosts", "db", "10.0.0.3 db"),
  file.fragment("/etc/hosts", "db", "10.0.0.4 db"),
  file.fragment("/etc/hosts", "web", "10.0.0.5 web"),
  file.fragment("/etc/hosts", "app", "10.0.0.2 app"),
  app,
  file.mode("/etc/hosts", "0644"),
  file.fragments("/etc/sudoers.d/roles", { mode = "0440" }),
  file.has_content("/etc/sudoers.d/roles", "root ALL=(ALL) ALL\n"),
  file.fragments("/etc/motd"),
  file.fragments("/etc/motd", { header = "# other" }),
  file.fragments("/etc/issue"),
  file.contains_lines("/etc/issue", { "welcome" }),
  file.fragments("/etc/issue.net"),
  file.absent "/etc/issue.net",
}
host "fw.example.com" {
  os.debian("bookworm", "amd64"),
  firewall.nftables { allow = { 22 } },
  firewall.allow { port = 80 },
  firewall.nftables { allow = { 443 } },
}
