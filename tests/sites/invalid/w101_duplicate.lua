-- W101: the same property twice on a host (harmless, but a slip).
--! W101 6 warning
host "web1.example.com" {
  os.debian("bookworm", "amd64"),
  apt.installed { "nginx" },
  apt.installed { "nginx" },
}
