-- P002: properties whose targets exclude the host's OS.
--! P002 7
--! P002 8
--! P002 14
host "bsd.example.com" {
  os.freebsd("14.1-RELEASE", "amd64"),
  apt.installed { "nginx" },
  apache.installed(),
  pkg.installed { "nginx" },
}

host "deb.example.com" {
  os.debian("bookworm", "amd64"),
  pkg.installed "tmux",
  file.has_content("/etc/motd", "hi\n"):requires(apt.update()),
}
