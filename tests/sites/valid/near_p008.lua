-- Near P008: different packages installed and removed.
host "web1.example.com" {
  os.debian("bookworm", "amd64"),
  apt.installed { "curl", "wget" },
  apt.removed { "telnet" },
  revert(apt.installed "rsh-client"),
}
