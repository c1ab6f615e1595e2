-- A LAMP playbook for Debian, as Ansible's LAMP examples set it up (a
-- common role, a web tier with Apache and PHP serving an application
-- from a release tarball, a database tier with MariaDB), written with
-- prop's recipes and no hand-written property: the release is
-- downloaded with its checksum and unpacked by prop itself, the
-- application's configuration and the virtual host come from Jinja
-- templates, and the database, its account and its privileges are
-- typed properties whose password comes from the secret store.

local app = {
  name = "shop",
  version = "2.4.1",
  url = "https://releases.example.com/shop/shop-2.4.1.tar.gz",
  sha256 = "4f6d1a0c3b8f9e2d7a5c6b1e0f9d8c7b6a5e4d3c2b1a09f8e7d6c5b4a3928170",
  root = "/var/www/shop",
  db_host = "db.example.com",
  db_name = "shop",
  db_user = "shop",
  web_hosts = { "192.0.2.11", "192.0.2.12" },
}

-- Every host: time, the firewall that lets in only what the host declares.
local function common(extra_allow)
  return {
    apt.installed { "chrony" },
    service.running "chrony",
    firewall.open_declared { allow = extra_allow or {} },
  }
end

local function web()
  local tarball = "/var/cache/prop/" .. app.name .. "-" .. app.version .. ".tar.gz"
  local download = file.downloaded(tarball, app.url, { sha256 = app.sha256 })
  return {
    apache.installed(),
    apt.installed { "php", "libapache2-mod-php", "php-mysql" },
    apache.module "rewrite",
    file.directory "/var/cache/prop",
    download,
    file.directory(app.root),
    archive.extracted(app.root, download, { strip = 1, exclude = { "docs", "*.md" },
                                            owner = "www-data", group = "www-data" }),
    file.has_content(app.root .. "/config.php",
                     template("templates/shop-config.php.j2",
                              { db_host = app.db_host, db_name = app.db_name, db_user = app.db_user,
                                db_password = secret "shop_db", debug = false }),
                     { owner = "www-data", group = "www-data", mode = "0600" }),
    apache.site(app.name, template("templates/shop-vhost.conf.j2",
                                   { server_name = "shop.example.com", root = app.root,
                                     aliases = { "www.shop.example.com" } })),
  }
end

local function db()
  local tasks = {
    mysql.installed(),
    mysql.setting("bind_address", "0.0.0.0"),
    mysql.database(app.db_name),
  }
  for _, ip in ipairs(app.web_hosts) do
    tasks[#tasks + 1] = mysql.user(app.db_user, { password = secret "shop_db", host = ip })
    tasks[#tasks + 1] = mysql.grant(app.db_user, { host = ip, on = app.db_name .. ".*",
                                                   privileges = { "SELECT", "INSERT", "UPDATE", "DELETE" } })
  end
  return tasks
end

host "web1.example.com" { os.debian("bookworm", "amd64"), ipv4 "192.0.2.11", common(), web() }
host "web2.example.com" { os.debian("bookworm", "amd64"), ipv4 "192.0.2.12", common(), web() }
host "db.example.com" {
  os.debian("bookworm", "amd64"), ipv4 "192.0.2.21",
  common { { port = 3306, from = "192.0.2.11" }, { port = 3306, from = "192.0.2.12" } },
  db(),
}
