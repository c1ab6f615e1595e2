-- Near P004: a shared list without an OS, each host declaring its own.
local base = props { apt.update(), apt.installed "curl" }

host "web1.example.com" {
  os.debian("trixie", "amd64"),
  base,
}

host "web2.example.com" {
  os.buntish("noble", "arm64"),
  base,
}
