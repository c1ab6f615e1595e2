-- P003: a host that declares no OS is typed by its properties (their
-- targets intersect); here a Debian package and a FreeBSD one cannot
-- share one machine.  One diagnostic per host.
--! P003 8
host "web1.example.com" {
  file.has_content("/etc/motd", "hi\n"),
  apt.installed { "nginx" },
  pkg.installed { "tor" },
  pkg.installed { "vim" },
}

-- Without an OS but agreeing: DebianLike, no finding.
host "web2.example.com" {
  apt.installed { "nginx" },
  pick_os(apt.upgraded(), pkg.upgraded()),
}
