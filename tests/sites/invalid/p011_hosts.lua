-- P011: two hosts with one name.
--! P011 5
host "web1" { os.debian("bookworm", "amd64"), apt.installed { "nginx" } }
host "web2" { os.debian("bookworm", "amd64"), apt.installed { "nginx" } }
host "web1" { os.debian("bookworm", "amd64"), apt.installed { "tor" } }
