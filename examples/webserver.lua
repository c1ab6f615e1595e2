-- A web server, as you would write your first one: a deploy account that
-- logs in with its key and never a password, nginx serving a site the
-- deploy account owns, a nightly cron job, security updates applied by
-- themselves, and a firewall that opens exactly what the host declares.
-- Every recipe used here is documented in prop-site(5).
--
--   prop lint examples/webserver.lua       checks it, nothing runs
--   prop show examples/webserver.lua       what each property claims
--   prop run examples/webserver.lua --dry-run --diff
--
-- The key is an example: put your own public key in its place.

local deploy_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOEilUfpRIT9ZRYnYiKrxv7Tm7RODQFT8g3JxC9I8o8P deploy@laptop"

-- web: begin
local web = props {
  -- Security updates, every day, by unattended-upgrades.
  apt.unattended_upgrades(),

  -- The deploy account: its key, and no password logins for anyone.
  -- ssh.listen_port declares port 22, so that the firewall below keeps it
  -- open even when prop runs on the host itself (prop pull).
  apt.installed { "openssh-server" },
  user.account("deploy", { shell = "/bin/bash" }),
  ssh.authorized_keys("deploy", deploy_key),
  ssh.listen_port(22),
  ssh.password_authentication(false),
  service.running "ssh",

  -- The site: files the deploy account owns, served by nginx (which
  -- declares port 80; the site declares the ports of its listen lines,
  -- and no other site of the host may answer on them as the default
  -- one: P017).  nginx -t checks the site before nginx
  -- reloads it: a broken site never replaces a working one.
  -- Debian's default site holds port 80's default_server: it goes first,
  -- or nginx -t refuses the new site (and prop says so, at its line).
  nginx.installed(),
  file.directory("/srv/www", { owner = "deploy", group = "deploy" }),
  nginx.site_disabled "default",
  nginx.site("www", "server {\n\tlisten 80 default_server;\n\troot /srv/www;\n}\n"),

  -- A copy of the site every night at 03:30.
  apt.installed { "cron" },
  cron.job("www-backup", "30 3 * * *", { "tar", "-czf", "/var/backups/www.tar.gz", "-C", "/srv", "www" }),

  -- Ports 22 and 80 (what the properties above declare), and nothing else.
  firewall.open_declared(),
}
-- web: end

host "web1.example.com" {
  os.debian("bookworm", "amd64"),
  web,
}
