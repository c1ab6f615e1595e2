-- Equal recipe calls on every host of a loop: each host's conflicts and
-- duplicates (in one list) are found at its own lines, as if all had run.
--! P007 14
--! note 13
--! P008 16
--! note 15
--! P012 18
--! W101 26 warning
--! note 24
--! note 25
local function roles()
  return {
    file.has_content("/etc/motd", "one\n"),
    file.absent "/etc/motd",
    apt.installed "telnet",
    apt.removed "telnet",
    service.running "ssh",
    service.running("ssh", { bogus = true }),
  }
end

for i = 1, 3 do
  host(("web%d.example.com"):format(i)) {
    os.debian("bookworm", "amd64"), service.running "ssh",
    roles(),
    service.running "ssh",
  }
end
