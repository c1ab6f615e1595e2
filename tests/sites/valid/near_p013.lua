-- Near P013: each host its own address; one hostname per host.
host "web1.example.com" { os.debian("bookworm", "amd64"), ipv4 "192.0.2.10", hostname.set "web1.example.com" }
host "web2.example.com" { os.debian("bookworm", "amd64"), ipv4 "192.0.2.11", ipv6 "2001:db8::11" }
host "web3.example.com" { os.debian("bookworm", "amd64"), ipv4 "192.0.2.12", ipv4 "198.51.100.12" }
