-- Several mistakes of different kinds in one site: all are reported.
--! P012 13
--! P002 19
--! note 20
--! P008 22
--! P009 24
--! P001 25
--! P012 26
--! P011 29
--! P006 32
--! W101 34 warning
local function vhost(name)
  local p = file.has_content("/etc/apache2/sites-available/" .. name, "x\n", { onwer = "root" })
  return p
end

host "mixed.example.com" {
  os.freebsd("14.1-RELEASE", "amd64"),
  apt.installed { "apache2" },
  vhost("a.conf"),
  pkg.installed "nginx",
  pkg.removed "nginx",
  service.running "nginx",
  service.stopped "nginx",
  revert(file.absent "/etc/old"),
  file.mode("/etc/x", "8888"),
}

host "mixed.example.com" {
  os.debian("bookworm", "amd64"),
  tor.bridge(),
  apache.site("tls", "<VirtualHost *:443>\n  SSLEngine on\n</VirtualHost>\n"),
  apt.installed "curl",
  apt.installed "curl",
}
