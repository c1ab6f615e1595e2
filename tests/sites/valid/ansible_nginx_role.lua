-- An nginx web-server role as Ansible users write it (defaults, a vhost
-- template looped over a list, handlers for reload, a hardened sshd, a
-- deploy user with a key, sysctl tuning), written the prop way: the role
-- is a Lua function, its defaults a table, its handlers on_change targets
-- that run once however many properties notify them.

local defaults = {
  worker_processes = "auto",
  worker_connections = 1024,
  client_max_body_size = "16m",
  vhosts = {},
  remove_default_vhost = true,
}

-- The vhost template (templates/vhost.conf.j2 in the role).
local vhost_template = [[
server {
    listen {{ vhost.listen | default("80") }};
    server_name {{ vhost.server_name }};
    root {{ vhost.root }};
    index index.html;
{% if vhost.extra is defined %}
    {{ vhost.extra }}
{% endif %}
{% for loc in vhost.locations %}
    location {{ loc.path }} {
        {{ loc.body }}
    }
{% endfor %}
}
]]

local nginx_conf = [[
user www-data;
worker_processes {{ worker_processes }};
pid /run/nginx.pid;
include /etc/nginx/modules-enabled/*.conf;

events {
    worker_connections {{ worker_connections }};
}

http {
    sendfile on;
    client_max_body_size {{ client_max_body_size }};
    include /etc/nginx/mime.types;
    access_log /var/log/nginx/access.log;
    error_log /var/log/nginx/error.log;
    include /etc/nginx/conf.d/*.conf;
    include /etc/nginx/sites-enabled/*;
}
]]

local function merge(a, b)
  local r = {}
  for k, v in pairs(a) do r[k] = v end
  for k, v in pairs(b or {}) do r[k] = v end
  return r
end

-- roles/nginx: tasks/main.yml and handlers/main.yml.
local function nginx_role(vars)
  vars = merge(defaults, vars)
  local reload = service.restarted "nginx"   -- the "reload nginx" handler
  local tasks = {
    apt.installed { "nginx" },
    file.has_content("/etc/nginx/nginx.conf", template.text(nginx_conf, vars)):on_change(reload),
  }
  for _, v in ipairs(vars.vhosts) do
    local conf = "/etc/nginx/sites-available/" .. v.server_name .. ".conf"
    tasks[#tasks + 1] = file.directory(v.root, { mode = "0755" })
    tasks[#tasks + 1] = file.has_content(conf, template.text(vhost_template, { vhost = v }))
      :before(file.symlink("/etc/nginx/sites-enabled/" .. v.server_name .. ".conf", conf))
      :on_change(reload)
  end
  if vars.remove_default_vhost then
    tasks[#tasks + 1] = file.absent("/etc/nginx/sites-enabled/default"):on_change(reload)
  end
  tasks[#tasks + 1] = service.running "nginx"
  return props(tasks):describe("role nginx"):tag("nginx", "web")
end

-- roles/hardening: sshd through its own recipe (sshd -t before reload),
-- kernel settings, no password logins.
local function hardening_role()
  return props {
    ssh.sshd_config { PermitRootLogin = "prohibit-password", X11Forwarding = false,
                      MaxAuthTries = 3 },
    ssh.password_authentication(false),
    sysctl.set("net.ipv4.conf.all.rp_filter", 1),
    sysctl.set("net.ipv4.tcp_syncookies", 1),
    file.line("/etc/login.defs", "UMASK 027", { match = "^UMASK" }),
  }:describe("role hardening"):tag("hardening")
end

local function deploy_user(name, key)
  return props {
    user.account(name, { shell = "/bin/bash" }),
    user.has_group(name, "www-data"),
    ssh.authorized_keys(name, { key }),
    sudo.enabled_for(name, { nopasswd = true, commands = { "/usr/bin/systemctl reload nginx" } }),
  }:describe("deploy user " .. name)
end

local deploy_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGv3u1xY9s0b0oQ2mZ5c7p3h1n8d0yq3ZlqV4r6s7t8u deploy@ci"

-- The inventory: one group of two web servers.
for i, addr in ipairs { "192.0.2.31", "192.0.2.32" } do
  host("web" .. i .. ".example.com") {
    os.debian("bookworm", "amd64"),
    connect.ssh { address = addr, user = "root" },
    ipv4(addr),
    timezone.set "Etc/UTC",
    hardening_role(),
    nginx_role {
      worker_connections = 2048,
      vhosts = {
        { server_name = "www.example.com", root = "/srv/www/example",
          locations = { { path = "/static/", body = "expires 7d;" } } },
        { server_name = "api.example.com", root = "/srv/www/api", listen = "8080",
          extra = "access_log off;",
          locations = { { path = "/", body = "try_files $uri =404;" } } },
      },
    },
    deploy_user("deploy", deploy_key),
  }
end
