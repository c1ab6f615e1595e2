-- P001: revert of things that cannot be undone.
--! note 7
--! P001 12
--! P001 13
--! P001 14
--! P001 15
local conf = file.has_content("/etc/x.conf", "a=1\n")
local composite = apt.installed { "x" }:requires(conf)

host "h1.example.com" {
  os.debian("bookworm", "amd64"),
  revert(os.debian("bookworm", "amd64")),
  revert(file.has_content("/etc/motd", "hello\n")),
  revert(composite),
  revert(service.restarted "nginx"),
}
