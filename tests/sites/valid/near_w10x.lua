-- Near W101-W103: a property shared by two others is not a duplicate,
-- a hook on a property that changes things can run, hosts are not empty.
local srv = file.directory "/srv"
local a = file.has_content("/srv/a", "a\n"):requires(srv)
local b = file.has_content("/srv/b", "b\n"):requires(srv)

host "web1.example.com" {
  os.debian("bookworm", "amd64"),
  a,
  b,
  file.has_content("/etc/nginx/nginx.conf", "# nginx\n"):on_change(service.restarted "nginx"),
  apt.installed { "nginx" },
  apt.installed { "nginx-extras" },
}
