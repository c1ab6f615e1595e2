-- A fleet built by a loop, as large sites are: every host gets the same
-- base through a helper, and most recipe calls repeat an earlier one with
-- equal arguments.  It lints clean, and prop show gives each host's
-- properties the place of its own call (the loop's lines, through the
-- helper), whichever call ran the recipe first.
local function base(name)
  return props {
    apt.installed { "openssh-server", "curl" },
    file.contains_lines("/etc/ssh/sshd_config", { "PasswordAuthentication no" }),
    file.has_content("/etc/motd", name .. " is managed by prop\n"),
    service.running "ssh",
    user.account("deploy", { uid = 1501, shell = "/bin/sh", groups = { "adm" } }),
  }
end

local function web(i)
  return apt.installed { "nginx" }
    :requires(file.has_content("/etc/nginx/conf.d/site.conf",
                               { "server {", "  listen 80;", "}" }, { mode = "0644" }))
    :on_change(service.restarted "nginx")
end

for i = 1, 12 do
  local name = ("node%02d.example.com"):format(i)
  host(name) {
    os.debian("bookworm", "amd64"),
    ipv4(("192.0.2.%d"):format(i)),
    base(name),
    i % 2 == 0 and web(i) or cron.job("report", "0 4 * * *", { "/usr/local/bin/report" }),
    revert(apt.installed "telnet"),
    revert(revertable(service.running "rpcbind", service.stopped "rpcbind")),
    pick_os(apt.installed "chrony", pkg.installed "chrony"),
    packages.upgraded(),
    file.directory("/srv/app", { mode = "0750", owner = "root" }),
  }
end
