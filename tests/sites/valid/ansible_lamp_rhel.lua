-- A LAMP stack on RHEL-family hosts, as Ansible's simple LAMP example
-- playbook sets it up on CentOS (a web tier with httpd and PHP, a database
-- tier with MariaDB), written the prop way: the tiers are Lua functions,
-- the hosts CentOS, Rocky and AlmaLinux (one rhel family), and what every
-- host gets is chosen by OS with packages.*, which an Arch or Debian host
-- could share.

local ntp_server = "0.rhel.pool.ntp.org"

-- What every host gets (Ansible's "common" role).
local function common()
  return {
    packages.installed { "chrony", "git" },
    file.has_content("/etc/chrony.conf",
                     "server " .. ntp_server .. " iburst\ndriftfile /var/lib/chrony/drift\n")
      :on_change(service.restarted "chronyd"),
    service.running "chronyd",
    service.enabled "chronyd",
  }
end

-- The web tier: httpd with PHP, the application from git.
local function web(repo, version)
  return {
    dnf.installed { "httpd", "php", "php-mysqlnd", "git" },
    file.has_content("/etc/httpd/conf.d/app.conf", [[
<VirtualHost *:80>
    DocumentRoot /var/www/html
    DirectoryIndex index.php
</VirtualHost>
]]):on_change(service.restarted "httpd"),
    cmd.run({ "git", "clone", "--branch", version, repo, "/var/www/html/app" },
            { creates = "/var/www/html/app" }),
    service.running "httpd",
    service.enabled "httpd",
  }
end

-- The database tier.
local function db(port)
  return {
    dnf.installed { "mariadb-server", "python3-PyMySQL" },
    conffile.ini_setting("/etc/my.cnf.d/server.cnf", "mysqld", "port", tostring(port))
      :on_change(service.restarted "mariadb"),
    service.running "mariadb",
    service.enabled "mariadb",
  }
end

host "web1.example.com" { os.centos("9", "amd64"), ipv4 "192.0.2.21", common(),
  web("https://git.example.com/lamp/app.git", "v1.4") }
host "web2.example.com" { os.rocky("9.4", "amd64"), ipv4 "192.0.2.22", common(),
  web("https://git.example.com/lamp/app.git", "v1.4") }
host "db1.example.com" { os.alma("9", "amd64"), ipv4 "192.0.2.31", common(), db(3306) }
-- Keeping the web tier's packages current on the build image too.
host "image.example.com" { os.rhel("9", "amd64"),
  dnf.installed { "httpd", "php", installroot = "/srv/images/web" },
  dnf.upgraded { installroot = "/srv/images/web" } }
