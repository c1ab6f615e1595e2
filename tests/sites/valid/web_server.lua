-- A Debian web server: Apache with a site of its own, TLS material in
-- place, and the usual hardening.

local docroot = "/srv/www/example.com"

local vhost = file.has_content("/etc/apache2/sites-available/example.com.conf", {
  "<VirtualHost *:80>",
  "  ServerName www.example.com",
  "  DocumentRoot " .. docroot,
  "</VirtualHost>",
}, { mode = "0644", owner = "root", group = "root" })

local site_enabled = file.symlink("/etc/apache2/sites-enabled/example.com.conf",
                                  "../sites-available/example.com.conf")

host "www.example.com" {
  os.debian("bookworm", "amd64"),
  connect.ssh { address = "192.0.2.10", user = "root" },
  ipv4 "192.0.2.10",
  ipv6 "2001:db8::10",
  alias "example.com",
  apt.std_sources_list(),
  apt.installed { "openssh-server", "unattended-upgrades" },
  apache.installed(),
  file.directory(docroot, { mode = "0755", owner = "www-data", group = "www-data" }),
  file.has_content(docroot .. "/index.html", "<h1>It works</h1>\n", { owner = "www-data" }),
  vhost:before(site_enabled):on_change(service.restarted "apache2"),
  service.running "apache2",
  service.enabled "apache2",
  file.lacks_lines("/etc/ssh/sshd_config", { "PermitRootLogin yes", "PasswordAuthentication yes" }),
  apt.removed { "telnet", "rsh-client" },
}
