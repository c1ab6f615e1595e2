-- Near P011: names that look alike are different hosts.
host "web1" { os.debian("bookworm", "amd64"), apt.installed { "nginx" } }
host "web1.example.com" { os.debian("bookworm", "amd64"), apt.installed { "nginx" } }
host "Web2" { os.debian("bookworm", "amd64"), apt.installed { "tor" } }
