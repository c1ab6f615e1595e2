-- P012: bad arguments to sysctl, timezone, locale and hostname.mailname.
--! P012 12
--! P012 13
--! P012 14
--! P012 15
--! P012 16
--! P012 17
--! P012 18
--! P012 19
host "sys.example.com" {
  os.debian("bookworm", "amd64"),
  sysctl.set("vm swappiness", 10),
  sysctl.set("net/ipv4/ip_forward", 1),
  sysctl.set("vm.swappiness", "1\n2"),
  timezone.set "../../etc/passwd",
  timezone.set "Europe/Pa ris",
  locale.available "en_US",
  locale.selected "en US.UTF-8",
  hostname.mailname "mail_example.com",
}
