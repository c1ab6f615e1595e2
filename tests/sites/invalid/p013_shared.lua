-- P013 with shared addresses: an address several hosts hold on purpose
-- (floating, anycast) is marked shared on every one of them; when one
-- holder does not mark it, the others' marks do not help.
host "ns1.example.com" { os.debian("bookworm", "amd64"), ipv6("2001:db8::53", { shared = true }) }
host "ns2.example.com" { os.debian("bookworm", "amd64"), ipv6("2001:db8::53", { shared = true }) }
host "ns3.example.com" { os.debian("bookworm", "amd64"), ipv6("2001:db8::53", { shared = true }) }

host "lb1.example.com" { os.debian("bookworm", "amd64"), ipv4("192.0.2.80", { shared = true }) }
host "lb2.example.com" { os.debian("bookworm", "amd64"), ipv4 "192.0.2.80" }
host "lb3.example.com" { os.debian("bookworm", "amd64"), ipv4("192.0.2.80", { shared = true }) }

host "bad.example.com" { os.debian("bookworm", "amd64"), ipv4("192.0.2.81", { shared = "yes" }) }

--! P013 9

--! P012 12
