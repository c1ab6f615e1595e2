-- P012: ports outside 1..65535.
--! P012 6
--! P012 10
host "ssh.example.com" {
  os.debian("bookworm", "amd64"),
  connect.ssh { port = 70000 },
}
host "ssh2.example.com" {
  os.debian("bookworm", "amd64"),
  connect.ssh { prot = 22 },
}
