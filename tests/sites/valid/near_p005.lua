-- Near P005: combinations that some OS can run.
local web = apt.installed { "nginx" }:requires(file.directory "/srv/www")
local either = pick_os(apt.installed "vim", pkg.installed "vim")
local both = props { apt.installed "tmux", file.has_content("/etc/tmux.conf", "set -g mouse on\n") }

host "web1.example.com" {
  os.debian("bookworm", "amd64"),
  web,
  either:before(both),
}
