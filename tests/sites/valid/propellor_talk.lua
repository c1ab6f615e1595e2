-- The configuration from the Propellor talk, in prop.

local securefoo = apt.installed { "foo" }
  :requires(file.contains_lines("/etc/foo", { "secure=1" }))
  :on_change(service.restarted "foo")

local bar = revertable(apt.installed { "bar" }, apt.removed { "bar" })

host "foo.example.com" {
  os.debian("bookworm", "amd64"),
  apt.std_sources_list(),
  apt.installed { "openssh-server" },
  securefoo,
  revert(bar),
  ipv4 "192.0.2.10",
}

host "bsd.example.com" {
  os.freebsd("14.1-RELEASE", "amd64"),
  pick_os(apt.upgraded(), pkg.upgraded()),
  ipv4 "192.0.2.11",
}
