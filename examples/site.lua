-- prop's demo site: three machines and a directory tree.
--
--   prop lint examples/site.lua
--   prop show examples/site.lua www.example.com
--   prop run  examples/site.lua demo        (writes only under /tmp/prop-demo)

-- A helper: an Apache virtual host, enabled, reloaded when it changes.
local function vhost(name, docroot)
  local conf = "/etc/apache2/sites-available/" .. name .. ".conf"
  return file.has_content(conf, {
    "<VirtualHost *:80>",
    "  ServerName " .. name,
    "  DocumentRoot " .. docroot,
    "</VirtualHost>",
  }):before(file.symlink("/etc/apache2/sites-enabled/" .. name .. ".conf", conf))
    :requires(file.directory(docroot, { owner = "www-data", group = "www-data" }))
    :on_change(service.restarted "apache2")
end

-- What every machine gets, whatever its OS.
local baseline = props {
  packages.upgraded(),
  user.account("ops", { uid = 900, shell = "/bin/sh" }),
  file.lacks_lines("/etc/ssh/sshd_config", { "PermitRootLogin yes" }),
}

-- A Debian web server.
host "www.example.com" {
  os.debian("bookworm", "amd64"),
  connect.ssh { address = "192.0.2.80", user = "ops", sudo = true },
  ipv4 "192.0.2.80",
  alias "example.com",
  baseline,
  apt.std_sources_list(),
  apache.installed(),
  vhost("example.com", "/srv/www/example.com"),
  service.running "apache2",
  cron.job("logrotate-web", "@daily", { "/usr/sbin/logrotate", "/etc/logrotate.d/apache2" }),
}

-- A FreeBSD file server.
host "files.example.com" {
  os.freebsd("14.1-RELEASE", "amd64"),
  ipv4 "192.0.2.40",
  baseline,
  pkg.installed { "samba419", "smartmontools" },
  file.contains_lines("/etc/rc.conf", { 'samba_server_enable="YES"', 'smartd_enable="YES"' }),
  service.running "samba_server",
  group.exists("share", { gid = 3000 }),
}

-- The configuration from the Propellor talk.
local securefoo = apt.installed { "foo" }
  :requires(file.contains_lines("/etc/foo", { "secure=1" }))
  :on_change(service.restarted "foo")

local bar = revertable(apt.installed { "bar" }, apt.removed { "bar" })

host "foo.example.com" {
  os.debian("bookworm", "amd64"),
  ipv4 "192.0.2.10",
  apt.std_sources_list(),
  apt.installed { "openssh-server" },
  securefoo,
  revert(bar),                       -- Propellor's `! bar`
  pick_os(apt.upgraded(), pkg.upgraded()),
}

-- A directory tree standing in for a machine: file properties only, safe
-- to run anywhere.
host "demo" {
  connect.dir "/tmp/prop-demo",
  file.directory("/etc/demo", { mode = "0755" }),
  file.has_content("/etc/demo/motd", { "Welcome to the prop demo", "Managed by prop" },
                   { mode = "0644" }),
  file.contains_lines("/etc/demo/settings.conf", { "color = auto", "verbose = no" }),
  file.symlink("/etc/demo/current", "motd"),
  file.absent "/etc/demo/old.conf",
}

-- A name server whose zone comes from the hosts above (their ipv4 and
-- alias), and a secret: the database password of the web server, kept
-- encrypted in examples/site.secrets (see prop-secret(1)).  That store
-- was encrypted to a key made for this example and thrown away: nobody
-- can read its value; make your own with prop secret recipients and
-- prop secret set.  prop lint checks it all the same: the names in the
-- store are plain text.
host "ns1.example.com" {
  os.debian("bookworm", "amd64"),
  ipv4 "192.0.2.53",
  dns.primary("example.com", { ns = { "ns1.example.com" },
                               records = { { "@", "MX", "10 www.example.com." } } }),
}

host "db.example.com" {
  os.debian("bookworm", "amd64"),
  ipv4 "192.0.2.60",
  apt.installed { "postgresql" },
  file.has_content("/etc/app/db-password", secret "db_password",
                   { mode = "0640", owner = "root", group = "postgres", shared = true }),
}
