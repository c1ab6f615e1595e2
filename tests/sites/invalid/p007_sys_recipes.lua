-- P007: one kernel setting given two values, two locales selected, two
-- time zones, hostname.sane beside hostname.mailname; settings of
-- different keys agree.
--! P007 12
--! P007 14
--! P007 16
--! P007 18
host "sys.example.com" {
  os.debian("bookworm", "amd64"),
  sysctl.set("vm.swappiness", 10),
  sysctl.set("net.ipv4.ip_forward", 1),
  sysctl.set("vm.swappiness", 60),
  locale.selected "en_US.UTF-8",
  locale.selected "de_DE.UTF-8",
  timezone.set "Europe/Paris",
  timezone.set "UTC",
  hostname.sane(),
  hostname.mailname "example.com",
}
