-- W110: a raw site whose listen and server name lines prop cannot read
-- is not checked for P017 or its ports, and the warning says why: an
-- include where listen or server_name may be, no server block, a
-- variable; for Apache an Include, a Use of a macro, no VirtualHost, a
-- variable.  An include inside a location block is read past, and an
-- empty text declares nothing.
--! W110 18 warning
--! W110 19 warning
--! W110 20 warning
--! W110 21 warning
--! W110 27 warning
--! W110 28 warning
--! W110 29 warning
--! W110 30 warning
--! total 8
host "web1.example.com" {
  os.debian("bookworm", "amd64"),
  nginx.site("inc", "include /etc/nginx/www.conf;\n"),
  nginx.site("upstream", "upstream app { server 127.0.0.1:8080; }\n"),
  nginx.site("var", "server { listen $port; server_name www.example.com; }\n"),
  nginx.site("open", "server { listen 80; server_name www.example.com;\n"),
  revert(nginx.site("gone", "")),
  nginx.site("php", "server {\n  listen 80;\n  server_name php.example.com;\n  location ~ \\.php$ { include snippets/fastcgi-php.conf; }\n}\n"),
}
host "web2.example.com" {
  os.debian("bookworm", "amd64"),
  apache.site("inc", "<VirtualHost *:80>\n  Include /etc/apache2/www.inc\n</VirtualHost>\n"),
  apache.site("macro", "Use VHost www.example.com 80\n"),
  apache.site("global", "ServerName localhost\n"),
  apache.site("var", "<VirtualHost *:80>\n  ServerName ${SITE_NAME}\n</VirtualHost>\n"),
}
