-- P003: OS-specific properties on a host that declares no OS.
--! P003 5
host "web1.example.com" {
  file.has_content("/etc/motd", "hi\n"),
  apt.installed { "nginx" },
}
