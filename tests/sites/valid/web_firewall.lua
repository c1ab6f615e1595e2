-- Web servers behind a firewall that opens what the hosts declare: an
-- nginx front with two sites, an Apache back end on its own ports with a
-- module, and a database host whose firewall lists its rules by hand.

local vhost = [[
server {
    listen 80;
    server_name %s;
    root /srv/www/%s;
}
]]

local function site(name)
  return nginx.site(name, string.format(vhost, name, name))
end

host "front.example.com" {
  os.debian("bookworm", "amd64"),
  nginx.installed(),
  site "example.org",
  site "example.net",
  nginx.site_disabled "default",
  revert(nginx.site("old.example.org", "")),
  firewall.open_declared(),
}

host "app.example.com" {
  os.debian("bookworm", "amd64"),
  apache.installed(),
  apache.listen_ports { 80, 8080 },
  apache.module "headers",
  revert(apache.module "status"),
  apache.site("app", "<VirtualHost *:8080>\n  DocumentRoot /srv/app\n</VirtualHost>\n"),
  apache.site_disabled "000-default",
  firewall.open_declared { allow = { { port = 9100, from = "192.0.2.0/24" } }, ping = false },
}

host "db.example.com" {
  os.debian("bookworm", "amd64"),
  firewall.nftables {
    allow = { 22, { port = 5432, from = "192.0.2.0/24" }, { port = 5432, from = "2001:db8::/32" } },
    policy = "reject",
  },
}
