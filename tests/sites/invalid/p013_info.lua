-- P013: one address on two hosts, two hostnames on one host.
--! P013 5
--! P013 10
host "web1.example.com" { os.debian("bookworm", "amd64"), ipv4 "192.0.2.10" }
host "web2.example.com" { os.debian("bookworm", "amd64"), ipv4 "192.0.2.10" }

host "web3.example.com" {
  os.debian("bookworm", "amd64"),
  hostname.set "web3.example.com",
  hostname.set "www3.example.com",
}
