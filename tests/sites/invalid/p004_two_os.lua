-- P004: a host declares its OS twice, once through a shared list.
--! P004 8
--! P004 13
local base = props { os.debian("bookworm", "amd64"), apt.update() }

host "web1.example.com" {
  base,
  os.debian("trixie", "amd64"),
}

host "web2.example.com" {
  os.debian("bookworm", "amd64"),
  os.freebsd("14.1-RELEASE", "amd64"),
}
