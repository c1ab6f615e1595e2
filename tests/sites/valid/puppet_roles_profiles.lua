-- A Puppet control repository's roles and profiles, the prop way.
-- Profiles say what one service needs and are parameterised by Lua
-- tables (Hiera's data); roles are lists of profiles; nodes are hosts.
-- Each profile adds its own firewall ports, sudoers rules, vhosts and
-- /etc/hosts entries to files and rulesets that one profile owns, and
-- sudoers.d, cron.d, sources.list.d and nginx's sites-enabled hold
-- exactly what the site declares.  Two profiles that need one package,
-- service or directory simply say so.  It lints clean: no error, no
-- warning.

-- Hiera: common data, and per-node overrides merged in Lua.
local common = {
  admins = { alice = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAliceAliceAliceAliceAliceAliceAliceAli alice@laptop" },
  monitoring = "192.0.2.0/24",
}
local nodes = {
  ["web1.example.com"] = { sites = { "shop", "blog" }, ipv4 = "192.0.2.11" },
  ["web2.example.com"] = { sites = { "shop" }, ipv4 = "192.0.2.12" },
  ["db1.example.com"] = { ipv4 = "192.0.2.21" },
}
-- A Lua table's pairs() has no order: walk the data by sorted keys, so
-- that every evaluation lists the same properties in the same order.
local function sorted(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys)
  return keys
end

-- profile::base: every node.
local function profile_base(h)
  local keys = {}
  for _, admin in ipairs(sorted(common.admins)) do
    local key = common.admins[admin]
    keys[#keys + 1] = user.account(admin, { shell = "/bin/bash" })
    keys[#keys + 1] = ssh.authorized_keys(admin, key, { exact = true })
    keys[#keys + 1] = file.fragment("/etc/sudoers.d/site", "admin " .. admin,
                                    admin .. " ALL=(ALL:ALL) ALL", { order = 10 })
  end
  return {
    apt.installed { "sudo", "nftables" },
    firewall.nftables {},
    firewall.allow { port = 22 },
    firewall.allow { port = 9100, from = common.monitoring },   -- node exporter
    file.fragments("/etc/sudoers.d/site", { header = "# sudoers rules of the site's profiles",
                                            mode = "0440", validate = { "visudo", "-c", "-f", "%s" } }),
    sudo.rules_purged(),
    cron.purged(),
    apt.sources_purged():on_change(apt.update()),
    file.fragments("/etc/hosts", { header = { "127.0.0.1 localhost", "::1 localhost" } }),
    keys,
    user.account("olduser", { password = "*" }),   -- Puppet's password => '*'
  }
end

-- profile::nginx, with the sites of the node.
local function profile_nginx(sites)
  local p = {
    apt.installed { "nginx" },
    nginx.installed { purge_sites = true },
    service.running "nginx",
    firewall.allow { port = 80 },
    firewall.allow { port = 443 },
    file.directory "/srv/www",
  }
  for _, name in ipairs(sites) do
    p[#p + 1] = file.directory("/srv/www/" .. name)
    p[#p + 1] = nginx.site(name, "server {\n  listen 80;\n  server_name " .. name
                                 .. ".example.com;\n  root /srv/www/" .. name .. ";\n}\n")
  end
  return p
end

-- profile::deploy: the deploy user may restart the application.
local function profile_deploy(h)
  return {
    user.account("deploy"),
    file.directory "/srv/www",                    -- profile_nginx says it too: they agree
    file.fragment("/etc/sudoers.d/site", "deploy",
                  "deploy ALL=(root) NOPASSWD: /usr/bin/systemctl reload nginx"),
    cron.job("deploy-cleanup", "15 3 * * *", { "/usr/bin/find", "/srv/www", "-name", "*.tmp", "-delete" },
             { user = "deploy" }),
  }
end

-- profile::postgresql
local function profile_postgresql(h)
  return {
    apt.installed { "postgresql" },
    service.running "postgresql",
    firewall.allow { port = 5432, from = "192.0.2.0/24" },
    file.fragment("/etc/sudoers.d/site", "dba", "%postgres ALL=(postgres) ALL", { order = 20 }),
  }
end

-- Every node's /etc/hosts knows every other node: one fragment each.
local function profile_hosts(h)
  local p = {}
  for _, name in ipairs(sorted(nodes)) do
    p[#p + 1] = file.fragment("/etc/hosts", name, nodes[name].ipv4 .. " " .. name)
  end
  return p
end

-- Roles: lists of profiles.
local function role_web(sites)
  return { profile_base, profile_hosts, profile_nginx(sites), profile_deploy }
end
local role_db = { profile_base, profile_hosts, profile_postgresql }

for _, name in ipairs { "web1.example.com", "web2.example.com" } do
  host(name) { os.debian("bookworm", "amd64"), ipv4(nodes[name].ipv4), role_web(nodes[name].sites) }
end
host "db1.example.com" { os.debian("bookworm", "amd64"), ipv4(nodes["db1.example.com"].ipv4), role_db }
