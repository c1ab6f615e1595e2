-- P012: a fragment of a file that no property of the host assembles
-- (file.fragment without file.fragments, firewall.allow without
-- firewall.nftables or firewall.open_declared), at the fragment's line;
-- and each bad argument of file.fragment, file.fragments, firewall.allow.
--! P012 15
--! P012 16
--! P012 18
--! P012 19
--! P012 20
--! P012 21
--! P012 22
--! P012 23
host "nofrag.example.com" {
  os.debian("bookworm", "amd64"),
  file.fragment("/etc/hosts", "db", "10.0.0.3 db"),
  firewall.allow { port = 22 },
  file.fragments("/etc/motd"),
  file.fragment("relative", "x", "y"),
  file.fragment("/etc/motd", "a\nb", "y"),
  file.fragment("/etc/motd", "x", "y", { order = 1.5 }),
  file.fragments("/etc/issue", { header = 3 }),
  firewall.allow { port = 22, proto = "icmp" },
  firewall.allow { port = 22, from = { "not-an-address" } },
}
