-- Roles and profiles that each say what they need agree: two roles that
-- install one package, enable one service and make one directory give no
-- W101 (Puppet's ensure_packages idiom), nor does the host's own list
-- repeating what a role says.
local function webserver(h)
  return {
    apt.installed { "nginx" },
    service.running "nginx",
    file.directory "/srv/www",
  }
end

local reverse_proxy = {
  apt.installed { "nginx" },
  service.running "nginx",
  file.directory "/srv/www",
}

local function monitoring(h)
  return apt.installed { "nginx" }
end

host "web1.example.com" {
  os.debian("bookworm", "amd64"),
  webserver,
  reverse_proxy,
  monitoring,
  { service.running "nginx" },
  apt.installed { "nginx" },
}
