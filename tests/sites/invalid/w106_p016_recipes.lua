-- prop's recipes that talk to a daemon declare what they use: postfix's
-- reload uses postfix, letsencrypt.certbot port 80 of the web server (or
-- the service web_server names), dns.* named (which dns.primary starts
-- itself: clean), web.site's proxy to a port of the host itself.
--! W106 14 warning
--! W106 15 warning
--! W106 41 warning
--! P016 20
--! note 21
--! P016 25
--! note 26
host "mx1.example.org" {
  os.debian("bookworm", "amd64"),
  postfix.main_cf { message_size_limit = 52428800 },
  letsencrypt.certbot("mx1.example.org", "admin@example.org"),
  dns.primary("example.org", { ns = { "ns1.example.org" } }),
}
host "www.example.org" {
  os.debian("bookworm", "amd64"),
  letsencrypt.certbot("www.example.org", "admin@example.org", { web_server = "nginx" }),
  nginx.installed(),
}
host "mx2.example.org" {
  os.debian("bookworm", "amd64"),
  postfix.main_cf { message_size_limit = 52428800 },
  postfix.installed(),
}
host "ok.example.org" {
  os.debian("bookworm", "amd64"),
  postfix.installed(),
  postfix.main_cf { message_size_limit = 52428800 },
  apache.installed(),
  letsencrypt.certbot("ok.example.org", "admin@example.org"),
}
host "ns1.example.org" { ipv4 "192.0.2.53" }
-- web.site: a proxy to a port of the host itself uses it (W106 when
-- nothing declares it); one to another machine is not checked.
host "app.example.org" {
  os.debian("bookworm", "amd64"),
  nginx.installed(),
  web.site("app.example.org", { proxy = "http://127.0.0.1:8080" }),
  web.site("api.example.org", { proxy = "http://192.0.2.10:8080" }),
}
