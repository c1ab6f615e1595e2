-- Typed web sites: an nginx host with several HTTPS sites from Let's
-- Encrypt, a proxy to a backend the host runs, a redirect, a default site
-- and a raw nginx.site beside them; an Apache host whose sites pick their
-- server from its list (web.site without server=).  Lints clean: every
-- name answers on its port once, the sites share the server's ports.

local backend = property {
  desc = "app backend on 8080",
  targets = "DebianLike",
  ports = { 8080 },
  check = function(sys) return (sys:tcp { host = "127.0.0.1", port = 8080, framing = "connect" }) end,
  apply = function(sys) sys:run { "systemctl", "start", "app" } end,
}

host "web1.example.org" {
  os.debian("bookworm", "amd64"),
  nginx.installed(),
  backend,
  web.site({ "example.org", "www.example.org" },
           { root = "/srv/www/example.org", tls = "letsencrypt", email = "admin@example.org" }),
  web.site("app.example.org",
           { proxy = "http://127.0.0.1:8080", tls = "letsencrypt", email = "admin@example.org" }),
  web.site("old.example.org", { redirect = "https://example.org", server = "nginx" }),
  web.site("catchall.example.org", { root = "/srv/www/empty", default = true, port = 8081 }),
  nginx.site("status", "server { listen 8082; server_name status.example.org; return 204; }\n"),
}

host "web2.example.org" {
  os.debian("bookworm", "amd64"),
  apache.installed(),
  web.site({ "example.net", "www.example.net" }, { root = "/srv/www/example.net" }),
  web.site("legacy.example.net", { redirect = "https://example.net/legacy", port = 8080 }),
  web.site("default.example.net", { root = "/var/www/html", default = true }),
}
