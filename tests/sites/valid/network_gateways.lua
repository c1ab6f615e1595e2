-- IPv6 gateways that are on-link whatever the interface's prefix: the
-- 6to4 relay ::192.88.99.1 (an IPv4-compatible address, reached over a
-- sit tunnel) and a link-local router (fe80::1).
host "gw.example.net" {
  os.debian("bookworm", "amd64"),
  network.interface("eth0", { address = "2001:db8:1::5/64", gateway = "fe80::1" }),
  network.interface("sit0", { address = "2002:c000:201::1/16", gateway = "::192.88.99.1" }),
  network.interface("eth1", { address = "192.0.2.5/24", gateway = "192.0.2.1" }),
  network.interface("eth2", { address = "2001:db8:2::5/64", gateway = "2001:DB8:2::1" }),
}
