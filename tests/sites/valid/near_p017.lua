-- Near P017: web sites that do not clash.  One name on two ports, two
-- names on one port, one name on two hosts, a site and the one it
-- replaces (reverted), one default site per port; a Docker container and
-- an nspawn machine with a private network each have a network of their
-- own, so their sites may answer the host's names.  The sites of one
-- server share its ports (no P006 between nginx.installed and them).
local www = "server { listen 80; server_name www.example.com; root /srv/www; }\n"
local app = docker.container("app", "debian:bookworm", {
  os.debian("bookworm", "amd64"),
  nginx.installed(),
  nginx.site("www", "server { listen 80 default_server; server_name www.example.com; }\n"),
})
local batch = systemd.container("batch", os.debian("bookworm", "amd64"), {
  systemd.private_network(),
  apache.installed(),
  apache.site("www", "<VirtualHost *:80>\n  ServerName www.example.com\n</VirtualHost>\n"),
})
host "web1.example.com" {
  os.debian("bookworm", "amd64"),
  nginx.installed(),
  nginx.site("www", www),
  nginx.site("www-tls", "server {\n  listen 443 ssl default_server;\n  listen [::]:443 ssl;\n  server_name www.example.com;\n}\n"),
  nginx.site("api", "server { listen 80 default_server; server_name api.example.com; }\n"),
  revert(nginx.site("old", "server { listen 80; server_name www.example.com; root /srv/old; }\n")),
  docker.running(app),
  systemd.nspawned(batch),
}
host "web2.example.com" {
  os.debian("bookworm", "amd64"),
  nginx.installed(),
  nginx.site("www", www),
}
