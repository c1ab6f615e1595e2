-- P012: gateways the kernel could not use (addresses read by inet_pton).
--! P012 10
--! P012 11
--! P012 12
--! P012 13
--! P012 14
--! total 5
host "gw.example.net" {
  os.debian("bookworm", "amd64"),
  network.interface("eth0", { address = "2001:db8:1::5/64", gateway = "2001:db8:2::1" }),
  network.interface("eth1", { address = "192.0.2.5/24", gateway = "192.0.3.1" }),
  network.interface("eth2", { address = "192.0.2.5/24", gateway = "192.0.2.256" }),
  network.interface("eth3", { address = "2001:db8::5/64", gateway = "2001:db8::5" }),
  network.interface("eth4", { address = "2001:db8::5/64", gateway = "::1" }),
}
