-- P017: two web sites of one host answer one name on one port (names
-- compare without case, a ServerAlias is a name), or are both the default
-- site of one port.  The error is at the second site, the note at the
-- first.  Other ports and "server_name _" do not clash; the same site
-- twice is W101 only.
--! P017 21
--! note 20
--! P017 23
--! note 22
--! P017 30
--! note 29
--! W101 38 warning
--! note 36
--! total 4
local www = "server { listen 80; server_name www.example.com example.com; root /srv/www; }\n"
local tls = "server { listen 443 ssl; server_name www.example.com; root /srv/www; }\n"
host "web1.example.com" {
  os.debian("bookworm", "amd64"),
  nginx.installed(),
  nginx.site("www", www),
  nginx.site("old", "server { listen 80; server_name WWW.Example.com; root /srv/old; }\n"),
  nginx.site("catchall", "server {\n  listen 80 default_server;\n  server_name _;\n}\n"),
  nginx.site("fallback", "server { listen 80 default_server; return 404; }\n"),
  nginx.site("tls", tls),
}
host "web2.example.com" {
  os.debian("bookworm", "amd64"),
  apache.installed(),
  apache.site("shop", "<VirtualHost *:80>\n  ServerName shop.example.com\n  ServerAlias www.shop.example.com\n</VirtualHost>\n"),
  apache.site("promo", "<VirtualHost *:80>\n  ServerName www.shop.example.com\n</VirtualHost>\n"),
  apache.site("shop-tls", "<VirtualHost *:443>\n  ServerName shop.example.com\n  SSLEngine on\n</VirtualHost>\n"),
}
host "web3.example.com" {
  os.debian("bookworm", "amd64"),
  nginx.installed(),
  nginx.site("www", www),
  nginx.site("tls", tls),
  nginx.site("www", www),
}
