-- P008: a package both installed and removed, directly or by a revert.
--! P008 10
--! P008 11
local telnet = apt.installed { "telnet" }

host "web1.example.com" {
  os.debian("bookworm", "amd64"),
  telnet,
  apt.installed { "curl", "wget" },
  apt.removed { "telnet" },
  revert(apt.installed "wget"),
}
