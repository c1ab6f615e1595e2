-- The everyday base of a machine: kernel settings, time zone, locales,
-- host and mail names.  Different kernel keys and the locale that is both
-- made available and selected agree.

local function base(zone)
  return props {
    timezone.set(zone),
    locale.available "en_US.UTF-8",
    locale.selected "en_US.UTF-8",
    hostname.sane(),
  }
end

host "mail.example.com" {
  os.debian("bookworm", "amd64"),
  base "Europe/Paris",
  locale.available "fr_FR.UTF-8",
  sysctl.set("vm.swappiness", 10),
  sysctl.set("net.ipv4.ip_forward", 1),
  sysctl.set("net.ipv4.ip_local_port_range", "20000 60999"),
  revert(sysctl.set("kernel.sysrq", 1)),
}

host "relay.example.com" {
  os.buntish("noble", "amd64"),
  hostname.set "relay.example.com",
  hostname.mailname "example.com",
  timezone.set "UTC",
}

host "bsd.example.com" {
  os.freebsd("14.1", "amd64"),
  timezone.set "America/Argentina/Buenos_Aires",
  hostname.sane(),
}
